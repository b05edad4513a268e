"""Scalar functions of the unary operators (one per operator); see scalar_binary.py for the rules.

Each function takes one value in the compute dtype the TensorIterator chose (bool, an integer
type, float32, float64, complex64 or complex128; float16 is computed in float32) and returns the
result. Math is ``math.*`` where every target types it alike for the operator's dtypes, else
jtorch.kernels.jmath's vocabulary: type-dispatching helpers (complex sin, integer floor, float32
constants via ``like``) chosen once at compile time, so that one scalar function serves every
dtype and every target. The CPU computes float32 exp / log / tanh / sigmoid with the vectorizable
versions in jtorch/kernels/cpu/fastmath.py (within 2 ulp).
"""
import math

from numba import types
from numba.extending import register_jitable

from . import jmath
from .frontend import implements
from .jmath import like

_SQRT1_2 = 0.7071067811865476                 # M_SQRT1_2
_SQRT_2_OVER_PI = 0.7978845608028654          # M_SQRT2 * M_2_SQRTPI * 0.5
_GELU_TANH_C = 0.044715


# ---- operator-specific helpers (type-dispatching, imported by generated kernels) --------------

def nan_to_num_any(x, nan, posinf, neginf):
    """NaN / +inf / -inf replaced (real and imaginary parts separately); integers unchanged."""
    return x


@register_jitable  # a generic-target helper: every back end compiles it
def _replace_nonfinite(x, nan, posinf, neginf):
    return nan if x != x else (posinf if x == math.inf else (neginf if x == -math.inf else x))


@implements(nan_to_num_any)
def _nan_to_num(x, nan, posinf, neginf):
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
    return int(0 < self) - int(self < 0)  # NaN -> 0, like torch (int(): NumPy bools do not subtract)


def reciprocal(self):
    return jmath.recip(self)


def sqrt(self):
    return jmath.sqrt(self)


def rsqrt(self):
    return jmath.recip(jmath.sqrt(self))


def exp(self):
    return jmath.exp(self)


def exp2(self):
    return jmath.exp2(self)


def expm1(self):
    return jmath.expm1(self)


def log(self):
    return jmath.log(self)


def log2(self):
    return jmath.log2(self)


def log10(self):
    return jmath.log10(self)


def log1p(self):
    return jmath.log1p(self)


def sin(self):
    return jmath.sin(self)


def cos(self):
    return jmath.cos(self)


def tan(self):
    return jmath.tan(self)


def asin(self):
    return jmath.asin(self)


def acos(self):
    return jmath.acos(self)


def atan(self):
    return jmath.atan(self)


def sinh(self):
    return jmath.sinh(self)


def cosh(self):
    return jmath.cosh(self)


def tanh(self):
    return jmath.tanh(self)


def sigmoid(self):
    return jmath.sigmoid(self)


def logit(self):
    # eps=None (or eps < 0): no clamping
    one = like(self, 1.0)
    return like(self, math.inf) if self == one else math.log(self / (one - self))


def logit_eps(self, eps):
    # x clamped to [eps, 1 - eps] first, NaN kept (torch's comparisons, in this order)
    one = like(self, 1.0)
    hi = one - eps
    x = eps if self < eps else (hi if self > hi else self)
    return like(self, math.inf) if x == one else math.log(x / (one - x))


def relu(self):
    zero = like(self, 0)
    return zero if self < zero else self  # NaN stays NaN (clamp_min propagates it)


def gelu(self):
    return self * like(self, 0.5) * (like(self, 1.0) + math.erf(self * like(self, _SQRT1_2)))


def gelu_tanh(self):
    inner = like(self, _SQRT_2_OVER_PI) * (self + like(self, _GELU_TANH_C) * self * self * self)
    return like(self, 0.5) * self * (like(self, 1.0) + jmath.tanh(inner))


def silu(self):
    return self / (like(self, 1.0) + jmath.exp(-self))


def erf(self):
    return math.erf(self)


def floor(self):
    return jmath.floor(self)  # integers: the value itself


def ceil(self):
    return jmath.ceil(self)


def trunc(self):
    return jmath.trunc(self)


def round(self):
    return jmath.rint(self)  # half to even (std::nearbyint)


def round_decimals(self, decimals):
    # decimals > 0: nearbyint(x * 10^d) / 10^d; 10^d in double, then the compute dtype (torch's opmath)
    ten_pow = like(self, 10.0 ** decimals)
    return jmath.rint(self * ten_pow) / ten_pow


def round_decimals_neg(self, decimals):
    # decimals < 0: nearbyint(x / 10^-d) * 10^-d
    ten_pow = like(self, 10.0 ** -decimals)
    return jmath.rint(self / ten_pow) * ten_pow


def frac(self):
    return self - jmath.trunc(self)


def isnan(self):
    return self != self


def isinf(self):
    return jmath.isinf(self)


def isfinite(self):
    return jmath.isfinite(self)


def logical_not(self):
    return self == 0


def bitwise_not(self):
    return ~self  # bool: logical not


def nan_to_num(self, nan, posinf, neginf):
    return nan_to_num_any(self, nan, posinf, neginf)
