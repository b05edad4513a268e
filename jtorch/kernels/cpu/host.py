"""NumPy views of CPU tensors: how the CPU stubs (and NumPy interop: `t.numpy()`, DLPack) see a
tensor's elements. Only CPU code looks inside a CPUStorage; everything above goes through stubs.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...storage import CPUStorage


def numpy_view(t: Any) -> np.ndarray:
    """A NumPy array sharing this CPU tensor's memory (its base keeps the storage alive)."""
    st = t._storage
    if not isinstance(st, CPUStorage):  # a pinned host storage is a CPUStorage too
        raise TypeError(f"can't convert {t._device} device type tensor to numpy. Use Tensor.cpu() to copy "
                        "the tensor to host memory first.")
    buf = st.data
    isz = buf.itemsize
    strides = tuple(s * isz for s in t._stride)
    if 0 in t._size:  # nothing is read: any offset inside the buffer will do
        return np.ndarray(t._size, dtype=buf.dtype, buffer=buf, offset=0, strides=strides)
    return np.ndarray(t._size, dtype=buf.dtype, buffer=buf, offset=t._offset * isz, strides=strides)


def read_scalar(t: Any) -> Any:
    """The read_scalar stub: the element at t's offset, as a NumPy scalar of t's dtype (bfloat16's
    value as a float32)."""
    return t._storage.read(t._offset)
