"""`jtorch.Tensor`: a view (sizes, strides, offset, dtype) onto a Storage, plus a dispatch key set.

Operators reach tensors only through the dispatcher; the methods here are the attributes PyTorch
keeps on TensorImpl. This module is a leaf record: it imports nothing that computes. Operator
methods (`t.add`, `t.view`, ...) are generated into this class by `jtorch.bindings` from the
operator declarations; the Python-level methods that call operators (`t.to(...)`, `t.numpy()`,
`int(t)`, `repr(t)`, `t[i]`, the legacy constructor `jtorch.Tensor(...)`, ...) are set on it by
the native layer that implements them, when that layer is imported.
"""
from __future__ import annotations

import math
from typing import Any

from . import dtypes as _dt
from ._enums import as_memory_format, channels_last, strided
from .device import device
from .geometry import contiguous_strides, is_channels_last, is_contiguous, wrap_dim  # noqa: F401 (re-exported)
from .storage import Storage, new_storage  # noqa: F401  (new_storage: re-exported for the structured layer)


class Size(tuple):
    """`jtorch.Size`: a tuple of ints that prints like torch.Size."""

    def __repr__(self) -> str:
        return f"jtorch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


class VersionCounter:
    """Shared by every view of one storage: in-place writes through any view bump it."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class Tensor:
    __slots__ = (
        "_storage", "_size", "_stride", "_offset", "dtype", "_device", "_key_set", "_vc", "_base",
        "requires_grad", "grad", "grad_fn", "_is_wrapped_number", "__weakref__", "__dict__",
    )
    __array_priority__ = 1000  # numpy defers to our reflected operators

    @classmethod
    def _make(
        cls,
        storage: Storage,
        size: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        dtype: _dt.dtype,
        dev: device,
        vc: VersionCounter | None = None,
        base: "Tensor | None" = None,
    ) -> "Tensor":
        t = object.__new__(cls)
        t._storage = storage
        t._size = size
        t._stride = stride
        t._offset = offset
        t.dtype = dtype
        t._device = dev
        t._key_set = dev._key_set
        t._vc = vc if vc is not None else VersionCounter()
        t._base = base
        t.requires_grad = False
        t.grad = None
        t.grad_fn = None
        t._is_wrapped_number = False
        return t

    # ---- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._size)

    def size(self, dim: int | None = None) -> "Size | int":
        if dim is None:
            return Size(self._size)
        return self._size[wrap_dim(dim, len(self._size))]

    def stride(self, dim: int | None = None) -> "tuple[int, ...] | int":
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._size))]

    def dim(self) -> int:
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        return math.prod(self._size)

    nelement = numel

    def storage_offset(self) -> int:
        return self._offset

    @property
    def device(self) -> device:
        return self._device

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    @property
    def layout(self) -> Any:
        return strided

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_contiguous(self, memory_format: Any = None) -> bool:
        if memory_format is not None and as_memory_format(memory_format) is channels_last:
            return is_channels_last(self._size, self._stride)
        return is_contiguous(self._size, self._stride)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def untyped_storage(self) -> Storage:
        return self._storage

    @property
    def _version(self) -> int:
        return self._vc.value

    def _bump_version(self) -> None:
        self._vc.value += 1

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def data(self) -> "Tensor":
        return self.detach()

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    def detach(self) -> "Tensor":
        return Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)

    # ---- Python protocol (the record's part; conversions, printing, pickling and iteration are
    # attached by the layers that implement them: jtorch.native.python_methods, views, indexing)
    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __hash__(self) -> int:
        return id(self)
