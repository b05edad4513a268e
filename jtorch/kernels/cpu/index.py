"""The CPU index stub: advanced indexing with index arrays already expanded, checked and on the host.

  index("index", out, self, key)                      out[...] = self[key]
  index("index_put", self, key, values, accumulate)   self[key] = values (or +=, duplicates summing)

  index("index_map", imap, shape, dst, dst_strides, src, src_strides, index, index_strides,
        index_stride, index_size, extras)         a declared IndexMap (index_map.py)
  index("index_bounds", index, lo, hi)          the first value outside [lo, hi) in index's
                                                logical order, as an int, or None
  index("nonzero", t)                           the coordinates of t's non-zero elements, an
                                                int64 (count, ndim) NumPy array

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


def index(kind: str, *args: Any) -> Any:
    if kind == "index":
        out, self, key = args
        numpy_view(out)[...] = numpy_view(self)[_key(key)]
    elif kind == "index_put":
        self, key, values, accumulate = args
        a, v = numpy_view(self), numpy_view(values)
        if accumulate:
            np.add.at(a, _key(key), v)
        else:
            a[_key(key)] = v
    elif kind == "index_map":
        from .index_map import run

        run(*args)
    elif kind == "index_bounds":
        return first_out_of_range(*args)
    elif kind == "nonzero":
        (t,) = args
        return np.argwhere(numpy_view(t)).astype(np.int64, copy=False)
    else:
        raise NotImplementedError(f"the CPU index stub has no kind '{kind}'")
