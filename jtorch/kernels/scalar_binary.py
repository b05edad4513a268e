"""Scalar functions of the binary, ternary and comparison operators (one per operator).

Parameters: the operator's tensor arguments, then the other arguments its formula needs, named as
in the schema. Arithmetic runs in the compute dtype the TensorIterator chose. The rules a scalar
function follows are in jtorch/kernels/frontend.py; its math is ``math.*`` or jtorch.kernels.jmath.

Where PyTorch's formula differs between integer and floating types (C++ templates specialised
on the type), the scalar function calls a helper below: a stub plus a selector registered with
``frontend.implements``, chosen by argument type at compile time, whose implementations use the
same vocabulary (so every target compiles them). Each back end picks the error model: on the CPU,
integer x // 0 and x % 0 raise ZeroDivisionError, floats give inf/nan. Helpers build their
constants in the argument's own type: a bare literal ``1`` would turn float32 arithmetic into
float64 arithmetic.
"""
import math

import numpy as np
from numba.core import types

from . import jmath
from .frontend import implements


def _is_integral(*tys) -> bool:
    return all(isinstance(t, (types.Integer, types.Boolean)) for t in tys)


def _const(ty, value):
    """`value` as a NumPy scalar of the Numba scalar type `ty` (a typed constant, at typing time)."""
    return np.dtype(str(ty)).type(value)


# ---- type-dispatching helpers (plain stubs; the selectors' implementations are what runs) --------
def floor_div(a, b):
    """div_floor_integer / div_floor_floating: the quotient rounded toward -inf."""
    return a // b


def trunc_div(a, b):
    """div_trunc: the quotient rounded toward zero (C's integer /, std::trunc(a / b) for floats)."""
    return math.trunc(float(a / b))  # float(): NumPy scalars (the CUDA simulator) have no __trunc__


def c_fmod(a, b):
    """C's % for integers, std::fmod for floats: the remainder takes the dividend's sign."""
    return math.fmod(a, b)


def py_remainder(a, b):
    """Python's %: the remainder takes the divisor's sign."""
    return a % b


def power(a, b):
    """c10's powi for integers (negative exponents give 0, or +-1 for bases +-1), std::pow else."""
    return a ** b


def true_div(a, b):
    """a / b; complex division as c10::complex (NumPy's algorithm: no ZeroDivisionError, inf/nan)."""
    return a / b


def one_like(x):
    """1 in x's type."""
    return type(x)(1)


@implements(floor_div)
def _floor_div(a, b):
    if _is_integral(a, b):
        return lambda a, b: a // b
    if isinstance(a, types.Float):
        zero, one, half = _const(a, 0), _const(a, 1), _const(a, 0.5)

        def impl(a, b):
            if b == zero:  # IEEE: +-inf or nan
                return a / b
            mod = jmath.fmod(a, b)
            div = (a - mod) / b
            if mod != zero and (b < zero) != (mod < zero):
                div -= one
            if div != zero:
                floordiv = jmath.floor(div)
                if div - floordiv > half:
                    floordiv += one
                return floordiv
            return math.copysign(zero, a / b)

        return impl


@implements(trunc_div)
def _trunc_div(a, b):
    if _is_integral(a, b):
        zero, one = _const(a, 0), _const(a, 1)

        def impl(a, b):
            q = a // b
            if a % b != zero and (a < zero) != (b < zero):
                q += one
            return q

        return impl
    if isinstance(a, types.Float):
        return lambda a, b: jmath.trunc(a / b)


@implements(c_fmod)
def _c_fmod(a, b):
    if _is_integral(a, b):
        zero = _const(a, 0)

        def impl(a, b):
            r = a % b
            if r != zero and (r < zero) != (a < zero):
                r -= b
            return r

        return impl
    if isinstance(a, types.Float):
        return lambda a, b: jmath.fmod(a, b)


@implements(py_remainder)
def _py_remainder(a, b):
    if _is_integral(a, b):
        return lambda a, b: a % b
    if isinstance(a, types.Float):
        zero = _const(a, 0)

        def impl(a, b):
            mod = jmath.fmod(a, b)
            if mod != zero and (b < zero) != (mod < zero):
                mod += b
            return mod

        return impl


@implements(power)
def _power(a, b):
    if _is_integral(a, b):
        zero_a, one_a, zero_b, one_b = _const(a, 0), _const(a, 1), _const(b, 0), _const(b, 1)

        def impl(a, b):
            if b < zero_b:
                if a == one_a:
                    return one_a
                if a == -one_a:
                    return -one_a if b & one_b else one_a
                return zero_a
            result = one_a
            while b:
                if b & one_b:
                    result *= a
                b >>= one_b
                a *= a
            return result

        return impl
    return lambda a, b: a ** b


@implements(true_div)
def _true_div(a, b):
    if isinstance(a, types.Complex) and isinstance(b, types.Complex):
        ctype = a  # a Numba type: calling it converts, on every target
        zero = _const(a.underlying_float, 0)
        one = _const(a.underlying_float, 1)

        def impl(a, b):
            re, im, c, d = a.real, a.imag, b.real, b.imag
            abs_c, abs_d = abs(c), abs(d)
            if abs_c >= abs_d:
                if abs_c == zero and abs_d == zero:  # a complex inf or nan
                    return ctype(complex(re / abs_c, im / abs_d))
                rat = d / c
                scl = one / (c + d * rat)
                return ctype(complex((re + im * rat) * scl, (im - re * rat) * scl))
            rat = c / d
            scl = one / (d + c * rat)
            return ctype(complex((re * rat + im) * scl, (im * rat - re) * scl))

        return impl
    if not isinstance(a, types.Complex) and not isinstance(b, types.Complex):
        return lambda a, b: a / b


@implements(one_like)
def _one_like(x):
    one = _const(x, 1)
    return lambda x: one


# ---- arithmetic -------------------------------------------------------------------------------------
def add(self, other, alpha):
    return self + alpha * other


def sub(self, other, alpha):
    return self - alpha * other


def mul(self, other):
    return self * other


def div(self, other):
    return true_div(self, other)


def div_trunc(self, other):
    return trunc_div(self, other)


def div_floor(self, other):
    return floor_div(self, other)


def remainder(self, other):
    return py_remainder(self, other)


def fmod(self, other):
    return c_fmod(self, other)


def pow(self, exponent):
    return power(self, exponent)


def pow_zero(self):
    return one_like(self)


def pow_one(self):
    return self


def pow_two(self):
    return self * self


def pow_three(self):
    return self * self * self


def pow_reciprocal(self):
    return true_div(one_like(self), self)


def pow_sqrt(self):
    return jmath.sqrt(self)


def atan2(self, other):
    return math.atan2(self, other)


def hypot(self, other):
    return math.hypot(self, other)


def lerp(self, end, weight):
    # PyTorch's lerp: the formula is chosen by |weight| for accuracy at both ends
    if abs(weight) < 0.5:
        return self + weight * (end - self)
    return end - (end - self) * (one_like(weight) - weight)


def addcmul(self, tensor1, tensor2, value):
    return self + value * tensor1 * tensor2


def addcdiv(self, tensor1, tensor2, value):
    return self + true_div(value * tensor1, tensor2)


# ---- maximum and minimum: NaN propagates; fmax and fmin: NaN is ignored --------------------------
def maximum(self, other):
    if self != self:
        return self
    if other != other:
        return other
    return other if self < other else self


def minimum(self, other):
    if self != self:
        return self
    if other != other:
        return other
    return other if other < self else self


def fmax(self, other):
    if self != self:
        return other
    if other != other:
        return self
    return other if self < other else self


def fmin(self, other):
    if self != self:
        return other
    if other != other:
        return self
    return other if other < self else self


def clamp(self, min, max):
    # min > max gives max; a NaN bound gives NaN
    r = self
    if r < min or min != min:
        r = min
    if r > max or max != max:
        r = max
    return r


def clamp_min(self, min):
    return maximum(self, min)


def clamp_max(self, max):
    return minimum(self, max)


# ---- comparison, logical, bitwise ---------------------------------------------------------------------
def eq(self, other):
    return self == other


def ne(self, other):
    return self != other


def lt(self, other):
    return self < other


def le(self, other):
    return self <= other


def gt(self, other):
    return self > other


def ge(self, other):
    return self >= other


def logical_and(self, other):
    return (self != 0) & (other != 0)


def logical_or(self, other):
    return (self != 0) | (other != 0)


def logical_xor(self, other):
    return (self != 0) != (other != 0)


def bitwise_and(self, other):
    return self & other


def bitwise_or(self, other):
    return self | other


def bitwise_xor(self, other):
    return self ^ other


# ---- selection ----------------------------------------------------------------------------------------
def where(self, other, condition):
    # operands in this order so that the iterator's first input (self) carries the result dtype
    return self if condition else other


def threshold_backward(grad_output, self, threshold):
    # relu's and threshold's backward: the gradient passes only where self > threshold
    return jmath.like(grad_output, 0) if self <= threshold else grad_output


# ---- shifts (c10's lshift / rshift: a shift by a negative amount or by the width or more) -------------
def left_shift(a, b):
    """a << b in a's integer type; 0 when b < 0 or b >= its width."""
    bits = np.dtype(type(a)).itemsize * 8 if isinstance(a, np.generic) else 64
    if b < 0 or b >= bits:
        return a * 0
    return a << b


def right_shift(a, b):
    """a >> b; when b < 0 or b >= the width, the sign fill for signed types and 0 for unsigned ones."""
    dt = np.dtype(type(a)) if isinstance(a, np.generic) else np.dtype(np.int64)
    bits = dt.itemsize * 8
    if b < 0 or b >= bits:
        return a >> (bits - 1) if dt.kind == "i" else a * 0
    return a >> b


@implements(left_shift)
def _left_shift(a, b):
    bits, zero = a.bitwidth, _const(a, 0)
    return lambda a, b: zero if (b < 0 or b >= bits) else a << b


@implements(right_shift)
def _right_shift(a, b):
    bits, zero = a.bitwidth, _const(a, 0)
    if a.signed:
        top = _const(a, bits - 1)
        return lambda a, b: a >> top if (b < 0 or b >= bits) else a >> b
    return lambda a, b: zero if (b < 0 or b >= bits) else a >> b


def bitwise_left_shift(self, other):
    return left_shift(self, other)


def bitwise_right_shift(self, other):
    return right_shift(self, other)


# ---- complex numbers from parts -------------------------------------------------------------------------
def complex_from_parts(real, imag):
    return complex(real, imag)


def polar(abs, angle):
    return complex(abs * math.cos(angle), abs * math.sin(angle))


def xlogy(self, other):
    # torch's kernel: NaN where other is NaN, 0 where self is 0, else self * log(other)
    if other != other:
        return other
    if self == 0:
        return jmath.like(self, 0)
    return self * math.log(other)
