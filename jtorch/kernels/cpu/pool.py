"""The CPU pooling kernels: 2-d max, average and adaptive average pooling, forward and backward
(PyTorch's MaxPoolKernel.cpp, AvgPoolKernel.cpp, AdaptiveAvgPoolKernel.cpp, NCHW paths).

    max_pool2d(x, kernel, stride, padding, dilation, out, indices)
    max_pool2d_backward(grad_out, indices, grad_in)             (adaptive_max_pool2d's backward too)
    avg_pool2d(x, kernel, stride, padding, count_include_pad, divisor, out)      divisor 0: none
    avg_pool2d_backward(grad_out, kernel, stride, padding, count_include_pad, divisor, grad_in)
    adaptive_avg_pool2d(x, out)
    adaptive_avg_pool2d_backward(grad_out, grad_in)
    adaptive_max_pool2d(x, out, indices)

Every tensor is contiguous (N, C, H, W) (jtorch/native/pooling.py makes them so); outputs are
written whole. Max pooling saves the flat index h * W + w of each maximum in its plane and
propagates NaN (the last NaN of a window wins), as torch does; the backward adds each gradient
into the saved index. Sums accumulate in the element type, in torch's order.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common import pool_windows
from ..common.cache import enable_package_cache
from .host import numpy_view

_max_window = numba.njit(inline="always")(pool_windows.max_window)
_avg_window = numba.njit(inline="always")(pool_windows.avg_window)
_avg_divisor = numba.njit(inline="always")(pool_windows.avg_divisor)
_adaptive_window = numba.njit(inline="always")(pool_windows.adaptive_window)
_window_sum = numba.njit(inline="always")(pool_windows.window_sum)
_window_max = numba.njit(inline="always")(pool_windows.window_max)


@numba.njit(inline="always")
def _window_add(plane, h0, h1, w0, w1, v):
    for ih in range(h0, h1):
        for iw in range(w0, w1):
            plane[ih, iw] += v


@numba.njit(inline="always")
def _zeroed_plane(gin, n, c):
    plane = gin[n, c]
    for yy in range(gin.shape[2]):
        for xx in range(gin.shape[3]):
            plane[yy, xx] = 0
    return plane


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _max_pool2d(x, kh, kw, sh, sw, ph, pw, dh, dw, out, ind):
    N, C, H, W = x.shape
    oh, ow = out.shape[2], out.shape[3]
    flat = x.reshape(N, C, H * W)
    for n in range(N):
        for c in range(C):
            plane = flat[n, c]
            for y in range(oh):
                h0, h1 = _max_window(y, sh, ph, kh, dh, H)
                nh = (h1 - h0 + dh - 1) // dh
                for xo in range(ow):
                    w0, w1 = _max_window(xo, sw, pw, kw, dw, W)
                    m, best = _window_max(plane, 0, W, h0, nh, dh, w0, (w1 - w0 + dw - 1) // dw, dw)
                    out[n, c, y, xo] = m
                    ind[n, c, y, xo] = best


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _max_pool2d_backward(g, ind, gin):
    N, C, H, W = gin.shape
    oh, ow = g.shape[2], g.shape[3]
    for n in range(N):
        for c in range(C):
            plane = _zeroed_plane(gin, n, c)
            for y in range(oh):
                for xo in range(ow):
                    k = ind[n, c, y, xo]
                    if k >= 0:  # -1 never comes from the forward; a user's indices are trusted as torch does
                        plane[k // W, k % W] += g[n, c, y, xo]


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _avg_pool2d(x, kh, kw, sh, sw, ph, pw, include_pad, divisor, out, zero):
    N, C, H, W = x.shape
    oh, ow = out.shape[2], out.shape[3]
    flat = x.reshape(N, C, H * W)
    for n in range(N):
        for c in range(C):
            plane = flat[n, c]
            for y in range(oh):
                h0, h1, hf = _avg_window(y, sh, ph, kh, H)
                for xo in range(ow):
                    w0, w1, wf = _avg_window(xo, sw, pw, kw, W)
                    if h0 >= h1 or w0 >= w1:
                        out[n, c, y, xo] = 0
                        continue
                    s = _window_sum(plane, 0, W, h0, h1, w0, w1, zero)
                    out[n, c, y, xo] = s / _avg_divisor(h0, h1, hf, w0, w1, wf, include_pad, divisor)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _avg_pool2d_backward(g, kh, kw, sh, sw, ph, pw, include_pad, divisor, gin):
    N, C, H, W = gin.shape
    oh, ow = g.shape[2], g.shape[3]
    for n in range(N):
        for c in range(C):
            plane = _zeroed_plane(gin, n, c)
            for y in range(oh):
                h0, h1, hf = _avg_window(y, sh, ph, kh, H)
                for xo in range(ow):
                    w0, w1, wf = _avg_window(xo, sw, pw, kw, W)
                    v = g[n, c, y, xo] / _avg_divisor(h0, h1, hf, w0, w1, wf, include_pad, divisor)
                    _window_add(plane, h0, h1, w0, w1, v)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_avg_pool2d(x, out, zero):
    N, C, H, W = x.shape
    oh, ow = out.shape[2], out.shape[3]
    flat = x.reshape(N, C, H * W)
    for n in range(N):
        for c in range(C):
            plane = flat[n, c]
            for y in range(oh):
                h0, h1 = _adaptive_window(y, H, oh)
                for xo in range(ow):
                    w0, w1 = _adaptive_window(xo, W, ow)
                    s = _window_sum(plane, 0, W, h0, h1, w0, w1, zero)
                    out[n, c, y, xo] = s / (h1 - h0) / (w1 - w0)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_avg_pool2d_backward(g, gin):
    N, C, H, W = gin.shape
    oh, ow = g.shape[2], g.shape[3]
    for n in range(N):
        for c in range(C):
            plane = _zeroed_plane(gin, n, c)
            for y in range(oh):
                h0, h1 = _adaptive_window(y, H, oh)
                for xo in range(ow):
                    w0, w1 = _adaptive_window(xo, W, ow)
                    v = g[n, c, y, xo] / (h1 - h0) / (w1 - w0)
                    _window_add(plane, h0, h1, w0, w1, v)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_max_pool2d(x, out, ind):
    N, C, H, W = x.shape
    oh, ow = out.shape[2], out.shape[3]
    flat = x.reshape(N, C, H * W)
    for n in range(N):
        for c in range(C):
            plane = flat[n, c]
            for y in range(oh):
                h0, h1 = _adaptive_window(y, H, oh)
                for xo in range(ow):
                    w0, w1 = _adaptive_window(xo, W, ow)
                    m, best = _window_max(plane, 0, W, h0, h1 - h0, 1, w0, w1 - w0, 1)
                    out[n, c, y, xo] = m
                    ind[n, c, y, xo] = best


_F16 = np.dtype(np.float16)


def _views(args: tuple, out: int, run: Any) -> None:
    """run(NumPy views of args), each tensor viewed; nothing to do for an empty last output. Numba
    has no float16 on the CPU: float16 arrays are computed in float32 (torch's opmath for half) and
    the output at position `out` rounded once."""
    a = [numpy_view(t) if hasattr(t, "_storage") else t for t in args]
    if a[-1].size == 0:
        return
    if any(isinstance(v, np.ndarray) and v.dtype == _F16 for v in a):
        wide = [v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == _F16 else v for v in a]
        run(*wide)
        a[out][...] = wide[out]
        return
    run(*a)


def max_pool2d(x: Any, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, out: Any, ind: Any) -> None:
    def run(x: Any, k: tuple, s: tuple, p: tuple, d: tuple, out: Any, ind: Any) -> None:
        _max_pool2d(x, *k, *s, *p, *d, out, ind)

    _views((x, kernel, stride, padding, dilation, out, ind), -2, run)


def max_pool2d_backward(grad_out: Any, ind: Any, grad_in: Any) -> None:
    def run(g: Any, ind: Any, gin: Any) -> None:
        if g.size == 0:
            gin[...] = 0
        else:
            _max_pool2d_backward(g, ind, gin)

    _views((grad_out, ind, grad_in), -1, run)


def avg_pool2d(x: Any, kernel: tuple, stride: tuple, padding: tuple, include_pad: bool, divisor: int,
               out: Any) -> None:
    def run(x: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, out: Any) -> None:
        _avg_pool2d(x, *k, *s, *p, include_pad, divisor, out, out.dtype.type(0))

    _views((x, kernel, stride, padding, include_pad, divisor, out), -1, run)


def avg_pool2d_backward(grad_out: Any, kernel: tuple, stride: tuple, padding: tuple, include_pad: bool,
                        divisor: int, grad_in: Any) -> None:
    def run(g: Any, k: tuple, s: tuple, p: tuple, include_pad: bool, divisor: int, gin: Any) -> None:
        _avg_pool2d_backward(g, *k, *s, *p, include_pad, divisor, gin)

    _views((grad_out, kernel, stride, padding, include_pad, divisor, grad_in), -1, run)


def adaptive_avg_pool2d(x: Any, out: Any) -> None:
    _views((x, out), -1, lambda x, out: _adaptive_avg_pool2d(x, out, out.dtype.type(0)))


def adaptive_avg_pool2d_backward(grad_out: Any, grad_in: Any) -> None:
    _views((grad_out, grad_in), -1, _adaptive_avg_pool2d_backward)


def adaptive_max_pool2d(x: Any, out: Any, ind: Any) -> None:
    _views((x, out, ind), -2, _adaptive_max_pool2d)
