"""A caching allocator in the spirit of PyTorch's CUDACachingAllocator.

Freed blocks go back to a pool keyed by their (rounded) size and are handed out again, so a
training loop does not call the driver's allocator once per operator. `empty_cache()` returns the
pool to the driver. The statistics are torch's: memory_allocated (bytes in live blocks),
max_memory_allocated (its peak), memory_reserved (live + pooled).

A Block owns one allocation: on a GPU a numba MemoryPointer over memory from the driver, under the
simulator a NumPy uint8 array (what the simulator can pass to kernels). Storages hold the Block; a
tensor viewed as another dtype shares it, and the Block goes back to the pool when the last holder dies.

On a GPU the numba object that frees the memory when it dies (memalloc's OwnedPointer) is kept in
`CachingAllocator.owners`, never in a Block: a Block collected in a garbage cycle would otherwise take
its OwnedPointer's finalizer with it (weakref callbacks run before `__del__`), freeing memory that
`__del__` then hands back to the pool. Blocks carry a non-owning MemoryPointer over the same address.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import driver

ROUND = 512  # bytes: torch rounds small requests to 512


class Block:
    __slots__ = ("nbytes", "mem", "ptr", "__weakref__")

    def __init__(self, nbytes: int, mem: Any, ptr: int) -> None:
        self.nbytes, self.mem, self.ptr = nbytes, mem, ptr

    def __del__(self) -> None:
        try:
            _allocator.release(self.nbytes, self.mem, self.ptr)
        except Exception:
            pass


class ForeignBlock(Block):
    """Device memory owned by another library (zero-copy import): kept alive through `owner`,
    never returned to the pool."""
    __slots__ = ("owner",)

    def __init__(self, nbytes: int, mem: Any, ptr: int, owner: Any) -> None:
        super().__init__(nbytes, mem, ptr)
        self.owner = owner

    def __del__(self) -> None:
        pass


class CachingAllocator:
    def __init__(self) -> None:
        self.pool: dict[int, list[tuple[Any, int]]] = {}
        self.allocated = 0
        self.peak = 0
        self.reserved = 0
        self.peak_reserved = 0
        self.num_ooms = 0
        self.lock = threading.RLock()  # a Block's __del__ may run (garbage collection) while it is held
        self.owners: dict[int, Any] = {}  # device address -> numba's owning pointer (GPU only)

    def allocate(self, nbytes: int) -> Block:
        size = max(ROUND, (nbytes + ROUND - 1) // ROUND * ROUND)
        with self.lock:
            free = self.pool.get(size)
            mem = free.pop() if free else None
            self.allocated += size
            self.peak = max(self.peak, self.allocated)
        if mem is None:
            mem = self._raw(size)
            with self.lock:
                self.reserved += size
                self.peak_reserved = max(self.peak_reserved, self.reserved)
        return Block(size, mem[0], mem[1])

    def release(self, size: int, mem: Any, ptr: int) -> None:
        with self.lock:
            self.allocated -= size
            self.pool.setdefault(size, []).append((mem, ptr))

    def _raw(self, size: int) -> tuple[Any, int]:
        if driver.SIMULATED:
            try:
                a = np.zeros(size, np.uint8)
            except (MemoryError, ValueError):
                raise self._oom(size, 0, 0) from None
            return a, a.__array_interface__["data"][0]
        cuda = driver.lazy_init()
        try:
            m = cuda.current_context().memalloc(size)
        except Exception:
            self.empty_cache()
            try:
                m = cuda.current_context().memalloc(size)
            except Exception:
                free, total = cuda.current_context().get_memory_info()
                raise self._oom(size, int(free), int(total)) from None
        from numba.cuda.cudadrv.driver import MemoryPointer

        ptr = int(m.device_ctypes_pointer.value or 0)
        with self.lock:
            self.owners[ptr] = m
        return MemoryPointer(m.context, ptr, size), ptr

    def _oom(self, size: int, free: int, total: int) -> OutOfMemoryError:
        """The CUDACachingAllocator's text for an allocation the device cannot hold."""
        self.num_ooms += 1
        return OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {format_size(size)}. GPU 0 has a total capacity of "
            f"{format_size(total)} of which {format_size(free)} is free. Of the allocated memory "
            f"{format_size(self.allocated)} is allocated by PyTorch, and {format_size(self.reserved - self.allocated)} "
            "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
            "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

    def empty_cache(self) -> None:
        with self.lock:
            n = sum(size * len(v) for size, v in self.pool.items())
            for v in self.pool.values():
                for _, ptr in v:
                    self.owners.pop(ptr, None)  # numba frees the memory as its owner dies
            self.pool.clear()
            self.reserved -= n

    def reset_peak(self) -> None:
        with self.lock:
            self.peak = self.allocated
            self.peak_reserved = self.reserved


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError): a device allocation failed."""


OutOfMemoryError.__module__ = "jtorch"


def format_size(n: int) -> str:
    """c10::CachingAllocator::format_size."""
    if n <= 1024:
        return f"{n} bytes"
    if n <= 1048576:
        return f"{n / 1024:.2f} KiB"
    if n <= 1073741824:
        return f"{n / 1048576:.2f} MiB"
    return f"{n / 1073741824:.2f} GiB"


_allocator = CachingAllocator()


def allocate(nbytes: int) -> Block:
    return _allocator.allocate(nbytes)


def stats() -> CachingAllocator:
    return _allocator
