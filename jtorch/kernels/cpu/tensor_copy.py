"""The CPU copy stub: `dst[...] = src` for two CPU tensors of one shape, any strides and dtypes.

The loop shape comes from TensorIterator's own dimension order and coalescing (geometry); the
loop itself is the Numba copy kernel of `copy.py` (imported on first use: nothing compiles, and
Numba is not even imported, until a copy runs). The caller (aten::copy_) has checked shapes and
overlap already.
"""
from __future__ import annotations

from typing import Any

from ...geometry import coalesce_dimensions, is_contiguous, reorder_dimensions


def loop_plan(shape: tuple[int, ...], dst_stride: tuple[int, ...],
              src_stride: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Shape and element strides for the copy loop: dimensions ordered fastest first, coalesced."""
    perm = reorder_dimensions(shape, [list(dst_stride), list(src_stride)])
    a = [dst_stride[d] for d in perm]
    b = [src_stride[d] for d in perm]
    sh = coalesce_dimensions(tuple(shape[d] for d in perm), [a, b])
    return sh, tuple(a), tuple(b)


class _Loops:
    """The Numba copy kernel and its operand type, imported on first use."""

    copy: Any = None
    ArrayOperand: Any = None


def _loops() -> type[_Loops]:
    if _Loops.copy is None:
        from .copy import copy
        from .loops import ArrayOperand

        _Loops.copy, _Loops.ArrayOperand = copy, ArrayOperand
    return _Loops


def copy(dst: Any, src: Any) -> None:
    """The copy stub: same shape (the caller expands src with stride 0), CPU storages, no overlap."""
    size, ds, ss = dst._size, dst._stride, src._stride
    n = 1
    for s in size:
        n *= s
    if n == 0:
        return
    if ds == ss and is_contiguous(size, ds):
        shape, ds, ss = (n,), (1,), (1,)
    else:
        shape, ds, ss = loop_plan(size, ds, ss)
    k = _Loops if _Loops.copy is not None else _loops()
    k.copy(k.ArrayOperand(dst._storage.data, dst._offset, ds), k.ArrayOperand(src._storage.data, src._offset, ss),
           shape)
