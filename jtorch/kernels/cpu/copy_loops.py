"""The CPU copy kernel behind the copy stub of copy.py: copy with dtype conversion between any two
of bool, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128, with
NumPy ``astype`` results.

Everything goes through :func:`loops.launch` (same strides/parallel machinery) with a scalar
function chosen by the pair of dtype kinds; the store into the destination converts as Numba
casts do (int<->float truncation, narrowing wraparound, ``!= 0`` for bool), which matches NumPy.
Numba cannot load or store float16 on the CPU, so float16 buffers are viewed as uint16 and
converted bit by bit here (NumPy's round-half-to-even algorithms, written without branches so
the loops still vectorize). bfloat16 buffers (jtorch's opaque 2-byte type) are viewed as uint16
too: a load is the bits shifted into a float32's high half, a store c10's round_to_nearest_even
from float32 (any other source type reaches bfloat16 through float32, as static_cast does).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from .codegen import jit_import
from .fastmath import _f32_from_bits, _f32_to_bits, _f64_to_bits
from .loops import ArrayOperand, launch

if TYPE_CHECKING:  # numba's stubs name the options' TypedDict privately (type-check only)
    from numba.core.decorators import _JITOptions

_NUMPY_MODEL: _JITOptions = {"error_model": "numpy"}
_F = np.float32
_2P24_F, _2M24_F = _F(2.0 ** 24), _F(2.0 ** -24)


@register_jitable(**_NUMPY_MODEL)
def _half_bits_to_f32(h):
    h = np.int32(h)
    e = h & 0x7C00
    m = h & 0x03FF
    neg = (h & 0x8000) != 0
    sign = np.int32(-2147483648) if neg else np.int32(0)
    normal = sign | (((h & 0x7FFF) + 0x1C000) << 13)   # rebias exponent 15 -> 127
    special = sign | 0x7F800000 | (m << 13)            # inf / nan, payload kept like NumPy
    v = _f32_from_bits(special if e == 0x7C00 else normal)
    sub = math.copysign(_F(m) * _2M24_F, _F(-1.0) if neg else _F(1.0))  # m * 2^-24: exact
    return sub if e == 0 else v


@register_jitable(**_NUMPY_MODEL)
def _f32_to_half_bits(x):
    """npy_floatbits_to_halfbits: round half to even, overflow -> inf, NaN stays NaN."""
    a = abs(x)
    f = np.int64(_f32_to_bits(a))                      # sign cleared: small positive ints
    fe = f & 0x7F800000
    fs = f & 0x007FFFFF
    rs = fs if (fs & 0x3FFF) == 0x1000 else fs + 0x1000
    h = ((fe - 0x38000000) >> 13) + (rs >> 13)         # a carry into the exponent is right
    sub = np.int64(np.rint(a * _2P24_F))               # subnormal half: exact product
    h = sub if fe <= 0x38000000 else h
    h = np.int64(0x7C00) if fe >= 0x47800000 else h    # overflow (and inf)
    nan = 0x7C00 | (fs >> 13)
    nan = np.int64(0x7C01) if nan == 0x7C00 else nan   # a NaN must not become inf
    h = nan if (fe == 0x7F800000 and fs != 0) else h
    return np.uint16(h | (0x8000 if math.copysign(_F(1.0), x) < _F(0.0) else 0))


@register_jitable(**_NUMPY_MODEL)
def _f64_to_half_bits(x):
    """npy_doublebits_to_halfbits: float64 rounds once, straight to half."""
    a = abs(x)
    d = np.int64(_f64_to_bits(a))
    de = d >> 52
    ds = d & 0x000FFFFFFFFFFFFF
    rs = ds if (ds & 0x000007FFFFFFFFFF) == 0x0000020000000000 else ds + 0x0000020000000000
    h = ((de - 1008) << 10) + (rs >> 42)
    sub = np.int64(np.rint(a * 16777216.0))
    h = sub if de <= 1008 else h
    h = np.int64(0x7C00) if de >= 1039 else h
    nan = 0x7C00 | (ds >> 42)
    nan = np.int64(0x7C01) if nan == 0x7C00 else nan
    h = nan if (de == 2047 and ds != 0) else h
    return np.uint16(h | (0x8000 if math.copysign(1.0, x) < 0.0 else 0))


@register_jitable(**_NUMPY_MODEL)
def _bf16_bits_to_f32(h):
    return _f32_from_bits(np.int32(h) << 16)


@register_jitable(**_NUMPY_MODEL)
def _f32_to_bf16_bits(x):
    """c10::round_to_nearest_even: add 0x7FFF plus the lowest kept bit, drop the low half; NaN -> 0x7FC0."""
    u = np.int64(_f32_to_bits(x)) & 0xFFFFFFFF
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.uint16(0x7FC0) if x != x else np.uint16(r)


# ---- scalar functions handed to launch (module-level defs: codegen re-emits them) ----------

@jit_import
def to_half_bits(x):
    """Stub: value of any supported dtype -> float16 bits (uint16)."""
    return np.array(x).astype(np.float16).view(np.uint16)[()]


@overload(to_half_bits, jit_options=_NUMPY_MODEL)
def _to_half_bits_ov(x):
    if isinstance(x, types.Complex):
        if x.underlying_float.bitwidth == 64:
            return lambda x: _f64_to_half_bits(x.real)
        return lambda x: _f32_to_half_bits(x.real)
    if isinstance(x, types.Float) and x.bitwidth == 64:
        return lambda x: _f64_to_half_bits(x)
    return lambda x: _f32_to_half_bits(np.float32(x))


@jit_import
def half_bits_to_float(h):
    """Stub: float16 bits (uint16) -> float32 value."""
    return np.array(h, np.uint16).view(np.float16).astype(np.float32)[()]


@overload(half_bits_to_float, jit_options=_NUMPY_MODEL)
def _half_bits_to_float_ov(h):
    return lambda h: _half_bits_to_f32(h)


def identity(x):
    return x


def real_part(x):
    return x.real


def nonzero(x):
    return x != 0


def half_to_value(h):
    return half_bits_to_float(h)


def half_nonzero(h):
    return (h & 0x7FFF) != 0


def value_to_half(x):
    return to_half_bits(x)


@jit_import
def to_bf16_bits(x):
    """Stub: value of any supported dtype -> bfloat16 bits (uint16), through float32."""
    f = np.float32(np.real(x))
    u = np.int64(f.view(np.uint32))
    return np.uint16(0x7FC0) if f != f else np.uint16((u + 0x7FFF + ((u >> 16) & 1)) >> 16)


@overload(to_bf16_bits, jit_options=_NUMPY_MODEL)
def _to_bf16_bits_ov(x):
    if isinstance(x, types.Complex):
        return lambda x: _f32_to_bf16_bits(np.float32(x.real))
    return lambda x: _f32_to_bf16_bits(np.float32(x))


@jit_import
def bf16_bits_to_float(h):
    """Stub: bfloat16 bits (uint16) -> float32 value."""
    return (np.uint32(h) << np.uint32(16)).view(np.float32)


@overload(bf16_bits_to_float, jit_options=_NUMPY_MODEL)
def _bf16_bits_to_float_ov(h):
    return lambda h: _bf16_bits_to_f32(h)


def bf16_to_value(h):
    return bf16_bits_to_float(h)


def value_to_bf16(x):
    return to_bf16_bits(x)


def bf16_to_half(h):
    return to_half_bits(bf16_bits_to_float(h))


def half_to_bf16(h):
    return to_bf16_bits(half_bits_to_float(h))


def _as_bits(op: ArrayOperand) -> ArrayOperand:
    return ArrayOperand(op.buf.view(np.uint16), op.offset, op.strides)


def copy(dst: ArrayOperand, src: ArrayOperand, shape: tuple[int, ...]) -> None:
    """``dst[...] = src[...].astype(dst.dtype)`` over `shape` (dim 0 fastest, element strides)."""
    dk, sk = dst.buf.dtype, src.buf.dtype
    if dk.kind == "V" or sk.kind == "V":  # bfloat16 on either side
        if dk == sk:
            fn, dst, src = identity, _as_bits(dst), _as_bits(src)
        elif sk.kind == "V":
            src = _as_bits(src)
            fn = half_nonzero if dk == np.bool_ else bf16_to_half if dk == np.float16 else bf16_to_value
            dst = _as_bits(dst) if dk == np.float16 else dst
        else:
            fn, dst = value_to_bf16, _as_bits(dst)
            if sk == np.float16:
                fn, src = half_to_bf16, _as_bits(src)
    elif dk == np.float16 or sk == np.float16:
        if dk == sk:
            fn, dst, src = identity, _as_bits(dst), _as_bits(src)
        elif sk == np.float16:
            fn, src = (half_nonzero if dk == np.bool_ else half_to_value), _as_bits(src)
        else:
            fn, dst = value_to_half, _as_bits(dst)
    elif sk.kind == "c" and dk.kind != "c":
        fn = nonzero if dk == np.bool_ else real_part
    elif dk == np.bool_ and sk != np.bool_:
        fn = nonzero
    else:
        fn = identity
    launch(fn, shape, [dst, src])
