"""Fused optimizer steps: `_fused_adam_` and `_fused_adamw_` (ATen's FusedAdamKernel).

One operator call updates every parameter of a group: per parameter, three passes generated from
the scalar functions in jtorch/kernels/scalar_optim.py (exp_avg, exp_avg_sq, then the parameter;
a fourth for amsgrad's running maximum), run in place through the backend's
`elementwise_contiguous` stub, so CPU and CUDA both have it. The scalar functions repeat the
single-tensor step's operators in order, so the numbers are the same as `foreach=False`'s; what is
saved is about ten operator calls per parameter, which is most of a small model's optimizer step.

As in torch, the caller has already incremented `state_steps`; the kernel reads them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..kernels import scalar_binary, scalar_optim
from ..structured.elementwise import contiguous_runner
from ..tensor import Tensor
from .registry import declare

FUSED_DTYPES = (_dt.float32, _dt.float64)  # float16 would need float32 temporaries, as the iterator makes

_ARGS = ("(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, Tensor(d!)[] exp_avg_sqs, "
         "Tensor(e!)[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, "
         "float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None, "
         "Tensor? found_inf=None) -> ()")
fused_adam_ = declare("_fused_adam_" + _ARGS, variants="function")
fused_adamw_ = declare("_fused_adamw_" + _ARGS, variants="function")

def _check_lists(lists: Sequence[Sequence[Tensor]]) -> None:
    n = len(lists[0])
    for other in lists[1:]:
        if len(other) != n:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} and {len(other)}")


def _fused_adam(adamw: bool, self: list, grads: list, exp_avgs: list, exp_avg_sqs: list,
                max_exp_avg_sqs: list, state_steps: list, *, lr: float, beta1: float, beta2: float,
                weight_decay: float, eps: float, amsgrad: bool, maximize: bool,
                grad_scale: Tensor | None = None, found_inf: Tensor | None = None) -> None:
    lists = [self, grads, exp_avgs, exp_avg_sqs, state_steps] + ([max_exp_avg_sqs] if amsgrad else [])
    _check_lists(lists)
    if not self:
        return
    if self[0].device.type == "meta":
        return
    if found_inf is not None and found_inf.item() != 0:  # an inf/NaN gradient under AMP: skip the step
        return
    names = ("params, grads, exp_avgs, exp_avg_sqs, and max_exp_avg_sqs" if amsgrad
             else "params, grads, exp_avgs, and exp_avg_sqs")
    for i, p in enumerate(self):
        group = [p, grads[i], exp_avgs[i], exp_avg_sqs[i]] + ([max_exp_avg_sqs[i]] if amsgrad else [])
        for t in group[1:]:
            if t.dtype is not p.dtype or t.device != p.device or t._size != p._size:
                raise RuntimeError(f"{names} must have same dtype, device, and layout")
        if p.dtype not in FUSED_DTYPES:
            raise RuntimeError(f"_fused_adam_: jtorch's fused kernel takes float32 and float64 tensors, got {p.dtype}")
        if not all(t.is_contiguous() for t in group):
            raise RuntimeError("_fused_adam_: expected contiguous tensors")
    if grad_scale is not None:
        for g in grads:
            g.div_(grad_scale)
    dev = self[0].device.type
    r_avg = contiguous_runner(dev, scalar_optim.adam_exp_avg, 3, 3)
    r_sq = contiguous_runner(dev, scalar_optim.adam_exp_avg_sq, 3, 4)
    r_par = contiguous_runner(dev, scalar_optim.adam_param, 3, 4)
    r_max = contiguous_runner(dev, scalar_binary.maximum, 2, 0) if amsgrad else None
    decay = 1 - lr * weight_decay if adamw else 1.0
    coupled = 0.0 if adamw else weight_decay
    flag = 1.0 if maximize else 0.0
    for i, p in enumerate(self):
        n = p.numel()
        if not n:
            continue
        g, m, v = grads[i], exp_avgs[i], exp_avg_sqs[i]
        dt = p.dtype
        c = dt.numpy.type  # the compute dtype's scalar type: float32 code stays float32
        step = state_steps[i].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        r_avg(m, (m, g, p), dt, (c(1 - beta1), c(coupled), c(flag)), n)  # type: ignore[misc]  # CPU, CUDA have it
        r_sq(v, (v, g, p), dt,  # type: ignore[misc]  # CPU and CUDA have the stub
             (c(beta2), c(1 - beta2), c(coupled), c(flag)), n)
        if amsgrad:
            mx = max_exp_avg_sqs[i]
            r_max(mx, (mx, v), dt, (), n)  # type: ignore[misc]  # CPU and CUDA have the stub
            v = mx
        r_par(p, (p, m, v), dt,  # type: ignore[misc]  # CPU and CUDA have the stub
              (c(decay), c(bias_correction2 ** 0.5), c(eps), c(-step_size)), n)


@fused_adam_.impl_backends
def fused_adam__kernel(*args: Any, **kwargs: Any) -> None:
    _fused_adam(False, *args, **kwargs)


@fused_adamw_.impl_backends
def fused_adamw__kernel(*args: Any, **kwargs: Any) -> None:
    _fused_adam(True, *args, **kwargs)
