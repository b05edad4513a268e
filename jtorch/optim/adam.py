"""Adam (and, with decoupled weight decay, AdamW): torch's single-tensor update, op for op.

Per parameter and step: lerp_, mul_, addcmul_, sqrt, div, add_, addcdiv_ (seven passes over the
parameter, as torch's CPU path makes); the bias corrections are Python floats.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import jtorch

from .optimizer import Optimizer, _check_closure, _use_grad, _scalar_step

__all__ = ["Adam"]


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
            foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    @_use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = _check_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            amsgrad, maximize, decoupled = group["amsgrad"], group["maximize"], group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse if hasattr(p.grad, "is_sparse") else False:
                    raise RuntimeError(
                        "Adam does not support sparse gradients, please consider SparseAdam instead"
                    )
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_step()
                    state["exp_avg"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                    state["exp_avg_sq"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                    if amsgrad:
                        state["max_exp_avg_sq"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                grad = p.grad if not maximize else -p.grad
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                if wd != 0:
                    if decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = step_t.item()
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    jtorch.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = max_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
                else:
                    # torch writes sqrt() / c (a second temporary); in place gives the same numbers
                    denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)
        return loss
