"""Dense device buffers for the sort and random stubs: scratch tensors, rows along a dim, and
outputs that land in a tensor of any strides.

The sort/search/random kernels address their operands as dense C-ordered buffers (row r of
length n at r * n), so that one kernel serves every layout: an operand that is not dense
already is copied by the copy stub (a device kernel) into a scratch tensor, and an output that
is not dense is written to scratch and copied back by `Target.finish`.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from ... import dtypes as _dt
from ...geometry import is_contiguous
from ...geometry import numel as _numel
from ...tensor import Tensor
from .copy import copy
from .storage import CUDAStorage


def storage_data(t: Tensor) -> Any:
    """The kernel array of a CUDA tensor's storage (the Storage interface does not show it)."""
    return cast(CUDAStorage, t._storage).data


def contiguous_strides(size: tuple) -> tuple:
    st, acc = [], 1
    for s in reversed(size):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def empty(size: tuple, dtype: _dt.dtype) -> Tensor:
    """A C-contiguous scratch tensor on the device (no autograd, not seen by the user)."""
    size = tuple(size)
    st = CUDAStorage.allocate(max(_numel(size), 1), dtype)
    return Tensor._make(st, size, contiguous_strides(size), 0, dtype, st.device)


class Buffer:
    """A raw 1-D kernel array `a` of a NumPy dtype (keys, indices, counters). It holds its
    storage: the memory goes back to the caching allocator when the Buffer dies, so keep the
    Buffer (not only `a`) while kernels use it."""

    __slots__ = ("storage", "a")

    def __init__(self, numel: int, np_dtype: Any) -> None:
        dt = np.dtype(np_dtype)
        own = _BY_NUMPY.get(dt)  # a dtype jtorch has: copy_from_host writes it as it is
        base = own or {1: _dt.uint8, 2: _dt.int16, 4: _dt.int32, 8: _dt.int64}[dt.itemsize]
        self.storage = CUDAStorage.allocate(max(numel, 1), base)
        self.a = self.storage.data if own else self.storage.data.view(dt)


_BY_NUMPY = {np.dtype(d.numpy): d for d in (_dt.bool, _dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64,
                                              _dt.float16, _dt.float32, _dt.float64)}


def as_uint(data: Any) -> Any:
    """A kernel array viewed as unsigned integers of its element width (one compile per width)."""
    return data.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[data.dtype.itemsize])


def moved_last(t: Tensor, dim: int, keep: bool = True) -> Tensor:
    """A view of t with `dim` last (a 0-dim t as one element); keep=False: t lacks `dim` (a
    reduction's output without keepdim), which comes back as a size-1 dim."""
    size, stride = list(t._size), list(t._stride)
    if not size:
        size, stride, dim = [1], [1], 0
    elif not keep:
        size.insert(dim, 1)
        stride.insert(dim, 1)
    size.append(size.pop(dim))
    stride.append(stride.pop(dim))
    return Tensor._make(t._storage, tuple(size), tuple(stride), t._offset, t.dtype, t._device)


def dense(t: Tensor, dtype: _dt.dtype | None = None) -> Tensor:
    """t's elements in C order and `dtype` (t's own): t itself when it is dense already, else a
    device copy (keep the returned tensor alive while kernels read its storage)."""
    dtype = dtype or t.dtype
    if dtype is t.dtype and is_contiguous(t._size, t._stride):
        return t
    s = empty(t._size, dtype)
    if _numel(t._size):
        copy(s, t)
    return s


class Target:
    """A dense C-ordered output for `view` (a tensor, or moved_last of one): its own memory when
    dense, else scratch that `finish` copies back (the copy stub converts dtypes as well)."""

    def __init__(self, view: Tensor, dtype: _dt.dtype | None = None) -> None:
        self.view = view
        dtype = dtype or view.dtype
        self.direct = dtype is view.dtype and is_contiguous(view._size, view._stride)
        self.tensor = view if self.direct else empty(view._size, dtype)
        self.data, self.offset = storage_data(self.tensor), self.tensor._offset

    def finish(self) -> None:
        if not self.direct and _numel(self.view._size):
            copy(self.view, self.tensor)
