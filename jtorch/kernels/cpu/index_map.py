"""The CPU index-map runner: one declared IndexMap (jtorch/kernels/scalar_index.py) over a planned
iteration, through the loops index_codegen generates.

The caller (jtorch/native/scatter_gather.py, index_ops.py) has checked every index value and
restrided the operands to the iteration shape (PyTorch's restride_dim: the operand the index
applies to has stride 0 along the indexed dim, the index is added times `index_stride`). Here the
dims are ordered and coalesced as TensorIterator would, and the work split:

* a gather-side map may split any dim; a scatter-side map only a dim along which the destination
  moves (stride != 0): two positions that differ only in dims where it does not (the indexed
  dim) may hit the same element, so each chunk owns whole slices of the destination and
  duplicate indices accumulate exactly, whatever the thread count. With no such dim (put_) the
  map runs serially.
* dtypes: a plain copy (`assign`) moves bits, so it runs on the unsigned integer of the element's
  size (5 compiled kernels serve the 11 dtypes); float16 arithmetic runs on float32 copies of the
  buffers (Numba has no float16 arithmetic), rounded back once at the end.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...geometry import index_map_geometry
from ..common import cache
from ..scalar_index import IndexMap
from . import index_codegen
from .threads import launch_parallel, num_chunks

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def kernels(m: IndexMap) -> Any:
    return cache.generated_module(("index_map", m.kernel_key()), lambda: index_codegen.module_source(m))


def _serial_rerun(*args: Any) -> None:  # a chunk cannot raise: the values were checked before
    raise RuntimeError("an index-map chunk failed")


def run(m: IndexMap, shape: tuple, dst: Any, dst_strides: tuple, src: Any, src_strides: tuple, index: Any,
        index_strides: tuple, index_stride: int, index_size: int, extras: tuple = ()) -> None:
    """dst/src/index: tensors (src may be a NumPy scalar of dst's dtype: a fill value), each with
    its strides over `shape` (the logical iteration shape)."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return
    bd, od = dst._storage.data, dst._offset
    if isinstance(src, np.generic):
        bs, os = np.array([src], dtype=bd.dtype), 0
        src_strides = (0,) * len(shape)
    else:
        bs, os = src._storage.data, src._offset
    bi, oi = index._storage.data, index._offset
    if bi.dtype != np.int64:
        bi = bi.astype(np.int64)
    nchunks = num_chunks(numel)
    key = (m.scatter, tuple(shape), tuple(dst_strides), tuple(src_strides), tuple(index_strides), nchunks)
    plan = _plans.get(key)
    if plan is None:
        if len(_plans) > 512:
            _plans.clear()
        plan = _plans[key] = _plan(m, shape, dst_strides, src_strides, index_strides, numel, nchunks)
    g, nchunks = plan
    ex = tuple(extras)
    back = None
    if not m.reads_dst and bd.itemsize in _BITS:
        u = _BITS[bd.itemsize]
        bd, bs = bd.view(u), bs.view(u)
    elif bd.dtype == np.float16:
        same = bs is bd
        back, bd = bd, bd.astype(np.float32)
        bs = bd if same else bs.astype(np.float32)
        ex = tuple(np.float32(e) for e in ex)
    k = kernels(m)
    args = (bd, od, bs, os, bi, oi, index_stride, index_size, *ex)
    if nchunks <= 1:
        k.run(g, 0, *args)
    else:
        launch_parallel(_serial_rerun, k.run_par, numel, nchunks, g, *args)
    if back is not None:
        back[...] = bd.astype(np.float16)


_plans: dict = {}  # geometry -> (g, chunks): a training loop's gathers and scatters repeat their shapes


def _plan(m: IndexMap, shape: tuple, dst_strides: tuple, src_strides: tuple, index_strides: tuple, numel: int,
          nchunks: int) -> tuple:
    """The kernel's geometry array: TensorIterator's ordering and coalescing, and the split."""
    shape, strides = index_map_geometry(shape, dst_strides, src_strides, index_strides)
    nd = len(shape)
    # the split: a dim the destination moves along (any dim for a gather), large enough
    q = 0
    if nchunks > 1:
        ok = [d for d in range(nd) if strides[0][d] != 0 or not m.scatter]
        if ok:
            q = max(ok[::-1], key=lambda d: (shape[d] >= nchunks, shape[d]))
            nchunks = min(nchunks, shape[q])
        else:
            nchunks = 1
    chunks = [(c * shape[q] // nchunks, (c + 1) * shape[q] // nchunks) for c in range(nchunks)] if nchunks > 1 \
        else [(0, shape[q])]
    g = np.array([nd, q, *shape, *strides[0], *strides[1], *strides[2], *(v for c in chunks for v in c)],
                 dtype=np.int64)
    return g, nchunks
