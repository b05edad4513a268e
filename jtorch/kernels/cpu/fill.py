"""The CPU fill stub: every element of a tensor (any strides) set to one value."""
from __future__ import annotations

from typing import Any

import numpy as np

from .host import numpy_view


def fill(t: Any, value: Any) -> None:
    """`value` is already a NumPy scalar of t's dtype (the caller did Scalar::to<T>())."""
    if t._storage.data.dtype.kind == "V":  # bfloat16: the value (a float32 bfloat16 holds) as its bits
        from ...scalar import float32_to_bfloat16_bits

        bits = float32_to_bfloat16_bits(value)[()]
        view = numpy_view(t).view(np.uint16) if t._size else t._storage.data[t._offset:t._offset + 1].view(np.uint16)
        view[...] = bits
        return
    if t._size:
        numpy_view(t)[...] = value
    else:
        t._storage.data[t._offset] = value
