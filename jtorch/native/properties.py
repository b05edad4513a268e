"""Tensor properties as operators (TensorProperties.cpp): is_floating_point, is_complex, numel,
is_same_size. The Tensor methods of the first three are the Python-level ones in tensor.py (they
win over the generated bindings); the functions `jtorch.is_floating_point(x)`, ... are generated
from these declarations, with torch's argument errors."""
from __future__ import annotations

from ..tensor import Tensor
from .registry import declare

is_floating_point = declare("is_floating_point(Tensor self) -> bool", variants="function, method")
is_complex = declare("is_complex(Tensor self) -> bool", variants="function, method")
numel = declare("numel(Tensor self) -> int", variants="function, method")
is_same_size = declare("is_same_size(Tensor self, Tensor other) -> bool", variants="function, method")


@is_floating_point.impl("CompositeImplicitAutograd")
def is_floating_point_kernel(self: Tensor) -> bool:
    return self.dtype.is_floating_point


@is_complex.impl("CompositeImplicitAutograd")
def is_complex_kernel(self: Tensor) -> bool:
    return self.dtype.is_complex


@numel.impl("CompositeImplicitAutograd")
def numel_kernel(self: Tensor) -> int:
    return self.numel()


@is_same_size.impl("CompositeExplicitAutograd")
def is_same_size_kernel(self: Tensor, other: Tensor) -> bool:
    return self._size == other._size
