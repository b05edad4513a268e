"""`jtorch.cuda`: the CUDA device from Python, as `torch.cuda` presents it.

Availability, devices, synchronisation, streams and events, the caching allocator's statistics
and the CUDA generator's seed. The work is done in jtorch/kernels/cuda/ (driver.py, allocator.py);
numba.cuda is imported on first use, not by `import jtorch`. Without a GPU (and without the
simulator) `is_available()` is False and anything that needs the device raises torch's error.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .device import _CudaIndex, device
from .kernels.cuda import allocator, driver


def is_available() -> bool:
    return driver.is_available()


def _lazy_init() -> None:
    driver.lazy_init()


def device_count() -> int:
    return driver.device_count()


def current_device() -> int:
    driver.lazy_init()
    return _CudaIndex.current


def _index(d: Any) -> int:
    if d is None:
        return _CudaIndex.current
    if isinstance(d, int):
        return d
    d = device(d)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _CudaIndex.current if d.index is None else d.index


def set_device(d: Any) -> None:
    driver.lazy_init()
    i = _index(d)
    if i < 0:
        return
    if i >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    _CudaIndex.current = i


def get_device_name(d: Any = None) -> str:
    return driver.device_name(_index(d))


def synchronize(d: Any = None) -> None:
    """Wait for every kernel queued on the device."""
    driver.synchronize()


def manual_seed(seed: int) -> None:
    """Seed the CUDA default generator (a counter-based stream: a seed gives the same numbers)."""
    from .random import cuda_default_generator

    cuda_default_generator().manual_seed(int(seed))


manual_seed_all = manual_seed


def initial_seed() -> int:
    from .random import cuda_default_generator

    return cuda_default_generator().initial_seed()


# ---- streams and events ----------------------------------------------------------------------
class Stream:
    """A CUDA stream; kernels launched inside `with jtorch.cuda.stream(s):` queue on it."""

    def __init__(self, device: Any = None, priority: int = 0) -> None:
        self._stream = driver.new_stream()
        self.device = globals()["device"]("cuda", _index(device))

    def synchronize(self) -> None:
        self._stream.synchronize()

    def wait_stream(self, other: Stream) -> None:
        other.synchronize()

    def query(self) -> bool:
        return True if driver.SIMULATED else bool(self._stream.query() if hasattr(self._stream, "query") else True)

    def __repr__(self) -> str:
        return f"<jtorch.cuda.Stream device={self.device} cuda_stream={id(self._stream):#x}>"


class _DefaultStream(Stream):
    def __init__(self) -> None:
        self._stream = None
        self.device = device("cuda", _CudaIndex.current)

    def synchronize(self) -> None:
        driver.synchronize()


def current_stream(device: Any = None) -> Stream:
    driver.lazy_init()
    return _current[0] if _current else _DefaultStream()


_current: list = []


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[None]:
    """Queue the kernels launched inside the block on stream `s` (None: no change)."""
    if s is None:
        yield
        return
    prev = driver.set_current_stream(s._stream)
    _current.append(s)
    try:
        yield
    finally:
        _current.pop()
        driver.set_current_stream(prev)


class Event:
    """`jtorch.cuda.Event(enable_timing=True)`: record() on the current stream, elapsed_time(end) in ms."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self._ev = driver.Event(enable_timing)

    def record(self, stream: Stream | None = None) -> None:
        if stream is None:
            self._ev.record()
        else:
            with globals()["stream"](stream):
                self._ev.record()

    def synchronize(self) -> None:
        self._ev.synchronize()

    def query(self) -> bool:
        return self._ev.query()

    def elapsed_time(self, end_event: Event) -> float:
        return self._ev.elapsed_time(end_event._ev)


# ---- the caching allocator -------------------------------------------------------------------
def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tensors (rounded up to the allocator's block sizes, as torch counts)."""
    return allocator.stats().allocated


def max_memory_allocated(device: Any = None) -> int:
    return allocator.stats().peak


def memory_reserved(device: Any = None) -> int:
    """Bytes the allocator holds from the driver: live blocks plus its pool of freed ones."""
    return allocator.stats().reserved


def reset_peak_memory_stats(device: Any = None) -> None:
    allocator.stats().reset_peak()


def empty_cache() -> None:
    """Return the pool of freed blocks to the driver."""
    allocator.stats().empty_cache()
