"""Row walking for the strided loops, shared by every generated kernel.

The strided loops keep their state in the int64 ``meta`` array that ``launch`` builds:

    meta[0:ndim]                          shape, dim 0 fastest
    meta[(k+1)*ndim : (k+2)*ndim]         strides of array operand k (elements)
    meta[soff : soff+nops]                per chunk: current row pointer of each array operand
    meta[soff+nops : soff+nops+ndim-1]    per chunk: counters of dims 1..ndim-1

These helpers depend only on int64 types, so they compile once (and are cached on disk)
instead of once per dtype signature of every kernel: a strided kernel compiles ~2x faster.
"""
from __future__ import annotations

import numba

from ..common.cache import enable_package_cache

_jit = numba.njit(error_model="numpy", nogil=True)


@enable_package_cache
@_jit
def start_row(start, meta, ndim, nops, soff):
    """Position a chunk at flat index `start`: counters and row pointers (which must hold
    the operands' offsets on entry).  Returns the index within the first row."""
    rest = start // meta[0]
    for d in range(1, ndim):
        c = rest % meta[d]
        rest //= meta[d]
        meta[soff + nops + d - 1] = c
        for k in range(nops):
            meta[soff + k] += c * meta[(k + 1) * ndim + d]
    return start % meta[0]


@enable_package_cache
@_jit
def next_row(meta, ndim, nops, soff):
    """Advance the row pointers by one row: an odometer over dims 1..ndim-1."""
    for d in range(1, ndim):
        j = soff + nops + d - 1
        meta[j] += 1
        if meta[j] < meta[d]:
            for k in range(nops):
                meta[soff + k] += meta[(k + 1) * ndim + d]
            return
        meta[j] = 0
        for k in range(nops):  # wrap this dim: back to its start
            meta[soff + k] -= (meta[d] - 1) * meta[(k + 1) * ndim + d]
