"""Scalar functions used by tests/test_kernels_cpu.py and test_kernel_frontend.py (the real ones
live in jtorch/kernels/scalar_*.py)."""
import math

from jtorch.kernels import jmath

HALF = 0.5


def add(a, b, alpha):
    return a + alpha * b


def mul(a, b):
    return a * b


def exp(a):
    return math.exp(a)


def lt(a, b):
    return a < b


def div(a, b):
    return a / b


def floordiv(a, b):
    return a // b


def _twice(x):
    return x + x


def mul_add_half(a, b):
    # uses a helper function and a module constant: both are re-emitted
    return _twice(a) * b + HALF


def fexp(a):
    return jmath.exp(a)


def ftanh(a):
    return jmath.tanh(a)


def fsigmoid(a):
    return jmath.sigmoid(a)


def flog(a):
    return jmath.log(a)


def identity(a):
    return a
