"""The one door to numba.cuda: availability, the simulator, streams, events and launches.

Everything else in jtorch reaches the GPU through this module and the CUDA storage; numba's
host-side array API (which numba-cuda plans to deprecate) stays inside jtorch/kernels/cuda/.
numba.cuda is imported on first use, never at `import jtorch`.

Under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set before import) the same kernels run
in Python, one block at a time and one OS thread per CUDA thread (about 65 us per thread), so
launches there use one small block and let the grid-stride loops do the rest.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as _np

NOT_COMPILED = "Torch not compiled with CUDA enabled"
NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
             "driver from http://www.nvidia.com/Download/index.aspx")

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


class _State:
    cuda: Any = None          # the numba.cuda module, once imported
    imported = False
    available: bool | None = None
    initialized = False       # lazy_init has succeeded (torch.cuda.is_initialized)
    lock = threading.Lock()


def numba_cuda() -> Any:
    """numba.cuda (numba-cuda where installed), or None when it cannot be imported."""
    if not _State.imported:
        with _State.lock:
            if not _State.imported:
                try:
                    from numba import cuda
                    _State.cuda = cuda
                except Exception:
                    _State.cuda = None
                _State.imported = True
    return _State.cuda


def is_available() -> bool:
    """Whether a GPU (or the simulator) can run kernels. Asks the driver once per process."""
    if _State.available is None:
        cuda = numba_cuda()
        try:
            _State.available = bool(cuda is not None and cuda.is_available())
        except Exception:
            _State.available = False
    return _State.available


def lazy_init() -> Any:
    """torch's lazy CUDA initialisation: numba.cuda, or torch's error when there is no CUDA."""
    cuda = numba_cuda()
    if cuda is None:
        raise AssertionError(NOT_COMPILED)
    if not is_available():
        raise RuntimeError(NO_DRIVER)
    _State.initialized = True
    return cuda


def is_initialized() -> bool:
    return _State.initialized


def device_count() -> int:
    if not is_available():
        return 0
    if SIMULATED:
        return 1
    return len(numba_cuda().gpus)


def device_name(index: int = 0) -> str:
    cuda = lazy_init()
    if SIMULATED:
        return "Numba CUDA simulator"
    name = cuda.gpus[index]._device.name
    return name.decode() if isinstance(name, bytes) else str(name)


def device_properties(index: int, make: Any) -> Any:
    """`make(name, major, minor, total_memory, multi_processor_count, uuid)` for device `index`."""
    cuda = lazy_init()
    if SIMULATED:
        dev = cuda.current_context().device
        major, minor = dev.compute_capability
        return make(device_name(index), major, minor, (1 << 63) - 1, 1, str(dev.uuid))
    gpu = cuda.gpus[index]
    with gpu:
        dev = cuda.get_current_device()
        total = int(cuda.current_context().get_memory_info()[1])
        major, minor = dev.compute_capability
        return make(device_name(index), int(major), int(minor), total, int(dev.MULTIPROCESSOR_COUNT), str(dev.uuid))


def sm_count() -> int:
    """Streaming multiprocessors of the current GPU (1 under the simulator)."""
    if SIMULATED:
        return 1
    return int(lazy_init().get_current_device().MULTIPROCESSOR_COUNT)


# ---- streams: the current one is per thread, as in torch ---------------------------------------
class _Streams(threading.local):
    current: Any = None  # a numba stream, or None for the default (legacy) stream


_streams = _Streams()


def current_stream() -> Any:
    return _streams.current


def set_current_stream(stream: Any) -> Any:
    prev, _streams.current = _streams.current, stream
    return prev


def new_stream() -> Any:
    return lazy_init().stream()


def synchronize() -> None:
    lazy_init().synchronize()


# ---- launches --------------------------------------------------------------------------------
_configs: dict[int, tuple[int, int]] = {}


def config(n: int, threads: int = 256) -> tuple[int, int]:
    """(blocks, threads) for a grid-stride loop over n items; computed once per size class (the
    bit length of n), not per call. The simulator gets one block of at most 8 threads."""
    key = n.bit_length() * 4096 + threads
    c = _configs.get(key)
    if c is None:
        if SIMULATED:
            c = (1, max(1, min(8, threads, n)))
        else:
            cap = 1 << n.bit_length()  # the size class's upper bound
            blocks = max(1, min((cap + threads - 1) // threads, sm_count() * 32))
            c = (blocks, threads)
        _configs[key] = c
    return c


def _simulated_args(args: tuple) -> tuple:
    """The simulator copies each NumPy argument in and back out after the kernel, so two arguments
    viewing one buffer (an in-place `x.add_(1)`: output and input) would undo each other's writes.
    Device-array wrappers are passed through uncopied, as device memory is on a GPU."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    return tuple(FakeCUDAArray(a) if type(a) is _np.ndarray and a.ndim else a for a in args)


def launch(kernel: Any, n: int, *args: Any, threads: int = 256) -> None:
    """Run a grid-stride kernel over n items on the current stream."""
    blocks, tpb = config(n, threads)
    if SIMULATED:
        args = _simulated_args(args)
    s = _streams.current
    if s is None:
        kernel[blocks, tpb](*args)
    else:
        kernel[blocks, tpb, s](*args)


def launch_blocks(kernel: Any, blocks: int | tuple[int, ...], threads: int | tuple[int, ...], *args: Any) -> None:
    """Run a kernel with an explicit grid (block-per-row reductions, tiled GEMM); a grid or block of
    several dimensions is a tuple, as numba.cuda takes it."""
    if SIMULATED:
        args = _simulated_args(args)
    s = _streams.current
    if s is None:
        kernel[blocks, threads](*args)
    else:
        kernel[blocks, threads, s](*args)


# ---- events ----------------------------------------------------------------------------------
class Event:
    """A CUDA event; under the simulator (synchronous, no timing) it records the host clock."""

    def __init__(self, enable_timing: bool = False) -> None:
        self.enable_timing = enable_timing
        self._ev: Any = None
        self._t: float | None = None

    def record(self) -> None:
        cuda = lazy_init()
        if SIMULATED:
            self._t = time.perf_counter()
            return
        if self._ev is None:
            self._ev = cuda.event(timing=self.enable_timing)
        s = _streams.current
        self._ev.record(s if s is not None else 0)

    def synchronize(self) -> None:
        if self._ev is not None:
            self._ev.synchronize()

    def query(self) -> bool:
        return self._ev is None or bool(self._ev.query())

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to `end` (both recorded, timing enabled)."""
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if SIMULATED:
            if self._t is None or end._t is None:
                raise RuntimeError("Both events must be recorded before calculating elapsed time.")
            return (end._t - self._t) * 1e3
        if self._ev is None or end._ev is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        end._ev.synchronize()
        return float(lazy_init().event_elapsed_time(self._ev, end._ev))
