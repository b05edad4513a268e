"""copy_, fill_, zero_ and clone: writing values into existing tensors (ATen's Copy.cpp, Fill.cpp,
TensorFactories.cpp:clone), and moving values between devices.

The kernels are backend-neutral: they check (shapes, memory overlap, Scalar conversion) once and
reach data only through the backend's stubs, `copy(dst, src)` (same device, same shape, any
strides and dtypes) and `fill(t, value)`, so a backend registered after import has them too. A
copy between two devices goes through the host: the source's elements as a host array
(`Storage.copy_to_host`), written into a staging tensor on the destination's device
(`Storage.copy_from_host`), then converted into place by that device's copy stub.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, preserve_format
from ..backends import backend
from ..geometry import infer_size, is_contiguous, shape_str
from ..memory_overlap import (
    _FULL,
    _may_overlap,
    _same_memory,
    assert_no_internal_overlap,
    assert_no_partial_overlap,
    get_overlap_status,
)
from ..scalar import checked_scalar, dtype_scalar, not_implemented
from ..structured.meta import allocate
from ..tensor import Tensor
from ..tls import AutoDispatchBelowADInplaceOrView
from ..warn import complex_to_real
from .factories import aten, empty_like_impl
from .registry import declare
from .views import infer_expand_geometry

copy_ = declare("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
                variants="method", numbers_as_tensors=True)
# The Tensor overloads come first so that a 0-dim tensor value is not read out as a Scalar
# (torch's argument parser orders them the same way).
fill__Tensor = declare("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", variants="function, method")
fill__Scalar = declare("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", variants="function, method")
fill_Tensor = declare("fill.Tensor(Tensor self, Tensor value) -> Tensor")
fill_Scalar = declare("fill.Scalar(Tensor self, Scalar value) -> Tensor")
zero_ = declare("zero_(Tensor(a!) self) -> Tensor(a!)", variants="method, function")
clone = declare("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", variants="function, method")


# ---- the stubs, and tensors that never go through the dispatcher ----------------------------------------
def _backend_of(t: Tensor) -> Any:
    return backend(t._device.type)


def _contiguous_empty(size: tuple, dtype: _dt.dtype, dev: Any) -> Tensor:
    """A kernel's temporary: contiguous, on `dev` (not an operator call: nothing to observe)."""
    return allocate(size, None, dtype, dev)


def _expanded(t: Tensor, shape: tuple) -> Tensor:
    """t broadcast to `shape` (stride 0 on the broadcast dimensions), for the copy stub."""
    size, stride = infer_expand_geometry(t._size, t._stride, shape)
    return Tensor._make(t._storage, size, stride, t._offset, t.dtype, t._device)


def _contiguous_copy(t: Tensor) -> Tensor:
    """t's values in a new contiguous tensor on t's device (read everything before writing)."""
    r = _contiguous_empty(t._size, t.dtype, t._device)
    _backend_of(t).copy(r, t)
    return r


def host_array(t: Tensor) -> np.ndarray:
    """t's elements in C order as a new 1-D host array of t's dtype (any device but meta)."""
    if not is_contiguous(t._size, t._stride):
        t = _contiguous_copy(t)
    return t._storage.copy_to_host(t._offset, t.numel())


def host_values(t: Tensor) -> np.ndarray:
    """t's values as a host array of t's shape (index tensors, data-dependent checks)."""
    return host_array(t).reshape(t._size)


def copy_from_host(dst: Tensor, values: np.ndarray) -> None:
    """Write a host array (of dst's shape, any dtype: converted as copy_ converts) into dst."""
    values = np.ascontiguousarray(values).reshape(-1)
    d = _dt.from_buffer_dtype(values.dtype)
    if d is dst.dtype and is_contiguous(dst._size, dst._stride):
        dst._storage.copy_from_host(dst._offset, values)
        return
    staging = _contiguous_empty(dst._size, d, dst._device)
    staging._storage.copy_from_host(0, values)
    _backend_of(dst).copy(dst, staging)


def _copy_across_devices(dst: Tensor, src: Tensor) -> None:
    """A copy between two devices, through the host (src already of dst's shape or broadcastable)."""
    values = host_array(src)
    if src._size == dst._size:
        copy_from_host(dst, values.reshape(src._size))
        return
    staging = _contiguous_empty(src._size, src.dtype, dst._device)
    staging._storage.copy_from_host(0, values)
    _backend_of(dst).copy(dst, _expanded(staging, dst._size))


def moved(t: Tensor, dev: Any) -> Tensor:
    """t itself when it is on `dev`, else a contiguous copy of it there (a kernel's operand)."""
    if t._device == dev:
        return t
    r = _contiguous_empty(t._size, t.dtype, dev)
    if dev.type != "meta" and r.numel():
        _copy_across_devices(r, t)
    return r


# ---- copy_ ------------------------------------------------------------------------------------------
_warn_complex_to_real = complex_to_real


def _check_copy_shape(self: Tensor, src: Tensor) -> None:
    shape = infer_size(self._size, src._size)
    if shape != self._size:
        raise RuntimeError(f"output with shape {shape_str(self._size)} doesn't match the broadcast shape "
                           f"{shape_str(shape)}")


@copy_.impl_backends
def copy__kernel(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """at::native::copy_: TensorIterator::build's checks in its order (memory overlap, then
    shapes), then the copy stub of self's device (through the host between devices)."""
    if self is src:
        return self
    dev = self._device
    if dev.type == "meta":  # copies into a meta tensor only check shapes
        _check_copy_shape(self, src)
        return self
    if src._device.type == "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if self.dtype in _dt.bits_dtypes or src.dtype in _dt.bits_dtypes:  # no copy kernel has a bits case
        raise not_implemented("copy_kernel" if self.dtype is src.dtype else "copy_", _dt.uint1)
    size = self._size
    if not is_contiguous(size, self._stride):
        assert_no_internal_overlap(self)
    sa, sb = self._storage, src._storage
    shared = sa is sb or sa.may_share_memory(sb)
    if shared:
        assert_no_partial_overlap(self, src)
    if size != src._size:
        _check_copy_shape(self, src)
    numel = 1
    for n in size:
        numel *= n
    if numel == 0:
        return self
    if src.dtype.is_complex and not (self.dtype.is_complex or self.dtype is _dt.bool):
        _warn_complex_to_real()
    if src._device is not dev and src._device != dev:
        _copy_across_devices(self, src)
        return self
    if shared and _may_overlap(self, src):
        if get_overlap_status(self, src) == _FULL and self.dtype is src.dtype:
            return self  # every element is copied onto itself
        src = _contiguous_copy(src)  # PyTorch's result here depends on its loop order
    backend(dev.type).copy(self, src if src._size == size else _expanded(src, size))
    return self


def copy_into_new(dst: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """dst.copy_(src) for a tensor the caller just allocated. Composite kernels run below
    autograd in PyTorch (the autograd kernel above them holds AutoDispatchBelowADInplaceOrView),
    so this write neither records history nor bumps the new tensor's version."""
    with AutoDispatchBelowADInplaceOrView():
        aten("copy_")(dst, src, non_blocking)
    return dst


# ---- fill_, fill, zero_ -------------------------------------------------------------------------------
def fill_value(t: Tensor, value: Any) -> Any:
    """The Scalar as t's element type. A one-element CPU tensor takes at::detail::scalar_fill,
    which reaches Half through double (overflowing to inf); other fills check for Half too."""
    if t.dtype is _dt.float16 and t._device.type == "cpu" and t.numel() == 1:
        with np.errstate(over="ignore"):
            return np.float16(np.float32(checked_scalar(_dt.float64, value)))
    return checked_scalar(t.dtype, value)


@fill__Scalar.impl_backends
def fill__scalar_kernel(self: Tensor, value: Any) -> Tensor:
    """at::native::fill_ (Scalar): no memory-overlap check, as in PyTorch; meta checks nothing."""
    if self._device.type == "meta":
        return self
    if self.dtype in _dt.bits_dtypes:  # one element takes at::detail::scalar_fill, more the fill stub
        raise not_implemented("fill_out" if self.numel() == 1 else f"fill_{self._device.type}", self.dtype)
    v = fill_value(self, value)
    if self.numel():
        _backend_of(self).fill(self, v)
    return self


def _check_fill_value(value: Tensor) -> None:
    if value.dim() != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")


@fill__Tensor.impl_backends
def fill__tensor_kernel(self: Tensor, value: Tensor) -> Tensor:
    _check_fill_value(value)
    if self._device.type == "meta" or value._device.type == "meta":
        return self
    if self._device != value._device:
        return fill__scalar_kernel(self, aten("_local_scalar_dense")(value))
    if _same_memory(self, value):  # value is a view of self: read it before overwriting
        value = _contiguous_copy(value)
    return copy__kernel(self, value)


@fill_Scalar.impl("CompositeExplicitAutograd")
def fill_scalar(self: Tensor, value: Any) -> Tensor:
    r = empty_like_impl(self)
    with AutoDispatchBelowADInplaceOrView():
        return aten("fill_.Scalar")(r, value)


@fill_Tensor.impl("CompositeExplicitAutograd")
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    r = empty_like_impl(self)
    with AutoDispatchBelowADInplaceOrView():
        return aten("fill_.Tensor")(r, value)


@zero_.impl_backends
def zero__kernel(self: Tensor) -> Tensor:
    if self._device.type != "meta" and self.numel():
        if self.dtype in _dt.bits_dtypes:  # torch zeroes the bytes (no kernel reads the bits type)
            _backend_of(self).fill(self.view(_dt.uint8), np.uint8(0))
            return self
        _backend_of(self).fill(self, dtype_scalar(self.dtype, 0))
    return self


# ---- clone ----------------------------------------------------------------------------------------------
@clone.impl("CompositeExplicitAutograd")
def clone_kernel(self: Tensor, *, memory_format: Any = None) -> Tensor:
    mf = as_memory_format(memory_format) or preserve_format
    return copy_into_new(empty_like_impl(self, memory_format=mf), self)
