"""Storage: the memory behind tensors. A Storage knows its device and size, nothing about shapes.

CPU storage is a flat NumPy buffer; meta storage has a size and no data. Other backends (CUDA,
a user's PrivateUse1) implement the same small interface, and only their own kernels look inside.
"""
from __future__ import annotations

import numpy as np

from .device import CPU, META, device


class Storage:
    """Interface: `device`, `nbytes()`, `data_ptr()`, `resize_(n_elements)`, `read(offset)`."""

    __slots__ = ()
    device: device

    def nbytes(self) -> int:
        raise NotImplementedError

    def read(self, offset: int):
        """One element's value on the host (a 0-dim tensor used as a scalar, `.item()`)."""
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError


class CPUStorage(Storage):
    """A typed 1-D NumPy array holding every element any view of this storage can reach."""

    __slots__ = ("data",)
    device = CPU

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    def nbytes(self) -> int:
        return self.data.nbytes

    def data_ptr(self) -> int:
        return self.data.__array_interface__["data"][0]

    def numel(self) -> int:
        return self.data.shape[0]

    def read(self, offset: int):
        return self.data[offset]

    def resize_(self, n: int) -> None:
        if n > self.data.shape[0]:
            new = np.zeros(n, dtype=self.data.dtype)
            new[: self.data.shape[0]] = self.data
            self.data = new


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
