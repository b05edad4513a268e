"""The row body of softmax's and log_softmax's backward (PyTorch's SoftMaxKernel.cpp,
*_backward_lastdim), a plain function each backend compiles for its target: the CPU loops over
rows in chunks, CUDA runs one row per thread."""
from __future__ import annotations

import math


def softmax_backward_row(log, n, g, a, o, b, r, c):
    """One row of n elements at offsets a (grad_output g), b (output o), c (grad_input r):
    log_softmax gI = g - exp(out) * sum(g); softmax gI = out * (g - sum(g * out)); sums in float64."""
    s = 0.0
    if log:
        for j in range(n):
            s += g[a + j]
        for j in range(n):
            r[c + j] = g[a + j] - math.exp(o[b + j]) * s
    else:
        for j in range(n):
            s += g[a + j] * o[b + j]
        for j in range(n):
            r[c + j] = o[b + j] * (g[a + j] - s)
