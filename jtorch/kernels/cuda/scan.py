"""The CUDA `scan` stub: a Scan / IndexedScan / RowNormaliser along plan.dim, on the kernels
scan_codegen generates from the declaration's scalar pieces.

The other dims are ordered and coalesced as TensorIterator would (one row per position of them,
as the CPU stub does). A scanned dim that is contiguous in the input and long enough gets one
block per row (consecutive threads read consecutive elements of the row); otherwise each thread
takes a row, and consecutive threads read consecutive rows.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..common import cache
from ..common.scan_plan import scan_rows_of
from ..scalar_scan import IndexedScan, RowNormaliser
from . import driver, scan_codegen
from .elementwise import meta_array

BLOCK = 4 if driver.SIMULATED else 256
BLOCK_ROW_MIN = 4 if driver.SIMULATED else 32  # shorter rows: a thread per row

_modules: dict[tuple, Any] = {}


def _shared_dtype(decl: Any, dt: np.dtype) -> np.dtype:
    """The dtype the kernels fold in: float16 computes in float32; a Scan's accumulator is
    scalar_scan.acc_const's (float64, complex128, int64), the others keep the value's dtype."""
    if dt == np.float16:
        dt = np.dtype(np.float32)
    if isinstance(decl, (IndexedScan, RowNormaliser)):
        return dt
    return np.dtype(np.float64 if dt.kind == "f" else np.complex128 if dt.kind == "c" else np.int64)


def kernels(decl: Any, acc: np.dtype, half_in: bool) -> Any:
    key = (decl, acc.str, half_in)
    mod = _modules.get(key)
    if mod is None:
        mod = _modules[key] = cache.generated_module(
            ("cuda_scan",) + key, lambda: scan_codegen.module_source(decl, acc.name, half_in, BLOCK))
    return mod


def scan(plan: Any, decl: Any, extras: tuple = ()) -> None:
    """Run `decl` along `plan.dim` from `plan.input` into `plan.outputs` (see module doc)."""
    inp, dim = plan.input, plan.dim
    sr = scan_rows_of(plan)
    if sr is None:
        return
    tensors, n, shape, strides, nrows = sr.tensors, sr.n, sr.shape, sr.strides, sr.rows
    flat = [len(shape), *shape]
    for st in strides:
        flat += st
    args: list[Any] = []
    for t in tensors:
        args += (t._storage.data, np.int64(t._offset), np.int64(t._stride[dim] if t._size else 1))
    dt = inp._storage.data.dtype
    acc = _shared_dtype(decl, dt)
    mod = kernels(decl, acc, dt == np.float16)
    zero = acc.type(0)
    meta = meta_array(tuple(flat))
    in_stride = inp._stride[dim] if inp._size else 1
    if in_stride == 1 and n >= BLOCK_ROW_MIN:
        blocks = min(nrows, 4 if driver.SIMULATED else driver.sm_count() * 32)
        driver.launch_blocks(mod.rows_block, blocks, BLOCK, meta, np.int64(nrows), np.int64(n), zero, *args)
    else:
        driver.launch(mod.rows_thread, nrows, meta, np.int64(nrows), np.int64(n), zero, *args)
