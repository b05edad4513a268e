"""Mean and variance per row by Welford's update (torch's WelfordOps), one thread per row of a
C-contiguous (rows, n) float32/float64 tensor, accumulated in double; outputs are 1-D."""
from __future__ import annotations

import math
from typing import Any

from numba import cuda

from . import driver
from .scratch import storage_data


@cuda.jit
def _welford_kernel(x, xoff, rows, n, correction, take_sqrt, var, voff, mean, moff):
    for r in range(cuda.grid(1), rows, cuda.gridsize(1)):
        m = 0.0
        m2 = 0.0
        p = xoff + r * n
        for j in range(n):
            v = float(x[p + j])
            delta = v - m
            m = m + delta / (j + 1)
            m2 = m2 + delta * (v - m)
        divisor = n - correction if n > correction else 0.0
        if divisor == 0.0:
            s = math.nan if m2 == 0.0 or m2 != m2 else math.inf
        else:
            s = m2 / divisor
        var[voff + r] = math.sqrt(s) if take_sqrt else s
        mean[moff + r] = m


def welford(src: Any, correction: float, take_sqrt: bool, var: Any, mean: Any) -> None:
    rows, n = src._size
    if rows:
        driver.launch(_welford_kernel, rows, storage_data(src), src._offset, rows, n, float(correction),
                      bool(take_sqrt), storage_data(var), var._offset, storage_data(mean), mean._offset)
