"""The CUDA im2col / col2im kernels, the twin of kernels/cpu/im2col.py (same arguments and layout;
2 or 3 spatial dims, a 2-d image being a 3-d one of depth 1).

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
    C, D, H, W, kd, kh, kw, dd, dh, dw = g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9]
    pd, ph, pw, sd, sh, sw, od, oh, ow = g[10], g[11], g[12], g[13], g[14], g[15], g[16], g[17], g[18]
    L = od * oh * ow
    CK = C * kd * kh * kw
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        pos = i % L  # the output position (z * oh + y) * ow + x
        r = i // L
        row = r % CK
        n = r // CK
        j = row % kw
        t = row // kw
        ki = t % kh
        t = t // kh
        ka = t % kd
        c = t // kd
        x = pos % ow
        t = pos // ow
        y = t % oh
        z = t // oh
        iz = z * sd - pd + ka * dd
        iy = y * sh - ph + ki * dh
        ix = x * sw - pw + j * dw
        if 0 <= iz < D and 0 <= iy < H and 0 <= ix < W:
            dst[doff + i] = src[soff + (((n * C + c) * D + iz) * H + iy) * W + ix]
        else:
            dst[doff + i] = 0
        i += step


@cuda.jit(device=True)
def _taps(o, p, k, d, s, nout):  # pragma: no cover - compiled
    """Whether kernel tap k of some block lands on input index o: that block, or -1."""
    v = o + p - k * d
    if v >= 0 and v % s == 0 and v // s < nout:
        return v // s
    return -1


@cuda.jit(cache=True)
def col2im_kernel(total, g, src, soff, dst, doff, zero):  # pragma: no cover - compiled
    C, D, H, W, kd, kh, kw, dd, dh, dw = g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9]
    pd, ph, pw, sd, sh, sw, od, oh, ow = g[10], g[11], g[12], g[13], g[14], g[15], g[16], g[17], g[18]
    L = od * oh * ow
    CK = C * kd * kh * kw
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        w = i % W
        t = i // W
        h = t % H
        t = t // H
        dz = t % D
        t = t // D
        c = t % C
        n = t // C
        acc = zero  # typed zero of the element type
        for ka in range(kd):
            z = _taps(dz, pd, ka, dd, sd, od)
            if z >= 0:
                for ki in range(kh):
                    y = _taps(h, ph, ki, dh, sh, oh)
                    if y >= 0:
                        for kj in range(kw):
                            x = _taps(w, pw, kj, dw, sw, ow)
                            if x >= 0:
                                row = ((c * kd + ka) * kh + ki) * kw + kj
                                acc += src[soff + (n * CK + row) * L + (z * oh + y) * ow + x]
        dst[doff + i] = acc
        i += step


def _launch(k: Any, img: Any, src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any,
            *extra: Any) -> None:
    total = out.numel()
    if total == 0:
        return
    size = tuple(img._size)
    if len(kernel) == 2:  # depth 1
        kernel, dilation, padding, stride = (1, *kernel), (1, *dilation), (0, *padding), (1, *stride)
        size = (size[0], size[1], 1, size[2], size[3])
    blocks = [(size[2 + i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1
              for i in range(3)]
    g = meta_array((*size[1:], *kernel, *dilation, *padding, *stride, *blocks))
    driver.launch(k, total, total, g, src._storage.data, src._offset, out._storage.data, out._offset, *extra)


def im2col(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    _launch(im2col_kernel, src, src, kernel, dilation, padding, stride, out)


def col2im(src: Any, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, out: Any) -> None:
    _launch(col2im_kernel, out, src, kernel, dilation, padding, stride, out, out._storage.data.dtype.type(0))
