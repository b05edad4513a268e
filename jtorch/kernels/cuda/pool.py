"""The CUDA pooling kernels, the twin of kernels/cpu/pool.py (same functions and arguments).

Forward kernels: one thread per output element. Backward: average pooling gathers, per input
pixel, the outputs whose window covers it (deterministic, as torch's avg_pool2d backward);
adaptive pooling does the same over the output rows and columns that cover it; max pooling zeroes
grad_input and adds each gradient at its saved index with an atomic add (torch's CUDA kernel
gathers through the indices; atomics keep this one short, and ties of overlapping windows are the
only order-dependent sums).
"""
from __future__ import annotations

from typing import Any

from numba import cuda

from . import driver
from .elementwise import meta_array


@cuda.jit(cache=True)
def max_pool_kernel(total, g, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
                                                     g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw = i % ow
        t = i // ow
        y = t % oh
        plane = xo + (t // oh) * H * W
        h0 = y * sh - ph
        h1 = min(h0 + (kh - 1) * dh + 1, H)
        while h0 < 0:
            h0 += dh
        w0 = xw * sw - pw
        w1 = min(w0 + (kw - 1) * dw + 1, W)
        while w0 < 0:
            w0 += dw
        best = h0 * W + w0
        m = x[plane + best]
        for ih in range(h0, h1, dh):
            for iw in range(w0, w1, dw):
                v = x[plane + ih * W + iw]
                if v > m or v != v:
                    m = v
                    best = ih * W + iw
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


@cuda.jit(device=True)
def _divisor(h0, h1, w0, w1, H, W, ph, pw, include_pad, divisor):  # pragma: no cover - compiled
    if divisor != 0:
        return divisor
    if include_pad:
        return (min(h1, H + ph) - h0) * (min(w1, W + pw) - w0)
    return (min(h1, H) - max(h0, 0)) * (min(w1, W) - max(w0, 0))


@cuda.jit(cache=True)
def avg_pool_kernel(total, g, x, xo, out, oo, zero):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, include_pad, divisor = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
                                                                  g[8], g[9], g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw = i % ow
        t = i // ow
        y = t % oh
        plane = xo + (t // oh) * H * W
        h0 = y * sh - ph
        w0 = xw * sw - pw
        h1 = h0 + kh
        w1 = w0 + kw
        d = _divisor(h0, h1, w0, w1, H, W, ph, pw, include_pad, divisor)
        a0, a1, b0, b1 = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
        s = zero  # typed zero of the element type
        for ih in range(a0, a1):
            for iw in range(b0, b1):
                s += x[plane + ih * W + iw]
        if a0 >= a1 or b0 >= b1:
            out[oo + i] = 0
        else:
            out[oo + i] = s / d
        i += step


@cuda.jit(cache=True)
def avg_pool_backward_kernel(total, g, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    H, W, oh, ow, kh, kw, sh, sw, ph, pw, include_pad, divisor = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
                                                                  g[8], g[9], g[10], g[11])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w = i % W
        t = i // W
        h = t % H
        plane = go + (t // H) * oh * ow
        acc = zero
        y0 = max(0, (h + ph - kh) // sh + 1)
        y1 = min(oh, (h + ph) // sh + 1)
        x0 = max(0, (w + pw - kw) // sw + 1)
        x1 = min(ow, (w + pw) // sw + 1)
        for y in range(y0, y1):
            for xw in range(x0, x1):
                h0 = y * sh - ph
                w0 = xw * sw - pw
                d = _divisor(h0, h0 + kh, w0, w0 + kw, H, W, ph, pw, include_pad, divisor)
                acc += gout[plane + y * ow + xw] / d
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_kernel(total, H, W, oh, ow, x, xo, out, oo, zero):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw = i % ow
        t = i // ow
        y = t % oh
        plane = xo + (t // oh) * H * W
        h0 = (y * H) // oh
        h1 = ((y + 1) * H + oh - 1) // oh
        w0 = (xw * W) // ow
        w1 = ((xw + 1) * W + ow - 1) // ow
        s = zero  # typed zero of the element type
        for ih in range(h0, h1):
            for iw in range(w0, w1):
                s += x[plane + ih * W + iw]
        out[oo + i] = s / (h1 - h0) / (w1 - w0)
        i += step


@cuda.jit(cache=True)
def adaptive_backward_kernel(total, H, W, oh, ow, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w = i % W
        t = i // W
        h = t % H
        plane = go + (t // H) * oh * ow
        acc = zero
        for y in range(oh):
            h0 = (y * H) // oh
            h1 = ((y + 1) * H + oh - 1) // oh
            if h0 <= h < h1:
                for xw in range(ow):
                    w0 = (xw * W) // ow
                    w1 = ((xw + 1) * W + ow - 1) // ow
                    if w0 <= w < w1:
                        acc += gout[plane + y * ow + xw] / (h1 - h0) / (w1 - w0)
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_max_kernel(total, H, W, oh, ow, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw = i % ow
        t = i // ow
        y = t % oh
        plane = xo + (t // oh) * H * W
        h0 = (y * H) // oh
        h1 = ((y + 1) * H + oh - 1) // oh
        w0 = (xw * W) // ow
        w1 = ((xw + 1) * W + ow - 1) // ow
        best = h0 * W + w0
        m = x[plane + best]
        for ih in range(h0, h1):
            for iw in range(w0, w1):
                v = x[plane + ih * W + iw]
                if v > m or v != v:
                    m = v
                    best = ih * W + iw
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
        driver.launch(max_pool_backward_kernel, n, n, L, gin._size[2] * gin._size[3], *_d(gout), *_d(ind), *_d(gin))


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
