"""The Python-level Tensor methods torch writes by hand (python_variable_methods.cpp,
torch/_tensor.py, tensor_numpy.cpp): the number protocol (`int(t)`, `float(t)`, `bool(t)`, ...),
the `to(...)` argument parser and `cpu` / `cuda` / `type` / the dtype shortcuts (`t.float()`),
`numpy` / `__array__` / `tolist`, `repr`, pickling and deepcopy. They call operators through the
dispatcher; this module sets them on the Tensor record when it is imported (the record itself,
jtorch/tensor.py, imports nothing that computes).
"""
from __future__ import annotations

import builtins
import copy as _copy
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import memory_format, preserve_format, strided
from .._tensor_str import tensor_repr
from ..backends import by_device_type
from ..device import device
from ..scalar import SCALAR_TYPE_NAME, bfloat16_bits_to_float32, not_implemented
from ..tensor import Tensor
from .conversion import is_nonzero, item, to_device, to_dtype, to_dtype_layout
from .copy import clone
from .factories import empty
from .math_bits import CONJ_BIT, NEG_BIT, resolved_math_bits
from .tensor_new import tensor_from_numpy, type_name


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
        from ..backends import lazy_init

        lazy_init("cuda")
    return d


def _as_bool(x: Any) -> bool:
    if type(x) is builtins.bool or isinstance(x, np.bool_):
        return builtins.bool(x)
    raise _NoMatch


def _as_mf(x: Any) -> Any:
    if x is None or type(x) is memory_format:
        return x
    raise _NoMatch


def _sig0(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None):
    return _as_device_arg(device), _as_dtype(dtype, True), _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def _sig1(dtype, non_blocking=False, copy=False, *, memory_format=None):
    return None, _as_dtype(dtype, False), _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def _sig2(tensor, non_blocking=False, copy=False, *, memory_format=None):
    if not isinstance(tensor, Tensor):
        raise _NoMatch
    return tensor._device, tensor.dtype, _as_bool(non_blocking), _as_bool(copy), _as_mf(memory_format)


def parse_to(args: tuple, kwargs: dict) -> tuple:
    """torch::utils::parse_to_conversion: (device, dtype, non_blocking, copy, memory_format)."""
    for sig in (_sig0, _sig1, _sig2):
        try:
            return sig(*args, **kwargs)
        except (TypeError, _NoMatch):
            continue
    got = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
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


_BY_TYPE_NAME = {v + "Tensor": k for k, v in SCALAR_TYPE_NAME.items()}


def type_string(self: Tensor, module: str = "jtorch") -> str:
    """torch::utils::options_to_string: 'jtorch.FloatTensor', 'jtorch.meta.FloatTensor' (`module`
    'torch' where PyTorch's own text is kept)."""
    dev = "" if self._device.type == "cpu" else self._device.type + "."
    return f"{module}.{dev}{SCALAR_TYPE_NAME[self.dtype]}Tensor"


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
                **kwargs: Any) -> Tensor | str:
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
        if hasattr(dtype, "_device_type"):  # a legacy type (jtorch.LongTensor): its qualified name
            name = f"{dtype.__module__}.{name}"
    elif isinstance(dtype, str):
        name = dtype
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    dev_type, d = _options_from_string(name)
    dev = self._device if dev_type == self._device.type else device(dev_type)
    if dev.type == "cuda":
        from ..backends import lazy_init

        lazy_init("cuda")
    return dispatch_to(self, dev, d, builtins.bool(non_blocking), False, memory_format)


from ..tls import is_grad_enabled as _grad_enabled  # noqa: E402  # after the declarations that tls's users need


def numpy_view(t: Tensor) -> np.ndarray:
    """A NumPy array sharing a host tensor's memory (the host backend's view; its error for others)."""
    return by_device_type["cpu"].numpy_view(t)


def numpy_method(self: Tensor, *, force: bool = False) -> np.ndarray:
    """tensor_to_numpy: an ndarray sharing this CPU tensor's memory."""
    if not force:
        if self._device.type != "cpu":
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        if self.requires_grad and _grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._key_set & CONJ_BIT:
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. "
                               "Use tensor.resolve_conj().numpy() instead.")
        if self._key_set & NEG_BIT:
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. "
                               "Use tensor.resolve_neg().numpy() instead.")
    if self.dtype is _dt.bfloat16 or self.dtype in _dt.bits_dtypes:  # no NumPy type (aten_to_numpy_dtype)
        raise TypeError(f"Got unsupported ScalarType {SCALAR_TYPE_NAME[self.dtype]}")
    if not force:
        return numpy_view(self)
    t = self if self._device.type == "cpu" else dispatch_to(self, device("cpu"), None, False, False, None)
    return numpy_view(resolved_math_bits(t))


def _values(a: np.ndarray) -> np.ndarray:
    """Host values NumPy can compute with: bfloat16's bit patterns widened to float32 (exact)."""
    return bfloat16_bits_to_float32(a) if a.dtype.kind == "V" else a


def tolist_method(self: Tensor) -> Any:
    """tensor_to_list: nested Python lists of Python numbers (copied to the CPU first)."""
    if self.dtype in _dt.bits_dtypes and self.numel():
        raise RuntimeError("load_scalar: invalid type")
    t = self if self._device.type == "cpu" else dispatch_to(self, device("cpu"), None, False, False, None)
    return _values(numpy_view(resolved_math_bits(t))).tolist()


def cpu_method(self: Tensor, memory_format: Any = preserve_format) -> Tensor:
    return dispatch_to(self, device("cpu"), None, False, False, memory_format)


def cuda_method(self: Tensor, device_: Any = None, non_blocking: bool = False,
                memory_format: Any = preserve_format) -> Tensor:
    from ..backends import lazy_init

    lazy_init("cuda")
    dev = device("cuda") if device_ is None else (device("cuda", device_) if isinstance(device_, builtins.int)
                                                   else device(device_))
    return dispatch_to(self, dev, None, builtins.bool(non_blocking), False, memory_format)


# ---- pickling and deepcopy -------------------------------------------------------------------------------
def rebuild_tensor(values: np.ndarray | None, size: tuple, dtype_name: str, device_str: str,
                   requires_grad: bool) -> Tensor:
    """Unpickle a tensor saved by Tensor.__reduce_ex__ (values are None for meta tensors)."""
    dtype = getattr(_dt, dtype_name)
    dev = device(device_str)
    if values is None:
        t = empty.op(tuple(size), dtype=dtype, device=dev)
    else:
        if dtype is _dt.bfloat16:  # its bit patterns, seen as bfloat16 again
            t = tensor_from_numpy(np.ascontiguousarray(values).view(np.uint16))
            t = Tensor._make(t._storage.reinterpret(dtype), t._size, t._stride, t._offset, dtype, t._device)
        else:
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
        values = np.array(numpy_view(t), order="K", copy=True)  # keeps a permuted layout's strides
    return (rebuild_tensor, (values, tuple(self._size), self.dtype.name, str(self._device), self.requires_grad))


def deepcopy(self: Tensor, memo: dict) -> Tensor:
    """Tensor.__deepcopy__: views deep-copied together keep sharing one new storage (through memo)."""
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
            "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
            "see https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    st = self._storage
    if self._device.type == "meta":
        new = Tensor._make(st.clone(), self._size, self._stride, self._offset, self.dtype, self._device)
    else:
        new_st = memo.get(id(st))
        if new_st is None:
            try:
                new_st = st.clone()
            except NotImplementedError:  # a storage that cannot copy itself: the values, densely
                new_st = None
            if new_st is not None:
                memo[id(st)] = new_st
                memo.setdefault(id(memo), []).append(st)  # copy's keep-alive list: id(st) stays unique
        if new_st is None:
            new = clone.op(self)
        else:
            new = Tensor._make(new_st, self._size, self._stride, self._offset, self.dtype, self._device)
    new.requires_grad = self.requires_grad
    if self.grad is not None:
        new.grad = deepcopy(self.grad, memo)
    if self.__dict__:
        new.__dict__.update(_copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = new
    return new


# ---- repr, NumPy and the Python protocol ---------------------------------------------------------------
def repr_method(self: Tensor) -> str:
    if self.dtype in _dt.bits_dtypes and not self.is_meta and self.numel():  # printing reads items
        raise not_implemented("_local_scalar_dense_cpu", self.dtype)
    values = None if self.is_meta else host_numpy(self)
    gf = type(self.grad_fn).__name__ if self.grad_fn is not None else None
    return tensor_repr(values, shape=self._size, dtype=self.dtype, device=str(self._device),
                       requires_grad=self.requires_grad and gf is None, grad_fn_name=gf)


def host_numpy(self: Tensor) -> np.ndarray:
    """The values as a NumPy array on the host (a view for CPU tensors; float32 values for bfloat16)."""
    return _values(numpy_view(resolved_math_bits(self if self._device.type == "cpu" else self.cpu())))


def array_method(self: Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """NumPy's array protocol (with NumPy 2's copy=): a view when no copy is needed."""
    arr = self.numpy()
    if dtype is not None and np.dtype(dtype) != arr.dtype:
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        return arr.astype(dtype)
    return arr.copy() if copy else arr


def array_wrap_method(self: Tensor, array: np.ndarray, context: Any = None, return_scalar: bool = False) -> Tensor:
    """NumPy's wrap of a ufunc result computed on this tensor's values (`t + ndarray`, `np.sin(t)`),
    as torch/_tensor.py's __array_wrap__: a tensor over the result, bool results as uint8 (torch's
    own workaround, kept for the same results), a 0-dim tensor where NumPy would return a scalar."""
    array = np.asarray(array)
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return tensor_from_numpy(array)


def format_method(self: Tensor, spec: str) -> str:
    if self.dim() == 0 and not self.is_meta and type(self) is Tensor:
        return self.detach().item().__format__(spec)
    return object.__format__(self, spec)


def _dtype_shortcut(name: str, dtype: _dt.dtype) -> Any:
    """Tensor.float() and friends: self.to(dtype), keeping memory_format."""

    def method(self: Tensor, *, memory_format: Any = None) -> Tensor:
        return dispatch_to(self, None, dtype, False, False, memory_format)

    method.__name__ = method.__qualname__ = name
    return method


_METHODS = {
    "__bool__": lambda self: is_nonzero.op(self),
    "__int__": to_int,
    "__float__": to_float,
    "__complex__": lambda self: python_scalar(self, "c10::complex<double>"),
    "__index__": to_index,
    "__format__": format_method,
    "__repr__": repr_method,
    "__str__": repr_method,
    "__array__": array_method,
    "__array_wrap__": array_wrap_method,
    "__reduce_ex__": lambda self, proto: reduce_ex(self),
    "__deepcopy__": deepcopy,
    "numpy": numpy_method,
    "_numpy_view": numpy_view,
    "tolist": tolist_method,
    "to": to_method,
    "cpu": cpu_method,
    "cuda": cuda_method,
    "type": type_method,
}
_DTYPE_SHORTCUTS = {"bool": _dt.bool, "byte": _dt.uint8, "char": _dt.int8, "short": _dt.int16, "int": _dt.int32,
                    "long": _dt.int64, "half": _dt.float16, "float": _dt.float32, "double": _dt.float64,
                    "cfloat": _dt.complex64, "cdouble": _dt.complex128, "bfloat16": _dt.bfloat16}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
for _name, _d in _DTYPE_SHORTCUTS.items():
    setattr(Tensor, _name, _dtype_shortcut(_name, _d))
