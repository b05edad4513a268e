"""Tensor indexing: `Tensor.__getitem__` / `Tensor.__setitem__` and the advanced-indexing operators.

`t[i]` is not an operator: like PyTorch's THPVariable_getitem / THPVariable_setitem
(torch/csrc/autograd/python_variable_indexing.cpp and ATen/TensorIndexing.h), the mapping methods
translate an index expression into dispatcher calls:

* basic indices are views: an int is `select`, a slice `slice.Tensor`, None `unsqueeze`,
  `...` nothing (the whole result is `alias`ed so `t[...]` is a new tensor);
* tensor and list indices ("advanced" indexing) are collected, one per indexed dimension, and
  handed to `index.Tensor` (a copy) or `index_put_` (a write), whose kernels follow NumPy's rules:
  bool masks become their nonzero coordinates, the index tensors broadcast together, and the
  broadcast dimensions replace the indexed ones in place when these are adjacent, else go first.

`__setitem__` writes basic indices through the view with `copy_` / `fill_`, so the version
counter shared by every view of the storage moves on.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from ..memory_overlap import _FULL, _PARTIAL, get_overlap_status
from .. import dtypes as _dt
from ..storage import CPUStorage
from ..tensor import Tensor, contiguous_strides
from .registry import declare
from ..device import CPU
from .views import _fmt

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)

index = declare("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", variants="")  # torch binds none
index_put_ = declare(
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    variants="function, method")
index_put = declare("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
                    variants="function, method")

_INDEX_DTYPES = frozenset({_dt.int64, _dt.int32, _dt.uint8, _dt.bool})


# ---- advanced indexing: shared analysis (make_info / expandTensors) --------------------------------
def _is_mask(t: Tensor) -> bool:
    return t.dtype is _dt.bool or t.dtype is _dt.uint8


def _host(t: Tensor) -> np.ndarray:
    """The values of a CPU tensor as a NumPy view (index tensors live on the CPU or self's device)."""
    if isinstance(t._storage, CPUStorage):
        return t._numpy_view()
    if t._device.type == "meta":
        raise NotImplementedError(
            "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
            "data-independent implementation does not exist.")
    return t.cpu()._numpy_view()


def _expand_indices(self: Tensor, indices: list, with_values: bool) -> list:
    """checkIndexTensorTypes + expandTensors: one entry per indexed dim of self (None = not indexed).

    Masks become the long coordinates of their nonzero elements. Entries are NumPy integer
    arrays when `with_values`, else shapes (tuples) where the values are not needed (Meta).
    """
    ndim = len(self._size)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    dev = self._device
    for t in indices:
        if t is not None:
            if t.dtype not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if t._device.type != "cpu" and t._device != dev:
                raise RuntimeError(
                    f"indices should be either on cpu or on the same device as the indexed tensor ({dev})")
    out: list = []
    for t in indices:
        if t is None:
            out.append(None)
            continue
        if _is_mask(t):
            if t.dtype is _dt.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                              UserWarning, stacklevel=4)
            for j, s in enumerate(t._size):
                src = len(out) + j
                if src >= ndim or s != self._size[src]:
                    if src >= ndim:
                        raise IndexError(
                            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {src})")
                    raise IndexError(
                        f"The shape of the mask {_fmt(t._size)} at index {j} does not match the shape of the indexed "
                        f"tensor {_fmt(self._size)} at index {src}")
            nz = np.nonzero(_host(t))
            out.extend(nz if with_values else [(len(nz[0]),)] * len(nz))
        else:
            out.append(_host(t) if with_values else t._size)
    if len(out) > ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {ndim})")
    if all(x is None for x in out):
        raise IndexError("at least one index must be provided")
    return out


def _broadcast_index_shape(entries: list, with_values: bool) -> tuple:
    shapes = [(e.shape if with_values else e) for e in entries if e is not None]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_fmt(s) for s in shapes)) from None


def _result_shape(size: tuple, entries: list, bshape: tuple) -> tuple:
    """NumPy's placement: broadcast dims replace adjacent indexed dims, else they go first."""
    pos = [i for i, e in enumerate(entries) if e is not None]
    rest = [size[i] for i in range(len(size)) if i >= len(entries) or entries[i] is None]
    if pos[-1] - pos[0] + 1 == len(pos):
        before = sum(1 for i in range(pos[0]) if entries[i] is None)
        return tuple(rest[:before]) + tuple(bshape) + tuple(rest[before:])
    return tuple(bshape) + tuple(rest)


def _check_bounds(size: tuple, entries: list, bshape: tuple) -> None:
    """The index kernel's bounds check; `dimension` counts the index tensors, as PyTorch reports it.
    The kernel reads only the indices it iterates over: none when they broadcast to nothing."""
    if 0 in bshape:
        return
    k = 0
    for i, e in enumerate(entries):
        if e is None:
            continue
        n = size[i]
        if e.size:
            lo, hi = e.min(), e.max()
            if lo < -n or hi >= n:
                flat = e.reshape(-1)
                bad = flat[(flat < -n) | (flat >= n)][0]
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
        k += 1


def _numpy_key(entries: list) -> tuple:
    return tuple(slice(None) if e is None else e for e in entries)


def _from_numpy(arr: np.ndarray, dtype: _dt.dtype) -> Tensor:
    """A new CPU tensor owning a C-contiguous copy of `arr`."""
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")  # (np.ascontiguousarray would turn a 0-dim array into 1-dim)
    shape = arr.shape
    return Tensor._make(CPUStorage(arr.reshape(-1)), shape, contiguous_strides(shape), 0, dtype, CPU)


# ---- index.Tensor -----------------------------------------------------------------------------------
@index.impl("CPU")
def index_cpu(self: Tensor, indices: list) -> Tensor:
    entries = _expand_indices(self, list(indices), True)
    _check_bounds(self._size, entries, _broadcast_index_shape(entries, True))
    # NumPy's advanced indexing always copies, and places the broadcast dims as PyTorch does
    return _from_numpy(self._numpy_view()[_numpy_key(entries)], self.dtype)


@index.impl("Meta")
def index_meta(self: Tensor, indices: list) -> Tensor:
    from ..tensor import new_storage

    entries = _expand_indices(self, list(indices), False)
    bshape = _broadcast_index_shape(entries, False)
    shape = _result_shape(self._size, entries, bshape)
    n = 1
    for s in shape:
        n *= s
    return Tensor._make(new_storage(n, self.dtype, self._device), shape, contiguous_strides(shape), 0,
                        self.dtype, self._device)


# ---- index_put_ / index_put ------------------------------------------------------------------------
def _overlaps(a: Tensor, b: Tensor) -> bool:
    """at::get_overlap_status(a, b) is Full or Partial."""
    return get_overlap_status(a, b) in (_FULL, _PARTIAL)


def _index_put_checks(self: Tensor, indices: list, values: Tensor, accumulate: bool) -> tuple[list, tuple, bool]:
    """_index_put_impl_'s checks; returns (entries, broadcast index shape, masked_fill case)."""
    if len(indices) > len(self._size):
        raise IndexError(f"too many indices for tensor of dimension {len(self._size)} (got {len(indices)})")
    if any(s > 1 and st == 0 for s, st in zip(self._size, self._stride)):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
            "operation. This also applies to advanced indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=4)
    # canDispatchToMaskedFill: one mask and a one-element CPU value take masked_fill_ (no dtype check)
    masked_fill = (not accumulate and values.numel() == 1 and values._device.type == "cpu"
                   and sum(t is not None for t in indices) == 1
                   and all(t is None or (_is_mask(t) and t._device == self._device) for t in indices))
    if not masked_fill and _overlaps(self, values):  # masked_fill_ reads the value out first
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")
    for t in indices:
        if t is not None and _overlaps(self, t):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.")
    # index values are needed on the CPU; a Meta self with Meta integer indices only needs shapes
    with_values = all(t is None or isinstance(t._storage, CPUStorage) for t in indices)
    entries = _expand_indices(self, list(indices), with_values)
    bshape = _broadcast_index_shape(entries, with_values)
    shape = _result_shape(self._size, entries, bshape)
    if not masked_fill:
        vs = values._size
        if len(vs) > len(shape) or any(v != s and v != 1 for v, s in zip(reversed(vs), reversed(shape))):
            raise RuntimeError(f"shape mismatch: value tensor of shape {_fmt(vs)} cannot be broadcast to "
                               f"indexing result of shape {_fmt(shape)}")
        if values.dtype is not self.dtype:
            names = _dt._TORCH_NAMES
            raise RuntimeError(
                f"Index put requires the source and destination dtypes match, got {names[self.dtype._index]} for the "
                f"destination and {names[values.dtype._index]} for the source.")
    return (entries if with_values else []), bshape, masked_fill


@index_put_.impl("CPU")
def index_put__cpu(self: Tensor, indices: list, values: Tensor, accumulate: bool = False) -> Tensor:
    entries, bshape, masked_fill = _index_put_checks(self, list(indices), values, accumulate)
    _check_bounds(self._size, entries, bshape)
    a = self._numpy_view()
    v = _host(values)
    if masked_fill:  # masked_fill_(mask, value.item()): the value is converted, not checked
        v = v.reshape(()).astype(a.dtype)
    key = _numpy_key(entries)
    if accumulate:
        np.add.at(a, key, v)
    else:
        a[key] = v
    return self


@index_put_.impl("Meta")
def index_put__meta(self: Tensor, indices: list, values: Tensor, accumulate: bool = False) -> Tensor:
    _index_put_checks(self, list(indices), values, accumulate)
    return self


@index_put.impl("CompositeExplicitAutograd")
def index_put_kernel(self: Tensor, indices: list, values: Tensor, accumulate: bool = False) -> Tensor:
    from .._ops import ops

    return index_put_.op(ops.aten.clone.default(self), indices, values, accumulate)


# ---- Python indexing: __getitem__ / __setitem__ ----------------------------------------------------
_OPS: dict[str, Any] = {}


def _op(name: str) -> Any:
    """Operator handles looked up once, at first use (the copy operators live in another file)."""
    op = _OPS.get(name)
    if op is None:
        from .._ops import ops

        pkt, _, ov = name.partition(".")
        op = _OPS[name] = getattr(getattr(ops.aten, pkt), ov or "default")
    return op


def _invalid_index(obj: Any) -> None:
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                     f"(got {_tp_name(obj)})")


def _tp_name(obj: Any) -> str:
    """Py_TYPE(obj)->tp_name: a class defined in Python by its name, a built-in type with its module."""
    tp = type(obj)
    if tp.__flags__ & (1 << 9) or tp.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return tp.__name__
    return f"{tp.__module__}.{tp.__qualname__}"


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
    if not disable_slice_optimization and start == 0 and step == 1 and dim < len(self._size) and stop == self._size[dim]:
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
    return _host(t).item()


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


def _options_string(t: Tensor) -> str:
    """options_to_string: 'torch.FloatTensor', 'torch.meta.FloatTensor'."""
    dev = t._device.type
    return f"torch.{'' if dev == 'cpu' else dev + '.'}{_dt._TORCH_NAMES[t.dtype._index]}Tensor"


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


def _value_tensor(self: Tensor, value: Any) -> Tensor:
    """valueToTensor for a Python number: a 0-dim tensor of self's dtype on self's device."""
    t = _op("empty.memory_format")((), dtype=self.dtype, device=self._device)
    _op("fill_.Scalar")(t, value)
    return t


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    if not isinstance(value, Tensor):
        tp = type(value)
        if not (tp in _PY_SCALARS or isinstance(value, (int, float, complex, np.integer))) or isinstance(value, np.bool_):
            raise TypeError(f"can't assign a {_tp_name(value)} to a {_options_string(self)}")
        if tp not in _PY_SCALARS:
            value = value.item() if isinstance(value, np.generic) else (
                complex(value) if isinstance(value, complex) else float(value) if isinstance(value, float)
                else int(value))

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


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.__delitem__ = _delitem
