"""Backends beyond the CPU and meta device register their storage type here, by device type."""
from __future__ import annotations

from typing import Callable

_storages: dict[str, Callable] = {}


def register_storage(device_type: str, factory: Callable) -> None:
    """factory(numel, dtype, device) -> Storage for tensors of that device type."""
    _storages[device_type] = factory


def registered() -> set[str]:
    return set(_storages)


def storage_for(dev) -> Callable:
    try:
        return _storages[dev.type]
    except KeyError:
        raise RuntimeError(f"no storage is registered for device type '{dev.type}'") from None
