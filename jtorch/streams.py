"""`jtorch.Stream` and `jtorch.Event`: the device-neutral stream and event of torch 2.x.

On the CPU (and meta) a stream is the one synchronous stream (id 0) and an event completes when
recorded; on CUDA they wrap jtorch.cuda's stream and event (initialising CUDA, so without a GPU
they raise its error).
"""
from __future__ import annotations

from typing import Any

from .device import as_device

_NO_EVENTS = "cpu backend doesn't support events."


def _device(device: Any) -> Any:
    """An int names an accelerator's device; None the CPU."""
    if isinstance(device, int) and not isinstance(device, bool):
        from .kernels.cuda import driver

        if not driver.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return as_device(f"cuda:{device}")
    return as_device("cpu" if device is None else device)


class Stream:
    """A queue of work on a device: `jtorch.Stream(device=None, *, priority=0)`."""

    def __init__(self, device: Any = None, *, priority: int = 0) -> None:
        dev = _device(device)
        self.device_type = dev.type
        self.device_index = -1 if dev.index is None or dev.type == "cpu" else dev.index
        self.stream_id = 0
        self._cuda: Any = None
        if dev.type == "cuda":
            from . import cuda

            self._cuda = cuda.Stream(dev, priority=priority)
            self.device_index = self._cuda.device.index
            self.stream_id = id(self._cuda)

    @property
    def device(self) -> Any:
        return as_device(self.device_type if self.device_index < 0 else f"{self.device_type}:{self.device_index}")

    def query(self) -> bool:
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self) -> None:
        if self._cuda is not None:
            self._cuda.synchronize()

    def wait_stream(self, stream: Stream) -> None:
        stream.synchronize()

    def wait_event(self, event: Event) -> None:
        event.synchronize()  # an event is complete once recorded, on every device jtorch runs

    def record_event(self, event: Event | None = None) -> Event:
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device_type, self.device_index, self.stream_id) == (
            other.device_type, other.device_index, other.stream_id)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return (f"jtorch.Stream device_type={self.device_type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream: `jtorch.Event(device=None, *, enable_timing=False, blocking=False,
    interprocess=False)`."""

    def __init__(self, device: Any = None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        dev = _device(device)
        self.device_type = dev.type
        self.device_index = -1 if dev.index is None or dev.type == "cpu" else dev.index
        self.event_flag = int(enable_timing)
        self.event_id = 0
        self._cuda: Any = None
        if dev.type == "cuda":
            from . import cuda

            cuda._lazy_init()
            self._cuda = cuda.Event(enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)
            self.event_id = id(self._cuda)

    @property
    def device(self) -> Any:
        return as_device(self.device_type if self.device_index < 0 else f"{self.device_type}:{self.device_index}")

    def record(self, stream: Stream | None = None) -> None:
        if self._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        self._cuda.record(None if stream is None else stream._cuda)

    def wait(self, stream: Stream | None = None) -> None:
        self.synchronize()

    def query(self) -> bool:
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self) -> None:
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        if self._cuda is None:
            if not (self.event_flag and end_event.event_flag):
                raise ValueError("Both events must be created with argument 'enable_timing=True'.")
            raise RuntimeError(_NO_EVENTS)
        return self._cuda.elapsed_time(end_event._cuda)

    def __repr__(self) -> str:
        return (f"jtorch.Event device_type={self.device_type}, device_index={self.device_index}, "
                f"event_flag={self.event_flag}, event_id={self.event_id}")
