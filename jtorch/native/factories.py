"""Tensor factories (TensorFactories.cpp, RangeFactories.cpp, tensor_new.cpp, tensor_numpy.cpp).

Every factory is an operator: `empty` / `empty_strided` allocate (CPU and Meta kernels), the rest are
CompositeExplicitAutograd kernels that allocate through `empty` and then fill (`fill_`, `zero_`, or
a range kernel), exactly as ATen composes them; their fills run below ADInplaceOrView, so a fresh
tensor has version 0 as in PyTorch. Factories without a tensor argument pick their backend in the
BackendSelect kernel that `declare` generates from the `Device? device` argument.

`jtorch.tensor`, `as_tensor`, `from_numpy` and the legacy `jtorch.Tensor(...)` constructor are not
operators in PyTorch either (they live in the Python argument parser): they are Python functions
here that allocate through the dispatcher and write the converted data into the fresh storage.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last, preserve_format
from ..device import CPU, as_device, device as _device_cls
from ..promotion import promote_types
from ..storage import CPUStorage
from ..tensor import Size, Tensor, contiguous_strides, new_storage
from ..tls import AutoDispatchBelowADInplaceOrView
from .registry import declare

_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_EMPTY = f"SymInt[] size, *, {_OPTS}, MemoryFormat? memory_format=None"
_LIKE = f"{_OPTS}, MemoryFormat? memory_format=None"

# ---- declarations (native_functions.yaml order: the bindings try overloads in this order) ----------
empty = declare(f"empty.memory_format({_EMPTY}) -> Tensor")
empty_strided = declare(f"empty_strided(SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor")
arange = declare(f"arange(Scalar end, *, {_OPTS}) -> Tensor")
arange_start = declare(f"arange.start(Scalar start, Scalar end, *, {_OPTS}) -> Tensor")
arange_start_step = declare(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor")
arange_out = declare("arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)")
arange_start_out = declare("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)")
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
linspace = declare(f"linspace(Scalar start, Scalar end, int steps, *, {_OPTS}) -> Tensor")
linspace_tt = declare(f"linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, {_OPTS}) -> Tensor")
linspace_ts = declare(f"linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, {_OPTS}) -> Tensor")
linspace_st = declare(f"linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, {_OPTS}) -> Tensor")
linspace_out = declare("linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_tt_out = declare(
    "linspace.Tensor_Tensor_out(Tensor start, Tensor end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_ts_out = declare(
    "linspace.Tensor_Scalar_out(Tensor start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
linspace_st_out = declare(
    "linspace.Scalar_Tensor_out(Scalar start, Tensor end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
ones = declare(f"ones(SymInt[] size, *, {_OPTS}) -> Tensor")
ones_out = declare("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
ones_like = declare(f"ones_like(Tensor self, *, {_LIKE}) -> Tensor")
scalar_tensor = declare(f"scalar_tensor(Scalar s, *, {_OPTS}) -> Tensor")
zeros = declare(f"zeros(SymInt[] size, *, {_OPTS}) -> Tensor")
zeros_out = declare("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
zeros_like = declare(f"zeros_like(Tensor self, *, {_LIKE}) -> Tensor")


# ---- c10::Scalar::to<T>() and checked_convert ---------------------------------------------------------
# The C++ type names c10::checked_convert puts in its overflow message.
_CPP_NAME = {_dt.uint8: "uint8_t", _dt.int8: "int8_t", _dt.int16: "int16_t", _dt.int32: "int",
             _dt.int64: "int64_t", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
             _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>", _dt.bool: "bool"}
# caffe2::TypeMeta names (the dtype as it prints inside some TORCH_CHECK messages).
TYPEMETA_NAME = {_dt.uint8: "unsigned char", _dt.int8: "signed char", _dt.int16: "short int", _dt.int32: "int",
                 _dt.int64: "long int", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
                 _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>", _dt.bool: "bool"}
_INT_RANGE = {d: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max))
              for d in (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)}
_F32_MAX = float(np.finfo(np.float32).max)
_F64_MAX = float(np.finfo(np.float64).max)


def torch_name(d: _dt.dtype) -> str:
    """The c10 ScalarType name ('Float', 'Long', ...) that PyTorch's messages print."""
    return _dt._TORCH_NAMES[d._index]


def not_implemented(kernel: str, d: _dt.dtype) -> NotImplementedError:
    """AT_DISPATCH's error for a dtype a kernel does not handle."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{torch_name(d)}\'')


def _overflow(name: str) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {name} without overflow")


def _int_overflows(v: int, d: _dt.dtype) -> bool:
    """c10::overflows<T, int64_t>(v, strict_unsigned=false): unsigned types accept -max..max."""
    lo, hi = _INT_RANGE[d]
    if lo == 0:
        return v > hi or (v < 0 and -v > hi)
    return v < lo or v > hi


def checked_int(v: int, d: _dt.dtype, name: str) -> int:
    """An integer converted to the integral dtype d the way C++ does after the overflow check."""
    if _int_overflows(v, d):
        raise _overflow(name)
    lo, hi = _INT_RANGE[d]
    if lo == 0:
        return v & hi  # -1 -> 255: a C cast
    return v


def checked_float_to_int(f: float, d: _dt.dtype, name: str) -> int:
    """A double converted to an integral dtype: NaN and values out of range overflow; else truncation."""
    lo, hi = _INT_RANGE[d]
    if f != f or f < lo or f > hi or (d is _dt.int64 and f >= 9223372036854775808.0):
        raise _overflow(name)
    return int(f)


def scalar_to(value: Any, d: _dt.dtype) -> Any:
    """`Scalar::to<T>()`: `value` (bool/int/float/complex) as a NumPy scalar of `d`, with c10's overflow check.

    Half and bool are never checked (c10 skips them); complex values convert to real types only when
    their imaginary part is zero.
    """
    if isinstance(value, np.generic):
        value = value.item()
    name = _CPP_NAME[d]
    if d is _dt.bool:
        return np.bool_(value != 0)
    if isinstance(value, complex):
        if d.is_complex:
            if d is _dt.complex64:
                for part in (value.real, value.imag):
                    if math.isfinite(part) and abs(part) > _F32_MAX:
                        raise _overflow(name)
            return d.numpy.type(value)
        if d is not _dt.float16 and value.imag != 0:
            raise _overflow(name)
        value = value.real
    if d.is_floating_point or d.is_complex:
        f = float(value)
        if d is _dt.float32 or d is _dt.complex64:
            if math.isfinite(f) and abs(f) > _F32_MAX:
                raise _overflow(name)
        if d is _dt.float16:
            with np.errstate(over="ignore"):
                return np.float16(np.float32(f))  # at::convert<Half, double>: via float
        return d.numpy.type(f)
    if isinstance(value, float):
        return d.numpy.type(checked_float_to_int(value, d, name))
    return d.numpy.type(checked_int(int(value), d, name))


def infer_dtype_from_scalar(value: Any) -> _dt.dtype:
    """at::native::infer_full_options: the dtype `full` gives a fill value when dtype is None."""
    if isinstance(value, (bool, np.bool_)):
        return _dt.bool
    if isinstance(value, (int, np.integer)):
        return _dt.int64
    if isinstance(value, (complex, np.complexfloating)):
        return _dt.default_complex_dtype()
    return _dt.get_default_dtype()


# ---- helpers that write into fresh storage --------------------------------------------------------
def _host_view(t: Tensor) -> np.ndarray | None:
    """A NumPy view of a CPU tensor's elements; None for a meta tensor (nothing to write)."""
    if t._device.type == "meta":
        return None
    if not isinstance(t._storage, CPUStorage):
        raise NotImplementedError(f"this kernel writes CPU storage; got a {t._device.type} tensor")
    return t._numpy_view()


_op_cache: dict[tuple[str, str], Any] = {}


def _find_op(name: str, overload: str = "default") -> Any:
    """The OpOverload `aten::<name>.<overload>` (declared by another family), looked up once."""
    op = _op_cache.get((name, overload))
    if op is None:
        from .._ops import ops

        op = _op_cache[(name, overload)] = getattr(getattr(ops.aten, name), overload)
    return op


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
        return _find_op("fill_", "Scalar")(t, value)


def zero_(t: Tensor) -> Tensor:
    with below_inplace_or_view():
        return _find_op("zero_")(t)


def copy_(dst: Tensor, src: Tensor) -> Tensor:
    with below_inplace_or_view():
        return _find_op("copy_")(dst, src)


def resize_(t: Tensor, size: tuple[int, ...]) -> Tensor:
    """`t.resize_(size)` (resize_impl_cpu_): same shape keeps the strides; otherwise contiguous
    strides, and the storage grows when it is too small."""
    size = tuple(size)
    if t._size == size:
        return t
    check_size_nonnegative(size)
    n = math.prod(size)
    if n:
        t._storage.resize_(t._offset + n)
    t._size, t._stride = size, contiguous_strides(size)
    return t


# ---- empty / empty_strided -------------------------------------------------------------------------
def check_size_nonnegative(size: tuple[int, ...]) -> None:
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")


def _channels_last_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    if len(size) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = size
    return (h * w * c, 1, w * c, c)


def _storage_numel(size: tuple[int, ...], stride: tuple[int, ...]) -> int:
    if any(s == 0 for s in size):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(size, stride))


@empty.impl("CPU", "Meta")
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
        stride = _contiguous_strides(size)
    else:
        mf = as_memory_format(memory_format)
        if mf is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        stride = _channels_last_strides(size) if mf is channels_last else _contiguous_strides(size)
    storage = CPUStorage(np.empty(numel, dtype.numpy)) if dev is CPU else new_storage(numel, dtype, dev)
    return Tensor._make(storage, size, stride, 0, dtype, dev)


_STRIDES: dict[tuple, tuple] = {}


def _contiguous_strides(size: tuple) -> tuple:
    """contiguous_strides, memoised: allocation is on the hot path of every functional operator."""
    st = _STRIDES.get(size)
    if st is None:
        st = contiguous_strides(size)
        if len(_STRIDES) < 4096:
            _STRIDES[size] = st
    return st


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


def _empty(size: tuple, dtype: Any, device: Any, memory_format: Any = None) -> Tensor:
    return empty.op(tuple(size), dtype=dtype, device=device, memory_format=memory_format)


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
@empty_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def empty_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    dtype = dtype if dtype is not None else self.dtype
    device = device if device is not None else self._device
    mf = as_memory_format(memory_format)
    if mf is None or mf is preserve_format:
        from .copy import infer_dense_strides, is_non_overlapping_and_dense

        if is_non_overlapping_and_dense(self._size, self._stride):
            return empty_strided.op(self._size, self._stride, dtype=dtype, device=device)
        return empty_strided.op(self._size, infer_dense_strides(self._size, self._stride), dtype=dtype,
                                device=device)
    return _empty(self._size, dtype, device, mf)


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


@eye_out.impl("CPU", "Meta")
@runs_below_inplace_or_view
def eye_out_kernel(n: int, *, out: Tensor) -> Tensor:
    return eye_m_out.op(n, n, out=out)


@eye_m_out.impl("CPU", "Meta")
def eye_m_out_kernel(n: int, m: int, *, out: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    resize_(out, (n, m))
    view = _host_view(out)
    if view is not None:
        view[...] = 0
        k = np.arange(min(n, m))
        view[k, k] = 1
    return out


# ---- arange -----------------------------------------------------------------------------------------
# ATen's CPU range kernels use the AVX2 build of Vectorized (AVX512 is not registered for them):
# 32-byte vectors, two per iteration, and the compiler contracts `a + b * c` into fused multiply-adds.
_VEC_BYTES = 32
_GRAIN_SIZE = 32768


def _is_integral_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, np.integer, np.bool_))


def _g(x: float) -> str:
    """A double as C++'s ostream prints it (6 significant digits)."""
    return f"{x:g}"


def _to_double(v: Any) -> float:
    if isinstance(v, complex):
        if v.imag != 0:
            raise _overflow("double")
        return float(v.real)
    return float(v)


def compute_arange_size(start: Any, end: Any, step: Any, dtype: _dt.dtype) -> int:
    """compute_arange_size<scalar_t> (with arange_check_bounds)."""
    ds, de, dst = _to_double(start), _to_double(end), _to_double(step)
    if not (dst > 0 or dst < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {_g(ds)} -> {_g(de)}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is _dt.int64:
        xs, xe, xst = (int(scalar_to(v, _dt.int64)) for v in (start, end, step))
        if xst == 0:
            raise ValueError("step must be nonzero")
        sgn = (xst > 0) - (xst < 0)
        num = xe - xs + xst - sgn
        size_d = float(abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1))  # C division truncates
    else:
        size_d = math.ceil((de - ds) / dst)
    if not (size_d >= 0 and size_d <= float(2 ** 63 - 1)):
        raise RuntimeError("invalid size, possible overflow?")
    return int(size_d)


def _parallel_chunks(n: int) -> list[tuple[int, int]]:
    """at::parallel_for's split of [0, n) (OpenMP: divup(n, nthreads) per thread)."""
    if n <= _GRAIN_SIZE:
        return [(0, n)]
    import numba

    nt = min(numba.get_num_threads(), -(-n // _GRAIN_SIZE))
    cs = -(-n // nt)
    return [(b, min(n, b + cs)) for b in range(0, n, cs)]


def _arange_values(start: Any, step: Any, n: int, dtype: _dt.dtype) -> np.ndarray:
    """arange_kernel: start + step * idx in the accumulate type (double for float/double, float for
    half, int64 for integers), computed the way ATen's CPU kernel is: per parallel chunk, two
    Vectorized at a time, each `Vectorized::arange(start + step * i0, step)` (lane k holds
    `base + k * step` with `base` already rounded to the dtype), and a scalar tail."""
    if not dtype.is_floating_point:  # exact in int64; the narrowing cast wraps
        s, st = int(scalar_to(start, _dt.int64)), int(scalar_to(step, _dt.int64))
        with np.errstate(over="ignore"):
            vals = np.int64(s) + np.int64(st) * np.arange(n, dtype=np.int64)
        return vals.astype(dtype.numpy)
    if dtype is _dt.float16:  # accscalar_t is float
        s, st = scalar_to(start, _dt.float32), scalar_to(step, _dt.float32)
        acc, fma = np.float32, fma32
    else:
        s, st = _to_double(start), _to_double(step)
        acc, fma = np.float64, fma64
    v = _VEC_BYTES // dtype.itemsize
    lanes = np.arange(v, dtype=acc)
    out = np.empty(n, dtype.numpy)
    for b, e in _parallel_chunks(n):
        nv = ((e - b) // (2 * v)) * 2 * v
        if nv:
            base = fma(st, np.arange(b, b + nv, v).astype(acc), s).astype(dtype.numpy).astype(acc)
            out[b:b + nv] = fma(lanes[None, :], st, base[:, None]).reshape(-1).astype(dtype.numpy)
        out[b + nv:e] = fma(st, np.arange(b + nv, e).astype(acc), s).astype(dtype.numpy)
    return out


def _arange_dtype(dtype: Any, *scalars: Any) -> Any:
    if dtype is None and all(_is_integral_scalar(v) for v in scalars):
        return _dt.int64  # bools count as integral here
    return dtype


@arange.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_kernel(end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: Any = None) -> Tensor:
    return arange_start_step.op(0, end, 1, dtype=dtype, device=device)


@arange_start.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_start_kernel(start: Any, end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                        pin_memory: Any = None) -> Tensor:
    return arange_start_step.op(start, end, 1, dtype=dtype, device=device)


@arange_start_step.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_start_step_kernel(start: Any, end: Any, step: Any = 1, *, dtype: Any = None, layout: Any = None,
                             device: Any = None, pin_memory: Any = None) -> Tensor:
    out = _empty((0,), _arange_dtype(dtype, start, end, step), device)
    return arange_start_out.op(start, end, step, out=out)


@arange_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def arange_out_kernel(end: Any, *, out: Tensor) -> Tensor:
    return arange_start_out.op(0, end, 1, out=out)


@arange_start_out.impl("CPU", "Meta")
def arange_start_out_kernel(start: Any, end: Any, step: Any = 1, *, out: Tensor) -> Tensor:
    d = out.dtype
    if d is _dt.bool or d.is_complex:
        raise not_implemented("arange_cpu", d)
    size = compute_arange_size(start, end, step, d)
    numel = out.numel()
    if numel != size:
        if numel > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._size)} is {numel} which does not "
                f"match the computed number of elements {size}. Note that this may occur as a result of rounding "
                f"error. The out tensor will be resized to a tensor of shape ({size},).", UserWarning, stacklevel=2)
        resize_(out, (size,))
    view = _host_view(out)
    if view is not None:
        view[...] = _arange_values(start, step, size, d)
    return out


# ---- linspace ---------------------------------------------------------------------------------------
def _linspace_dtype(start: Any, end: Any, dtype: Any) -> Any:
    """linspace_logspace_infer_options."""
    if isinstance(start, complex) or isinstance(end, complex):
        default_complex = _dt.default_complex_dtype()
        if dtype is not None:
            if not dtype.is_complex:
                raise RuntimeError(f"torch.linspace(): inferred dtype {_CPP_NAME[default_complex]} can't be safely "
                                   f"cast to passed dtype {torch_name(dtype)}")
            return dtype
        return default_complex
    return dtype


def _linspace_values(start: Any, end: Any, steps: int, d: _dt.dtype) -> np.ndarray:
    """linspace_kernel: fill from both ends (start + step*i below steps/2, end - step*(steps-1-i)
    above), step computed in the dtype (double for integers); fused multiply-adds as compiled."""
    halfway = steps // 2
    idx = np.arange(steps, dtype=np.int64)
    lo, hi = idx[:halfway], (steps - idx[halfway:] - 1)
    if not (d.is_floating_point or d.is_complex):  # step_t = double, results truncated
        s, e = int(scalar_to(start, d)), int(scalar_to(end, d))
        step = (float(e) - float(s)) / (steps - 1)
        vals = np.concatenate([fma64(step, lo.astype(np.float64), float(s)),
                               fma64(-step, hi.astype(np.float64), float(e))])
        with np.errstate(invalid="ignore"):
            return np.trunc(vals).astype(np.int64).astype(d.numpy)
    s, e = scalar_to(start, d), scalar_to(end, d)
    t = d.numpy.type
    with np.errstate(all="ignore"):
        if d is _dt.float16:  # c10::Half operators: each one computed in float and rounded to half
            f, h = np.float32, np.float16

            def as_half(i: np.ndarray) -> np.ndarray:  # static_cast<Half>(int64): through float
                return i.astype(f).astype(h).astype(f)

            step = h(f(e - s) / f(h(f(steps - 1))))
            a = (f(s) + (f(step) * as_half(lo)).astype(h).astype(f)).astype(h)
            b = (f(e) - (f(step) * as_half(hi)).astype(h).astype(f)).astype(h)
            return np.concatenate([a, b])
        if d.is_complex:  # complex / and * by an integer scale both parts: one fma per part
            r = d.to_real()
            n1 = r.numpy.type(steps - 1)
            step_re, step_im = (e.real - s.real) / n1, (e.imag - s.imag) / n1
            fma = fma32 if r is _dt.float32 else fma64
            out = np.empty(steps, d.numpy)
            lo_f, hi_f = lo.astype(r.numpy), hi.astype(r.numpy)
            out.real = np.concatenate([fma(step_re, lo_f, s.real), fma(-step_re, hi_f, e.real)])
            out.imag = np.concatenate([fma(step_im, lo_f, s.imag), fma(-step_im, hi_f, e.imag)])
            return out
        step = (e - s) / t(steps - 1)
        fma = fma32 if d is _dt.float32 else fma64
        return np.concatenate([fma(step, lo.astype(t), s), fma(-step, hi.astype(t), e)]).astype(d.numpy)


@linspace.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_kernel(start: Any, end: Any, steps: int, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = _empty((steps,), _linspace_dtype(start, end, dtype), device)
    return linspace_out.op(start, end, steps, out=out)


@linspace_out.impl("CPU", "Meta")
def linspace_out_kernel(start: Any, end: Any, steps: int, *, out: Tensor) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out.numel() != steps:
        resize_(out, (steps,))
    if out._device.type == "meta" or steps == 0:
        return out
    if steps == 1:
        return fill_(out, start)
    d = out.dtype
    if d is _dt.bool:
        raise not_implemented("linspace_cpu", d)
    view = _host_view(out)
    view[...] = _linspace_values(start, end, steps, d)
    return out


def _zero_dim_item(start: Tensor | None, end: Tensor | None) -> None:
    if start is not None and end is not None:
        if start.dim() != 0 or end.dim() != 0:
            raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got start with "
                               f"{start.dim()} dimension(s) and end with {end.dim()} dimension(s).")
    elif start is not None and start.dim() != 0:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got start with "
                           f"{start.dim()} dimension(s).")
    elif end is not None and end.dim() != 0:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but got end with "
                           f"{end.dim()} dimension(s).")


@linspace_tt.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_tt_kernel(start: Tensor, end: Tensor, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(start, end)
    return linspace.op(start.item(), end.item(), steps, dtype=dtype, device=device)


@linspace_ts.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_ts_kernel(start: Tensor, end: Any, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(start, None)
    return linspace.op(start.item(), end, steps, dtype=dtype, device=device)


@linspace_st.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_st_kernel(start: Any, end: Tensor, steps: int, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    _zero_dim_item(None, end)
    return linspace.op(start, end.item(), steps, dtype=dtype, device=device)


@linspace_tt_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_tt_out_kernel(start: Tensor, end: Tensor, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(start, end)
    return linspace_out.op(start.item(), end.item(), steps, out=out)


@linspace_ts_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_ts_out_kernel(start: Tensor, end: Any, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(start, None)
    return linspace_out.op(start.item(), end, steps, out=out)


@linspace_st_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def linspace_st_out_kernel(start: Any, end: Tensor, steps: int, *, out: Tensor) -> Tensor:
    _zero_dim_item(None, end)
    return linspace_out.op(start, end.item(), steps, out=out)


# ---- fused multiply-add, exactly rounded, on NumPy arrays (the C++ kernels' contracted a*b+c) -------
_SPLIT = 134217729.0  # 2**27 + 1 (Dekker)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RO(x + y) for an exact pair (x = RN(x + y)): x itself, or its neighbour toward y when x is even."""
    odd = (x.view(np.int64) & 1) == 1
    return np.where((y == 0) | odd, x, np.nextafter(x, np.where(y > 0, np.inf, -np.inf)))


def fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c in float64 with one rounding: Boldo and Melquiond's emulated FMA (exact product,
    exact sum, the small terms rounded to odd). Operands where the error-free transformations
    underflow or overflow are computed exactly with rationals."""
    a, b, c = np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a, b)  # on the operands' own shapes: broadcasting happens in the sums
        th, tl = _two_sum(c, uh)
        x, y = _two_sum(tl, ul)
        r = th + _round_to_odd(x, y)
        hard = (np.abs(uh) < 2.0 ** -968) & (uh != 0) | (np.abs(a) > 2.0 ** 995) | (np.abs(b) > 2.0 ** 995)
        hard = np.broadcast_to(hard, r.shape) | ~np.isfinite(r)
    if hard.any():
        from fractions import Fraction

        r = np.array(r, copy=True)
        ab, bb, cb = np.broadcast_arrays(a, b, c)
        for i in zip(*np.nonzero(hard)):
            av, bv, cv = float(ab[i]), float(bb[i]), float(cb[i])
            if math.isfinite(av) and math.isfinite(bv) and math.isfinite(cv):
                try:
                    r[i] = float(Fraction(av) * Fraction(bv) + Fraction(cv))
                except OverflowError:
                    r[i] = av * bv + cv
            else:
                r[i] = av * bv + cv
    return r


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c for float32 operands with one rounding to float32: the product is exact in float64,
    the sum is rounded to odd in float64 (two spare bits at least), then rounded to float32."""
    a64, b64, c64 = (np.asarray(x, np.float32).astype(np.float64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        s, t = _two_sum(a64 * b64, c64)
        return _round_to_odd(s, t).astype(np.float32)


# ---- jtorch.tensor / as_tensor / from_numpy (tensor_new.cpp, tensor_numpy.cpp) -------------------------
_MAX_DIMS = 128
_warned_not_writable = False


def _tp_name(x: Any) -> str:
    """Py_TYPE(x)->tp_name: builtins bare, extension types with their module ('numpy.float64')."""
    t = type(x)
    mod = t.__module__
    return t.__name__ if mod == "builtins" else f"{mod}.{t.__name__}"


def _is_sequence(x: Any) -> bool:
    """PySequence_Check for the objects tensor data can hold."""
    if isinstance(x, (list, tuple, range, str, bytes, np.ndarray)):
        return True
    if isinstance(x, (dict, np.generic, Tensor)):
        return isinstance(x, Tensor)
    t = type(x)
    return hasattr(t, "__getitem__") and hasattr(t, "__len__")


def _compute_sizes(seq: Any) -> list[int]:
    sizes: list[int] = []
    while _is_sequence(seq) and not isinstance(seq, Tensor):
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if n == 0:
            break
        seq = seq[0]
    return sizes


_PY_NUMBERS = frozenset({bool, int, float, complex})


def infer_scalar_type(obj: Any) -> _dt.dtype:
    """torch::utils::infer_scalar_type: bool -> bool, int -> int64, float -> the default dtype,
    complex -> the default complex dtype, tensors and NumPy values keep theirs; sequences promote."""
    if isinstance(obj, (np.generic, np.ndarray)):
        return _dt.from_numpy_dtype(obj.dtype)
    if isinstance(obj, float):
        return _dt.get_default_dtype()
    if isinstance(obj, bool):
        return _dt.bool
    if isinstance(obj, int):
        return _dt.int64
    if isinstance(obj, complex):
        return _dt.default_complex_dtype()
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return _dt.get_default_dtype()
        kinds = set(map(type, obj))
        if kinds <= _PY_NUMBERS:  # the common case, without a call per item
            if complex in kinds:
                return _dt.default_complex_dtype()
            if float in kinds:
                return _dt.get_default_dtype()
            return _dt.int64 if int in kinds else _dt.bool
        result = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = infer_scalar_type(item)
            result = d if result is None else promote_types(result, d)
            if result is _dt.complex128:  # nothing can change it any more
                return result
        return result
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _flatten(obj: Any, sizes: list[int], dim: int, out: list) -> None:
    """recursive_store's walk: collect the leaves in C order, checking every sequence length."""
    n = sizes[dim]
    if isinstance(obj, (list, tuple)):
        seq = obj
    else:
        try:
            seq = list(obj)
        except TypeError:
            raise TypeError("not a sequence") from None
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    if dim == len(sizes) - 1:
        out.extend(seq)
    elif dim == len(sizes) - 2:  # rows of leaves: inline, no call per row
        m = sizes[-1]
        for item in seq:
            if type(item) is not list and type(item) is not tuple:
                try:
                    item = list(item)
                except TypeError:
                    raise TypeError("not a sequence") from None
            if len(item) != m:
                raise ValueError(f"expected sequence of length {m} at dim {dim + 1} (got {len(item)})")
            out.extend(item)
    else:
        for item in seq:
            _flatten(item, sizes, dim + 1, out)


def _store_walk(obj: Any, sizes: list[int], dim: int, d: _dt.dtype) -> None:
    """recursive_store without the storing: the checks in PyTorch's order (slow; errors only)."""
    if dim == len(sizes):
        _store_scalar(obj, d)
        return
    n = sizes[dim]
    try:
        seq = obj if isinstance(obj, (list, tuple)) else list(obj)
    except TypeError:
        raise TypeError("not a sequence") from None
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    for item in seq:
        _store_walk(item, sizes, dim + 1, d)


_INT_NAMES = {_dt.uint8: "uint8", _dt.int8: "int8", _dt.int16: "int16", _dt.int32: "int32", _dt.int64: "int64"}


def _unpack_long(x: Any) -> int:
    """THPUtils_unpackLong: __index__ only, int64 range."""
    v = operator.index(x)
    if not -(2 ** 63) <= v < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return v


def _unpack_double(x: Any) -> float:
    """THPUtils_unpackDouble (PyFloat_AsDouble)."""
    if isinstance(x, float):
        return float(x)
    if type(x) is complex or isinstance(x, (str, bytes)):  # NumPy complex scalars have __float__
        raise TypeError(f"must be real number, not {type(x).__name__}")
    try:
        return float(x)
    except TypeError:
        raise TypeError(f"must be real number, not {type(x).__name__}") from None


def _store_scalar(x: Any, d: _dt.dtype) -> Any:
    """torch::utils::store_scalar for one leaf: the Python value to put in a `d` array."""
    if d is _dt.bool:  # THPUtils_unpackNumberAsBool: an int64 overflow still means True
        if isinstance(x, (float, complex, np.bool_)):
            return bool(x != 0)
        return operator.index(x) != 0
    if d.is_complex:  # PyComplex_AsCComplex
        if not isinstance(x, (str, bytes)):
            try:
                return complex(x)
            except TypeError:
                pass
        raise TypeError(f"must be real number, not {type(x).__name__}")
    if d.is_floating_point:
        return _unpack_double(x)
    name = _INT_NAMES[d]
    if isinstance(x, float):  # PyFloat_Check: Python floats and np.float64
        return checked_float_to_int(float(x), d, name)
    return checked_int(_unpack_long(x), d, name)


def _leaves_to_array(leaves: list, d: _dt.dtype) -> np.ndarray:
    """The leaves converted to a flat array of `d` with store_scalar's checks (vectorized for the
    common homogeneous cases, per element otherwise)."""
    if not leaves:
        return np.empty(0, d.numpy)
    kinds = set(map(type, leaves))
    try:
        if d.is_floating_point and kinds <= {float, int, bool}:
            arr = np.array(leaves, dtype=np.float64)
            with np.errstate(over="ignore"):
                return arr.astype(np.float32).astype(d.numpy) if d is _dt.float16 else arr.astype(d.numpy)
        if d.is_complex and kinds <= {float, int, bool, complex}:
            with np.errstate(over="ignore"):
                return np.array(leaves, dtype=np.complex128).astype(d.numpy)
        if d is _dt.bool and kinds <= {float, int, bool, complex}:
            return np.array([v != 0 for v in leaves], dtype=np.bool_)
        if d in _INT_NAMES and kinds <= {int, bool}:
            arr = np.array(leaves, dtype=np.int64)
            lo, hi = _INT_RANGE[d]
            bad = ((arr > hi) | (arr < -hi)) if lo == 0 else ((arr < lo) | (arr > hi))
            if bad.any():
                raise _overflow(_INT_NAMES[d])
            return arr.astype(d.numpy)
        if d in _INT_NAMES and kinds <= {float}:
            arr = np.array(leaves, dtype=np.float64)
            lo, hi = _INT_RANGE[d]
            bad = np.isnan(arr) | (arr < lo) | (arr > hi)
            if d is _dt.int64:
                bad |= arr >= 9223372036854775808.0
            if bad.any():
                raise _overflow(_INT_NAMES[d])
            return np.trunc(arr).astype(np.int64).astype(d.numpy)
    except OverflowError:
        pass  # a Python int beyond int64: the slow path raises PyTorch's error
    vals = [_store_scalar(x, d) for x in leaves]
    if d is _dt.float16:
        with np.errstate(over="ignore"):
            return np.array(vals, dtype=np.float64).astype(np.float32).astype(np.float16)
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=d.numpy if not d.is_complex else np.complex128).astype(d.numpy)


def _cpu_tensor_from_array(arr: np.ndarray, size: tuple, dtype: _dt.dtype) -> Tensor:
    """A fresh CPU tensor through `empty`, its storage filled with `arr` (C order)."""
    t = _empty(size, dtype, CPU)
    if arr.size:
        t._storage.data[:] = arr.reshape(-1)
    return t


def _to_device_copy(src: Tensor, dtype: _dt.dtype, device: _device_cls, copy: bool) -> Tensor:
    """`src.to(device, dtype, copy=copy)` keeping dense strides (what tensor()/as_tensor() do)."""
    if not copy and src.dtype is dtype and src._device == device:
        return src
    out = empty_like.op(src, dtype=dtype, device=device)
    if device.type != "meta":
        copy_(out, src)
    return out


def _internal_new_from_data(data: Any, dtype: Any, device: Any, *, infer: bool, copy_variables: bool,
                            copy_numpy: bool, warn_name: str | None = "torch.tensor") -> Tensor:
    """torch::utils::internal_new_from_data."""
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    dev = as_device(device) if device is not None else None
    if isinstance(data, Tensor):
        if copy_variables and warn_name:
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                f"sourceTensor.detach().clone().requires_grad_(True), rather than {warn_name}(sourceTensor).",
                UserWarning, stacklevel=3)
        src = data.detach()
        d = dtype if dtype is not None else data.dtype
        return _to_device_copy(src, d, dev if dev is not None else data._device, copy_variables)
    if isinstance(data, np.ndarray):
        src = _from_numpy(data, warn_if_not_writeable=not copy_numpy)
        d = dtype if dtype is not None else src.dtype
        return _to_device_copy(src, d, dev if dev is not None else CPU, copy_numpy)
    sizes = _compute_sizes(data)
    infer = infer and dtype is None
    leaves: list = []
    if sizes and 0 in sizes:  # nothing to store: PyTorch never walks the data
        leaves = [data]
    elif sizes:
        try:
            _flatten(data, sizes, 0, leaves)
        except (TypeError, ValueError):
            # PyTorch infers the dtype first, then stores depth first: report the error it meets first
            d = infer_scalar_type(data) if infer else (dtype or _dt.get_default_dtype())
            _store_walk(data, sizes, 0, d)
            raise
    else:
        leaves.append(data)
    # promoting over the leaves is promoting over the nested sequences (promote_types is associative)
    d = infer_scalar_type(leaves) if infer else (dtype or _dt.get_default_dtype())
    if sizes and 0 in sizes:
        leaves = []
    dev = dev if dev is not None else CPU
    if dev.type == "meta":
        return _empty(tuple(sizes), d, dev)
    t = _cpu_tensor_from_array(_leaves_to_array(leaves, d), tuple(sizes), d)
    return t if dev.type == "cpu" else _to_device_copy(t, d, dev, True)


def _set_requires_grad(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def tensor(data: Any, dtype: _dt.dtype | None = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """`jtorch.tensor(data)`: a new tensor holding a copy of `data` (nested sequences of numbers,
    NumPy arrays and scalars, tensors). The dtype is inferred as PyTorch does when not given."""
    t = _internal_new_from_data(data, dtype, device, infer=True, copy_variables=True, copy_numpy=True)
    return _set_requires_grad(t, requires_grad)


def as_tensor(data: Any, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """`jtorch.as_tensor(data)`: shares memory with a tensor or NumPy array when dtype and device
    already match; copies otherwise."""
    if isinstance(data, Tensor):
        d = dtype if dtype is not None else data.dtype
        dev = as_device(device) if device is not None else data._device
        return _to_device_copy(data, d, dev, False)
    return _internal_new_from_data(data, dtype, device, infer=True, copy_variables=False, copy_numpy=False)


def _from_numpy(arr: Any, warn_if_not_writeable: bool = True) -> Tensor:
    """tensor_from_numpy: a CPU tensor sharing the array's memory, with the array's strides."""
    global _warned_not_writable
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_tp_name(arr)})")
    if not arr.flags.writeable and warn_if_not_writeable and not _warned_not_writable:
        _warned_not_writable = True
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
            "writing to this tensor will result in undefined behavior. You may want to copy the array to protect "
            "its data or make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.", UserWarning, stacklevel=3)
    itemsize = arr.itemsize
    strides = []
    for s in arr.strides:
        if itemsize == 0 or s % itemsize != 0:
            raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                             "array to reallocate the memory.")
        strides.append(s // itemsize)
    if any(s < 0 for s in strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    dtype = _dt.from_numpy_dtype(arr.dtype)
    size = tuple(int(s) for s in arr.shape)
    stride = tuple(strides)
    n = _storage_numel(size, stride)
    if n:
        # a flat view of every element the strides reach: writes go to the array's memory
        flat = np.lib.stride_tricks.as_strided(arr, shape=(n,), strides=(itemsize,)).view(dtype.numpy)
    else:
        flat = np.empty(0, dtype.numpy)
    return Tensor._make(CPUStorage(flat), size, stride, 0, dtype, CPU)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """`jtorch.from_numpy(a)`: a tensor that shares `a`'s memory and strides (no copy)."""
    return _from_numpy(ndarray)


# ---- Tensor.new_tensor and the legacy constructor (python_variable_methods.cpp, tensor_new.cpp) ------
def new_tensor(self: Tensor, data: Any, dtype: _dt.dtype | None = None, device: Any = None,
               requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """`t.new_tensor(data)`: like jtorch.tensor, with t's dtype and device unless given (no inference)."""
    d = dtype if dtype is not None else self.dtype
    dev = device if device is not None else self._device
    t = _internal_new_from_data(data, d, dev, infer=False, copy_variables=True, copy_numpy=True,
                                warn_name="tensor.new_tensor")
    return _set_requires_grad(t, requires_grad)


Tensor.new_tensor = new_tensor  # a Python-level method in PyTorch too (not an operator)

_LEGACY_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                      " * (tuple of ints size, *, torch.device device = None)\n"
                      " * (object data, *, torch.device device = None)\n")


def _legacy_no_match(args: tuple, kwargs: dict) -> TypeError:
    from ..bindings import _type_name

    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    return TypeError(f"new() received an invalid combination of arguments - got ({', '.join(got)}), "
                     f"but expected one of:\n{_LEGACY_SIGNATURES}")


def legacy_constructor(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """`jtorch.Tensor(data)` / `jtorch.Tensor(*sizes)` / `jtorch.Tensor()`: the default dtype, CPU only."""
    unknown = {k: v for k, v in kwargs.items() if k != "device"}
    if unknown:
        raise _legacy_no_match(args, kwargs)
    device = kwargs.get("device")
    if device is not None:
        d = as_device(device)
        if d.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {d.type} was passed")
    dtype = _dt.get_default_dtype()
    if not args:
        return _empty((0,), dtype, CPU)
    a = args[0]
    if len(args) == 1:
        if isinstance(a, Tensor):
            if kwargs:
                raise _legacy_no_match(args, kwargs)
            return Tensor._make(a._storage, a._size, a._stride, a._offset, a.dtype, a._device, a._vc)
        if isinstance(a, Size):
            return _empty(tuple(a), dtype, CPU)
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            return _empty((int(a),), dtype, CPU)
        if isinstance(a, str):
            raise TypeError(f"new(): invalid data type '{type(a).__name__}'")
        if not _is_sequence(a):
            raise TypeError(f"new(): data must be a sequence (got {_tp_name(a)})")
        return _internal_new_from_data(a, dtype, CPU, infer=False, copy_variables=True, copy_numpy=True,
                                       warn_name=None)
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        for i, x in enumerate(args):
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(x).__name__}\"")
        return _empty(tuple(int(x) for x in args), dtype, CPU)
    raise _legacy_no_match(args, kwargs)


# ---- wrapped numbers and unpickling ------------------------------------------------------------------
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


def _rebuild_tensor(values: np.ndarray, device: str, requires_grad: bool) -> Tensor:
    dev = as_device(device)
    t = from_numpy(values) if dev.type == "cpu" else tensor(values, device=dev)
    t.requires_grad = requires_grad
    return t
