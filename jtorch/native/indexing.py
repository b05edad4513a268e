"""Advanced indexing operators: `index.Tensor`, `index_put_`, `index_put` (TensorAdvancedIndexing.cpp,
IndexingUtils.h). Their kernels follow NumPy's rules: bool masks become their nonzero coordinates,
the index tensors broadcast together, and the broadcast dimensions replace the indexed ones in
place when these are adjacent, else go first.

The kernels are backend-neutral: the index values are read on the host (they decide shapes and
bounds, as in make_info / expandTensors), then the backend's `index` / `index_put` gathers or scatters.
`t[i]` / `t[i] = v`, which translate Python index expressions into these and view operators, are
in python_indexing.py.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str as _fmt
from ..memory_overlap import _FULL, _PARTIAL, get_overlap_status
from ..scalar import SCALAR_TYPE_NAME, not_implemented
from ..structured.meta import allocate
from ..tensor import Tensor
from ..warn import user_stacklevel
from .copy import clone, copy_from_host, host_array, host_values, moved
from .registry import declare
from .unsigned_support import refuses_inside

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
    """An index tensor's values on the host (index tensors live on the CPU or self's device)."""
    if t._device.type == "meta":
        raise NotImplementedError(
            "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
            "data-independent implementation does not exist.")
    return host_values(t)


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
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=user_stacklevel())
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
    if any(e is not None and size[i] == 0 for i, e in enumerate(entries)):  # AdvancedIndex's own check
        raise IndexError("index is out of bounds for dimension with size 0")
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


def _backend_of(t: Tensor) -> Any:
    return backend(t._device.type)


# ---- index.Tensor -----------------------------------------------------------------------------------
@index.impl_backends
@refuses_inside
def index_kernel(self: Tensor, indices: list) -> Tensor:
    with_values = self._device.type != "meta"
    if with_values and self.dtype in _dt.bits_dtypes:  # index_cpu has no bits case
        raise not_implemented(f"index_{self._device.type}", self.dtype)
    entries = _expand_indices(self, list(indices), with_values)
    bshape = _broadcast_index_shape(entries, with_values)
    if with_values:
        _check_bounds(self._size, entries, bshape)
    out = allocate(tuple(_result_shape(self._size, entries, bshape)), None, self.dtype, self._device)
    if with_values and out.numel():
        _backend_of(self).index(out, self, entries)
    return out


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
            "operation. This also applies to advanced indexing e.g. tensor[indices] = tensor", UserWarning,
            stacklevel=user_stacklevel())
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
    # index values are needed on the host; a Meta self with Meta integer indices only needs shapes
    with_values = all(t is None or t._device.type != "meta" for t in indices)
    entries = _expand_indices(self, list(indices), with_values)
    bshape = _broadcast_index_shape(entries, with_values)
    shape = _result_shape(self._size, entries, bshape)
    # a one-element 0-dim value is moved to self's device; CUDA's sort path checks the others first
    other_device = values._device != self._device and not (values.numel() == 1 and not values._size)
    if other_device and not masked_fill and "meta" not in (self._device.type, values._device.type):
        from ..global_context import are_deterministic_algorithms_enabled

        if self._device.type == "cuda" and (accumulate or are_deterministic_algorithms_enabled()):
            raise RuntimeError(f"expected device {self._device} but got device {values._device} for value tensor")
    else:
        other_device = False
    if not masked_fill:
        vs = values._size
        if len(vs) > len(shape) or any(v != s and v != 1 for v, s in zip(reversed(vs), reversed(shape))):
            raise RuntimeError(f"shape mismatch: value tensor of shape {_fmt(vs)} cannot be broadcast to "
                               f"indexing result of shape {_fmt(shape)}")
        if values.dtype is not self.dtype:
            raise RuntimeError(
                f"Index put requires the source and destination dtypes match, got {SCALAR_TYPE_NAME[self.dtype]} for "
                f"the destination and {SCALAR_TYPE_NAME[values.dtype]} for the source.")
        if other_device:  # the index_put iterator's device check
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{self._device} and {values._device}!")
    return (entries if with_values else []), bshape, masked_fill


@index_put_.impl_backends
def index_put__kernel(self: Tensor, indices: list, values: Tensor, accumulate: bool = False) -> Tensor:
    entries, bshape, masked_fill = _index_put_checks(self, list(indices), values, accumulate)
    if self._device.type == "meta":
        return self
    _check_bounds(self._size, entries, bshape)
    if masked_fill:  # masked_fill_(mask, value.item()): the value is converted, not checked
        v = allocate((), None, self.dtype, self._device)
        copy_from_host(v, host_array(values)[:1].astype(self.dtype.numpy))
        values = v
    else:
        values = moved(values, self._device)
    if 0 not in bshape:
        _backend_of(self).index_put(self, entries, values, accumulate)
    return self


@index_put.impl("CompositeExplicitAutograd")
def index_put_kernel(self: Tensor, indices: list, values: Tensor, accumulate: bool = False) -> Tensor:
    return index_put_.op(clone.op(self), indices, values, accumulate)
