"""A reduction, declared by its scalar pieces; backends generate their loops from it
(jtorch/kernels/cpu/reduce_codegen.py for the CPU). The pieces are module-level functions of
jtorch/kernels/scalar_reduce.py, written with `math.*` only so that every target compiles them.

    acc = identity
    for x in the reduced elements:  acc = combine(acc, map(x))      (map: optional pre-map)
    result = project(acc, n, *extras)                                (n: number of reduced elements)

Two families:

* accumulating reductions give `combine(acc, x)`: sum, prod, all, any. `cascade=True` declares
  that combine is addition and asks for PyTorch's cascade summation (4 levels of partial sums,
  chunks of >= 16 elements, several lanes); the generator then writes the addition itself so that
  the compiler may vectorise a chunk's lanes.
* selecting reductions give `better(x, acc) -> bool` ("x strictly beats acc"): max, min,
  argmax, argmin, max.dim. combine keeps the better value; the index-carrying form keeps the
  index of the first best element (ties: the first index). With `nan_propagates`, a NaN beats
  everything and the first NaN wins.

`outputs` says what a call writes: ("values",), ("indices",) or ("values", "indices").
`acc` names the accumulator's dtype: "out" (the result's; float16 computes in float32), "in"
(the input's) or "bool".
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

Identity = int | float | bool | str   # a number, or "lowest" / "highest" of the dtype


@dataclass(frozen=True)
class Reduction:
    name: str
    identity: Identity
    combine: Callable | None = None          # accumulating: acc = combine(acc, x)
    better: Callable | None = None           # selecting: x strictly better than acc
    map: Callable | None = None              # x -> the value accumulated, map(x, *extras)
    project: Callable | None = None          # (acc, n, *extras) -> result
    cascade: bool = False                    # combine is +: cascade summation
    nan_propagates: bool = False             # selecting: NaN wins (first NaN's index)
    acc: str = "out"                         # "out" | "in" | "bool"
    outputs: tuple[str, ...] = ("values",)
    nextra: int = 0                          # scalar parameters, passed to map and project as
                                             # far as their signatures take them

    def __post_init__(self) -> None:
        if (self.combine is None) == (self.better is None):
            raise ValueError(f"reduction {self.name}: give exactly one of combine and better")
        if "indices" in self.outputs and self.better is None:
            raise ValueError(f"reduction {self.name}: indices need a selecting reduction (better=)")
        if self.acc not in ("out", "in", "bool"):
            raise ValueError(f"reduction {self.name}: acc must be 'out', 'in' or 'bool'")

    @property
    def selecting(self) -> bool:
        return self.better is not None

    @property
    def indexed(self) -> bool:
        return "indices" in self.outputs

    def with_outputs(self, *outputs: str, name: str | None = None) -> Reduction:
        """The same scalar pieces writing other outputs (argmax and max.dim from amax)."""
        return replace(self, outputs=tuple(outputs), name=name or self.name)

    def kernel_key(self) -> tuple:
        """What the generated loops depend on: the pieces, not the name or the outputs."""
        return (self.identity, self.combine, self.better, self.map, self.project, self.cascade,
                self.nan_propagates, self.nextra)


@dataclass(frozen=True)
class OrderStatistic:
    """The lower median along the one reduced dim, with its index: not a fold of scalar pieces
    (it needs the whole row), so backends give it a selection kernel of its own. A NaN in a row
    makes the result NaN, at the first NaN's index."""

    name: str
    outputs: tuple[str, ...] = ("values", "indices")
