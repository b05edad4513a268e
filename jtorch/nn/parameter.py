"""`Parameter` and `Buffer` (torch/nn/parameter.py): tensors that a Module registers by assignment; the
uninitialized forms that the Lazy modules hold until their first forward."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, SupportsIndex, TypeVar

from ..tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


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


# ---- uninitialized parameters and buffers (the Lazy modules' placeholders) ------------------------------
# the Tensor methods an uninitialized tensor still answers (torch's _allowed_methods); every other method
# raises, as torch's __torch_function__ does
_ALLOWED_METHODS = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                              "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize",
                              "share_memory_", "requires_grad_"})


class UninitializedTensorMixin:
    cls_to_become: Any = None

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor memory of `shape` (uninitialised) and make it its initialised class."""
        import jtorch

        me: Any = self  # a Tensor (the mixin precedes Parameter or Tensor in the bases)
        data = me.data
        me.data = jtorch.empty(shape, device=data.device if device is None else device,
                               dtype=data.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self) -> Any:
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto: SupportsIndex) -> tuple[Any, ...]:
        return (self.__class__, (self.requires_grad,))  # type: ignore[attr-defined]  # a Tensor's

    def __getattribute__(self, name: str) -> Any:
        if name[0] != "_" and name not in _ALLOWED_METHODS:
            static = getattr(Tensor, name, None)  # the class attribute (made on first use for bindings)
            if static is not None and not isinstance(static, property) and callable(static):
                raise ValueError(f"Attempted to use an uninitialized parameter in <method '{name}' of "
                                 "'torch._C.TensorBase' objects>. This error happens when you are using a "
                                 "`LazyModule` or explicitly manipulating `torch.nn.parameter."
                                 f"{type(self).__name__}` objects. When using LazyModules Call `forward` with a "
                                 "dummy batch to initialize the parameters before calling torch functions")
        return object.__getattribute__(self, name)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> UninitializedParameter:
        import jtorch

        return _make_subclass(cls, jtorch.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass  # everything happens in __new__

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        if id(self) in memo:
            return memo[id(self)]
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> UninitializedBuffer:
        import jtorch

        ret = _make_subclass(cls, jtorch.empty(0, device=device, dtype=dtype), requires_grad)
        ret.persistent = persistent  # type: ignore[attr-defined]  # torch's marks, in the tensor's __dict__
        ret._is_buffer = True  # type: ignore[attr-defined]  # as above
        return ret


def is_lazy(param: Any) -> bool:
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
