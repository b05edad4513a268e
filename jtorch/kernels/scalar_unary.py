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


# ---- inverse hyperbolic functions, sgn, signbit, angle, conj (real: math, complex: cmath) -------

def asinh(self):
    return jmath.asinh(self)


def acosh(self):
    return jmath.acosh(self)


def atanh(self):
    return jmath.atanh(self)


def sgn_any(x):
    """c10's sgn_impl: z / |z| (0 at 0) for complex z; sign for real x."""
    if jmath._py_complex(x):
        return x * 0 if x == 0 else x / abs(x)
    return int(0 < x) - int(x < 0)


@implements(sgn_any)
def _sgn(x):
    if isinstance(x, types.Complex):
        ty = x
        zero = ty(0)

        def impl(x):
            return zero if x == zero else ty(x / abs(x))
        return impl
    return lambda x: int(0 < x) - int(x < 0)


def sgn(self):
    return sgn_any(self)


def signbit_any(x):
    """The sign bit: set for -0.0 and negative NaNs; x < 0 for integers; never for bool."""
    if jmath._py_float(x):
        return math.copysign(1.0, x) < 0
    return bool(x < 0)


@implements(signbit_any)
def _signbit(x):
    if isinstance(x, types.Float):
        one = jmath._const(x, 1.0)
        return lambda x: math.copysign(one, x) < one - one
    if isinstance(x, types.Boolean):
        return lambda x: False
    return lambda x: x < 0


def signbit(self):
    return signbit_any(self)


def isposinf(self):
    return jmath.isinf(self) and self > 0


def isneginf(self):
    return jmath.isinf(self) and self < 0


def angle_any(x):
    """arg(z) for complex z; for real x: NaN stays NaN, pi below zero, else 0 (c10's angle_impl)."""
    if jmath._py_complex(x):
        return math.atan2(x.imag, x.real)
    return x if x != x else (math.pi if x < 0 else 0.0)


@implements(angle_any)
def _angle(x):
    if isinstance(x, types.Complex):
        return lambda x: math.atan2(x.imag, x.real)
    pi, zero = jmath._const(x, math.pi), jmath._const(x, 0.0)
    return lambda x: x if x != x else (pi if x < zero else zero)


def angle(self):
    return angle_any(self)


def conj_any(x):
    """The complex conjugate; a real value is its own."""
    return x.conjugate() if jmath._py_complex(x) else x


@implements(conj_any)
def _conj(x):
    if isinstance(x, types.Complex):
        ty = x
        return lambda x: ty(complex(x.real, -x.imag))
    return lambda x: x


def conj_physical(self):
    return conj_any(self)


def deg2rad(self):
    return self * like(self, 0.017453292519943295)  # M_PI / 180 in the compute dtype


def rad2deg(self):
    return self * like(self, 57.29577951308232)  # 180 / M_PI


def hardshrink(self, lambd):
    return like(self, 0.0) if (self >= -lambd and self <= lambd) else self  # NaN stays NaN


def threshold(self, threshold, value):
    return value if self <= threshold else self  # NaN is kept (torch's x <= threshold is false)


def elu(self, alpha, scale, input_scale):
    # torch's elu kernel: (exp(x * input_scale) - 1) * alpha * scale at and below 0, x * scale above
    return jmath.expm1(self * input_scale) * (alpha * scale) if self <= like(self, 0.0) else self * scale


def leaky_relu(self, negative_slope):
    return self if self > like(self, 0.0) else self * negative_slope  # torch's kernel: a > 0 ? a : a * negval


def hardtanh(self, min_val, max_val):
    # clamp(self, min_val, max_val) as torch's hardtanh_out computes it; NaN propagates
    if self != self:
        return self
    return min_val if self < min_val else (max_val if self > max_val else self)


def softplus(self, beta, threshold):
    # x itself where x * beta exceeds the threshold, log1p(exp(x * beta)) / beta below it
    scaled = self * beta
    return self if scaled > threshold else jmath.log1p(jmath.exp(scaled)) / beta


def mish(self):
    return self * jmath.tanh(jmath.log1p(jmath.exp(self)))  # torch's kernel: x * tanh(log1p(exp(x)))


def hardsigmoid(self):
    # min(max(x + 3, 0), 6) / 6
    shifted = self + like(self, 3.0)
    clamped = like(self, 0.0) if shifted < like(self, 0.0) else shifted
    clamped = like(self, 6.0) if clamped > like(self, 6.0) else clamped
    return clamped / like(self, 6.0)


def hardswish(self):
    # torch's kernel: x * min(max(x + 3, 0), 6) / 6
    shifted = self + like(self, 3.0)
    clamped = like(self, 0.0) if shifted < like(self, 0.0) else shifted
    clamped = like(self, 6.0) if clamped > like(self, 6.0) else clamped
    return self * clamped / like(self, 6.0)


def softshrink(self, lambd):
    # torch's kernel: a > lambd ? a - lambd : (a < -lambd ? a + lambd : a * 0), so NaN stays NaN
    return self - lambd if self > lambd else (self + lambd if self < -lambd else self * like(self, 0.0))
