"""Issue 11 bench rows for convolution (run: PYTHONPATH=. python bench/bench_nn_conv.py).

1. Conv2d(1,16,3)+ReLU+MaxPool2d(2) forward+backward on 64x1x28x28 float32, jtorch against torch
   (same process, same machine; torch at 1 thread and at its default), target <= 2x torch.
2. The convolution engine: jtorch's im2col + BLAS forward against a direct Numba loop (written
   here, serial like im2col) on the bench shape and on a wider layer, to justify the choice.
"""
from __future__ import annotations

import os
import time

import numba
import numpy as np


def _median(fn, reps=30, warm=3):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def step_time(lib) -> float:
    lib.manual_seed(0)
    conv, pool = lib.nn.Conv2d(1, 16, 3), lib.nn.MaxPool2d(2)
    x = lib.randn(64, 1, 28, 28)

    def step():
        conv.weight.grad = conv.bias.grad = None
        pool(conv(x).relu()).sum().backward()

    return _median(step)


@numba.njit(nogil=True, cache=True)
def direct_conv(x, w, out):
    N, C, H, W = x.shape
    O, _, KH, KW = w.shape
    OH, OW = out.shape[2], out.shape[3]
    for n in range(N):
        for o in range(O):
            for y in range(OH):
                for xo in range(OW):
                    out[n, o, y, xo] = 0
            for c in range(C):
                for i in range(KH):
                    for j in range(KW):
                        wv = w[o, c, i, j]
                        for y in range(OH):
                            for xo in range(OW):
                                out[n, o, y, xo] += wv * x[n, c, y + i, xo + j]


def engines(shape, wshape) -> tuple:
    import jtorch
    import jtorch.nn.functional as F

    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(wshape).astype(np.float32)
    out = np.empty((shape[0], wshape[0], shape[2] - wshape[2] + 1, shape[3] - wshape[3] + 1), np.float32)
    jx, jw = jtorch.tensor(x), jtorch.tensor(w)
    t_im2col = _median(lambda: F.conv2d(jx, jw))
    t_direct = _median(lambda: direct_conv(x, w, out))
    np.testing.assert_allclose(out, F.conv2d(jx, jw).numpy(), rtol=1e-3, atol=1e-3)
    return t_im2col, t_direct


def main() -> None:
    import torch

    import jtorch

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (shared: other processes run)")
    default = torch.get_num_threads()
    for rnd in range(2):  # alternate, so that load changes hit both libraries alike
        times = {}
        for threads in (1, default):
            torch.set_num_threads(threads)
            times[threads] = step_time(torch)
        j = step_time(jtorch)
        for threads, t in times.items():
            print(f"round {rnd}: conv+relu+maxpool fwd+bwd 64x1x28x28 float32: jtorch {j * 1e3:.2f} ms, torch "
                  f"({threads} thread{'s' if threads > 1 else ''}) {t * 1e3:.2f} ms, ratio {j / t:.2f} (target <= 2)")
    for shape, wshape in (((64, 1, 28, 28), (16, 1, 3, 3)), ((64, 16, 14, 14), (32, 16, 3, 3))):
        a, b = engines(shape, wshape)
        print(f"conv2d forward {shape} * {wshape}: im2col+BLAS {a * 1e3:.2f} ms, direct Numba loop {b * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
