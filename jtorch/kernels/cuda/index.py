"""The CUDA indexing kernels, the twin of kernels/cpu/index.py (the contract's index, index_put,
index_map, index_bounds and nonzero; CUDABackend binds _index, _index_put, run_map,
first_out_of_range and nonzero):

Everything runs as kernels on the device: the host only plans geometry (int64 arrays of shapes
and strides) and uploads the index arrays that advanced indexing hands over on the host.
Accumulation (index_put accumulate=True, scatter_add, index_add, scatter_reduce, put_) uses
cuda.atomic where an atomic performs the combine for the dtype (add: float32, float64, int32,
int64; max/min: int32, int64); every other case runs the deterministic form: one thread per
slice of the destination that no two threads share, walking the colliding positions in order.
With deterministic algorithms on, float accumulation and plain stores with duplicate indices
(index_put_, scatter, index_copy) run the deterministic form too, as torch's do.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...geometry import index_map_geometry
from ...geometry import numel as _numel
from ...global_context import deterministic
from ..common import cache
from ..scalar_index import IndexMap
from . import driver, index_codegen
from . import index_kernels as K
from .elementwise import meta_array
from .storage import CUDAStorage

_ATOMIC_ADD = frozenset({np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64)})
_ATOMIC_MINMAX = frozenset({np.dtype(np.int32), np.dtype(np.int64)})  # float NaN rules differ: deterministic


def upload(values: np.ndarray, dtype: Any = _dt.int64) -> CUDAStorage:
    """Scratch device memory holding `values` (flattened); keep the storage alive while in use."""
    flat = np.ascontiguousarray(values, dtype=dtype.numpy).reshape(-1)
    st = CUDAStorage.allocate(max(flat.size, 1), dtype)
    if flat.size:
        st.copy_from_host(0, flat)
    return st


# ---- advanced indexing -------------------------------------------------------------------------
def _plan(self: Any, key: list) -> tuple:
    """(result shape, result dims as ("rest", self dim) or ("index", broadcast dim), self's
    strides over the result, per index array (self size, self stride, offset in the
    buffer, strides over the result), the concatenated index buffer).

    NumPy's placement (native/indexing.py _result_shape): the broadcast index dims replace the
    indexed dims in place when those are adjacent, else go first."""
    size, stride = self._size, self._stride
    arrays = [(d, np.ascontiguousarray(e, dtype=np.int64)) for d, e in enumerate(key) if e is not None]
    bshape = np.broadcast_shapes(*(a.shape for _, a in arrays))
    rest = [d for d in range(len(size)) if d >= len(key) or key[d] is None]
    pos = [d for d, _ in arrays]
    before = pos[0] if pos[-1] - pos[0] + 1 == len(pos) else 0
    # each result dim: ("rest", self dim) or ("index", broadcast dim)
    dims = [("rest", d) for d in rest[:before]] + [("index", j) for j in range(len(bshape))] + \
        [("rest", d) for d in rest[before:]]
    shape = tuple(size[d] if kind == "rest" else bshape[d] for kind, d in dims)
    self_strides = tuple(stride[d] if kind == "rest" else 0 for kind, d in dims)
    per_index = []
    chunks = []
    off = 0
    for d, a in arrays:
        b = np.broadcast_to(a, bshape)
        bst = [s // 8 for s in b.strides]
        istr = tuple(bst[j] if kind == "index" else 0 for kind, j in dims)
        per_index.append((size[d], stride[d], off, istr))
        chunks.append(a.reshape(-1))
        off += a.size
    return shape, dims, self_strides, per_index, np.concatenate(chunks)


def _geometry(shape: tuple, order: list, a: tuple, s: tuple, per_index: list) -> Any:
    """The int64 geometry array of index_kernels (dims listed in `order`, the slowest first)."""
    g = [len(order), len(per_index)] + [shape[d] for d in order] + [a[d] for d in order] + [s[d] for d in order]
    for isize, istride, off, istr in per_index:
        g += [isize, istride, off] + [istr[d] for d in order]
    return meta_array(tuple(g))


def _values_strides(values: Any, shape: tuple) -> tuple:
    """values' strides broadcast (right-aligned) to the result shape."""
    nd, vs, vst = len(shape), values._size, values._stride
    out = [0] * nd
    for k in range(1, len(vs) + 1):
        if vs[-k] != 1:
            out[nd - k] = vst[-k]
    return tuple(out)


def _index(out: Any, self: Any, key: list) -> None:
    shape, _, s, per_index, flat = _plan(self, key)
    n = _numel(shape)
    if n == 0:
        return
    a = tuple(out._stride)
    idx = upload(flat)
    g = _geometry(shape, list(range(len(shape))), a, s, per_index)
    driver.launch(K.index_gather, n, n, g, idx.data, out._storage.data, out._offset,
                  self._storage.data, self._offset)


def _index_put(self: Any, key: list, values: Any, accumulate: bool) -> None:
    shape, dims, s, per_index, flat = _plan(self, key)
    n = _numel(shape)
    if n == 0:
        return
    a = _values_strides(values, shape)
    idx = upload(flat)
    data = self._storage.data
    common = (idx.data, data, self._offset, values._storage.data, values._offset)
    if not accumulate and not deterministic():  # duplicate indices race: one of the values wins
        g = _geometry(shape, list(range(len(shape))), a, s, per_index)
        driver.launch(K.index_put, n, n, 1, g, *common, False)
    elif accumulate and data.dtype in _ATOMIC_ADD and not (deterministic() and data.dtype.kind == "f"):
        g = _geometry(shape, list(range(len(shape))), a, s, per_index)
        driver.launch(K.index_put_atomic, n, n, g, *common)
    else:  # deterministic: the dims no index covers outermost, one thread per row of them
        outer = [k for k, (kind, _) in enumerate(dims) if kind == "rest"]
        inner = [k for k, (kind, _) in enumerate(dims) if kind == "index"]
        nrows = _numel(tuple(shape[k] for k in outer))
        g = _geometry(shape, outer + inner, a, s, per_index)
        driver.launch(K.index_put, nrows, nrows, n // nrows, g, *common, accumulate)


# ---- declared index maps -----------------------------------------------------------------------
def _map_kernels(m: IndexMap) -> Any:
    return cache.generated_module(("cuda", "index_map", m.kernel_key()), lambda: index_codegen.module_source(m))


def run_map(m: IndexMap, shape: tuple, dst: Any, dst_strides: tuple, src: Any, src_strides: tuple, index: Any,
            index_strides: tuple, index_stride: int, index_size: int, extras: tuple = ()) -> None:
    n = _numel(shape)
    if n == 0:
        return
    bd = dst._storage.data
    if isinstance(src, np.generic):  # a fill value: a one-element source, stride 0
        keep = upload(np.array([src]), dst.dtype)
        bs, os = keep.data, 0
        src_strides = (0,) * len(shape)
    else:
        bs, os = src._storage.data, src._offset
    shape, strides = index_map_geometry(shape, dst_strides, src_strides, index_strides)
    mod = _map_kernels(m)
    ops = (bd, dst._offset, bs, os, index._storage.data, index._offset, index_stride, index_size,
           *extras)
    op = index_codegen.ATOMIC.get(m.combine)
    if not m.scatter or (not m.reads_dst and not deterministic()):  # a gather, or a racing plain store
        order = list(range(len(shape)))
        ninner = 1
    elif (m.reads_dst and op is not None and bd.dtype in (_ATOMIC_ADD if op == "add" else _ATOMIC_MINMAX)
          and not (deterministic() and bd.dtype.kind == "f")):  # float atomics add in any order
        g = meta_array((len(shape), *shape, *strides[0], *strides[1], *strides[2]))
        driver.launch(mod.run_atomic, n, n, g, bd.dtype.type(0), *ops)
        return
    else:  # deterministic: the dims along which dst does not move (they collide) innermost
        order = [d for d in range(len(shape)) if strides[0][d] == 0] + [d for d in range(len(shape))
                                                                       if strides[0][d] != 0]
        ninner = _numel(tuple(shape[d] for d in order if strides[0][d] == 0))
    g = meta_array((len(shape), *(shape[d] for d in order), *(strides[k][d] for k in range(3) for d in order)))
    driver.launch(mod.run, n // ninner, n, ninner, g, *ops)


# ---- bounds and nonzero --------------------------------------------------------------------------
def _walk(t: Any) -> tuple:
    """(numel, geometry [nd, shape, strides] in C order; a 0-dim tensor as one dim of size 1)."""
    size, stride = (t._size, t._stride) if t._size else ((1,), (0,))
    return _numel(size), meta_array((len(size), *size, *stride))


def first_out_of_range(index: Any, lo: int, hi: int) -> int | None:
    n, g = _walk(index)
    if n == 0:
        return None
    res = upload(np.array([n]))
    driver.launch(K.first_out_of_range, n, n, g, index._storage.data, index._offset, lo, hi, res.data)
    p = int(res.copy_to_host(0, 1)[0])
    if p >= n:
        return None
    size, stride = index._size, index._stride
    off = index._offset
    for d in range(len(size) - 1, -1, -1):
        off += (p % size[d]) * stride[d]
        p //= size[d]
    return int(index._storage.read(off))


def _blocks(n: int) -> tuple[int, int]:
    """(blocks, threads) of the compaction: a power-of-two block; a few blocks under the
    simulator, so that the per-block offsets are exercised too."""
    if driver.SIMULATED:
        return max(1, min(3, (n + 7) // 8)), 8
    return max(1, min((n + K.SCAN - 1) // K.SCAN, driver.sm_count() * 8)), K.SCAN


def nonzero(t: Any) -> np.ndarray:
    ncols = len(t._size)
    n, g = _walk(t)
    if n == 0:
        return np.zeros((0, ncols), np.int64)
    blocks, threads = _blocks(n)
    chunk = (n + blocks - 1) // blocks
    counts = CUDAStorage.allocate(blocks, _dt.int64)
    data = t._storage.data
    driver.launch_blocks(K.nonzero_count, blocks, threads, n, chunk, g, data, t._offset, counts.data)
    c = counts.copy_to_host(0, blocks)  # the host learns the count here, as torch synchronises
    total = int(c.sum())
    if total == 0 or ncols == 0:
        return np.zeros((total, ncols), np.int64)
    starts = upload(np.concatenate(([0], np.cumsum(c)[:-1])))
    out = CUDAStorage.allocate(total * ncols, _dt.int64)
    driver.launch_blocks(K.nonzero_coords, blocks, threads, n, chunk, g, data, t._offset, starts.data,
                         out.data, ncols)
    return out.copy_to_host(0, total * ncols).reshape(total, ncols)

