"""logspace and the deprecated range (RangeFactories.cpp): values computed on the host as ATen's CPU
kernels compute them, then copied into the out tensor on its device (one kernel serves Meta and every
backend, as range_factories.py does for arange and linspace).

- logspace: base ** linspace(start, end, steps), the exponent filled from both ends as linspace is
  (start + step*i below steps/2, end - step*(steps-1-i) above); integers take a double step and
  truncate.
- range: start, start + step, ... up to and including end, in the accumulate type (double for
  floating dtypes); `torch.range` (jtorch/functional.py) warns that it is deprecated.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..scalar import checked_scalar, not_implemented
from ..scalar import format_double as _g
from ..tensor import Tensor
from .copy import copy_from_host
from .factories import _OPTS, _empty, fill_, resize_, runs_below_inplace_or_view
from .range_factories import _linspace_dtype, _zero_dim_item, fma32, fma64
from .registry import declare

_LOG_ARGS = "int steps, float base=10.0"
logspace = declare(f"logspace(Scalar start, Scalar end, {_LOG_ARGS}, *, {_OPTS}) -> Tensor")
logspace_out = declare(f"logspace.out(Scalar start, Scalar end, {_LOG_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def _logspace_values(start: Any, end: Any, steps: int, base: float, d: _dt.dtype) -> np.ndarray:
    halfway = steps // 2
    idx = np.arange(steps, dtype=np.int64)
    lo, hi = idx[:halfway], (steps - idx[halfway:] - 1)
    with np.errstate(all="ignore"):
        if not (d.is_floating_point or d.is_complex):
            s, e = int(checked_scalar(d, start)), int(checked_scalar(d, end))
            step = float(e - s) / (steps - 1)
            ex = np.concatenate([fma64(step, lo.astype(np.float64), float(s)),
                                 fma64(-step, hi.astype(np.float64), float(e))])
            vals = np.power(np.float64(base), ex)
            return np.trunc(vals).astype(np.int64).astype(d.numpy)
        s, e = checked_scalar(d, start), checked_scalar(d, end)
        if d.is_complex:
            t = d.numpy.type
            step_c = (t(e) - t(s)) / t(steps - 1)
            ex_c = np.concatenate([t(s) + step_c * lo, t(e) - step_c * hi])
            return np.power(np.complex128(base), ex_c.astype(np.complex128)).astype(d.numpy)
        acc = np.float32 if d is _dt.float32 else np.float64  # scalar_t arithmetic (half: through float)
        step = acc(acc(e) - acc(s)) / acc(steps - 1)
        fma = fma32 if acc is np.float32 else fma64
        ex = np.concatenate([fma(step, lo.astype(acc), acc(s)), fma(-step, hi.astype(acc), acc(e))])
        return np.power(np.float64(base), ex.astype(np.float64)).astype(d.numpy)


@logspace.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def logspace_kernel(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: Any = None) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = _empty((steps,), _linspace_dtype(start, end, dtype), device)
    return logspace_out.op(start, end, steps, base, out=out)


@logspace_out.impl_backends
def logspace_out_kernel(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Tensor) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out.numel() != steps:
        resize_(out, (steps,))
    if out._device.type == "meta" or steps == 0:
        return out
    d = out.dtype
    if d is _dt.bool:
        raise not_implemented("logspace_cpu", d)
    if steps == 1:
        return fill_(out, base ** complex(start) if d.is_complex else math.pow(base, float(start)))
    copy_from_host(out, _logspace_values(start, end, steps, float(base), d))
    return out


def _tensor_overloads(name: str, pick: Any) -> None:
    """logspace.Tensor_Tensor / Tensor_Scalar / Scalar_Tensor and their out= forms: the 0-dim tensors' items."""
    for overload, a, b in (("Tensor_Tensor", "Tensor", "Tensor"), ("Tensor_Scalar", "Tensor", "Scalar"),
                           ("Scalar_Tensor", "Scalar", "Tensor")):
        def kernel(start: Any, end: Any, steps: int, base: float = 10.0, **kw: Any) -> Tensor:
            _zero_dim_item(start if isinstance(start, Tensor) else None, end if isinstance(end, Tensor) else None)
            s = start.item() if isinstance(start, Tensor) else start
            e = end.item() if isinstance(end, Tensor) else end
            return pick(kw)(s, e, steps, base, **kw)

        declare(f"{name}.{overload}({a} start, {b} end, {_LOG_ARGS}, *, {_OPTS}) -> Tensor").impl(
            "CompositeExplicitAutograd")(runs_below_inplace_or_view(kernel))
        declare(f"{name}.{overload}_out({a} start, {b} end, {_LOG_ARGS}, *, Tensor(a!) out) -> Tensor(a!)").impl(
            "CompositeExplicitAutograd")(runs_below_inplace_or_view(kernel))


_tensor_overloads("logspace", lambda kw: logspace_out.op if "out" in kw else logspace.op)


# ---- range ---------------------------------------------------------------------------------------------
range_step = declare(f"range.step(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor")
range_ = declare(f"range(Scalar start, Scalar end, *, {_OPTS}) -> Tensor")
range_out_ = declare("range.out_(Scalar start, Scalar end, *, Tensor(a!) out) -> Tensor(a!)")
range_out = declare("range.out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)")


@range_step.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def range_step_kernel(start: Any, end: Any, step: Any = 1, *, dtype: Any = None, layout: Any = None,
                      device: Any = None, pin_memory: Any = None) -> Tensor:
    out = _empty((0,), dtype if dtype is not None else _dt.get_default_dtype(), device)
    return range_out.op(start, end, step, out=out)


@range_.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def range_kernel(start: Any, end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return range_step.op(start, end, 1, dtype=dtype, layout=layout, device=device)


@range_out_.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def range_out__kernel(start: Any, end: Any, *, out: Tensor) -> Tensor:
    return range_out.op(start, end, 1, out=out)


@range_out.impl_backends
def range_out_kernel(start: Any, end: Any, step: Any = 1, *, out: Tensor) -> Tensor:
    d = out.dtype
    if d is _dt.bool or d.is_complex:
        raise not_implemented("range_cpu", d)
    integral = not d.is_floating_point
    acc = _dt.int64 if integral else _dt.float64
    xs, xe, xst = (checked_scalar(acc, v) for v in (start, end, step))
    if not (xst > 0 or xst < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(float(xs)) and math.isfinite(float(xe))):
        raise RuntimeError(f"unsupported range: {_g(float(xs))} -> {_g(float(xe))}")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = int((xe - xs) // xst + 1) if integral else int((xe - xs) / xst + 1)
    if out.numel() != size:
        resize_(out, (size,))
    if out._device.type == "meta" or size == 0:
        return out
    i = np.arange(size, dtype=np.int64)
    vals = (xs + i * xst) if integral else (np.float64(xs) + i.astype(np.float64) * np.float64(xst))
    with np.errstate(all="ignore"):
        copy_from_host(out, np.asarray(vals).astype(d.numpy))
    return out


