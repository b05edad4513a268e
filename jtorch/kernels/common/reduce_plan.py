"""What a backend's reduce stub reads from a reduce-mode TensorIterator before it launches: the
accumulator dtype and identity of a declared Reduction, the operands and strides (`open_reduce`),
and the rows of an order statistic (`median_rows`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..reduction import Reduction


def identity(r: Reduction, dt: np.dtype) -> Any:
    """r's identity as a scalar of dtype dt ("lowest" / "highest": the dtype's extremes, inf for floats)."""
    ident = r.identity
    if isinstance(ident, str):
        low = ident == "lowest"
        if dt.kind == "b":
            ident = not low
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            ident = info.min if low else info.max
        else:
            ident = -np.inf if low else np.inf
    return dt.type(ident)


def real_dtype(dt: np.dtype) -> np.dtype:
    """The real dtype of a complex one (the dtype of extras and of the element count); others as they are."""
    return np.empty(0, dt).real.dtype if dt.kind == "c" else dt


def acc_dtype(r: Reduction, in_dt: np.dtype, out_dt: np.dtype | None) -> np.dtype:
    """The accumulators' dtype: bool for any/all, the input's for `acc == "in"` (or when there is
    no values output), else the values output's (sum of int32 accumulates in int64); float16
    accumulates in float32 (PyTorch's acc_type)."""
    if r.acc == "bool":
        return np.dtype(np.bool_)
    dt = in_dt if r.acc == "in" or out_dt is None else out_dt
    return np.dtype(np.float32) if dt == np.float16 else dt


def count(real: np.dtype, n: int) -> Any:
    """The number of reduced elements as the kernels take it: in the real dtype for floats, else int64."""
    return real.type(n) if real.kind in "fc" else np.int64(n)


@dataclass
class ReduceOperands:
    """A reduce-mode iterator read once: the input, the loop's shape and strides (a 0-dim input is
    one element), the values / indices operands (None where the reduction does not write them), the
    accumulator dtype with its real dtype and identity, the extras and the element count typed."""

    x: Any
    shape: list[int]
    in_st: list[int]
    out_st: list[int]
    values: Any
    indices: Any
    acc: np.dtype
    real: np.dtype
    ident: Any
    extras: tuple
    count: Any


def open_reduce(it: Any, r: Reduction, extras: tuple) -> ReduceOperands:
    nout = it.num_outputs
    src = it.operands[nout]
    x = src.tensor
    values = it.operands[r.outputs.index("values")] if "values" in r.outputs else None
    indices = it.operands[r.outputs.index("indices")] if "indices" in r.outputs else None
    acc = acc_dtype(r, x._storage.data.dtype, values.tensor._storage.data.dtype if values is not None else None)
    real = real_dtype(acc)
    return ReduceOperands(x, list(it.shape) or [1], list(src.strides) or [0], list(it.operands[0].strides) or [0],
                          values, indices, acc, real, identity(r, acc), tuple(real.type(e) for e in extras),
                          count(real, it.reduced_numel))


@dataclass
class MedianRows:
    """The rows of a median over a reduce-mode iterator: `geometry` is [nk, kept shape, input
    strides, value strides, index strides] over the kept dims; `rows` rows of `n` elements at
    element stride `stride`; `want_values` is False for the indices-only form."""

    geometry: tuple[int, ...]
    rows: int
    n: int
    stride: int
    x: Any
    values: Any
    indices: Any
    want_values: bool


def median_rows(it: Any) -> MedianRows:
    """The one reduced dim (the dim the indices output does not move along) and the kept dims."""
    nout = it.num_outputs
    src = it.operands[nout]
    shape = tuple(it.shape) or (1,)
    nd = len(shape)
    in_st = list(src.strides) or [0]
    vals, idx = it.operands[0], it.operands[nout - 1]
    vst = list(vals.strides) or [0]
    yst = list(idx.strides) or [0]
    red = [d for d in range(nd) if yst[d] == 0 and shape[d] != 1]
    n, s0 = (shape[red[0]], in_st[red[0]]) if red else (1, 0)
    kept = [d for d in range(nd) if d not in red]
    m = 1
    for d in kept:
        m *= shape[d]
    geometry = (len(kept), *(shape[d] for d in kept), *(in_st[d] for d in kept), *(vst[d] for d in kept),
                *(yst[d] for d in kept))
    return MedianRows(geometry, m, n, s0, src.tensor, vals.tensor, idx.tensor, nout == 2)
