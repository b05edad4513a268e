"""Conversions: to / _to_copy / contiguous (TensorConversions.cpp), item / _local_scalar_dense /
is_nonzero (Scalar.cpp, TensorProperties.cpp), and the Python-level conversions torch writes by
hand in python_variable_methods.cpp and torch/_tensor.py: the `to(...)` argument parser, `type`,
`numpy`, `tolist` and the Python number protocol (`int(t)`, `float(t)`, `bool(t)`, ...).
"""
from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import as_memory_format, contiguous_format, memory_format, preserve_format, strided
from ..device import as_device, device
from ..tensor import Tensor
from .copy import (clone, copy_into_new, empty, empty_strided, infer_dense_strides, is_non_overlapping_and_dense,
                   suggest_memory_format)
from .registry import declare

_to_copy = declare(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    variants="")  # like torch: reachable as jtorch.ops.aten._to_copy, no Python binding
to_dtype_layout = declare(
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    variants="method")
to_device = declare(
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
to_dtype = declare(
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
to_other = declare(
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)", variants="method")
contiguous = declare("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
                     variants="method")
item = declare("item(Tensor self) -> Scalar", variants="method")
local_scalar_dense = declare("_local_scalar_dense(Tensor self) -> Scalar", variants="")
is_nonzero = declare("is_nonzero(Tensor self) -> bool", variants="function, method")
# Tensor.detach stays the Python-level method in tensor.py (it wins over the generated binding).
detach = declare("detach(Tensor(a) self) -> Tensor(a)", variants="function, method")


# ---- _to_copy and to -------------------------------------------------------------------------------
@_to_copy.impl("CompositeExplicitAutograd")
def _to_copy_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    if layout is not None and layout is not strided:
        raise RuntimeError("to(options) doesn't support converting to a different layout, but got self.layout "
                           f"being {strided} and options.layout set as {layout}")
    dtype = dtype or self.dtype
    dev = self._device if device is None else as_device(device)
    mf = as_memory_format(memory_format) or preserve_format
    if mf is preserve_format:
        if is_non_overlapping_and_dense(self._size, self._stride):
            r = empty_strided.op(self._size, self._stride, dtype=dtype, device=dev)
        else:
            r = empty_strided.op(self._size, infer_dense_strides(self._size, self._stride), dtype=dtype, device=dev)
    else:
        r = empty.op(self._size, dtype=dtype, device=dev, memory_format=mf)
    return copy_into_new(r, self, non_blocking)


def _to_will_alias(self: Tensor, dtype: Any, layout: Any, dev: Any, copy: bool, mf: Any) -> bool:
    mf = as_memory_format(mf) or preserve_format
    return ((dtype is None or dtype is self.dtype)
            and (layout is None or layout is strided)
            and (dev is None or dev == self._device)
            and not copy
            and (mf is preserve_format or suggest_memory_format(self) is mf))


def _to_impl(self: Tensor, dtype: Any, layout: Any, dev: Any, pin_memory: Any, non_blocking: bool, copy: bool,
             mf: Any) -> Tensor:
    if dev is not None:
        dev = as_device(dev)
    if _to_will_alias(self, dtype, layout, dev, copy, mf):
        return self
    return _to_copy.op(self, dtype=dtype, layout=layout, device=dev, pin_memory=pin_memory,
                       non_blocking=non_blocking, memory_format=mf)


@to_dtype_layout.impl("CompositeImplicitAutograd")
def to_dtype_layout_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                           pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                           memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


@to_device.impl("CompositeImplicitAutograd")
def to_device_kernel(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
                     memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, device, None, non_blocking, copy, memory_format)


@to_dtype.impl("CompositeImplicitAutograd")
def to_dtype_kernel(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, None, None, non_blocking, copy, memory_format)


@to_other.impl("CompositeImplicitAutograd")
def to_other_kernel(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, other.dtype, strided, other._device, None, non_blocking, copy, memory_format)


@contiguous.impl("CompositeImplicitAutograd")
def contiguous_kernel(self: Tensor, *, memory_format: Any = contiguous_format) -> Tensor:
    mf = as_memory_format(memory_format)
    if self.is_contiguous(memory_format=mf):
        return self
    if mf is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone.op(self, memory_format=mf)


@detach.impl("CompositeExplicitAutograd")
def detach_kernel(self: Tensor) -> Tensor:
    """Same storage and version counter, no autograd history, and not a view (`_base` is None)."""
    return Tensor._make(self._storage, self._size, self._stride, self._offset, self.dtype, self._device, self._vc)


# ---- item, _local_scalar_dense, is_nonzero ------------------------------------------------------------
@item.impl("CompositeImplicitAutograd")
def item_kernel(self: Tensor) -> Any:
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return local_scalar_dense.op(self)


@local_scalar_dense.impl("CPU")
def local_scalar_dense_cpu(self: Tensor) -> Any:
    return self._storage.data[self._offset].item()


@local_scalar_dense.impl("Meta")
def local_scalar_dense_meta(self: Tensor) -> Any:
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


@is_nonzero.impl("CompositeImplicitAutograd")
def is_nonzero_kernel(self: Tensor) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(item.op(self) != 0)


# ---- the Python number protocol (python_variable_methods.cpp: dispatch_to<T>) -------------------------
def python_scalar(self: Tensor, cpp_type: str) -> Any:
    """self.item<T>() for T in int64_t / double / c10::complex<double>, with torch's checks."""
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    v = item.op(self)
    if cpp_type == "c10::complex<double>":
        return builtins.complex(v)
    if isinstance(v, builtins.complex):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {cpp_type} without overflow")
        v = v.real
    if cpp_type == "double":
        return builtins.float(v)
    return builtins.int(v)


def to_int(self: Tensor) -> int:
    if self.dtype.is_floating_point:  # Python ints do not overflow: int(float) with Python's errors
        return builtins.int(python_scalar(self, "double"))
    return python_scalar(self, "int64_t")


def to_float(self: Tensor) -> float:
    if self.requires_grad and _grad_enabled():
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.", UserWarning, stacklevel=3)
    return python_scalar(self, "double")


def to_index(self: Tensor) -> int:
    d = self.dtype
    if d.is_floating_point or d.is_complex or self.numel() != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return python_scalar(self, "int64_t")


# ---- Python-level methods: to(...), type(...), numpy(), tolist() ----------------------------------------
_PY_TYPES = {builtins.float: _dt.float64, builtins.int: _dt.int64, builtins.bool: _dt.bool,
             builtins.complex: _dt.complex128}
_TO_SIGNATURES = (
    "(Device device = None, jtorch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "jtorch.memory_format memory_format = None)",
    "(jtorch.dtype dtype, bool non_blocking = False, bool copy = False, *, jtorch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, jtorch.memory_format memory_format = None)",
)


class _NoMatch(Exception):
    pass


def _as_dtype(x: Any, optional: bool) -> Any:
    if x is None and optional:
        return None
    if type(x) is _dt.dtype:
        return x
    if x in _PY_TYPES:  # a Python type names a dtype, as in torch (float -> float64)
        return _PY_TYPES[x]
    raise _NoMatch


def _as_device_arg(x: Any) -> Any:
    if x is None:
        return None
    if type(x) is device:
        d = x
    elif isinstance(x, (str, builtins.int)) and not isinstance(x, builtins.bool):
        d = device(x)
    else:
        raise _NoMatch
    if d.type == "cuda":  # torch initialises CUDA while parsing the device
        from .. import cuda

        cuda._lazy_init()
    return d


def _as_bool(x: Any) -> bool:
    if type(x) is builtins.bool or isinstance(x, np.bool_):
        return builtins.bool(x)
    raise _NoMatch


def _as_mf(x: Any) -> Any:
    if x is None or type(x) is memory_format:
        return x
    raise _NoMatch


def _sig0(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None):  # noqa: ANN001,ANN202
    return _as_device_arg(device), _as_dtype(dtype, True), _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def _sig1(dtype, non_blocking=False, copy=False, *, memory_format=None):  # noqa: ANN001,ANN202
    return None, _as_dtype(dtype, False), _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def _sig2(tensor, non_blocking=False, copy=False, *, memory_format=None):  # noqa: ANN001,ANN202
    if not isinstance(tensor, Tensor):
        raise _NoMatch
    return tensor._device, tensor.dtype, _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def _type_name(x: Any) -> str:
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, _dt.dtype):
        return "jtorch.dtype"
    if isinstance(x, device):
        return "jtorch.device"
    return type(x).__name__


def parse_to(args: tuple, kwargs: dict) -> tuple:
    """torch::utils::parse_to_conversion: (device, dtype, non_blocking, copy, memory_format)."""
    for sig in (_sig0, _sig1, _sig2):
        try:
            return sig(*args, **kwargs)
        except (TypeError, _NoMatch):
            continue
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    lines = "".join(f" * {s}\n" for s in _TO_SIGNATURES)
    raise TypeError(f"to() received an invalid combination of arguments - got ({', '.join(got)}), "
                    f"but expected one of:\n{lines}")


def dispatch_to(self: Tensor, dev: Any, dtype: Any, non_blocking: bool, copy: bool, mf: Any) -> Tensor:
    """python_variable_methods.cpp dispatch_to: pick the `to` overload for what was given."""
    if dev is None and dtype is None:
        if not copy and mf is None:
            return self
        return to_dtype_layout.op(self, dtype=self.dtype, layout=strided, device=self._device,
                                  non_blocking=non_blocking, copy=copy, memory_format=mf)
    if dev is None:
        return to_dtype.op(self, dtype, non_blocking, copy, mf)
    if dtype is None:
        return to_dtype_layout.op(self, dtype=self.dtype, layout=strided, device=dev, non_blocking=non_blocking,
                                  copy=copy, memory_format=mf)
    return to_device.op(self, dev, dtype, non_blocking, copy, mf)


def to_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return dispatch_to(self, *parse_to(args, kwargs))


_TYPE_NAMES = {
    _dt.bool: "Bool", _dt.uint8: "Byte", _dt.int8: "Char", _dt.int16: "Short", _dt.int32: "Int", _dt.int64: "Long",
    _dt.float16: "Half", _dt.float32: "Float", _dt.float64: "Double", _dt.complex64: "ComplexFloat",
    _dt.complex128: "ComplexDouble",
}
_BY_TYPE_NAME = {v + "Tensor": k for k, v in _TYPE_NAMES.items()}


def type_string(self: Tensor) -> str:
    """torch::utils::options_to_string, with jtorch's module name: 'jtorch.FloatTensor'."""
    dev = "" if self._device.type == "cpu" else self._device.type + "."
    return f"jtorch.{dev}{_TYPE_NAMES[self.dtype]}Tensor"


def _options_from_string(name: str) -> tuple[str, _dt.dtype]:
    """torch::utils::options_from_string: 'torch.cuda.FloatTensor' -> ('cuda', float32)."""
    parts = name.split(".")
    if len(parts) in (2, 3) and parts[0] in ("torch", "jtorch"):
        dev = parts[1] if len(parts) == 3 else "cpu"
        if parts[-1] == "Tensor" and len(parts) == 2:
            return "cpu", _dt.get_default_dtype()
        d = _BY_TYPE_NAME.get(parts[-1])
        if d is not None and dev in ("cpu", "cuda", "meta"):
            return dev, d
    raise ValueError(f"invalid type: '{name}'")


def type_method(self: Tensor, dtype: Any = None, non_blocking: bool = False, *, memory_format: Any = None,
                **kwargs: Any) -> "Tensor | str":
    """Tensor.type(): the type string, or a conversion to a dtype / 'jtorch.XTensor' name."""
    if "async" in kwargs:  # torch's deprecated spelling of non_blocking
        non_blocking = kwargs.pop("async")
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        return type_string(self)
    if isinstance(dtype, _dt.dtype):
        return dispatch_to(self, None, dtype, builtins.bool(non_blocking), False, memory_format)
    if isinstance(dtype, builtins.type):
        name = "torch.Tensor" if issubclass(dtype, Tensor) else dtype.__name__
    elif isinstance(dtype, str):
        name = dtype
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    dev_type, d = _options_from_string(name)
    dev = self._device if dev_type == self._device.type else device(dev_type)
    if dev.type == "cuda":
        from .. import cuda

        cuda._lazy_init()
    return dispatch_to(self, dev, d, builtins.bool(non_blocking), False, memory_format)


def _grad_enabled() -> bool:
    import jtorch

    fn = getattr(jtorch, "is_grad_enabled", None)
    return True if fn is None else builtins.bool(fn())


def numpy_method(self: Tensor, *, force: bool = False) -> np.ndarray:
    """tensor_to_numpy: an ndarray sharing this CPU tensor's memory."""
    if not force:
        if self._device.type != "cpu":
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        if self.requires_grad and _grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._numpy_view()
    t = self if self._device.type == "cpu" else dispatch_to(self, device("cpu"), None, False, False, None)
    return t._numpy_view()


def tolist_method(self: Tensor) -> Any:
    """tensor_to_list: nested Python lists of Python numbers (copied to the CPU first)."""
    t = self if self._device.type == "cpu" else dispatch_to(self, device("cpu"), None, False, False, None)
    return t._numpy_view().tolist()


def cpu_method(self: Tensor, memory_format: Any = preserve_format) -> Tensor:
    return dispatch_to(self, device("cpu"), None, False, False, memory_format)


def cuda_method(self: Tensor, device_: Any = None, non_blocking: bool = False,
                memory_format: Any = preserve_format) -> Tensor:
    from .. import cuda

    cuda._lazy_init()
    dev = device("cuda") if device_ is None else (device("cuda", device_) if isinstance(device_, builtins.int)
                                                   else device(device_))
    return dispatch_to(self, dev, None, builtins.bool(non_blocking), False, memory_format)


# ---- pickling and deepcopy -------------------------------------------------------------------------------
def rebuild_tensor(values: "np.ndarray | None", size: tuple, dtype_name: str, device_str: str,
                   requires_grad: bool) -> Tensor:
    """Unpickle a tensor saved by Tensor.__reduce_ex__ (values are None for meta tensors)."""
    dtype = getattr(_dt, dtype_name)
    dev = device(device_str)
    if values is None:
        t = empty.op(tuple(size), dtype=dtype, device=dev)
    else:
        from .._dlpack import tensor_from_numpy

        t = tensor_from_numpy(values)
        if dev.type != "cpu":
            t = dispatch_to(t, dev, None, False, False, None)
    t.requires_grad = requires_grad
    return t


def reduce_ex(self: Tensor) -> tuple:
    if self._device.type == "meta":
        values = None
    else:
        t = self if self._device.type == "cpu" else dispatch_to(self, device("cpu"), None, False, False, None)
        values = np.array(t._numpy_view(), order="K", copy=True)  # keeps a permuted layout's strides
    return (rebuild_tensor, (values, tuple(self._size), self.dtype.name, str(self._device), self.requires_grad))


def deepcopy(self: Tensor, memo: dict) -> Tensor:
    """Tensor.__deepcopy__: views deep-copied together keep sharing one new storage (through memo)."""
    from ..storage import CPUStorage, MetaStorage

    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
            "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
            "see https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    st = self._storage
    if type(st) is CPUStorage:
        new_st = memo.get(id(st))
        if new_st is None:
            new_st = memo[id(st)] = CPUStorage(st.data.copy())
            memo.setdefault(id(memo), []).append(st)  # copy's keep-alive list: id(st) stays unique
        new = Tensor._make(new_st, self._size, self._stride, self._offset, self.dtype, self._device)
    elif type(st) is MetaStorage:
        new = Tensor._make(MetaStorage(st.numel(), st._itemsize), self._size, self._stride, self._offset,
                           self.dtype, self._device)
    else:
        new = clone.op(self)
    new.requires_grad = self.requires_grad
    if self.grad is not None:
        new.grad = deepcopy(self.grad, memo)
    if self.__dict__:
        import copy as _copy

        new.__dict__.update(_copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = new
    return new

