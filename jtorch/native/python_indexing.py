"""`Tensor.__getitem__` / `Tensor.__setitem__`: Python index expressions (python_variable_indexing.cpp,
ATen/TensorIndexing.h). `t[i]` is not an operator: like PyTorch's THPVariable_getitem /
THPVariable_setitem, these translate an index expression into dispatcher calls:

* basic indices are views: an int is `select`, a slice `slice.Tensor`, None `unsqueeze`,
  `...` nothing (the whole result is `alias`ed so `t[...]` is a new tensor);
* tensor and list indices ("advanced" indexing) are collected, one per indexed dimension, and
  handed to `index.Tensor` (a copy) or `index_put_` (a write), see indexing.py.

`__setitem__` writes basic indices through the view with `copy_` / `fill_`, so the version
counter shared by every view of the storage moves on. This module sets both on the Tensor record.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..device import CPU
from ..scalar import not_implemented
from ..tensor import Tensor
from .copy import copy_from_host, host_values
from .factories import _empty
from .python_methods import type_string
from .registry import op as _op
from .tensor_new import tp_name

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)


def _is_mask(t: Tensor) -> bool:
    return t.dtype is _dt.bool or t.dtype is _dt.uint8


def _from_numpy(arr: np.ndarray, dtype: _dt.dtype) -> Tensor:
    """A new CPU index tensor holding `arr`."""
    t = _empty(arr.shape, dtype, CPU)
    if arr.size:
        copy_from_host(t, arr)
    return t


def _invalid_index(obj: Any) -> None:
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                     f"(got {tp_name(obj)})")


def _is_sequence(obj: Any) -> bool:
    """PySequence_Check: anything with __getitem__ that is not a mapping."""
    return hasattr(type(obj), "__getitem__") and not isinstance(obj, dict)


def _slice_index(v: Any) -> int:
    if type(v) is not int:
        try:
            v = operator.index(v)
        except TypeError:
            raise TypeError("slice indices must be integers or None or have an __index__ method") from None
    # PySlice_Unpack clamps to Py_ssize_t
    return _INT64_MAX if v > _INT64_MAX else _INT64_MIN if v < _INT64_MIN else v


def _unpack_slice(s: slice) -> tuple[int, int, int]:
    """PySlice_Unpack: torch's defaults (start 0, stop INT64_MAX) for a positive step."""
    step = 1 if s.step is None else _slice_index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        start = _INT64_MAX if s.start is None else _slice_index(s.start)
        stop = _INT64_MIN if s.stop is None else _slice_index(s.stop)
    else:
        start = 0 if s.start is None else _slice_index(s.start)
        stop = _INT64_MAX if s.stop is None else _slice_index(s.stop)
    return start, stop, step


def _apply_select(self: Tensor, dim: int, index: int, real_dim: int) -> Tensor:
    size = self._size
    if index == 0 and dim == 0 and not size:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                         "to convert a 0-dim tensor to a number")
    n = size[dim] if dim < len(size) else 0
    if not (n > -index - 1 and n > index):
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {n}")
    return _op("select.int")(self, dim, index)


def _apply_slice(self: Tensor, dim: int, start: int, stop: int, step: int, disable_slice_optimization: bool) -> Tensor:
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if (not disable_slice_optimization and start == 0 and step == 1 and dim < len(self._size)
            and stop >= self._size[dim]):
        return self
    return _op("slice.Tensor")(self, dim, start, stop, step)


def _long_tensor(values: list) -> Tensor:
    return _from_numpy(np.array(values, dtype=np.int64), _dt.int64)


def _bool_to_index(value: bool) -> Tensor:
    """boolToIndexingTensor: True selects the one element of a new size-1 dim, False none."""
    return _long_tensor([0] if value else [])


def _sequence_to_tensor(obj: Any) -> Tensor:
    """indexing_tensor_from_data: a bool / uint8 sequence stays a mask, anything else becomes int64."""
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    arr = np.asarray(obj)
    if arr.dtype == np.bool_:
        return _from_numpy(arr, _dt.bool)
    if arr.dtype == np.uint8:
        return _from_numpy(arr, _dt.uint8)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"new(): invalid data type '{arr.dtype.name if arr.dtype.kind != 'U' else 'str'}'")
    return _from_numpy(arr.astype(np.int64), _dt.int64)


def _scalar_value(t: Tensor) -> Any:
    return host_values(t).item()


_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch "
                "2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
                "x[torch.tensor(seq)], which will result either in an error or a different result")


def _wrap_tuple(index: Any) -> tuple:
    """wrapTuple / treatSequenceAsTuple: NumPy's heuristic for a list that means a tuple of indices."""
    if type(index) is tuple:
        return index
    if isinstance(index, (Tensor, np.ndarray)) or not _is_sequence(index):
        return (index,)
    try:
        n = len(index)
    except TypeError:
        return (index,)
    if n >= 32:
        return (index,)
    for i in range(n):
        try:
            obj = index[i]
        except Exception:
            return (index,)
        if isinstance(obj, (Tensor, slice)) or _is_sequence(obj) or obj is Ellipsis or obj is None:
            warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=3)
            return tuple(index)
    return (index,)


def _apply_slicing(self: Tensor, indices: tuple, out: list, disable_slice_optimization: bool = False) -> Tensor:
    """Basic indices as view operators, left to right; tensor indices are recorded into `out`
    (one entry per indexed dim as `index.Tensor` reads them: a mask covers mask.dim() dims)."""
    ndim = len(self._size)
    specified = 0
    for obj in indices:
        if isinstance(obj, Tensor):
            specified += obj.dim() if _is_mask(obj) else 1
        elif obj is not None and obj is not Ellipsis and obj is not True and obj is not False:
            specified += 1
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")

    result = self
    dim = 0
    covered = 0  # dims of self that the entries of `out` cover

    def record(t: Tensor) -> None:
        nonlocal dim, covered
        while covered < dim:
            out.append(None)
            covered += 1
        out.append(t)
        k = t.dim() if _is_mask(t) else 1
        covered += k
        dim += k

    for i, obj in enumerate(indices):
        tp = type(obj)
        if tp is int:
            result = _apply_select(result, dim, obj, i)
        elif tp is slice:
            start, stop, step = _unpack_slice(obj)
            result = _apply_slice(result, dim, start, stop, step, disable_slice_optimization)
            dim += 1
        elif obj is Ellipsis:
            dim += ndim - specified
        elif obj is None:
            result = _op("unsqueeze")(result, dim)
            dim += 1
        elif tp is bool:
            result = _op("unsqueeze")(result, dim)
            record(_bool_to_index(obj))
        else:
            if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)):
                result = _apply_select(result, dim, int(obj), i)
                continue
            if not isinstance(obj, Tensor):
                if _is_sequence(obj):
                    obj = _sequence_to_tensor(obj)
                else:
                    try:
                        v = operator.index(obj)
                    except TypeError:
                        _invalid_index(obj)
                    result = _apply_select(result, dim, v, i)
                    continue
            if obj.dim() == 0 and not (obj.dtype.is_floating_point or obj.dtype.is_complex):
                if _is_mask(obj):
                    result = _op("unsqueeze")(result, dim)
                    record(_bool_to_index(bool(_scalar_value(obj))))
                else:
                    result = _apply_select(result, dim, int(_scalar_value(obj)), i)
            else:
                record(obj)
    return result


_slice_handle: Any = None


def _getitem(self: Tensor, index: Any) -> Tensor:
    global _slice_handle
    tp = type(index)
    if tp is slice:  # the common x[a:b] goes straight to slice.Tensor
        start, stop, step = index.start, index.stop, index.step
        if step is None and (start is None or type(start) is int) and (stop is None or type(stop) is int):
            if start is None:
                start = 0
            if stop is None:
                stop = _INT64_MAX
            step = 1
        else:
            start, stop, step = _unpack_slice(index)
            if step <= 0:
                raise ValueError("step must be greater than zero")
        op = _slice_handle
        if op is None:
            op = _slice_handle = _op("slice.Tensor")
        return op(self, 0, start, stop, step)
    if tp is int:
        return _apply_select(self, 0, index, 0)
    if index is None:
        return _op("unsqueeze")(self, 0)
    if index is Ellipsis:
        return _op("alias")(self)
    if tp is bool:
        result = _op("unsqueeze")(self, 0)
        return _op("index.Tensor")(result, [_bool_to_index(index)])
    if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
        return _apply_select(self, 0, int(index), 0)

    out: list = []
    sliced = _apply_slicing(self, _wrap_tuple(index), out)
    if not out:
        return _op("alias")(sliced) if sliced is self else sliced
    return _op("index.Tensor")(sliced, out)


_PY_SCALARS = (int, float, complex, bool)


def _slice_prefix_1s(size: tuple) -> tuple:
    """slicePrefix1sSize: drop leading size-1 dims of a value (x[0] = ones(1, 1, 3) is allowed)."""
    i = 0
    while i < len(size) and size[i] == 1:
        i += 1
    return size[i:]


def _copy_to(dst: Tensor, value: Any) -> None:
    if not isinstance(value, Tensor):
        _op("fill_.Scalar")(dst, value)
        return
    if dst._size == value._size:
        _op("copy_")(dst, value)
        return
    if not value._size and value._device.type == "cpu":
        _op("fill_.Tensor")(dst, value)
        return
    src = value
    stripped = _slice_prefix_1s(value._size)
    if stripped != value._size:
        src = _op("view")(value, stripped)
    if src._size != dst._size:
        src = _op("expand")(src, dst._size)
    _op("copy_")(dst, src)


def _value_tensor(self: Tensor, value: Any, device: Any = None) -> Tensor:
    """valueToTensor for a Python number: a 0-dim tensor of self's dtype on `device` (self's)."""
    t = _op("empty.memory_format")((), dtype=self.dtype, device=device or self._device)
    _op("fill_.Scalar")(t, value)
    return t


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    if not isinstance(value, Tensor):
        tp = type(value)
        if (not (tp in _PY_SCALARS or isinstance(value, (int, float, complex, np.integer)))
                or isinstance(value, np.bool_)):
            raise TypeError(f"can't assign a {tp_name(value)} to a {type_string(self, 'torch')}")
        if tp not in _PY_SCALARS:
            value = value.item() if isinstance(value, np.generic) else (
                complex(value) if isinstance(value, complex) else float(value) if isinstance(value, float)
                else int(value))
        if self.dtype in _dt.bits_dtypes:  # valueToTensor's scalar_fill has no bits case
            raise not_implemented("fill_out", self.dtype)

        if self._requires_grad:
            # valueToTensor, as torch's setitem: copy_/fill_ of a tensor records torch's node and edges
            # (a Python number is filled directly otherwise: the same values, no tensor made)
            # (on the CPU for a CUDA self, as torch's: a 0-dim CPU value is filled in)
            value = _value_tensor(self, value, "cpu" if self._device.type == "cuda" else None)

    tp = type(index)
    if index is False:
        return
    if tp is slice:
        start, stop, step = _unpack_slice(index)
        _copy_to(_apply_slice(self, 0, start, stop, step, True), value)
        return
    if tp is int:
        _copy_to(_apply_select(self, 0, index, 0), value)
        return
    if index is Ellipsis:
        _copy_to(self, value)
        return
    if index is None or index is True:
        _copy_to(_op("unsqueeze")(self, 0), value)
        return

    out: list = []
    sliced = _apply_slicing(self, _wrap_tuple(index), out)
    if not out:
        _copy_to(sliced, value)
        return
    v = value if isinstance(value, Tensor) else _value_tensor(self, value)
    stripped = _slice_prefix_1s(v._size)
    if stripped != v._size:
        v = _op("view")(v, stripped)
    _op("index_put_")(sliced, out, v)


def _delitem(self: Tensor, index: Any) -> None:
    raise TypeError("Tensor does not support deleting items")


Tensor.__getitem__ = _getitem  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
Tensor.__setitem__ = _setitem  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
Tensor.__delitem__ = _delitem  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
