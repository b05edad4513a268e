"""Memory overlap between tensors (ATen's MemoryOverlap.cpp): what TensorIterator, copy_ and
index_put_ check before they write, so no operation leaves a target half-written.

Backend-neutral: it reads sizes, strides, data pointers and asks the storages whether they alias.
"""
from __future__ import annotations

from .geometry import is_non_overlapping_and_dense
from .tensor import Tensor

_NO, _YES, _TOO_HARD, _FULL, _PARTIAL = range(5)


def has_internal_overlap(t: Tensor) -> int:
    if is_non_overlapping_and_dense(t._size, t._stride):
        return _NO
    for s, st in zip(t._size, t._stride):
        if st == 0 and s > 1:
            return _YES
    return _TOO_HARD


def assert_no_internal_overlap(t: Tensor) -> None:
    if has_internal_overlap(t) == _YES:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


def _same_memory(a: Tensor, b: Tensor) -> bool:
    """One storage, or storages whose memory intersects (NumPy arrays viewing one buffer)."""
    sa, sb = a._storage, b._storage
    return sa is sb or sa.may_share_memory(sb)


def get_overlap_status(a: Tensor, b: Tensor) -> int:
    if a is b:
        return _FULL
    if a.numel() == 0 or b.numel() == 0:
        return _NO
    if not is_non_overlapping_and_dense(a._size, a._stride) or not is_non_overlapping_and_dense(b._size, b._stride):
        return _TOO_HARD
    sa, sb = a._storage, b._storage
    if sa is sb or sa.is_alias_of(sb):
        ab, bb = a.data_ptr(), b.data_ptr()
        ae, be = ab + a.numel() * a.dtype.itemsize, bb + b.numel() * b.dtype.itemsize
        if ab == bb and ae == be:
            return _FULL if a._stride == b._stride else _PARTIAL
        if ab < be and bb < ae:
            return _PARTIAL
    return _NO


def assert_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    if get_overlap_status(a, b) == _PARTIAL:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def _extent(t: Tensor) -> tuple[int, int]:
    """[first byte, last byte] a tensor's elements can touch (strides are never negative)."""
    lo = t.data_ptr()
    hi = lo + sum((s - 1) * st for s, st in zip(t._size, t._stride)) * t.dtype.itemsize + t.dtype.itemsize - 1
    return lo, hi


def _may_overlap(a: Tensor, b: Tensor) -> bool:
    if not _same_memory(a, b):
        return False
    (alo, ahi), (blo, bhi) = _extent(a), _extent(b)
    return alo <= bhi and blo <= ahi
