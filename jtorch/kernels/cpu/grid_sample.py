"""The CPU grid sampler stub: 2-d bilinear and nearest sampling, forward and backward (ATen's
GridSampler.cpp scalar path, grid_sampler_2d_cpu_fallback and its backward; the coordinate helpers
of GridSampler.h).

    grid_sampler_2d(input, grid, mode, padding_mode, align_corners, out)
        input (N, C, H, W), grid (N, Q, 2) of (x, y), out (N, C, Q); all contiguous
    grid_sampler_2d_backward(grad_out, input, grid, mode, padding_mode, align_corners, grad_input, grad_grid)
        grad_input (N, C, H, W) or None, grad_grid (N, Q, 2) or None

The forward is chunked over the N * Q sample points, the backward over N (each n owns its slab of
grad_input, so the sums are deterministic).
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
def forward(lo, hi, inp, grid, mode, padding, align, out):  # pragma: no cover - compiled
    C, H, W = inp.shape[1], inp.shape[2], inp.shape[3]
    Q = grid.shape[1]
    for r in range(lo, hi):
        n = r // Q
        q = r - n * Q
        ix, _ = _source(grid[n, q, 0], W, padding, align)
        iy, _ = _source(grid[n, q, 1], H, padding, align)
        if mode == 1:
            xr = int(np.rint(ix))
            yr = int(np.rint(iy))
            ok = 0 <= xr < W and 0 <= yr < H
            for c in range(C):
                out[n, c, q] = inp[n, c, yr, xr] if ok else 0
            continue
        x0 = int(math.floor(ix))
        y0 = int(math.floor(iy))
        nw = (x0 + 1 - ix) * (y0 + 1 - iy)
        ne = (ix - x0) * (y0 + 1 - iy)
        sw = (x0 + 1 - ix) * (iy - y0)
        se = (ix - x0) * (iy - y0)
        in_w0, in_w1 = 0 <= x0 < W, 0 <= x0 + 1 < W
        in_h0, in_h1 = 0 <= y0 < H, 0 <= y0 + 1 < H
        for c in range(C):
            acc = 0.0
            if in_h0 and in_w0:
                acc += inp[n, c, y0, x0] * nw
            if in_h0 and in_w1:
                acc += inp[n, c, y0, x0 + 1] * ne
            if in_h1 and in_w0:
                acc += inp[n, c, y0 + 1, x0] * sw
            if in_h1 and in_w1:
                acc += inp[n, c, y0 + 1, x0 + 1] * se
            out[n, c, q] = acc


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def backward(lo, hi, gout, inp, grid, mode, padding, align, gin, ggrid, want_in, want_grid):  # pragma: no cover
    C, H, W = inp.shape[1], inp.shape[2], inp.shape[3]
    Q = grid.shape[1]
    for n in range(lo, hi):
        if want_in:
            gin[n] = 0
        for q in range(Q):
            ix, mx = _source(grid[n, q, 0], W, padding, align)
            iy, my = _source(grid[n, q, 1], H, padding, align)
            if mode == 1:
                xr = int(np.rint(ix))
                yr = int(np.rint(iy))
                if want_in and 0 <= xr < W and 0 <= yr < H:
                    for c in range(C):
                        gin[n, c, yr, xr] += gout[n, c, q]
                if want_grid:
                    ggrid[n, q, 0] = 0
                    ggrid[n, q, 1] = 0
                continue
            x0 = int(math.floor(ix))
            y0 = int(math.floor(iy))
            nw = (x0 + 1 - ix) * (y0 + 1 - iy)
            ne = (ix - x0) * (y0 + 1 - iy)
            sw = (x0 + 1 - ix) * (iy - y0)
            se = (ix - x0) * (iy - y0)
            in_w0, in_w1 = 0 <= x0 < W, 0 <= x0 + 1 < W
            in_h0, in_h1 = 0 <= y0 < H, 0 <= y0 + 1 < H
            gix = 0.0
            giy = 0.0
            for c in range(C):
                g = gout[n, c, q]
                if in_h0 and in_w0:
                    if want_in:
                        gin[n, c, y0, x0] += nw * g
                    v = inp[n, c, y0, x0]
                    gix -= v * (y0 + 1 - iy) * g
                    giy -= v * (x0 + 1 - ix) * g
                if in_h0 and in_w1:
                    if want_in:
                        gin[n, c, y0, x0 + 1] += ne * g
                    v = inp[n, c, y0, x0 + 1]
                    gix += v * (y0 + 1 - iy) * g
                    giy -= v * (ix - x0) * g
                if in_h1 and in_w0:
                    if want_in:
                        gin[n, c, y0 + 1, x0] += sw * g
                    v = inp[n, c, y0 + 1, x0]
                    gix -= v * (iy - y0) * g
                    giy += v * (x0 + 1 - ix) * g
                if in_h1 and in_w1:
                    if want_in:
                        gin[n, c, y0 + 1, x0 + 1] += se * g
                    v = inp[n, c, y0 + 1, x0 + 1]
                    gix += v * (iy - y0) * g
                    giy += v * (ix - x0) * g
            if want_grid:
                ggrid[n, q, 0] = mx * gix
                ggrid[n, q, 1] = my * giy


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def forward_parallel(total, nchunks, inp, grid, mode, padding, align, out):  # pragma: no cover - compiled
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        forward(c * total // nchunks, (c + 1) * total // nchunks, inp, grid, mode, padding, align, out)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def backward_parallel(total, nchunks, gout, inp, grid, mode, padding, align, gin, ggrid, want_in,
                      want_grid):  # pragma: no cover - compiled
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        backward(c * total // nchunks, (c + 1) * total // nchunks, gout, inp, grid, mode, padding, align, gin, ggrid,
                 want_in, want_grid)
        work[c] = now_ns() - t0
    return work.min() * nchunks - (now_ns() - t)


def grid_sampler_2d(inp: Any, grid: Any, mode: int, padding: int, align: bool, out: Any) -> None:
    x, g, o = numpy_view(inp), numpy_view(grid), numpy_view(out)
    if o.size == 0:
        return
    n, q = g.shape[0], g.shape[1]
    parallel_for(forward, forward_parallel, n * q, x, g, mode, padding, align, o, work=o.size * 4)


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
    parallel_for(backward, backward_parallel, x.shape[0], go, x, g, mode, padding, align, gin, ggr,
                 grad_input is not None, grad_grid is not None, work=go.size * 8)
