"""The CUDA loss kernels, the twin of kernels/cpu/loss.py (same functions, arguments and result).

nll_loss forward: one thread per sample writes its loss (reduction none) or its loss and weight
into scratch, then one block sums them in a fixed tree order (deterministic, float64). The
targets are checked first by a kernel that keeps the first bad position (an atomic min), read
back to raise torch's CPU error (torch's CUDA kernel stops on a device-side assert instead).
Backward: zero grad_input, then one thread per sample writes its class's gradient.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda, float64

from . import driver

_BLOCK = 256


@cuda.jit(cache=True)
def check_kernel(n, c, ignore, t, to, first):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        k = t[to + i]
        if k != ignore and (k < 0 or k >= c):
            cuda.atomic.min(first, 0, i)
        i += step


@cuda.jit(cache=True)
def forward_kernel(n, c, ignore, reduction, x, xo, t, to, w, wo, has_w, out, oo, parts):  # pragma: no cover
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        k = t[to + i]
        v = 0.0
        wk = 0.0
        if k != ignore:
            wk = w[wo + k] if has_w else 1.0
            v = -x[xo + i * c + k] * wk
        if reduction == 0:
            out[oo + i] = v
        else:
            parts[i] = v
            parts[n + i] = wk
        i += step


@cuda.jit(cache=True)
def sum_kernel(n, reduction, parts, out, oo, tw, two):  # pragma: no cover - compiled
    # one block: each thread sums a strided slice, then a tree over the block
    s = cuda.shared.array(_BLOCK, float64)
    sw = cuda.shared.array(_BLOCK, float64)
    j = cuda.threadIdx.x
    a = 0.0
    b = 0.0
    i = j
    while i < n:
        a += parts[i]
        b += parts[n + i]
        i += cuda.blockDim.x
    s[j] = a
    sw[j] = b
    cuda.syncthreads()
    h = cuda.blockDim.x // 2
    while h > 0:
        if j < h:
            s[j] += s[j + h]
            sw[j] += sw[j + h]
        cuda.syncthreads()
        h //= 2
    if j == 0:
        tw[two] = sw[0]
        out[oo] = s[0] / sw[0] if reduction == 1 else s[0]


@cuda.jit(cache=True)
def backward_kernel(n, c, ignore, reduction, g, go, t, to, w, wo, has_w, tw, two, gi, gio):  # pragma: no cover
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n * c:
        gi[gio + i] = 0
        i += step
    cuda.syncthreads()  # one block per launch below: see _launch_one_block
    i = cuda.grid(1)
    while i < n:
        k = t[to + i]
        if k != ignore:
            gk = g[go + i] if reduction == 0 else (g[go] / tw[two] if reduction == 1 else g[go])
            gi[gio + i * c + k] = -(w[wo + k] * gk) if has_w else -gk
        i += step


def _d(t: Any) -> tuple:
    return t._storage.data, t._offset


def _scratch(values: np.ndarray) -> Any:
    """`values` on the device (a NumPy array under the simulator, which runs kernels on the host)."""
    return values if driver.SIMULATED else driver.numba_cuda().to_device(values)


def _host(a: Any) -> np.ndarray:
    return a if driver.SIMULATED else a.copy_to_host()


def _first_bad(target: Any, n: int, c: int, ignore_index: int) -> int | None:
    """The first target that is neither ignore_index nor a class in [0, c), else None."""
    if n == 0:
        return None
    first = _scratch(np.array([n], np.int64))
    driver.launch(check_kernel, n, n, c, ignore_index, *_d(target), first)
    i = int(_host(first)[0])
    return None if i >= n else int(target._storage.read(target._offset + i))


def nll_loss_forward(x: Any, target: Any, weight: Any, reduction: int, ignore_index: int, out: Any,
                     tw: Any) -> int | None:
    c = x._size[-1]
    n = x._size[0] if x.dim() == 2 else 1
    bad = _first_bad(target, n, c, ignore_index)
    if bad is not None:
        return bad
    wb, wo = _d(weight) if weight is not None else (_d(x)[0], 0)
    ob, oo = _d(out)
    parts = ob if reduction == 0 else _scratch(np.zeros(2 * max(n, 1)))
    if n:
        driver.launch(forward_kernel, n, n, c, ignore_index, reduction, *_d(x), *_d(target), wb, wo,
                      weight is not None, ob, oo, parts)
    if reduction != 0:
        driver.launch_blocks(sum_kernel, 1, _BLOCK, n, reduction, parts, ob, oo, *_d(tw))
    else:
        tb, to = _d(tw)
        driver.launch_blocks(_zero_one, 1, 1, tb, to)
    return None


def nll_loss_backward(g: Any, target: Any, weight: Any, reduction: int, ignore_index: int, tw: Any,
                      gi: Any) -> int | None:
    c = gi._size[-1]
    n = gi._size[0] if gi.dim() == 2 else 1
    bad = _first_bad(target, n, c, ignore_index)
    if bad is not None:
        return bad
    wb, wo = _d(weight) if weight is not None else (_d(g)[0], 0)
    if gi.numel():
        # one block: the zeroing must finish before the scatter (syncthreads orders them)
        driver.launch_blocks(backward_kernel, 1, _BLOCK, n, c, ignore_index, reduction, *_d(g), *_d(target), wb,
                             wo, weight is not None, *_d(tw), *_d(gi))
    return None


@cuda.jit(cache=True)
def _zero_one(a, ao):  # pragma: no cover - compiled
    a[ao] = 0
