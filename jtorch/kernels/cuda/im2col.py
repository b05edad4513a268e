"""The CUDA im2col / col2im kernels, the twin of kernels/cpu/im2col.py (same arguments and layout).

im2col: one thread per column element (n, row, pos), reading its pixel or writing 0 in the padding.
col2im: one thread per output pixel, gathering the column elements that land on it (torch's
col2im CUDA kernel): no atomics, so the sums are deterministic. Tensors come contiguous; the
kernels take the flat device buffers and the tensors' offsets.
"""
from __future__ import annotations

from typing import Any

from numba import cuda

from . import driver
from .elementwise import meta_array


@cuda.jit(cache=True)
def im2col_kernel(total, g, src, soff, dst, doff):  # pragma: no cover - compiled
    C, H, W, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
                                                         g[9], g[10], g[11], g[12])
    L = oh * ow
    CK = C * kh * kw
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        pos = i % L  # the output position y * ow + x
        r = i // L
        row = r % CK
        n = r // CK
        j = row % kw
        t = row // kw
        ki = t % kh
        c = t // kh
        y = pos // ow
        x = pos % ow
        iy = y * sh - ph + ki * dh
        ix = x * sw - pw + j * dw
        if 0 <= iy < H and 0 <= ix < W:
            dst[doff + i] = src[soff + ((n * C + c) * H + iy) * W + ix]
        else:
            dst[doff + i] = 0
        i += step


@cuda.jit(cache=True)
def col2im_kernel(total, g, src, soff, dst, doff, zero):  # pragma: no cover - compiled
    C, H, W, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
                                                         g[9], g[10], g[11], g[12])
    L = oh * ow
    CK = C * kh * kw
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w = i % W
        t = i // W
        h = t % H
        t = t // H
        c = t % C
        n = t // C
        acc = zero  # typed zero of the element type
        for ki in range(kh):
            hh = h + ph - ki * dh
            if hh >= 0 and hh % sh == 0 and hh // sh < oh:
                y = hh // sh
                for kj in range(kw):
                    ww = w + pw - kj * dw
                    if ww >= 0 and ww % sw == 0 and ww // sw < ow:
                        row = (c * kh + ki) * kw + kj
                        acc += src[soff + (n * CK + row) * L + y * ow + ww // sw]
        dst[doff + i] = acc
        i += step


def _launch(k: Any, img: Any, src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any,
            *extra: Any) -> None:
    total = out.numel()
    if total == 0:
        return
    C, H, W = img._size[1], img._size[2], img._size[3]
    oh = (H + 2 * padding[0] - (dilation[0] * (kernel[0] - 1) + 1)) // stride[0] + 1
    ow = (W + 2 * padding[1] - (dilation[1] * (kernel[1] - 1) + 1)) // stride[1] + 1
    g = meta_array((C, H, W, *kernel, *dilation, *padding, *stride, oh, ow))
    driver.launch(k, total, total, g, src._storage.data, src._offset, out._storage.data, out._offset, *extra)


def im2col(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    _launch(im2col_kernel, src, src, kernel, dilation, padding, stride, out)


def col2im(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    _launch(col2im_kernel, out, src, kernel, dilation, padding, stride, out, out._storage.data.dtype.type(0))
