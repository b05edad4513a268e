"""The CUDA pooling kernels, the twin of kernels/cpu/pool.py (same functions and arguments, 2 or 3
spatial dims: a 2-d plane is a volume of depth 1).

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
def _voxel(i, width, height, depth, base, volume):  # pragma: no cover - compiled
    """Flat index i of (volumes, depth, height, width) -> (column, row, slice, start of its volume
    at `base`)."""
    t = i // width
    r = t // height
    return i % width, t % height, r % depth, base + (r // depth) * volume


@cuda.jit(cache=True)
def max_pool_kernel(total, g, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    D, H, W, od, oh, ow, kd, kh, kw = g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]
    sd, sh, sw, pd, ph, pw, dd, dh, dw = g[9], g[10], g[11], g[12], g[13], g[14], g[15], g[16], g[17]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, z, vol = _voxel(i, ow, oh, od, xo, D * H * W)
        d0, d1 = _max_window(z, sd, pd, kd, dd, D)
        h0, h1 = _max_window(y, sh, ph, kh, dh, H)
        w0, w1 = _max_window(xw, sw, pw, kw, dw, W)
        m, best = _window_max(x, vol, H, W, d0, (d1 - d0 + dd - 1) // dd, dd, h0, (h1 - h0 + dh - 1) // dh, dh,
                              w0, (w1 - w0 + dw - 1) // dw, dw)
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


@cuda.jit(device=True)
def _avg_at(gm, z, y, xw):  # pragma: no cover - compiled
    """The clipped window of output (z, y, xw) and its divisor, from the geometry array."""
    D, H, W, kd, kh, kw = gm[0], gm[1], gm[2], gm[6], gm[7], gm[8]
    sd, sh, sw, pd, ph, pw, include_pad, divisor = gm[9], gm[10], gm[11], gm[12], gm[13], gm[14], gm[15], gm[16]
    d0, d1, df = _avg_window(z, sd, pd, kd, D)
    h0, h1, hf = _avg_window(y, sh, ph, kh, H)
    w0, w1, wf = _avg_window(xw, sw, pw, kw, W)
    return d0, d1, h0, h1, w0, w1, _avg_divisor(d0, d1, df, h0, h1, hf, w0, w1, wf, include_pad, divisor)


@cuda.jit(cache=True)
def avg_pool_kernel(total, g, x, xo, out, oo, zero):  # pragma: no cover - compiled
    D, H, W, od, oh, ow = g[0], g[1], g[2], g[3], g[4], g[5]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, z, vol = _voxel(i, ow, oh, od, xo, D * H * W)
        d0, d1, h0, h1, w0, w1, div = _avg_at(g, z, y, xw)
        if d0 >= d1 or h0 >= h1 or w0 >= w1:
            out[oo + i] = 0
        else:
            out[oo + i] = _window_sum(x, vol, H, W, d0, d1, h0, h1, w0, w1, zero) / div
        i += step


@cuda.jit(device=True)
def _covering(h, p, k, s, n):  # pragma: no cover - compiled
    """The outputs [first, end) whose window of k from o * s - p covers input index h."""
    return max(0, (h + p - k) // s + 1), min(n, (h + p) // s + 1)


@cuda.jit(cache=True)
def avg_pool_backward_kernel(total, g, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    D, H, W, od, oh, ow, kd, kh, kw = g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]
    sd, sh, sw, pd, ph, pw = g[9], g[10], g[11], g[12], g[13], g[14]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w, h, dz, vol = _voxel(i, W, H, D, go, od * oh * ow)
        acc = zero
        z0, z1 = _covering(dz, pd, kd, sd, od)
        y0, y1 = _covering(h, ph, kh, sh, oh)
        x0, x1 = _covering(w, pw, kw, sw, ow)
        for z in range(z0, z1):
            for y in range(y0, y1):
                for xw in range(x0, x1):
                    d0, d1, h0, h1, w0, w1, div = _avg_at(g, z, y, xw)
                    acc += gout[vol + (z * oh + y) * ow + xw] / div
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_kernel(total, g, x, xo, out, oo, zero):  # pragma: no cover - compiled
    D, H, W, od, oh, ow = g[0], g[1], g[2], g[3], g[4], g[5]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, z, vol = _voxel(i, ow, oh, od, xo, D * H * W)
        d0, d1 = _adaptive_window(z, D, od)
        h0, h1 = _adaptive_window(y, H, oh)
        w0, w1 = _adaptive_window(xw, W, ow)
        s = _window_sum(x, vol, H, W, d0, d1, h0, h1, w0, w1, zero)
        out[oo + i] = s / (d1 - d0) / (h1 - h0) / (w1 - w0)
        i += step


@cuda.jit(cache=True)
def adaptive_backward_kernel(total, g, gout, go, gin, gio, zero):  # pragma: no cover - compiled
    D, H, W, od, oh, ow = g[0], g[1], g[2], g[3], g[4], g[5]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w, h, dz, vol = _voxel(i, W, H, D, go, od * oh * ow)
        acc = zero
        for z in range(od):
            d0, d1 = _adaptive_window(z, D, od)
            if d0 <= dz < d1:
                for y in range(oh):
                    h0, h1 = _adaptive_window(y, H, oh)
                    if h0 <= h < h1:
                        for xw in range(ow):
                            w0, w1 = _adaptive_window(xw, W, ow)
                            if w0 <= w < w1:
                                acc += gout[vol + (z * oh + y) * ow + xw] / (d1 - d0) / (h1 - h0) / (w1 - w0)
        gin[gio + i] = acc
        i += step


@cuda.jit(cache=True)
def adaptive_max_kernel(total, g, x, xo, out, oo, ind, io):  # pragma: no cover - compiled
    D, H, W, od, oh, ow = g[0], g[1], g[2], g[3], g[4], g[5]
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        xw, y, z, vol = _voxel(i, ow, oh, od, xo, D * H * W)
        d0, d1 = _adaptive_window(z, D, od)
        h0, h1 = _adaptive_window(y, H, oh)
        w0, w1 = _adaptive_window(xw, W, ow)
        m, best = _window_max(x, vol, H, W, d0, d1 - d0, 1, h0, h1 - h0, 1, w0, w1 - w0, 1)
        out[oo + i] = m
        ind[io + i] = best
        i += step


def _zero(t: Any) -> Any:
    """A zero of t's element type, the kernels' starting sum (typed: a float32 sum stays float32)."""
    return t._storage.data.dtype.type(0)


def _d(t: Any) -> tuple:
    return t._storage.data, t._offset


def _dims(img: Any, pooled: Any) -> tuple:
    """(D, H, W, od, oh, ow) of an image and its pooled twin; a 2-d image has depth 1."""
    a, b = tuple(img._size[2:]), tuple(pooled._size[2:])
    return ((1,) * (3 - len(a)) + a) + ((1,) * (3 - len(b)) + b)


def _3(v: tuple, fill: int) -> tuple:
    """A 2-d parameter as its depth-1 triple."""
    return tuple(v) if len(v) == 3 else (fill, *v)


def max_pool2d(x: Any, k: tuple, s: tuple, p: tuple, d: tuple, out: Any, ind: Any) -> None:
    total = out.numel()
    if total:
        g = meta_array((*_dims(x, out), *_3(k, 1), *_3(s, 1), *_3(p, 0), *_3(d, 1)))
        driver.launch(max_pool_kernel, total, total, g, *_d(x), *_d(out), *_d(ind))


def max_pool2d_backward(gout: Any, ind: Any, gin: Any) -> None:
    total = gin.numel()
    if total == 0:
        return
    driver.launch(zero_kernel, total, total, *_d(gin))
    n = gout.numel()
    if n:
        L = gout.numel() // (gout._size[0] * gout._size[1])
        HW = gin.numel() // (gin._size[0] * gin._size[1])
        if deterministic():  # atomics add overlapping windows' gradients in any order
            planes = n // L
            driver.launch(max_pool_backward_planes_kernel, planes, planes, L, HW, *_d(gout), *_d(ind), *_d(gin))
        else:
            driver.launch(max_pool_backward_kernel, n, n, L, HW, *_d(gout), *_d(ind), *_d(gin))


def _avg(kern: Any, img: Any, pooled: Any, src: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int,
         dst: Any) -> None:
    total = dst.numel()
    if total:
        g = meta_array((*_dims(img, pooled), *_3(k, 1), *_3(s, 1), *_3(p, 0), int(include_pad), int(divisor)))
        driver.launch(kern, total, total, g, *_d(src), *_d(dst), _zero(dst))


def avg_pool2d(x: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, out: Any) -> None:
    _avg(avg_pool_kernel, x, out, x, k, s, p, include_pad, divisor, out)


def avg_pool2d_backward(gout: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, gin: Any) -> None:
    _avg(avg_pool_backward_kernel, gin, gout, gout, k, s, p, include_pad, divisor, gin)


def _adaptive(kern: Any, img: Any, pooled: Any, src: Any, dst: Any) -> None:
    total = dst.numel()
    if total:
        driver.launch(kern, total, total, meta_array(_dims(img, pooled)), *_d(src), *_d(dst), _zero(dst))


def adaptive_avg_pool2d(x: Any, out: Any) -> None:
    _adaptive(adaptive_kernel, x, out, x, out)


def adaptive_avg_pool2d_backward(gout: Any, gin: Any) -> None:
    _adaptive(adaptive_backward_kernel, gin, gout, gout, gin)


def adaptive_max_pool2d(x: Any, out: Any, ind: Any) -> None:
    total = ind.numel()
    if total:
        driver.launch(adaptive_max_kernel, total, total, meta_array(_dims(x, out)), *_d(x), *_d(out), *_d(ind))


# the 3-d methods: the same kernels, given (N, C, D, H, W) tensors and triples
max_pool3d = max_pool2d
max_pool3d_backward = max_pool2d_backward
avg_pool3d = avg_pool2d
avg_pool3d_backward = avg_pool2d_backward
adaptive_avg_pool3d = adaptive_avg_pool2d
adaptive_avg_pool3d_backward = adaptive_avg_pool2d_backward
adaptive_max_pool3d = adaptive_max_pool2d
