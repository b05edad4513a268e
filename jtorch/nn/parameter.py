"""`Parameter` and `Buffer` (torch/nn/parameter.py): tensors that a Module registers by assignment."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, SupportsIndex, TypeVar

from ..tensor import Tensor

__all__ = ["Parameter", "Buffer"]


_T = TypeVar("_T", bound=Tensor)


def _make_subclass(cls: type[_T], data: Tensor, requires_grad: bool) -> _T:
    """torch.Tensor._make_subclass: a `cls` instance over data's memory (and version counter), detached."""
    if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = cls._make(data._storage, data._size, data._stride, data._offset, data.dtype, data._device, data._vc)
    t._requires_grad = bool(requires_grad)
    return t


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning one to a Module attribute registers it."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            import jtorch

            data = jtorch.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                            "detach() returns an instance of the same type, but return type Tensor was found "
                            "instead. To use the type as a Parameter, please correct the detach() semantics "
                            "defined by its __torch_dispatch__() implementation.")
        return _make_subclass(cls, data, requires_grad)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor has no __init__ to call)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto: SupportsIndex) -> tuple[Any, ...]:
        # as torch: the data as a plain tensor, rebuilt into a Parameter (torch._utils._rebuild_parameter)
        return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Parameter:
    """torch._utils._rebuild_parameter (the unpickling side of Parameter.__reduce_ex__)."""
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    # isinstance(t, Buffer) is true for a tensor marked by Buffer(...) (torch's metaclass trick)
    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """torch.nn.Buffer: marks a tensor so that assigning it to a Module attribute registers a buffer."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]  # a marked
        # Tensor, not a Buffer instance: torch's trick (isinstance answers through the metaclass)
        if data is None:
            import jtorch

            data = jtorch.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t._is_buffer = True  # type: ignore[attr-defined]  # a mark in the tensor's __dict__
        t.persistent = persistent  # type: ignore[attr-defined]  # as above
        return t
