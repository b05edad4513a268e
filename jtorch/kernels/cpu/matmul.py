"""The CPU `matmul` stub: out = alpha * (a @ b) + beta * self, on CPU buffers.

    matmul(kind, out, a, b, self=None, beta=0, alpha=1)

kind: "mm" (a (M, K), b (K, N), out (M, N)), "bmm" (a (B, M, K), b (B, K, N)), "mv" (a (M, K),
b (K,)), "dot" and "vdot" (a, b (K,), out 0-dim; vdot conjugates a). `self` has out's shape (an
expanded view is fine) or is `out` itself (in-place); it is ignored when beta == 0, so NaN in it
does not propagate, as in BLAS. alpha and beta come converted to the compute type (the structured
layer does PyTorch's Scalar::to<opmath_t> checks).

Engines (measured, more-facts.md B): float32/64 and complex go to NumPy's BLAS (np.matmul with
out=) on BLAS-able views, copying an operand only when BLAS cannot read it in place; float16 is
computed in float32 and rounded once (PyTorch's opmath); integers use the Numba ikj kernel of
matmul_int (NumPy's integer matmul is a naive loop), except matrix-vector and dot products,
which NumPy's loop does in one pass.
"""
from __future__ import annotations

from time import perf_counter_ns
from typing import Any

import numpy as np

from ...scalar import bfloat16_bits_to_float32, float32_to_bfloat16_bits
from .threads import blas_threads_for, note_blas

_BLAS = frozenset(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)


def _view(t: Any, size: tuple, stride: tuple) -> np.ndarray:
    """An ndarray over tensor t's buffer with the given size and strides (in elements)."""
    buf = t._storage.data
    if len(stride) == 2:
        r, c = size
        if not t._offset and buf.size == r * c:  # the whole storage, row- or column-major: a reshape
            if stride == (c, 1):                 # (half the cost of the general constructor)
                return buf.reshape(size)
            if stride == (1, r):
                return buf.reshape(c, r).T
        isz = buf.itemsize
        offset = t._offset * isz if r and c else 0  # an empty view reads nothing
        return np.ndarray(size, buf.dtype, buf, offset, (stride[0] * isz, stride[1] * isz))
    isz = buf.itemsize
    offset = t._offset * isz if 0 not in size else 0
    return np.ndarray(size, buf.dtype, buf, offset, tuple([s * isz for s in stride]))


def _matrix_strides(size: tuple, stride: tuple) -> tuple:
    """Strides of the last two dims with those of size-1 dims replaced so that BLAS accepts the
    view whenever its one real stride allows (a size-1 dim's stride is arbitrary in PyTorch)."""
    r, c = size[-2], size[-1]
    if r != 1 and c != 1:
        return stride
    sr, sc = stride[-2], stride[-1]
    if c == 1:
        sc = 1 if sr != 1 else max(r, 1)
    if r == 1:
        sr = max(c, 1) if sc == 1 else 1
    return stride[:-2] + (sr, sc)


def _blasable(size: tuple, stride: tuple) -> bool:
    """NumPy's is_blasable2d for the last two dims (element strides), row- or column-major."""
    return (stride[-1] == 1 and stride[-2] >= size[-1]) or (stride[-2] == 1 and stride[-1] >= size[-2])


def _row_major(size: tuple, stride: tuple) -> bool:
    return stride[-1] == 1 and stride[-2] >= size[-1]


def _matrix(t: Any, copy_unless_blasable: bool) -> np.ndarray:
    """A (batch of) matrix view(s) of t; a C-contiguous copy when BLAS could not read the view."""
    size = t._size
    if len(size) == 2:  # mm's operands: a backward's small products are mostly this per-call work
        r, c = size
        sr, sc = t._stride
        if r > 1 and c > 1 and (sc == 1 and sr >= c or sr == 1 and sc >= r):  # BLAS-able, no size-1 dim
            return _view(t, size, t._stride)
    stride = _matrix_strides(size, t._stride)
    a = _view(t, size, stride)
    if copy_unless_blasable and not _blasable(size, stride):
        return np.ascontiguousarray(a)
    return a


def _product(kind: str, A: np.ndarray, B: np.ndarray, Out: np.ndarray | None = None) -> np.ndarray:
    """A @ B (a dot product for dot/vdot) in the compute dtype, written into Out when given (Out must
    then be row-major for mm/bmm, and C-contiguous int64 for integers). BLAS dtypes come as
    BLAS-able views."""
    if A.dtype.kind == "V":  # bfloat16: float32 products (torch's opmath), rounded once by _combine
        A, B = bfloat16_bits_to_float32(A), bfloat16_bits_to_float32(B)
    dt = A.dtype
    if kind == "dot" or kind == "vdot":
        if dt == _F16:
            A, B = A.astype(_F32), B.astype(_F32)
        return np.asarray(np.vdot(A, B) if kind == "vdot" else np.dot(A, B))
    if dt in _BLAS:
        # small products on one BLAS thread, bigger ones timed (threads.blas_threads_for says why)
        macs = A.size * B.shape[-1] if B.ndim > 1 else A.size
        threads = blas_threads_for(macs)
        if threads > 1:
            t0 = perf_counter_ns()
            P = np.matmul(A, B, out=Out)
            note_blas(macs, threads, perf_counter_ns() - t0)
            return P
        return np.matmul(A, B, out=Out)
    if dt == _F16:
        return np.matmul(A.astype(_F32), B.astype(_F32))
    if kind == "mv":  # NumPy's integer loop does a matrix-vector product in one pass
        return np.matmul(A, B, out=Out)
    from .matmul_int import int_matmul

    batched = kind == "bmm"
    A3 = np.ascontiguousarray(A if batched else A[None], dtype=_I64)
    B3 = np.ascontiguousarray(B if batched else B[None], dtype=_I64)
    P = Out if Out is not None else np.empty(A.shape[:-1] + B.shape[-1:], _I64)
    int_matmul(A3, B3, P if batched else P.reshape((1,) + P.shape))
    return P


def matmul(kind: str, out: Any, a: Any, b: Any, self: Any = None, beta: Any = 0, alpha: Any = 1) -> None:
    """out = alpha * (a @ b) + beta * self (see the module doc)."""
    blas = out.dtype.numpy in _BLAS
    if kind == "mm" or kind == "bmm":
        A, B = _matrix(a, blas), _matrix(b, blas)
        if kind == "mm" and out._stride == (out._size[1], 1):  # a fresh result: row-major as it is
            Out, into_out = _view(out, out._size, out._stride), True
        else:
            so = _matrix_strides(out._size, out._stride)
            Out = _view(out, out._size, so)
            into_out = _row_major(out._size, so)
    elif kind == "mv":
        A, B, Out = _matrix(a, blas), _view(b, b._size, b._stride), _view(out, out._size, out._stride)
        into_out = True
    else:
        A, B, Out = _view(a, a._size, a._stride), _view(b, b._size, b._stride), _view(out, (), ())
        into_out = False
    S = None if beta == 0 or self is None else Out if self is out else _view(self, self._size, self._stride)
    if S is None and alpha == 1 and into_out:  # the common case: the product straight into out
        narrow = Out.dtype == _F16 or Out.dtype.kind == "V"  # float16, bfloat16: computed in float32
        if blas or (not narrow and (kind == "mv" or (Out.dtype == _I64 and Out.flags.c_contiguous))):
            _product(kind, A, B, Out)
            return
    if (S is not None and beta == 1 and alpha == 1 and into_out and blas and kind != "dot"
            and self._storage is not out._storage):
        # addmm(bias, x, w.t()) (Linear): the product straight into out, then self added in place;
        # the same single rounding of product + self as a temporary would give, without one
        _product(kind, A, B, Out)
        np.add(Out, S, out=Out)
        return
    if alpha == 0:  # BLAS semantics: a and b are not read (inf * 0 does not make NaN)
        P = None
    else:
        P = _product(kind, A, B)
        if alpha != 1:
            P = P * alpha
    _combine(Out, P, S, beta)


def _combine(Out: np.ndarray, P: np.ndarray | None, S: np.ndarray | None, beta: Any) -> None:
    """Out = P + beta * S, in the compute dtype of P, then cast (wrapping, rounding) into Out."""
    with np.errstate(all="ignore"):
        if Out.dtype.kind == "V":  # bfloat16: the float32 result rounded to nearest even, once
            S = None if S is None else bfloat16_bits_to_float32(S)
            R = (np.zeros(Out.shape, _F32) if P is None else P) if S is None else (
                S * beta if P is None else S * beta + P)
            Out.view(np.uint16)[...] = float32_to_bfloat16_bits(np.asarray(R, _F32))
            return
        if S is None:
            if P is None:
                Out.fill(0)
            else:
                np.copyto(Out, P, casting="unsafe")
            return
        if S.dtype == _F16:
            S = S.astype(_F32)
        np.copyto(Out, S * beta if P is None else S * beta + P, casting="unsafe")
