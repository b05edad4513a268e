"""copy_, fill_, zero_ and clone: writing values into existing tensors (ATen's Copy.cpp, Fill.cpp,
TensorFactories.cpp:clone), plus the layout helpers they share with the conversions
(is_non_overlapping_and_dense, suggest_memory_format, memory overlap, Scalar conversion checks).

The CPU copy runs the Numba kernel `jtorch.kernels.cpu.copy.copy`; its loop shape (broadcast,
dimension order, coalescing) comes from `_copy_loop_plan`, which uses the TensorIterator's own
reorder_dimensions and coalesce_dimensions.
"""
from __future__ import annotations

import math
import os
import sys
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last, contiguous_format, preserve_format
from ..memory_overlap import (  # noqa: F401  (re-exported: conversion and factories use them)
    _FULL, _NO, _PARTIAL, _TOO_HARD, _YES, _may_overlap, _same_memory, assert_no_internal_overlap,
    assert_no_partial_overlap, get_overlap_status, has_internal_overlap, is_non_overlapping_and_dense,
)
from ..storage import CPUStorage
from ..geometry import coalesce_dimensions, reorder_dimensions
from ..tensor import Tensor, _is_contiguous, contiguous_strides
from ..tls import AutoDispatchBelowADInplaceOrView
from .factories import empty, empty_strided
from .registry import declare

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


# ---- shapes and layouts ----------------------------------------------------------------------------
def _shape_str(size: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


def infer_size(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """at::infer_size: the broadcast shape of a and b, with PyTorch's error."""
    if a == b:
        return a
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        da, db = len(a) - 1 - offset, len(b) - 1 - offset
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def _is_channels_last_strides_2d(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """c10::is_channels_last_strides_2d_s4 (the guess behind suggest_memory_format)."""
    if len(size) != 4 or stride[1] == 0:
        return False
    mn = 0
    for d in (1, 3, 2, 0):
        if size[d] == 0 or stride[d] < mn:
            return False
        if d == 0 and mn == stride[1]:
            return False
        mn = stride[d]
        if size[d] > 1:
            mn *= size[d]
    return True


def suggest_memory_format(t: Tensor) -> Any:
    """TensorBase::suggest_memory_format: channels_last when the strides look like it."""
    return channels_last if _is_channels_last_strides_2d(t._size, t._stride) else contiguous_format


def infer_dense_strides(size: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, ...]:
    """at::infer_dense_strides: dense strides in the same dimension order as `stride`."""
    # the same ordering TensorIterator uses for one operand: fastest dimension first
    perm = reorder_dimensions(size, [list(stride)])
    out = [0] * len(size)
    acc = 1
    for d in perm:
        out[d] = acc
        if size[d] > 1:
            acc *= size[d]
    return tuple(out)


def new_like(t: Tensor, memory_format: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """at::empty_like(t, dtype, device, memory_format) through the dispatcher."""
    dtype = dtype or t.dtype
    device = device or t._device
    if memory_format is preserve_format:
        if is_non_overlapping_and_dense(t._size, t._stride):
            return empty_strided.op(t._size, t._stride, dtype=dtype, device=device)
        memory_format = suggest_memory_format(t)
    return empty.op(t._size, dtype=dtype, device=device, memory_format=memory_format)


def copy_into_new(dst: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """dst.copy_(src) for a tensor the caller just allocated. Composite kernels run below
    autograd in PyTorch (the autograd kernel above them holds AutoDispatchBelowADInplaceOrView),
    so this write neither records history nor bumps the new tensor's version."""
    with AutoDispatchBelowADInplaceOrView():
        copy_.op(dst, src, non_blocking)
    return dst


# ---- the loop plan (TensorIterator's reorder_dimensions + coalesce_dimensions) --------------------
def _copy_loop_plan(shape: tuple[int, ...], dst_stride: tuple[int, ...], src_size: tuple[int, ...],
                    src_stride: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Shape and element strides for `copy(dst, src, shape)`: src broadcast to `shape` (stride 0
    on broadcast dimensions), dimensions ordered fastest first, and coalesced where possible."""
    n = len(shape)
    lead = n - len(src_size)
    sst = [0] * n
    for i in range(len(src_size)):
        if src_size[i] != 1 or shape[lead + i] == 1:
            sst[lead + i] = src_stride[i]
    perm = reorder_dimensions(shape, [list(dst_stride), sst])
    a = [dst_stride[d] for d in perm]
    b = [sst[d] for d in perm]
    sh = coalesce_dimensions(tuple(shape[d] for d in perm), [a, b])
    return sh, tuple(a), tuple(b)


# ---- copy_ ------------------------------------------------------------------------------------------
_warned_complex_to_real = False


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _warn_complex_to_real() -> None:
    global _warned_complex_to_real
    if not _warned_complex_to_real:  # TORCH_WARN_ONCE
        _warned_complex_to_real = True
        # point the warning at the user's line, above jtorch's own frames (bindings included)
        f, level = sys._getframe(0), 1
        while f is not None and f.f_code.co_filename.startswith((_PKG_DIR, "<jtorch")):
            f, level = f.f_back, level + 1
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=level)


def _check_copy_shape(self: Tensor, src: Tensor) -> None:
    shape = infer_size(self._size, src._size)
    if shape != self._size:
        raise RuntimeError(f"output with shape {_shape_str(self._size)} doesn't match the broadcast shape "
                           f"{_shape_str(shape)}")


def copy_cpu(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """at::native::copy_ for CPU tensors (both operands on the CPU)."""
    if self is src:
        return self
    if src._device.type != "cpu" or self._device.type != "cpu":
        raise RuntimeError(f"copy_: expected CPU tensors, got {self._device} and {src._device}")
    # TensorIterator::build order: memory overlap, then shapes
    size, stride = self._size, self._stride
    dense = _is_contiguous(size, stride)
    if not dense:
        assert_no_internal_overlap(self)
    sa, sb = self._storage, src._storage
    shared = sa is sb or np.may_share_memory(sa.data, sb.data)  # bounds only: cheap
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
    if shared and _may_overlap(self, src):
        if get_overlap_status(self, src) == _FULL and self.dtype is src.dtype:
            return self  # every element is copied onto itself
        # Read everything before writing anything (PyTorch's result here depends on its loop order).
        vals = np.array(src._numpy_view(), order="C", copy=True)
        src = Tensor._make(CPUStorage(vals.reshape(-1)), src._size, contiguous_strides(src._size), 0,
                           src.dtype, src._device)
    if dense and size == src._size and stride == src._stride:
        shape, ds, ss = (numel,), (1,), (1,)
    else:
        shape, ds, ss = _copy_loop_plan(size, stride, src._size, src._stride)
    _kernel().copy(_kernel().ArrayOperand(sa.data, self._offset, ds),
                   _kernel().ArrayOperand(src._storage.data, src._offset, ss), shape)
    return self


class _CopyKernel:
    """The CPU copy kernel module, imported on first use (Numba is not touched at import)."""

    copy: Any = None
    ArrayOperand: Any = None


def _kernel() -> type[_CopyKernel]:
    if _CopyKernel.copy is None:
        from ..kernels.cpu.copy import copy
        from ..kernels.cpu.loops import ArrayOperand

        _CopyKernel.copy, _CopyKernel.ArrayOperand = copy, ArrayOperand
    return _CopyKernel


@copy_.impl("CPU")
def copy__cpu(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    return copy_cpu(self, src, non_blocking)


@copy_.impl("Meta")
def copy__meta(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copies into a meta tensor only check shapes; a meta source has no data to give."""
    if self is src:
        return self
    if self._device.type == "meta":
        _check_copy_shape(self, src)
        return self
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")


# ---- Scalar conversion with PyTorch's overflow checks (c10::checked_convert) ---------------------------
_CPP_NAMES = {
    _dt.bool: "bool", _dt.uint8: "uint8_t", _dt.int8: "int8_t", _dt.int16: "int16_t", _dt.int32: "int",
    _dt.int64: "int64_t", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
    _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>",
}
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2 ** 63), 2 ** 63 - 1, 2 ** 64 - 1


def _float_limit(d: _dt.dtype) -> float:
    return float(np.finfo(d.to_real().numpy).max)


def _real_overflows(x: Any, d: _dt.dtype) -> bool:
    """c10::overflows<To>(x) for a real (bool/int/float) x and a non-complex, non-bool To."""
    if isinstance(x, bool):
        return False
    if d.is_floating_point or d.is_complex:
        if isinstance(x, int):
            return d.to_real() is _dt.float16 and abs(x) > 65504  # int64 always fits float/double
        if math.isinf(x) or math.isnan(x):
            return False
        return abs(x) > _float_limit(d)
    info = np.iinfo(d.numpy)
    if isinstance(x, float):
        return math.isnan(x) or x < info.min or x > info.max
    if not d.is_signed and x < 0:  # unsigned targets accept two's-complement negatives
        return -x > info.max
    return x < info.min or x > info.max


def checked_convert(value: Any, dtype: _dt.dtype) -> np.generic:
    """Scalar::to<T>() for a Python number: NumPy scalar of `dtype`, or PyTorch's overflow error."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool):
        if value > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        if value < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
    if dtype is _dt.bool:
        return np.bool_(value != 0)
    if isinstance(value, complex):
        if dtype.is_complex:
            bad = _real_overflows(value.real, dtype) or _real_overflows(value.imag, dtype)
        else:
            bad = value.imag != 0 or _real_overflows(value.real, dtype)
    else:
        bad = _real_overflows(value, dtype)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dtype]} without overflow")
    np_t = dtype.numpy.type
    if dtype.is_complex:
        return np_t(complex(value))
    if isinstance(value, complex):
        value = value.real
    if dtype.is_floating_point:
        return np_t(float(value))
    if isinstance(value, float):
        value = int(value)  # C++ casts truncate toward zero
    with np.errstate(over="ignore"):
        return np.array(value, dtype=np.uint64 if value > _INT64_MAX else np.int64).astype(dtype.numpy)[()]


# ---- fill_, fill, zero_ -------------------------------------------------------------------------------
def fill_cpu(self: Tensor, value: Any) -> Tensor:
    """at::native::fill_ (Scalar) on the CPU: no memory-overlap check, as in PyTorch."""
    v = checked_convert(value, self.dtype)
    if self.numel():
        self._numpy_view()[...] = v
    return self


def _check_fill_value(value: Tensor) -> None:
    if value.dim() != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")


@fill__Scalar.impl("CPU")
def fill__scalar_cpu(self: Tensor, value: Any) -> Tensor:
    return fill_cpu(self, value)


@fill__Scalar.impl("Meta")
def fill__scalar_meta(self: Tensor, value: Any) -> Tensor:
    return self


@fill__Tensor.impl("CPU")
def fill__tensor_cpu(self: Tensor, value: Tensor) -> Tensor:
    _check_fill_value(value)
    if self._device != value._device:
        from .conversion import local_scalar_dense

        return fill_cpu(self, local_scalar_dense.op(value))
    if _same_memory(self, value):  # value is a view of self: read it before overwriting
        value = Tensor._make(CPUStorage(np.array([value._storage.data[value._offset]])), (), (), 0, value.dtype,
                             value._device)
    return copy_cpu(self, value)


@fill__Tensor.impl("Meta")
def fill__tensor_meta(self: Tensor, value: Tensor) -> Tensor:
    _check_fill_value(value)
    return self


@fill_Scalar.impl("CompositeExplicitAutograd")
def fill_scalar(self: Tensor, value: Any) -> Tensor:
    r = new_like(self, preserve_format)
    with AutoDispatchBelowADInplaceOrView():
        return fill__Scalar.op(r, value)


@fill_Tensor.impl("CompositeExplicitAutograd")
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    r = new_like(self, preserve_format)
    with AutoDispatchBelowADInplaceOrView():
        return fill__Tensor.op(r, value)


@zero_.impl("CPU")
def zero__cpu(self: Tensor) -> Tensor:
    if self.numel():
        self._numpy_view()[...] = 0
    return self


@zero_.impl("Meta")
def zero__meta(self: Tensor) -> Tensor:
    return self


# ---- clone ----------------------------------------------------------------------------------------------
@clone.impl("CompositeExplicitAutograd")
def clone_kernel(self: Tensor, *, memory_format: Any = None) -> Tensor:
    mf = as_memory_format(memory_format) or preserve_format
    return copy_into_new(new_like(self, mf), self)
