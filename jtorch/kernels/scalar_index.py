"""Index-map loops, declared by their combine step (PyTorch's ScatterGatherKernel.cpp ReduceAdd,
ReduceMultiply, ReduceMaximum, ... and IndexKernel.cpp's index_*); the backends generate the
loops from these (jtorch/kernels/cpu/index_codegen.py for the CPU).

An index map walks an iteration shape with three operands, a destination, a source and an int64
index, and adds `index value * index_stride` to one of the first two:

    gather side:   dst[p] = combine(dst[p], src[q + idx * index_stride], *extras)
    scatter side:  dst[p + idx * index_stride] = combine(that element, src[q], *extras)

A negative index value is wrapped (idx + index_size): the operators that refuse negative values
have refused them before the loop runs, so one loop serves both. gather, index_select and take
are the gather side with `assign`; scatter, scatter_add, scatter_reduce, index_add, index_copy,
index_fill, index_reduce and put_ the scatter side (a fill value is a one-element source with
stride 0). The combine pieces are scalar functions (math only), as reductions' pieces are, and
reuse scalar_reduce's where they are the same.
"""
from collections.abc import Callable
from dataclasses import dataclass

from .scalar_reduce import multiply


def assign(acc, x):
    return x


def add_scaled(acc, x, alpha):
    return acc + alpha * x


def maximum_nan(acc, x):
    """ReduceMaximum: a NaN source wins, else std::max (a NaN already there stays)."""
    return x if x != x else (x if acc < x else acc)


def minimum_nan(acc, x):
    return x if x != x else (x if x < acc else acc)


def masked_fill(self, mask, value):
    """masked_fill_'s elementwise loop (self and the mask, the value an extra in self's dtype)."""
    return value if mask else self


@dataclass(frozen=True)
class IndexMap:
    """One generated index-map loop: its combine piece, the side the index applies to, and how
    many extras combine takes after (acc, x)."""

    name: str
    combine: Callable
    scatter: bool
    nextra: int = 0
    reads_dst: bool = True   # False: the destination's old value is never read (a plain copy)

    def kernel_key(self) -> tuple:
        return (self.combine, self.scatter, self.nextra)


GATHER = IndexMap("gather", assign, scatter=False, reads_dst=False)
SCATTER = IndexMap("scatter", assign, scatter=True, reads_dst=False)
SCATTER_ADD = IndexMap("scatter_add", add_scaled, scatter=True, nextra=1)
SCATTER_MUL = IndexMap("scatter_mul", multiply, scatter=True)
SCATTER_MAX = IndexMap("scatter_amax", maximum_nan, scatter=True)
SCATTER_MIN = IndexMap("scatter_amin", minimum_nan, scatter=True)

# scatter_reduce / index_reduce names -> the map ("mean" is a sum and a count)
BY_REDUCE = {"sum": SCATTER_ADD, "mean": SCATTER_ADD, "prod": SCATTER_MUL, "amax": SCATTER_MAX,
             "amin": SCATTER_MIN}
