"""Pooling windows along one dim, as plain functions each backend compiles for its target (the CPU
with numba.njit, CUDA as device functions): PyTorch's start/end index arithmetic of
MaxPoolKernel, AvgPoolKernel and AdaptivePooling.h."""
from __future__ import annotations


def max_window(o: int, s: int, p: int, k: int, d: int, size: int) -> tuple[int, int]:
    """(first, end) input index of output `o`'s dilated window, clipped to [0, size): first is
    the first tap at or after 0, end one past the last possible tap."""
    a = o * s - p
    b = min(a + (k - 1) * d + 1, size)
    while a < 0:
        a += d
    return a, b


def avg_window(o: int, s: int, p: int, k: int, size: int) -> tuple[int, int, int]:
    """(start, end, padded size) of output `o`'s window, start and end clipped to the input; the
    padded size (clipped to the padding) is count_include_pad's divisor."""
    a = o * s - p
    b = min(a + k, size + p)
    full = b - a
    return max(a, 0), min(b, size), full


def avg_divisor(h0: int, h1: int, hf: int, w0: int, w1: int, wf: int, include_pad: bool, divisor: int) -> int:
    """avg_pool2d's divisor of a window: divisor_override, else the padded or the clipped area."""
    if divisor != 0:
        return divisor
    if include_pad:
        return hf * wf
    return (h1 - h0) * (w1 - w0)


def adaptive_window(o: int, size: int, out_size: int) -> tuple[int, int]:
    """(start, end) of output `o`'s window in adaptive pooling: floor(o * size / out_size) to
    ceil((o + 1) * size / out_size)."""
    return (o * size) // out_size, ((o + 1) * size + out_size - 1) // out_size


def window_sum(x, base, W, h0, h1, w0, w1, zero):  # pragma: no cover - compiled
    """Sum of rows h0..h1 x columns w0..w1 of the (., W) plane at x[base:], from `zero` (typed:
    a float32 sum stays float32, as torch's), in torch's order."""
    s = zero
    for ih in range(h0, h1):
        for iw in range(w0, w1):
            s += x[base + ih * W + iw]
    return s


def window_max(x, base, W, h0, nh, dh, w0, nw, dw):  # pragma: no cover - compiled
    """(maximum, flat index h * W + w) over nh x nw taps (steps dh, dw) of the (., W) plane at
    x[base:]; a NaN wins, the last one's index, as torch's. The first tap starts the running
    maximum (torch starts from -inf and the first index: the same result, and no float64 in a
    float32 loop). A NaN test in the loop makes it 3x slower on the CPU (measured), so the loop only
    collects whether the window holds a NaN (or an inf: v * 0 is NaN for both) and such windows
    are redone with the NaN rule."""
    best = h0 * W + w0
    m = x[base + best]
    nan = m * 0
    for a in range(nh):
        row = (h0 + a * dh) * W + w0
        for b in range(nw):
            k = row + b * dw
            v = x[base + k]
            nan += v * 0
            if v > m:
                m = v
                best = k
    if nan != nan:
        best = h0 * W + w0
        m = x[base + best]
        for a in range(nh):
            row = (h0 + a * dh) * W + w0
            for b in range(nw):
                k = row + b * dw
                v = x[base + k]
                if v > m or v != v:
                    m = v
                    best = k
    return m, best
