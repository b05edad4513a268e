"""Adam (and, with decoupled weight decay, AdamW): torch's update formulas, two ways.

The single-tensor step is torch's CPU path op for op: per parameter lerp_, mul_, addcmul_, sqrt,
div_, add_, addcdiv_; the bias corrections are Python floats. The fused step (the default for
dense float32/float64 parameters, see `_fusable`) is one `_fused_adam_` / `_fused_adamw_` call per
group, whose kernel repeats those operators' scalar functions in the same order: same numbers,
about ten fewer operator calls per parameter.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import jtorch

from ..native.fused_optim import FUSED_DTYPES
from .optimizer import Optimizer, _check_closure, _check_nonnegative, _scalar_step, _use_grad

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
        _check_nonnegative(lr=lr, eps=eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check_nonnegative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
            foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        super().__init__(params, defaults)
        if fused:
            for group in self.param_groups:
                for p in group["params"]:
                    _device_dtype_check_for_fused(p)

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
            fused: list[jtorch.Tensor] = []
            single: list[jtorch.Tensor] = []
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
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                (fused if _fusable(group, p, state) else single).append(p)
            if fused:
                self._fused_step(group, fused)
            for p in single:
                self._single_tensor_step(group, p, self.state[p])
        return loss

    def _fused_step(self, group: dict, params: list) -> None:
        """One `_fused_adam_` call for the group's contiguous float32/float64 parameters."""
        states = [self.state[p] for p in params]
        steps = [s["step"] for s in states]
        for s in steps:
            s += 1
        beta1, beta2 = group["betas"]
        op = jtorch._fused_adamw_ if group["decoupled_weight_decay"] else jtorch._fused_adam_
        op(params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
           [s["max_exp_avg_sq"] for s in states] if group["amsgrad"] else [], steps,
           lr=group["lr"], beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"],
           amsgrad=group["amsgrad"], maximize=group["maximize"])

    def _single_tensor_step(self, group: dict, p: Any, state: dict) -> None:
        """torch's _single_tensor_adam for one parameter: an operator per line."""
        beta1, beta2 = group["betas"]
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        grad = p.grad if not group["maximize"] else -p.grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
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
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            jtorch.maximum(max_sq, exp_avg_sq, out=max_sq)
            denom = max_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
        else:
            # torch writes sqrt() / c (a second temporary); in place gives the same numbers
            denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)


def _device_dtype_check_for_fused(p: Any) -> None:
    supported = ["cuda", "cpu"]
    if not (p.device.type in supported and p.is_floating_point()):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                           f"supported devices: {supported} but {p.dtype} and {p.device.type}")


def _fusable(group: dict, p: Any, state: dict) -> bool:
    """Whether `p` takes the fused kernel: asked for (fused=True) or left to jtorch (fused and
    foreach both None; foreach=False asks for torch's loop), and a dense contiguous float32/float64
    tensor whose state is alike.
    Unlike torch, which runs its op-per-line loop on the CPU by default, jtorch fuses by default:
    per-operator overhead is its largest cost in a small model's step, and the fused kernel's
    numbers are the loop's (jtorch/kernels/scalar_optim.py)."""
    if group["differentiable"] or not (group["fused"] or (group["fused"] is None and group["foreach"] is None)):
        return False
    if (p.dtype not in FUSED_DTYPES or p.grad.dtype is not p.dtype or not p.is_contiguous()
            or not p.grad.is_contiguous()):
        return False
    return all(v.is_contiguous() for k, v in state.items() if k != "step")
