"""The CPU indexing kernels: advanced indexing with index arrays already expanded, checked and on the host.

  index(out, self, key)                       out[...] = self[key]
  index_put(self, key, values, accumulate)    self[key] = values (or +=, duplicates summing)
  first_out_of_range(index, lo, hi)           the first value outside [lo, hi) in index's logical
                                              order, as an int, or None (the contract's index_bounds)
  nonzero(t)                                  the coordinates of t's non-zero elements, an int64
                                              (count, ndim) NumPy array
(index_map.py runs a declared IndexMap.)

`key` has one entry per leading dimension of self: None (the whole dimension) or an int64 NumPy
array; the arrays broadcast together and NumPy's placement of the broadcast dimensions is
PyTorch's. `values` is a tensor on self's device, broadcastable to the indexing result.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .host import numpy_view


def _key(key: list) -> tuple:
    return tuple(slice(None) if e is None else e for e in key)


def first_out_of_range(t: Any, lo: int, hi: int) -> int | None:
    """The first element of integer tensor t (row-major order) outside [lo, hi), or None."""
    a = numpy_view(t)
    if a.size == 0 or (a.min() >= lo and a.max() < hi):
        return None
    return int(a[(a < lo) | (a >= hi)][0])



def index(out: Any, self: Any, key: list) -> None:
    numpy_view(out)[...] = numpy_view(self)[_key(key)]


def index_put(self: Any, key: list, values: Any, accumulate: bool) -> None:
    a, v = numpy_view(self), numpy_view(values)
    if accumulate:
        np.add.at(a, _key(key), v)
    else:
        a[_key(key)] = v


def nonzero(t: Any) -> np.ndarray:
    return np.argwhere(numpy_view(t)).astype(np.int64, copy=False)
