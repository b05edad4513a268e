"""The CPU fill stub: every element of a tensor (any strides) set to one value."""
from __future__ import annotations

from typing import Any

from .host import numpy_view


def fill(t: Any, value: Any) -> None:
    """`value` is already a NumPy scalar of t's dtype (the caller did Scalar::to<T>())."""
    if t._size:
        numpy_view(t)[...] = value
    else:
        t._storage.data[t._offset] = value
