"""`jtorch.Tensor`: a view (sizes, strides, offset, dtype) onto a Storage, plus a dispatch key set.

Operators reach tensors only through the dispatcher; the methods here are the attributes PyTorch
keeps on TensorImpl. This module is a leaf record: it imports nothing that computes. Operator
methods (`t.add`, `t.view`, ...) are generated into this class by `jtorch.bindings` from the
operator declarations; the Python-level methods that call operators (`t.to(...)`, `t.numpy()`,
`int(t)`, `repr(t)`, `t[i]`, the legacy constructor `jtorch.Tensor(...)`, ...) are set on it by
the native layer that implements them, when that layer is imported.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING, Any, TypeVar, overload

from . import dtypes as _dt
from . import tls as _tls_module
from ._enums import as_memory_format, channels_last, channels_last_3d, strided
from .device import device
from .geometry import contiguous_strides, is_channels_last, is_channels_last_3d, is_contiguous, wrap_dim  # noqa: F401 (re-exported)
from .keyset import DispatchKey, autograd_dispatch_keyset_with_ADInplaceOrView, key_repr
from .scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, unpack_long
from .storage import Storage, UntypedStorage, new_storage  # noqa: F401  (new_storage: re-exported for the structured layer)

_AD_INPLACE_OR_VIEW_BIT = key_repr(DispatchKey.ADInplaceOrView)
_NOT_AUTOGRAD = ~int(autograd_dispatch_keyset_with_ADInplaceOrView)
_MATH_BITS = key_repr(DispatchKey.Conjugate) | key_repr(DispatchKey.Negative)  # native/math_bits.py
_tls = _tls_module.local


class CreationMeta(IntEnum):
    """How a view was made, which decides whether it may be written in place with grad and whether
    it has a gradient edge (torch/csrc/autograd/variable.h). Kept on the tensor's autograd record."""

    DEFAULT = 0
    IN_CUSTOM_FUNCTION = 1
    MULTI_OUTPUT_NODE = 2
    NO_GRAD_MODE = 3
    INFERENCE_MODE = 4


class Size(tuple):
    """`jtorch.Size`: a tuple of ints that prints like torch.Size."""

    def __new__(cls, sizes: Any = ()) -> Size:
        """As torch.Size(): each item taken through __index__ (bools, NumPy ints, integer 0-dim
        tensors), anything else refused with torch's text. jtorch's own shapes are made by
        `_size` below, which trusts its tuple of ints (every `.shape` makes one)."""
        items = []
        for i, x in enumerate(sizes):
            try:
                items.append(unpack_long(x))
            except TypeError:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(x).__name__}')") from None
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        return f"jtorch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return _size(r) if isinstance(i, slice) else r


def _size(t: tuple) -> Size:
    """A Size of a tuple of ints known to be valid (a tensor's own shape): no per-item check."""
    return tuple.__new__(Size, t)


_new = object.__new__
_TensorT = TypeVar("_TensorT", bound="Tensor")  # a subclass's _make makes that subclass (Parameter)


class VersionCounter:
    """Shared by every view of one storage: in-place writes through any view bump it."""

    __slots__ = ("value",)
    key_mask = -1  # a view keeps every key of its device

    def __init__(self) -> None:
        self.value = 0


class _InferenceVersion:
    """The disabled version counter of an inference tensor (c10::VariableVersion(DISABLED)): writing
    one outside inference mode is the error PyTorch raises from increment_version."""

    __slots__ = ()
    key_mask = ~0  # replaced below: views of an inference tensor are inference tensors

    @property
    def value(self) -> int:
        return 0

    @value.setter
    def value(self, v: int) -> None:
        if not _tls.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
                "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                "details.")


if TYPE_CHECKING:
    # The operator methods (t.add, t + u, ...) are generated on first use; the type checker reads
    # them from the stub generated from the same declarations (tools/gen_pyi.py).
    from ._tensor_base import _TensorBase
else:
    _TensorBase = object


class Tensor(_TensorBase):
    __slots__ = (
        "_storage", "_size", "_stride", "_offset", "dtype", "_device", "_key_set", "_vc", "_base",
        "_requires_grad", "_grad", "grad_fn", "_is_wrapped_number", "__weakref__", "__dict__",
    )
    # the slots' types (TensorImpl's fields; set by _make)
    _storage: Storage
    _size: tuple[int, ...]
    _stride: tuple[int, ...]
    _offset: int
    dtype: _dt.dtype
    _device: device
    _key_set: int  # the raw DispatchKeySet
    _vc: VersionCounter | _InferenceVersion
    _base: Tensor | None  # the tensor this one is a view of
    _requires_grad: bool
    _grad: Tensor | None
    grad_fn: Any  # the autograd Node that made it (autograd/node.py, a layer above this record), or None
    _is_wrapped_number: bool
    # Autograd's per-tensor records (AutogradMeta), rarely set: class defaults, an instance sets its own.
    _output_nr = 0          # which output of grad_fn this tensor is
    _grad_accumulator: Any = None  # the leaf's AccumulateGrad node (which holds the leaf weakly)
    _hooks: dict[int, Callable[..., Any]] | None = None  # a leaf's gradient hooks (a non-leaf's live on its grad_fn)
    _retains_grad = False
    _view_fn: tuple[Any, ...] | None = None  # (op, args, kwargs, ...): replays this view on its _base (views.py)
    _view_version = 0       # the version of the memory its grad_fn was made for (stale once it changes)
    _creation_meta = CreationMeta.DEFAULT  # how a view was made (autograd's CreationMeta)
    __array_priority__ = 1000  # numpy defers to our reflected operators

    @classmethod
    def _make(
        cls: type[_TensorT],
        storage: Storage,
        size: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        dtype: _dt.dtype,
        dev: device,
        vc: VersionCounter | _InferenceVersion | None = None,
        base: Tensor | None = None,
    ) -> _TensorT:
        t = _new(cls)
        t._storage = storage
        t._size = size
        t._stride = stride
        t._offset = offset
        t.dtype = dtype
        t._device = dev
        if vc is None:
            if _tls.inference:  # made in inference mode: no autograd keys, no version counter
                t._key_set = dev._key_set & _NOT_AUTOGRAD
                vc = _NO_VERSION
            else:
                t._key_set = dev._key_set
                vc = _new(VersionCounter)  # VersionCounter() without its __init__ frame
                vc.value = 0
        else:
            t._key_set = dev._key_set & vc.key_mask
        t._vc = vc
        t._base = base
        t._requires_grad = False
        t._grad = None
        t.grad_fn = None
        t._is_wrapped_number = False
        return t

    # ---- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return _size(self._size)

    @overload
    def size(self, dim: None = None) -> Size: ...
    @overload
    def size(self, dim: int) -> int: ...

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return _size(self._size)
        return self._size[wrap_dim(dim, len(self._size))]

    @overload
    def stride(self, dim: None = None) -> tuple[int, ...]: ...
    @overload
    def stride(self, dim: int) -> int: ...

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._size))]

    def dim(self) -> int:
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        return math.prod(self._size)

    nelement = numel

    def storage_offset(self) -> int:
        return self._offset

    @property
    def device(self) -> device:
        return self._device

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    @property
    def layout(self) -> Any:
        return strided

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_contiguous(self, memory_format: Any = None) -> bool:
        if memory_format is not None and as_memory_format(memory_format) is channels_last:
            return is_channels_last(self._size, self._stride)
        if memory_format is not None and as_memory_format(memory_format) is channels_last_3d:
            return is_channels_last_3d(self._size, self._stride)
        return is_contiguous(self._size, self._stride)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def untyped_storage(self) -> UntypedStorage:
        """The one UntypedStorage object of this tensor's memory (every view returns the same one)."""
        return UntypedStorage._wrap(self._storage)

    @property
    def _version(self) -> int:
        if self._vc is _NO_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    def _bump_version(self) -> None:
        self._vc.value += 1

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is."""
        return self._output_nr

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, requires_grad: bool) -> None:
        self.requires_grad_(requires_grad)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._vc is _NO_VERSION and not _tls.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:  # as TensorBase::grad()
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
                "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
                "for more information.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if type(value) is not Tensor and not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            # torch 2.13's texts (VariableHooks::set_grad): dtype as TypeMeta and ScalarType name it
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{TYPE_META_NAME[value.dtype]}' "
                    f"to a tensor with grad_dtype '{SCALAR_TYPE_NAME[self.dtype]}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                    "caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match.")
            if value._device.type != self._device.type:
                raise RuntimeError(f"attempting to assign a gradient with device type '{value._device.type}' to a "
                                   f"tensor with device type '{self._device.type}'. Please ensure that the gradient "
                                   "and the tensor are on the same device")
            if value._device != self._device:
                raise RuntimeError(f"attempting to assign a gradient located on device with index "
                                   f"'{value._device.index}' to a tensor located on device with index "
                                   f"'{self._device.index}'. Please ensure that the gradient and the tensor are on "
                                   "the same device")
            if value._size != self._size:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._size)}' to a tensor of "
                                   f"size '{list(self._size)}'. Please ensure that the gradient and the tensor are "
                                   "the same size")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def data(self) -> Tensor:
        """variable_data(): a detached alias with a version counter of its own (unlike detach(), its
        in-place writes are not seen by autograd's version checks)."""
        vc = self._vc
        if vc is not _NO_VERSION:
            vc = _new(VersionCounter)
            vc.value = 0
        return Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, vc)

    @data.setter
    def data(self, new: Tensor) -> None:
        """`t.data = other`: t takes other's storage and geometry, keeping its autograd identity."""
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        if self._requires_grad and not (new.dtype.is_floating_point or new.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._storage, self._size, self._stride, self._offset = new._storage, new._size, new._stride, new._offset
        self.dtype, self._device, self._key_set = new.dtype, new._device, new._key_set

    def detach(self) -> Tensor:
        t = Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)
        t._key_set |= self._key_set & _MATH_BITS  # detach keeps the conjugate and negative bits
        return t

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                               "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                               "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                               "function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def is_inference(self) -> bool:
        """Made in inference mode: its key set has no ADInplaceOrView / Autograd keys."""
        return not (self._key_set & _AD_INPLACE_OR_VIEW_BIT)

    # ---- Python protocol (the record's part; conversions, printing, pickling and iteration are
    # attached by the layers that implement them: jtorch.native.python_methods, views, indexing)
    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __hash__(self) -> int:
        return id(self)


_InferenceVersion.key_mask = _NOT_AUTOGRAD
_NO_VERSION = _InferenceVersion()
