"""c10::Scalar conversions: the one home of turning Python numbers and 0-dim values into a dtype's
value (`Scalar::to<T>()` with c10's overflow check, or a C cast that wraps) and of the C++/c10
type names PyTorch's messages use. A leaf module: dtypes and NumPy scalar types only.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt

# c10::ScalarType names, used in PyTorch's messages ("Found dtype Float but expected Long").
SCALAR_TYPE_NAME = {
    _dt.bool: "Bool", _dt.uint8: "Byte", _dt.int8: "Char", _dt.int16: "Short", _dt.int32: "Int",
    _dt.int64: "Long", _dt.float16: "Half", _dt.float32: "Float", _dt.float64: "Double",
    _dt.complex64: "ComplexFloat", _dt.complex128: "ComplexDouble",
}


def as_scalar(np_type: type, v: Any) -> Any:
    """v as a NumPy scalar of np_type, wrapping like a C cast where it does not fit
    (int8_tensor + 1000 wraps around, as torch does)."""
    try:
        return np_type(v)
    except OverflowError:
        return np.array(v).astype(np_type)[()]


def to_compute(dtype: _dt.dtype, v: Any) -> Any:
    """A numeric operator argument (alpha, clamp bounds, a tensor bound read as a number) in the
    compute dtype, so that float32 code stays float32; other values pass through."""
    if isinstance(v, (bool, int, float, complex)):
        return checked_scalar(dtype, v)
    if hasattr(v, "_size") and hasattr(v, "item"):  # a tensor bound (clamp.Tensor) read as a scalar
        return checked_scalar(dtype, v.item())
    return v


# The C++ type names in c10::checked_convert's message ("value cannot be converted to type int8_t").
_C_TYPE_NAME = {
    _dt.bool: "bool", _dt.uint8: "uint8_t", _dt.int8: "int8_t", _dt.int16: "int16_t", _dt.int32: "int",
    _dt.int64: "int64_t", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
    _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>",
}


def checked_scalar(dtype: _dt.dtype, v: "bool | int | float | complex") -> Any:
    """`Scalar::to<T>()`: v as a NumPy scalar of dtype, raising PyTorch's error where c10::overflows
    says the value does not fit (a negative integer into an unsigned type wraps, as in C++)."""
    np_type = dtype.numpy.type
    lo, hi = _LIMITS[dtype]
    if dtype is _dt.bool:  # c10's conversion to bool is `!= 0`: it never overflows
        return np_type(v != 0)
    if type(v) is complex:
        if not dtype.is_complex:
            if v.imag != 0:
                raise _overflow(dtype)
            v = v.real
    if lo is None:  # floating and complex: finite values beyond the type's range overflow
        if type(v) is complex:
            if (abs(v.real) > hi and v.real - v.real == 0) or (abs(v.imag) > hi and v.imag - v.imag == 0):
                raise _overflow(dtype)
        elif abs(v) > hi and v - v == 0:
            raise _overflow(dtype)
        return np_type(v)
    if type(v) is float:
        if not lo <= v <= hi:  # NaN too
            raise _overflow(dtype)
        return np_type(int(v))
    if v > hi or (v < lo and (lo < 0 or -v > hi)):  # unsigned types take negatives down to -max
        raise _overflow(dtype)
    return np_type(v) if v >= 0 or lo < 0 else np_type(v + hi + 1)


# (lowest, max) for integral types, (None, max) for floating and complex ones (of the real part).
_LIMITS = {d: ((0, 1) if d is _dt.bool else
               (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) if not (d.is_floating_point or d.is_complex)
               else (None, float(np.finfo(d.numpy).max)))
           for d in _dt.all_dtypes}


def _overflow(dtype: _dt.dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {_C_TYPE_NAME[dtype]} without overflow")
