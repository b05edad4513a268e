"""The CPU `attention_forward` / `attention_backward` stubs: scaled dot-product attention by blocks
with an online softmax, as torch's CPU flash attention (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp).

    attention_forward(q, k, v, mask, is_causal, scale, out, logsumexp)
    attention_backward(grad_out, q, k, v, mask, is_causal, scale, out, logsumexp, grad_q, grad_k, grad_v)

q (N, L, E), k (N, S, E), v (N, S, Ev) contiguous float32/float64; mask None or an additive float
tensor expanded to (N, L, S), read through its strides (zero strides are never materialised).

Forward: parallel over (N x query blocks); per key block, `s = q kᵀ` (BLAS through np.dot: SciPy's),
`s*scale + mask`, then the online softmax: m' = max(m, rowmax), p = exp(s - m'),
sum = sum * e^(m-m') + Σp, acc = acc * e^(m-m') + p v. At the end out = acc / sum and
logsumexp = m + log(sum). Memory: one (block_q, block_k) score block and one (block_q, Ev)
accumulator per task, never an (L, S) matrix. Accumulation in the input's dtype (float32 for
float32, torch's opmath for float).

Backward (FlashAttention-2, torch's CPU loop): parallel over N; per (query block, key block)
P = exp(s*scale + mask - logsumexp) is recomputed, dV += Pᵀ dO, dP = dO Vᵀ,
dS = P (dP - delta) * scale with delta = rowsum(dO * O), dQ += dS K, dK += dSᵀ Q.

A fully masked query row (every score -inf) gives out = 0 and logsumexp = 0, as torch's flash
kernel does (its docstring's math reference gives NaN instead); its gradients are then zero
(P = exp(-inf - 0) = 0). Causal is top-left aligned: query i sees keys j <= i.
"""
from __future__ import annotations

import importlib.util
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np
from numba.extending import overload

from ..common.cache import enable_package_cache
from . import fastmath
from .host import numpy_view

BLOCK_K = 512  # torch's kvSplitSize


def block_q(L: int) -> int:
    """torch's qSplitSize for L queries."""
    return 256 if L >= 768 else 64 if L >= 192 else 32


def _exp(x):  # pragma: no cover - replaced by the overload inside compiled code
    return math.exp(x)


@overload(_exp, jit_options={"error_model": "numpy"})
def _exp_impl(x):
    # float32: the vectorizable exp (no SVML here: a libm call per element would not vectorize)
    if isinstance(x, numba.types.Float) and x.bitwidth == 32:
        return lambda x: fastmath.exp_f32(x)
    return lambda x: math.exp(x)


# Block products: SciPy's BLAS through Numba's np.dot where SciPy is installed (Numba's np.dot needs
# it), else plain loops (i-k-j order: the inner loop runs along a row of b and of out). The choice is
# made when the kernel compiles.
_BLAS = importlib.util.find_spec("scipy") is not None
CACHE_SALT = "scipy-blas" if _BLAS else "loops"  # kernels/common/cache.py keys the disk cache by it


@numba.njit(nogil=True, error_model="numpy")
def _mm_loops(a, b, out):  # pragma: no cover - compiled
    m, kk = a.shape
    n = b.shape[1]
    for i in range(m):
        for j in range(n):
            out[i, j] = 0
        for p in range(kk):
            x = a[i, p]
            for j in range(n):
                out[i, j] += x * b[p, j]


def _mm(a, b, out):  # pragma: no cover - replaced by the overload inside compiled code
    np.dot(a, b, out)


@overload(_mm, jit_options={"error_model": "numpy"})
def _mm_impl(a, b, out):
    if _BLAS:
        def blas(a, b, out):
            np.dot(a, b, out)
        return blas
    return lambda a, b, out: _mm_loops(a, b, out)


# The row loops are separate so that each vectorizes: a float max or sum is a reduction LLVM
# reorders only when allowed to (fastmath on those two alone; the exp loop keeps IEEE semantics).
@numba.njit(nogil=True, error_model="numpy", fastmath={"nnan", "nsz"})
def _rowmax(row, n, init):  # pragma: no cover - compiled
    m = init
    for j in range(n):
        x = row[j]
        m = x if x > m else m
    return m


@numba.njit(nogil=True, error_model="numpy", fastmath={"reassoc", "nsz"})
def _rowsum(row, n, zero):  # pragma: no cover - compiled
    s = zero
    for j in range(n):
        s += row[j]
    return s


@numba.njit(nogil=True, error_model="numpy", inline="always")
def _scores(row, w, jlim, sc, has_mask, md, mo, ms2, ninf):  # pragma: no cover - compiled
    """row[:jlim] = row*scale (+ mask), row[jlim:w] = -inf (causal); returns the row's max."""
    if has_mask:
        for j in range(jlim):
            row[j] = row[j] * sc + md[mo + j * ms2]
    else:
        for j in range(jlim):
            row[j] = row[j] * sc
    for j in range(jlim, w):
        row[j] = ninf
    m = _rowmax(row, jlim, ninf)
    return m if m == m else _rowmax_ieee(row, jlim, ninf)


@numba.njit(nogil=True, error_model="numpy")
def _rowmax_ieee(row, n, init):  # pragma: no cover - compiled
    """The max skipping NaN scores, as torch's kernel takes it (the vectorized max may give NaN for a row
    holding one). A row of NaN scores then counts as fully masked (out 0, as torch); a row with some
    NaN scores comes out NaN through the exponentials' sum."""
    m = init
    for j in range(n):
        x = row[j]
        m = x if x > m else m
    return m


@numba.njit(nogil=True, error_model="numpy", inline="always")
def _exp_sum(row, w, mx, zero):  # pragma: no cover - compiled
    """row = exp(row - mx); returns the row's sum."""
    for j in range(w):
        row[j] = _exp(row[j] - mx)
    return _rowsum(row, w, zero)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _forward(q, k, v, md, mo, ms0, ms1, ms2, has_mask, causal, sc, ninf, out, lse, bq, bk):  # pragma: no cover
    N, L, E = q.shape
    S = k.shape[1]
    Ev = v.shape[2]
    zero = sc - sc  # a zero of the input's dtype (sc * 0 would be float64); ninf is passed typed
    nqb = (L + bq - 1) // bq
    for t in numba.prange(N * nqb):
        n = t // nqb
        i0 = (t - n * nqb) * bq
        i1 = min(L, i0 + bq)
        m = i1 - i0
        sbuf = np.empty(m * bk, q.dtype)
        tmp = np.empty((m, Ev), q.dtype)
        acc = np.zeros((m, Ev), q.dtype)
        rmax = np.full(m, ninf)
        rsum = np.zeros(m, q.dtype)
        alpha = np.empty(m, q.dtype)
        qi = q[n, i0:i1]
        kend = min(S, i1) if causal else S
        for j0 in range(0, kend, bk):
            j1 = min(kend, j0 + bk)
            w = j1 - j0
            s = sbuf[:m * w].reshape((m, w))
            _mm(qi, k[n, j0:j1].T, s)
            for i in range(m):
                gi = i0 + i
                jlim = max(0, min(w, gi - j0 + 1)) if causal else w
                row = s[i]
                bm = _scores(row, w, jlim, sc, has_mask, md, mo + n * ms0 + gi * ms1 + j0 * ms2, ms2, ninf)
                old = rmax[i]
                new = bm if bm > old else old
                if new == ninf:  # every score so far masked: nothing to add (exp(-inf - -inf) is NaN)
                    alpha[i] = zero
                    for j in range(w):
                        row[j] = zero
                else:
                    a = _exp(old - new)
                    alpha[i] = a
                    rsum[i] = rsum[i] * a + _exp_sum(row, w, new, zero)
                    rmax[i] = new
            _mm(s, v[n, j0:j1], tmp)
            for i in range(m):
                a = alpha[i]
                for e in range(Ev):
                    acc[i, e] = acc[i, e] * a + tmp[i, e]
        for i in range(m):
            sm = rsum[i]
            if sm == zero:  # fully masked row: torch's flash kernel gives 0 and logsumexp 0
                for e in range(Ev):
                    out[n, i0 + i, e] = zero
                lse[n, i0 + i] = zero
            else:
                r = 1 / sm
                for e in range(Ev):
                    out[n, i0 + i, e] = acc[i, e] * r
                lse[n, i0 + i] = rmax[i] + np.log(sm)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _backward(do, q, k, v, md, mo, ms0, ms1, ms2, has_mask, causal, sc, ninf, out, lse, gq, gk, gv,
              bq, bk):  # pragma: no cover - compiled
    N, L, E = q.shape
    S = k.shape[1]
    Ev = v.shape[2]
    zero = sc - sc  # a zero of the input's dtype (sc * 0 would be float64); ninf is passed typed
    for n in numba.prange(N):
        gq[n, :, :] = zero
        gk[n, :, :] = zero
        gv[n, :, :] = zero
        pbuf = np.empty(bq * bk, q.dtype)
        dpbuf = np.empty(bq * bk, q.dtype)
        tq = np.empty((bq, E), q.dtype)
        tk = np.empty((bk, E), q.dtype)
        tv = np.empty((bk, Ev), q.dtype)
        delta = np.empty(bq, q.dtype)
        for i0 in range(0, L, bq):
            i1 = min(L, i0 + bq)
            m = i1 - i0
            qi = q[n, i0:i1]
            doi = do[n, i0:i1]
            for i in range(m):
                d = zero
                for e in range(Ev):
                    d += doi[i, e] * out[n, i0 + i, e]
                delta[i] = d
            kend = min(S, i1) if causal else S
            tqm = tq[:m]
            for j0 in range(0, kend, bk):
                j1 = min(kend, j0 + bk)
                w = j1 - j0
                p = pbuf[:m * w].reshape((m, w))
                dp = dpbuf[:m * w].reshape((m, w))
                _mm(qi, k[n, j0:j1].T, p)
                for i in range(m):
                    gi = i0 + i
                    jlim = max(0, min(w, gi - j0 + 1)) if causal else w
                    row = p[i]
                    _scores(row, w, jlim, sc, has_mask, md, mo + n * ms0 + gi * ms1 + j0 * ms2, ms2, ninf)
                    _exp_sum(row, w, lse[n, gi], zero)
                tvw = tv[:w]
                _mm(p.T, doi, tvw)
                for j in range(w):
                    for e in range(Ev):
                        gv[n, j0 + j, e] += tvw[j, e]
                _mm(doi, v[n, j0:j1].T, dp)
                for i in range(m):
                    d = delta[i]
                    for j in range(w):
                        dp[i, j] = p[i, j] * (dp[i, j] - d) * sc
                _mm(dp, k[n, j0:j1], tqm)
                for i in range(m):
                    for e in range(E):
                        gq[n, i0 + i, e] += tqm[i, e]
                tkw = tk[:w]
                _mm(dp.T, qi, tkw)
                for j in range(w):
                    for e in range(E):
                        gk[n, j0 + j, e] += tkw[j, e]


# ---- BLAS threads: np.dot in Numba calls SciPy's OpenBLAS; our loop is the parallel one --------------
class _ScipyBlas:
    probed = False
    get: Any = None
    set: Any = None


def _probe() -> None:
    _ScipyBlas.probed = True
    try:
        import ctypes

        importlib.import_module("scipy.linalg.cython_blas")  # loads the library Numba's np.dot uses

        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "scipy.libs" in ln and "openblas" in ln.lower()})
        for path in paths:
            lib = ctypes.CDLL(path)
            getter = getattr(lib, "scipy_openblas_get_num_threads", None)
            setter = getattr(lib, "scipy_openblas_set_num_threads", None)
            if getter is not None and setter is not None:
                getter.restype = ctypes.c_int
                setter.argtypes = [ctypes.c_int]
                _ScipyBlas.get, _ScipyBlas.set = getter, setter
                return
    except Exception:  # another BLAS build: leave its threads alone
        _ScipyBlas.get = _ScipyBlas.set = None


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Each block product runs on the calling thread: the tasks are already spread over threads,
    and OpenBLAS threads inside them would oversubscribe the cores."""
    if not _ScipyBlas.probed:
        _probe()
    if _ScipyBlas.set is None:
        yield
        return
    before = _ScipyBlas.get()
    if before != 1:
        _ScipyBlas.set(1)
    try:
        yield
    finally:
        if before != 1:
            _ScipyBlas.set(before)


# ---- the stubs ------------------------------------------------------------------------------------------
def _mask_args(mask: Any, dtype: np.dtype) -> tuple[Any, int, int, int, int, bool]:
    """(flat buffer, offset, three strides, present): the mask is read in place through its strides."""
    if mask is None:
        return np.zeros(1, dtype), 0, 0, 0, 0, False
    st = mask._stride
    return mask._storage.data, mask._offset, st[0], st[1], st[2], True


def _forward_block_q(N: int, L: int, causal: bool) -> int:
    """torch's query block, or 256 queries without a causal mask while that leaves two tasks per thread:
    the (256, E) x (E, 512) product runs faster than four (64, E) ones (244 against 288 ms for the
    8x8x512x64 forward here). Causal attention keeps torch's blocks: they skip more keys."""
    b = block_q(L)
    if not causal and L >= 192 and N * -(-L // 256) >= 2 * numba.get_num_threads():
        return 256
    return b


def _check_dtype(a: np.ndarray) -> None:
    if a.dtype not in (np.float32, np.float64):  # the caller computes other dtypes in float32
        raise TypeError(f"attention kernels take float32 or float64, got {a.dtype}")


def attention_forward(q: Any, k: Any, v: Any, mask: Any, is_causal: bool, scale: float, out: Any,
                      logsumexp: Any) -> None:
    Q, K, V = numpy_view(q), numpy_view(k), numpy_view(v)
    _check_dtype(Q)
    OUT, LSE = numpy_view(out), numpy_view(logsumexp)
    N, L, _ = Q.shape
    S = K.shape[1]
    if N == 0 or L == 0:
        return
    if S == 0 or V.shape[2] == 0:  # nothing to attend to: torch's zero output
        OUT[...] = 0
        LSE[...] = 0
        return
    dt = Q.dtype
    md, mo, m0, m1, m2, has = _mask_args(mask, dt)
    with _one_blas_thread():
        _forward(np.ascontiguousarray(Q), np.ascontiguousarray(K), np.ascontiguousarray(V), md, mo, m0, m1, m2,
                 has, bool(is_causal), dt.type(scale), dt.type(-np.inf), OUT, LSE,
                 _forward_block_q(N, L, bool(is_causal)), BLOCK_K)


def attention_backward(grad_out: Any, q: Any, k: Any, v: Any, mask: Any, is_causal: bool, scale: float,
                       out: Any, logsumexp: Any, grad_q: Any, grad_k: Any, grad_v: Any) -> None:
    Q, K, V = numpy_view(q), numpy_view(k), numpy_view(v)
    _check_dtype(Q)
    GQ, GK, GV = numpy_view(grad_q), numpy_view(grad_k), numpy_view(grad_v)
    N, L, _ = Q.shape
    S = K.shape[1]
    if N == 0 or L == 0 or S == 0 or V.shape[2] == 0:
        GQ[...] = 0
        GK[...] = 0
        GV[...] = 0
        return
    dt = Q.dtype
    md, mo, m0, m1, m2, has = _mask_args(mask, dt)
    c = np.ascontiguousarray
    lse = c(numpy_view(logsumexp), dtype=dt)
    with _one_blas_thread():
        _backward(c(numpy_view(grad_out)), c(Q), c(K), c(V), md, mo, m0, m1, m2, has, bool(is_causal),
                  dt.type(scale), dt.type(-np.inf), c(numpy_view(out)), lse, GQ, GK, GV, block_q(L), BLOCK_K)
