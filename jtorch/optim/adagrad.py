"""Adagrad (lr_decay, weight decay, initial accumulator, maximize): torch's dense single-tensor update."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import jtorch

from .optimizer import Optimizer, _check_closure, _check_nonnegative, _scalar_step, _use_grad

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_nonnegative(
            lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, eps=eps,
        )
        defaults = dict(
            lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
            differentiable=differentiable, fused=fused,
        )
        super().__init__(params, defaults)
        # torch fills the state eagerly, in the constructor
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_step()
                init = group["initial_accumulator_value"]
                state["sum"] = jtorch.full_like(p, init, memory_format=jtorch.preserve_format)

    @_use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = _check_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, wd, maximize = (
                group["lr"], group["lr_decay"], group["eps"], group["weight_decay"], group["maximize"]
            )
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                step_t, state_sum = state["step"], state["sum"]
                step_t += 1
                step = step_t.item()
                grad = p.grad if not maximize else -p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss
