"""Vectorizable float32 exp / log / tanh / sigmoid: the CPU's implementations of jmath's.

pip's llvmlite has no SVML, so ``math.exp`` inside a Numba loop is a scalar libm call per
element (6x slower than NumPy's SIMD exp on float32).  These are written with plain
arithmetic, selects and bit-casts only (range reduction + polynomial, no libm calls, no
branches that survive if-conversion), so LLVM vectorizes the loops that call them.

Scalar functions call ``jmath.exp`` (or ``jmath.log``, ``tanh``, ``sigmoid``); the CPU back end
runs the versions here for float32 (max error under 2 ulp over all float32 inputs, see
tests/test_kernels_cpu.py) and ``math``/``cmath`` (~1 ulp) for other types: see mathimpl.py.
``fastmath.exp`` etc. are jmath's stubs, re-exported for existing callers.  The bit-cast
intrinsics are CPU-specific LLVM (copy.py uses them for float16 too).
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, register_jitable

from ..jmath import exp, log, sigmoid, tanh  # noqa: F401  (re-exported)

_NUMPY_MODEL = {"error_model": "numpy"}


@intrinsic
def _f32_from_bits(typingctx, bits):
    """Reinterpret an int32 as a float32 (LLVM bitcast: vectorizes, unlike an array view)."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.int32)
        return builder.bitcast(v, ir.FloatType())

    return types.float32(bits), codegen


@intrinsic
def _f32_to_bits(typingctx, x):
    """Reinterpret a float32 as an int32."""
    if not isinstance(x, types.Float):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.float32)
        return builder.bitcast(v, ir.IntType(32))

    return types.int32(x), codegen


@intrinsic
def _f64_to_bits(typingctx, x):
    """Reinterpret a float64 as an int64."""
    if not isinstance(x, types.Float):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.float64)
        return builder.bitcast(v, ir.IntType(64))

    return types.int64(x), codegen


# Constants are float32 globals: a bare Python float literal would turn float32 code float64.
_F = np.float32
_ZERO, _HALF, _ONE, _TWO = _F(0.0), _F(0.5), _F(1.0), _F(2.0)

# exp (Cephes expf): n = round(x / ln2), r = x - n ln2 in two parts (n * _C1 is exact),
# exp(r) by a degree-6 polynomial, 2^n built in the exponent field.  2^n is applied as two
# factors 2^(n>>1) * 2^(n-(n>>1)): each is a normal float, so results down to the smallest
# subnormal and up to overflow come out with one rounding.
_LOG2E = _F(1.44269504088896341)
_C1, _C2 = _F(0.693359375), _F(-2.12194440e-4)
_P0, _P1, _P2 = _F(1.9875691500e-4), _F(1.3981999507e-3), _F(8.3334519073e-3)
_P3, _P4, _P5 = _F(4.1665795894e-2), _F(1.6666665459e-1), _F(5.0000001201e-1)
_EXP_HI, _EXP_LO = _F(88.8), _F(-104.0)  # beyond: inf / 0 fall out of the arithmetic


@register_jitable(**_NUMPY_MODEL)
def exp_f32(x):
    xc = _EXP_HI if x > _EXP_HI else x
    xc = _EXP_LO if xc < _EXP_LO else xc
    xc = _ZERO if xc != xc else xc  # NaN must not reach the int conversion
    z = np.floor(xc * _LOG2E + _HALF)
    r = xc - z * _C1
    r = r - z * _C2
    p = _P0 * r + _P1
    p = p * r + _P2
    p = p * r + _P3
    p = p * r + _P4
    p = p * r + _P5
    p = p * (r * r) + r + _ONE
    n = np.int32(z)
    n1 = n >> 1
    y = p * _f32_from_bits((n1 + 127) << 23) * _f32_from_bits((n - n1 + 127) << 23)
    return x if x != x else y


# tanh (Cephes tanhf): odd polynomial below 0.625, else 1 - 2 / (exp(2|x|) + 1).
_T0, _T1, _T2 = _F(-5.70498872745e-3), _F(2.06390887954e-2), _F(-5.37397155531e-2)
_T3, _T4 = _F(1.33314422036e-1), _F(-3.33332819422e-1)
_TANH_SPLIT, _TANH_ONE = _F(0.625), _F(10.0)  # tanh(10) rounds to 1 in float32


@register_jitable(**_NUMPY_MODEL)
def tanh_f32(x):
    a = abs(x)
    ac = _TANH_ONE if a > _TANH_ONE else a
    big = _ONE - _TWO / (exp_f32(ac + ac) + _ONE)
    z = x * x
    p = _T0 * z + _T1
    p = p * z + _T2
    p = p * z + _T3
    p = p * z + _T4
    small = a + a * z * p
    t = small if a < _TANH_SPLIT else big
    # NaN propagates through both branches.  (A select on the sign, or a final NaN select,
    # stops LLVM from if-converting this function: 12 ms -> 150 ms for 16M elements.)
    return math.copysign(t, x)


# sigmoid: with e = exp(-|x|) <= 1 (no overflow), 1 / (1 + e) for x >= 0, e / (1 + e) below;
# the float32 exp feeds a float64 tail so its rounding errors are not compounded.
@register_jitable(**_NUMPY_MODEL)
def sigmoid_f32(x):
    e = np.float64(exp_f32(-abs(x)))
    r = 1.0 / (1.0 + e)
    s = r if x >= _ZERO else e * r
    return np.float32(s)  # NaN propagates through exp


# log (Cephes logf): x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1, log(1 + f) by a
# degree-9 polynomial; e ln2 added in two parts.  Subnormals are scaled by 2^23 first.
_L0, _L1, _L2 = _F(7.0376836292e-2), _F(-1.1514610310e-1), _F(1.1676998740e-1)
_L3, _L4, _L5 = _F(-1.2420140846e-1), _F(1.4249322787e-1), _F(-1.6668057665e-1)
_L6, _L7, _L8 = _F(2.0000714765e-1), _F(-2.4999993993e-1), _F(3.3333331174e-1)
_FLT_MIN, _TWO23, _SQRTHF = _F(1.17549435e-38), _F(8388608.0), _F(0.707106781186547524)
_INF, _NAN = _F(np.inf), _F(np.nan)


@register_jitable(**_NUMPY_MODEL)
def log_f32(x):
    sub = x < _FLT_MIN
    xs = x * _TWO23 if sub else x
    bits = _f32_to_bits(xs)
    e = ((bits >> 23) & 0xFF) - 126
    e = e - 23 if sub else e
    m = _f32_from_bits((bits & 0x007FFFFF) | 0x3F000000)  # in [0.5, 1)
    lo = m < _SQRTHF
    e = e - 1 if lo else e
    f = (m + m - _ONE) if lo else (m - _ONE)
    z = f * f
    y = _L0 * f + _L1
    y = y * f + _L2
    y = y * f + _L3
    y = y * f + _L4
    y = y * f + _L5
    y = y * f + _L6
    y = y * f + _L7
    y = y * f + _L8
    y = y * f * z
    ef = _F(e)
    y = y + ef * _C2 - _HALF * z
    r = f + y + ef * _C1
    r = r + (x - x)                       # NaN stays NaN (and inf -> NaN, fixed next)
    r = _INF if x == _INF else r
    r = -_INF if x == _ZERO else r
    return _NAN if x < _ZERO else r
