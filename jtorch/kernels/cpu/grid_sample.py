"""The CPU grid sampler stub: 2-d bilinear and nearest sampling, forward and backward (ATen's
GridSampler.cpp scalar path, grid_sampler_2d_cpu_fallback and its backward; the coordinate helpers
of GridSampler.h).

    grid_sampler_2d(input, grid, mode, padding_mode, align_corners, out)
        input (N, C, H, W), grid (N, Q, 2) of (x, y), out (N, C, Q); all contiguous
    grid_sampler_2d_backward(grad_out, input, grid, mode, padding_mode, align_corners, grad_input, grad_grid)
        grad_input (N, C, H, W) or None, grad_grid (N, Q, 2) or None

The forward computes each sample point's corners and weights once, then runs over the N * C
planes (each plane's reads stay in cache); the backward writes grad_input likewise plane by plane
(each plane's sums in order: deterministic) and grad_grid over N, summing over C.
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .chunk_clock import now_ns
from .host import numpy_view
from .threads import parallel_for


@numba.njit(inline="always")
def _clip(x, size):  # pragma: no cover - compiled; clip_coordinates_set_grad
    if x <= 0:
        return 0.0, 0.0
    if x >= size - 1:
        return size - 1.0, 0.0
    return x, 1.0


@numba.njit(inline="always")
def _reflect(x, twice_low, twice_high):  # pragma: no cover - compiled; reflect_coordinates_set_grad
    if twice_low == twice_high:
        return 0.0, 0.0
    lo = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    x = x - lo
    sign = 1.0
    if x < 0:
        sign = -1.0
        x = -x
    flips = math.floor(x / span)
    extra = x - flips * span  # fmod for x >= 0 (Numba has no math.fmod)
    if flips % 2 == 0:
        return extra + lo, sign
    return span - extra + lo, -sign


@numba.njit(inline="always")
def _source(coord, size, padding, align):  # pragma: no cover - compiled; ..._compute_source_index_set_grad
    if align:
        x = (coord + 1.0) / 2.0 * (size - 1)
        mult = (size - 1) / 2.0
    else:
        x = ((coord + 1.0) * size - 1.0) / 2.0
        mult = size / 2.0
    if padding == 1:
        x, g = _clip(x, size)
        mult *= g
    elif padding == 2:
        if align:
            x, g = _reflect(x, 0, 2 * (size - 1))
        else:
            x, g = _reflect(x, -1, 2 * size - 1)
        x, g2 = _clip(x, size)
        mult *= g * g2
    return x, mult


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def stencil(grid, H, W, mode, padding, align, pos, wts, dwx, dwy, mult):  # pragma: no cover - compiled
    """Per sample point: the flat plane offsets of its 4 corners (-1: out of bounds), their weights
    (nearest: corner 0 only), the weights' derivatives with respect to the source x and y, and the
    source coordinates' derivatives with respect to the grid values (mult)."""
    N, Q = grid.shape[0], grid.shape[1]
    for n in range(N):
        for q in range(Q):
            ix, mx = _source(grid[n, q, 0], W, padding, align)
            iy, my = _source(grid[n, q, 1], H, padding, align)
            mult[n, q, 0] = mx
            mult[n, q, 1] = my
            if mode == 1:
                xr = int(np.rint(ix))
                yr = int(np.rint(iy))
                pos[n, q, 0] = yr * W + xr if 0 <= xr < W and 0 <= yr < H else -1
                wts[n, q, 0] = 1.0
                for k in range(4):
                    dwx[n, q, k] = 0.0
                    dwy[n, q, k] = 0.0
                    if k:
                        pos[n, q, k] = -1
                continue
            x0 = int(math.floor(ix))
            y0 = int(math.floor(iy))
            wts[n, q, 0] = (x0 + 1 - ix) * (y0 + 1 - iy)
            wts[n, q, 1] = (ix - x0) * (y0 + 1 - iy)
            wts[n, q, 2] = (x0 + 1 - ix) * (iy - y0)
            wts[n, q, 3] = (ix - x0) * (iy - y0)
            dwx[n, q, 0], dwx[n, q, 1] = -(y0 + 1 - iy), y0 + 1 - iy
            dwx[n, q, 2], dwx[n, q, 3] = -(iy - y0), iy - y0
            dwy[n, q, 0], dwy[n, q, 1] = -(x0 + 1 - ix), -(ix - x0)
            dwy[n, q, 2], dwy[n, q, 3] = x0 + 1 - ix, ix - x0
            for k in range(4):
                xk = x0 + (k & 1)
                yk = y0 + (k >> 1)
                pos[n, q, k] = yk * W + xk if 0 <= xk < W and 0 <= yk < H else -1


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def forward(lo, hi, planes, pos, wts, out):  # pragma: no cover - compiled
    """Chunked over the N * C planes: out[n, c, q] = sum of the in-bounds corners' weighted values."""
    C, Q = out.shape[1], out.shape[2]
    for r in range(lo, hi):
        n = r // C
        c = r - n * C
        plane = planes[n, c]
        for q in range(Q):
            acc = 0.0
            for k in range(4):
                p = pos[n, q, k]
                if p >= 0:
                    acc += plane[p] * wts[n, q, k]
            out[n, c, q] = acc


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def backward_input(lo, hi, gout, pos, wts, gin):  # pragma: no cover - compiled
    """Chunked over the N * C planes of grad_input (each owns its plane: deterministic sums)."""
    C, Q = gout.shape[1], gout.shape[2]
    for r in range(lo, hi):
        n = r // C
        c = r - n * C
        plane = gin[n, c]
        for i in range(plane.shape[0]):
            plane[i] = 0
        for q in range(Q):
            g = gout[n, c, q]
            for k in range(4):
                p = pos[n, q, k]
                if p >= 0:
                    plane[p] += wts[n, q, k] * g


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def backward_grid(lo, hi, gout, planes, pos, dwx, dwy, mult, ggrid):  # pragma: no cover - compiled
    """Chunked over N: the grid's gradient sums the weight derivatives against the sampled values over C."""
    C, Q = gout.shape[1], gout.shape[2]
    for n in range(lo, hi):
        gx = np.zeros(Q)
        gy = np.zeros(Q)
        for c in range(C):
            plane = planes[n, c]
            for q in range(Q):
                g = gout[n, c, q]
                for k in range(4):
                    p = pos[n, q, k]
                    if p >= 0:
                        v = plane[p] * g
                        gx[q] += v * dwx[n, q, k]
                        gy[q] += v * dwy[n, q, k]
        for q in range(Q):
            ggrid[n, q, 0] = mult[n, q, 0] * gx[q]
            ggrid[n, q, 1] = mult[n, q, 1] * gy[q]


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def forward_parallel(total, nchunks, planes, pos, wts, out):  # pragma: no cover - compiled
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        forward(c * total // nchunks, (c + 1) * total // nchunks, planes, pos, wts, out)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def backward_input_parallel(total, nchunks, gout, pos, wts, gin):  # pragma: no cover - compiled
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        backward_input(c * total // nchunks, (c + 1) * total // nchunks, gout, pos, wts, gin)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def backward_grid_parallel(total, nchunks, gout, planes, pos, dwx, dwy, mult, ggrid):  # pragma: no cover
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        backward_grid(c * total // nchunks, (c + 1) * total // nchunks, gout, planes, pos, dwx, dwy, mult, ggrid)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def _stencil(g: Any, h: int, w: int, mode: int, padding: int, align: bool) -> tuple:
    n, q = g.shape[0], g.shape[1]
    arrays = (np.empty((n, q, 4), np.int64), np.empty((n, q, 4)), np.empty((n, q, 4)), np.empty((n, q, 4)),
              np.empty((n, q, 2)))
    stencil(g, h, w, mode, padding, align, *arrays)
    return arrays


def grid_sampler_2d(inp: Any, grid: Any, mode: int, padding: int, align: bool, out: Any) -> None:
    x, g, o = numpy_view(inp), numpy_view(grid), numpy_view(out)
    if o.size == 0:
        return
    n, c, h, w = x.shape
    pos, wts, _, _, _ = _stencil(g, h, w, mode, padding, align)
    parallel_for(forward, forward_parallel, n * c, x.reshape(n, c, h * w), pos, wts, o, work=o.size * 4)


def grid_sampler_2d_backward(grad_out: Any, inp: Any, grid: Any, mode: int, padding: int, align: bool,
                             grad_input: Any, grad_grid: Any) -> None:
    x, g, go = numpy_view(inp), numpy_view(grid), numpy_view(grad_out)
    gin = numpy_view(grad_input) if grad_input is not None else np.empty((1, 1, 1, 1), x.dtype)
    ggr = numpy_view(grad_grid) if grad_grid is not None else np.empty((1, 1, 2), x.dtype)
    if go.size == 0:
        if grad_input is not None:
            gin[...] = 0
        if grad_grid is not None:
            ggr[...] = 0
        return
    n, c, h, w = x.shape
    pos, wts, dwx, dwy, mult = _stencil(g, h, w, mode, padding, align)
    if grad_input is not None:
        parallel_for(backward_input, backward_input_parallel, n * c, go, pos, wts, gin.reshape(n, c, h * w),
                     work=go.size * 4)
    if grad_grid is not None:
        parallel_for(backward_grid, backward_grid_parallel, n, go, x.reshape(n, c, h * w), pos, dwx, dwy, mult, ggr,
                     work=go.size * 4)
