"""quantile, nanquantile, nanmedian, cov, corrcoef and gradient on CUDA tensors (composites over the
CUDA sort, gather, lerp, mm and arithmetic kernels) against the same operators on the CPU."""
from __future__ import annotations

import numpy as np

import jtorch


def test_statistics_match_cpu(cuda) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, (3, 6)).astype(np.float32)
    a[0, 2] = a[2, :] = np.nan
    b = rng.standard_normal((3, 6))
    q = np.array([0.2, 0.5, 0.9], np.float32)
    fns = [
        lambda T, d: [jtorch.quantile(T(b, d), 0.3, 1, interpolation="midpoint")],
        lambda T, d: [jtorch.nanquantile(T(a, d), T(q, d), 1, keepdim=True)],
        lambda T, d: list(T(a, d).nanmedian(1)) + [T(a, d).nanmedian()],
        lambda T, d: [jtorch.cov(T(b, d), aweights=T(rng.random(6) + 0.1, d)), jtorch.corrcoef(T(b, d))],
        lambda T, d: list(jtorch.gradient(T(b, d), spacing=2.0, edge_order=2)),
    ]
    for f in fns:
        state = rng.bit_generator.state
        got = f(lambda x, d: jtorch.tensor(x, device=d), cuda)
        rng.bit_generator.state = state
        want = f(lambda x, d: jtorch.tensor(x, device=d), "cpu")
        for g, w in zip(got, want):
            assert g.device.type == "cuda" and g.dtype == w.dtype
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-5, equal_nan=True)
