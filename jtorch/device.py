"""`jtorch.device`: a device type and index, and the dispatch key set a tensor on it carries."""
from __future__ import annotations

import threading

from .keyset import BackendComponent, DispatchKey, DispatchKeySet, get_autograd_related_key_set_from_backend

_TYPES = {"cpu": BackendComponent.CPU, "cuda": BackendComponent.CUDA, "meta": BackendComponent.Meta,
          "privateuseone": BackendComponent.PrivateUse1}
_BACKEND_KEY = {BackendComponent.CPU: DispatchKey.CPU, BackendComponent.CUDA: DispatchKey.CUDA,
                BackendComponent.Meta: DispatchKey.Meta, BackendComponent.PrivateUse1: DispatchKey.PrivateUse1}


class device:
    """A device such as `jtorch.device("cpu")`, `jtorch.device("cuda", 0)` or `jtorch.device("meta")`."""

    __slots__ = ("type", "index", "_key_set", "_backend")
    type: str
    index: int | None
    _key_set: int  # the raw key set a tensor on this device starts with
    _backend: BackendComponent
    _cache: dict = {}

    def __new__(cls, type_or_str: str | device | int, index: int | None = None) -> device:
        key = (type_or_str, index)
        d = cls._cache.get(key) if isinstance(type_or_str, (str, int)) else None
        if d is not None:
            return d
        if isinstance(type_or_str, device):
            return type_or_str if index is None else device(type_or_str.type, index)
        idx: int | None
        if isinstance(type_or_str, int):  # a bare ordinal means a CUDA device, as in torch
            t, idx = "cuda", type_or_str
        else:
            t, sep, rest = type_or_str.partition(":")
            idx = index
            if sep:
                if index is not None:
                    raise RuntimeError("type (string) must not include an index because index was passed explicitly: "
                                       f"{type_or_str}")
                if not rest.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type_or_str}'")
                idx = int(rest)
        if t not in _TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, meta, privateuseone device type at start of device string: "
                + str(type_or_str)
            )
        if idx is not None and idx < 0:
            raise RuntimeError("Device index must not be negative")
        self = object.__new__(cls)
        self.type, self.index = t, idx
        b = _TYPES[t]
        self._backend = b
        self._key_set = int(DispatchKeySet(_BACKEND_KEY[b]) | get_autograd_related_key_set_from_backend(b))
        cls._cache[key] = self
        return self

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self) -> device:
        """`with jtorch.device("meta"):` factories without device= make tensors here inside the block."""
        st = _default.__dict__.setdefault("stack", [])
        st.append(_default.device)
        _default.device = None if self is CPU else self
        return self

    def __exit__(self, *exc: object) -> None:
        _default.device = _default.stack.pop()


CPU = device("cpu")
META = device("meta")


class _DefaultDevice(threading.local):
    # torch keeps its default device per thread (a TorchFunctionMode on the thread's mode stack);
    # None means the CPU, so factories test one attribute on their fast path.
    device: device | None = None
    stack: list = []


_default = _DefaultDevice()


def get_default_device() -> device:
    """The device factories use when no device= is given (torch.get_default_device)."""
    return _default.device or CPU


def set_default_device(d: str | device | int | None) -> None:
    """torch.set_default_device: factories (and tensor()/as_tensor()) without device= use `d`;
    None restores the CPU. This thread only, as in torch."""
    dev = None if d is None else device(d)
    _default.device = None if dev is None or dev == CPU else dev


def default_device_or_none() -> device | None:
    """The default device when it is not the CPU (what factory front ends inject as device=)."""
    return _default.device


class _CudaIndex:
    # torch.cuda.current_device(): where a tensor made with device="cuda" (no index) lives
    current = 0


def as_device(d: str | device | int | None) -> device:
    """Normalise a device argument for a tensor; None means the CPU and "cuda" the current CUDA
    device (a CUDA tensor always has an index: `device='cuda:0'`)."""
    if d is None:
        return CPU
    if type(d) is not device:
        d = device(d)
    if d.index is None and d.type == "cuda":
        return device("cuda", _CudaIndex.current)
    return d
