"""CPU order statistics over a reduce-mode iterator: the lower median of each row along the one
reduced dim (median, median.dim), with its index. Hand-written, cached kernels (int64 geometry,
one compile per input dtype): each row is gathered, sorted stably with its indices, and the
element of rank (n - 1) // 2 taken; a row with a NaN gives NaN at its first NaN's index.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from ..common.reduce_plan import median_rows


@enable_package_cache
@numba.njit(error_model="numpy", nogil=True)
def _median_rows(fk, n, s0, ib, io, ob, oo, yb, yo, wv):
    """fk: [nk, kept shape, input strides, value strides, index strides] over the kept dims."""
    nk = fk[0]
    m = 1
    for d in range(nk):
        m *= fk[1 + d]
    cnt = np.zeros(max(nk, 1), np.int64)
    row = np.empty(n, ib.dtype)
    pin, po, py = io, oo, yo
    k = (n - 1) // 2
    for _q in range(m):
        first_nan = -1
        for j in range(n):
            x = ib[pin + j * s0]
            row[j] = x
            if first_nan < 0 and x != x:
                first_nan = j
        if first_nan >= 0:
            v = row[first_nan]
            i = first_nan
        else:
            order = np.argsort(row, kind="mergesort")
            i = order[k]
            v = row[i]
        if wv:
            ob[po] = v
        yb[py] = i
        for d in range(nk):
            cnt[d] += 1
            pin += fk[1 + nk + d]
            po += fk[1 + 2 * nk + d]
            py += fk[1 + 3 * nk + d]
            if cnt[d] < fk[1 + d]:
                break
            pin -= fk[1 + nk + d] * fk[1 + d]
            po -= fk[1 + 2 * nk + d] * fk[1 + d]
            py -= fk[1 + 3 * nk + d] * fk[1 + d]
            cnt[d] = 0


def median(it: Any) -> None:
    """Lower medians along the iterator's reduced dim into its (values, indices) outputs."""
    p = median_rows(it)
    if p.rows == 0:
        return
    x, vt, yt = p.x, p.values, p.indices
    _median_rows(np.array(p.geometry, dtype=np.int64), p.n, p.stride, x._storage.data, x._offset, vt._storage.data,
                 vt._offset, yt._storage.data, yt._offset, p.want_values)
