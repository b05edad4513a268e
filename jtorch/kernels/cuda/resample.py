"""The CUDA resampling stub, the twin of kernels/cpu/resample.py (same function and arguments):
one dim of a padding or upsampling operator, the tensor seen as (outer, n, inner).

Forward: one thread per output element sums its taps. Backward: one thread per input element
gathers the gradients that reach it through an inverse map built on the host (for each input
position, its (output position, weight) pairs, in order), so the sums are deterministic and need
no atomics.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from . import driver


@cuda.jit(cache=True)
def gather_kernel(total, K, n_in, n_out, B, src, so, idx, w, out, oo):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        b = i % B
        t = i // B
        j = t % n_out
        a = t // n_out
        base = so + a * n_in * B + b
        acc = w[j] * src[base + idx[j] * B]
        for k in range(1, K):
            acc += w[k * n_out + j] * src[base + idx[k * n_out + j] * B]
        out[oo + i] = acc
        i += step


@cuda.jit(cache=True)
def copy_kernel(total, n_in, n_out, B, src, so, idx, out, oo):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        b = i % B
        t = i // B
        j = t % n_out
        a = t // n_out
        out[oo + i] = src[so + (a * n_in + idx[j]) * B + b]
        i += step


@cuda.jit(cache=True)
def scatter_kernel(total, n_in, n_out, B, g, go, starts, js, ws, out, oo, zero):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        b = i % B
        t = i // B
        p = t % n_in
        a = t // n_in
        acc = zero
        for e in range(starts[p], starts[p + 1]):
            acc += ws[e] * g[go + (a * n_out + js[e]) * B + b]
        out[oo + i] = acc
        i += step


def _device(values: np.ndarray) -> Any:
    return values if driver.SIMULATED else driver.numba_cuda().to_device(values)


def resample(src: Any, outer: int, inner: int, idx: Any, weights: Any, out: Any, backward: bool) -> None:
    total = out.numel()
    if total == 0:
        return
    n_src = src.numel() // (outer * inner)
    n_dst = total // (outer * inner)
    dtype = out._storage.data.dtype
    K = idx.shape[0]
    s, so = src._storage.data, src._offset
    o, oo = out._storage.data, out._offset
    if backward:  # src is the gradient (n_src = n_out), out the input's gradient (n_dst = n_in)
        w = np.ones(idx.shape, dtype) if weights is None else weights.astype(dtype)
        flat_i = idx.ravel()
        order = np.argsort(flat_i, kind="stable")  # per input position, its taps in output order
        js = (order % idx.shape[1]).astype(np.int64)
        starts = np.searchsorted(flat_i[order], np.arange(n_dst + 1)).astype(np.int64)
        driver.launch(scatter_kernel, total, total, n_dst, n_src, inner, s, so, _device(starts), _device(js),
                      _device(w.ravel()[order]), o, oo, dtype.type(0))
    elif weights is None:
        driver.launch(copy_kernel, total, total, n_src, n_dst, inner, s, so, _device(idx.ravel()), o, oo)
    else:
        driver.launch(gather_kernel, total, total, K, n_src, n_dst, inner, s, so, _device(idx.ravel()),
                      _device(weights.astype(dtype).ravel()), o, oo)
