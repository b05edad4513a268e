"""Reductions, declared by their scalar pieces (jtorch.kernels.reduction.Reduction); the backends
generate their loops from these (jtorch/kernels/cpu/reduce_codegen.py).

The pieces follow the rules of scalar functions (jtorch/kernels/cpu/codegen.py): plain module-level
`def`s using `math` and jtorch helpers only. They see values in the accumulator's dtype (float16
is accumulated in float32; integer and bool sums and products in int64, their inputs converted
first, as PyTorch's make_reduction does); `like(x, v)` keeps float32 code in float32.
"""
import math

from numba import types
from numba.extending import overload

from .cpu.codegen import jit_import
from .reduction import Reduction
from .scalar_unary import like

_NUMPY_MODEL = {"error_model": "numpy"}


# ---- type-dispatching helpers -------------------------------------------------------------------
@jit_import
def abs_squared(x):
    """|x|**2: x*x for real x, re**2 + im**2 for complex x (no square root taken)."""
    return x.real * x.real + x.imag * x.imag


@overload(abs_squared, jit_options=_NUMPY_MODEL)
def _abs_squared_ov(x):
    if isinstance(x, types.Complex):
        return lambda x: x.real * x.real + x.imag * x.imag
    return lambda x: x * x


@jit_import
def divide_by_count(acc, n):
    """acc / n, n a real number: complex / 0 is nan+nanj, as in PyTorch, not a ZeroDivisionError."""
    return acc / n


@overload(divide_by_count, jit_options=_NUMPY_MODEL)
def _divide_by_count_ov(acc, n):
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


def absolute(x):
    return abs(x)


def square_abs(x):
    return abs_squared(x)


def abs_pow(x, p):
    return abs(x) ** p


def mean(acc, n):
    return divide_by_count(acc, n)


def square_root(acc, n):
    return math.sqrt(acc)


def root(acc, n, p):
    return acc ** (like(acc, 1.0) / p)


def divide_by_dof(acc, n, dof):
    return acc / dof


def sqrt_of_quotient(acc, n, dof):
    return math.sqrt(acc / dof)


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
ARGMAX = MAX.with_outputs("indices", name="argmax")
ARGMIN = MIN.with_outputs("indices", name="argmin")
MAX_DIM = MAX.with_outputs("values", "indices")
MIN_DIM = MIN.with_outputs("values", "indices")
# vector norms (linalg.vector_norm's special cases of ord) and the sum of squares of var/std
NORM_ZERO = Reduction("norm_zero", 0, combine=add, map=nonzero, cascade=True)
NORM_ONE = Reduction("norm_one", 0, combine=add, map=absolute, cascade=True)
NORM_TWO = Reduction("norm_two", 0, combine=add, map=square_abs, project=square_root, cascade=True)
NORM_INF = Reduction("norm_inf", 0, better=greater, map=absolute, nan_propagates=True)
NORM_NEG_INF = Reduction("norm_neg_inf", "highest", better=less, map=absolute, nan_propagates=True)
NORM_P = Reduction("norm_p", 0, combine=add, map=abs_pow, project=root, cascade=True, nextra=1)
# var / std of deviations from the mean (the second pass); the extra is the degrees of freedom
VAR = Reduction("var", 0, combine=add, map=square_abs, project=divide_by_dof, cascade=True, nextra=1)
STD = Reduction("std", 0, combine=add, map=square_abs, project=sqrt_of_quotient, cascade=True, nextra=1)
