"""cuBLAS through CuPy, when CuPy imports on a real GPU: float32/float64 matrix products.

CuPy is optional (never a dependency): it reads jtorch's device memory zero-copy (a cupy.ndarray
over the storage's pointer, with the tensor's strides), on jtorch's current stream. Before the
first use one measurement per process compares cuBLAS with jtorch's own tiled kernel (gemm.py) on
a 1024x1024 float32 product and keeps the faster; under the simulator, or when CuPy is missing or
fails once, only the own kernel runs.
"""
from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from . import driver

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class _State:
    cupy: Any = None
    use: bool | None = None  # None: not decided yet


def _cupy() -> Any:
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        return None


def enabled() -> bool:
    if _State.use is None:
        _State.use = False  # also if the measurement below fails
        if not driver.SIMULATED:
            _State.cupy = _cupy()
            if _State.cupy is not None:
                _State.use = _measure()
    return _State.use


def _view(cp: Any, t: Any) -> Any:
    """A cupy.ndarray over tensor t's device memory (no copy; the storage stays alive with it)."""
    st = t._storage
    dt = np.dtype(st.data.dtype)
    mem = cp.cuda.UnownedMemory(st.data_ptr(), st.nbytes(), st)
    ptr = cp.cuda.MemoryPointer(mem, t._offset * dt.itemsize)
    return cp.ndarray(t._size, dt, ptr, strides=tuple(s * dt.itemsize for s in t._stride))


def _stream(cp: Any) -> Any:
    s = driver.current_stream()
    return cp.cuda.ExternalStream(int(s.handle.value)) if s is not None else contextlib.nullcontext()


def matmul(kind: str, out: Any, a: Any, b: Any, self: Any, beta: Any, alpha: Any) -> bool:
    """out = alpha * (a @ b) + beta * self with cuBLAS; False when this path does not apply."""
    if driver.SIMULATED or np.dtype(out._storage.data.dtype) not in _DTYPES or kind == "vdot" or alpha == 0:
        return False
    if not enabled():
        return False
    cp = _State.cupy
    try:
        A, B, Out = _view(cp, a), _view(cp, b), _view(cp, out)
        with _stream(cp):
            direct = (self is None and alpha == 1 and kind != "dot" and Out.flags.c_contiguous
                      and not out._storage.may_share_memory(a._storage)
                      and not out._storage.may_share_memory(b._storage))
            if direct:
                cp.matmul(A, B, out=Out)
                return True
            P = cp.dot(A, B) if kind == "dot" else cp.matmul(A, B)
            if alpha != 1:
                P *= alpha
            if self is not None:
                P += beta * _view(cp, self)
            Out[...] = P
        return True
    except Exception:
        _State.use = False
        return False


def _measure() -> bool:
    """Whether cuBLAS beats the own kernel on a 1024x1024 float32 product (best of 3 each)."""
    from ...dtypes import float32
    from .gemm import TILE, gemm_blocks, kernels
    from .storage import CUDAStorage

    cp, n = _State.cupy, 1024
    try:
        bufs = [CUDAStorage.allocate(n * n, float32) for _ in range(3)]
        A, B, C = (cp.ndarray((n, n), np.float32, cp.cuda.MemoryPointer(
            cp.cuda.UnownedMemory(s.data_ptr(), s.nbytes(), s), 0)) for s in bufs)
        k = kernels(np.dtype(np.float32)).gemm
        one, zero = np.float32(1), np.float32(0)

        def own() -> None:
            driver.launch_blocks(k, gemm_blocks(1, n, n), (TILE, TILE), n, n, n, 1, bufs[0].data, 0, 0, n, 1,
                                 bufs[1].data, 0, 0, n, 1, bufs[2].data, 0, 0, n, 1, bufs[2].data, 0, 0, n, 1,
                                 one, zero, False, False)

        def blas() -> None:
            cp.matmul(A, B, out=C)

        def best(fn: Any) -> float:
            fn()
            driver.synchronize()
            ts = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                driver.synchronize()
                cp.cuda.runtime.deviceSynchronize()
                ts.append(time.perf_counter() - t0)
            return min(ts)

        return best(blas) < best(own)
    except Exception:
        return False
