"""The CUDA Welford kernel (kernels/cuda/welford.py) against the CPU one: var/std/var_mean/std_mean
of rows near float32's largest value and rows holding inf/-inf/nan, per dim, float32 and float64
(rows shorter than the CPU's grain are folded in order on both, so the results are equal)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch

INF, NAN = float("inf"), float("nan")
ROWS = [[3e38, 3e38, 3e38], [1.0, INF, 2.0], [INF, 1.0, 2.0], [INF, -INF, 0.0], [1.0, NAN, 2.0], [1.0, 2.0, 4.0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_welford_matches_cpu(cuda, dtype) -> None:
    a = np.array(ROWS, dtype=dtype)
    x, y = jtorch.tensor(a), jtorch.tensor(a, device=cuda)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for f in (lambda t: jtorch.var_mean(t, 1), lambda t: jtorch.std_mean(t, 0, keepdim=True),
                  lambda t: jtorch.var_mean(t), lambda t: (t.var(1, correction=0), t.std(0)),
                  lambda t: (t.var(), t.std(correction=3))):
            for g, w in zip(f(y), f(x)):
                assert g.device.type == "cuda" and g.dtype == w.dtype
                np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-6, equal_nan=True)
