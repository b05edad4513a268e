"""Separable resampling along one dim at a time: the shared body of padding (reflect, replicate)
and upsampling (nearest, linear, cubic) kernels.

An output position along a dim reads a few input positions (its taps), each with a weight or
none; the index and weight vectors are computed once on the host from the sizes alone. A backend
with the `resample` capability runs each dim in one pass (the CPU's Numba loops); on any other
the forward is index_select per tap and the backward its adjoint, index_add of the weighted
gradient into zeros. Both run below autograd, inside the operators'
own kernels, so the graph records the operators (ReflectionPad1DBackward0, ...), not these steps.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend
from ..structured.meta import allocate
from ..tensor import Tensor
from .copy import copy_from_host
from .factories import aten

# one tap: (indices into the input along the dim, weights or None)
Tap = tuple[np.ndarray, "np.ndarray | None"]


def host_tensor(values: np.ndarray, dtype: _dt.dtype, dev: object) -> Tensor:
    """A tensor on dev holding values computed on the host from sizes (never from data)."""
    out = allocate(values.shape, None, dtype, dev)
    if getattr(dev, "type", None) != "meta" and values.size:
        copy_from_host(out, np.ascontiguousarray(values.astype(dtype.numpy)))
    return out


def weight_dtype(dtype: _dt.dtype) -> _dt.dtype:
    """The weights' dtype: torch's opmath type (float32 for the 16-bit floats)."""
    return _dt.float64 if dtype is _dt.float64 else _dt.float32


def _weight(w: np.ndarray, x: Tensor, dim: int) -> Tensor:
    t = host_tensor(w, weight_dtype(x.dtype), x._device)
    return t.view([w.size] + [1] * (x.dim() - 1 - dim))


_DIRECT = frozenset({_dt.float32, _dt.float64, _dt.float16})  # what the direct loops compute with weights


def _direct(x: Tensor, weighted: bool) -> Any:
    """The backend's resample method when it has one for this dtype, else None."""
    b = backend(x._device.type)
    if not b.implements("resample"):
        return None
    if weighted or x.dtype is _dt.bfloat16 or x.dtype.is_complex:
        # float16 sums run in float32 on the CPU only; the other loops compute in the element type
        ok = x.dtype in _DIRECT and (x.dtype is not _dt.float16 or x._device.type == "cpu")
        return b if ok else None
    return b


def _run_direct(b: Any, x: Tensor, dim: int, n_out: int, taps: Sequence[Tap], backward: bool) -> Tensor:
    x = x.contiguous()
    shape = list(x._size)
    shape[dim] = n_out
    out = allocate(tuple(shape), None, x.dtype, x._device)
    outer = math.prod(x._size[:dim])
    inner = math.prod(x._size[dim + 1:])
    idx = np.stack([i for i, _ in taps]).astype(np.int64)
    w = None if taps[0][1] is None else np.stack([wk for _, wk in taps if wk is not None])
    b.resample(x, outer, inner, idx, w, out, backward)
    return out


def gather(x: Tensor, dim: int, taps: Sequence[Tap]) -> Tensor:
    """out[..., j, ...] = sum over taps of w[j] * x[..., idx[j], ...] along dim."""
    b = _direct(x, taps[0][1] is not None)
    if b is not None:
        return _run_direct(b, x, dim, taps[0][0].size, taps, False)
    out: Tensor | None = None
    for idx, w in taps:
        v = aten("index_select")(x, dim, host_tensor(idx, _dt.int64, x._device))
        if w is not None:
            v = v * _weight(w, x, dim)
        out = v if out is None else out + v
    assert out is not None
    return out


def scatter(g: Tensor, dim: int, in_size: int, taps: Sequence[Tap]) -> Tensor:
    """The adjoint of gather: the gradient along dim summed back onto the input positions."""
    b = _direct(g, True)
    if b is not None:
        return _run_direct(b, g, dim, in_size, taps if taps[0][1] is not None else
                           [(i, np.ones(i.size, weight_dtype(g.dtype).numpy)) for i, _ in taps], True)
    shape = list(g._size)
    shape[dim] = in_size
    acc_dtype = weight_dtype(g.dtype) if g.dtype.is_floating_point and g.dtype.itemsize == 2 else g.dtype
    gx = aten("zeros")(shape, dtype=acc_dtype, device=g._device)
    for idx, w in taps:
        src = g if w is None else g * _weight(w, g, dim)
        gx.index_add_(dim, host_tensor(idx, _dt.int64, g._device), src.to(acc_dtype))
    return gx if acc_dtype is g.dtype else gx.to(g.dtype)


def meta_out(x: Tensor, size: Sequence[int]) -> Tensor:
    return allocate(tuple(size), None, x.dtype, x._device)
