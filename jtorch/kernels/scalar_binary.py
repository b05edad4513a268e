"""Scalar functions of the binary, ternary and comparison operators (one per operator).

Parameters: the operator's tensor arguments, then the other arguments its formula needs, named as
in the schema. Arithmetic runs in the compute dtype the TensorIterator chose. The rules a scalar
function follows are in jtorch/kernels/cpu/codegen.py.
"""
import math  # noqa: F401


def add(self, other, alpha):
    return self + alpha * other


def mul(self, other):
    return self * other


def lt(self, other):
    return self < other
