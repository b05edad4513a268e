"""Broadcast helpers and grids (ATen's TensorShape.cpp, Itertools.cpp, TensorFactories.cpp):
broadcast_tensors, meshgrid (views: each input viewed along its own dim and expanded),
cartesian_prod, combinations, tril_indices, triu_indices.

The Python-level variadic front ends (torch.broadcast_tensors(*tensors), torch.meshgrid(*tensors,
indexing=None), torch.cartesian_prod(*tensors), torch.block_diag(*tensors), broadcast_shapes)
are in jtorch/functional.py, as in torch.functional.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..device import as_device
from ..geometry import infer_size, shape_str
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate
from ..tensor import Tensor
from ..warn import user_stacklevel
from .copy import copy_from_host
from .factories import aten
from .registry import composite_implicit_autograd, declare


def _index_tensor(values: np.ndarray, dtype: _dt.dtype, dev: Any) -> Tensor:
    """Indices computed from sizes alone (never from data), written into a new tensor on dev."""
    out = allocate(values.shape, None, dtype, dev)
    if dev.type != "meta" and values.size:
        copy_from_host(out, values.astype(dtype.numpy))
    return out


# ---- broadcast_tensors ---------------------------------------------------------------------------
@composite_implicit_autograd("broadcast_tensors(Tensor[] tensors) -> Tensor[]")
def broadcast_tensors(tensors: Sequence[Tensor]) -> tuple:
    """expand_outplace: every tensor expanded (a view) to the common broadcast shape; one of that
    shape already is returned as it is (no ExpandBackward0 recorded)."""
    if not tensors:
        return ()
    shape = tensors[0]._size
    for t in tensors[1:]:
        shape = infer_size(shape, t._size)
    return tuple(t if t._size == shape else aten("expand")(t, shape) for t in tensors)


# ---- meshgrid, cartesian_prod ----------------------------------------------------------------------
_warned = False


def _meshgrid(tensors: Sequence[Tensor], indexing: str) -> tuple:
    size = len(tensors)
    if size == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i in range(size - 1):
        if tensors[i].dtype is not tensors[i + 1].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if tensors[i]._device != tensors[i + 1]._device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    refs = list(tensors)
    swap = False
    if indexing == "xy":
        swap = size >= 2
        if swap:
            refs[0], refs[1] = refs[1], refs[0]
    elif indexing != "ij":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    shape = []
    for t in refs:
        if len(t._size) > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        shape.append(t.numel())
    grids = []
    view = [1] * size
    for i, t in enumerate(refs):
        view[i] = -1
        grids.append(aten("expand")(aten("view")(t, tuple(view)), tuple(shape)))
        view[i] = 1
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@composite_implicit_autograd("meshgrid(Tensor[] tensors) -> Tensor[]")
def meshgrid(tensors: Sequence[Tensor]) -> tuple:
    global _warned
    if not _warned:  # TORCH_WARN_ONCE
        _warned = True
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=user_stacklevel())
    return _meshgrid(tensors, "ij")


composite_implicit_autograd("meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]")(
    lambda tensors, *, indexing: _meshgrid(tensors, indexing))


def _expect_vector(t: Tensor) -> None:
    if len(t._size) != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(t._size)}")


@composite_implicit_autograd("cartesian_prod(Tensor[] tensors) -> Tensor")
def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    for t in tensors:
        _expect_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(tensors, "ij")
    return aten("stack")([aten("reshape")(g, (-1,)) for g in grids], 1)


# ---- combinations ------------------------------------------------------------------------------------
@composite_implicit_autograd("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor")
def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    _expect_vector(self)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return allocate((0,), None, self.dtype, self._device)
    n = self._size[0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(n), r)), dtype=np.int64).reshape(-1, r)
    return aten("index.Tensor")(self, [_index_tensor(idx, _dt.int64, self._device)])


# ---- tril_indices, triu_indices ---------------------------------------------------------------------
_OPTS = "Layout? layout=None, Device? device=None, bool? pin_memory=None"


def _triangle_indices(name: str, lower: bool) -> None:
    def kernel(row: int, col: int, offset: int = 0, *, dtype: Any = _dt.int64, layout: Any = None,
               device: Any = None, pin_memory: Any = None) -> Tensor:
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        dtype = _dt.int64 if dtype is None else dtype
        if dtype not in (_dt.int32, _dt.int64):
            raise NotImplementedError(f"\"{name}\" not implemented for '{SCALAR_TYPE_NAME[dtype]}'")
        rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
        return _index_tensor(np.stack([rows, cols]).reshape(2, -1), dtype, as_device(device or "cpu"))

    declare(f"{name}(int row, int col, int offset=0, *, ScalarType? dtype=long, {_OPTS}) -> Tensor"
            ).impl("CompositeExplicitAutograd")(kernel)


_triangle_indices("tril_indices", True)
_triangle_indices("triu_indices", False)
