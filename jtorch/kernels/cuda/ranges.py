"""The CUDA range kernels: arange and linspace values computed on the device, one thread per element.

    arange(out, start, step, chunk, vec)  out[i] = start + step * i (as the CPU rounds)
    linspace(out, start, end, steps)      from both ends, as torch's linspace kernels do

`out` is 1-D (any stride); start/step/end come converted as the CPU path converts them (arange:
int64 for integral dtypes, float32 for float16, float64 otherwise; linspace: the dtype's scalar). The arithmetic is
the CPU stub's (native/range_factories.py): int64 for integral arange (the store wraps); for floating arange ATen's
CPU kernel's Vectorized/tail formulas in the accumulate type (float32 for float16, float64
otherwise) with the CPU's chunk size and vector width passed in, so the values are the CPU's to
the bit (torch's own CUDA kernel computes start + step * i throughout); for
linspace a step in the dtype (float64 for integers, truncated), fused multiply-adds from both ends,
float16 rounding after each c10::Half operation, complex parts separately (two launches over the
real and imaginary parts as float views).

`cuda.fma` is one rounding on a GPU; the simulator's is `a * b + c` (two), so under the simulator
the kernels call an exactly rounded Python fma instead (they run as Python there).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numba import cuda

from . import driver


def _exact_fma(a: Any, b: Any, c: Any) -> Any:
    """a * b + c rounded once to the operands' float type (the simulator's stand-in for cuda.fma)."""
    t = type(c) if isinstance(c, (np.float32, np.float64)) else np.float64
    fa, fb, fc = float(a), float(b), float(c)
    if not (math.isfinite(fa) and math.isfinite(fb) and math.isfinite(fc)):
        return t(fa * fb + fc)
    x = Fraction(fa) * Fraction(fb) + Fraction(fc)
    r = t(float(x))  # correctly rounded to float64; float32 may be off by double rounding: fix below
    if t is np.float32 and math.isfinite(r):
        best = r
        for n in (np.nextafter(r, np.float32(-np.inf)), np.nextafter(r, np.float32(np.inf))):
            if math.isfinite(n):
                d, db = abs(Fraction(float(n)) - x), abs(Fraction(float(best)) - x)
                if d < db or (d == db and int(n.view(np.int32)) % 2 == 0):
                    best = n
        r = best
    return r


def _device_fma(a, b, c):
    return cuda.fma(a, b, c)


fma = _exact_fma if driver.SIMULATED else cuda.jit(device=True)(_device_fma)


@cuda.jit(cache=True)
def arange_int(out, off, st, n, start, step):
    i = cuda.grid(1)
    while i < n:
        out[off + i * st] = start + step * i
        i += cuda.gridsize(1)


@cuda.jit(cache=True)
def arange_f64(out, off, st, n, start, step, chunk, vec):
    # ATen's CPU arange_kernel, element by element: per parallel chunk of `chunk` elements, pairs of
    # Vectorized of `vec` lanes hold base + k * step with base = start + step * i0 rounded to the
    # output dtype (the thread's own slot does the rounding), and a scalar tail start + step * i.
    i = cuda.grid(1)
    while i < n:
        p = off + i * st
        b = (i // chunk) * chunk
        nv = ((min(n, b + chunk) - b) // (2 * vec)) * 2 * vec
        if i - b < nv:
            i0 = b + ((i - b) // vec) * vec
            out[p] = fma(step, np.float64(i0), start)
            out[p] = fma(np.float64(i - i0), step, np.float64(out[p]))
        else:
            out[p] = fma(step, np.float64(i), start)
        i += cuda.gridsize(1)


@cuda.jit(cache=True)
def arange_f32(out, off, st, n, start, step, chunk, vec):
    # arange_f64 with float32 arithmetic: float16's accumulate type
    i = cuda.grid(1)
    while i < n:
        p = off + i * st
        b = (i // chunk) * chunk
        nv = ((min(n, b + chunk) - b) // (2 * vec)) * 2 * vec
        if i - b < nv:
            i0 = b + ((i - b) // vec) * vec
            out[p] = fma(step, np.float32(i0), start)
            out[p] = fma(np.float32(i - i0), step, np.float32(out[p]))
        else:
            out[p] = fma(step, np.float32(i), start)
        i += cuda.gridsize(1)


@cuda.jit(cache=True)
def linspace_f64(out, off, st, n, start, end, step, halfway):
    # float64 values (integral outputs store them truncated, as the CPU's trunc + cast)
    i = cuda.grid(1)
    while i < n:
        if i < halfway:
            out[off + i * st] = fma(step, np.float64(i), start)
        else:
            out[off + i * st] = fma(-step, np.float64(n - 1 - i), end)
        i += cuda.gridsize(1)


@cuda.jit(cache=True)
def linspace_f32(out, off, st, n, start, end, step, halfway):
    i = cuda.grid(1)
    while i < n:
        if i < halfway:
            out[off + i * st] = fma(step, np.float32(i), start)
        else:
            out[off + i * st] = fma(-step, np.float32(n - 1 - i), end)
        i += cuda.gridsize(1)


@cuda.jit(cache=True)
def linspace_f16(out, off, st, n, start, end, step, halfway):
    # c10::Half arithmetic: each operation in float32, rounded to half. The thread's own output
    # slot (float16) does the rounding: store, then read back.
    i = cuda.grid(1)
    while i < n:
        p = off + i * st
        k = i if i < halfway else n - 1 - i
        out[p] = np.float32(k)
        out[p] = step * np.float32(out[p])
        if i < halfway:
            out[p] = start + np.float32(out[p])
        else:
            out[p] = end - np.float32(out[p])
        i += cuda.gridsize(1)


def arange(out: Any, start: Any, step: Any, chunk: int, vec: int) -> None:
    """out[i] = start + step * i, as the CPU rounds (see the module doc)."""
    n = out._size[0]
    if n == 0:
        return
    data, off, st = out._storage.data, out._offset, out._stride[0]
    dt = np.dtype(out._storage.data.dtype)
    if dt.kind in "iub":
        driver.launch(arange_int, n, data, off, st, n, np.int64(start), np.int64(step))
    elif dt == np.float16:  # accumulate type float32
        driver.launch(arange_f32, n, data, off, st, n, np.float32(start), np.float32(step), chunk, vec)
    else:  # float32 and float64 accumulate in float64
        driver.launch(arange_f64, n, data, off, st, n, np.float64(start), np.float64(step), chunk, vec)


def linspace(out: Any, start: Any, end: Any, steps: int) -> None:
    """From both ends, as torch's linspace kernels do (see the module doc)."""
    n = out._size[0]
    if n == 0:
        return
    data, off, st = out._storage.data, out._offset, out._stride[0]
    dt = np.dtype(out._storage.data.dtype)
    halfway = steps // 2
    with np.errstate(all="ignore"):
        if dt.kind in "iub":
            s, e = float(start), float(end)
            driver.launch(linspace_f64, n, data, off, st, n, s, e, (e - s) / (steps - 1), halfway)
        elif dt == np.float16:
            f, h = np.float32, np.float16
            step = f(h(f(end - start) / f(h(f(steps - 1)))))
            driver.launch(linspace_f16, n, data, off, st, n, f(start), f(end), step, halfway)
        elif dt.kind == "c":  # each part: the real kernel over a float view, stride 2
            r = np.dtype(np.float32 if dt == np.complex64 else np.float64)
            n1 = r.type(steps - 1)
            s, e = dt.type(start), dt.type(end)
            kernel = linspace_f64 if r == np.float64 else linspace_f32
            parts = out._storage.data.view(r)
            for k, (a, b) in enumerate(((s.real, e.real), (s.imag, e.imag))):
                driver.launch(kernel, n, parts, 2 * off + k, 2 * st, n, a, b, (b - a) / n1, halfway)
        else:
            t = dt.type
            s, e = t(start), t(end)
            kernel = linspace_f64 if dt == np.float64 else linspace_f32
            driver.launch(kernel, n, data, off, st, n, s, e, (e - s) / t(steps - 1), halfway)
