"""Small enumerations torch exposes as objects: memory formats and layouts."""
from __future__ import annotations


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jtorch.{self.name}"


class layout:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jtorch.{self.name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
preserve_format = memory_format("preserve_format")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")

_BY_NAME = {m.name: m for m in (contiguous_format, channels_last, preserve_format, channels_last_3d)}


def as_memory_format(m: memory_format | str | None) -> memory_format | None:
    """Schema defaults spell memory formats as names ('contiguous_format')."""
    return _BY_NAME[m] if isinstance(m, str) else m
