"""Scalar functions of the unary operators (one per operator); see scalar_binary.py for the rules.

Each function takes one value in the compute dtype the TensorIterator chose (bool, an integer
type, float32, float64, complex64 or complex128; float16 is computed in float32) and returns the
result. Where an operator's formula depends on the type (an integer floor is the value itself,
complex log1p needs its own formula), the branch is a type-dispatching `@overload` below, chosen
once at compile time, so that one scalar function still serves every dtype.

float32 exp / tanh / sigmoid use jtorch.kernels.cpu.fastmath (vectorizable, within 2 ulp);
the other functions use NumPy's ufuncs, which Numba lowers to libm calls per type (float32
`sinf`, float64 `sin`, complex formulas from npymath) as `math`/`cmath` do.
"""
import cmath
import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from .cpu import fastmath
from .cpu.codegen import jit_import

_NUMPY_MODEL = {"error_model": "numpy"}
_SQRT1_2 = 0.7071067811865476                 # M_SQRT1_2
_SQRT_2_OVER_PI = 0.7978845608028654          # M_SQRT2 * M_2_SQRTPI * 0.5
_GELU_TANH_C = 0.044715


# ---- type-dispatching helpers (imported by generated kernels, never re-emitted) ---------------

@jit_import
def like(x, v):
    """v in x's type (x's real type when x is complex): keeps float32 code in float32."""
    return v


@overload(like, jit_options=_NUMPY_MODEL)
def _like_ov(x, v):
    ty = x.underlying_float if isinstance(x, types.Complex) else x
    return lambda x, v: ty(v)


@jit_import
def round_half_even(x):
    """Round half to even (std::nearbyint); integers are returned as they are."""
    return x if isinstance(x, int) else float(np.rint(x))


@overload(round_half_even, jit_options=_NUMPY_MODEL)
def _round_ov(x):
    if isinstance(x, (types.Integer, types.Boolean)):
        return lambda x: x
    return lambda x: np.rint(x)


@register_jitable(**_NUMPY_MODEL)
def _cdiv(a, b):
    """a / b for complex b as NumPy and c10::complex divide (Smith's algorithm): 1 / 0 = inf+nanj
    instead of Numba's ZeroDivisionError."""
    c, d = b.real, b.imag
    ac, ad = abs(c), abs(d)
    if ac >= ad:
        if ac == 0 and ad == 0:
            return complex(a.real / ac, a.imag / ad)
        rat = d / c
        scl = 1.0 / (c + d * rat)
        return complex((a.real + a.imag * rat) * scl, (a.imag - a.real * rat) * scl)
    rat = c / d
    scl = 1.0 / (d + c * rat)
    return complex((a.real * rat + a.imag) * scl, (a.imag * rat - a.real) * scl)


@jit_import
def recip(x):
    """1 / x in x's type; complex by Smith's algorithm (1 / 0j = inf+nanj, like torch and NumPy)."""
    return 1 / x


@overload(recip, jit_options=_NUMPY_MODEL)
def _recip_ov(x):
    if isinstance(x, types.Complex):
        ty = x

        def impl(x):
            return ty(_cdiv(ty(1), x))

        return impl
    ty = x

    def real_impl(x):
        return ty(1) / x

    return real_impl


@jit_import
def expm1_any(x):
    """exp(x) - 1, accurate near 0 for real and complex x."""
    return cmath.exp(x) - 1 if isinstance(x, complex) else math.expm1(x)


@overload(expm1_any, jit_options=_NUMPY_MODEL)
def _expm1_ov(x):
    if isinstance(x, types.Complex):
        ty = x

        # c10's formula: expm1(x + iy) = expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y)
        def impl(x):
            a, b = x.real, x.imag
            s = np.sin(b * 0.5)
            re = np.expm1(a) * np.cos(b) - 2.0 * s * s
            im = np.exp(a) * np.sin(b)
            return ty(complex(re, im))

        return impl
    return lambda x: np.expm1(x)


@jit_import
def log1p_any(x):
    """log(1 + x), accurate near 0 for real and complex x."""
    return cmath.log(1 + x) if isinstance(x, complex) else math.log1p(x)


@overload(log1p_any, jit_options=_NUMPY_MODEL)
def _log1p_ov(x):
    if isinstance(x, types.Complex):
        ty = x

        # c10's formula (avoids the cancellation in log(1 + z) for small |z|)
        def impl(x):
            a, b = x.real, x.imag
            zabs = abs(x)
            theta = math.atan2(b, a + 1.0)
            if zabs < 0.5:
                r = a * (2.0 + a) + b * b
                if r == 0:
                    return ty(complex(a, theta))
                return ty(complex(0.5 * math.log1p(r), theta))
            return ty(complex(math.log(math.hypot(a + 1.0, b)), theta))

        return impl
    return lambda x: np.log1p(x)


@jit_import
def is_inf(x):
    """isinf for any type: integers never are; complex if either part is."""
    return False


@overload(is_inf, jit_options=_NUMPY_MODEL)
def _is_inf_ov(x):
    if isinstance(x, types.Complex):
        return lambda x: math.isinf(x.real) or math.isinf(x.imag)
    if isinstance(x, types.Float):
        return lambda x: math.isinf(x)
    return lambda x: False


@jit_import
def is_finite(x):
    """isfinite for any type: integers always are; complex if both parts are."""
    return True


@overload(is_finite, jit_options=_NUMPY_MODEL)
def _is_finite_ov(x):
    if isinstance(x, types.Complex):
        return lambda x: math.isfinite(x.real) and math.isfinite(x.imag)
    if isinstance(x, types.Float):
        return lambda x: math.isfinite(x)
    return lambda x: True


@register_jitable(**_NUMPY_MODEL)
def _replace_nonfinite(x, nan, posinf, neginf):
    return nan if x != x else (posinf if x == np.inf else (neginf if x == -np.inf else x))


@jit_import
def nan_to_num_any(x, nan, posinf, neginf):
    """NaN / +inf / -inf replaced (real and imaginary parts separately); integers unchanged."""
    return x


@overload(nan_to_num_any, jit_options=_NUMPY_MODEL)
def _nan_to_num_ov(x, nan, posinf, neginf):
    if isinstance(x, types.Complex):
        ty = x

        def impl(x, nan, posinf, neginf):
            return ty(complex(_replace_nonfinite(x.real, nan, posinf, neginf),
                              _replace_nonfinite(x.imag, nan, posinf, neginf)))

        return impl
    if isinstance(x, types.Float):
        return lambda x, nan, posinf, neginf: _replace_nonfinite(x, nan, posinf, neginf)
    return lambda x, nan, posinf, neginf: x


# ---- the operators --------------------------------------------------------------------------

def neg(self):
    return -self


def absolute(self):
    return abs(self)  # complex -> its real type (abs' complex-to-float kernel)


def sign(self):
    return (0 < self) - (self < 0)  # NaN -> 0, like torch


def reciprocal(self):
    return recip(self)


def sqrt(self):
    return np.sqrt(self)


def rsqrt(self):
    return recip(np.sqrt(self))


def exp(self):
    return fastmath.exp(self)


def exp2(self):
    return np.exp2(self)


def expm1(self):
    return expm1_any(self)


def log(self):
    return fastmath.log(self)


def log2(self):
    return np.log2(self)


def log10(self):
    return np.log10(self)


def log1p(self):
    return log1p_any(self)


def sin(self):
    return np.sin(self)


def cos(self):
    return np.cos(self)


def tan(self):
    return np.tan(self)


def asin(self):
    return np.arcsin(self)


def acos(self):
    return np.arccos(self)


def atan(self):
    return np.arctan(self)


def sinh(self):
    return np.sinh(self)


def cosh(self):
    return np.cosh(self)


def tanh(self):
    return fastmath.tanh(self)


def sigmoid(self):
    return fastmath.sigmoid(self)


def logit(self):
    # eps=None (or eps < 0): no clamping
    one = like(self, 1.0)
    return like(self, math.inf) if self == one else np.log(self / (one - self))


def logit_eps(self, eps):
    # x clamped to [eps, 1 - eps] first, NaN kept (torch's comparisons, in this order)
    one = like(self, 1.0)
    hi = one - eps
    x = eps if self < eps else (hi if self > hi else self)
    return like(self, math.inf) if x == one else np.log(x / (one - x))


def relu(self):
    zero = like(self, 0)
    return zero if self < zero else self  # NaN stays NaN (clamp_min propagates it)


def gelu(self):
    return self * like(self, 0.5) * (like(self, 1.0) + math.erf(self * like(self, _SQRT1_2)))


def gelu_tanh(self):
    inner = like(self, _SQRT_2_OVER_PI) * (self + like(self, _GELU_TANH_C) * self * self * self)
    return like(self, 0.5) * self * (like(self, 1.0) + fastmath.tanh(inner))


def silu(self):
    return self / (like(self, 1.0) + fastmath.exp(-self))


def erf(self):
    return math.erf(self)


def floor(self):
    return np.floor(self)  # integers: the value itself


def ceil(self):
    return np.ceil(self)


def trunc(self):
    return np.trunc(self)


def round(self):  # noqa: A001  (the operator's name)
    return round_half_even(self)


def round_decimals(self, decimals):
    # decimals > 0: nearbyint(x * 10^d) / 10^d; 10^d in double, then the compute dtype (torch's opmath)
    ten_pow = like(self, 10.0 ** decimals)
    return np.rint(self * ten_pow) / ten_pow


def round_decimals_neg(self, decimals):
    # decimals < 0: nearbyint(x / 10^-d) * 10^-d
    ten_pow = like(self, 10.0 ** -decimals)
    return np.rint(self / ten_pow) * ten_pow


def frac(self):
    return self - np.trunc(self)


def isnan(self):
    return self != self


def isinf(self):
    return is_inf(self)


def isfinite(self):
    return is_finite(self)


def logical_not(self):
    return self == 0


def bitwise_not(self):
    return ~self  # bool: logical not


def nan_to_num(self, nan, posinf, neginf):
    return nan_to_num_any(self, nan, posinf, neginf)
