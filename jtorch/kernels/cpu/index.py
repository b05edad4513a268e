"""The CPU indexing kernels: advanced indexing with index arrays already expanded, checked and on the host.

  index(out, self_, indices)                     out[...] = self_[indices]
  index_put(self_, indices, values, accumulate)  self_[indices] = values (or +=, duplicates summing)
  first_out_of_range(index, lo, hi)              the first value outside [lo, hi) in index's logical
                                                 order, as an int, or None (the contract's index_bounds)
  nonzero(t)                                     the coordinates of t's non-zero elements, an int64
                                                 (count, ndim) NumPy array
(index_map.py runs a declared IndexMap.)

`indices` has one entry per leading dimension of self_: None (the whole dimension) or an int64 NumPy
array; the arrays broadcast together and NumPy's placement of the broadcast dimensions is
PyTorch's. `values` is a tensor on self's device, broadcastable to the indexing result.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .host import numpy_view


def _key(key: Sequence[Any]) -> tuple:
    return tuple(slice(None) if e is None else e for e in key)


def first_out_of_range(index: Any, lo: int, hi: int) -> int | None:
    """The first element of integer tensor `index` (row-major order) outside [lo, hi), or None."""
    a = numpy_view(index)
    if a.size == 0 or (a.min() >= lo and a.max() < hi):
        return None
    return int(a[(a < lo) | (a >= hi)][0])



def index(out: Any, self_: Any, indices: Sequence[Any]) -> None:
    numpy_view(out)[...] = numpy_view(self_)[_key(indices)]


def index_put(self_: Any, indices: Sequence[Any], values: Any, accumulate: bool) -> None:
    a, v = numpy_view(self_), numpy_view(values)
    if accumulate:
        np.add.at(a, _key(indices), v)
    else:
        a[_key(indices)] = v


def nonzero(t: Any) -> np.ndarray:
    return np.argwhere(numpy_view(t)).astype(np.int64, copy=False)
