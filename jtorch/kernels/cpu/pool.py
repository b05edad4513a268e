"""The CPU pooling kernels: max, average and adaptive average/max pooling over 2 or 3 spatial
dims, forward and backward (PyTorch's MaxPoolKernel.cpp, AvgPoolKernel.cpp,
AdaptiveAvgPoolKernel.cpp, DilatedMaxPool3d.cpp, AveragePool3d.cpp, NCHW/NCDHW paths).

    max_pool2d(x, kernel, stride, padding, dilation, out, indices)         max_pool3d: the same
    max_pool2d_backward(grad_out, indices, grad_in)      (adaptive max pooling's backward too)
    avg_pool2d(x, kernel, stride, padding, count_include_pad, divisor, out)      divisor 0: none
    avg_pool2d_backward(grad_out, kernel, stride, padding, count_include_pad, divisor, grad_in)
    adaptive_avg_pool2d(x, out)
    adaptive_avg_pool2d_backward(grad_out, grad_in)
    adaptive_max_pool2d(x, out, indices)

and their 3d twins. One kernel per concept walks (N, C, D, H, W) volumes; a 2-d plane is a volume
of depth 1 (its parameters get depth 1, stride 1, padding 0). Every tensor is contiguous
(jtorch/native/pooling.py makes them so); outputs are written whole. Max pooling saves the flat
index (z * H + h) * W + w of each maximum in its volume and propagates NaN (the last NaN of a
window wins), as torch does; the backward adds each gradient into the saved index. Sums
accumulate in the element type, in torch's order.
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
def _window_add(vol, d0, d1, h0, h1, w0, w1, v):
    for iz in range(d0, d1):
        for ih in range(h0, h1):
            for iw in range(w0, w1):
                vol[iz, ih, iw] += v


@numba.njit(inline="always")
def _zeroed(gin, n, c):
    vol = gin[n, c]
    for zz in range(gin.shape[2]):
        for yy in range(gin.shape[3]):
            for xx in range(gin.shape[4]):
                vol[zz, yy, xx] = 0
    return vol


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _max_pool(x, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, out, ind):
    N, C, D, H, W = x.shape
    od, oh, ow = out.shape[2], out.shape[3], out.shape[4]
    flat = x.reshape(N, C, D * H * W)
    for n in range(N):
        for c in range(C):
            vol = flat[n, c]
            for z in range(od):
                d0, d1 = _max_window(z, sd, pd, kd, dd, D)
                nz = (d1 - d0 + dd - 1) // dd
                for y in range(oh):
                    h0, h1 = _max_window(y, sh, ph, kh, dh, H)
                    nh = (h1 - h0 + dh - 1) // dh
                    for xo in range(ow):
                        w0, w1 = _max_window(xo, sw, pw, kw, dw, W)
                        m, best = _window_max(vol, 0, H, W, d0, nz, dd, h0, nh, dh, w0, (w1 - w0 + dw - 1) // dw,
                                              dw)
                        out[n, c, z, y, xo] = m
                        ind[n, c, z, y, xo] = best


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _max_pool_backward(g, ind, gin):
    N, C, D, H, W = gin.shape
    L = g.shape[2] * g.shape[3] * g.shape[4]
    gf = g.reshape(N, C, L)
    indf = ind.reshape(N, C, L)
    for n in range(N):
        for c in range(C):
            vol = _zeroed(gin, n, c).reshape(D * H * W)
            for i in range(L):
                k = indf[n, c, i]
                if k >= 0:  # -1 never comes from the forward; a user's indices are trusted as torch does
                    vol[k] += gf[n, c, i]


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _avg_pool(x, kd, kh, kw, sd, sh, sw, pd, ph, pw, include_pad, divisor, out, zero):
    N, C, D, H, W = x.shape
    od, oh, ow = out.shape[2], out.shape[3], out.shape[4]
    flat = x.reshape(N, C, D * H * W)
    for n in range(N):
        for c in range(C):
            vol = flat[n, c]
            for z in range(od):
                d0, d1, df = _avg_window(z, sd, pd, kd, D)
                for y in range(oh):
                    h0, h1, hf = _avg_window(y, sh, ph, kh, H)
                    for xo in range(ow):
                        w0, w1, wf = _avg_window(xo, sw, pw, kw, W)
                        if d0 >= d1 or h0 >= h1 or w0 >= w1:
                            out[n, c, z, y, xo] = 0
                            continue
                        s = _window_sum(vol, 0, H, W, d0, d1, h0, h1, w0, w1, zero)
                        out[n, c, z, y, xo] = s / _avg_divisor(d0, d1, df, h0, h1, hf, w0, w1, wf, include_pad,
                                                               divisor)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _avg_pool_backward(g, kd, kh, kw, sd, sh, sw, pd, ph, pw, include_pad, divisor, gin):
    N, C, D, H, W = gin.shape
    od, oh, ow = g.shape[2], g.shape[3], g.shape[4]
    for n in range(N):
        for c in range(C):
            vol = _zeroed(gin, n, c)
            for z in range(od):
                d0, d1, df = _avg_window(z, sd, pd, kd, D)
                for y in range(oh):
                    h0, h1, hf = _avg_window(y, sh, ph, kh, H)
                    for xo in range(ow):
                        w0, w1, wf = _avg_window(xo, sw, pw, kw, W)
                        v = g[n, c, z, y, xo] / _avg_divisor(d0, d1, df, h0, h1, hf, w0, w1, wf, include_pad,
                                                             divisor)
                        _window_add(vol, d0, d1, h0, h1, w0, w1, v)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_avg_pool(x, out, zero):
    N, C, D, H, W = x.shape
    od, oh, ow = out.shape[2], out.shape[3], out.shape[4]
    flat = x.reshape(N, C, D * H * W)
    for n in range(N):
        for c in range(C):
            vol = flat[n, c]
            for z in range(od):
                d0, d1 = _adaptive_window(z, D, od)
                for y in range(oh):
                    h0, h1 = _adaptive_window(y, H, oh)
                    for xo in range(ow):
                        w0, w1 = _adaptive_window(xo, W, ow)
                        s = _window_sum(vol, 0, H, W, d0, d1, h0, h1, w0, w1, zero)
                        out[n, c, z, y, xo] = s / (d1 - d0) / (h1 - h0) / (w1 - w0)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_avg_pool_backward(g, gin):
    N, C, D, H, W = gin.shape
    od, oh, ow = g.shape[2], g.shape[3], g.shape[4]
    for n in range(N):
        for c in range(C):
            vol = _zeroed(gin, n, c)
            for z in range(od):
                d0, d1 = _adaptive_window(z, D, od)
                for y in range(oh):
                    h0, h1 = _adaptive_window(y, H, oh)
                    for xo in range(ow):
                        w0, w1 = _adaptive_window(xo, W, ow)
                        v = g[n, c, z, y, xo] / (d1 - d0) / (h1 - h0) / (w1 - w0)
                        _window_add(vol, d0, d1, h0, h1, w0, w1, v)


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _adaptive_max_pool(x, out, ind):
    N, C, D, H, W = x.shape
    od, oh, ow = out.shape[2], out.shape[3], out.shape[4]
    flat = x.reshape(N, C, D * H * W)
    for n in range(N):
        for c in range(C):
            vol = flat[n, c]
            for z in range(od):
                d0, d1 = _adaptive_window(z, D, od)
                for y in range(oh):
                    h0, h1 = _adaptive_window(y, H, oh)
                    for xo in range(ow):
                        w0, w1 = _adaptive_window(xo, W, ow)
                        m, best = _window_max(vol, 0, H, W, d0, d1 - d0, 1, h0, h1 - h0, 1, w0, w1 - w0, 1)
                        out[n, c, z, y, xo] = m
                        ind[n, c, z, y, xo] = best


_F16 = np.dtype(np.float16)


def _volumes(a: Any) -> Any:
    """A 4-d (N, C, H, W) array as the (N, C, 1, H, W) volume view; other values as they are."""
    if isinstance(a, np.ndarray) and a.ndim == 4:
        return a.reshape(a.shape[0], a.shape[1], 1, a.shape[2], a.shape[3])
    return a


def _views(args: tuple, out: int, run: Any) -> None:
    """run(NumPy (N, C, D, H, W) views of args), each tensor viewed; nothing to do for an empty last
    output. Numba has no float16 on the CPU: float16 arrays are computed in float32 (torch's opmath
    for half) and the output at position `out` rounded once."""
    a = [_volumes(numpy_view(t)) if hasattr(t, "_storage") else t for t in args]
    if a[-1].size == 0:
        return
    if any(isinstance(v, np.ndarray) and v.dtype == _F16 for v in a):
        wide = [v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == _F16 else v for v in a]
        run(*wide)
        a[out][...] = wide[out]
        return
    run(*a)


def _3(v: tuple, fill: int) -> tuple:
    """A 2-d parameter as its depth-1 triple."""
    return tuple(v) if len(v) == 3 else (fill, *v)


def max_pool2d(x: Any, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, out: Any, ind: Any) -> None:
    def run(x: Any, out: Any, ind: Any) -> None:
        _max_pool(x, *_3(kernel, 1), *_3(stride, 1), *_3(padding, 0), *_3(dilation, 1), out, ind)

    _views((x, out, ind), -2, run)


def max_pool2d_backward(grad_out: Any, ind: Any, grad_in: Any) -> None:
    def run(g: Any, ind: Any, gin: Any) -> None:
        if g.size == 0:
            gin[...] = 0
        else:
            _max_pool_backward(g, ind, gin)

    _views((grad_out, ind, grad_in), -1, run)


def avg_pool2d(x: Any, kernel: tuple, stride: tuple, padding: tuple, include_pad: bool, divisor: int,
               out: Any) -> None:
    def run(x: Any, out: Any) -> None:
        _avg_pool(x, *_3(kernel, 1), *_3(stride, 1), *_3(padding, 0), include_pad, divisor, out, out.dtype.type(0))

    _views((x, out), -1, run)


def avg_pool2d_backward(grad_out: Any, kernel: tuple, stride: tuple, padding: tuple, include_pad: bool,
                        divisor: int, grad_in: Any) -> None:
    def run(g: Any, gin: Any) -> None:
        _avg_pool_backward(g, *_3(kernel, 1), *_3(stride, 1), *_3(padding, 0), include_pad, divisor, gin)

    _views((grad_out, grad_in), -1, run)


def adaptive_avg_pool2d(x: Any, out: Any) -> None:
    _views((x, out), -1, lambda x, out: _adaptive_avg_pool(x, out, out.dtype.type(0)))


def adaptive_avg_pool2d_backward(grad_out: Any, grad_in: Any) -> None:
    _views((grad_out, grad_in), -1, _adaptive_avg_pool_backward)


def adaptive_max_pool2d(x: Any, out: Any, ind: Any) -> None:
    _views((x, out, ind), -2, _adaptive_max_pool)


# the 3-d methods: the same kernels, given (N, C, D, H, W) tensors and triples
max_pool3d = max_pool2d
max_pool3d_backward = max_pool2d_backward
avg_pool3d = avg_pool2d
avg_pool3d_backward = avg_pool2d_backward
adaptive_avg_pool3d = adaptive_avg_pool2d
adaptive_avg_pool3d_backward = adaptive_avg_pool2d_backward
adaptive_max_pool3d = adaptive_max_pool2d
