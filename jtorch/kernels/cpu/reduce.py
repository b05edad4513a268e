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

from . import cache, reduce_codegen
from .threads import GRAIN_SIZE, num_chunks
from ..reduction import OrderStatistic, Reduction

def kernels(r: Reduction) -> Any:
    """The imported kernel module of `r` (generated on first use; shared by reductions whose
    scalar pieces are the same: amax, argmax and max.dim use one)."""
    return cache.generated_module(("reduce", r.kernel_key()), lambda: reduce_codegen.module_source(r))


def _identity(r: Reduction, dt: np.dtype) -> Any:
    ident = r.identity
    if isinstance(ident, str):
        low = ident == "lowest"
        if dt.kind == "b":
            ident = not low
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            ident = info.min if low else info.max
        else:
            ident = -np.inf if low else np.inf
    return dt.type(ident)


def _real(dt: np.dtype) -> np.dtype:
    return np.empty(0, dt).real.dtype if dt.kind == "c" else dt


def reduce(it: Any, r: Reduction, extras: tuple = ()) -> None:
    """Run `r` over the reduce-mode iterator `it` (outputs as `r.outputs` names them)."""
    if isinstance(r, OrderStatistic):
        from .order import median

        median(it)
        return
    nout = it.num_outputs
    src = it.operands[nout]
    x = src.tensor
    ib = x._storage.data
    shape = tuple(it.shape)
    in_st = list(src.strides)
    out_st = list(it.operands[0].strides)
    if not shape:  # a 0-dim input: one element
        shape, in_st, out_st = (1,), [0], [0]
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

    values = it.operands[r.outputs.index("values")].tensor if "values" in r.outputs else None
    indices = it.operands[r.outputs.index("indices")].tensor if "indices" in r.outputs else None
    if r.acc == "bool":
        acc_dt = np.dtype(np.bool_)
    elif r.acc == "in" or values is None:
        acc_dt = ib.dtype
    else:
        acc_dt = values._storage.data.dtype
    real = _real(acc_dt)
    ident = _identity(r, acc_dt)
    ex = tuple(real.type(e) for e in extras)

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
    n = it.reduced_numel
    n = real.type(n) if real.kind in "fc" else np.int64(n)
    mod.finish(np.array(fk, dtype=np.int64), m, npart, ab, xb, ob, oo, yb, yo,
               values is not None, indices is not None, n, *ex)


def reduce_contiguous(r: Reduction, x: Any, results: list, extras: tuple = ()) -> bool:
    """A contiguous input below the grain size reduced whole into its outputs, without an
    iterator; False (nothing done) where that does not apply."""
    n = x.numel()
    if n >= GRAIN_SIZE or n == 0:
        return False
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
        acc_dt = np.dtype(np.bool_) if r.acc == "bool" else in_dt if r.acc == "in" else out_dt
    else:
        acc_dt = in_dt
    real = _real(acc_dt)
    ident = _identity(r, acc_dt)
    count = real.type if real.kind in "fc" else np.int64
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
            small(ib, off, n, ob, oo, yb, yo, wv, wi, ident, count(n), *(real.type(e) for e in extras))
        else:
            small(ib, off, n, ob, oo, yb, yo, wv, wi, ident, count(n))
        return True

    return run


_small: dict = {}
