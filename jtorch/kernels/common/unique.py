"""torch.unique's results computed on the host with NumPy: both backends' `unique` (the CUDA one on a
host copy of its input: the output sizes depend on the data)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _runs(n: int, differ: Callable[[np.ndarray], object]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start of each run, run number of each element, run lengths) of n elements, where
    differ(out) writes into out[i] whether element i + 1 differs from element i."""
    change = np.empty(n, np.bool_)
    if n:
        change[0] = True
        differ(change[1:])
    starts = np.flatnonzero(change)
    return starts, np.cumsum(change) - 1, np.diff(np.append(starts, n))


def unique_rows(a: np.ndarray, dim: int | None, consecutive: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, inverse, counts) of the elements of `a` (dim None) or of its slices along `dim`:
    sorted unique values (torch.unique) or runs of equal neighbours (unique_consecutive); values
    along `dim` are laid out as a moveaxis of the selected slices."""
    if dim is None:
        flat = a.reshape(-1)
        if consecutive:
            starts, inv, counts = _runs(flat.size, lambda out: np.not_equal(flat[1:], flat[:-1], out=out))
            vals = flat[starts]
        else:
            vals, inv, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        return vals, inv.reshape(a.shape), counts
    m = np.moveaxis(a, dim, 0)
    rows = m.reshape(m.shape[0], -1)
    if consecutive:
        starts, inv, counts = _runs(rows.shape[0], lambda out: np.any(rows[1:] != rows[:-1], axis=1, out=out))
        sel = rows[starts]
    else:
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
        srt = rows[order]
        starts, run, counts = _runs(rows.shape[0], lambda out: np.any(srt[1:] != srt[:-1], axis=1, out=out))
        sel = srt[starts]
        inv = np.empty(rows.shape[0], np.int64)
        inv[order] = run
    vals = np.moveaxis(sel.reshape((sel.shape[0],) + m.shape[1:]), 0, dim)
    return vals, inv, counts
