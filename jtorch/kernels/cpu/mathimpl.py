"""The CPU's own implementations of jtorch.kernels.jmath helpers.

The CPU back end (codegen.py) registers every type-dispatching helper for Numba's CPU target
and asks ``CPU[stub](*types)`` here first, then the helper's neutral selector. Entries cover
what jmath leaves to each target (``jmath.TARGET_SPECIFIC``: NumPy ufuncs, which Numba's CPU
target lowers to LLVM intrinsics that vectorize; ``same_as`` lowers them in place, as a call
in the scalar function would be) and float32 exp/log/tanh/sigmoid, for which
fastmath.py has vectorizable versions (libm calls do not vectorize here: no SVML).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.core import types

from .. import jmath
from ..frontend import same_as
from . import fastmath

CPU: dict[Callable, Callable[..., Callable | None]] = {}


def _cpu(stub: Callable) -> Callable:
    def register(select: Callable) -> Callable:
        CPU[stub] = select
        return select
    return register


def _f32(ty) -> bool:
    return isinstance(ty, types.Float) and ty.bitwidth == 32


def _float(ty) -> bool:
    return isinstance(ty, types.Float)


@_cpu(jmath.exp)
def _exp(x):
    return same_as(fastmath.exp_f32) if _f32(x) else None


@_cpu(jmath.log)
def _log(x):
    return same_as(fastmath.log_f32) if _f32(x) else None


@_cpu(jmath.tanh)
def _tanh(x):
    return same_as(fastmath.tanh_f32) if _f32(x) else None


@_cpu(jmath.sigmoid)
def _sigmoid(x):
    return same_as(fastmath.sigmoid_f32) if _f32(x) else None


@_cpu(jmath.exp2)
def _exp2(x):
    return same_as(np.exp2) if _float(x) else None


@_cpu(jmath.floor)
def _floor(x):
    return same_as(np.floor) if _float(x) else None


@_cpu(jmath.ceil)
def _ceil(x):
    return same_as(np.ceil) if _float(x) else None


@_cpu(jmath.trunc)
def _trunc(x):
    return same_as(np.trunc) if _float(x) else None


@_cpu(jmath.rint)
def _rint(x):
    return same_as(np.rint) if _float(x) else None


@_cpu(jmath.fmod)
def _fmod(a, b):
    return same_as(np.fmod) if _float(a) else None
