"""The CPU's own implementations of jtorch.kernels.jmath helpers.

The CPU back end (codegen.py) registers every type-dispatching helper for Numba's CPU target
and asks ``CPU[stub](*types)`` here first, then the helper's neutral selector. Entries cover
what jmath leaves to each target (``jmath.TARGET_SPECIFIC``: NumPy ufuncs, which Numba's CPU
target lowers to LLVM intrinsics that vectorize) and float32 exp/log/tanh/sigmoid, for which
fastmath.py has vectorizable versions (libm calls do not vectorize here: no SVML).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from numba.core import types

from .. import jmath
from . import fastmath

CPU: dict[Callable, Callable[..., Optional[Callable]]] = {}


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
    return (lambda x: fastmath.exp_f32(x)) if _f32(x) else None


@_cpu(jmath.log)
def _log(x):
    return (lambda x: fastmath.log_f32(x)) if _f32(x) else None


@_cpu(jmath.tanh)
def _tanh(x):
    return (lambda x: fastmath.tanh_f32(x)) if _f32(x) else None


@_cpu(jmath.sigmoid)
def _sigmoid(x):
    return (lambda x: fastmath.sigmoid_f32(x)) if _f32(x) else None


@_cpu(jmath.exp2)
def _exp2(x):
    return (lambda x: np.exp2(x)) if _float(x) else None


@_cpu(jmath.floor)
def _floor(x):
    return (lambda x: np.floor(x)) if _float(x) else None


@_cpu(jmath.ceil)
def _ceil(x):
    return (lambda x: np.ceil(x)) if _float(x) else None


@_cpu(jmath.trunc)
def _trunc(x):
    return (lambda x: np.trunc(x)) if _float(x) else None


@_cpu(jmath.rint)
def _rint(x):
    return (lambda x: np.rint(x)) if _float(x) else None


@_cpu(jmath.fmod)
def _fmod(a, b):
    return (lambda a, b: np.fmod(a, b)) if _float(a) else None
