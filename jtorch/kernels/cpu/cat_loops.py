"""The Numba loop behind the CPU `cat` stub (PyTorch's cat_serial_kernel, made parallel): every
input, contiguous and of the output's dtype, copied into its columns of a contiguous output in
one launch. The output is walked as `outer` rows of `gw` elements (the inputs' columns, side by
side); a chunk is a range of that flat walk, so a long single row (cat along dim 0) splits
across threads as well as many short ones (cat along the last dim). Each contiguous run is a
unit-stride loop that LLVM vectorises. Buffers arrive as unsigned integers of the element width
(bits are copied), in a tuple of SLOTS arrays (unused slots repeat the output), so one compiled
specialisation serves any number of inputs of a width.

plan (int64, per input i): [source offset, width (elements per row), first column].
"""
from __future__ import annotations

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .chunk_clock import now_ns

SLOTS = 16
_U = np.uint64


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def cat_flat(lo, hi, dst, doff, srcs, plan, n, gw, rowlen):  # pragma: no cover - compiled
    # one division at the chunk's start; then (row, column, input) advance with the walk (a
    # division per run cost as much as copying a 100-element run)
    o = lo // gw
    col = lo - o * gw
    i = 0
    while i + 1 < n and plan[3 * (i + 1) + 2] <= col:
        i += 1
    e = lo
    while e < hi:
        w = plan[3 * i + 1]
        k = col - plan[3 * i + 2]
        m = min(w - k, hi - e)
        s = srcs[i]
        so = plan[3 * i] + o * w + k
        d = doff + o * rowlen + col
        for j in range(m):  # unsigned indices: no wraparound check, vectorised (24% faster than slices)
            dst[_U(d + j)] = s[_U(so + j)]
        e += m
        col += m
        if col == gw:
            col = 0
            o += 1
            i = 0
        else:
            i += 1


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def cat_flat_parallel(total, nchunks, dst, doff, srcs, plan, n, gw, rowlen):  # pragma: no cover - compiled
    # threads.parallel_for's protocol: nchunks x the shortest chunk (a serial run's cost) minus
    # the region's time; negative when a preempted or late chunk made the region lose
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        cat_flat(c * total // nchunks, (c + 1) * total // nchunks, dst, doff, srcs, plan, n, gw, rowlen)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)
