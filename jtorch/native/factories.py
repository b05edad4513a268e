"""Shape factories (TensorFactories.cpp): empty / empty_strided, zeros / ones / full /
scalar_tensor, eye, the *_like and new_* variants, and the helpers every factory shares.

`empty` and `empty_strided` allocate through the device's registered storage (a kernel for Meta
and for every backend, including backends registered later); the rest are
CompositeExplicitAutograd kernels that allocate through `empty` and then fill (`fill_`, `zero_`),
exactly as ATen composes them; their fills run below ADInplaceOrView, so a fresh tensor has
version 0 as in PyTorch. Factories without a tensor argument pick their backend in the
BackendSelect kernel that `declare` generates from the `Device? device` argument.

Range factories (arange, linspace) are in range_factories.py; data conversion (`jtorch.tensor`,
`as_tensor`, `from_numpy`, the legacy constructor) in tensor_new.py.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last, channels_last_3d, preserve_format
from ..backends import backend, by_device_type
from ..device import CPU, as_device
from ..geometry import (
    channels_last_3d_strides,
    channels_last_strides,
    contiguous_strides,
    infer_dense_strides,
    is_non_overlapping_and_dense,
    storage_extent,
)
from ..global_context import fill_empty
from ..scalar import dtype_scalar
from ..storage import new_storage
from ..tensor import Tensor
from ..tls import AutoDispatchBelowADInplaceOrView
from .registry import by_name, declare

_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_EMPTY = f"SymInt[] size, *, {_OPTS}, MemoryFormat? memory_format=None"
_LIKE = f"{_OPTS}, MemoryFormat? memory_format=None"

# ---- declarations (native_functions.yaml order: the bindings try overloads in this order) ----------
empty = declare(f"empty.memory_format({_EMPTY}) -> Tensor")
empty_strided = declare(f"empty_strided(SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor")
new_empty = declare(f"new_empty(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor", variants="method")
new_empty_strided = declare(
    f"new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor", variants="method")
new_full = declare(f"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor", variants="method")
new_zeros = declare(f"new_zeros(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor", variants="method")
new_ones = declare(f"new_ones(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor", variants="method")
empty_like = declare(f"empty_like(Tensor self, *, {_LIKE}) -> Tensor")
eye = declare(f"eye(SymInt n, *, {_OPTS}) -> Tensor")
eye_m = declare(f"eye.m(SymInt n, SymInt m, *, {_OPTS}) -> Tensor")
eye_out = declare("eye.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
eye_m_out = declare("eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)")
full = declare(f"full(SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor")
full_out = declare("full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)")
full_like = declare(f"full_like(Tensor self, Scalar fill_value, *, {_LIKE}) -> Tensor")
ones = declare(f"ones(SymInt[] size, *, {_OPTS}) -> Tensor")
ones_out = declare("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
ones_like = declare(f"ones_like(Tensor self, *, {_LIKE}) -> Tensor")
scalar_tensor = declare(f"scalar_tensor(Scalar s, *, {_OPTS}) -> Tensor")
zeros = declare(f"zeros(SymInt[] size, *, {_OPTS}) -> Tensor")
zeros_out = declare("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
zeros_like = declare(f"zeros_like(Tensor self, *, {_LIKE}) -> Tensor")


# ---- helpers every factory shares -------------------------------------------------------------------
_ATEN: dict[str, Any] = {}


def aten(name: str) -> Any:
    """The OpOverload of a declared operator by its overload name ('fill_.Scalar', 'copy_'), for
    kernels that call an operator another file declares (looked up once)."""
    op = _ATEN.get(name)
    if op is None:
        op = _ATEN[name] = by_name[name].op
    return op


def infer_dtype_from_scalar(value: Any) -> _dt.dtype:
    """at::native::infer_full_options: the dtype `full` gives a fill value when dtype is None."""
    if isinstance(value, (bool, np.bool_)):
        return _dt.bool
    if isinstance(value, (int, np.integer)):
        return _dt.int64
    if isinstance(value, (complex, np.complexfloating)):
        return _dt.default_complex_dtype()
    return _dt.get_default_dtype()


# A factory's own writes into the tensor it just made are not in-place updates a user can observe:
# PyTorch's factory functions run them below ADInplaceOrView (variable_factories.h, and the autograd
# kernels of the *_like composites), so a fresh tensor has version 0.
below_inplace_or_view = AutoDispatchBelowADInplaceOrView


def runs_below_inplace_or_view(fn: Any) -> Any:
    """Kernel decorator: the operators it calls run below ADInplaceOrView (no version bumps)."""

    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        with below_inplace_or_view():
            return fn(*args, **kwargs)

    return kernel


def fill_(t: Tensor, value: Any) -> Tensor:
    with below_inplace_or_view():
        return aten("fill_.Scalar")(t, value)


def zero_(t: Tensor) -> Tensor:
    with below_inplace_or_view():
        return aten("zero_")(t)


def resize_(t: Tensor, size: tuple[int, ...]) -> Tensor:
    """`t.resize_(size)` (resize_impl_cpu_): same shape keeps the strides; otherwise contiguous
    strides, and the storage grows when it is too small."""
    size = tuple(size)
    if t._size == size:
        return t
    check_size_nonnegative(size)
    n = 1
    for s in size:
        n *= s
    if n:
        t._storage.resize_(t._offset + n)
    t._size, t._stride = size, contiguous_strides(size)
    return t


def check_size_nonnegative(size: tuple[int, ...]) -> None:
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")


# ---- empty / empty_strided -------------------------------------------------------------------------
@empty.impl_backends
def empty_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    if type(size) is not tuple:
        size = tuple(size)
    numel = 1
    for s in size:
        if s < 0:
            check_size_nonnegative(size)
        numel *= s
    dtype = dtype or _dt.get_default_dtype()
    dev = CPU if device is None else as_device(device)
    if memory_format is None:
        stride = contiguous_strides(size)
    else:
        mf = as_memory_format(memory_format)
        if mf is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        if mf is channels_last:
            stride = channels_last_strides(size)
        elif mf is channels_last_3d:
            stride = channels_last_3d_strides(size)
        else:
            stride = contiguous_strides(size)
    if numel * dtype.itemsize >= _U64:
        check_storage_size(size, None, dtype)
    t = Tensor._make(new_storage(numel, dtype, dev), size, stride, 0, dtype, dev)
    return fill_empty_deterministic_(t) if fill_empty() else t


@empty_strided.impl_backends
def empty_strided_kernel(size: tuple, stride: tuple, *, dtype: Any = None, layout: Any = None,
                         device: Any = None, pin_memory: Any = None) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    check_size_nonnegative(size)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    dtype = dtype or _dt.get_default_dtype()
    dev = as_device(device)
    extent = storage_extent(size, stride)
    if extent * dtype.itemsize >= _U64:
        check_storage_size(size, stride, dtype)
    t = Tensor._make(new_storage(extent, dtype, dev), size, stride, 0, dtype, dev)
    return fill_empty_deterministic_(t) if fill_empty() else t


_U64 = 1 << 64


def check_storage_size(size: tuple, stride: tuple | None, dtype: Any) -> None:
    """computeStorageNbytes: the byte count must fit in 64 bits."""
    text = f"Storage size calculation overflowed with sizes={list(size)}"
    raise RuntimeError(text if stride is None else f"{text} and strides={list(stride)}")


def fill_empty_deterministic_(t: Tensor) -> Tensor:
    """at::native::fill_empty_deterministic_: with deterministic algorithms on, uninitialized memory
    holds NaN (floating and complex types), the largest value (integers) or True, never garbage."""
    if t._device.type == "meta" or not t.numel():
        return t
    d = t.dtype
    if d.is_floating_point or d.is_complex:
        value: Any = float("nan")
    elif d is _dt.bool:
        value = True
    else:
        value = _dt.iinfo(d).max
    return fill_(t, value)


def _empty(size: tuple, dtype: Any, device: Any, memory_format: Any = None) -> Tensor:
    return aten("empty.memory_format")(tuple(size), dtype=dtype, device=device, memory_format=memory_format)


# ---- zeros / ones / full / scalar_tensor ------------------------------------------------------------
@zeros.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def zeros_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    if as_device(device).type != "meta":  # zeros_symint's own check (meta goes straight to empty)
        for s in size:
            if s < 0:
                raise RuntimeError("zeros: Dimension size must be non-negative.")
    return zero_(_empty(size, dtype, device))


@zeros_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def zeros_out_kernel(size: tuple, *, out: Tensor) -> Tensor:
    resize_(out, size)
    zero_(out)
    return out


@ones.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def ones_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: Any = None) -> Tensor:
    return fill_(_empty(size, dtype, device), 1)


@ones_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def ones_out_kernel(size: tuple, *, out: Tensor) -> Tensor:
    resize_(out, size)
    fill_(out, 1)
    return out


@full.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def full_kernel(size: tuple, fill_value: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: Any = None) -> Tensor:
    if dtype is None:
        dtype = infer_dtype_from_scalar(fill_value)
    return fill_(_empty(size, dtype, device), fill_value)


@full_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def full_out_kernel(size: tuple, fill_value: Any, *, out: Tensor) -> Tensor:
    resize_(out, size)
    fill_(out, fill_value)
    return out


@scalar_tensor.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def scalar_tensor_kernel(s: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                         pin_memory: Any = None) -> Tensor:
    return fill_(_empty((), dtype, device), s)  # the default dtype, not the scalar's type


# ---- *_like: dtype/device from self, memory_format=preserve_format keeps dense strides -------------
def empty_like_impl(self: Tensor, dtype: Any = None, device: Any = None, memory_format: Any = None) -> Tensor:
    """at::empty_like's body: dense strides in self's dimension order for preserve_format (the
    kernels that call it directly, clone and _to_copy, run below ADInplaceOrView already)."""
    dtype = dtype if dtype is not None else self.dtype
    device = device if device is not None else self._device
    mf = as_memory_format(memory_format)
    if mf is None or mf is preserve_format:
        size, stride = self._size, self._stride
        if not is_non_overlapping_and_dense(size, stride):
            stride = infer_dense_strides(size, stride)
        return aten("empty_strided")(size, stride, dtype=dtype, device=device)
    return _empty(self._size, dtype, device, mf)


@empty_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def empty_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return empty_like_impl(self, dtype, device, memory_format)


def _like(self: Tensor, dtype: Any, device: Any, memory_format: Any) -> Tensor:
    return empty_like.op(self, dtype=dtype, device=device, memory_format=memory_format)


@zeros_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def zeros_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return zero_(_like(self, dtype, device, memory_format))


@ones_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def ones_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return fill_(_like(self, dtype, device, memory_format), 1)


@full_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def full_like_kernel(self: Tensor, fill_value: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return fill_(_like(self, dtype, device, memory_format), fill_value)


# ---- new_*: dtype and device inherited from self ----------------------------------------------------
def _new_options(self: Tensor, dtype: Any, device: Any) -> tuple[Any, Any]:
    return (dtype if dtype is not None else self.dtype), (device if device is not None else self._device)


@new_empty.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def new_empty_kernel(self: Tensor, size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None) -> Tensor:
    return _empty(size, *_new_options(self, dtype, device))


@new_empty_strided.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def new_empty_strided_kernel(self: Tensor, size: tuple, stride: tuple, *, dtype: Any = None, layout: Any = None,
                             device: Any = None, pin_memory: Any = None) -> Tensor:
    dtype, device = _new_options(self, dtype, device)
    return empty_strided.op(tuple(size), tuple(stride), dtype=dtype, device=device)


@new_zeros.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def new_zeros_kernel(self: Tensor, size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None) -> Tensor:
    dtype, device = _new_options(self, dtype, device)
    return zeros.op(tuple(size), dtype=dtype, device=device)


@new_ones.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def new_ones_kernel(self: Tensor, size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None) -> Tensor:
    dtype, device = _new_options(self, dtype, device)
    return ones.op(tuple(size), dtype=dtype, device=device)


@new_full.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def new_full_kernel(self: Tensor, size: tuple, fill_value: Any, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: Any = None) -> Tensor:
    dtype, device = _new_options(self, dtype, device)
    return full.op(tuple(size), fill_value, dtype=dtype, device=device)


# ---- eye ------------------------------------------------------------------------------------------
@eye.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def eye_kernel(n: int, *, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    return eye_m.op(n, n, dtype=dtype, device=device)


@eye_m.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def eye_m_kernel(n: int, m: int, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return eye_m_out.op(n, m, out=_empty((0,), dtype, device))


@eye_out.impl_backends
@runs_below_inplace_or_view
def eye_out_kernel(n: int, *, out: Tensor) -> Tensor:
    return eye_m_out.op(n, n, out=out)


@eye_m_out.impl_backends
def eye_m_out_kernel(n: int, m: int, *, out: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    resize_(out, (n, m))
    if out._device.type != "meta" and n and m:  # out.zero_(); out.diagonal().fill_(1), with the fill stub
        fill = backend(out._device.type).fill
        fill(out, dtype_scalar(out.dtype, 0))
        st = out._stride
        fill(Tensor._make(out._storage, (min(n, m),), (st[0] + st[1],), out._offset, out.dtype, out._device),
             dtype_scalar(out.dtype, 1))
    return out


# ---- wrapped numbers (ATen's ScalarOps.h) ---------------------------------------------------------------
_WRAP_DTYPES = {bool: _dt.bool, int: _dt.int64, float: _dt.float64, complex: _dt.complex128}


def numpy_scalar_value(x: np.generic) -> Any:
    """The Python number PythonArgParser's scalar_slow makes of a NumPy scalar: a NumPy integer
    unpacks as an int, but np.bool_ and np.complex64 (neither a Python bool nor a Python complex)
    unpack as a double, as in torch 2.13 (`int_tensor + np.bool_(True)` is float32; the complex64's
    imaginary part is dropped with NumPy's ComplexWarning)."""
    if isinstance(x, np.bool_) or (isinstance(x, np.complexfloating) and not isinstance(x, complex)):
        return float(x)
    return x.item()


def wrapped_scalar_tensor(x: Any) -> Tensor:
    """A Python number as a 0-dim CPU tensor that type promotion treats as a Python scalar."""
    if isinstance(x, np.generic):
        x = numpy_scalar_value(x)
    dtype = _WRAP_DTYPES[type(x)] if type(x) in _WRAP_DTYPES else _WRAP_DTYPES[
        bool if isinstance(x, bool) else int if isinstance(x, int) else float if isinstance(x, float) else complex]
    t = Tensor._make(by_device_type["cpu"].storage_from_numpy(np.array([x], dtype=dtype.numpy)), (), (), 0, dtype, CPU)
    t._is_wrapped_number = True
    return t


# ---- empty_permuted ------------------------------------------------------------------------------------
empty_permuted = declare(f"empty_permuted(SymInt[] size, int[] physical_layout, *, {_OPTS}) -> Tensor")


@empty_permuted.impl("CompositeExplicitAutograd")
def empty_permuted_kernel(size: tuple, physical_layout: tuple, *, dtype: Any = None, layout: Any = None,
                          device: Any = None, pin_memory: Any = None) -> Tensor:
    """A dense tensor of `size` whose dims lie in memory in `physical_layout` order (outermost first)."""
    dim = len(size)
    if dim != len(physical_layout):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {dim} is not equal to len(physical_layout) = {len(physical_layout)}")
    seen = [False] * dim
    for i, p in enumerate(physical_layout):
        if not 0 <= p < dim:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {dim - 1}, but got {p} at index "
                               f"{i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if seen[p]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[p] = True
    stride = [0] * dim
    acc = 1
    for p in reversed(physical_layout):
        stride[p] = acc
        acc *= max(size[p], 1)
    return aten("empty_strided")(tuple(size), tuple(stride), dtype=dtype, device=device)
