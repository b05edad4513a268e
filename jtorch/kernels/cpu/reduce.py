"""The CPU `reduce` stub: run a declared Reduction over a built reduce-mode TensorIterator.

The kernel module of a reduction is generated once (reduce_codegen), written to the kernel cache
and imported; Numba compiles its entry points per dtype on first use and caches them on disk.
This module turns the iterator into the kernels' arguments and picks the parallel split with
the process's one thread policy (threads.num_chunks), as PyTorch's parallel_reduce does:

* serial below the grain size (or with one thread);
* one output element (all-reduce): two passes: each chunk of the outermost dim that is big
  enough reduces into its own accumulator slot, then `finish` folds the slots in order;
* otherwise: split the outermost kept dim with at least one chunk's worth of positions
  (boundaries rounded to 128 bytes when that dim is contiguous in the input), each chunk owning
  its outputs' accumulators.

Accumulators are a separate buffer (acc dtype, contiguous over the kept dims), so a reduction
never reads its output back and outputs of any dtype and layout take the projected result once.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...geometry import contiguous_strides
from ..common import cache
from ..common.reduce_plan import acc_dtype, count, identity, open_reduce, real_dtype
from ..reduction import OrderStatistic, Reduction
from . import reduce_codegen
from .threads import GRAIN_SIZE, num_chunks


def kernels(r: Reduction) -> Any:
    """The imported kernel module of `r` (generated on first use; shared by reductions whose
    scalar pieces are the same: amax, argmax and max.dim use one)."""
    return cache.generated_module(("reduce", r.kernel_key()), lambda: reduce_codegen.module_source(r))


def reduce(it: Any, r: Reduction, extras: tuple = ()) -> None:
    """Run `r` over the reduce-mode iterator `it` (outputs as `r.outputs` names them)."""
    if isinstance(r, OrderStatistic):
        from .order import median

        median(it)
        return
    op = open_reduce(it, r, extras)
    x = op.x
    ib = x._storage.data
    shape, in_st, out_st = op.shape, op.in_st, op.out_st
    nd = len(shape)
    kept = [d for d in range(nd) if out_st[d] != 0]
    acc_st = [0] * nd
    m = 1
    for d in kept:
        acc_st[d] = m
        m *= shape[d]
    numel = 1
    for s in shape:
        numel *= s

    values = op.values.tensor if op.values is not None else None
    indices = op.indices.tensor if op.indices is not None else None
    acc_dt, ident, ex = op.acc, op.ident, op.extras

    # the split: (dim, [(lo, hi, acc offset)], number of partial accumulator sets)
    nchunks = num_chunks(numel) if numel else 1
    d, npart = 0, 1
    if nchunks > 1:
        cands = list(range(nd - 1, -1, -1)) if m == 1 else kept[::-1]
        d = next((q for q in cands if shape[q] >= nchunks), max(cands, key=lambda q: shape[q]))
        nchunks = min(nchunks, shape[d])
    size = shape[d]
    if nchunks <= 1:
        chunks = [(0, size, 0)]
    elif m == 1:
        npart = nchunks
        chunks = [(c * size // nchunks, (c + 1) * size // nchunks, c) for c in range(nchunks)]
    else:
        align = 128 // ib.itemsize if in_st[d] == 1 else 1
        bounds = [min(size, -(-(c * size // nchunks) // align) * align) for c in range(nchunks)] + [size]
        chunks = [(bounds[c], bounds[c + 1], bounds[c] * acc_st[d]) for c in range(nchunks)]

    ab = np.full(npart * m, ident, dtype=acc_dt)
    xb = np.zeros(npart * m if r.selecting else 1, dtype=np.int64)
    mod = kernels(r)
    if numel:
        g = np.array([nd, d, *shape, *in_st, *acc_st, *(v for c in chunks for v in c), indices is not None],
                     dtype=np.int64)
        if numel < GRAIN_SIZE:  # bigger ones go through the one entry point (threads.py)
            mod.accumulate(g, 0, ib, x._offset, ab, xb, ident, *ex)
        else:
            mod.accumulate_par(g, len(chunks), ib, x._offset, ab, xb, ident, *ex)

    vst = list(it.operands[r.outputs.index("values")].strides) if values is not None else None
    yst = list(it.operands[r.outputs.index("indices")].strides) if indices is not None else None
    if not it.shape:
        vst = [0] if vst is not None else None
        yst = [0] if yst is not None else None
    fk = [len(kept), *(shape[q] for q in kept), *((vst[q] for q in kept) if vst else (0 for _ in kept)),
          *((yst[q] for q in kept) if yst else (0 for _ in kept))]
    ob, oo = (values._storage.data, values._offset) if values is not None else (ab, 0)
    yb, yo = (indices._storage.data, indices._offset) if indices is not None else (xb, 0)
    mod.finish(np.array(fk, dtype=np.int64), m, npart, ab, xb, ob, oo, yb, yo,
               values is not None, indices is not None, op.count, *ex)


_BF16 = _dt.bfloat16


def reduce_contiguous(r: Reduction, x: Any, results: list, extras: tuple = (), mask: Any = None) -> bool:
    """A contiguous input below the grain size reduced over the dims `mask` marks (None: all)
    into contiguous outputs, without an iterator; False (nothing done) where that does not apply."""
    n = x.numel()
    if n >= GRAIN_SIZE or n == 0:
        return False
    if x.dtype is _BF16:
        return False  # bfloat16 goes through the iterator (float32)
    for t in results:
        if t.dtype is _BF16:
            return False
    if mask is not None and not all(m for m, size in zip(mask, x._size) if size != 1):
        return _reduce_dims(r, x, results, extras, mask)
    ib = x._storage.data
    key = (id(r), ib.dtype, results[0]._storage.data.dtype, len(results))  # id: hashing r hashes its pieces
    run = _small.get(key)
    if run is None:
        run = _small[key] = _small_runner(r, ib.dtype, results)
        if run is None:
            return False
    return run(ib, x._offset, n, results, extras)


def _small_runner(r: Reduction, in_dt: np.dtype, results: list) -> Any:
    """run(ib, offset, n, results, extras) for one reduction and dtypes (None: not served here)."""
    if in_dt.kind == "f" and in_dt.itemsize == 2:  # float16 goes through the iterator (float32)
        return None
    vi = r.outputs.index("values") if "values" in r.outputs else None
    ii = r.outputs.index("indices") if "indices" in r.outputs else None
    if vi is not None:
        out_dt = results[vi]._storage.data.dtype
        if out_dt.kind == "f" and out_dt.itemsize == 2:
            return None
        acc_dt = acc_dtype(r, in_dt, out_dt)
    else:
        acc_dt = in_dt
    real = real_dtype(acc_dt)
    ident = identity(r, acc_dt)
    counted = real.type if real.kind in "fc" else np.int64  # count(real, n) without a call per run
    small = kernels(r).small
    dummy_values = np.zeros(1, dtype=acc_dt)
    dummy_index = np.zeros(1, dtype=np.int64)
    wv, wi = vi is not None, ii is not None

    def run(ib: np.ndarray, off: int, n: int, results: list, extras: tuple) -> bool:
        if vi is not None:
            v = results[vi]
            ob, oo = v._storage.data, v._offset
        else:
            ob, oo = dummy_values, 0
        if ii is not None:
            y = results[ii]
            yb, yo = y._storage.data, y._offset
        else:
            yb, yo = dummy_index, 0
        if extras:
            small(ib, off, n, ob, oo, yb, yo, wv, wi, ident, counted(n), *(real.type(e) for e in extras))
        else:
            small(ib, off, n, ob, oo, yb, yo, wv, wi, ident, counted(n))
        return True

    return run


_small: dict = {}


def _dims_plan(r: Reduction, x: Any, results: list, mask: Any) -> Any:
    """What `reduce` would compute from the iterator, for a contiguous input and contiguous
    outputs: runs of kept or reduced dims merged, the reduced ones first, each kind fastest
    first (the iterator's reorder and coalescing); one serial chunk. The kept dims keep their
    memory order, so a contiguous output's strides are the accumulators'. None where the
    masked path does not serve."""
    ib = x._storage.data
    if ib.dtype.kind == "f" and ib.dtype.itemsize == 2 or isinstance(r, OrderStatistic):
        return None
    groups: list = []  # [size, reduced, stride]: memory order, fastest first, runs merged
    step = 1
    for size, red in zip(reversed(x._size), reversed(mask)):
        if size == 1:
            continue
        if groups and groups[-1][1] == bool(red):
            groups[-1][0] *= size
        else:
            groups.append([size, bool(red), step])
        step *= size
    dims = [gr for gr in groups if gr[1]] + [gr for gr in groups if not gr[1]]  # the reduced dims first
    nred = sum(1 for gr in groups if gr[1])
    if nred == 0 or nred == len(dims) or (r.selecting and nred != 1):
        return None
    shape = [size for size, _, _ in dims]
    in_st = [st for _, _, st in dims]
    nd = len(shape)
    acc_st, kept, m, n = [0] * nd, [], 1, 1
    for q, (size, red, _) in enumerate(dims):
        if red:
            n *= size
        else:
            kept.append(q)
            acc_st[q] = m
            m *= size
    vi = r.outputs.index("values") if "values" in r.outputs else None
    ii = r.outputs.index("indices") if "indices" in r.outputs else None
    for t in results:
        if t._stride != contiguous_strides(t._size) or t.numel() != m:
            return None
    if vi is not None:
        out_dt = results[vi]._storage.data.dtype
        if out_dt.kind == "f" and out_dt.itemsize == 2:
            return None
        acc_dt = acc_dtype(r, ib.dtype, out_dt)
    else:
        acc_dt = ib.dtype
    real = real_dtype(acc_dt)
    g = np.array([nd, 0, *shape, *in_st, *acc_st, 0, shape[0], 0, ii is not None], dtype=np.int64)
    out_st = [acc_st[q] for q in kept]  # contiguous outputs follow the kept dims' memory order
    fk = np.array([len(kept), *(shape[q] for q in kept), *(out_st if vi is not None else [0] * len(kept)),
                   *(out_st if ii is not None else [0] * len(kept))], dtype=np.int64)
    return (g, fk, m, acc_dt, identity(r, acc_dt), count(real, n), real, vi, ii, kernels(r))


def _reduce_dims(r: Reduction, x: Any, results: list, extras: tuple, mask: Any) -> bool:
    """reduce_contiguous over some dims: `reduce`'s two kernel calls with a plan cached per
    reduction, dtypes, shape and mask (a training loop's bias gradients repeat them)."""
    key = (id(r), x._storage.data.dtype, tuple(t._storage.data.dtype for t in results), x._size, tuple(mask),
           tuple(t._size for t in results))
    plan: Any = _dim_plans.get(key)  # a plan tuple, False (no plan for this key) or None (not yet made)
    if plan is None:
        if len(_dim_plans) > 256:
            _dim_plans.clear()
        plan = _dim_plans[key] = _dims_plan(r, x, results, mask) or False
    if plan is False:
        return False
    g, fk, m, acc_dt, ident, count, real, vi, ii, mod = plan
    if not r.selecting and r.project is None and results[vi]._storage.data.dtype == acc_dt:
        # sum, prod, any...: the accumulators are the contiguous output itself, no finishing pass
        v = results[vi]
        ab = v._storage.data[v._offset:v._offset + m]
        ab.fill(ident)
        mod.accumulate(g, 0, x._storage.data, x._offset, ab, _NO_INDEX, ident, *(real.type(e) for e in extras))
        return True
    ab = np.full(m, ident, dtype=acc_dt)
    xb = np.zeros(m if r.selecting else 1, dtype=np.int64)
    ex = tuple(real.type(e) for e in extras)
    mod.accumulate(g, 0, x._storage.data, x._offset, ab, xb, ident, *ex)
    ob, oo = (results[vi]._storage.data, results[vi]._offset) if vi is not None else (ab, 0)
    yb, yo = (results[ii]._storage.data, results[ii]._offset) if ii is not None else (xb, 0)
    mod.finish(fk, m, 1, ab, xb, ob, oo, yb, yo, vi is not None, ii is not None, count, *ex)
    return True


_dim_plans: dict = {}
_NO_INDEX = np.zeros(1, dtype=np.int64)  # the index accumulator of a reduction that selects none
