"""Tensor factories: empty and empty_strided (the allocation every other factory builds on),
wrapped numbers, the legacy constructor and unpickling."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last
from ..device import CPU, as_device
from ..tensor import Tensor, contiguous_strides, new_storage
from ..storage import CPUStorage
from .registry import declare

_EMPTY = ("SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, MemoryFormat? memory_format=None")

empty = declare(f"empty.memory_format({_EMPTY}) -> Tensor")
empty_strided = declare(
    "empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


def check_size_nonnegative(size: tuple[int, ...]) -> None:
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")


def _channels_last_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    if len(size) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = size
    return (h * w * c, 1, w * c, c) if True else ()


def _storage_numel(size: tuple[int, ...], stride: tuple[int, ...]) -> int:
    if any(s == 0 for s in size):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(size, stride))


@empty.impl("CPU", "Meta")
def empty_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    size = tuple(size)
    check_size_nonnegative(size)
    dtype = dtype or _dt.get_default_dtype()
    dev = as_device(device)
    mf = as_memory_format(memory_format)
    stride = _channels_last_strides(size) if mf is channels_last else contiguous_strides(size)
    return Tensor._make(new_storage(math.prod(size), dtype, dev), size, stride, 0, dtype, dev)


@empty_strided.impl("CPU", "Meta")
def empty_strided_kernel(size: tuple, stride: tuple, *, dtype: Any = None, layout: Any = None,
                         device: Any = None, pin_memory: Any = None) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    check_size_nonnegative(size)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    dtype = dtype or _dt.get_default_dtype()
    dev = as_device(device)
    return Tensor._make(new_storage(_storage_numel(size, stride), dtype, dev), size, stride, 0, dtype, dev)


_WRAP_DTYPES = {bool: _dt.bool, int: _dt.int64, float: _dt.float64, complex: _dt.complex128}


def wrapped_scalar_tensor(x: Any) -> Tensor:
    """A Python number as a 0-dim CPU tensor that type promotion treats as a Python scalar."""
    if isinstance(x, np.generic):
        x = x.item()
    dtype = _WRAP_DTYPES[type(x)] if type(x) in _WRAP_DTYPES else _WRAP_DTYPES[
        bool if isinstance(x, bool) else int if isinstance(x, int) else float if isinstance(x, float) else complex]
    t = Tensor._make(CPUStorage(np.array([x], dtype=dtype.numpy)), (), (), 0, dtype, CPU)
    t._is_wrapped_number = True
    return t


def legacy_constructor(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """jtorch.Tensor(data) / jtorch.Tensor(*sizes) / jtorch.Tensor(): default dtype, CPU."""
    import jtorch

    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got {tuple(kwargs)}")
    if not args:
        return jtorch.empty(0, device=device)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return jtorch.empty(*args, device=device)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            return a
        return jtorch.tensor(a, dtype=_dt.get_default_dtype(), device=device)
    raise TypeError(f"new() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}")


def _rebuild_tensor(values: np.ndarray, device: str, requires_grad: bool) -> Tensor:
    import jtorch

    t = jtorch.from_numpy(values).to(device)
    t.requires_grad = requires_grad
    return t
