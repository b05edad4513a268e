"""Scalar functions used by tests/test_kernels_cpu.py (the real ones live in kernels/scalar_ops.py)."""
import math

from jtorch.kernels.cpu import fastmath

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
    return fastmath.exp(a)


def ftanh(a):
    return fastmath.tanh(a)


def fsigmoid(a):
    return fastmath.sigmoid(a)


def flog(a):
    return fastmath.log(a)


def identity(a):
    return a
