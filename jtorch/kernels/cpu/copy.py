"""The CPU copy stub: `dst[...] = src` for two CPU tensors of one shape, any strides and dtypes.

The loop shape comes from TensorIterator's own dimension order and coalescing (common/loop_plan.py);
the loop itself is the dtype-converting Numba kernel of copy_loops.py (imported on first use: nothing
compiles, and Numba is not even imported, until a copy runs). The caller (aten::copy_) has checked
shapes and overlap already.
"""
from __future__ import annotations

from typing import Any

from ...geometry import is_contiguous
from ..common.loop_plan import loop_plan


class _Loops:
    """The Numba copy kernel and its operand type, imported on first use."""

    copy: Any = None
    ArrayOperand: Any = None


def _loops() -> type[_Loops]:
    if _Loops.copy is None:
        from .copy_loops import copy
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
    shape: tuple[int, ...]
    if ds == ss and is_contiguous(size, ds):
        shape, ds, ss = (n,), (1,), (1,)
    else:
        shape, ds, ss = loop_plan(size, ds, ss)
    k = _Loops if _Loops.copy is not None else _loops()
    k.copy(k.ArrayOperand(dst._storage.data, dst._offset, ds), k.ArrayOperand(src._storage.data, src._offset, ss),
           shape)
