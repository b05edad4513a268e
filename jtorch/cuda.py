"""`jtorch.cuda`: the CUDA device from Python, as `torch.cuda` presents it.

Availability, devices, synchronisation, streams and events, the caching allocator's statistics
and the CUDA generator's seed. The work is done in jtorch/kernels/cuda/ (driver.py, allocator.py);
numba.cuda is imported on first use, not by `import jtorch`. Without a GPU (and without the
simulator) `is_available()` is False and anything that needs the device raises torch's error.
"""
from __future__ import annotations

import collections
from typing import Any

from .device import _CudaIndex
from .device import device as _device
from .kernels.cuda import allocator, driver

OutOfMemoryError = allocator.OutOfMemoryError  # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError

# Calls made before CUDA is initialised (seeds, RNG states) wait here, as torch's _lazy_call queues
# them; without a GPU they never run, so seeding is silently accepted.
_queued_calls: list = []


def is_available() -> bool:
    return driver.is_available()


def _lazy_init() -> None:
    driver.lazy_init()
    _run_queued_calls()


def init() -> None:
    """Initialise CUDA (what any CUDA call does on first use); torch's error without a GPU."""
    _lazy_init()


def is_initialized() -> bool:
    """Whether CUDA has been initialised in this process."""
    return driver.is_initialized()


def _run_queued_calls() -> None:
    while _queued_calls:
        _queued_calls.pop(0)()


def _lazy_call(callback: Any) -> None:
    """Run now when there is a device (initialising CUDA), else queue for when CUDA starts."""
    if is_available():
        _lazy_init()
        callback()
    else:
        _queued_calls.append(callback)


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
    d = _device(d)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _CudaIndex.current if d.index is None else d.index


def set_device(d: Any) -> None:
    i = _index(d)
    if i < 0:  # a no-op, before any initialisation (torch's _get_device_index then its check)
        return
    driver.lazy_init()
    if i >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    _CudaIndex.current = i


def get_device_name(d: Any = None) -> str:
    return driver.device_name(_index(d))


def synchronize(d: Any = None) -> None:
    """Wait for every kernel queued on the device."""
    driver.synchronize()


# ---- the CUDA generator's seed and state (torch/cuda/random.py) -----------------------------------
def _generator() -> Any:
    from .random import cuda_default_generator

    return cuda_default_generator()


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator of the current device; silently queued when CUDA is not available."""
    seed = int(seed)
    _lazy_call(lambda: _generator().manual_seed(seed))


def manual_seed_all(seed: int) -> None:
    """Seed the CUDA generators of every device; silently queued when CUDA is not available."""
    seed = int(seed)
    _lazy_call(lambda: _generator().manual_seed(seed))


def seed() -> None:
    """Seed the current device's CUDA generator from a non-deterministic source (queued without CUDA)."""
    _lazy_call(lambda: _generator().seed())


def seed_all() -> None:
    """Seed every device's CUDA generator with one non-deterministic seed (queued without CUDA)."""
    _lazy_call(lambda: _generator().seed())


def initial_seed() -> int:
    _lazy_init()
    return _generator().initial_seed()


def _rng_device_index(d: Any) -> int:
    if isinstance(d, str):
        d = _device(d)
    elif isinstance(d, int):
        d = _device("cuda", d)
    return _CudaIndex.current if d.index is None else d.index


def get_rng_state(device: Any = "cuda") -> Any:
    """The RNG state of a GPU as a uint8 CPU tensor (initialises CUDA)."""
    _lazy_init()
    _rng_device_index(device)
    return _generator().get_state()


def get_rng_state_all() -> list:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Set a GPU's RNG state (queued, on a copy of the state, until CUDA is initialised)."""
    if not is_initialized():
        from .autograd.grad_mode import no_grad

        with no_grad():
            new_state = new_state.clone()
    _lazy_call(lambda: _generator().set_state(new_state))


def set_rng_state_all(new_states: Any) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# ---- streams and events ----------------------------------------------------------------------
class Stream:
    """A CUDA stream; kernels launched inside `with jtorch.cuda.stream(s):` queue on it."""

    def __init__(self, device: Any = None, priority: int = 0) -> None:
        self._stream = driver.new_stream()
        self.device = _device("cuda", _index(device))

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
        self.device = _device("cuda", _CudaIndex.current)

    def synchronize(self) -> None:
        driver.synchronize()


def current_stream(device: Any = None) -> Stream:
    _lazy_init()
    return _current[-1] if _current else _DefaultStream()


def default_stream(device: Any = None) -> Stream:
    """The device's default (legacy) stream."""
    _lazy_init()
    return _DefaultStream()


_current: list = []


class StreamContext:
    """Queue the kernels launched inside the block on a stream (None, or no CUDA: a no-op)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self.idx = _CudaIndex.current if is_available() else -1
        self._prev: Any = None

    def __enter__(self) -> None:
        if self.stream is None or self.idx == -1:
            return
        self._prev = driver.set_current_stream(self.stream._stream)
        _current.append(self.stream)

    def __exit__(self, *exc: Any) -> None:
        if self.stream is None or self.idx == -1:
            return
        _current.pop()
        driver.set_current_stream(self._prev)


def stream(stream: Stream | None) -> StreamContext:
    """`with jtorch.cuda.stream(s):` queues the kernels launched inside the block on `s`."""
    return StreamContext(stream)


class device:
    """Context manager: `with jtorch.cuda.device(1):` makes device 1 the current CUDA device
    (a negative index or None: a no-op)."""

    def __init__(self, device: Any) -> None:
        self.idx = -1 if device is None else _index(device)
        self.prev = -1

    def __enter__(self) -> None:
        if self.idx < 0:
            return
        driver.lazy_init()
        self.prev, _CudaIndex.current = _CudaIndex.current, self.idx

    def __exit__(self, *exc: Any) -> None:
        if self.idx >= 0:
            _CudaIndex.current = self.prev


class device_of(device):
    """Context manager: the current CUDA device is that of a tensor's (a no-op for a CPU tensor)."""

    def __init__(self, obj: Any) -> None:
        dev = obj.device
        super().__init__((dev.index or 0) if dev.type == "cuda" else -1)


class Event:
    """`jtorch.cuda.Event(enable_timing=True)`: record() on the current stream, elapsed_time(end) in ms."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self._ev = driver.Event(enable_timing)

    def record(self, stream: Stream | None = None) -> None:
        if stream is None:
            self._ev.record()
        else:
            with StreamContext(stream):
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


def max_memory_reserved(device: Any = None) -> int:
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device: Any = None) -> None:
    allocator.stats().reset_peak()


def memory_stats(device: Any = None) -> collections.OrderedDict:
    """The allocator's statistics under torch's names (empty before CUDA is initialised)."""
    if not is_initialized():
        return collections.OrderedDict()
    a = allocator.stats()
    stats = {}
    for name, current, peak in (("allocated_bytes", a.allocated, a.peak),
                                ("reserved_bytes", a.reserved, a.peak_reserved),
                                ("active_bytes", a.allocated, a.peak)):
        stats[f"{name}.all.current"] = current
        stats[f"{name}.all.peak"] = peak
    stats["num_ooms"] = a.num_ooms
    return collections.OrderedDict(sorted(stats.items()))


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A readable table of the allocator's statistics. Before CUDA is initialised there are none
    and, as torch's, this raises KeyError naming the first statistic it reads."""
    stats = memory_stats(device)
    rows = [("Allocated memory", "allocated_bytes"), ("Active memory", "active_bytes"),
            ("GPU reserved memory", "reserved_bytes")]
    lines = ["=" * 75, f" PyTorch CUDA memory summary, device ID {_index(device):<32}",
             "-" * 75, "{:<24}| {:>14} | {:>14} |".format("Metric", "Cur Usage", "Peak Usage"), "-" * 75]
    for title, key in rows:
        lines.append("{:<24}| {:>14} | {:>14} |".format(
            title, allocator.format_size(stats[f"{key}.all.current"]), allocator.format_size(stats[f"{key}.all.peak"])))
    lines.append("=" * 75)
    return "\n".join(lines) + "\n"


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the device's memory, as cudaMemGetInfo reports them."""
    if device is None:
        device = current_device()
    cuda = driver.lazy_init()
    free, total = cuda.current_context().get_memory_info()
    return _bytes(free), _bytes(total)


def _bytes(v: Any) -> int:
    """The simulator reports unlimited memory (inf): the largest int64."""
    return int(v) if v != float("inf") else (1 << 63) - 1


def ipc_collect() -> None:
    """Nothing to collect: jtorch does not share CUDA tensors between processes."""
    _lazy_init()


def utilization(device: Any = None) -> int:
    """Percent of the last sample period a kernel ran on the GPU (nvidia-smi's), through NVML."""
    try:
        import pynvml  # type: ignore[import-not-found]  # optional: nvidia-ml-py
    except ImportError:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be imported.") from None
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(_index(device) if is_available() else current_device())
    return int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)


# ---- device properties ------------------------------------------------------------------------
class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties answers, from numba.cuda's device."""

    def __init__(self, name: str, major: int, minor: int, total_memory: int, multi_processor_count: int,
                 uuid: str) -> None:
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count, self.uuid = total_memory, multi_processor_count, uuid
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count}, uuid={self.uuid})")


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    _lazy_init()
    i = _index(device)
    if i < 0 or i >= device_count():
        raise AssertionError("Invalid device id")
    return driver.device_properties(i, _CudaDeviceProperties)


def get_device_capability(device: Any = None) -> tuple[int, int]:
    prop = get_device_properties(device)
    return prop.major, prop.minor


def get_arch_list() -> list[str]:
    """The architectures kernels are compiled for: numba compiles for the device's own."""
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """bfloat16 runs on every device jtorch drives (computed in float32 inside the kernels, as torch's
    emulation does); natively from compute capability 8."""
    if not is_available():
        return False
    if get_device_properties(current_device()).major >= 8:
        return True
    return bool(including_emulation)


def empty_cache() -> None:
    """Return the pool of freed blocks to the driver."""
    allocator.stats().empty_cache()
