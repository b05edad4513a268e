"""`jtorch.cpu`: the CPU as a device module, as `torch.cpu` presents it for device-agnostic code
(`jtorch.get_device_module()` answers it when there is no accelerator). There is one CPU device
and one synchronous stream."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .streams import Event, Stream

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "is_available",
           "is_initialized", "set_device", "stream", "synchronize"]

_default_stream = Stream("cpu")


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device: Any) -> None:
    """Does nothing: there is one CPU device."""


def synchronize(device: Any = None) -> None:
    """Does nothing: CPU kernels finish before their call returns."""


def current_stream(device: Any = None) -> Stream:
    return _default_stream


@contextlib.contextmanager
def StreamContext(stream: Stream | None) -> Iterator[None]:
    """Selects a stream: a no-op on the CPU."""
    yield


def stream(stream: Stream | None) -> Any:
    return StreamContext(stream)
