"""The CUDA pooling kernels, the twin of kernels/cpu/pool.py (same functions and arguments).

Forward kernels: one thread per output element. Backward: average pooling gathers, per input
pixel, the outputs whose window covers it (deterministic, as torch's avg_pool2d backward);
adaptive pooling does the same over the output rows and columns that cover it; max pooling zeroes
grad_input and adds each gradient at its saved index with an atomic add (torch's CUDA kernel
gathers through the indices; atomics keep this one short, and ties of overlapping windows are the
only order-dependent sums); with deterministic algorithms on, one thread per plane adds them in order.
"""
from __future__ import annotations

from typing import Any

from numba import cuda

from ...global_context import deterministic
from ..common import pool_windows
from . import driver
from .elementwise import meta_array

_max_window = cuda.jit(device=True)(pool_windows.max_window)
_avg_window = cuda.jit(device=True)(pool_windows.avg_window)
_avg_divisor = cuda.jit(device=True)(pool_windows.avg_divisor)
_adaptive_window = cuda.jit(device=True)(pool_windows.adaptive_window)
_window_sum = cuda.jit(device=True)(pool_windows.window_sum)
_window_max = cuda.jit(device=True)(pool_windows.window_max)


@cuda.jit(device=True)
def _pixel(i, width, height, base, plane_size):  # pragma: no cover - compiled
    """Flat index i of (planes, height, width) -> (column, row, start of its plane at `base`)."""
    t = i // width
    return i % width, t % height, base + (t // height) * plane_size


@cuda.jit(cache=True)
def max_pool_kernel(total, g, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
                                                     g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, plane = _pixel(i, ow, oh, xo, H * W)
        h0, h1 = _max_window(y, sh, ph, kh, dh, H)
        w0, w1 = _max_window(xw, sw, pw, kw, dw, W)
        m, best = _window_max(x, plane, W, h0, (h1 - h0 + dh - 1) // dh, dh, w0, (w1 - w0 + dw - 1) // dw, dw)
        out[oo + i] = m
        ind[io + i] = best
        i += step


@cuda.jit(cache=True)
def zero_kernel(total, a, ao):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        a[ao + i] = 0
        i += step


@cuda.jit(cache=True)
def max_pool_backward_kernel(total, L, HW, g, go, ind, io, gin, gio):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        cuda.atomic.add(gin, gio + (i // L) * HW + ind[io + i], g[go + i])
        i += step


@cuda.jit(cache=True)
def max_pool_backward_planes_kernel(planes, L, HW, g, go, ind, io, gin, gio):  # pragma: no cover - compiled
    """The deterministic form: one thread per (n, c) plane adds its L gradients in order."""
    p = cuda.grid(1)
    step = cuda.gridsize(1)
    while p < planes:
        for j in range(L):
            i = p * L + j
            gin[gio + p * HW + ind[io + i]] += g[go + i]
        p += step


@cuda.jit(cache=True)
def avg_pool_kernel(total, g, x, xo, out, oo, zero):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, include_pad, divisor = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
                                                                  g[8], g[9], g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, plane = _pixel(i, ow, oh, xo, H * W)
        a0, a1, hf = _avg_window(y, sh, ph, kh, H)
        b0, b1, wf = _avg_window(xw, sw, pw, kw, W)
        s = _window_sum(x, plane, W, a0, a1, b0, b1, zero)
        if a0 >= a1 or b0 >= b1:
            out[oo + i] = 0
        else:
            out[oo + i] = s / _avg_divisor(a0, a1, hf, b0, b1, wf, include_pad, divisor)
        i += step


@cuda.jit(cache=True)
def avg_pool_backward_kernel(total, g, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, include_pad, divisor = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
                                                                  g[8], g[9], g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w, h, plane = _pixel(i, W, H, go, oh * ow)
        acc = zero
        y0 = max(0, (h + ph - kh) // sh + 1)
        y1 = min(oh, (h + ph) // sh + 1)
        x0 = max(0, (w + pw - kw) // sw + 1)
        x1 = min(ow, (w + pw) // sw + 1)
        for y in range(y0, y1):
            a0, a1, hf = _avg_window(y, sh, ph, kh, H)
            for xw in range(x0, x1):
                b0, b1, wf = _avg_window(xw, sw, pw, kw, W)
                acc += gout[plane + y * ow + xw] / _avg_divisor(a0, a1, hf, b0, b1, wf, include_pad, divisor)
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_kernel(total, H, W, oh, ow, x, xo, out, oo, zero):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, plane = _pixel(i, ow, oh, xo, H * W)
        h0, h1 = _adaptive_window(y, H, oh)
        w0, w1 = _adaptive_window(xw, W, ow)
        s = _window_sum(x, plane, W, h0, h1, w0, w1, zero)
        out[oo + i] = s / (h1 - h0) / (w1 - w0)
        i += step


@cuda.jit(cache=True)
def adaptive_backward_kernel(total, H, W, oh, ow, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w, h, plane = _pixel(i, W, H, go, oh * ow)
        acc = zero
        for y in range(oh):
            h0, h1 = _adaptive_window(y, H, oh)
            if h0 <= h < h1:
                for xw in range(ow):
                    w0, w1 = _adaptive_window(xw, W, ow)
                    if w0 <= w < w1:
                        acc += gout[plane + y * ow + xw] / (h1 - h0) / (w1 - w0)
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_max_kernel(total, H, W, oh, ow, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, plane = _pixel(i, ow, oh, xo, H * W)
        h0, h1 = _adaptive_window(y, H, oh)
        w0, w1 = _adaptive_window(xw, W, ow)
        m, best = _window_max(x, plane, W, h0, h1 - h0, 1, w0, w1 - w0, 1)
        out[oo + i] = m
        ind[io + i] = best
        i += step


def _zero(t: Any) -> Any:
    """A zero of t's element type, the kernels' starting sum (typed: a float32 sum stays float32)."""
    return t._storage.data.dtype.type(0)


def _d(t: Any) -> tuple:
    return t._storage.data, t._offset


def max_pool2d(x: Any, k: tuple, s: tuple, p: tuple, d: tuple, out: Any, ind: Any) -> None:
    total = out.numel()
    if total:
        g = meta_array((x._size[2], x._size[3], out._size[2], out._size[3], *k, *s, *p, *d))
        driver.launch(max_pool_kernel, total, total, g, *_d(x), *_d(out), *_d(ind))


def max_pool2d_backward(gout: Any, ind: Any, gin: Any) -> None:
    total = gin.numel()
    if total == 0:
        return
    driver.launch(zero_kernel, total, total, *_d(gin))
    n = gout.numel()
    if n:
        L = gout._size[2] * gout._size[3]
        HW = gin._size[2] * gin._size[3]
        if deterministic():  # atomics add overlapping windows' gradients in any order
            planes = n // L
            driver.launch(max_pool_backward_planes_kernel, planes, planes, L, HW, *_d(gout), *_d(ind), *_d(gin))
        else:
            driver.launch(max_pool_backward_kernel, n, n, L, HW, *_d(gout), *_d(ind), *_d(gin))


def _avg(kern: Any, img: Any, pooled: Any, src: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int,
         dst: Any) -> None:
    total = dst.numel()
    if total:
        g = meta_array((img._size[2], img._size[3], pooled._size[2], pooled._size[3], *k, *s, *p,
                        int(include_pad), int(divisor)))
        driver.launch(kern, total, total, g, *_d(src), *_d(dst), _zero(dst))


def avg_pool2d(x: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, out: Any) -> None:
    _avg(avg_pool_kernel, x, out, x, k, s, p, include_pad, divisor, out)


def avg_pool2d_backward(gout: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, gin: Any) -> None:
    _avg(avg_pool_backward_kernel, gin, gout, gout, k, s, p, include_pad, divisor, gin)


def _adaptive(kern: Any, img: Any, pooled: Any, src: Any, dst: Any) -> None:
    total = dst.numel()
    if total:
        driver.launch(kern, total, total, img._size[2], img._size[3], pooled._size[2], pooled._size[3], *_d(src),
                      *_d(dst), _zero(dst))


def adaptive_avg_pool2d(x: Any, out: Any) -> None:
    _adaptive(adaptive_kernel, x, out, x, out)


def adaptive_avg_pool2d_backward(gout: Any, gin: Any) -> None:
    _adaptive(adaptive_backward_kernel, gin, gout, gout, gin)


def adaptive_max_pool2d(x: Any, out: Any, ind: Any) -> None:
    total = ind.numel()
    if total:
        driver.launch(adaptive_max_kernel, total, total, x._size[2], x._size[3], out._size[2], out._size[3], *_d(x),
                      *_d(out), *_d(ind))
