"""jtorch's own CUDA matrix-product kernels: a tiled shared-memory GEMM and a block-reduction GEMV.

    gemm  c[z, i, j] = alpha * sum_k A[z, i, k] * B[z, k, j] (+ beta * s[z, i, j])   mm, bmm
    gemv  c[i]       = alpha * sum_k A[i, k] * x[k]          (+ beta * s[i])          mv, dot, vdot

Every operand is (buffer, element offset, element strides), read through its strides, so
transposed, sliced and expanded (stride 0) operands need no copy. Products accumulate in the
compute type ACC (float16 -> float32, every integer -> int64, which wraps exactly as the narrow
type does), and the store casts once. A shared-memory array needs its dtype at compile time, so
the kernels are generated from one template per ACC (five modules at most: float32, float64,
complex64, complex128, int64), written into the kernel cache like every generated CUDA module;
numba then compiles one specialisation per operand dtype.

Tile and block sizes are module constants: 16x16 tiles and 256-thread reductions on a GPU, 8x8
and 8 under the simulator (one OS thread per CUDA thread there).
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..common import cache
from . import codegen, driver

TILE = 8 if driver.SIMULATED else 16           # gemm: TILE x TILE threads, one output each
GEMV_THREADS = 8 if driver.SIMULATED else 256  # gemv: threads per block (a power of two)

_ACC_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
              np.dtype(np.complex64): "complex64", np.dtype(np.complex128): "complex128",
              np.dtype(np.int64): "int64"}

_TEMPLATE = '''
ACC = _jt_np.{acc}
TILE = {tile}
GEMV_THREADS = {gemv_threads}


@_jt_cuda.jit(cache=True)
def gemm(M, N, K, nbatch, a, ao, asb, asm, ask, b, bo, bsb, bsk, bsn, c, co, csb, csm, csn,
         s, so, ssb, ssm, ssn, alpha, beta, use_self, conj_a):
    # One block per TILE x TILE output tile (a grid-stride loop over batch x tiles); each thread
    # stages one element of A's and one of B's k-tile in shared memory and owns one output.
    sa = _jt_cuda.shared.array((TILE, TILE), ACC)
    sb = _jt_cuda.shared.array((TILE, TILE), ACC)
    tx = _jt_cuda.threadIdx.x
    ty = _jt_cuda.threadIdx.y
    tiles_m = (M + TILE - 1) // TILE
    tiles_n = (N + TILE - 1) // TILE
    total = nbatch * tiles_m * tiles_n
    t = _jt_cuda.blockIdx.x
    while t < total:  # the same t in every thread of the block: syncthreads stays uniform
        bn = t % tiles_n
        q = t // tiles_n
        bm = q % tiles_m
        z = q // tiles_m
        row = bm * TILE + ty
        col = bn * TILE + tx
        pa = ao + z * asb + row * asm
        pb = bo + z * bsb + col * bsn
        acc = ACC(0)
        for k0 in range(0, K, TILE):
            k = k0 + tx
            if row < M and k < K:
                v = ACC(a[pa + k * ask])
{conj_gemm}
                sa[ty, tx] = v
            else:
                sa[ty, tx] = ACC(0)
            k = k0 + ty
            if col < N and k < K:
                sb[ty, tx] = ACC(b[pb + k * bsk])
            else:
                sb[ty, tx] = ACC(0)
            _jt_cuda.syncthreads()
            for kk in range(TILE):
                acc += sa[ty, kk] * sb[kk, tx]
            _jt_cuda.syncthreads()
        if row < M and col < N:
            r = alpha * acc
            if use_self:
                r += beta * ACC(s[so + z * ssb + row * ssm + col * ssn])
            c[co + z * csb + row * csm + col * csn] = {store}
        t += _jt_cuda.gridDim.x


@_jt_cuda.jit(cache=True)
def gemv(M, K, a, ao, asm, ask, x, xo, xs, c, co, cs, s, so, ss, alpha, beta, use_self, conj_a):
    # One block per output row (grid-stride over rows): the threads stride over k, then a
    # shared-memory tree adds their partial sums (blockDim.x is a power of two <= GEMV_THREADS).
    part = _jt_cuda.shared.array(GEMV_THREADS, ACC)
    tid = _jt_cuda.threadIdx.x
    nt = _jt_cuda.blockDim.x
    row = _jt_cuda.blockIdx.x
    while row < M:
        acc = ACC(0)
        k = tid
        while k < K:
            v = ACC(a[ao + row * asm + k * ask])
{conj_gemv}
            acc += v * ACC(x[xo + k * xs])
            k += nt
        part[tid] = acc
        _jt_cuda.syncthreads()
        half = nt // 2
        while half > 0:
            if tid < half:
                part[tid] += part[tid + half]
            _jt_cuda.syncthreads()
            half //= 2
        if tid == 0:
            r = alpha * part[0]
            if use_self:
                r += beta * ACC(s[so + row * ss])
            c[co + row * cs] = {store}
        _jt_cuda.syncthreads()  # part is reused by the next row
        row += _jt_cuda.gridDim.x
'''


def module_source(acc: np.dtype) -> tuple[str, str]:
    """(file stem, source) of the kernels for compute type `acc`; vdot's conjugation of A is
    written only into the complex modules."""
    name = _ACC_NAMES[acc]

    def conj(indent: int) -> str:
        pad = " " * indent
        return f"{pad}if conj_a:\n{pad}    v = v.conjugate()" if acc.kind == "c" else f"{pad}pass"

    # numba's store casts (wrapping int64 into int8); NumPy's, under the simulator, raises on overflow
    store = "_jt_np.array(r).astype(c.dtype)" if driver.SIMULATED and acc.kind == "i" else "r"
    src = ("# Generated by jtorch.kernels.cuda.gemm; do not edit.\n" + codegen.HEADER + "import numpy as _jt_np\n"
           + _TEMPLATE.format(acc=name, tile=TILE, gemv_threads=GEMV_THREADS, conj_gemm=conj(16),
                              conj_gemv=conj(12), store=store))
    return codegen.stem("gemm_" + name, src, "")


_modules: dict[np.dtype, Any] = {}
_lock = threading.Lock()


def kernels(acc: np.dtype) -> Any:
    """The generated module (gemm, gemv) for compute type `acc`."""
    mod = _modules.get(acc)
    if mod is None:
        with _lock:
            mod = _modules.get(acc)
            if mod is None:
                mod = _modules[acc] = cache.generated_module(("cuda-gemm", acc), lambda: module_source(acc))
    return mod


def gemm_blocks(nbatch: int, m: int, n: int) -> int:
    tiles = nbatch * -(-m // TILE) * -(-n // TILE)
    return max(1, min(tiles, 1 if driver.SIMULATED else driver.sm_count() * 32))


def gemv_config(m: int, k: int) -> tuple[int, int]:
    """(blocks, threads): a power of two of threads, no more than k needs."""
    threads = 1
    while threads < GEMV_THREADS and threads < k:
        threads *= 2
    return max(1, min(m, 1 if driver.SIMULATED else driver.sm_count() * 32)), threads
