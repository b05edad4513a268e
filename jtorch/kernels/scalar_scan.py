"""Scalar pieces of the scans (cumsum, cumprod, logcumsumexp, cummax, cummin) and of the row
normalisers (softmax, log_softmax): each operator is declared by its pieces, and the loops that
run them along one dimension are generated (jtorch/kernels/cpu/scan_codegen.py).

- A `Scan` keeps an accumulator per row: out[i] = acc after `combine(acc, x[i])` for i = 0, 1, ...,
  starting from `identity(x[0])` (x[0] only gives the type). The accumulator has PyTorch's CPU
  accumulate type (at::acc_type<T, /*is_cuda=*/false>): float32 sums in float64, integers in
  int64, complex64 in complex128; each output is the accumulator cast back to the output's type.
- An `IndexedScan` keeps the best value so far and its index: `take(x, best)` says whether x (at a
  later index) replaces it. cummax takes x >= best (ties: the LAST index, as PyTorch) and a NaN
  always (every NaN takes over, so its index is the latest NaN's).
- A `RowNormaliser` makes three passes over a row: m = max(x), s = sum of shift(x, m) (written to
  the output as it goes), t = row_value(m, s), out = finish(written, x, m, t). softmax: exp(x - m),
  1 / s, written * t; log_softmax: (x - m) - log s (in that order, as PyTorch: x - m is exact near
  the max). As PyTorch's vectorised CPU kernels, float32 rows sum in float32; exp and log are
  jmath's (the CPU runs its vectorizable float32 versions, cpu/fastmath.py).

The pieces are plain functions that use `math` and the type-dispatching helpers below (chosen at
compile time by argument type), so that the same pieces can feed other targets.
"""
import cmath
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba.core import types
from numba.extending import register_jitable

from . import jmath
from .frontend import implements
from .jmath import like
from .jmath import log1p as log1p_any

_NUMPY_MODEL = {"error_model": "numpy"}


@dataclass(frozen=True, eq=False)
class Scan:
    """A cumulative operator: out[i] = combine(...combine(identity(x[0]), x[0])..., x[i])."""
    name: str
    identity: Callable  # identity(x) -> the accumulator's start, in x's accumulate type
    combine: Callable   # combine(acc, x) -> acc


@dataclass(frozen=True, eq=False)
class IndexedScan:
    """A cumulative best with its index (cummax, cummin): values and int64 indices."""
    name: str
    take: Callable      # take(x, best) -> True when x, at a later index, becomes the best


@dataclass(frozen=True, eq=False)
class RowNormaliser:
    """A row-wise normaliser (softmax, log_softmax) computed in three passes over each row."""
    name: str
    shift: Callable      # shift(x, m) -> the value written and summed in pass 2
    row_value: Callable  # row_value(m, s) -> t, once per row
    finish: Callable     # finish(written, x, m, t) -> the output


# ---- type-dispatching helpers (imported by generated kernels, never re-emitted) ---------------
def acc_const(x, v):
    """v in the accumulate type of x's type: float -> float64, complex -> complex128,
    integers and bool -> int64 (PyTorch's CPU acc_type; float16 is computed in float32)."""
    return v


@implements(acc_const)
def _acc_const(x, v):
    ty = types.float64 if isinstance(x, types.Float) else (
        types.complex128 if isinstance(x, types.Complex) else types.int64)
    return lambda x, v: ty(v)


@register_jitable(**_NUMPY_MODEL)
def _log_add_exp_real(x, y):
    # PyTorch's _log_add_exp_helper: std::min / std::max return their first argument when NaN
    # is involved, and a NaN accumulator wins.
    if y != y:
        lo = y
        hi = y
    else:
        lo = y if y < x else x
        hi = y if x < y else x
    if lo != hi or math.isfinite(lo):
        return math.log1p(math.exp(lo - hi)) + hi
    return x  # both infinite with one sign: the result is that infinity


@register_jitable(**_NUMPY_MODEL)
def _isnan_c(z):
    return z.real != z.real or z.imag != z.imag


@register_jitable(**_NUMPY_MODEL)
def _log_add_exp_complex(x, y):
    # PyTorch's complex _log_add_exp_helper: order by real part, NaN (in either part) wins
    if _isnan_c(y):
        lo = y
        hi = y
    elif _isnan_c(x):
        lo = x
        hi = x
    elif x.real < y.real:
        lo = x
        hi = y
    else:
        lo = y
        hi = x
    if _isnan_c(lo):
        return complex(math.nan, math.nan)
    if not math.isfinite(lo.real) and lo.real == hi.real:
        if lo.real < 0:
            return lo
        return cmath.log(cmath.exp(lo) + cmath.exp(hi))
    return log1p_any(cmath.exp(lo - hi)) + hi


def log_add_exp(x, y):
    """log(exp(x) + exp(y)) with PyTorch's handling of infinities and NaN (real and complex)."""
    if isinstance(x, (complex, np.complexfloating)) or isinstance(y, (complex, np.complexfloating)):
        return cmath.log(cmath.exp(x) + cmath.exp(y))
    return math.log(math.exp(x) + math.exp(y))


@implements(log_add_exp)
def _log_add_exp(x, y):
    if isinstance(x, types.Complex):
        return lambda x, y: _log_add_exp_complex(x, y)
    return lambda x, y: _log_add_exp_real(x, y)


# ---- cumsum, cumprod, logcumsumexp ------------------------------------------------------------
def sum_identity(x):
    return acc_const(x, 0)


def sum_combine(acc, x):
    return acc + x


def prod_identity(x):
    return acc_const(x, 1)


def prod_combine(acc, x):
    return acc * x


def logcumsumexp_identity(x):
    return acc_const(x, -math.inf)


def logcumsumexp_combine(acc, x):
    return log_add_exp(acc_const(x, x), acc)


# ---- cummax, cummin -----------------------------------------------------------------------------
def cummax_take(x, best):
    return x != x or (best == best and x >= best)


def cummin_take(x, best):
    return x != x or (best == best and x <= best)


# ---- softmax, log_softmax -----------------------------------------------------------------------
def softmax_shift(x, m):
    return jmath.exp(x - m)


def softmax_row_value(m, s):
    return like(s, 1) / s  # in s's type: a bare 1 would make float32 code float64


def softmax_finish(e, x, m, t):
    return e * t


def log_softmax_row_value(m, s):
    return jmath.log(s)


def log_softmax_finish(e, x, m, t):
    return (x - m) - t


CUMSUM = Scan("cumsum", sum_identity, sum_combine)
CUMPROD = Scan("cumprod", prod_identity, prod_combine)
LOGCUMSUMEXP = Scan("logcumsumexp", logcumsumexp_identity, logcumsumexp_combine)
CUMMAX = IndexedScan("cummax", cummax_take)
CUMMIN = IndexedScan("cummin", cummin_take)
SOFTMAX = RowNormaliser("softmax", softmax_shift, softmax_row_value, softmax_finish)
LOG_SOFTMAX = RowNormaliser("log_softmax", softmax_shift, log_softmax_row_value, log_softmax_finish)
