"""CUDA interchange: `Tensor.__cuda_array_interface__` (v3) and tensors over foreign device memory.

Export: the interface dict of a CUDA tensor (torch's fields: strides in bytes, None when
contiguous; data = (pointer, read-only False); version 3; stream None, so the consumer does not
synchronise). Import: `from_cuda_array_interface(obj)` wraps an object's device memory (a CuPy
array, a torch CUDA tensor) in a CUDAStorage without copying; the storage keeps `obj` alive and
never returns that memory to jtorch's allocator. Under the simulator there is no device memory
to share, so import raises there (the interface dict itself is still produced).
This module imports no numba at import time (tensor.py's property reaches it lazily).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...geometry import is_contiguous
from ...scalar import SCALAR_TYPE_NAME


def cuda_array_interface(t: Any) -> dict:
    if t._device.type != "cuda":
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                             f"torch.{SCALAR_TYPE_NAME[t.dtype]}Tensor If CUDA data is required use tensor.cuda() to "
                             f"copy tensor to device memory.")
    if t.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't "
                           "required, use var.detach() to get Variable that doesn't require grad.")
    dt = np.dtype(t.dtype.numpy)
    typestr = "|b1" if dt == np.bool_ else dt.str
    size = tuple(t._size)
    strides = None if is_contiguous(size, t._stride) else tuple(s * dt.itemsize for s in t._stride)
    numel = 1
    for s in size:
        numel *= s
    ptr = t._storage.data_ptr() + t._offset * dt.itemsize if numel else 0
    return {"typestr": typestr, "shape": size, "strides": strides, "data": (ptr, False), "version": 3,
            "stream": None}


def from_cuda_array_interface(obj: Any) -> Any:
    """A CUDA tensor sharing `obj`'s device memory (zero-copy), with its shape, strides, dtype."""
    from ...dtypes import from_numpy_dtype
    from ...tensor import Tensor
    from . import driver
    from .storage import CUDA0, CUDAStorage

    cai = obj.__cuda_array_interface__
    driver.lazy_init()
    if driver.SIMULATED:
        raise RuntimeError("__cuda_array_interface__ import needs a real GPU: the CUDA simulator has no device memory")
    dt = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    ptr = int(cai["data"][0])
    if cai.get("strides") is None:
        rstride, acc = [], 1
        for s in reversed(shape):
            rstride.append(acc)
            acc *= s
        stride = tuple(reversed(rstride))
    else:
        stride = tuple(s // dt.itemsize for s in cai["strides"])
    span = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if all(shape) else 0
    stream = cai.get("stream")
    if stream is not None:  # the producer's work on its stream must be done before we read
        driver.synchronize()
    storage = CUDAStorage.foreign(ptr, span, dt, owner=obj)
    return Tensor._make(storage, shape, stride, 0, from_numpy_dtype(dt), CUDA0)


def _cupy() -> Any:
    try:
        import cupy
        return cupy
    except Exception:
        raise BufferError("DLPack exchange of CUDA tensors needs CuPy (a real GPU); use "
                          "__cuda_array_interface__ instead") from None


def to_dlpack(t: Any, *, stream: Any = None, max_version: Any = None) -> Any:
    """Tensor.__dlpack__ of a CUDA tensor: CuPy's capsule over a zero-copy view of it."""
    from . import driver

    if driver.SIMULATED:
        raise BufferError("DLPack export of CUDA tensors needs a real GPU: the CUDA simulator has no device memory")
    cp = _cupy()
    arr = cp.asarray(_Exported(t))
    kwargs = {} if max_version is None else {"max_version": max_version}
    return arr.__dlpack__(stream=stream if stream not in (None, -1) else None, **kwargs)


class _Exported:
    """A holder whose interface keeps the tensor (and so its storage) alive with the consumer."""

    def __init__(self, t: Any) -> None:
        self.t = t
        self.__cuda_array_interface__ = cuda_array_interface(t)


def from_cuda_dlpack(ext: Any) -> Any:
    """A CUDA tensor over a DLPack producer's device memory (CuPy reads the capsule), zero-copy."""
    from . import driver

    driver.lazy_init()
    if driver.SIMULATED:
        raise BufferError("DLPack import of CUDA memory needs a real GPU: the CUDA simulator has no device memory")
    return from_cuda_array_interface(_cupy().from_dlpack(ext))
