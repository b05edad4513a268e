"""The CPU im2col / col2im kernels (PyTorch's Im2Col.cpp / Col2Im.cpp, and vol2col / col2vol of
its 3-d convolutions), the data movement of convolution; the multiply-adds go to the matmul engine
(BLAS).

    im2col(x, kernel, dilation, padding, stride, out)   x (N, C, [D,] H, W) -> out (N, C*prod(kernel), L)
    col2im(cols, kernel, dilation, padding, stride, out) cols (N, C*prod(kernel), L) -> out (N, C, [D,] H, W)

kernel, dilation, padding and stride hold one value per spatial dim (2 or 3). One kernel serves
both: a 2-d image is a 3-d one of depth 1. Tensors come contiguous from
jtorch/native/convolution.py; `out` is written whole (col2im zero-fills, then adds every column
element into its pixel). Rows of the column matrix are (c, i, j) in C order, columns (y, x):
torch's layout, so F.unfold's result is this one. The loops run one image after another on the
calling thread (nogil): one compile per dtype.
"""
from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .host import numpy_view


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _im2col(x, kd, kh, kw, dd, dh, dw, pd, ph, pw, sd, sh, sw, od, oh, ow, out):
    N, C, D, H, W = x.shape
    for n in range(N):
        for c in range(C):
            for a in range(kd):
                for i in range(kh):
                    for j in range(kw):
                        row = ((c * kd + a) * kh + i) * kw + j
                        dst = out[n, row]
                        for z in range(od):
                            iz = z * sd - pd + a * dd
                            for y in range(oh):
                                iy = y * sh - ph + i * dh
                                base = (z * oh + y) * ow
                                if iz < 0 or iz >= D or iy < 0 or iy >= H:
                                    for xo in range(ow):
                                        dst[base + xo] = 0
                                    continue
                                src = x[n, c, iz, iy]
                                for xo in range(ow):
                                    ix = xo * sw - pw + j * dw
                                    dst[base + xo] = src[ix] if 0 <= ix < W else 0


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _col2im(cols, kd, kh, kw, dd, dh, dw, pd, ph, pw, sd, sh, sw, od, oh, ow, out):
    N, C, D, H, W = out.shape
    for n in range(N):
        for c in range(C):
            img = out[n, c]
            for zz in range(D):
                for yy in range(H):
                    for xx in range(W):
                        img[zz, yy, xx] = 0
            for a in range(kd):
                for i in range(kh):
                    for j in range(kw):
                        src = cols[n, ((c * kd + a) * kh + i) * kw + j]
                        for z in range(od):
                            iz = z * sd - pd + a * dd
                            if iz < 0 or iz >= D:
                                continue
                            for y in range(oh):
                                iy = y * sh - ph + i * dh
                                if iy < 0 or iy >= H:
                                    continue
                                base = (z * oh + y) * ow
                                for xo in range(ow):
                                    ix = xo * sw - pw + j * dw
                                    if 0 <= ix < W:
                                        img[iz, iy, ix] += src[base + xo]


def _volume(img: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    """The image's (N, C, D, H, W) shape, the parameters as triples (depth 1 for a 2-d image) and
    the blocks along each of the three dims."""
    if len(kernel) == 2:
        kernel, dilation, padding, stride = (1, *kernel), (1, *dilation), (0, *padding), (1, *stride)
        shape = (img._size[0], img._size[1], 1, img._size[2], img._size[3])
    else:
        shape = tuple(img._size)
    blocks = tuple((shape[2 + i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1
                   for i in range(3))
    return shape, (*kernel, *dilation, *padding, *stride, *blocks)


def im2col(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    if out.numel() == 0:
        return
    shape, geo = _volume(src, kernel, dilation, padding, stride)
    a, o = numpy_view(src).reshape(shape), numpy_view(out)
    if a.dtype == np.float16:  # a copy: move the bits (Numba has no float16; +0.0 is all zero bits)
        a, o = a.view(np.uint16), o.view(np.uint16)
    _im2col(a, *geo, o)


def col2im(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    if out.numel() == 0:
        return
    shape, geo = _volume(out, kernel, dilation, padding, stride)
    a, o = numpy_view(src), numpy_view(out).reshape(shape)
    if a.dtype == np.float16:  # sums in float32 (torch's opmath for half), rounded once
        o32 = np.empty(o.shape, np.float32)
        _col2im(a.astype(np.float32), *geo, o32)
        o[...] = o32
        return
    _col2im(a, *geo, o)
