"""Unary elementwise operators: each family is its schemas, its TensorIterator configuration and
its scalar function (jtorch/kernels/scalar_unary.py)."""
from __future__ import annotations

from ..kernels import scalar_unary as s
from ..structured.elementwise import elementwise
from ..structured.tensor_iterator import UNARY_FLOAT_OP

elementwise("exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            functional="exp(Tensor self) -> Tensor", inplace="exp_(Tensor(a!) self) -> Tensor(a!)",
            config=UNARY_FLOAT_OP, scalar=s.exp)
