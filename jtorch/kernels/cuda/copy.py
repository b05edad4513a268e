"""The CUDA copy, fill and read_scalar stubs, on the elementwise kernels of elementwise.py.

A copy is the elementwise kernel of an identity scalar function: the store converts to the
destination's dtype (complex to real keeps the real part, as torch's copy_ does after its
warning). A fill is the kernel of a function of no inputs and one extra, the value.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...geometry import is_contiguous
from ...geometry import numel as _numel
from .. import bfloat16
from ..common.loop_plan import loop_plan
from .elementwise import Operand, launch


def copy_value(x):
    return x


def copy_real(x):
    return x.real


def fill_value(v):
    return v


# bfloat16 buffers are seen as uint16 bit patterns (jtorch/kernels/bfloat16.py converts)
def bf16_to_value(h):
    return bfloat16.bfloat16_to_float(h)


def bf16_nonzero(h):
    return (h & 0x7FFF) != 0


def value_to_bf16(x):
    return bfloat16.float_to_bfloat16(x)


def _bits(buf: Any) -> Any:
    return buf.view(np.uint16) if buf.dtype.kind == "V" else buf


def copy(dst: Any, src: Any) -> None:
    """dst[...] = src: one shape (src expanded with stride 0 by the caller), CUDA storages."""
    size = dst._size
    n = _numel(size)
    if n == 0:
        return
    shape: tuple[int, ...]
    ds: tuple[int, ...]
    ss: tuple[int, ...]
    if dst._stride == src._stride and is_contiguous(size, dst._stride):
        shape, ds, ss = (n,), (1,), (1,)
    else:
        shape, ds, ss = loop_plan(size, dst._stride, src._stride)
    fn = copy_real if src.dtype.is_complex and not dst.dtype.is_complex else copy_value
    if (dst.dtype is _dt.bfloat16) != (src.dtype is _dt.bfloat16):
        fn = value_to_bf16 if dst.dtype is _dt.bfloat16 else bf16_nonzero if dst.dtype is _dt.bool else bf16_to_value
    launch(fn, shape, [Operand(_bits(dst._storage.data), dst._offset, ds),
                       Operand(_bits(src._storage.data), src._offset, ss)])


def fill(t: Any, value: Any) -> None:
    """Every element of t (any strides) set to `value`, a NumPy scalar of t's dtype."""
    size = t._size
    n = _numel(size)
    if n == 0:
        return
    shape, st, _ = loop_plan(size, t._stride, t._stride)
    if t.dtype is _dt.bfloat16:  # the value (a float32 a bfloat16 holds) as its bit pattern
        value = np.uint16(bfloat16.float_to_bfloat16(value))
    launch(fill_value, shape, [Operand(_bits(t._storage.data), t._offset, st)], (value,))


def read_scalar(t: Any) -> Any:
    """The element at t's offset, as a NumPy scalar of t's dtype."""
    return t._storage.read(t._offset)

