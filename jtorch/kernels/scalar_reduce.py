"""Reductions, declared by their scalar pieces (jtorch.kernels.reduction.Reduction); the backends
generate their loops from these (kernels/cpu/reduce_codegen.py, kernels/cuda/reduce_codegen.py).

The pieces follow the rules of scalar functions (jtorch/kernels/frontend.py): plain module-level
`def`s using `math` and jtorch helpers only. They see values in the accumulator's dtype (float16
is accumulated in float32; integer and bool sums and products in int64, their inputs converted
first, as PyTorch's make_reduction does); `like(x, v)` keeps float32 code in float32.
"""
import math

from numba import types

from .frontend import implements
from .reduction import Reduction
from .scalar_unary import like


# ---- type-dispatching helpers -------------------------------------------------------------------
def abs_squared(x):
    """|x|**2: x*x for real x, re**2 + im**2 for complex x (no square root taken)."""
    return x.real * x.real + x.imag * x.imag


@implements(abs_squared)
def _abs_squared(x):
    if isinstance(x, types.Complex):
        return lambda x: x.real * x.real + x.imag * x.imag
    return lambda x: x * x


def divide_by_count(acc, n):
    """acc / n, n a real number: complex / 0 is nan+nanj, as in PyTorch, not a ZeroDivisionError."""
    return acc / n


@implements(divide_by_count)
def _divide_by_count(acc, n):
    if isinstance(acc, types.Complex):
        ty = acc
        return lambda acc, n: ty(complex(acc.real / n, acc.imag / n))
    return lambda acc, n: acc / n


# ---- pieces --------------------------------------------------------------------------------------
def add(acc, x):
    return acc + x


def multiply(acc, x):
    return acc * x


def logical_and(acc, x):
    return acc and x


def logical_or(acc, x):
    return acc or x


def greater(x, acc):
    return x > acc


def less(x, acc):
    return x < acc


def nonzero(x):
    return x != 0


def nan_to_zero(x):
    return x if x == x else like(x, 0)


def square_abs(x):
    return abs_squared(x)


def mean(acc, n):
    return divide_by_count(acc, n)


def norm_map(x, p):
    """|x|**p, with ord 2, 1 and 0 (a count of non-zeros) written out."""
    if p == 2:
        return abs_squared(x)
    a = abs(x)
    if p == 1:
        return a
    if p == 0:
        return like(a, 1.0) if a != 0 else like(a, 0.0)
    return a ** p


def norm_project(acc, n, p):
    if p == 2:
        return math.sqrt(acc)
    if p == 1 or p == 0:
        return acc
    return acc ** (like(acc, 1.0) / p)


def real_part(x):
    return x.real


def var_project(acc, n, dof, take_sqrt):
    v = acc / dof
    return math.sqrt(v) if take_sqrt else v


# ---- declarations --------------------------------------------------------------------------------
SUM = Reduction("sum", 0, combine=add, cascade=True)
NANSUM = Reduction("nansum", 0, combine=add, map=nan_to_zero, cascade=True)
MEAN = Reduction("mean", 0, combine=add, project=mean, cascade=True)
PROD = Reduction("prod", 1, combine=multiply)
ALL = Reduction("all", True, combine=logical_and, acc="bool")
ANY = Reduction("any", False, combine=logical_or, acc="bool")
COUNT_NONZERO = Reduction("count_nonzero", 0, combine=add, map=nonzero, cascade=True)
# selecting: amax, argmax and max.dim share one kernel module (the same pieces)
MAX = Reduction("max", "lowest", better=greater, nan_propagates=True, acc="in")
MIN = Reduction("min", "highest", better=less, nan_propagates=True, acc="in")
MAX_REAL = Reduction("max_real", "lowest", better=greater, map=real_part, nan_propagates=True)  # logsumexp
ARGMAX = MAX.with_outputs("indices", name="argmax")
ARGMIN = MIN.with_outputs("indices", name="argmin")
MAX_DIM = MAX.with_outputs("values", "indices")
MIN_DIM = MIN.with_outputs("values", "indices")
# linalg.vector_norm for finite ord (ord is an extra: one kernel for every ord); inf and -inf are
# amax / amin of |x|, as PyTorch computes them
NORM = Reduction("norm", 0, combine=add, map=norm_map, project=norm_project, cascade=True, nextra=1)
# var / std: the sum of squared deviations from the mean (the second pass), divided by the degrees
# of freedom (extra 0) and square-rooted when extra 1 is non-zero
VAR_STD = Reduction("var_std", 0, combine=add, map=square_abs, project=var_project, cascade=True, nextra=2)
