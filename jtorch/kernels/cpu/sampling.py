"""The CPU sampling kernels: Poisson, binomial and gamma samples, multinomial draws with
replacement, and randperm's shuffle, compiled by Numba.

The samplers are kernels/scalar_random.py's (shared with CUDA), each element drawing from its own
Philox stream keyed by 64 bits taken from the Generator's NumPy stream: one seed gives the same
numbers whatever the number of threads, and the Generator moves on by one draw per launch.
Elementwise samplers and multinomial's draws run in parallel over position chunks.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.extending import overload

from .. import scalar_random as sr
from ..common.cache import enable_package_cache
from ..common.multinomial import cumulative_rows
from .chunk_clock import now_ns
from .host import numpy_view
from .threads import launch_parallel, num_chunks

POISSON, BINOMIAL, GAMMA, GAMMA_GRAD = 0, 1, 2, 3
_GRAIN = 4096  # a sample costs tens of ns: chunks of this many pay for a thread


def _register(fn: Any) -> None:
    """Make scalar_random's plain function callable from the kernels below."""
    @overload(fn, jit_options={"error_model": "numpy"}, strict=False)
    def _impl(*args):
        return fn


for _fn in (sr.philox, sr.uniform2, sr.standard_normal, sr.poisson, sr.stirling_tail, sr._binomial_inversion,
            sr._btrs, sr.binomial, sr.gamma, sr.digamma, sr._rational, sr.standard_gamma_grad):
    _register(_fn)


def key(rng: np.random.Generator) -> tuple:
    """A launch's Philox key: 64 bits of the Generator's stream."""
    k = int(rng.integers(0, 2 ** 64, dtype=np.uint64))
    return np.uint64(k & 0xFFFFFFFF), np.uint64(k >> 32)


# ---- elementwise samplers ---------------------------------------------------------------------------------
@numba.njit(nogil=True, error_model="numpy", inline="always")
def _sample_range(kind, k0, k1, a, b, out, lo, hi):
    for i in range(lo, hi):
        e = np.uint64(i)
        if kind == 0:
            out[i] = sr.poisson(k0, k1, e, a[i])
        elif kind == 1:
            out[i] = sr.binomial(k0, k1, e, a[i], b[i])
        elif kind == 2:
            out[i] = max(sr.gamma(k0, k1, e, a[i]), 2.2250738585072014e-308)
        else:
            out[i] = sr.standard_gamma_grad(a[i], b[i])


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _sample_chunks(n, nchunks, kind, k0, k1, a, b, out):  # pragma: no cover - compiled
    """out[i] = the sample of element i (kind: POISSON of a, BINOMIAL of a, b, GAMMA of a; or GAMMA_GRAD
    of a, b, no sample), in
    parallel over nchunks position chunks; returns threads.launch_parallel's gain in ns."""
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        _sample_range(kind, k0, k1, a, b, out, c * n // nchunks, (c + 1) * n // nchunks)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def _serial(n: int, nchunks: int, *args: Any) -> None:
    _sample_chunks(n, 1, *args)


def sample(kind: int, rng: np.random.Generator | None, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """Samples of `kind` for the parameters a (and b) in C order; float64 results."""
    a = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
    b = a if b is None else np.ascontiguousarray(b, dtype=np.float64).reshape(-1)
    out = np.empty(a.shape[0], np.float64)
    n = out.shape[0]
    k0, k1 = (np.uint64(0), np.uint64(0)) if rng is None else key(rng)
    if n:
        launch_parallel(_serial, _sample_chunks, n, num_chunks(n, _GRAIN), kind, k0, k1, a, b, out)
    return out


def write(t: Any, values: np.ndarray, tiny: bool = False) -> None:
    """Store float64 `values` (C order) into t; `tiny`: at least the dtype's smallest normal."""
    v = values.astype(t.dtype.numpy)
    if tiny:
        np.maximum(v, np.finfo(v.dtype).tiny, out=v)
    numpy_view(t)[...] = v.reshape(t._size)


# ---- multinomial with replacement -------------------------------------------------------------------------
@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _multinomial_chunks(n, nchunks, k0, k1, cum, n_sample, out):  # pragma: no cover - compiled
    """out[r, s]: the first category whose cumulative probability reaches sample (r, s)'s uniform
    (cum's rows end in 1), by binary search; nchunks position chunks of the n = rows * n_sample draws."""
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    ncat = cum.shape[1]
    for c in numba.prange(nchunks):
        t0 = now_ns()
        for i in range(c * n // nchunks, (c + 1) * n // nchunks):
            ua, ub = sr.uniform2(k0, k1, np.uint64(i >> 1), 0)
            u = ua if i & 1 == 0 else ub
            r = i // n_sample
            lo = 0
            hi = ncat
            while hi > lo:
                mid = lo + (hi - lo) // 2
                if cum[r, mid] < u:
                    lo = mid + 1
                else:
                    hi = mid
            out[r, i - r * n_sample] = lo
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def _multinomial_serial(n: int, nchunks: int, *args: Any) -> None:
    _multinomial_chunks(n, 1, *args)


def multinomial_with_replacement(result: Any, rng: np.random.Generator, probs: Any, n_sample: int) -> None:
    """result (rows x n_sample, or n_sample for a 1-D probs): draws from each row's categorical
    distribution, checked row by row as ATen's kernel checks them."""
    cum = cumulative_rows(np.asarray(numpy_view(probs)))
    rows = cum.shape[0]
    out = np.empty((rows, n_sample), np.int64)
    n = rows * n_sample
    k0, k1 = key(rng)
    launch_parallel(_multinomial_serial, _multinomial_chunks, n, num_chunks(n, _GRAIN), k0, k1, cum, n_sample,
                    out)
    numpy_view(result)[...] = out.reshape(result._size)


# ---- randperm ---------------------------------------------------------------------------------------------------
@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _shuffle(out, k0, k1):  # pragma: no cover - compiled
    """Fisher-Yates on out (filled with 0..n-1 here): position i swaps with one of i..n-1, drawn
    from 32-bit Philox words by Lemire's multiply-shift with rejection (64-bit words past 2^32)."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    w = np.zeros(4, np.uint64)
    q = 4
    blk = np.uint64(0)
    m32 = np.uint64(0xFFFFFFFF)
    for i in range(n - 1):
        span = np.uint64(n - i)
        if span <= m32:
            while True:
                if q == 4:
                    w[0], w[1], w[2], w[3] = sr.philox(blk & m32, blk >> np.uint64(32), np.uint64(0),
                                                       np.uint64(1), k0, k1)
                    blk += np.uint64(1)
                    q = 0
                m = w[q] * span
                q += 1
                low = m & m32
                if low >= span or low >= ((m32 - span + np.uint64(1)) & m32) % span:
                    z = m >> np.uint64(32)
                    break
        else:
            if q >= 3:
                w[0], w[1], w[2], w[3] = sr.philox(blk & m32, blk >> np.uint64(32), np.uint64(0), np.uint64(1),
                                                   k0, k1)
                blk += np.uint64(1)
                q = 0
            z = ((w[q] << np.uint64(32)) | w[q + 1]) % span
            q += 2
        j = i + np.int64(z)
        t = out[i]
        out[i] = out[j]
        out[j] = t


def randperm(t: Any, rng: np.random.Generator, n: int) -> None:
    out = np.empty(n, np.int64)
    k0, k1 = key(rng)
    _shuffle(out, k0, k1)
    numpy_view(t)[...] = out.astype(t.dtype.numpy)
