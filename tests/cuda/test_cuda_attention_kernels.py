"""The CUDA attention kernels (kernels/cuda/attention.py) against the CPU ones and the float64 softmax
reference of tests/test_attention_kernels.py: tiny sizes (the simulator runs a thread per row)."""
from __future__ import annotations

import numpy as np
import pytest
from test_attention_kernels import TOL, _inputs, _reference  # tests/ is on sys.path (conftest)

import jtorch
from jtorch.backends import backend


def _run_on(dev, dtype, q, k, v, mask, causal, scale, do):
    b = backend(dev)
    jq, jk, jv, jdo = (jtorch.from_numpy(np.ascontiguousarray(x)).to(dev) for x in (q, k, v, do))
    N, L, _ = q.shape
    jm = None if mask is None else jtorch.from_numpy(mask).to(dev).expand(N, L, k.shape[1])
    jdt = jtorch.float32 if dtype == np.float32 else jtorch.float64
    out = jtorch.empty(N, L, v.shape[2], dtype=jdt, device=dev)
    lse = jtorch.empty(N, L, dtype=jdt, device=dev)
    b.attention_forward(jq, jk, jv, jm, causal, scale, out, lse)
    grads = [jtorch.full(x.shape, 7.0, dtype=jdt, device=dev) for x in (q, k, v)]
    b.attention_backward(jdo, jq, jk, jv, jm, causal, scale, out, lse, *grads)
    return [t.cpu().numpy() for t in (out, lse, *grads)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mask_kind", [None, "broadcast"])
def test_cuda_attention_matches_reference_and_cpu(cuda, dtype, causal, mask_kind):
    rng = np.random.default_rng(7)
    q, k, v, mask, do = _inputs(rng, dtype, 2, 5, 7, 3, 2, mask_kind)
    if mask is not None:
        mask[0, 1] = -np.inf  # a fully masked row: 0 and logsumexp 0, zero gradients
    got = _run_on(cuda.type, dtype, q, k, v, mask, causal, 0.4, do)
    cpu = _run_on("cpu", dtype, q, k, v, mask, causal, 0.4, do)
    out, lse, grads = _reference(q, k, v, mask, causal, 0.4, do)
    rtol, atol = TOL[dtype]
    for g, c, r in zip(got, cpu, [out, lse, *grads]):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, r, rtol=rtol * 10, atol=atol * 10)
        np.testing.assert_allclose(g, c, rtol=rtol * 10, atol=atol * 10)
