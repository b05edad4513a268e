"""A tensor's storage from Python (python_variable_methods.cpp, torch/_tensor.py): `storage()`,
`untyped_storage()` (on the record), `storage_type()`, the `set_` overloads, `resize_` /
`resize_as_`, `share_memory_` / `is_shared` (and the multiprocessing reduction that lets a child
process map a shared storage), `pin_memory` / `is_pinned`, `is_set_to`.

`resize_`, `resize_as_`, `is_set_to`, `pin_memory`, `is_pinned` are operators as in torch; `set_`
takes a Storage, a type the schema language here does not carry, so it is a Python method that
parses torch's five overloads itself.
"""
from __future__ import annotations

import functools
import multiprocessing.reduction
import operator
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, channels_last, preserve_format
from ..backends import by_device_type, lazy_init
from ..device import CPU, as_device
from ..geometry import channels_last_strides, contiguous_strides, storage_extent
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME
from ..storage import (
    TypedStorage,
    UntypedStorage,
    legacy_storage_classes,
    pinned_storage,
    shared_array,
    shared_map,
    typed_impl,
)
from ..tensor import Tensor
from ..tls import is_grad_enabled
from .factories import check_size_nonnegative
from .registry import declare
from .views import legacy_type_name

resize_ = declare("resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
                  variants="method")
resize_as_ = declare("resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) "
                     "-> Tensor(a!)", variants="function, method")
is_set_to = declare("is_set_to(Tensor self, Tensor tensor) -> bool", variants="method")
is_pinned = declare("is_pinned(Tensor self, Device? device=None) -> bool", variants="method")
pin_memory = declare("pin_memory(Tensor(a) self, Device? device=None) -> Tensor(a)", variants="method")

LEGACY_STORAGES = legacy_storage_classes()  # FloatStorage, ... by name
_STORAGE_BY_DTYPE = {cls._legacy_dtype: cls for cls in LEGACY_STORAGES.values()}  # type: ignore[attr-defined]


def _cpp_name(d: _dt.dtype) -> str:
    """The C++ type name torch's set_ messages print (c10::BFloat16 for a dtype the table lacks)."""
    return TYPE_META_NAME.get(d) or f"c10::{SCALAR_TYPE_NAME[d]}"


# ---- storage(), storage_type() -------------------------------------------------------------------------
def storage(self: Tensor) -> TypedStorage:
    """`t.storage()`: a TypedStorage of t's dtype over t's UntypedStorage (deprecated in torch, with
    its warning once per process)."""
    from ..storage import _warn_typed_storage_removal

    _warn_typed_storage_removal()
    return TypedStorage._wrap(self.untyped_storage(), self.dtype)


def storage_type(self: Tensor) -> type:
    """`t.storage_type()`: the legacy storage class of t's dtype (FloatStorage, ...)."""
    return _STORAGE_BY_DTYPE[self.dtype]


# ---- resize_ / resize_as_ -----------------------------------------------------------------------------
def _resizable(t: Tensor) -> None:
    """Memory jtorch did not allocate (a NumPy array's, a buffer's, a shared mapping) cannot grow: torch's
    storages over such memory have no resizable allocator."""
    data = getattr(t._storage, "data", None) if t._device.type == "cpu" else None
    if isinstance(data, np.ndarray) and data.base is not None:
        raise RuntimeError("Trying to resize storage that is not resizable")


def _resize_impl(t: Tensor, size: tuple[int, ...], stride: tuple[int, ...] | None) -> None:
    """resize_impl_cpu_: grow the storage to hold the new geometry, keep the elements there."""
    check_size_nonnegative(size)
    strides = stride if stride is not None else contiguous_strides(size)
    n = storage_extent(size, strides)
    if n and t._offset + n > t._storage.numel():
        _resizable(t)
        t._storage.resize_(t._offset + n)
    t._size, t._stride = size, strides


@resize_.impl("CompositeImplicitAutograd")
def resize_kernel(self: Tensor, size: Any, *, memory_format: Any = None) -> Tensor:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    size = tuple(int(s) for s in size)
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    mf = as_memory_format(memory_format)
    if mf is preserve_format:
        raise RuntimeError("Unsupported memory format Preserve")
    if mf is channels_last:
        if len(size) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        _resize_impl(self, size, channels_last_strides(size))
    elif self._size != size or mf is not None:
        _resize_impl(self, size, None)
    self._bump_version()
    return self


@resize_as_.impl("CompositeImplicitAutograd")
def resize_as_kernel(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    return resize_kernel(self, the_template._size, memory_format=memory_format)


class Resize:
    """torch.autograd._functions.Resize: the out-of-place `resize` is a reshape that keeps the number of
    elements (its node is ResizeBackward: a jtorch.autograd.Function, made on first use)."""

    fn: Any = None

    @classmethod
    def apply(cls, tensor: Tensor, sizes: tuple) -> Tensor:
        if cls.fn is None:
            from ..autograd.function import Function

            class Resize(Function):
                @staticmethod
                def forward(ctx: Any, t: Tensor, shape: tuple) -> Tensor:
                    numel = functools.reduce(operator.mul, shape, 1)
                    if t.numel() != numel:
                        raise RuntimeError(
                            f"requested resize to {'x'.join(map(str, shape))} ({numel} elements in total), but the "
                            f"given tensor has a size of {'x'.join(map(str, t.size()))} ({t.numel()} elements). "
                            "autograd's resize can only change the shape of a given tensor, while preserving the "
                            "number of elements. ")
                    ctx.input_sizes = t.size()
                    return t.new(t).contiguous().view(*shape)

                @staticmethod
                def backward(ctx: Any, grad_output: Tensor) -> tuple:
                    return grad_output.contiguous().view(ctx.input_sizes), None

            cls.fn = Resize
        return cls.fn.apply(tensor, sizes)


def resize_method(self: Tensor, *sizes: Any) -> Tensor:
    import warnings

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, sizes)


def resize_as_method(self: Tensor, tensor: Tensor) -> Tensor:
    import warnings

    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, tensor.size())


# ---- set_ -----------------------------------------------------------------------------------------------
_SET_SIGNATURES = ("()", "(torch.Storage source)",
                   "(torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
                   "(Tensor source)",
                   "(Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)")


def _set_no_match(args: tuple, kwargs: dict) -> TypeError:
    from .tensor_new import invalid_combination

    return invalid_combination("set_", _SET_SIGNATURES, args, kwargs)


def _check_set_allowed(self: Tensor) -> None:
    if self.requires_grad and self.is_leaf and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _set_storage(self: Tensor, src: Any, offset: int, size: tuple[int, ...], stride: tuple[int, ...] | None) -> Tensor:
    if isinstance(src, TypedStorage):
        if src.dtype is not self.dtype:
            raise RuntimeError(f"Expected a Storage of type {_cpp_name(self.dtype)} or an UntypedStorage, "
                               f"but got type {SCALAR_TYPE_NAME[src.dtype]} for argument 1 'storage'")
        src = src._untyped_storage
    if src.device != self._device:
        raise RuntimeError(f'Attempted to set the storage of a tensor on device "{self._device}" to a storage on '
                           f'different device "{src.device}".  This is no longer allowed; the devices must match.')
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    _check_set_allowed(self)
    impl = typed_impl(src._impl, self.dtype)
    self._storage, self._offset = impl, offset
    _resize_impl(self, size, stride)
    self._bump_version()
    return self


def set_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`t.set_()`, `t.set_(source)` (a tensor or a storage), `t.set_(source, storage_offset, size,
    stride=None)`: t takes the source's memory with the given geometry."""
    names = ("source", "storage_offset", "size", "stride")
    if len(args) > 4 or any(k not in names for k in kwargs):
        raise _set_no_match(args, kwargs)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound:
            raise _set_no_match(args, kwargs)
        bound[k] = v
    if not bound:
        _check_set_allowed(self)
        self._storage = by_device_type_storage(self)
        self._offset, self._size, self._stride = 0, (0,), (1,)
        self._bump_version()
        return self
    src = bound.get("source")
    if isinstance(src, Tensor):
        if len(bound) == 1:
            if src.dtype is not self.dtype:
                raise RuntimeError(f"Could not set tensor of type {_cpp_name(src.dtype)} to a tensor of type "
                                   f"{_cpp_name(self.dtype)}")
            if src._device != self._device:
                raise RuntimeError(f'Attempted to set the storage of a tensor on device "{self._device}" to a storage '
                                   f'on different device "{src._device}".  This is no longer allowed; the devices '
                                   "must match.")
            _check_set_allowed(self)
            self._storage, self._offset = src._storage, src._offset
            self._size, self._stride = src._size, src._stride
            self._bump_version()
            return self
        if src.dtype is not self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_cpp_name(src.dtype)} to a tensor of type "
                               f"{_cpp_name(self.dtype)}")
        storage_src: Any = src.untyped_storage()
    elif isinstance(src, (UntypedStorage, TypedStorage)):
        storage_src = src
        if len(bound) == 1:
            n = (src.nbytes() // self.dtype.itemsize)
            return _set_storage(self, src, 0, (n,), None)
    else:
        raise _set_no_match(args, kwargs)
    try:
        offset = int(bound["storage_offset"])
        size = tuple(int(s) for s in bound["size"])
        stride_arg = bound.get("stride")
        stride = None if stride_arg is None else tuple(int(s) for s in stride_arg)
    except (KeyError, TypeError):
        raise _set_no_match(args, kwargs) from None
    if stride is not None and len(stride) != len(size):
        raise RuntimeError("mismatch in length of strides and shape")
    return _set_storage(self, storage_src, offset, size, stride)


def by_device_type_storage(self: Tensor) -> Any:
    """An empty storage of self's dtype on self's device (set_() with no source)."""
    from ..storage import new_storage

    return new_storage(0, self.dtype, self._device)


@is_set_to.impl("CompositeExplicitAutograd")
def is_set_to_kernel(self: Tensor, tensor: Tensor) -> bool:
    """Same storage, offset, sizes and strides (TensorImpl comparison, as torch's is_set_to)."""
    return (self._storage is tensor._storage and self._offset == tensor._offset
            and self._size == tensor._size and self._stride == tensor._stride)


# ---- shared memory --------------------------------------------------------------------------------------
def share_memory_method(self: Tensor) -> Tensor:
    """`t.share_memory_()`: move the storage to shared memory (a no-op for CUDA, and when already shared);
    a child process then sees the same memory."""
    self.untyped_storage().share_memory_()
    return self


def is_shared_method(self: Tensor) -> bool:
    return self._device.type == "cuda" or shared_map(self._storage) is not None


def _rebuild_shared(name: str, nbytes: int, np_dtype: str, size: tuple, stride: tuple, offset: int,
                    dtype_name: str, requires_grad: bool) -> Tensor:
    """The child side of a shared tensor sent through multiprocessing: map the same /dev/shm file."""
    data = shared_array(nbytes, name).view(np.dtype(np_dtype))
    st = by_device_type["cpu"].storage_from_numpy(data)
    t = Tensor._make(st, tuple(size), tuple(stride), offset, getattr(_dt, dtype_name), CPU)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_for_multiprocessing(t: Tensor) -> Any:
    """ForkingPickler's reduction: a tensor whose storage is shared is sent by the name of its memory;
    any other tensor by value (as pickle sends it)."""
    m = shared_map(t._storage) if t._device.type == "cpu" else None
    if m is None:
        return t.__reduce_ex__(2)
    data = t._storage.data  # type: ignore[attr-defined]  # a CPU storage
    return (_rebuild_shared, (m.name, data.nbytes, data.dtype.str, t._size, t._stride, t._offset, t.dtype.name,
                              t.requires_grad))


multiprocessing.reduction.ForkingPickler.register(Tensor, _reduce_for_multiprocessing)


# ---- pinned memory ---------------------------------------------------------------------------------------
def _accelerator_available() -> bool:
    try:
        lazy_init("cuda")
    except RuntimeError:
        return False
    return "cuda" in by_device_type


@is_pinned.impl("CompositeExplicitAutograd")
def is_pinned_kernel(self: Tensor, device: Any = None) -> bool:
    return bool(getattr(self._storage, "pinned", False))


@pin_memory.impl("CompositeExplicitAutograd")
def pin_memory_kernel(self: Tensor, device: Any = None) -> Tensor:
    if device is not None and as_device(device).type == "cpu":
        raise RuntimeError("CPU device type not an accelerator.")
    if self._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{legacy_type_name(self)}' only dense CPU tensors can be pinned")
    if not _accelerator_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if getattr(self._storage, "pinned", False):
        return self
    values = np.ascontiguousarray(by_device_type["cpu"].numpy_view(self)).reshape(-1)
    return Tensor._make(pinned_storage(values), self._size, contiguous_strides(self._size), 0, self.dtype, CPU)


def _storage_from_sequence(data: Any, dtype: _dt.dtype, dev: Any) -> Any:
    """TypedStorage(sequence): the elements converted as jtorch.tensor(data, dtype=dtype) converts them."""
    from .tensor_new import _internal_new_from_data

    return _internal_new_from_data(data, dtype, dev, infer=False, copy_variables=True, copy_numpy=True,
                                   warn_name=None)._storage


TypedStorage._from_sequence = staticmethod(_storage_from_sequence)

_METHODS = {
    "storage": storage,
    "storage_type": storage_type,
    "set_": set_,
    "resize": resize_method,
    "resize_as": resize_as_method,
    "share_memory_": share_memory_method,
    "is_shared": is_shared_method,
}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
