"""`jtorch.Tensor`: a view (sizes, strides, offset, dtype) onto a Storage, plus a dispatch key set.

Operators reach tensors only through the dispatcher; the methods here are the attributes PyTorch
keeps on TensorImpl. Operator methods (`t.add`, `t.view`, ...) are generated into this class by
`jtorch.bindings` from the operator declarations.
"""
from __future__ import annotations

import math
from typing import Any, Iterator

import numpy as np

from . import dtypes as _dt
from .device import CPU, device
from .geometry import contiguous_strides, is_channels_last, is_contiguous, wrap_dim  # noqa: F401
from .storage import CPUStorage, MetaStorage, Storage


class Size(tuple):
    """`jtorch.Size`: a tuple of ints that prints like torch.Size."""

    def __repr__(self) -> str:
        return f"jtorch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


class VersionCounter:
    """Shared by every view of one storage: in-place writes through any view bump it."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def _is_contiguous(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    return is_contiguous(size, stride)


def _is_channels_last(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    return is_channels_last(size, stride)


class Tensor:
    __slots__ = (
        "_storage", "_size", "_stride", "_offset", "dtype", "_device", "_key_set", "_vc", "_base",
        "requires_grad", "grad", "grad_fn", "_is_wrapped_number", "__weakref__", "__dict__",
    )
    __array_priority__ = 1000  # numpy defers to our reflected operators

    def __new__(cls, *args: Any, **kwargs: Any) -> "Tensor":
        # The legacy constructor jtorch.Tensor(data) / jtorch.Tensor(*sizes) (default dtype).
        from .native.factories import legacy_constructor

        return legacy_constructor(cls, *args, **kwargs)

    @classmethod
    def _make(
        cls,
        storage: Storage,
        size: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        dtype: _dt.dtype,
        dev: device,
        vc: VersionCounter | None = None,
        base: "Tensor | None" = None,
    ) -> "Tensor":
        t = object.__new__(cls)
        t._storage = storage
        t._size = size
        t._stride = stride
        t._offset = offset
        t.dtype = dtype
        t._device = dev
        t._key_set = dev._key_set
        t._vc = vc if vc is not None else VersionCounter()
        t._base = base
        t.requires_grad = False
        t.grad = None
        t.grad_fn = None
        t._is_wrapped_number = False
        return t

    # ---- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._size)

    def size(self, dim: int | None = None) -> "Size | int":
        if dim is None:
            return Size(self._size)
        return self._size[_wrap_dim(dim, len(self._size))]

    def stride(self, dim: int | None = None) -> "tuple[int, ...] | int":
        if dim is None:
            return self._stride
        return self._stride[_wrap_dim(dim, len(self._size))]

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
    def layout(self) -> str:
        from . import strided

        return strided

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_contiguous(self, memory_format: Any = None) -> bool:
        if memory_format is not None and str(memory_format) == "jtorch.channels_last":
            return _is_channels_last(self._size, self._stride)
        return _is_contiguous(self._size, self._stride)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def untyped_storage(self) -> Storage:
        return self._storage

    @property
    def _version(self) -> int:
        return self._vc.value

    def _bump_version(self) -> None:
        self._vc.value += 1

    @property
    def T(self) -> "Tensor":
        """All dimensions reversed (torch deprecates it for ndim other than 2, but allows it)."""
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self) -> "Tensor":
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self) -> "Tensor":
        return self.T.conj() if self.is_complex() else self.T

    @property
    def mH(self) -> "Tensor":
        return self.mT.conj() if self.is_complex() else self.mT

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def data(self) -> "Tensor":
        return self.detach()

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    def detach(self) -> "Tensor":
        return Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)

    # ---- Python protocol ----------------------------------------------------------------------
    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if not self._size:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _scalar_or_raise(self, what: str) -> Any:
        """self.item<T>() for Python's number protocol; `what` is the C++ type torch names in
        its errors (int64_t, double, c10::complex<double>)."""
        from .native.conversion import python_scalar

        return python_scalar(self, what)

    def __bool__(self) -> bool:
        from .native.conversion import is_nonzero

        return is_nonzero.op(self)

    def __int__(self) -> int:
        from .native.conversion import to_int

        return to_int(self)

    def __float__(self) -> float:
        from .native.conversion import to_float

        return to_float(self)

    def __complex__(self) -> complex:
        return self._scalar_or_raise("c10::complex<double>")

    def __index__(self) -> int:
        from .native.conversion import to_index

        return to_index(self)

    def __format__(self, spec: str) -> str:
        if self.dim() == 0 and not self.is_meta and type(self) is Tensor:
            return self.detach().item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self) -> str:
        from ._tensor_str import tensor_repr

        values = None if self.is_meta else self._host_values()
        gf = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        return tensor_repr(values, shape=self._size, dtype=self.dtype, device=str(self._device),
                           requires_grad=self.requires_grad and gf is None, grad_fn_name=gf)

    __str__ = __repr__

    def _host_values(self) -> np.ndarray:
        """The values as a NumPy array on the host (a view for CPU tensors)."""
        t = self if self._device.type == "cpu" else self.cpu()
        return t._numpy_view()

    def _numpy_view(self) -> np.ndarray:
        """A NumPy array sharing this CPU tensor's memory (its base keeps the storage alive)."""
        st = self._storage
        if not isinstance(st, CPUStorage):
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        buf = st.data
        isz = buf.itemsize
        strides = tuple(s * isz for s in self._stride)
        if 0 in self._size:  # nothing is read: any offset inside the buffer will do
            return np.ndarray(self._size, dtype=buf.dtype, buffer=buf, offset=0, strides=strides)
        return np.ndarray(self._size, dtype=buf.dtype, buffer=buf, offset=self._offset * isz, strides=strides)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy's array protocol (with NumPy 2's copy=): a view when no copy is needed."""
        arr = self.numpy()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """An ndarray sharing this CPU tensor's memory (force=True: detach and copy to the CPU first)."""
        from .native.conversion import numpy_method

        return numpy_method(self, force=force)

    def tolist(self) -> Any:
        from .native.conversion import tolist_method

        return tolist_method(self)

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        """to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None),
        to(dtype, ...), to(tensor, ...): torch's hand-written parser over the aten::to overloads."""
        from .native.conversion import to_method

        return to_method(self, *args, **kwargs)

    def cpu(self, memory_format: Any = None) -> "Tensor":
        from .native.conversion import cpu_method

        return cpu_method(self, memory_format)

    def cuda(self, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> "Tensor":
        from .native.conversion import cuda_method

        return cuda_method(self, device, non_blocking, memory_format)

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> "Tensor | str":
        from .native.conversion import type_method

        return type_method(self, dtype, non_blocking, **kwargs)

    def __dlpack__(self, *, stream: Any = -1, max_version: Any = None, dl_device: Any = None, copy: Any = None):
        from ._dlpack import to_dlpack

        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple:
        from ._dlpack import dlpack_device

        return dlpack_device(self)

    def __hash__(self) -> int:
        return id(self)

    def __reduce_ex__(self, proto: int):
        from .native.conversion import reduce_ex

        return reduce_ex(self)

    def __deepcopy__(self, memo: dict) -> "Tensor":
        from .native.conversion import deepcopy

        return deepcopy(self, memo)

    # Dtype conversions (python_variable_methods.cpp): self.to(dtype), keeping memory_format.
    def _to_dtype(self, dtype: _dt.dtype, memory_format: Any) -> "Tensor":
        from .native.conversion import dispatch_to

        return dispatch_to(self, None, dtype, False, False, memory_format)

    def bool(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.bool, memory_format)

    def byte(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.uint8, memory_format)

    def char(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.int8, memory_format)

    def short(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.int16, memory_format)

    def int(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.int32, memory_format)

    def long(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.int64, memory_format)

    def half(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.float16, memory_format)

    def float(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.float32, memory_format)

    def double(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.float64, memory_format)

    def cfloat(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.complex64, memory_format)

    def cdouble(self, *, memory_format: Any = None) -> "Tensor":
        return self._to_dtype(_dt.complex128, memory_format)


_wrap_dim = wrap_dim


def new_cpu_storage(numel: int, dtype: _dt.dtype) -> CPUStorage:
    return CPUStorage(np.empty(numel, dtype=dtype.numpy))


def new_storage(numel: int, dtype: _dt.dtype, dev: device) -> Storage:
    if dev.type == "cpu":
        return CPUStorage(np.empty(numel, dtype=dtype.numpy))
    if dev.type == "meta":
        return MetaStorage(numel, dtype.itemsize)
    from .backends import storage_for

    return storage_for(dev)(numel, dtype, dev)
