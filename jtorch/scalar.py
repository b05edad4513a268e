"""c10::Scalar conversions: the one home of turning Python numbers and 0-dim values into a dtype's
value (`Scalar::to<T>()` with c10's overflow check, or a C cast that wraps) and of the C++/c10
type names PyTorch's messages use. A leaf module: dtypes and NumPy scalar types only.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import dtypes as _dt

# c10::ScalarType names, used in PyTorch's messages ("Found dtype Float but expected Long").
SCALAR_TYPE_NAME = {d: _dt._TORCH_NAMES[d._index] for d in _dt.all_dtypes}

# The C++ type names in c10::checked_convert's message ("value cannot be converted to type int8_t").
C_TYPE_NAME = {
    _dt.bool: "bool", _dt.uint8: "uint8_t", _dt.int8: "int8_t", _dt.int16: "int16_t", _dt.int32: "int",
    _dt.int64: "int64_t", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
    _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>",
    _dt.bfloat16: "c10::BFloat16", _dt.uint16: "uint16_t", _dt.uint32: "uint32_t", _dt.uint64: "uint64_t",
}

# caffe2::TypeMeta names: how a dtype prints inside some TORCH_CHECK messages ("for signed char").
TYPE_META_NAME = {
    _dt.bool: "bool", _dt.uint8: "unsigned char", _dt.int8: "signed char", _dt.int16: "short int",
    _dt.int32: "int", _dt.int64: "long int", _dt.float16: "c10::Half", _dt.float32: "float",
    _dt.float64: "double", _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>",
    _dt.bfloat16: "c10::BFloat16", _dt.uint16: "unsigned short", _dt.uint32: "unsigned int",
    _dt.uint64: "unsigned long",
}


def not_implemented(kernel: str, dtype: _dt.dtype) -> NotImplementedError:
    """AT_DISPATCH's error for a dtype a kernel has no case for."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAME[dtype]}\'')


def dtype_scalar(dtype: _dt.dtype, v: Any) -> Any:
    """v (an exact small number: 0, 1) as a NumPy scalar of dtype's values; bfloat16's are float32."""
    return np.float32(v) if dtype is _dt.bfloat16 else dtype.numpy.type(v)


def format_double(x: float) -> str:
    """A double as C++'s ostream prints it in PyTorch's messages (6 significant digits)."""
    return f"{x:g}"


def as_scalar(np_type: type, v: Any) -> Any:
    """v as a NumPy scalar of np_type, wrapping like a C cast where it does not fit
    (int8_tensor + 1000 wraps around, as torch does)."""
    try:
        return np_type(v)
    except OverflowError:
        return np.array(v).astype(np_type)[()]


class DoubleScalar(float):
    """A Scalar argument a kernel reads as a double for float32/float64 tensors (torch's
    `exp_scalar.to<double>()` in pow_tensor_scalar_kernel), narrowed to other dtypes as usual."""


def to_compute(dtype: _dt.dtype, v: Any) -> Any:
    """A numeric operator argument (alpha, clamp bounds, a tensor bound read as a number) in the
    compute dtype, so that float32 code stays float32; other values pass through."""
    if type(v) is DoubleScalar:
        return np.float64(v) if dtype in (_dt.float32, _dt.float64) else checked_scalar(dtype, float(v))
    if isinstance(v, (bool, int, float, complex)):
        return checked_scalar(dtype, v)
    if hasattr(v, "_size") and hasattr(v, "item"):  # a tensor bound (clamp.Tensor) read as a scalar
        return checked_scalar(dtype, v.item())
    return v


_INT64_MIN, _UINT64_MAX = -(2 ** 63), 2 ** 64 - 1


def checked_scalar(dtype: _dt.dtype, v: Any, name: str | None = None) -> Any:
    """`Scalar::to<T>()`: v (a Python or NumPy bool/int/float/complex) as a NumPy scalar of dtype,
    raising PyTorch's error where c10::overflows says the value does not fit. A negative integer
    into an unsigned type wraps, as in C++; doubles reach float16 through float, as
    `static_cast<c10::Half>(double)` does. An int beyond int64/uint64 cannot even be a Scalar:
    the argument parser's OverflowError. `name` replaces the C++ type name in the message (the
    Python data conversions of torch.tensor say 'int8', not 'int8_t')."""
    if isinstance(v, np.generic):
        v = v.item()
    tv = type(v)
    if tv is int:
        if v > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        if v < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
    np_type = dtype.numpy.type
    lo, hi = LIMITS[dtype]
    if dtype is _dt.bool:  # c10's conversion to bool is `!= 0`: it never overflows
        return np_type(v != 0)
    if tv is complex and not dtype.is_complex:
        if v.imag != 0:
            raise _overflow(dtype, name)
        v = v.real
        tv = float
    if lo is None:  # floating and complex: finite values beyond the type's range overflow
        if tv is complex:
            if (abs(v.real) > hi and v.real - v.real == 0) or (abs(v.imag) > hi and v.imag - v.imag == 0):
                raise _overflow(dtype, name)
        elif abs(v) > hi and v - v == 0:
            raise _overflow(dtype, name)
        if dtype is _dt.float16:
            return np.float16(np.float32(v))
        if dtype is _dt.bfloat16:  # c10::BFloat16(float(v)): the value a bfloat16 holds, as float32
            return bfloat16_round(np.float32(v))
        return np_type(v)
    if tv is float:
        if not lo <= v <= hi:  # NaN too
            raise _overflow(dtype, name)
        return np_type(int(v))
    if v > hi or (v < lo and (lo < 0 or -v > hi)):  # unsigned types take negatives down to -max
        raise _overflow(dtype, name)
    return np_type(v) if v >= 0 or lo < 0 else np_type(v + hi + 1)


# Scalar::to's range: (lowest, max) for integral types, (None, max) for floating and complex ones (of the real part).
LIMITS: dict[_dt.dtype, tuple[float | None, float]] = {d: ((0, 1) if d is _dt.bool or d is _dt.uint1 else
               (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) if not (d.is_floating_point or d.is_complex)
               else (None, _dt.finfo(d).max))
           for d in _dt.all_dtypes}


def bfloat16_round(x: Any) -> np.float32:
    """A float32 rounded to the nearest bfloat16 (ties to even, NaN kept, c10::round_to_nearest_even),
    as a float32: the value a bfloat16 holds."""
    return np.float32(bfloat16_bits_to_float32(float32_to_bfloat16_bits(np.asarray(x, np.float32)))[()])


def float32_to_bfloat16_bits(a: np.ndarray) -> np.ndarray:
    """float32 array -> its bfloat16 bit patterns (uint16), c10's round_to_nearest_even."""
    a = np.asarray(a, np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a), np.uint16(0x7FC0), r)


def bfloat16_bits_to_float32(b: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16, or jtorch's opaque 2-byte type) -> float32 values: bits << 16."""
    b = np.asarray(b)
    if b.dtype != np.uint16:
        b = b.view(np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)


def overflow_error(type_name: str) -> RuntimeError:
    """c10::checked_convert's error."""
    return RuntimeError(f"value cannot be converted to type {type_name} without overflow")


def _overflow(dtype: _dt.dtype, name: str | None = None) -> RuntimeError:
    return overflow_error(name or C_TYPE_NAME[dtype])


def unpack_long(x: Any) -> int:
    """THPUtils_unpackLong: __index__ only, int64 range."""
    v = operator.index(x)
    if not -(2 ** 63) <= v < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return v
