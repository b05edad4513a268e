"""jtorch's math vocabulary for scalar functions: what ``math``/``cmath`` lack for every target.

Scalar functions (jtorch/kernels/scalar_*.py) call ``math.*`` directly where both Numba targets
type it alike for the dtypes the operator takes, and the helpers below otherwise: where a
function must also take complex numbers (``math.sin`` does not), keep float32 in float32, treat
integers specially (``floor`` of an int is the int), or where ``math`` has no such function.
Each helper is a stub (its body is the Python reference) plus a type-dispatching selector
(:func:`jtorch.kernels.frontend.implements`) whose implementations use only ``math``, ``cmath``
and arithmetic, so that every back end can register them for its target; where a helper is
exactly a ``math``/``cmath`` function for the given types the selector answers ``same_as(f)``,
which the CPU lowers in place (no extra compile). Float32 stays float32: constants are built
in the argument's type, never as bare float literals.

``TARGET_SPECIFIC`` lists what the neutral selectors leave to each target (they return None):
the CPU implements it in jtorch/kernels/cpu/mathimpl.py (NumPy's ufuncs, which Numba's CPU
target lowers to LLVM intrinsics); a CUDA back end must register its own (libdevice), e.g.
``overload(jmath.floor, target="cuda")``. The CPU also replaces exp/log/tanh/sigmoid of float32
by the vectorizable versions in cpu/fastmath.py.

What the targets support (numba 0.68.1: numba/core/typing/mathdecl.py and cmathdecl.py for the
CPU, numba/cuda/cudamath.py for CUDA, read from the installed sources; numba-cuda is derived
from the latter and not checked here, nor on a GPU):

* ``math`` sin cos tan asin acos atan sinh cosh tanh exp expm1 log log2 log10 log1p sqrt erf
  erfc atan2 hypot copysign isinf isnan isfinite: float32 -> float32, float64 -> float64 and
  integers -> float64 on both targets.
* ``math.floor/ceil/trunc`` return int64 on the CPU but a float on CUDA: use jmath's.
* ``math.fmod``, ``math.remainder``: CUDA only (the CPU has neither): use ``jmath.fmod``.
* ``math.exp2``: neither target. No ``rint``/``nearbyint`` in ``math``: use ``jmath.rint``.
* ``cmath`` on both targets (CUDA installs Numba's cmath typing and implementations): exp log
  log10 sqrt sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh isinf isnan
  isfinite; complex64 -> complex64 except log10, tanh and acosh (Numba implements them with
  ``@overload``s that return complex128: ``jmath.tanh`` of complex64 computes in complex128,
  as the CPU did before, and the result is stored as complex64). Numba's ``cmath.log10``
  differs from NumPy's by up to 1 ulp, so ``jmath.log10`` uses NumPy's formula
  (log(z) * log10(e)) instead.
* NumPy ufuncs in device code: numba.cuda has a few (sin, cos, log, ...) but not floor, ceil,
  trunc, rint, fmod, copysign, sqrt, exp2, expm1 or log1p; scalar functions use none.
Not verified: CUDA results bit for bit against the CPU; numba-cuda releases after 0.68's
built-in target (typing could differ); float16 arithmetic (jtorch computes float16 in float32).
"""
import cmath
import math
import numbers

import numpy as np
from numba.core import types
from numba.extending import register_jitable

from .frontend import implements, same_as

# Bits of constants exactly as Numba's lowering of NumPy's complex log2/log10/exp2 has them.
_LOG2E = 1.442695040888963407359924681001892137
_LOG10E = 0.434294481903251827651128918916605082
_LOGE2 = 0.693147180559945309417232121458176568

# What the neutral selectors leave to a target: helper name -> the argument kinds it must handle.
TARGET_SPECIFIC = {"floor": "float", "ceil": "float", "trunc": "float", "rint": "float",
                   "fmod": "float", "exp2": "float"}


# Stubs' bodies run when called from Python (and under the CUDA simulator, with NumPy scalars).
def _py_complex(x) -> bool:
    return isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real)


def _py_integral(x) -> bool:
    return isinstance(x, (numbers.Integral, np.bool_))


def _py_float(x) -> bool:
    return isinstance(x, numbers.Real) and not _py_integral(x)


def _const(ty, value):
    """`value` as a typed constant of the Numba scalar type `ty` (at typing time, host side)."""
    return np.dtype(str(ty)).type(value)


def _real(ty):
    return ty.underlying_float if isinstance(ty, types.Complex) else ty


def _is_complex(ty) -> bool:
    return isinstance(ty, types.Complex)


def _is_integral(ty) -> bool:
    return isinstance(ty, (types.Integer, types.Boolean))


# ---- typing helpers -----------------------------------------------------------------------------

def like(x, v):
    """v in x's type (x's real type when x is complex): keeps float32 code in float32."""
    return v


@implements(like)
def _like(x, v):
    ty = _real(x)
    return lambda x, v: ty(v)


@register_jitable(error_model="numpy")  # float arithmetic: x / 0.0 is inf/nan, never raises
def _smith_div(a, b):
    """a / b for complex b as NumPy and c10::complex divide (Smith's algorithm): 1 / 0 = inf+nanj
    instead of a ZeroDivisionError."""
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


def recip(x):
    """1 / x in x's type; complex by Smith's algorithm (1 / 0j = inf+nanj, like torch and NumPy)."""
    return 1 / x


@implements(recip)
def _recip(x):
    ty = x
    if _is_complex(x):
        return lambda x: ty(_smith_div(ty(1), x))
    return lambda x: ty(1) / x


# ---- real or complex: math for reals, cmath for complex -----------------------------------------

def _real_or_complex(name: str, doc: str):
    """The helper `name`: math.<name> for real arguments, cmath.<name> for complex ones."""
    real, cplx = getattr(math, name), getattr(cmath, name)

    def stub(x):
        return cplx(x) if _py_complex(x) else real(x)

    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = doc
    implements(stub)(lambda x: same_as(cplx) if _is_complex(x) else same_as(real))
    return stub


sqrt = _real_or_complex("sqrt", "Square root (complex: principal branch).")
exp = _real_or_complex("exp", "e**x (the CPU computes float32 with a vectorizable polynomial).")
log = _real_or_complex("log", "Natural log (the CPU computes float32 with a vectorizable polynomial).")
tanh = _real_or_complex("tanh", "Hyperbolic tangent (the CPU computes float32 with a vectorizable polynomial).")


def sigmoid(x):
    """1 / (1 + exp(-x)) without overflow (the CPU computes float32 with a vectorizable exp)."""
    if _py_complex(x):
        return 1.0 / (1.0 + cmath.exp(-x))
    e = math.exp(-abs(x))
    return 1.0 / (1.0 + e) if x >= 0 else e / (1.0 + e)


@implements(sigmoid)
def _sigmoid(x):
    if _is_complex(x):
        return lambda x: 1.0 / (1.0 + cmath.exp(-x))
    zero, one = _const(x, 0), _const(x, 1)

    def impl(x):
        e = math.exp(-abs(x))          # <= 1: no overflow
        r = one / (one + e)
        return r if x >= zero else e * r
    return impl


def exp2(x):
    """2**x."""
    return cmath.exp(x * _LOGE2) if _py_complex(x) else 2.0 ** x


@implements(exp2)
def _exp2(x):
    if _is_complex(x):  # NumPy's nc_exp2: exp(x * ln 2), the constant in x's real type
        ty, c = x, _const(x.underlying_float, _LOGE2)
        return lambda x: cmath.exp(ty(complex(c * x.real, c * x.imag)))
    return None  # target-specific (math.exp2 is on no target)


def expm1(x):
    """exp(x) - 1, accurate near 0 for real and complex x."""
    return cmath.exp(x) - 1 if _py_complex(x) else math.expm1(x)


@implements(expm1)
def _expm1(x):
    if _is_complex(x):
        ty = x

        # c10's formula: expm1(x + iy) = expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y)
        def impl(x):
            a, b = x.real, x.imag
            s = math.sin(b * 0.5)
            re = math.expm1(a) * math.cos(b) - 2.0 * s * s
            im = math.exp(a) * math.sin(b)
            return ty(complex(re, im))
        return impl
    return same_as(math.expm1)


def log1p(x):
    """log(1 + x), accurate near 0 for real and complex x."""
    return cmath.log(1 + x) if _py_complex(x) else math.log1p(x)


@implements(log1p)
def _log1p(x):
    if _is_complex(x):
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
    return same_as(math.log1p)


def log2(x):
    """Base-2 log (complex: log(z) * log2(e), as NumPy)."""
    return cmath.log(x) * _LOG2E if _py_complex(x) else math.log2(x)


def log10(x):
    """Base-10 log (complex: log(z) * log10(e), as NumPy)."""
    return cmath.log(x) * _LOG10E if _py_complex(x) else math.log10(x)


def _scaled_log(x, factor):
    ty, c = x, _const(x.underlying_float, factor)

    def impl(x):
        z = cmath.log(x)
        return ty(complex(z.real * c, z.imag * c))
    return impl


@implements(log2)
def _log2(x):
    return _scaled_log(x, _LOG2E) if _is_complex(x) else same_as(math.log2)


@implements(log10)
def _log10(x):
    return _scaled_log(x, _LOG10E) if _is_complex(x) else same_as(math.log10)


sin = _real_or_complex("sin", "Sine.")
cos = _real_or_complex("cos", "Cosine.")
tan = _real_or_complex("tan", "Tangent.")
asin = _real_or_complex("asin", "Arc sine.")
acos = _real_or_complex("acos", "Arc cosine.")
atan = _real_or_complex("atan", "Arc tangent.")
sinh = _real_or_complex("sinh", "Hyperbolic sine.")
cosh = _real_or_complex("cosh", "Hyperbolic cosine.")
asinh = _real_or_complex("asinh", "Inverse hyperbolic sine.")
acosh = _real_or_complex("acosh", "Inverse hyperbolic cosine.")
atanh = _real_or_complex("atanh", "Inverse hyperbolic tangent.")


# ---- rounding and remainders (integers are their own floor; floats are target-specific) ---------

def floor(x):
    """Largest integral value <= x, in x's type (an integer is returned as it is)."""
    return x if _py_integral(x) else float(math.floor(x)) if math.isfinite(x) else x


def ceil(x):
    """Smallest integral value >= x, in x's type (an integer is returned as it is)."""
    return x if _py_integral(x) else float(math.ceil(x)) if math.isfinite(x) else x


def trunc(x):
    """x rounded toward zero, in x's type (an integer is returned as it is)."""
    return x if _py_integral(x) else float(math.trunc(x)) if math.isfinite(x) else x


def rint(x):
    """x rounded to the nearest integral value, half to even (std::nearbyint), in x's type."""
    return x if _py_integral(x) else float(round(x)) if math.isfinite(x) else x


def _integers_unchanged(x):
    return (lambda x: x) if _is_integral(x) else None  # floats: target-specific


for _stub in (floor, ceil, trunc, rint):
    implements(_stub)(_integers_unchanged)


def fmod(a, b):
    """C's fmod for floats: the remainder of a / b with a's sign."""
    return math.fmod(a, b)


@implements(fmod)
def _fmod(a, b):
    return None  # target-specific: math.fmod is CUDA's, the CPU has none


# ---- classification -----------------------------------------------------------------------------

def isinf(x):
    """isinf for any type: integers never are; complex if either part is."""
    if _py_complex(x):
        return math.isinf(x.real) or math.isinf(x.imag)
    return _py_float(x) and math.isinf(x)


@implements(isinf)
def _isinf(x):
    if _is_complex(x):
        return lambda x: math.isinf(x.real) or math.isinf(x.imag)
    if isinstance(x, types.Float):
        return same_as(math.isinf)
    return lambda x: False


def isfinite(x):
    """isfinite for any type: integers always are; complex if both parts are."""
    if _py_complex(x):
        return math.isfinite(x.real) and math.isfinite(x.imag)
    return not _py_float(x) or math.isfinite(x)


@implements(isfinite)
def _isfinite(x):
    if _is_complex(x):
        return lambda x: math.isfinite(x.real) and math.isfinite(x.imag)
    if isinstance(x, types.Float):
        return same_as(math.isfinite)
    return lambda x: True
