"""DLPack interchange (torch/utils/dlpack.py, Tensor.__dlpack__): zero-copy both ways with NumPy,
PyTorch and any other DLPack library.

CPU storage is a NumPy buffer, so NumPy does the capsule work: the producer exports a NumPy view
of the tensor (the capsule keeps the storage alive), and the consumer imports with
`np.from_dlpack` and wraps the array's memory in a CPU tensor without copying. A conversion like
jtorch.native's: this module sets `Tensor.__dlpack__` / `__dlpack_device__` when imported.
"""
from __future__ import annotations

import enum
from typing import Any

import numpy as np

from .backends import backend, by_device_type
from .native.tensor_new import tensor_from_numpy
from .tensor import Tensor


class DLDeviceType(enum.IntEnum):
    """dlpack.h DLDeviceType (the values torch.utils.dlpack.DLDeviceType uses)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


_DEVICE_TYPES = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA, "privateuseone": DLDeviceType.kDLExtDev}


def dlpack_device(t: Tensor) -> tuple[DLDeviceType, int]:
    """Tensor.__dlpack_device__."""
    kind = _DEVICE_TYPES.get(t._device.type)
    if kind is None:
        raise ValueError(f"Unknown device type {t._device.type} for Dlpack")
    return kind, t._device.index if t._device.index is not None else 0


def to_dlpack(t: Tensor, *, stream: Any = -1, max_version: Any = None, dl_device: Any = None,
              copy: Any = None) -> Any:
    """Tensor.__dlpack__: a capsule sharing the tensor's memory."""
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if t._device.type == "cuda":  # a capsule over device memory: CuPy builds it (optional)
        return backend("cuda").to_dlpack(t, stream=stream, max_version=max_version)
    if t._device.type != "cpu":
        raise BufferError(f"Cannot pack tensors on {t._device.type}")
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    view = by_device_type["cpu"].numpy_view(t)
    return view.__dlpack__(stream=None, max_version=max_version, dl_device=dl_device, copy=copy)


def to_dlpack_capsule(tensor: Any) -> Any:
    """torch.to_dlpack (torch._C._to_dlpack): the legacy capsule ("dltensor") sharing the tensor's memory.
    Unlike __dlpack__ it exports tensors that require grad (the capsule carries no history)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {type(tensor).__name__}")
    if tensor._device.type == "cuda":
        return backend("cuda").to_dlpack(tensor, stream=None, max_version=None)
    if tensor._device.type != "cpu":
        raise BufferError(f"Cannot pack tensors on {tensor._device.type}")
    return by_device_type["cpu"].numpy_view(tensor).__dlpack__()


class _Capsule:
    """Lets np.from_dlpack consume a bare capsule (the legacy protocol torch still accepts)."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return DLDeviceType.kDLCPU, 0


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: Any = None) -> Tensor:
    """jtorch.from_dlpack: a tensor sharing the memory of any DLPack producer (or capsule)."""
    if not isinstance(ext_tensor, Tensor) and hasattr(ext_tensor, "__cuda_array_interface__"):
        from .native.tensor_new import as_tensor  # CUDA producers: zero-copy through the interface

        return as_tensor(ext_tensor)
    if hasattr(ext_tensor, "__dlpack_device__") and ext_tensor.__dlpack_device__()[0] == DLDeviceType.kDLCUDA:
        return backend("cuda").from_dlpack(ext_tensor)
    if device is not None and str(device) != "cpu":
        raise BufferError(f"jtorch.from_dlpack: unsupported device {device}")
    if hasattr(ext_tensor, "__dlpack__"):
        dev_type, _ = ext_tensor.__dlpack_device__()
        if dev_type != DLDeviceType.kDLCPU:
            raise BufferError(f"jtorch.from_dlpack: unsupported DLPack device type {DLDeviceType(dev_type).name}")
        src = ext_tensor
    elif type(ext_tensor).__name__ == "PyCapsule":
        src = _Capsule(ext_tensor)
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(ext_tensor).__name__}")
    arr = np.from_dlpack(src, copy=copy)
    return tensor_from_numpy(arr)


Tensor.__dlpack__ = to_dlpack  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
Tensor.__dlpack_device__ = dlpack_device  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi


def _cuda_array_interface(self: Tensor) -> dict:
    """Tensor.__cuda_array_interface__ (v3), for CUDA tensors; AttributeError on others, as torch."""
    return backend("cuda").cuda_array_interface(self)


Tensor.__cuda_array_interface__ = property(_cuda_array_interface)  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
