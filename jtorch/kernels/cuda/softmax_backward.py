"""The CUDA `softmax_backward` stub, the twin of kernels/cpu/softmax_backward.py (same arguments):
one thread per row (rows are independent; a row's two passes run in that thread)."""
from __future__ import annotations

from typing import Any

from numba import cuda

from ..common import softmax_rows
from . import driver

_row = cuda.jit(device=True)(softmax_rows.softmax_backward_row)


@cuda.jit(cache=True)
def rows_kernel(rows, log, n, g, go, o, oo, r, ro):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < rows:
        _row(log, n, g, go + i * n, o, oo + i * n, r, ro + i * n)
        i += step


def softmax_backward(log: bool, grad_output: Any, output: Any, grad_input: Any, n: int) -> None:
    rows = grad_input.numel() // n if n else 0
    if rows:
        driver.launch(rows_kernel, rows, rows, log, n, grad_output._storage.data, grad_output._offset,
                      output._storage.data, output._offset, grad_input._storage.data, grad_input._offset)
