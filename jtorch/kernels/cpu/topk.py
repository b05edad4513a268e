"""Heap selection for topk and kthvalue: the k first elements of a row in torch's stable order
of (ordered key, index), keys flipped for largest.

Each row is scanned once through a max-heap of its k best (key, index) pairs: one compare per
element once the heap is full, so O(n log k). One long row is split into position chunks scanned
in parallel, each into a heap of its own; the k best of those chunks' k best are the row's k best
(the order is total), sorted on the host. Measured (bench/bench_sorting.py, 1M float32, k = 100,
2-core dev machine): the one-thread scan gave 1.08x, 1.60x and 0.97x torch's throughput in three
runs (torch runs two threads); two chunks gave 1.78x in the next run.
"""
from __future__ import annotations

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .chunk_clock import now_ns
from .order_keys import float_key
from .threads import launch_parallel, num_chunks

CHUNKS_PER_K = 4  # a row is split only into chunks of at least this many times k elements


@numba.njit(inline="always")
def _less(ka, ia, kb, ib):
    return ka < kb or (ka == kb and ia < ib)


@numba.njit(inline="always")
def _sift_down(hk, hi, size, key, idx):
    """Put (key, idx) at the root of the max-heap hk/hi[:size] and sift it down."""
    c = 0
    while True:
        ch = 2 * c + 1
        if ch >= size:
            break
        if ch + 1 < size and _less(hk[ch], hi[ch], hk[ch + 1], hi[ch + 1]):
            ch += 1
        if _less(key, idx, hk[ch], hi[ch]):
            hk[c] = hk[ch]
            hi[c] = hi[ch]
            c = ch
        else:
            break
    hk[c] = key
    hi[c] = idx


@numba.njit(inline="always")
def _scan(buf, p, es, lo, hi_, k, kind, sign, expmask, flip, hk, hi):
    """Elements lo..hi_-1 of the row at buf[p + j * es] through the max-heap hk/hi of the k best
    (key ^ flip, index) pairs, from empty; returns its size (min(k, hi_ - lo))."""
    size = 0
    ones = sign | (sign - np.uint64(1))
    x = sign if kind == 1 else np.uint64(0)
    for j in range(lo, hi_):
        u = np.uint64(buf[p + j * es])
        if kind == 2:
            kj = float_key(u, sign, expmask, ones) ^ flip
        else:
            kj = (u ^ x) ^ flip
        if size == k and kj >= hk[0]:
            continue                  # the common case: j is larger than every heap index, so a tie loses
        if size < k:                  # sift up
            c = size
            size += 1
            while c > 0:
                par = (c - 1) >> 1
                if _less(hk[par], hi[par], kj, j):
                    hk[c] = hk[par]
                    hi[c] = hi[par]
                    c = par
                else:
                    break
            hk[c] = kj
            hi[c] = j
        else:  # replace the worst, sift down
            _sift_down(hk, hi, k, kj, j)
    return size


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _select(buf, off, rs, es, n, k, kind, sign, expmask, descending, last_only, values, indices):
    """The k first elements of each row (k <= n), sorted; only the k-th when `last_only`."""
    hk = np.empty(k, np.uint64)
    hi = np.empty(k, np.int64)
    ones = sign | (sign - np.uint64(1))
    flip = ones if descending else np.uint64(0)
    for r in range(values.shape[0]):
        p = off + r * rs
        _scan(buf, p, es, 0, n, k, kind, sign, expmask, flip, hk, hi)
        # pop the heap: the worst first, so positions k-1 .. 0 fill in order
        for t in range(k - 1, -1, -1):
            top = hi[0]
            if last_only:
                if t == k - 1:
                    values[r, 0] = buf[p + top * es]
                    indices[r, 0] = top
                    break
            else:
                values[r, t] = buf[p + top * es]
                indices[r, t] = top
            _sift_down(hk, hi, t, hk[t], hi[t])


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _chunk_heaps(n, nchunks, buf, off, es, k, kind, sign, expmask, flip, hk, hi):  # pragma: no cover - compiled
    """hk[c], hi[c]: the k best pairs of position chunk c of the row (each at least k long), in
    parallel; returns threads.launch_parallel's gain (nchunks x the shortest chunk minus the
    region's time, in ns)."""
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        _scan(buf, off, es, c * n // nchunks, (c + 1) * n // nchunks, k, kind, sign, expmask, flip, hk[c], hi[c])
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def _no_serial(*args: object) -> None:
    raise AssertionError("topk's chunks do not fail")  # launch_parallel's rerun after one did


def select(buf: np.ndarray, off: int, rs: int, es: int, n: int, k: int, kind: int, sign: np.uint64,
           expmask: np.uint64, largest: bool, last_only: bool, values: np.ndarray, indices: np.ndarray) -> None:
    """values[r, :k], indices[r, :k] (k-th only, at [r, 0], when `last_only`): the k first
    elements of row r of buf[off + r * rs + j * es], j < n (1 <= k <= n), in torch's order."""
    rows = values.shape[0]
    nchunks = num_chunks(n) if rows == 1 and not last_only else 1
    while nchunks > 1 and n // nchunks < CHUNKS_PER_K * k:
        nchunks -= 1
    if nchunks <= 1:
        _select(buf, off, rs, es, n, k, kind, sign, expmask, largest, last_only, values, indices)
        return
    ones = sign | (sign - np.uint64(1))
    hk, hi = np.empty((nchunks, k), np.uint64), np.empty((nchunks, k), np.int64)
    launch_parallel(_no_serial, _chunk_heaps, n, nchunks, buf, off, es, k, kind, sign, expmask,
                    ones if largest else np.uint64(0), hk, hi)
    keys, idx = hk.reshape(-1), hi.reshape(-1)
    best = idx[np.lexsort((idx, keys))[:k]]  # (key, index) ascending: torch's order
    indices[0] = best
    values[0] = buf[off + best * es]
