"""CUDA order statistics over a reduce-mode iterator: the lower median of each row along the one
reduced dim (median, median.dim), with its index; the CUDA twin of kernels/cpu/order.py.

Hand-written (there are no scalar pieces to generate from): one block per row (a grid-stride
walk over rows). The element of stable rank k = (n - 1) // 2 is the one with exactly k elements
before it in a stable sort, #{i: x_i < x_j or (x_i == x_j and i < j)} == k; each thread ranks its
share of candidates, so no row needs scratch memory or a sort. That is O(n^2 / threads) per row:
fine for the rows median sees in practice, slow for very long ones. A row with a NaN gives NaN
at its first NaN's index (a shared flag says whether the row has one).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from ..common.reduce_plan import median_rows
from . import driver
from .elementwise import meta_array

BLOCK = 4 if driver.SIMULATED else 256


@cuda.jit(cache=True)
def _median_rows(fk, m, n, s0, ib, io, ob, oo, yb, yo, wv):
    """fk: [nk, kept shape, input strides, value strides, index strides] over the kept dims."""
    has_nan = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    nk = fk[0]
    k = (n - 1) // 2
    row = cuda.blockIdx.x
    while row < m:  # uniform across the block: every thread reaches the syncthreads
        pin = io
        po = oo
        py = yo
        q = row
        for d in range(nk):
            sz = fk[1 + d]
            c = q % sz
            q = q // sz
            pin += c * fk[1 + nk + d]
            po += c * fk[1 + 2 * nk + d]
            py += c * fk[1 + 3 * nk + d]
        if t == 0:
            has_nan[0] = 0
        cuda.syncthreads()
        j = t
        while j < n:
            x = ib[pin + j * s0]
            if x != x:
                has_nan[0] = 1
            j += nt
        cuda.syncthreads()
        j = t
        while j < n:
            x = ib[pin + j * s0]
            if has_nan[0] != 0:
                if x != x:
                    first = True
                    for i in range(j):
                        y = ib[pin + i * s0]
                        if y != y:
                            first = False
                            break
                    if first:
                        if wv:
                            ob[po] = x
                        yb[py] = j
            else:
                rank = 0
                for i in range(n):
                    y = ib[pin + i * s0]
                    if y < x or (y == x and i < j):
                        rank += 1
                if rank == k:
                    if wv:
                        ob[po] = x
                    yb[py] = j
            j += nt
        cuda.syncthreads()
        row += cuda.gridDim.x


def median(it: Any) -> None:
    """Lower medians along the iterator's reduced dim into its (values, indices) outputs."""
    p = median_rows(it)
    if p.rows == 0:
        return
    x, vt, yt = p.x, p.values, p.indices
    blocks = min(p.rows, 4 if driver.SIMULATED else driver.sm_count() * 32)
    driver.launch_blocks(_median_rows, blocks, BLOCK, meta_array(p.geometry), np.int64(p.rows), np.int64(p.n),
                         np.int64(p.stride), x._storage.data, np.int64(x._offset), vt._storage.data,
                         np.int64(vt._offset), yt._storage.data, np.int64(yt._offset), p.want_values)
