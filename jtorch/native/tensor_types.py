"""The legacy tensor types (torch/csrc/tensor/python_tensor.cpp): `jtorch.FloatTensor`,
`jtorch.LongTensor`, ... and `set_default_tensor_type`.

Each is a class of the metaclass `tensortype`, made from one table keyed by ScalarType name: not a
subclass of Tensor (as in torch); calling it runs the legacy constructor with its dtype;
`isinstance(t, jtorch.FloatTensor)` asks whether t is a float32 tensor on the class's device type.
"""
from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from .._enums import strided
from ..device import device
from ..tensor import Tensor
from .tensor_new import legacy_new

# ScalarType name -> the dtypes module's attribute (a dtype jtorch lacks gets no class)
LEGACY_TENSOR_DTYPES = {
    "Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
    "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
}


class tensortype(type):
    """The metaclass of the legacy tensor types (torch.tensortype)."""

    dtype: _dt.dtype
    _device_type: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        if cls._device_type == "cuda":
            from ..backends import lazy_init

            lazy_init("cuda")
        return legacy_new(cls.dtype, device(cls._device_type), args, kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and instance._device.type == cls._device_type)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        return type.__subclasscheck__(cls, subclass)

    @property
    def is_cuda(cls) -> bool:
        return cls._device_type == "cuda"

    @property
    def is_sparse(cls) -> bool:
        return False

    @property
    def is_sparse_csr(cls) -> bool:
        return False

    @property
    def layout(cls) -> Any:
        return strided


def _make_type(name: str, dtype: _dt.dtype, device_type: str, module: str) -> tensortype:
    cls = tensortype(f"{name}Tensor", (), {"__module__": module, "__doc__": None})
    type.__setattr__(cls, "dtype", dtype)
    type.__setattr__(cls, "_device_type", device_type)
    return cls


def legacy_tensor_types(device_type: str = "cpu", module: str = "jtorch") -> dict[str, tensortype]:
    """{'FloatTensor': <class jtorch.FloatTensor>, ...} for the dtypes jtorch has."""
    out = {}
    for name, attr in LEGACY_TENSOR_DTYPES.items():
        d = getattr(_dt, attr, None)
        if d is not None:
            out[f"{name}Tensor"] = _make_type(name, d, device_type, module)
    return out


LEGACY_TENSOR_TYPES = legacy_tensor_types()


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in torch 2.1: the default dtype from a legacy type or its name ('torch.DoubleTensor')."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "jtorch", "torch.cuda", "jtorch.cuda"):
            import importlib

            importlib.import_module(module or name)  # torch imports the module part: its error for a bad name
        cls = LEGACY_TENSOR_TYPES.get(name) if module in ("torch", "jtorch") else None
        if cls is None:
            raise TypeError("invalid type object: only floating-point types are supported as the default type")
        t = cls
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if t._device_type == "cuda":
        from ..backends import lazy_init

        lazy_init("cuda")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(t.dtype)
    if t._device_type != "cpu":
        from ..device import set_default_device

        set_default_device(t._device_type)
