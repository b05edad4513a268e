"""Tensors from Python and NumPy data (tensor_new.cpp, tensor_numpy.cpp): `jtorch.tensor`,
`as_tensor`, `from_numpy`, `Tensor.new_tensor`, the legacy constructor `jtorch.Tensor(...)`, and
the 0-dim "wrapped numbers" Python scalars become in arithmetic.

None of these is an operator in PyTorch either (they live in the Python argument parser): the
data is converted on the host, with PyTorch's dtype inference and checks, into a CPU tensor
allocated through `empty`; a tensor for another device is then copied there (through the
backends' copy path). `from_numpy` wraps the array's own memory in a CPU storage.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend, by_device_type
from ..device import CPU, as_device
from ..device import _default as _default_device
from ..device import device as _device_cls
from ..geometry import storage_extent
from ..promotion import promote_types
from ..scalar import LIMITS, checked_scalar, float32_to_bfloat16_bits, overflow_error, unpack_long
from ..tensor import Size, Tensor
from .copy import copy_from_host, copy_into_new
from .factories import _empty, empty_like
from .views import alias

_MAX_DIMS = 128
_warned_not_writable = False


def tp_name(obj: Any) -> str:
    """Py_TYPE(obj)->tp_name: a class defined in Python by its name, a built-in or extension type
    with its module ('numpy.float64')."""
    tp = type(obj)
    if tp.__flags__ & (1 << 9) or tp.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return tp.__name__
    return f"{tp.__module__}.{tp.__qualname__}"


def type_name(x: Any) -> str:
    """How the Python argument parser names an argument's type in its errors."""
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, _dt.dtype):
        return "jtorch.dtype"
    if isinstance(x, _device_cls):
        return "jtorch.device"
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of {', '.join(sorted({type_name(v) for v in x}))}" if x else type(x).__name__
    return type(x).__name__


def _is_sequence(x: Any) -> bool:
    """PySequence_Check for the objects tensor data can hold."""
    if isinstance(x, (list, tuple, range, str, bytes, np.ndarray)):
        return True
    if isinstance(x, (dict, np.generic, Tensor)):
        return isinstance(x, Tensor)
    t = type(x)
    return hasattr(t, "__getitem__") and hasattr(t, "__len__")


def _compute_sizes(seq: Any) -> list[int]:
    sizes: list[int] = []
    while _is_sequence(seq) and not isinstance(seq, Tensor):
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if n == 0:
            break
        seq = seq[0]
    return sizes


_PY_NUMBERS = frozenset({bool, int, float, complex})


def infer_scalar_type(obj: Any) -> _dt.dtype:
    """torch::utils::infer_scalar_type: bool -> bool, int -> int64, float -> the default dtype,
    complex -> the default complex dtype, tensors and NumPy values keep theirs; sequences promote."""
    if isinstance(obj, (np.generic, np.ndarray)):
        return _dt.from_numpy_dtype(obj.dtype)
    if isinstance(obj, float):
        return _dt.get_default_dtype()
    if isinstance(obj, bool):
        return _dt.bool
    if isinstance(obj, int):
        return _dt.int64
    if isinstance(obj, complex):
        return _dt.default_complex_dtype()
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return _dt.get_default_dtype()
        kinds = set(map(type, obj))
        if kinds <= _PY_NUMBERS:  # the common case, without a call per item
            if complex in kinds:
                return _dt.default_complex_dtype()
            if float in kinds:
                return _dt.get_default_dtype()
            return _dt.int64 if int in kinds else _dt.bool
        result = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = infer_scalar_type(item)
            result = d if result is None else promote_types(result, d)
            if result is _dt.complex128:  # nothing can change it any more
                return result
        return result  # type: ignore[return-value]  # obj is not empty: the loop set it
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _flatten(obj: Any, sizes: list[int], dim: int, out: list) -> None:
    """recursive_store's walk: collect the leaves in C order, checking every sequence length."""
    n = sizes[dim]
    if isinstance(obj, (list, tuple)):
        seq = obj
    else:
        try:
            seq = list(obj)
        except TypeError:
            raise TypeError("not a sequence") from None
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    if dim == len(sizes) - 1:
        out.extend(seq)
    elif dim == len(sizes) - 2:  # rows of leaves: inline, no call per row
        m = sizes[-1]
        for item in seq:
            if type(item) is not list and type(item) is not tuple:
                try:
                    item = list(item)
                except TypeError:
                    raise TypeError("not a sequence") from None
            if len(item) != m:
                raise ValueError(f"expected sequence of length {m} at dim {dim + 1} (got {len(item)})")
            out.extend(item)
    else:
        for item in seq:
            _flatten(item, sizes, dim + 1, out)


def _store_walk(obj: Any, sizes: list[int], dim: int, d: _dt.dtype) -> None:
    """recursive_store without the storing: the checks in PyTorch's order (slow; errors only)."""
    if dim == len(sizes):
        _store_scalar(obj, d)
        return
    n = sizes[dim]
    try:
        seq = obj if isinstance(obj, (list, tuple)) else list(obj)
    except TypeError:
        raise TypeError("not a sequence") from None
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    for item in seq:
        _store_walk(item, sizes, dim + 1, d)


_INT_NAMES = {_dt.uint8: "uint8", _dt.int8: "int8", _dt.int16: "int16", _dt.int32: "int32", _dt.int64: "int64",
              _dt.uint16: "uint16", _dt.uint32: "uint32"}


def _unpack_double(x: Any) -> float:
    """THPUtils_unpackDouble (PyFloat_AsDouble)."""
    if isinstance(x, float):
        return float(x)
    if type(x) is complex or isinstance(x, (str, bytes)):  # NumPy complex scalars have __float__
        raise TypeError(f"must be real number, not {type(x).__name__}")
    try:
        return float(x)
    except TypeError:
        raise TypeError(f"must be real number, not {type(x).__name__}") from None


def _store_scalar(x: Any, d: _dt.dtype) -> Any:
    """torch::utils::store_scalar for one leaf: the Python value to put in a `d` array."""
    if d is _dt.bool:  # THPUtils_unpackNumberAsBool: an int64 overflow still means True
        if isinstance(x, (float, complex, np.bool_)):
            return bool(x != 0)
        return operator.index(x) != 0
    if d.is_complex:  # PyComplex_AsCComplex
        if not isinstance(x, (str, bytes)):
            try:
                return complex(x)
            except TypeError:
                pass
        raise TypeError(f"must be real number, not {type(x).__name__}")
    if d.is_floating_point:
        return _unpack_double(x)
    if d is _dt.uint64:  # THPUtils_unpackUInt64: PyLong_AsUnsignedLongLong, no float accepted
        if isinstance(x, float) or not hasattr(x, "__index__"):
            raise TypeError("an integer is required")
        v = operator.index(x)
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 2 ** 64:
            raise OverflowError("int too big to convert")
        return np.uint64(v)
    name = _INT_NAMES[d]
    if isinstance(x, float):  # PyFloat_Check: Python floats and np.float64
        return checked_scalar(d, float(x), name)
    return checked_scalar(d, unpack_long(x), name)


def _floats_to(arr: np.ndarray, d: _dt.dtype) -> np.ndarray:
    """float64 values stored as d: float16 and bfloat16 through float (static_cast<Half>(double) is
    Half(float(v))); bfloat16 as its bit patterns in jtorch's opaque 2-byte type."""
    if d is _dt.bfloat16:
        return float32_to_bfloat16_bits(arr.astype(np.float32)).view(d.numpy)
    return arr.astype(np.float32).astype(d.numpy) if d is _dt.float16 else arr.astype(d.numpy)


def _leaves_to_array(leaves: list, d: _dt.dtype) -> np.ndarray:
    """The leaves converted to a flat array of `d` with store_scalar's checks (vectorized for the
    common homogeneous cases, per element otherwise)."""
    if not leaves:
        return np.empty(0, d.numpy)
    kinds = set(map(type, leaves))
    try:
        if d.is_floating_point and kinds <= {float, int, bool}:
            arr = np.array(leaves, dtype=np.float64)
            with np.errstate(over="ignore"):
                return _floats_to(arr, d)
        if d.is_complex and kinds <= {float, int, bool, complex}:
            with np.errstate(over="ignore"):
                return np.array(leaves, dtype=np.complex128).astype(d.numpy)
        if d is _dt.bool and kinds <= {float, int, bool, complex}:
            return np.array([v != 0 for v in leaves], dtype=np.bool_)
        if d in _INT_NAMES and kinds <= {int, bool}:
            arr = np.array(leaves, dtype=np.int64)
            lo, hi = LIMITS[d]
            bad = ((arr > hi) | (arr < -hi)) if lo == 0 else ((arr < lo) | (arr > hi))  # type: ignore[operator]  # an int
            if bad.any():
                raise overflow_error(_INT_NAMES[d])
            return arr.astype(d.numpy)
        if d in _INT_NAMES and kinds <= {float}:
            arr = np.array(leaves, dtype=np.float64)
            lo, hi = LIMITS[d]
            bad = np.isnan(arr) | (arr < lo) | (arr > hi)  # type: ignore[operator]  # integral: lo is an int
            if d is _dt.int64:
                bad |= arr >= 9223372036854775808.0
            if bad.any():
                raise overflow_error(_INT_NAMES[d])
            return np.trunc(arr).astype(np.int64).astype(d.numpy)
        if d is _dt.uint64 and kinds <= {int, bool}:
            return np.array(leaves, dtype=np.uint64)  # a negative or too big int: the slow path's error
    except OverflowError:
        pass  # a Python int beyond int64: the slow path raises PyTorch's error
    vals = [_store_scalar(x, d) for x in leaves]
    if d in _dt.reduced_floats:
        with np.errstate(over="ignore"):
            return _floats_to(np.array(vals, dtype=np.float64), d)
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=d.numpy if not d.is_complex else np.complex128).astype(d.numpy)


def _cpu_tensor_from_array(arr: np.ndarray, size: tuple, dtype: _dt.dtype) -> Tensor:
    """A fresh CPU tensor through `empty`, holding `arr` (C order)."""
    t = _empty(size, dtype, CPU)
    if arr.size:
        copy_from_host(t, arr)
    return t


def _to_device_copy(src: Tensor, dtype: _dt.dtype, device: _device_cls, copy: bool) -> Tensor:
    """`src.to(device, dtype, copy=copy)` keeping dense strides (what tensor()/as_tensor() do)."""
    if not copy and src.dtype is dtype and src._device == device:
        return src
    out = empty_like.op(src, dtype=dtype, device=device)
    if device.type != "meta":
        copy_into_new(out, src)
    return out


def _internal_new_from_data(data: Any, dtype: Any, device: Any, *, infer: bool, copy_variables: bool,
                            copy_numpy: bool, warn_name: str | None = "torch.tensor") -> Tensor:
    """torch::utils::internal_new_from_data."""
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    dev = as_device(device) if device is not None else None
    if isinstance(data, Tensor):
        if copy_variables and warn_name:
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                f"sourceTensor.detach().clone().requires_grad_(True), rather than {warn_name}(sourceTensor).",
                UserWarning, stacklevel=3)
        src = data.detach()
        d = dtype if dtype is not None else data.dtype
        return _to_device_copy(src, d, dev if dev is not None else data._device, copy_variables)
    if isinstance(data, np.ndarray):
        src = _from_numpy(data, warn_if_not_writeable=not copy_numpy)
        d = dtype if dtype is not None else src.dtype
        return _to_device_copy(src, d, dev if dev is not None else CPU, copy_numpy)
    sizes = _compute_sizes(data)
    infer = infer and dtype is None
    leaves: list = []
    if sizes and 0 in sizes:  # nothing to store: PyTorch never walks the data
        leaves = [data]
    elif sizes:
        try:
            _flatten(data, sizes, 0, leaves)
        except (TypeError, ValueError):
            # PyTorch infers the dtype first, then stores depth first: report the error it meets first
            d = infer_scalar_type(data) if infer else (dtype or _dt.get_default_dtype())
            _store_walk(data, sizes, 0, d)
            raise
    else:
        leaves.append(data)
    # promoting over the leaves is promoting over the nested sequences (promote_types is associative)
    d = infer_scalar_type(leaves) if infer else (dtype or _dt.get_default_dtype())
    if sizes and 0 in sizes:
        leaves = []
    dev = dev if dev is not None else CPU
    if dev.type == "meta":
        return _empty(tuple(sizes), d, dev)
    if d in _dt.bits_dtypes and leaves:  # torch's store_scalar has no bits case
        raise RuntimeError("store_scalar: invalid type")
    t = _cpu_tensor_from_array(_leaves_to_array(leaves, d), tuple(sizes), d)
    return t if dev.type == "cpu" else _to_device_copy(t, d, dev, True)


def _set_requires_grad(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def tensor(data: Any, dtype: _dt.dtype | None = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """`jtorch.tensor(data)`: a new tensor holding a copy of `data` (nested sequences of numbers,
    NumPy arrays and scalars, tensors). The dtype is inferred as PyTorch does when not given."""
    if device is None:
        device = _default_device.device  # set_default_device / `with device(...)`: None for the CPU
    if _has_cai(data):  # device memory of another library: copied, as torch.tensor copies
        src = _from_cai(data)
        t = _to_device_copy(src, dtype or src.dtype, as_device(device) if device is not None else src._device, True)
        return _set_requires_grad(t, requires_grad)
    t = _internal_new_from_data(data, dtype, device, infer=True, copy_variables=True, copy_numpy=True)
    return _set_requires_grad(t, requires_grad)


def _has_cai(data: Any) -> bool:
    return not isinstance(data, (Tensor, np.ndarray)) and hasattr(data, "__cuda_array_interface__")


def _from_cai(data: Any) -> Tensor:
    return backend("cuda").from_cuda_array_interface(data)


def as_tensor(data: Any, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """`jtorch.as_tensor(data)`: shares memory with a tensor or NumPy array when dtype and device
    already match; copies otherwise."""
    if device is None:
        device = _default_device.device
    if isinstance(data, Tensor):
        d = dtype if dtype is not None else data.dtype
        dev = as_device(device) if device is not None else data._device
        return _to_device_copy(data, d, dev, False)
    if _has_cai(data):  # CuPy arrays, torch CUDA tensors: zero-copy
        data = _from_cai(data)
        return _to_device_copy(data, dtype or data.dtype, as_device(device) if device is not None else data._device,
                               False)
    return _internal_new_from_data(data, dtype, device, infer=True, copy_variables=False, copy_numpy=False)


def _from_numpy(arr: Any, warn_if_not_writeable: bool = True) -> Tensor:
    """tensor_from_numpy: a CPU tensor sharing the array's memory, with the array's strides."""
    global _warned_not_writable
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {tp_name(arr)})")
    if not arr.flags.writeable and warn_if_not_writeable and not _warned_not_writable:
        _warned_not_writable = True
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
            "writing to this tensor will result in undefined behavior. You may want to copy the array to protect "
            "its data or make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.", UserWarning, stacklevel=3)
    itemsize = arr.itemsize
    strides = []
    for s in arr.strides:
        if itemsize == 0 or s % itemsize != 0:
            raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                             "array to reallocate the memory.")
        strides.append(s // itemsize)
    if any(s < 0 for s in strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    dtype = _dt.from_numpy_dtype(arr.dtype)
    size = tuple(int(s) for s in arr.shape)
    stride = tuple(strides)
    n = storage_extent(size, stride)
    if n:
        # a flat view of every element the strides reach: writes go to the array's memory
        flat = np.lib.stride_tricks.as_strided(arr, shape=(n,), strides=(itemsize,)).view(dtype.numpy)
    else:
        flat = np.empty(0, dtype.numpy)
    return Tensor._make(by_device_type["cpu"].storage_from_numpy(flat), size, stride, 0, dtype, CPU)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """`jtorch.from_numpy(a)`: a tensor that shares `a`'s memory and strides (no copy)."""
    return _from_numpy(ndarray)


# ---- Tensor.new_tensor and the legacy constructor (python_variable_methods.cpp, tensor_new.cpp) ------
def new_tensor(self: Tensor, data: Any, dtype: _dt.dtype | None = None, device: Any = None,
               requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """`t.new_tensor(data)`: like jtorch.tensor, with t's dtype and device unless given (no inference)."""
    d = dtype if dtype is not None else self.dtype
    dev = device if device is not None else self._device
    t = _internal_new_from_data(data, d, dev, infer=False, copy_variables=True, copy_numpy=True,
                                warn_name="tensor.new_tensor")
    return _set_requires_grad(t, requires_grad)



_LEGACY_SIGNATURES = ("(*, torch.device device = None)", "(torch.Storage storage)", "(Tensor other)",
                      "(tuple of ints size, *, torch.device device = None)",
                      "(object data, *, torch.device device = None)")


def _matches(kind: str, x: Any) -> bool:
    """Whether an argument fits a parameter type as the Python argument parser names it."""
    from ..storage import TypedStorage, UntypedStorage

    if kind == "Tensor":
        return isinstance(x, Tensor)
    if kind == "torch.Storage":
        return isinstance(x, (TypedStorage, UntypedStorage))
    if kind == "int":
        return isinstance(x, (int, np.integer)) and not isinstance(x, bool)
    if kind == "tuple of ints":
        return isinstance(x, (tuple, list, Size)) and all(isinstance(v, (int, np.integer)) for v in x)
    if kind == "torch.device":
        return x is None or isinstance(x, (str, int, _device_cls))
    return kind == "object"


def _plain_type_name(x: Any) -> str:
    return type(x).__name__ if isinstance(x, (tuple, list)) else type_name(x)


def invalid_combination(fname: str, signatures: tuple[str, ...], args: tuple, kwargs: dict) -> TypeError:
    """PythonArgParser's error when no signature matches: every signature, and for those taking as many
    arguments as were given, why it did not match (unknown keywords, or the arguments that have the
    wrong type marked !type!)."""
    got = [_plain_type_name(a) for a in args] + [f"{k}={_plain_type_name(v)}" for k, v in kwargs.items()]
    lines = []
    for sig in signatures:
        lines.append(f" * {sig}\n")
        params = [p for p in sig[1:-1].split(", ")]
        if len(params) != len(args) + len(kwargs):
            continue
        named = {}
        positional = []
        kw_only = False
        for p in params:
            if p == "*":
                kw_only = True
                continue
            if not p:
                continue
            decl = p.split(" = ")[0]
            kind, _, name = decl.rpartition(" ")
            named[name] = kind
            if not kw_only:
                positional.append((kind, name))
        bad = [k for k in kwargs if k not in named]
        if bad:
            lines.append(f"      didn't match because some of the keywords were incorrect: {', '.join(bad)}\n")
            continue
        parts = []
        for i, a in enumerate(args):
            ok = i < len(positional) and _matches(positional[i][0], a)
            parts.append(type_name(a) if ok else f"!{type_name(a)}!")
        for k, v in kwargs.items():
            parts.append(f"{k}={type_name(v)}" if _matches(named[k], v) else f"{k}=!{type_name(v)}!")
        lines.append(f"      didn't match because some of the arguments have invalid types: ({', '.join(parts)})\n")
    return TypeError(f"{fname}() received an invalid combination of arguments - got ({', '.join(got)}), "
                     f"but expected one of:\n{''.join(lines)}")


def _legacy_no_match(args: tuple, kwargs: dict) -> TypeError:
    return invalid_combination("new", _LEGACY_SIGNATURES, args, kwargs)


def _options_text(dtype: _dt.dtype, dev: _device_cls) -> str:
    """c10::TensorOptions printed (legacy constructors' type error)."""
    from ..scalar import TYPE_META_NAME

    return (f"TensorOptions(dtype={TYPE_META_NAME.get(dtype, str(dtype))}, device={dev}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _legacy_from_storage(storage: Any, dtype: _dt.dtype, dev: _device_cls) -> Tensor:
    """legacy_new_from_sequence's Storage case: a 1-D tensor over all of the storage."""
    from ..scalar import SCALAR_TYPE_NAME
    from ..storage import TypedStorage, typed_impl

    if isinstance(storage, TypedStorage):
        if storage.dtype is not dtype:
            raise RuntimeError(f"Expected a Storage of type {SCALAR_TYPE_NAME[dtype]} or an UntypedStorage, but got "
                               f"type {SCALAR_TYPE_NAME[storage.dtype]} for argument 1 'storage'")
        storage = storage._untyped_storage
    impl = typed_impl(storage._impl, dtype)
    n = storage.nbytes() // dtype.itemsize
    return Tensor._make(impl, (n,), (1,), 0, dtype, storage.device)


def legacy_new(dtype: _dt.dtype, dev: _device_cls, args: tuple, kwargs: dict, base_ctor: bool = False) -> Tensor:
    """torch::utils::legacy_tensor_ctor / legacy_tensor_new: `jtorch.FloatTensor(...)`,
    `jtorch.Tensor(...)`, `t.new(...)`: sizes, data, a tensor or a storage, of `dtype` on a device of
    `dev`'s type (the class's; the tensor's for `new`). `jtorch.Tensor` itself (`base_ctor`) takes a
    tensor or typed storage of any dtype."""
    from ..storage import TypedStorage, UntypedStorage

    unknown = {k: v for k, v in kwargs.items() if k != "device"}
    if unknown:
        raise _legacy_no_match(args, kwargs)
    device = kwargs.get("device")
    if device is not None:
        d = as_device(device)
        if d.type != dev.type:
            raise RuntimeError(f"legacy constructor expects device type: {dev.type} but device type: {d.type} was "
                               "passed")
        dev = d
    if not args:
        return _empty((0,), dtype, dev)
    a = args[0]
    if len(args) == 1:
        if isinstance(a, Tensor):
            if kwargs:
                raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not "
                                   "supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.")
            if not base_ctor and (a.dtype is not dtype or a._device.type != dev.type):
                raise TypeError(f"expected {_options_text(dtype, dev)} (got {_options_text(a.dtype, a._device)})")
            return _alias(a)
        if isinstance(a, (UntypedStorage, TypedStorage)):
            if kwargs:
                raise _legacy_no_match(args, kwargs)
            return _legacy_from_storage(a, dtype, dev)
        if isinstance(a, Size):
            return _empty(tuple(a), dtype, dev)
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            return _empty((int(a),), dtype, dev)
        if isinstance(a, str):
            raise TypeError(f"new(): invalid data type '{type(a).__name__}'")
        if not _is_sequence(a):
            raise TypeError(f"new(): data must be a sequence (got {tp_name(a)})")
        return _internal_new_from_data(a, dtype, dev, infer=False, copy_variables=True, copy_numpy=True,
                                       warn_name=None)
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        for i, x in enumerate(args):
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(x).__name__}\"")
        return _empty(tuple(int(x) for x in args), dtype, dev)
    raise _legacy_no_match(args, kwargs)


def _alias(a: Tensor) -> Tensor:
    """`jtorch.Tensor(other)`: an alias of other (AliasBackward0 when other requires grad, as torch)."""
    return alias.op(a)


def legacy_constructor(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """`jtorch.Tensor(data)` / `jtorch.Tensor(*sizes)` / `jtorch.Tensor()`: the default dtype, CPU only."""
    return legacy_new(_dt.get_default_dtype(), CPU, args, kwargs, base_ctor=True)


def new_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`t.new(...)` (legacy_tensor_new): the legacy constructor with t's dtype, on t's device type."""
    return legacy_new(self.dtype, self._device, args, kwargs)


def tensor_from_numpy(arr: np.ndarray) -> Tensor:
    """A CPU tensor over `arr`'s memory without from_numpy's warning (DLPack, unpickling)."""
    return _from_numpy(arr, warn_if_not_writeable=False)


# Python-level methods in PyTorch too (not operators): set on the record here.
Tensor.new_tensor = new_tensor  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
# jtorch.Tensor(data) / jtorch.Tensor(*sizes)
Tensor.__new__ = legacy_constructor  # type: ignore[method-assign,assignment]  # declared in _tensor_python.pyi
Tensor.new = new_method  # type: ignore[method-assign,assignment]  # declared in _tensor_python.pyi
