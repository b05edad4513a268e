"""The CPU index stub: advanced indexing with index arrays already expanded, checked and on the host.

  index("index", out, self, key)                      out[...] = self[key]
  index("index_put", self, key, values, accumulate)   self[key] = values (or +=, duplicates summing)

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


def index(kind: str, *args: Any) -> None:
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
    else:
        raise NotImplementedError(f"the CPU index stub has no kind '{kind}'")
