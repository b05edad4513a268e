"""The CPU `remap` stub: `dst[...] = src` for two CPU tensors of one shape and dtype, where src
(and dst) may have negative strides: the copy over an index map behind flip, rot90, tril and
triu (jtorch/native/rearrange.py builds the view; remap_loops.py has the loop, imported on first
use so that nothing loads Numba before a remap runs).

`tri`: None copies everything; (k, lower) keeps the lower (column - row <= k) or upper
(column - row >= k) triangle of the last two dimensions and writes zeros elsewhere.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..common.loop_plan import coalesce_c_order
from .threads import parallel_for

# the unsigned integer of each element width: elements are copied as bits
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(buf: np.ndarray) -> np.ndarray:
    if buf.dtype == np.complex128:
        return buf
    return buf.view(_BITS[buf.itemsize])


_loops: Any = None


def remap(dst: Any, src: Any, tri: tuple[int, bool] | None = None) -> None:
    global _loops
    size = dst._size
    numel = 1
    for n in size:
        numel *= n
    if numel == 0:
        return
    shape, a, b = list(size) or [1], list(dst._stride) or [1], list(src._stride) or [1]
    if tri is None:
        shape, a, b = coalesce_c_order(shape, a, b)
        k, mode = 0, 0
    else:
        k, mode = tri[0], 1 if tri[1] else 2
    nd = len(shape)
    g = np.array([nd, *shape, *a, *b, k, mode], dtype=np.int64)
    if _loops is None:
        from . import remap_loops as _loops_module

        _loops = _loops_module
    rows = numel // shape[-1]
    d = _bits(dst._storage.data)
    parallel_for(_loops.remap_rows, _loops.remap_rows_parallel, rows,
                 d, dst._offset, _bits(src._storage.data), src._offset, g, d.dtype.type(0), work=numel)
