"""Multinomial sampling with replacement, the host part shared by the CPU and CUDA kernels: ATen's
checks of each row of probabilities, in its order, and the rows' normalized cumulative sums that
the draws search."""
from __future__ import annotations

import numpy as np

_NEG = "invalid multinomial distribution (encountering probability entry < 0)"
_INF = "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
_SUM = "invalid multinomial distribution (sum of probabilities <= 0)"


def cumulative_rows(probs: np.ndarray) -> np.ndarray:
    """The rows of probs (1-D: one row) as float64 cumulative distributions ending in exactly 1.
    Raises ATen's error for the first row that has a negative or NaN entry (a NaN fails its
    `>= 0` check first), an infinite one, or a sum <= 0 (rows checked in order)."""
    p = np.asarray(probs, dtype=np.float64)
    p = p.reshape(1, -1) if p.ndim == 1 else p
    rows, ncat = p.shape
    bad = ~(p >= 0) | ~np.isfinite(p)
    bad_rows = bad.any(axis=1)
    nonpos = ~(p.sum(axis=1) > 0)
    first_bad = int(np.argmax(bad_rows)) if bad_rows.any() else rows
    first_sum = int(np.argmax(nonpos)) if nonpos.any() else rows
    if first_bad < rows and first_bad <= first_sum:  # a row's entries are checked before its sum
        j = int(np.argmax(bad[first_bad]))
        raise RuntimeError(_NEG if not p[first_bad, j] >= 0 else _INF)
    if first_sum < rows or ncat == 0:
        raise RuntimeError(_SUM)
    cum = np.cumsum(p, axis=1)
    cum /= cum[:, -1:]
    cum[:, -1] = 1.0
    return cum
