"""The Numba loop behind the `remap` stub: copy the elements of one strided view into another of
the same shape, strides signed (a flipped view reads backwards), optionally keeping only a
triangle of the last two dimensions and writing zeros elsewhere (tril / triu).

One loop for every operator that is "a copy over an index map" (flip, rot90, tril, triu, ...):
the operator builds the view, this loop walks it. Elements are copied as bits (buffers viewed as
unsigned integers of the element's width, complex128 as itself), so any dtype runs through at
most five compiled specialisations and NaN payloads survive.

Geometry `g` (int64): [nd, shape (nd), dst strides (nd), src strides (nd), k, mode], C order
(dim nd-1 fastest). mode 0 copies everything; 1 keeps column - row <= k (tril), 2 keeps
column - row >= k (triu), the row being dim nd-2 and the column dim nd-1; `zero` (the element
type's zero) is written elsewhere.
"""
from __future__ import annotations

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .chunk_clock import now_ns


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def remap_rows(lo, hi, dst, doff, src, soff, g, zero):  # pragma: no cover - compiled
    """Rows lo..hi-1 (a row: the last dimension at fixed other indices, C order)."""
    nd = g[0]
    inner = g[nd]
    ds = g[1 + 2 * nd - 1]
    ss = g[1 + 3 * nd - 1]
    k = g[1 + 3 * nd]
    mode = g[2 + 3 * nd]
    idx = np.zeros(max(nd - 1, 1), np.int64)
    r = lo
    for d in range(nd - 2, -1, -1):  # the indices of row lo
        n = g[1 + d]
        idx[d] = r % n
        r //= n
    dp = doff
    sp = soff
    for d in range(nd - 1):
        dp += idx[d] * g[1 + nd + d]
        sp += idx[d] * g[1 + 2 * nd + d]
    for _ in range(lo, hi):
        if mode == 0:
            for j in range(inner):
                dst[dp + j * ds] = src[sp + j * ss]
        else:
            edge = idx[nd - 2] + k  # tril keeps j <= edge, triu keeps j >= edge
            if mode == 1:
                a = min(max(edge + 1, 0), inner)
                for j in range(a):
                    dst[dp + j * ds] = src[sp + j * ss]
                for j in range(a, inner):
                    dst[dp + j * ds] = zero
            else:
                a = min(max(edge, 0), inner)
                for j in range(a):
                    dst[dp + j * ds] = zero
                for j in range(a, inner):
                    dst[dp + j * ds] = src[sp + j * ss]
        # next row: an odometer over dims nd-2 .. 0
        d = nd - 2
        while d >= 0:
            idx[d] += 1
            dp += g[1 + nd + d]
            sp += g[1 + 2 * nd + d]
            if idx[d] < g[1 + d]:
                break
            dp -= idx[d] * g[1 + nd + d]
            sp -= idx[d] * g[1 + 2 * nd + d]
            idx[d] = 0
            d -= 1


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def remap_rows_parallel(total, nchunks, dst, doff, src, soff, g, zero):  # pragma: no cover - compiled
    # threads.parallel_for's protocol: nchunks x the shortest chunk (a serial run's cost) minus
    # the region's time; negative when a preempted or late chunk made the region lose
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        remap_rows(c * total // nchunks, (c + 1) * total // nchunks, dst, doff, src, soff, g, zero)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)
