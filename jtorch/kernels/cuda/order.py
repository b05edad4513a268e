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
    nout = it.num_outputs
    src = it.operands[nout]
    x = src.tensor
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
    if m == 0:
        return
    fk = meta_array((len(kept), *(shape[d] for d in kept), *(in_st[d] for d in kept), *(vst[d] for d in kept),
                     *(yst[d] for d in kept)))
    vt, yt = vals.tensor, idx.tensor
    blocks = min(m, 4 if driver.SIMULATED else driver.sm_count() * 32)
    driver.launch_blocks(_median_rows, blocks, BLOCK, fk, np.int64(m), np.int64(n), np.int64(s0), x._storage.data,
                         np.int64(x._offset), vt._storage.data, np.int64(vt._offset), yt._storage.data,
                         np.int64(yt._offset), nout == 2)
