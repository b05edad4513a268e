"""Pooling windows along one dim, as plain functions each backend compiles for its target (the CPU
with numba.njit, CUDA as device functions): PyTorch's start/end index arithmetic of
MaxPoolKernel, AvgPoolKernel and AdaptivePooling.h. The window reductions walk a (D, H, W) volume;
2-d pooling is its depth-1 case."""
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


def avg_divisor(d0: int, d1: int, df: int, h0: int, h1: int, hf: int, w0: int, w1: int, wf: int,
                include_pad: bool, divisor: int) -> int:
    """avg_pool's divisor of a window: divisor_override, else the padded or the clipped volume."""
    if divisor != 0:
        return divisor
    if include_pad:
        return df * hf * wf
    return (d1 - d0) * (h1 - h0) * (w1 - w0)


def adaptive_window(o: int, size: int, out_size: int) -> tuple[int, int]:
    """(start, end) of output `o`'s window in adaptive pooling: floor(o * size / out_size) to
    ceil((o + 1) * size / out_size)."""
    return (o * size) // out_size, ((o + 1) * size + out_size - 1) // out_size


def window_sum(x, base, H, W, d0, d1, h0, h1, w0, w1, zero):  # pragma: no cover - compiled
    """Sum of the box d0..d1 x h0..h1 x w0..w1 of the (., H, W) volume at x[base:], from `zero`
    (typed: a float32 sum stays float32, as torch's), in torch's order."""
    s = zero
    for iz in range(d0, d1):
        for ih in range(h0, h1):
            row = base + (iz * H + ih) * W
            for iw in range(w0, w1):
                s += x[row + iw]
    return s


def window_max(x, base, H, W, d0, nd, dd, h0, nh, dh, w0, nw, dw):  # pragma: no cover - compiled
    """(maximum, flat index (z * H + h) * W + w) over nd x nh x nw taps (steps dd, dh, dw) of the
    (., H, W) volume at x[base:]; a NaN wins, the last one's index, as torch's. The first tap
    starts the running maximum (torch starts from -inf and the first index: the same result, and
    no float64 in a float32 loop). A NaN test in the loop makes it 3x slower on the CPU (measured),
    so the loop only collects whether the window holds a NaN (or an inf: v * 0 is NaN for both) and
    such windows are redone with the NaN rule."""
    best = (d0 * H + h0) * W + w0
    m = x[base + best]
    nan = m * 0
    for c in range(nd):
        for a in range(nh):
            row = ((d0 + c * dd) * H + h0 + a * dh) * W + w0
            for b in range(nw):
                k = row + b * dw
                v = x[base + k]
                nan += v * 0
                if v > m:
                    m = v
                    best = k
    if nan != nan:
        best = (d0 * H + h0) * W + w0
        m = x[base + best]
        for c in range(nd):
            for a in range(nh):
                row = ((d0 + c * dd) * H + h0 + a * dh) * W + w0
                for b in range(nw):
                    k = row + b * dw
                    v = x[base + k]
                    if v > m or v != v:
                        m = v
                        best = k
    return m, best
