"""The CUDA `reduce` stub: a declared Reduction over a built reduce-mode TensorIterator, on the
kernels reduce_codegen generates from the reduction's scalar pieces.

The launch follows PyTorch's ReduceConfig in small: the reduced dims (those the outputs do not
move along) and the kept dims are split apart; when the kept dims are the input's contiguous
ones, a block's threads take consecutive outputs (ox = BLOCK), otherwise consecutive reduced
elements of one output (rx = BLOCK, or fewer when the rows are short and several outputs share a
block). When the outputs' blocks alone cannot fill the GPU (a full reduction, or few outputs
with long rows), blockIdx.y splits each row into slices and a second kernel folds the slices'
partials: `x.sum()` of 16M elements runs on every SM, not on one block.

An OrderStatistic (median) goes to order.py.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..common import cache
from ..common.reduce_plan import open_reduce
from ..reduction import OrderStatistic, Reduction
from . import driver, reduce_codegen
from .allocator import allocate
from .elementwise import meta_array
from .storage import CUDAStorage

# Threads per block: a GPU wants 256; the simulator runs one OS thread per CUDA thread, so a
# small block keeps tests quick while still exercising the shared-memory tree.
BLOCK = 4 if driver.SIMULATED else 256
# Each thread should fold at least this many elements before a row is split into more slices.
MIN_PER_THREAD = 2 if driver.SIMULATED else 16
BLOCKS_PER_SM = 2 if driver.SIMULATED else 8  # the simulator: few blocks, slices still tested

_modules: dict[tuple, Any] = {}


def kernels(r: Reduction, acc: np.dtype, half_in: bool) -> Any:
    """The generated module of `r` for accumulator dtype `acc` (shared by amax, argmax, max.dim)."""
    key = (r.kernel_key(), acc.str, half_in)
    mod = _modules.get(key)
    if mod is None:
        mod = _modules[key] = cache.generated_module(
            ("cuda_reduce",) + key, lambda: reduce_codegen.module_source(r, acc.name, half_in, BLOCK))
    return mod


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def config(red_sizes: list, red_st: list, kept_sizes: list, kept_st: list, R: int, M: int) -> tuple[int, int]:
    """(ox, gy): outputs per block and slices per row."""
    outer = bool(kept_sizes) and (not red_sizes or abs(kept_st[0]) < abs(red_st[0]))
    if R <= 1 or outer:
        ox = min(BLOCK, _pow2_at_least(M))  # consecutive threads, consecutive outputs
    else:
        ox = BLOCK // min(BLOCK, _pow2_at_least(R))  # consecutive threads along a row
    rx = BLOCK // ox
    bx = -(-M // ox)
    want = max(1, driver.sm_count() * BLOCKS_PER_SM // bx)
    gy = max(1, min(want, -(-R // (rx * MIN_PER_THREAD)), 65535))
    return ox, gy


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
    values, indices = op.values, op.indices
    vst = (list(values.strides) or [0]) if values is not None else [0] * len(shape)
    yst = (list(indices.strides) or [0]) if indices is not None else [0] * len(shape)
    red = [d for d in range(len(shape)) if out_st[d] == 0 and shape[d] != 1]
    kept = [d for d in range(len(shape)) if out_st[d] != 0 and shape[d] != 1]
    R = int(np.prod([shape[d] for d in red], dtype=np.int64)) if red else 1
    M = int(np.prod([shape[d] for d in kept], dtype=np.int64)) if kept else 1
    if M == 0:
        return
    acc_dt, ident, ex, n = op.acc, op.ident, op.extras, op.count
    mod = kernels(r, acc_dt, ib.dtype == np.float16)

    g = meta_array((len(red), len(kept), *(shape[d] for d in red), *(in_st[d] for d in red),
                    *(shape[d] for d in kept), *(in_st[d] for d in kept), *(vst[d] for d in kept),
                    *(yst[d] for d in kept)))
    ob, oo = (values.tensor._storage.data, values.tensor._offset) if values is not None else (None, 0)
    yb, yo = (indices.tensor._storage.data, indices.tensor._offset) if indices is not None else (None, 0)
    ox, gy = config([shape[d] for d in red], [in_st[d] for d in red], [shape[d] for d in kept],
                    [in_st[d] for d in kept], R, M)
    scratch = []

    def buffer(numel: int, dt: np.dtype) -> Any:
        s = CUDAStorage(allocate(max(1, numel) * dt.itemsize), max(1, numel), dt)
        scratch.append(s)  # alive until the kernels are queued (the allocator is stream-ordered)
        return s.data

    if ob is None:
        ob = buffer(1, acc_dt)
    if yb is None:
        yb = buffer(1, np.dtype(np.int64))
    if gy > 1:
        pb, px = buffer(gy * M, acc_dt), buffer(gy * M if r.selecting else 1, np.dtype(np.int64))
    else:  # unused; never an alias of an output (the simulator copies each argument back)
        pb, px = buffer(1, acc_dt), buffer(1, np.dtype(np.int64))
    wv, wi = values is not None, indices is not None
    driver.launch_blocks(mod.partial, (-(-M // ox), gy), BLOCK, g, np.int64(R), np.int64(M), np.int64(ox),
                         np.int64(gy), ib, np.int64(x._offset), ob, np.int64(oo), yb, np.int64(yo), pb, px, ident,
                         n, wv, wi, *ex)
    if gy > 1:
        driver.launch(mod.finish, M, g, np.int64(M), np.int64(gy), np.int64(R), pb, px, ob, np.int64(oo), yb,
                      np.int64(yo), n, wv, wi, *ex)
