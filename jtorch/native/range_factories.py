"""Range factories (RangeFactories.cpp): arange and linspace.

The values are computed on the host exactly as ATen's CPU kernels round them (per parallel chunk,
two 32-byte vectors at a time, with the compiler's fused multiply-adds, emulated here with
exactly rounded NumPy arithmetic), then copied into the out tensor on its device through the
backends' copy path: one kernel serves Meta and every backend.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend as _backend
from ..scalar import (
    C_TYPE_NAME,
    SCALAR_TYPE_NAME,
    bfloat16_bits_to_float32,
    checked_scalar,
    float32_to_bfloat16_bits,
    not_implemented,
)
from ..scalar import format_double as _g
from ..tensor import Tensor
from .copy import copy_from_host
from .factories import _OPTS, _empty, fill_, resize_, runs_below_inplace_or_view
from .registry import declare

arange = declare(f"arange(Scalar end, *, {_OPTS}) -> Tensor")
arange_start = declare(f"arange.start(Scalar start, Scalar end, *, {_OPTS}) -> Tensor")
arange_start_step = declare(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor")
arange_out = declare("arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)")
arange_start_out = declare("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)")
linspace = declare(f"linspace(Scalar start, Scalar end, int steps, *, {_OPTS}) -> Tensor")
linspace_tt = declare(f"linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, {_OPTS}) -> Tensor")
linspace_ts = declare(f"linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, {_OPTS}) -> Tensor")
linspace_st = declare(f"linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, {_OPTS}) -> Tensor")
linspace_out = declare("linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_tt_out = declare(
    "linspace.Tensor_Tensor_out(Tensor start, Tensor end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_ts_out = declare(
    "linspace.Tensor_Scalar_out(Tensor start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_st_out = declare(
    "linspace.Scalar_Tensor_out(Scalar start, Tensor end, int steps, *, Tensor(a!) out) -> Tensor(a!)")


# ---- arange -----------------------------------------------------------------------------------------
# ATen's CPU range kernels use the AVX2 build of Vectorized (AVX512 is not registered for them):
# 32-byte vectors, two per iteration, and the compiler contracts `a + b * c` into fused multiply-adds.
_VEC_BYTES = 32


def _is_integral_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, np.integer, np.bool_))


def _to_double(v: Any) -> float:
    return float(checked_scalar(_dt.float64, v))


def compute_arange_size(start: Any, end: Any, step: Any, dtype: _dt.dtype) -> int:
    """compute_arange_size<scalar_t> (with arange_check_bounds)."""
    ds, de, dst = _to_double(start), _to_double(end), _to_double(step)
    if not (dst > 0 or dst < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {_g(ds)} -> {_g(de)}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is _dt.int64:
        xs, xe, xst = (int(checked_scalar(_dt.int64, v)) for v in (start, end, step))
        if xst == 0:
            raise ValueError("step must be nonzero")
        sgn = (xst > 0) - (xst < 0)
        num = xe - xs + xst - sgn
        size_d = float(abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1))  # C division truncates
    else:
        size_d = math.ceil((de - ds) / dst)
    if not (size_d >= 0 and size_d <= float(2 ** 63 - 1)):
        raise RuntimeError("invalid size, possible overflow?")
    return int(size_d)


def _parallel_chunks(n: int) -> list[tuple[int, int]]:
    """at::parallel_for's split of [0, n) (OpenMP: divup(n, nthreads) per thread), with the
    process's thread count deciding the number of chunks (values are rounded per chunk, so the
    busy-machine fallback must not change them)."""
    nt = _backend("cpu").parallel_chunks(n)
    if nt <= 1:
        return [(0, n)]
    cs = -(-n // nt)
    return [(b, min(n, b + cs)) for b in range(0, n, cs)]


def _arange_values(start: Any, step: Any, n: int, dtype: _dt.dtype) -> np.ndarray:
    """arange_kernel: start + step * idx in the accumulate type (double for float/double, float for
    half, int64 for integers), computed the way ATen's CPU kernel is: per parallel chunk, two
    Vectorized at a time, each `Vectorized::arange(start + step * i0, step)` (lane k holds
    `base + k * step` with `base` already rounded to the dtype), and a scalar tail."""
    s: float
    st: float
    if not dtype.is_floating_point:  # exact in int64; the narrowing cast wraps
        s, st = int(checked_scalar(_dt.int64, start)), int(checked_scalar(_dt.int64, step))
        with np.errstate(over="ignore"):
            vals = np.int64(s) + np.int64(st) * np.arange(n, dtype=np.int64)
        return vals.astype(dtype.numpy)
    if dtype in _dt.reduced_floats:  # accscalar_t is float
        s, st = checked_scalar(_dt.float32, start), checked_scalar(_dt.float32, step)
        acc, fma = np.float32, fma32
    else:
        s, st = _to_double(start), _to_double(step)
        acc, fma = np.float64, fma64
    v = _VEC_BYTES // dtype.itemsize
    lanes = np.arange(v, dtype=acc)
    out = np.empty(n, dtype.numpy)
    with np.errstate(over="ignore"):  # values beyond float16's range become inf, silently in C++
        for b, e in _parallel_chunks(n):
            nv = ((e - b) // (2 * v)) * 2 * v
            if nv:
                base = _as_values(_stored(fma(st, np.arange(b, b + nv, v).astype(acc), s), dtype)).astype(acc)
                out[b:b + nv] = _stored(fma(lanes[None, :], st, base[:, None]).reshape(-1), dtype)
            out[b + nv:e] = _stored(fma(st, np.arange(b + nv, e).astype(acc), s), dtype)
    return out


def _stored(x: np.ndarray, dtype: _dt.dtype) -> np.ndarray:
    """x rounded into dtype's storage (bfloat16: its bit patterns in jtorch's opaque 2-byte type)."""
    if dtype is _dt.bfloat16:
        return float32_to_bfloat16_bits(np.asarray(x, np.float32)).view(dtype.numpy)
    return np.asarray(x).astype(dtype.numpy)


def _as_values(x: np.ndarray) -> np.ndarray:
    return bfloat16_bits_to_float32(x) if x.dtype.kind == "V" else x


def _arange_dtype(dtype: Any, *scalars: Any) -> Any:
    if dtype is None and all(_is_integral_scalar(v) for v in scalars):
        return _dt.int64  # bools count as integral here
    return dtype


@arange.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_kernel(end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: Any = None) -> Tensor:
    return arange_start_step.op(0, end, 1, dtype=dtype, device=device)


@arange_start.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_start_kernel(start: Any, end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                        pin_memory: Any = None) -> Tensor:
    return arange_start_step.op(start, end, 1, dtype=dtype, device=device)


@arange_start_step.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_start_step_kernel(start: Any, end: Any, step: Any = 1, *, dtype: Any = None, layout: Any = None,
                             device: Any = None, pin_memory: Any = None) -> Tensor:
    out = _empty((0,), _arange_dtype(dtype, start, end, step), device)
    return arange_start_out.op(start, end, step, out=out)


@arange_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_out_kernel(end: Any, *, out: Tensor) -> Tensor:
    return arange_start_out.op(0, end, 1, out=out)


@arange_start_out.impl_backends
def arange_start_out_kernel(start: Any, end: Any, step: Any = 1, *, out: Tensor) -> Tensor:
    d = out.dtype
    if d is _dt.bool or d.is_complex:
        raise not_implemented("arange_cpu", d)
    size = compute_arange_size(start, end, step, d)
    numel = out.numel()
    if numel != size:
        if numel > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._size)} is {numel} which does not "
                f"match the computed number of elements {size}. Note that this may occur as a result of rounding "
                f"error. The out tensor will be resized to a tensor of shape ({size},).", UserWarning, stacklevel=2)
        resize_(out, (size,))
    if out._device.type != "meta" and size:
        dev = _device_range(out, "arange")
        if dev is None:
            copy_from_host(out, _arange_values(start, step, size, d))
        else:  # the values the host path computes, with its chunking (see _arange_values)
            nt = _backend("cpu").parallel_chunks(size)
            chunk, vec = (-(-size // nt) if nt > 1 else size), _VEC_BYTES // d.itemsize
            s: float
            st: float
            if not d.is_floating_point:
                s, st = int(checked_scalar(_dt.int64, start)), int(checked_scalar(_dt.int64, step))
            elif d in _dt.reduced_floats:
                s, st = checked_scalar(_dt.float32, start), checked_scalar(_dt.float32, step)
            else:
                s, st = _to_double(start), _to_double(step)
            dev(out, s, st, chunk, vec)
    return out


def _device_range(out: Tensor, kind: str) -> Any:
    """The backend's `arange` / `linspace` method when it computes range values on its device
    (CUDA), else None: the host computes them as below (bfloat16 too: the device kernels have no
    bfloat16 stores)."""
    if out._device.type == "cpu" or out.dtype is _dt.bfloat16:
        return None
    b = _backend(out._device.type)
    return getattr(b, kind) if b.implements(kind) else None


# ---- linspace ---------------------------------------------------------------------------------------
def _linspace_dtype(start: Any, end: Any, dtype: Any) -> Any:
    """linspace_logspace_infer_options."""
    if isinstance(start, complex) or isinstance(end, complex):
        default_complex = _dt.default_complex_dtype()
        if dtype is not None:
            if not dtype.is_complex:
                raise RuntimeError(f"torch.linspace(): inferred dtype {C_TYPE_NAME[default_complex]} can't be "
                                   f"safely cast to passed dtype {SCALAR_TYPE_NAME[dtype]}")
            return dtype
        return default_complex
    return dtype


def _linspace_values(start: Any, end: Any, steps: int, d: _dt.dtype) -> np.ndarray:
    """linspace_kernel: fill from both ends (start + step*i below steps/2, end - step*(steps-1-i)
    above), step computed in the dtype (double for integers); fused multiply-adds as compiled."""
    halfway = steps // 2
    idx = np.arange(steps, dtype=np.int64)
    lo, hi = idx[:halfway], (steps - idx[halfway:] - 1)
    if not (d.is_floating_point or d.is_complex):  # step_t = double, results truncated
        s, e = int(checked_scalar(d, start)), int(checked_scalar(d, end))
        step = (float(e) - float(s)) / (steps - 1)
        vals = np.concatenate([fma64(step, lo.astype(np.float64), float(s)),
                               fma64(-step, hi.astype(np.float64), float(e))])
        with np.errstate(invalid="ignore"):
            return np.trunc(vals).astype(np.int64).astype(d.numpy)
    s, e = checked_scalar(d, start), checked_scalar(d, end)
    t = d.numpy.type
    with np.errstate(all="ignore"):
        if d in _dt.reduced_floats:  # c10::Half/BFloat16 operators: each computed in float and rounded
            f = np.float32

            def rnd(x: Any) -> np.ndarray:  # float -> the dtype -> float
                return _as_values(_stored(np.asarray(x, f), d))

            step_r = rnd(f(e - s) / rnd(f(steps - 1)))  # static_cast<T>(int64): through float
            a = _stored(f(s) + rnd(step_r * rnd(lo.astype(f))), d)
            b = _stored(f(e) - rnd(step_r * rnd(hi.astype(f))), d)
            return np.concatenate([a, b])
        if d.is_complex:  # complex / and * by an integer scale both parts: one fma per part
            r = d.to_real()
            n1 = r.numpy.type(steps - 1)
            step_re, step_im = (e.real - s.real) / n1, (e.imag - s.imag) / n1
            fma = fma32 if r is _dt.float32 else fma64
            out = np.empty(steps, d.numpy)
            lo_f, hi_f = lo.astype(r.numpy), hi.astype(r.numpy)
            out.real = np.concatenate([fma(step_re, lo_f, s.real), fma(-step_re, hi_f, e.real)])
            out.imag = np.concatenate([fma(step_im, lo_f, s.imag), fma(-step_im, hi_f, e.imag)])
            return out
        step = (e - s) / t(steps - 1)
        fma = fma32 if d is _dt.float32 else fma64
        return np.concatenate([fma(step, lo.astype(t), s), fma(-step, hi.astype(t), e)]).astype(d.numpy)


@linspace.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_kernel(start: Any, end: Any, steps: int, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = _empty((steps,), _linspace_dtype(start, end, dtype), device)
    return linspace_out.op(start, end, steps, out=out)


@linspace_out.impl_backends
def linspace_out_kernel(start: Any, end: Any, steps: int, *, out: Tensor) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out.numel() != steps:
        resize_(out, (steps,))
    if out._device.type == "meta" or steps == 0:
        return out
    if steps == 1:
        return fill_(out, start)
    d = out.dtype
    if d is _dt.bool:
        raise not_implemented("linspace_cpu", d)
    dev = _device_range(out, "linspace")
    if dev is not None:
        dev(out, checked_scalar(d, start), checked_scalar(d, end), steps)
    else:
        copy_from_host(out, _linspace_values(start, end, steps, d))
    return out


def _zero_dim_item(start: Tensor | None, end: Tensor | None) -> None:
    if start is not None and end is not None:
        if start.dim() != 0 or end.dim() != 0:
            raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got start with "
                               f"{start.dim()} dimension(s) and end with {end.dim()} dimension(s).")
    elif start is not None and start.dim() != 0:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got start with "
                           f"{start.dim()} dimension(s).")
    elif end is not None and end.dim() != 0:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got end with "
                           f"{end.dim()} dimension(s).")


@linspace_tt.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_tt_kernel(start: Tensor, end: Tensor, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(start, end)
    return linspace.op(start.item(), end.item(), steps, dtype=dtype, device=device)


@linspace_ts.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_ts_kernel(start: Tensor, end: Any, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(start, None)
    return linspace.op(start.item(), end, steps, dtype=dtype, device=device)


@linspace_st.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_st_kernel(start: Any, end: Tensor, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(None, end)
    return linspace.op(start, end.item(), steps, dtype=dtype, device=device)


@linspace_tt_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_tt_out_kernel(start: Tensor, end: Tensor, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(start, end)
    return linspace_out.op(start.item(), end.item(), steps, out=out)


@linspace_ts_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_ts_out_kernel(start: Tensor, end: Any, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(start, None)
    return linspace_out.op(start.item(), end, steps, out=out)


@linspace_st_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_st_out_kernel(start: Any, end: Tensor, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(None, end)
    return linspace_out.op(start, end.item(), steps, out=out)


# ---- fused multiply-add, exactly rounded, on NumPy arrays (the C++ kernels' contracted a*b+c) -------
_SPLIT = 134217729.0  # 2**27 + 1 (Dekker)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RO(x + y) for an exact pair (x = RN(x + y)): x itself, or its neighbour toward y when x is even."""
    odd = (x.view(np.int64) & 1) == 1
    return np.where((y == 0) | odd, x, np.nextafter(x, np.where(y > 0, np.inf, -np.inf)))


def fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c in float64 with one rounding: Boldo and Melquiond's emulated FMA (exact product,
    exact sum, the small terms rounded to odd). Operands where the error-free transformations
    underflow or overflow are computed exactly with rationals."""
    a, b, c = np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a, b)  # on the operands' own shapes: broadcasting happens in the sums
        th, tl = _two_sum(c, uh)
        x, y = _two_sum(tl, ul)
        r = th + _round_to_odd(x, y)
        hard = (np.abs(uh) < 2.0 ** -968) & (uh != 0) | (np.abs(a) > 2.0 ** 995) | (np.abs(b) > 2.0 ** 995)
        hard = np.broadcast_to(hard, r.shape) | ~np.isfinite(r)
    if hard.any():
        from fractions import Fraction

        r = np.array(r, copy=True)
        ab, bb, cb = np.broadcast_arrays(a, b, c)
        for i in zip(*np.nonzero(hard)):
            av, bv, cv = float(ab[i]), float(bb[i]), float(cb[i])
            if math.isfinite(av) and math.isfinite(bv) and math.isfinite(cv):
                try:
                    r[i] = float(Fraction(av) * Fraction(bv) + Fraction(cv))
                except OverflowError:
                    r[i] = av * bv + cv
            else:
                r[i] = av * bv + cv
    return r


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c for float32 operands with one rounding to float32: the product is exact in float64,
    the sum is rounded to odd in float64 (two spare bits at least), then rounded to float32."""
    a64, b64, c64 = (np.asarray(x, np.float32).astype(np.float64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        s, t = _two_sum(a64 * b64, c64)
        return _round_to_odd(s, t).astype(np.float32)
