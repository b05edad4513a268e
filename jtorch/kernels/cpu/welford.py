"""Mean and variance per row by Welford's update, as torch's CPU std_var kernel computes them
(WelfordOps with a double accumulator; binary_kernel_reduce gives a row of GRAIN_SIZE elements or
more one range per thread, each folded from the empty state, and combines the ranges in order).
The ranges follow the configured thread count, never the machine's load, so a result does not
depend on what else runs. Inputs: a C-contiguous (rows, n) float32/float64 array; outputs: 1-D."""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .host import numpy_view
from .threads import GRAIN_SIZE, get_num_threads


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _welford_rows(x, nchunks, correction, take_sqrt, var, mean):  # pragma: no cover - compiled
    rows, n = x.shape
    chunk = (n + nchunks - 1) // nchunks
    pm = np.zeros((rows, nchunks))
    pm2 = np.zeros((rows, nchunks))
    pn = np.zeros((rows, nchunks), np.int64)
    for t in numba.prange(rows * nchunks):
        r = t // nchunks
        c = t - r * nchunks
        lo = c * chunk
        hi = min(n, lo + chunk)
        m = 0.0
        m2 = 0.0
        k = 0
        for j in range(lo, hi):  # WelfordOps::reduce
            v = np.float64(x[r, j])
            k += 1
            delta = v - m
            m = m + delta / k
            m2 = m2 + delta * (v - m)
        pm[r, c] = m
        pm2[r, c] = m2
        pn[r, c] = k
    for r in numba.prange(rows):
        m = 0.0
        m2 = 0.0
        nf = 0.0
        for c in range(nchunks):  # WelfordOps::combine, from the empty state
            bn = np.float64(pn[r, c])
            if bn == 0.0:
                continue
            if nf == 0.0:
                m, m2, nf = pm[r, c], pm2[r, c], bn
                continue
            delta = pm[r, c] - m
            count = nf + bn
            nb_over_n = bn / count
            m = m + delta * nb_over_n
            m2 = m2 + pm2[r, c] + delta * delta * nf * nb_over_n
            nf = count
        divisor = nf - correction if nf > correction else 0.0
        v = m2 / divisor
        var[r] = np.sqrt(v) if take_sqrt else v
        mean[r] = m


def welford(src: Any, correction: float, take_sqrt: bool, var: Any, mean: Any) -> None:
    x = numpy_view(src)
    n = x.shape[1]
    nchunks = 1 if n < GRAIN_SIZE else max(1, min(get_num_threads(), -(-n // GRAIN_SIZE)))
    _welford_rows(x, nchunks, float(correction), bool(take_sqrt), numpy_view(var), numpy_view(mean))
