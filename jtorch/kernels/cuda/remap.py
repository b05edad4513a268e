"""The CUDA `remap` stub, the twin of kernels/cpu/remap.py: `dst[...] = src` for two CUDA tensors
of one shape and dtype whose strides may be negative (flip, rot90 read a view backwards), and
with `tri` = (k, lower) only the triangle of the last two dims kept, zeros elsewhere (tril/triu).

One grid-stride kernel over dst's elements; elements move as bits (buffers viewed as the unsigned
integer of their width, complex128 as itself), so five compiled specialisations serve every
dtype. Geometry g (int64): [nd, shape (nd, C order), dst strides (nd), src strides (nd), k, mode];
mode 0 copies all, 1 keeps column - row <= k (tril), 2 keeps column - row >= k (triu).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from ..common.loop_plan import coalesce_c_order
from . import driver
from .elementwise import meta_array

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(buf: Any) -> Any:
    """The kernel array viewed as unsigned integers of its element width (complex128 as is)."""
    return buf if buf.dtype.itemsize == 16 else buf.view(_BITS[buf.dtype.itemsize])


@cuda.jit(cache=True)
def remap_kernel(n, g, dst, doff, src, soff, zero):  # pragma: no cover - compiled
    nd = g[0]
    k = g[1 + 3 * nd]
    mode = g[2 + 3 * nd]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        r = i
        dp = doff
        sp = soff
        row = 0
        col = 0
        for d in range(nd - 1, -1, -1):
            sz = g[1 + d]
            c = r % sz
            r = r // sz
            dp += c * g[1 + nd + d]
            sp += c * g[1 + 2 * nd + d]
            if d == nd - 1:
                col = c
            elif d == nd - 2:
                row = c
        if mode == 0 or (mode == 1 and col - row <= k) or (mode == 2 and col - row >= k):
            dst[dp] = src[sp]
        else:
            dst[dp] = zero
        i += step


def remap(dst: Any, src: Any, tri: tuple[int, bool] | None = None) -> None:
    numel = 1
    for n in dst._size:
        numel *= n
    if numel == 0:
        return
    shape, a, b = list(dst._size) or [1], list(dst._stride) or [1], list(src._stride) or [1]
    if tri is None:
        shape, a, b = coalesce_c_order(shape, a, b)
        k, mode = 0, 0
    else:
        k, mode = tri[0], 1 if tri[1] else 2
    g = meta_array((len(shape), *shape, *a, *b, k, mode))
    d = bits(dst._storage.data)
    driver.launch(remap_kernel, numel, numel, g, d, dst._offset, bits(src._storage.data), src._offset,
                  d.dtype.type(0))
