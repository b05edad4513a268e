"""CUDA storage: a flat typed buffer in device memory, from the caching allocator.

`data` is what kernels receive: a numba device array over the block on a GPU, a NumPy array
over the block's bytes under the simulator (the simulator converts only NumPy arrays). Above
jtorch/kernels/cuda/ nothing looks at `data`: the rest of jtorch uses the Storage interface
(sizes, host copies, reinterpretation, aliasing) and the CUDA stubs.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...device import device
from ...storage import Storage
from . import allocator, driver

CUDA0 = device("cuda", 0)


def _typed(block: allocator.Block, numel: int, np_dtype: np.dtype) -> Any:
    """The block's first numel elements of np_dtype, as a kernel argument."""
    if driver.SIMULATED:
        return block.mem[:numel * np_dtype.itemsize].view(np_dtype)
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    return DeviceNDArray((numel,), (np_dtype.itemsize,), np_dtype, gpu_data=block.mem)


def device_copy(dst: Any, src: Any) -> None:
    """dst[...] = src for two kernel arrays of one size and dtype (cudaMemcpyDeviceToDevice)."""
    if driver.SIMULATED:
        dst[...] = src
    elif src.shape[0]:
        dst.copy_to_device(src, stream=driver.current_stream() or 0)


class CUDAStorage(Storage):
    __slots__ = ("block", "data", "_numel", "_np")
    device = CUDA0

    def __init__(self, block: allocator.Block, numel: int, np_dtype: np.dtype) -> None:
        self.block, self._numel, self._np = block, numel, np_dtype
        self.data = _typed(block, numel, np_dtype)

    @classmethod
    def allocate(cls, numel: int, dtype: Any, dev: Any = None) -> CUDAStorage:
        driver.lazy_init()
        np_dtype = np.dtype(dtype.numpy)
        return cls(allocator.allocate(numel * np_dtype.itemsize), numel, np_dtype)

    @classmethod
    def foreign(cls, ptr: int, numel: int, np_dtype: np.dtype, owner: Any) -> CUDAStorage:
        """A storage over device memory jtorch did not allocate (a CuPy array's, a torch tensor's):
        no copy; `owner` stays alive with the storage and the memory never enters jtorch's pool."""
        from numba.cuda.cudadrv.driver import MemoryPointer

        cuda = driver.lazy_init()
        nbytes = numel * np_dtype.itemsize
        mem = MemoryPointer(cuda.current_context(), ptr, nbytes, owner=owner)
        return cls(allocator.ForeignBlock(nbytes, mem, ptr, owner), numel, np_dtype)

    def nbytes(self) -> int:
        return self._numel * self._np.itemsize

    def numel(self) -> int:
        return self._numel

    def data_ptr(self) -> int:
        return self.block.ptr

    def resize_(self, n: int) -> None:
        if n > self._numel:
            block = allocator.allocate(n * self._np.itemsize)
            data = _typed(block, n, self._np)
            device_copy(data[:self._numel], self.data)
            if driver.SIMULATED:
                data[self._numel:] = np.zeros(1, self._np)[0]  # zero bits (bfloat16's opaque type takes no int)
            self.block, self.data, self._numel = block, data, n

    def read(self, offset: int) -> Any:
        v = self.copy_to_host(offset, 1)
        if v.dtype.kind == "V":  # bfloat16: its value as a float32
            return (v.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)[0]
        return v[0]

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        part = self.data[offset:offset + numel]
        if driver.SIMULATED:
            return part.copy()
        if numel == 0:
            return np.empty(0, self._np)
        return part.copy_to_host(stream=driver.current_stream() or 0)

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        n = values.shape[0]
        if driver.SIMULATED:
            self.data[offset:offset + n] = values
        elif n:
            self.data[offset:offset + n].copy_to_device(np.ascontiguousarray(values, self._np),
                                                         stream=driver.current_stream() or 0)

    def reinterpret(self, dtype: Any) -> CUDAStorage:
        np_dtype = np.dtype(dtype.numpy)
        return CUDAStorage(self.block, self.nbytes() // np_dtype.itemsize, np_dtype)

    def clone(self) -> CUDAStorage:
        new = CUDAStorage(allocator.allocate(self.nbytes()), self._numel, self._np)
        device_copy(new.data, self.data)
        return new

    def is_alias_of(self, other: Storage) -> bool:
        return other is self or (type(other) is CUDAStorage and other.block is self.block)

    def may_share_memory(self, other: Storage) -> bool:
        if type(other) is not CUDAStorage:
            return False
        if other.block is self.block:
            return True
        pa, pb = self.data_ptr(), other.data_ptr()
        return bool(pa and pb) and pa < pb + other.nbytes() and pb < pa + self.nbytes()
