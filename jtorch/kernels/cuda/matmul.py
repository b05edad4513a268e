"""The CUDA `matmul` stub: out = alpha * (a @ b) + beta * self, on CUDA storages.

    matmul(kind, out, a, b, self=None, beta=0, alpha=1)

The contract is the CPU stub's (kernels/cpu/matmul.py): kind "mm", "bmm", "mv", "dot", "vdot"
(vdot conjugates a); `self` has out's shape (an expanded view is fine) or is `out` itself; it is
ignored when beta == 0 (or None), so NaN in it does not propagate; alpha == 0 reads neither a nor
b. mm and bmm run the tiled GEMM of gemm.py, mv, dot and vdot its block-reduction GEMV; both read
every operand through its strides. float32/float64 go to cuBLAS instead when CuPy imports on a real
GPU and a one-off measurement finds it faster (cublas.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..common.loop_plan import loop_plan
from . import cublas, driver, gemm
from .elementwise import Operand, launch

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)


def compute_dtype(dt: np.dtype) -> np.dtype:
    """The accumulation type: PyTorch's opmath for float16, int64 for every integer (exact: the
    narrow type's wrap-around is the same arithmetic modulo 2**bits)."""
    if dt == _F16:
        return _F32
    if dt.kind in "iub":
        return _I64
    return dt


def _overlaps(out: Any, t: Any) -> bool:
    return out._storage.may_share_memory(t._storage)


def _copy_value(x):
    return x


def matmul(kind: str, out: Any, a: Any, b: Any, self: Any = None, beta: Any = 0, alpha: Any = 1) -> None:
    """out = alpha * (a @ b) + beta * self (see the module doc)."""
    size = out._size
    for s in size:
        if s == 0:
            return
    if self is not None and beta == 0:
        self = None
    if cublas.matmul(kind, out, a, b, self, beta, alpha):
        return
    if _overlaps(out, a) or _overlaps(out, b):
        _via_scratch(kind, out, a, b, self, beta, alpha)
        return
    run(kind, out._storage.data, out._offset, out._stride, a, b, self, beta, alpha)


def run(kind: str, c: Any, co: int, cst: tuple, a: Any, b: Any, self: Any, beta: Any, alpha: Any) -> None:
    """The product into buffer c at offset co with strides cst (out's shape)."""
    acc = compute_dtype(np.dtype(a._storage.data.dtype))
    mod = gemm.kernels(acc)
    al, be = acc.type(alpha), acc.type(beta if self is not None else 0)
    use_self = self is not None
    c = c
    s, so, sst = (self._storage.data, self._offset, self._stride) if use_self else (c, co, cst)
    A, B = a._storage.data, b._storage.data
    if kind == "mm" or kind == "bmm":
        if kind == "mm":
            (m, k), (n,) = a._size, b._size[1:]
            nb, asz, bsz, csz, ssz = 1, (0,) + a._stride, (0,) + b._stride, (0,) + tuple(cst), (0,) + tuple(sst)
        else:
            (nb, m, k), n = a._size, b._size[2]
            asz, bsz, csz, ssz = a._stride, b._stride, tuple(cst), tuple(sst)
        if alpha == 0:
            k = 0  # BLAS: a and b are not read, so inf * 0 makes no NaN
        driver.launch_blocks(mod.gemm, gemm.gemm_blocks(nb, m, n), (gemm.TILE, gemm.TILE),
                             m, n, k, nb, A, a._offset, *asz, B, b._offset, *bsz, c, co, *csz,
                             s, so, *ssz, al, be, use_self, False)
        return
    if kind == "mv":
        m, k = a._size
        asm, ask = a._stride
        cs, ss = cst[0], sst[0]
    else:  # dot, vdot: one row
        m, k = 1, a._size[0]
        asm, ask = 0, a._stride[0]
        cs, ss = 0, 0
    if alpha == 0:
        k = 0
    blocks, threads = gemm.gemv_config(m, k)
    driver.launch_blocks(mod.gemv, blocks, threads, m, k, A, a._offset, asm, ask, B, b._offset, b._stride[0],
                         c, co, cs, s, so, ss, al, be, use_self, kind == "vdot")


def _via_scratch(kind: str, out: Any, a: Any, b: Any, self: Any, beta: Any, alpha: Any) -> None:
    """out overlaps an operand (mm(a, b, out=a)): the product goes to a contiguous scratch buffer
    first, then is copied into out, so no thread reads what another has already written."""
    from ...dtypes import from_buffer_dtype
    from .storage import CUDAStorage

    size = out._size
    numel = 1
    for s in size:
        numel *= s
    rcst, acc = [], 1
    for s in reversed(size):
        rcst.append(acc)
        acc *= s
    cst = tuple(reversed(rcst))
    scratch = CUDAStorage.allocate(numel, from_buffer_dtype(out._storage.data.dtype))
    run(kind, scratch.data, 0, cst, a, b, self, beta, alpha)
    shape, ds, ss = loop_plan(size, out._stride, cst)
    launch(_copy_value, shape, [Operand(out._storage.data, out._offset, ds), Operand(scratch.data, 0, ss)])
