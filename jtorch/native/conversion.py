"""Conversion operators: to / _to_copy / contiguous (TensorConversions.cpp), item /
_local_scalar_dense / is_nonzero (Scalar.cpp, TensorProperties.cpp), detach. Backend-neutral:
`_local_scalar_dense` reads through the backend's `read_scalar` stub, `_to_copy` allocates and
copies through the dispatcher. The Python-level methods built on them (`t.to(...)`, `int(t)`,
`t.numpy()`, ...) are in python_methods.py.
"""
from __future__ import annotations

import builtins
from typing import Any

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last, channels_last_3d, contiguous_format, preserve_format, strided
from ..backends import backend
from ..device import as_device
from ..geometry import is_channels_last_strides_2d, is_channels_last_strides_3d
from ..scalar import not_implemented
from ..tensor import Tensor
from .copy import clone, copy_into_new
from .factories import empty_like_impl
from .math_bits import MATH_BITS
from .registry import declare
from .unsigned_support import refuses_inside

_to_copy = declare(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    variants="")  # like torch: reachable as jtorch.ops.aten._to_copy, no Python binding
to_dtype_layout = declare(
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    variants="method")
to_device = declare(
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
to_dtype = declare(
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
to_other = declare(
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
contiguous = declare("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
                     variants="method")
item = declare("item(Tensor self) -> Scalar", variants="method")
local_scalar_dense = declare("_local_scalar_dense(Tensor self) -> Scalar", variants="")
is_nonzero = declare("is_nonzero(Tensor self) -> bool", variants="function, method")
# Tensor.detach stays the Python-level method in tensor.py (it wins over the generated binding).
detach = declare("detach(Tensor(a) self) -> Tensor(a)", variants="function, method")
# torch.detach_ as a function; Tensor.detach_ is likewise tensor.py's method.
detach_ = declare("detach_(Tensor(a!) self) -> Tensor(a!)", variants="function, method")


# ---- _to_copy and to -------------------------------------------------------------------------------
@_to_copy.impl("CompositeExplicitAutograd")
def _to_copy_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    if layout is not None and layout is not strided:
        raise RuntimeError("to(options) doesn't support converting to a different layout, but got self.layout "
                           f"being {strided} and options.layout set as {layout}")
    dev = self._device if device is None else as_device(device)
    r = empty_like_impl(self, dtype or self.dtype, dev, as_memory_format(memory_format) or preserve_format)
    return copy_into_new(r, self, non_blocking)


def suggest_memory_format(t: Tensor) -> Any:
    """TensorBase::suggest_memory_format: channels_last when the strides look like it."""
    if is_channels_last_strides_2d(t._size, t._stride):
        return channels_last
    return channels_last_3d if is_channels_last_strides_3d(t._size, t._stride) else contiguous_format


def _to_will_alias(self: Tensor, dtype: Any, layout: Any, dev: Any, copy: bool, mf: Any) -> bool:
    mf = as_memory_format(mf) or preserve_format
    return ((dtype is None or dtype is self.dtype)
            and (layout is None or layout is strided)
            and (dev is None or dev == self._device)
            and not copy
            and (mf is preserve_format or suggest_memory_format(self) is mf))


def _to_impl(self: Tensor, dtype: Any, layout: Any, dev: Any, pin_memory: Any, non_blocking: bool, copy: bool,
             mf: Any) -> Tensor:
    if dev is not None:
        dev = as_device(dev)
    if _to_will_alias(self, dtype, layout, dev, copy, mf):
        return self
    return _to_copy.op(self, dtype=dtype, layout=layout, device=dev, pin_memory=pin_memory,
                       non_blocking=non_blocking, memory_format=mf)


@to_dtype_layout.impl("CompositeImplicitAutograd")
def to_dtype_layout_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                           pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                           memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


@to_device.impl("CompositeImplicitAutograd")
def to_device_kernel(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
                     memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, device, None, non_blocking, copy, memory_format)


@to_dtype.impl("CompositeImplicitAutograd")
def to_dtype_kernel(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, None, None, non_blocking, copy, memory_format)


@to_other.impl("CompositeImplicitAutograd")
def to_other_kernel(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, other.dtype, strided, other._device, None, non_blocking, copy, memory_format)


@contiguous.impl("CompositeImplicitAutograd")
def contiguous_kernel(self: Tensor, *, memory_format: Any = contiguous_format) -> Tensor:
    mf = as_memory_format(memory_format)
    if self.is_contiguous(memory_format=mf):
        return self
    if mf is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone.op(self, memory_format=mf)


@detach.impl("CompositeExplicitAutograd")
def detach_kernel(self: Tensor) -> Tensor:
    """Same storage and version counter, no autograd history, and not a view (`_base` is None)."""
    out = Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)
    out._key_set |= self._key_set & MATH_BITS  # detach keeps the conjugate and negative bits, as in torch
    return out


@detach_.impl("CompositeImplicitAutograd")
def detach__kernel(self: Tensor) -> Tensor:
    """Above autograd, as torch's VariableTypeManual detach_: drops the history in place (views refused)."""
    return Tensor.detach_(self)


# ---- item, _local_scalar_dense, is_nonzero ------------------------------------------------------------
@item.impl("CompositeImplicitAutograd")
def item_kernel(self: Tensor) -> Any:
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return local_scalar_dense.op(self)


@local_scalar_dense.impl_backends
@refuses_inside
def local_scalar_dense_kernel(self: Tensor) -> Any:
    if self._device.type == "meta":
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    if self.dtype in _dt.bits_dtypes:  # no kernel reads the bits type
        raise not_implemented(f"_local_scalar_dense_{self._device.type}", self.dtype)
    v = backend(self._device.type).read_scalar(self)
    return v.item() if hasattr(v, "item") else v


@is_nonzero.impl("CompositeImplicitAutograd")
def is_nonzero_kernel(self: Tensor) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(item.op(self) != 0)
