"""The CPU im2col / col2im kernels (PyTorch's Im2Col.cpp / Col2Im.cpp), the data movement
of convolution; the multiply-adds go to the matmul engine (BLAS).

    im2col(x, kernel, dilation, padding, stride, out)      x (N, C, H, W) -> out (N, C*kh*kw, oh*ow)
    col2im(cols, kernel, dilation, padding, stride, out)   cols (N, C*kh*kw, L) -> out (N, C, H, W)

Tensors come contiguous from jtorch/native/convolution.py; `out` is written whole (col2im
zero-fills, then adds every column element into its pixel). Rows of the column matrix are
(c, i, j) in C order, columns (y, x): torch's layout, so F.unfold's result is this one. The
loops run one image after another on the calling thread (nogil): one compile per dtype.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .host import numpy_view


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _im2col(x, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow, out):
    N, C, H, W = x.shape
    for n in range(N):
        for c in range(C):
            for i in range(kh):
                for j in range(kw):
                    row = (c * kh + i) * kw + j
                    dst = out[n, row]
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        base = y * ow
                        if iy < 0 or iy >= H:
                            for xo in range(ow):
                                dst[base + xo] = 0
                            continue
                        src = x[n, c, iy]
                        for xo in range(ow):
                            ix = xo * sw - pw + j * dw
                            dst[base + xo] = src[ix] if 0 <= ix < W else 0


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _col2im(cols, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow, out):
    N, C, H, W = out.shape
    for n in range(N):
        for c in range(C):
            img = out[n, c]
            for yy in range(H):
                for xx in range(W):
                    img[yy, xx] = 0
            for i in range(kh):
                for j in range(kw):
                    src = cols[n, (c * kh + i) * kw + j]
                    for y in range(oh):
                        iy = y * sh - ph + i * dh
                        if iy < 0 or iy >= H:
                            continue
                        base = y * ow
                        for xo in range(ow):
                            ix = xo * sw - pw + j * dw
                            if 0 <= ix < W:
                                img[iy, ix] += src[base + xo]


def _geometry(img: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple[int, int]:
    H, W = img._size[2], img._size[3]
    oh = (H + 2 * padding[0] - (dilation[0] * (kernel[0] - 1) + 1)) // stride[0] + 1
    ow = (W + 2 * padding[1] - (dilation[1] * (kernel[1] - 1) + 1)) // stride[1] + 1
    return oh, ow


def im2col(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    if out.numel() == 0:
        return
    oh, ow = _geometry(src, kernel, dilation, padding, stride)
    a, o = numpy_view(src), numpy_view(out)
    if a.dtype == np.float16:  # a copy: move the bits (Numba has no float16; +0.0 is all zero bits)
        a, o = a.view(np.uint16), o.view(np.uint16)
    _im2col(a, *kernel, *dilation, *padding, *stride, oh, ow, o)


def col2im(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    if out.numel() == 0:
        return
    oh, ow = _geometry(out, kernel, dilation, padding, stride)
    a, o = numpy_view(src), numpy_view(out)
    if a.dtype == np.float16:  # sums in float32 (torch's opmath for half), rounded once
        o32 = np.empty(o.shape, np.float32)
        _col2im(a.astype(np.float32), *kernel, *dilation, *padding, *stride, oh, ow, o32)
        o[...] = o32
        return
    _col2im(a, *kernel, *dilation, *padding, *stride, oh, ow, o)
