"""The CPU `softmax_backward` stub: the gradients of softmax and log_softmax along the last dim of
contiguous (rows, n) buffers (PyTorch's SoftMaxKernel.cpp, *_backward_lastdim kernels).

    softmax_backward(log, grad_output, output, grad_input, n)     every tensor contiguous

log_softmax: gI = g - exp(out) * sum(g);  softmax: gI = out * (g - sum(g * out)), the sums per row
in float64. Rows run in parallel chunks above the grain size (threads.parallel_for).
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common import softmax_rows
from ..common.cache import enable_package_cache
from .chunk_clock import now_ns
from .threads import parallel_for

_row = numba.njit(inline="always")(softmax_rows.softmax_backward_row)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _rows(lo, hi, log, n, g, go, o, oo, r, ro):  # pragma: no cover - compiled
    for i in range(lo, hi):
        _row(log, n, g, go + i * n, o, oo + i * n, r, ro + i * n)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _rows_parallel(total, nchunks, log, n, g, go, o, oo, r, ro):  # pragma: no cover - compiled
    # threads.parallel_for's protocol (see cat_loops.cat_flat_parallel)
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for k in numba.prange(nchunks):
        t0 = now_ns()
        _rows(k * total // nchunks, (k + 1) * total // nchunks, log, n, g, go, o, oo, r, ro)
        work[k] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def softmax_backward(log: bool, grad_output: Any, output: Any, grad_input: Any, n: int) -> None:
    rows = grad_input.numel() // n if n else 0
    if rows == 0:
        return
    parallel_for(_rows, _rows_parallel, rows, log, n, grad_output._storage.data, grad_output._offset,
                 output._storage.data, output._offset, grad_input._storage.data, grad_input._offset,
                 work=rows * n)
