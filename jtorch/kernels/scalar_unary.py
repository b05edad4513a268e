"""Scalar functions of the unary operators (one per operator); see scalar_binary.py for the rules."""
import math  # noqa: F401

from .cpu import fastmath


def exp(self):
    return fastmath.exp(self)
