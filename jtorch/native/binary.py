"""Binary, ternary and comparison elementwise operators: each family is its schemas, its
TensorIterator configuration and its scalar function (jtorch/kernels/scalar_binary.py)."""
from __future__ import annotations

from ..kernels import scalar_binary as s
from ..structured.elementwise import elementwise
from ..structured.tensor_iterator import BINARY_OP, COMPARISON_OP
from .elementwise import alpha_check

elementwise("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
            functional="add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            inplace="add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            config=BINARY_OP, scalar=s.add, check=alpha_check, dunder="__add__ __radd__", inplace_dunder="__iadd__")
elementwise("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            functional="mul.Tensor(Tensor self, Tensor other) -> Tensor",
            inplace="mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            config=BINARY_OP, scalar=s.mul, dunder="__mul__ __rmul__", inplace_dunder="__imul__")
elementwise("lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
            functional="lt.Tensor(Tensor self, Tensor other) -> Tensor",
            inplace="lt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            config=COMPARISON_OP, scalar=s.lt, dunder="__lt__")
