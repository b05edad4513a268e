"""Integer matrix products: an ikj loop compiled by Numba, parallel over output rows.

NumPy has no BLAS for integers (its matmul falls back to a naive triple loop, about 29x slower
than this kernel for 512x512 int64; more-facts.md B). Every integer dtype goes through the same
int64 kernel (one compiled specialisation): products and sums wrap modulo 2**64, and the caller's
cast to a narrower dtype wraps modulo its width, which gives PyTorch's results for int8 ... int64
and uint8 (PyTorch accumulates in the dtype itself; both are arithmetic modulo 2**bits).

Operands are C-contiguous int64 arrays: a (B, M, K), b (B, K, N), out (B, M, N). The row loop is
one function, so the serial and the parallel entry points share its compiled body.
"""
from __future__ import annotations

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .threads import num_chunks

# Multiply-adds per chunk at least: about 0.2 ms of work (4-5 G int64 multiply-adds/s per core
# here), so that a parallel region pays for its start. The elementwise grain (32768 elements)
# would split a 32x32x32 product, 10 us of work.
MAC_GRAIN = 1 << 20


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def rows(a, b, out, lo, hi):  # pragma: no cover - compiled
    """out rows lo..hi-1 (rows of all batches, batch-major) = a rows @ b, in ikj order: the
    inner loop streams a row of b into a row of out, which LLVM vectorises."""
    m = a.shape[1]
    k_size = a.shape[2]
    n = b.shape[2]
    for r in range(lo, hi):
        bi = r // m
        i = r - bi * m
        o = out[bi, i]
        for j in range(n):
            o[j] = 0
        for k in range(k_size):
            aik = a[bi, i, k]
            bk = b[bi, k]
            for j in range(n):
                o[j] += aik * bk[j]


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def rows_parallel(a, b, out, nchunks):  # pragma: no cover - compiled
    total = a.shape[0] * a.shape[1]
    if nchunks <= 1:  # serial, from the entry point every big product calls (threads.py)
        rows(a, b, out, 0, total)
        return
    for c in numba.prange(nchunks):
        rows(a, b, out, c * total // nchunks, (c + 1) * total // nchunks)


def int_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a @ b for C-contiguous int64 arrays a (B, M, K), b (B, K, N), out (B, M, N)."""
    if a.ndim != 3 or b.ndim != 3 or out.shape != a.shape[:2] + b.shape[2:] or out.dtype != np.int64:
        raise ValueError(f"int_matmul: bad operands {a.shape} @ {b.shape} -> {out.shape} {out.dtype}")
    total = a.shape[0] * a.shape[1]
    if total == 0 or b.shape[2] == 0:
        return
    work = total * a.shape[2] * b.shape[2]  # multiply-adds
    nchunks = min(num_chunks(work, MAC_GRAIN), total)
    if work < MAC_GRAIN:
        rows(a, b, out, 0, total)
    else:
        rows_parallel(a, b, out, nchunks)
