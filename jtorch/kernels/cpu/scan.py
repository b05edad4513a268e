"""The CPU `scan` stub: run a scan declaration along one dimension of a planned call.

The structured layer (jtorch/structured/scan.py) hands over a plan: `input`, `outputs` (values
first, then int64 indices for an IndexedScan) and the wrapped `dim`, every tensor in the dtype the
kernel computes in and of the input's shape. Here the other dimensions are ordered and coalesced
as TensorIterator would (a row per position of them), and the generated kernel runs the rows,
in parallel chunks of rows when `threads.num_chunks` says so.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ...geometry import coalesce_dimensions, reorder_dimensions
from ..scalar_scan import RowNormaliser
from . import cache, scan_codegen
from .threads import num_chunks

_modules: dict[Any, Any] = {}  # declaration -> its imported kernel module
_lock = threading.Lock()


def _kernels(decl: Any) -> Any:
    mod = _modules.get(decl)
    if mod is None:
        with _lock:
            mod = _modules.get(decl)
            if mod is None:
                stem, src = scan_codegen.module_source(decl)
                path = cache.write_source(stem + ".py", src)
                mod = _modules[decl] = cache.import_file("jtorch_kernels_generated." + stem, path)
    return mod


def scan(plan: Any, decl: Any, extras: tuple = ()) -> None:
    """Run `decl` along `plan.dim` from `plan.input` into `plan.outputs` (see module doc)."""
    tensors = (*plan.outputs, plan.input)
    size = plan.input._size or (1,)  # a 0-dim tensor scans as one row of one element
    dim = plan.dim
    n = size[dim]
    other = [d for d in range(len(size)) if d != dim]
    shape = tuple(size[d] for d in other)
    strides = [[t._stride[d] for d in other] for t in tensors]
    if shape:
        perm = reorder_dimensions(shape, strides)
        shape = tuple(shape[p] for p in perm)
        strides = [[st[p] for p in perm] for st in strides]
        shape = coalesce_dimensions(shape, strides)
    else:  # a 1-d input: one row
        shape = (1,)
        strides = [[0] for _ in tensors]
    nrows = 1
    for s in shape:
        nrows *= s
    if nrows == 0 or n == 0:
        return
    nchunks = min(num_chunks(nrows * n), nrows)
    nops = len(tensors)
    ndim = len(shape)
    soff = ndim * (nops + 1)
    meta = np.zeros(soff + nchunks * (nops + ndim), dtype=np.int64)
    meta[:ndim] = shape
    for k, st in enumerate(strides):
        meta[(k + 1) * ndim:(k + 2) * ndim] = st
    w = 0
    if (isinstance(decl, RowNormaliser) and n > 1 and all(st[0] == 1 for st in strides)
            and plan.input._stride[dim] != 1):
        # consecutive positions are consecutive elements: blocks of rows side by side, as many
        # as keep a block's input and output within about 256 KiB (a core's L2 share)
        w = max(16, min(1024, (256 * 1024) // (2 * n * plan.input.element_size())) // 16 * 16)
    args: list[Any] = []
    for t in tensors:
        args += (t._storage.data, t._offset, t._stride[dim] if t._size else 1)
    k = _kernels(decl)
    if nchunks <= 1:
        k.rows(0, nrows, meta, ndim, soff, n, w, *args)
    else:
        k.rows_par(nrows, nchunks, meta, ndim, soff, n, w, *args)
