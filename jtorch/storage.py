"""Storage: the memory behind tensors. A Storage knows its device and size, nothing about shapes.

CPU storage is a flat NumPy buffer; meta storage has a size and no data. Other backends (CUDA,
a user's PrivateUse1) implement the same small interface, and only their own kernels look inside.
The interface is what backend-neutral code may ask of any storage: its size, growing it, one
element's value, contiguous runs of elements to and from the host (the way a cross-device copy
moves data, as cudaMemcpy does), a reinterpretation as another dtype (`view(dtype)`), and
whether two storages share memory.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .backends import storage_for
from .device import CPU, META, device


class Storage:
    """Interface; a backend's storage class implements these."""

    __slots__ = ()
    device: device

    def nbytes(self) -> int:
        raise NotImplementedError

    def numel(self) -> int:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def resize_(self, n: int) -> None:
        """Grow to hold at least `n` elements, keeping the values already there."""
        raise NotImplementedError

    def read(self, offset: int) -> Any:
        """One element's value on the host (a 0-dim tensor used as a scalar, `.item()`)."""
        raise NotImplementedError

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        """Elements [offset, offset + numel) as a new 1-D host array of the storage's dtype."""
        raise NotImplementedError

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        """Write a 1-D host array (of the storage's dtype) at element `offset`."""
        raise NotImplementedError

    def reinterpret(self, dtype: Any) -> Storage:
        """The same memory seen as elements of `dtype` (Tensor.view(dtype))."""
        raise NotImplementedError

    def clone(self) -> Storage:
        """A new storage holding a copy of every element (Tensor.__deepcopy__)."""
        raise NotImplementedError

    def is_alias_of(self, other: Storage) -> bool:
        """Storage::is_alias_of: one allocation (what PyTorch's overlap errors ask)."""
        return other is self

    def may_share_memory(self, other: Storage) -> bool:
        """Whether the two address ranges intersect (a copy must then read before it writes)."""
        if other is self:
            return True
        if other.device != self.device:
            return False
        pa, pb = self.data_ptr(), other.data_ptr()
        return bool(pa and pb) and pa < pb + other.nbytes() and pb < pa + self.nbytes()


class CPUStorage(Storage):
    """A typed 1-D NumPy array holding every element any view of this storage can reach."""

    __slots__ = ("data",)
    device = CPU

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    @classmethod
    def allocate(cls, numel: int, dtype: Any) -> CPUStorage:
        return cls(np.empty(numel, dtype.numpy))

    def nbytes(self) -> int:
        return self.data.nbytes

    def data_ptr(self) -> int:
        return self.data.__array_interface__["data"][0]

    def numel(self) -> int:
        return self.data.shape[0]

    def read(self, offset: int) -> Any:
        v = self.data[offset]
        if type(v) is np.void:  # bfloat16's opaque 2-byte type: its value, as float32 (bits << 16)
            return (np.uint32(self.data[offset:offset + 1].view(np.uint16)[0]) << np.uint32(16)).view(np.float32)
        return v

    def resize_(self, n: int) -> None:
        if n > self.data.shape[0]:
            new = np.zeros(n, dtype=self.data.dtype)
            new[: self.data.shape[0]] = self.data
            self.data = new

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        return self.data[offset:offset + numel].copy()

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        self.data[offset:offset + values.shape[0]] = values

    def clone(self) -> CPUStorage:
        return CPUStorage(self.data.copy())

    def reinterpret(self, dtype: Any) -> CPUStorage:
        data = self.data
        nbytes = data.nbytes - data.nbytes % dtype.itemsize
        return CPUStorage(data.view("u1")[:nbytes].view(dtype.numpy))

    def is_alias_of(self, other: Storage) -> bool:
        # NumPy buffers viewing one allocation (from_numpy, view(dtype)) are different storages
        # of one allocation: the base array they view.
        return other is self or (type(other) is CPUStorage and _root(self.data) is _root(other.data))

    def may_share_memory(self, other: Storage) -> bool:
        return other is self or (type(other) is CPUStorage and np.may_share_memory(self.data, other.data))


def _root(buf: np.ndarray) -> object:
    """The object owning an array's memory (the end of its chain of bases)."""
    while isinstance(buf.base, np.ndarray):
        buf = buf.base
    return buf if buf.base is None else buf.base


class MetaStorage(Storage):
    """No data: a size in elements only, so meta tensors can be viewed and resized like others."""

    __slots__ = ("_numel", "_itemsize")
    device = META

    def __init__(self, numel: int, itemsize: int) -> None:
        self._numel, self._itemsize = numel, itemsize

    def nbytes(self) -> int:
        return self._numel * self._itemsize

    def data_ptr(self) -> int:
        return 0

    def numel(self) -> int:
        return self._numel

    def resize_(self, n: int) -> None:
        self._numel = max(self._numel, n)

    def reinterpret(self, dtype: Any) -> MetaStorage:
        return MetaStorage(self.nbytes() // dtype.itemsize, dtype.itemsize)

    def clone(self) -> MetaStorage:
        return MetaStorage(self._numel, self._itemsize)


_new = object.__new__


def new_storage(numel: int, dtype: Any, dev: device) -> Storage:
    """A storage of `numel` elements on `dev`, from the device's registered storage factory."""
    if dev.type == "cpu":  # inline, and no __init__ frame: every functional operator allocates
        s = _new(CPUStorage)
        s.data = np.empty(numel, dtype.numpy)
        return s
    if dev.type == "meta":
        return MetaStorage(numel, dtype.itemsize)
    return storage_for(dev)(numel, dtype, dev)
