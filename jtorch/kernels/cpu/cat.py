"""The CPU `cat` stub: all inputs contiguous and of the output's dtype, the output contiguous ->
one parallel copy launch per SLOTS inputs (cat_loops.py, imported on first use). Returns False
when that does not apply; aten::cat then copies each input into its slice with the copy stub.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...geometry import is_contiguous
from .threads import parallel_for

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}
_loops: Any = None


def cat(out: Any, tensors: Sequence[Any], dim: int) -> bool:
    """out = cat(tensors, dim): tensors without the skipped legacy (0,) ones, all of out's ndim."""
    global _loops
    dtype = out.dtype
    size = out._size
    if not is_contiguous(size, out._stride):
        return False
    for t in tensors:
        if t.dtype is not dtype or not is_contiguous(t._size, t._stride):
            return False
    scale = 2 if dtype.itemsize == 16 else 1  # complex128 as pairs of uint64
    inner = scale
    for s in size[dim + 1:]:
        inner *= s
    outer = 1
    for s in size[:dim]:
        outer *= s
    rowlen = size[dim] * inner
    if _loops is None:
        from . import cat_loops as module

        _loops = module
    slots = _loops.SLOTS
    bits = _BITS[dtype.itemsize]
    dst = out._storage.data.view(bits)
    plan: list = []
    srcs: list = []
    col = c0 = 0
    last = len(tensors) - 1
    for i, t in enumerate(tensors):
        w = t._size[dim] * inner if dim < len(t._size) else 0  # a legacy empty 1-d input adds nothing
        if w:
            if not srcs:
                c0 = col
            plan += (t._offset * scale, w, col - c0)
            srcs.append(t._storage.data.view(bits))
        col += w
        if len(srcs) == slots or (i == last and srcs):
            n = len(srcs)
            gw = col - c0
            srcs += [dst] * (slots - n)
            parallel_for(_loops.cat_flat, _loops.cat_flat_parallel, outer * gw,
                         dst, out._offset * scale + c0, tuple(srcs), np.array(plan, np.int64), n, gw, rowlen)
            plan, srcs = [], []
    return True
