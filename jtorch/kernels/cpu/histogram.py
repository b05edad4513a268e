"""histogramdd's CPU kernel (torch's HistogramKernel.cpp): each of the M points of a contiguous
(M, N) input falls in the bin found per dimension by binary search of the edges or, for evenly
spaced edges (`linear`), by linear interpolation corrected by a local search of its neighbours; a
point outside any dimension's outer edges is dropped, the rightmost edge is inclusive. hist is a
contiguous float tensor of the bins' counts (or summed weights), in the input's dtype."""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .host import numpy_view


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _count(x, w, use_w, edges, nedges, offs, linear, strides, hist):  # pragma: no cover - compiled
    m, nd = x.shape
    for i in range(m):
        flat = 0
        skip = False
        for d in range(nd):
            v = x[i, d]
            e0 = offs[d]
            ne = nedges[d]
            lo, hi = edges[e0], edges[e0 + ne - 1]
            if not (v >= lo and v <= hi):
                skip = True
                break
            a, b = 0, ne
            if linear:
                pos = np.int64((v - lo) * (ne - 1) / (hi - lo))
                a, b = max(0, pos - 1), min(pos + 2, ne)
            while a < b:  # upper_bound in [a, b)
                mid = (a + b) // 2
                if v < edges[e0 + mid]:
                    b = mid
                else:
                    a = mid + 1
            pos = a - 1
            if pos == ne - 1:
                pos -= 1
            flat += pos * strides[d]
        if not skip:
            hist[flat] += w[i] if use_w else 1


def histogramdd(x: Any, weight: Any, edges: list, linear: bool, hist: Any) -> None:
    a = numpy_view(x)
    h = numpy_view(hist).reshape(-1)
    h[...] = 0
    es = [numpy_view(e).astype(a.dtype, copy=False) for e in edges]
    nedges = np.array([len(e) for e in es], np.int64)
    offs = np.concatenate([[0], np.cumsum(nedges)[:-1]]).astype(np.int64)
    bins = nedges - 1
    strides = np.ones(len(es), np.int64)
    for d in range(len(es) - 2, -1, -1):
        strides[d] = strides[d + 1] * bins[d + 1]
    w = numpy_view(weight).reshape(-1) if weight is not None else np.zeros(1, a.dtype)
    _count(a, w, weight is not None, np.concatenate(es), nedges, offs, bool(linear), strides, h)
