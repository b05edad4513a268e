"""`jtorch.asarray` and `jtorch.frombuffer` (tensor_new.cpp): tensors over memory another object
owns (a tensor, a NumPy array, any Python buffer) without a copy where torch makes none, with
torch's rules for when `copy=`, `dtype=` and `device=` force one or forbid it.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..device import CPU, as_device
from ..device import _default as _default_device
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import Tensor
from .tensor_new import _from_numpy, _internal_new_from_data, _set_requires_grad, tensor_from_numpy


def _buffer_bytes(buffer: Any) -> memoryview:
    try:
        return memoryview(buffer).cast("B")
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None


def frombuffer(buffer: Any, *, dtype: _dt.dtype | None = None, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-D CPU tensor over a Python buffer's bytes (shared: writes go to the buffer)."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    mv = _buffer_bytes(buffer)
    length = mv.nbytes
    item = dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item != 0:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    # shared, read-only memory included (torch shares it too; writing it is undefined behaviour there)
    arr = np.frombuffer(mv, dtype=np.uint8, count=count * item, offset=offset).view(dtype.numpy)
    t = tensor_from_numpy(arr)
    return _set_requires_grad(t, requires_grad)


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def asarray(obj: Any, *, dtype: _dt.dtype | None = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """`jtorch.asarray(obj)`: obj as a tensor, sharing its memory when obj is a tensor, a NumPy array
    or a buffer and neither dtype nor device asks for another (copy=True always copies; copy=False
    refuses to copy)."""
    if device is None:
        device = _default_device.device
    dev = as_device(device) if device is not None else None
    t: Tensor | None = None
    if isinstance(obj, Tensor):
        t = obj
        if requires_grad is None and obj.requires_grad:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                          "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                          "warning.", UserWarning, stacklevel=2)
    elif isinstance(obj, np.ndarray):
        t = _from_numpy(obj)
    elif isinstance(obj, np.generic):
        if copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
    elif not isinstance(obj, (list, tuple, str)) and _has_buffer(obj):
        t = frombuffer(obj, dtype=dtype if dtype is not None else _dt.get_default_dtype())
    if t is not None:
        wrong_device = dev is not None and dev != t._device
        wrong_dtype = dtype is not None and dtype is not t.dtype
        if copy is False and wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{SCALAR_TYPE_NAME[t.dtype]}' into dtype "
                             f"'{SCALAR_TYPE_NAME[dtype]}'.")  # type: ignore[index]  # wrong_dtype: given
        if copy is False and wrong_device:
            raise ValueError(f"can't alias tensor from device '{t._device}' to '{dev}'.")
        if wrong_device or wrong_dtype:
            t = t.to(device=dev or t._device, dtype=dtype or t.dtype, copy=True)
        elif copy:
            t = t.clone()
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = _internal_new_from_data(obj, dtype, dev if dev is not None else CPU, infer=True, copy_variables=True,
                                    copy_numpy=True, warn_name=None)
    if requires_grad is None:
        requires_grad = obj.requires_grad if isinstance(obj, Tensor) else False
    if requires_grad != t.requires_grad:
        if requires_grad and not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(requires_grad)
    return t
