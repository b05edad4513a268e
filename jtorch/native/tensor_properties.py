"""Small Tensor queries and Python-level helpers (TensorProperties.cpp, python_variable_methods.cpp,
torch/_tensor.py): `is_signed`, `get_device`, `is_inference` (also as functions), `type_as`,
`nbytes`, `itemsize`, `const_data_ptr`, `name`, `as_subclass`, `apply_`, `map_`, and
`jtorch.is_storage` / `jtorch.typename`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..storage import TypedStorage, UntypedStorage
from ..tensor import Tensor
from ..tls import is_grad_enabled
from .registry import composite_implicit_autograd


@composite_implicit_autograd("is_signed(Tensor self) -> bool", variants="function, method")
def is_signed(self: Tensor) -> bool:
    return bool(self.dtype.is_signed)


@composite_implicit_autograd("get_device(Tensor self) -> int", variants="function, method")
def get_device(self: Tensor) -> int:
    """The CUDA device index; -1 for every other device (CPU, meta), as torch."""
    dev = self._device
    return (dev.index or 0) if dev.type == "cuda" else -1


@composite_implicit_autograd("is_inference(Tensor self) -> bool", variants="function, method")
def is_inference(self: Tensor) -> bool:
    return Tensor.is_inference(self)


@composite_implicit_autograd("type_as(Tensor self, Tensor other) -> Tensor", variants="method")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """self.to(other.options()): other's dtype and device."""
    return self.to(device=other.device, dtype=other.dtype)


def nbytes(self: Tensor) -> int:
    """numel() * itemsize (the elements the tensor has, not its storage's size)."""
    return self.numel() * self.dtype.itemsize


def itemsize(self: Tensor) -> int:
    return self.dtype.itemsize


def const_data_ptr(self: Tensor) -> int:
    return self.data_ptr()


def name(self: Tensor) -> None:
    """A tensor's name (TensorImpl has none for plain tensors): None, read-only as in torch."""
    return None


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """The same tensor as an instance of a Tensor subclass: an alias that keeps autograd's history
    (AliasBackward0 when it requires grad)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    from .views import alias

    out = alias.op(self) if self.requires_grad else Tensor._make(
        self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)
    if type(out) is not cls:
        new = cls._make(out._storage, out._size, out._stride, out._offset, out.dtype, out._device, out._vc)  # type: ignore[attr-defined]
        new.grad_fn, new._requires_grad, new._output_nr = out.grad_fn, out._requires_grad, out._output_nr
        if out.grad_fn is None and out._requires_grad:
            new._grad_accumulator = None
        out = new
    return out


def _check_python_apply(self: Tensor, fn: str) -> None:
    if self.requires_grad and is_grad_enabled():
        raise RuntimeError(f"Can't call {fn}() on Variable that requires grad. Use var.detach().{fn}() instead.")
    if self._device.type not in ("cpu", "meta"):
        raise TypeError(f"{fn}_ is only implemented on CPU tensors")


def _store(self: Tensor, values: list) -> None:
    """Write Python results back with torch.tensor's conversion and checks for self's dtype."""
    from .tensor_new import _leaves_to_array

    arr = _leaves_to_array(values, self.dtype).reshape(self._size)
    self.numpy()[...] = arr


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:
    """Replace each element x by callable(x) (a Python number), in place; CPU only."""
    _check_python_apply(self, "apply_")
    if self._device.type == "meta":
        return self
    view = self.detach().numpy()
    _store(self, [callable(x) for x in view.reshape(-1).tolist()])
    return self  # torch's apply_ writes through the data pointer: no version bump


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
    """self[i] = callable(self[i], tensor[i]) with `tensor` broadcast to self's shape; CPU only."""
    _check_python_apply(self, "map_")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"map_(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    if tensor.dtype is not self.dtype:
        from .python_methods import type_string

        raise TypeError(f"map_: expected {type_string(self, 'torch')} for 'other' (got "
                        f"{type_string(tensor, 'torch')})")
    if self._device.type == "meta":
        return self
    a = self.detach().numpy().reshape(-1).tolist()
    b = np.broadcast_to(tensor.detach().numpy(), self._size).reshape(-1).tolist()
    _store(self, [callable(x, y) for x, y in zip(a, b)])
    return self


def is_storage(obj: Any) -> bool:
    """Whether obj is a storage (typed or untyped)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def typename(obj: Any) -> str:
    """A tensor's legacy type name ('jtorch.FloatTensor'), else the object's qualified class name."""
    if isinstance(obj, Tensor):
        return obj.type()  # type: ignore[return-value]  # no dtype: the name
    if obj is Tensor:  # the class lives in jtorch.tensor; its public name is jtorch.Tensor
        return "jtorch.Tensor"
    module = getattr(obj, "__module__", "") or ""
    qualname = ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


_METHODS = {"apply_": apply_, "map_": map_, "as_subclass": as_subclass, "const_data_ptr": const_data_ptr}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.nbytes = property(nbytes)  # type: ignore[attr-defined,assignment]  # declared in _tensor_python.pyi
Tensor.itemsize = property(itemsize)  # type: ignore[attr-defined,assignment]
Tensor.name = property(name)  # type: ignore[attr-defined,assignment]
