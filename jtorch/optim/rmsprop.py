"""RMSprop (centered, momentum, weight decay, maximize): torch's single-tensor update."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import jtorch

from .optimizer import Optimizer, _check_closure, _check_nonnegative, _scalar_step, _use_grad

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(
            lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
            capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable,
        )
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = _check_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_step()
                    state["square_avg"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                    if momentum > 0:
                        state["momentum_buffer"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                    if centered:
                        state["grad_avg"] = jtorch.zeros_like(p, memory_format=jtorch.preserve_format)
                grad = p.grad if not maximize else -p.grad
                square_avg = state["square_avg"]
                state["step"] += 1
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss
