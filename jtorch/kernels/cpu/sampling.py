"""The CPU sampling kernels: Poisson, binomial and gamma samples, gamma's reparameterized gradient,
multinomial draws with replacement, and randperm's shuffle, compiled by Numba.

The samplers are kernels/common/samplers.py's (shared with CUDA), each element drawing from its own
Philox stream keyed by 64 bits taken from the Generator's NumPy stream: one seed gives the same
numbers whatever the number of threads, and the Generator moves on by one draw per launch.
Elementwise samplers and multinomial's draws run in parallel over position chunks.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.extending import overload

from ..common import samplers as sr
from ..common.cache import enable_package_cache
from ..common.multinomial import cumulative_rows
from .chunk_clock import now_ns
from .host import numpy_view
from .threads import launch_parallel, num_chunks

POISSON, BINOMIAL, GAMMA, GAMMA_GRAD = 0, 1, 2, 3
_GRAIN = 4096  # a sample costs tens of ns: chunks of this many pay for a thread


def _register(fn: Any) -> None:
    """Make samplers.py's plain function callable from the kernels below."""
    @overload(fn, jit_options={"error_model": "numpy"}, strict=False)
    def _impl(*args):
        return fn


for _fn in (sr.philox, sr.uniform2, sr.standard_normal, sr.ptrs_constants, sr.poisson_ptrs, sr.poisson,
            sr.stirling_tail, sr._binomial_inversion,
            sr._btrs, sr.binomial, sr.gamma, sr.digamma, sr._rational, sr.standard_gamma_grad):
    _register(_fn)


def key(rng: np.random.Generator) -> tuple:
    """A launch's Philox key: 64 bits of the Generator's stream."""
    k = int(rng.integers(0, 2 ** 64, dtype=np.uint64))
    return np.uint64(k & 0xFFFFFFFF), np.uint64(k >> 32)


# ---- elementwise samplers ---------------------------------------------------------------------------------
@numba.njit(nogil=True, error_model="numpy")
def _sample_range(kind, k0, k1, a, b, out, lo, hi):
    """Elements lo..hi-1; a function of its own, not inlined: compiled inside a prange, the samplers'
    loops ran at half the speed."""
    last = -1.0  # PTRS's constants are kept while the rate repeats
    loglam = pb = pa = invalpha = vr = 0.0
    for i in range(lo, hi):
        e = np.uint64(i)
        x = np.float64(a[i])  # computed in double whatever the arrays hold
        if kind == 0:
            if x >= 10.0 and x < np.inf:
                if x != last:
                    last = x
                    loglam, pb, pa, invalpha, vr = sr.ptrs_constants(x)
                out[i] = sr.poisson_ptrs(k0, k1, e, x, loglam, pb, pa, invalpha, vr)
            else:
                out[i] = sr.poisson(k0, k1, e, x)
        elif kind == 1:
            out[i] = sr.binomial(k0, k1, e, x, np.float64(b[i]))
        elif kind == 2:
            out[i] = max(sr.gamma(k0, k1, e, x), 2.2250738585072014e-308)
        else:
            out[i] = sr.standard_gamma_grad(x, np.float64(b[i]))


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


def _flat(x: np.ndarray, dtype: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == dtype and x.flags.c_contiguous:
        return x.reshape(-1)
    return np.ascontiguousarray(x, dtype=dtype).reshape(-1)


def sample(kind: int, rng: np.random.Generator | None, a: np.ndarray, b: np.ndarray | None = None,
           out: np.ndarray | None = None) -> np.ndarray:
    """Samples of `kind` for the parameters a (and b) in C order, into `out` (1-D, C order, float32
    or float64: its dtype is the parameters' too, read without a copy when they have it), else into
    a new float64 array."""
    dt = np.float64 if out is None else out.dtype
    a = _flat(a, dt)
    b = a if b is None else _flat(b, dt)
    if out is None:
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
@numba.njit(nogil=True, error_model="numpy")
def _alias_tables(cum):  # pragma: no cover - compiled
    """Walker's alias tables (Vose's construction) of each row's categorical distribution, given
    by its cumulative sums ending in 1: category j keeps a draw of column j with probability
    keep[r, j], else the draw goes to alias[r, j]."""
    rows, ncat = cum.shape
    keep = np.empty((rows, ncat), np.float64)
    alias = np.empty((rows, ncat), np.int64)
    scaled = np.empty(ncat, np.float64)
    small = np.empty(ncat, np.int64)
    large = np.empty(ncat, np.int64)
    for r in range(rows):
        ns = 0
        nl = 0
        best = 0
        prev = 0.0
        for j in range(ncat):
            scaled[j] = (cum[r, j] - prev) * ncat
            prev = cum[r, j]
            if scaled[j] > scaled[best]:
                best = j
            if scaled[j] < 1.0:
                small[ns] = j
                ns += 1
            else:
                large[nl] = j
                nl += 1
        while ns > 0 and nl > 0:
            ns -= 1
            lo = small[ns]
            g = large[nl - 1]
            keep[r, lo] = scaled[lo]
            alias[r, lo] = g
            scaled[g] = scaled[g] + scaled[lo] - 1.0
            if scaled[g] < 1.0:
                nl -= 1
                small[ns] = g
                ns += 1
        for q in range(nl):  # exactly 1 but for rounding
            keep[r, large[q]] = 1.0
            alias[r, large[q]] = large[q]
        for q in range(ns):
            j = small[q]
            keep[r, j] = 1.0 if scaled[j] > 0.0 else 0.0
            alias[r, j] = best
    return keep, alias


@numba.njit(nogil=True, error_model="numpy")
def _draw_range(k0, k1, keep, alias, n_sample, out, lo, hi):
    """Draws lo..hi-1 of the flat rows x n_sample output, one uniform each: its integer part
    (scaled by the number of categories) picks a column, its fraction keeps it or takes the
    column's alias. Draws 2m and 2m + 1 take the two uniforms of Philox block m."""
    ncat = keep.shape[1]
    ub = 0.0
    for i in range(lo, hi):
        if i == lo or i & 1 == 0:
            ua, ub = sr.uniform2(k0, k1, np.uint64(i >> 1), 0)
            u = ua if i & 1 == 0 else ub
        else:
            u = ub
        r = i // n_sample
        x = u * ncat
        j = min(int(x), ncat - 1)
        out[i] = j if x - j < keep[r, j] else alias[r, j]


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _multinomial_chunks(n, nchunks, k0, k1, keep, alias, n_sample, out):  # pragma: no cover - compiled
    """_draw_range over nchunks position chunks of the n draws, in parallel; returns
    threads.launch_parallel's gain in ns."""
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        _draw_range(k0, k1, keep, alias, n_sample, out, c * n // nchunks, (c + 1) * n // nchunks)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def _multinomial_serial(n: int, nchunks: int, *args: Any) -> None:
    _multinomial_chunks(n, 1, *args)


def multinomial_with_replacement(result: Any, rng: np.random.Generator, probs: Any, n_sample: int) -> None:
    """result (rows x n_sample, or n_sample for a 1-D probs): draws from each row's categorical
    distribution, checked row by row as ATen's kernel checks them. ATen searches the cumulative
    sums for each draw; the alias method draws from the same distribution in constant time."""
    cum = cumulative_rows(np.asarray(numpy_view(probs)))
    rows = cum.shape[0]
    n = rows * n_sample
    view = numpy_view(result)
    direct = view.flags.c_contiguous  # a fresh result: the draws go straight into it
    out = view.reshape(-1) if direct else np.empty(n, np.int64)
    k0, k1 = key(rng)
    keep, alias = _alias_tables(cum)
    launch_parallel(_multinomial_serial, _multinomial_chunks, n, num_chunks(n, _GRAIN), k0, k1, keep, alias,
                    n_sample, out)
    if not direct:
        view[...] = out.reshape(result._size)


# ---- randperm -----------------------------------------------------------------------------------------------
@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _shuffle(out, k0, k1):  # pragma: no cover - compiled
    """out = a uniform permutation of 0..n-1 (n < 2^32), by Fisher-Yates from the end: position i
    swaps with j uniform in 0..i, drawn from a 32-bit Philox word by Lemire's multiply-shift with
    rejection (exact); each Philox block gives four words."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    m32 = np.uint64(0xFFFFFFFF)
    w0 = w1 = w2 = w3 = np.uint64(0)
    q = 4
    blk = np.uint64(0)
    for i in range(n - 1, 0, -1):
        span = np.uint64(i + 1)
        while True:
            if q == 4:
                w0, w1, w2, w3 = sr.philox(blk & m32, blk >> np.uint64(32), np.uint64(0), np.uint64(1), k0, k1)
                blk += np.uint64(1)
                q = 0
            w = w0 if q == 0 else (w1 if q == 1 else (w2 if q == 2 else w3))
            q += 1
            m = w * span
            low = m & m32
            if low >= span or low >= ((m32 - span + np.uint64(1)) & m32) % span:
                break
        j = np.int64(m >> np.uint64(32))
        t = out[i]
        out[i] = out[j]
        out[j] = t


def randperm(t: Any, rng: np.random.Generator, n: int) -> None:
    """t = a random permutation of 0..n-1 (NumPy's shuffle past 2^32 elements)."""
    if n >= 1 << 32:
        numpy_view(t)[...] = rng.permutation(n).astype(t.dtype.numpy)
        return
    view = numpy_view(t)
    direct = view.dtype == np.int64 and view.flags.c_contiguous
    out = view.reshape(-1) if direct else np.empty(n, np.int64)
    k0, k1 = key(rng)
    _shuffle(out, k0, k1)
    if not direct:
        view[...] = out.astype(t.dtype.numpy)
