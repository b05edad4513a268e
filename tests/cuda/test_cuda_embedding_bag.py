"""EmbeddingBag and Embedding's options on CUDA: the same composite kernels run on the device and give
the CPU's values and gradients (tiny sizes for the simulator)."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_cuda_matches_cpu(cuda, mode):
    jtorch.manual_seed(0)
    w = jtorch.randn(4, 2)
    idx, off = jtorch.tensor([1, 3, 3, 0]), jtorch.tensor([0, 1, 1])
    psw = jtorch.tensor([0.5, 2.0, 1.0, -1.0]) if mode == "sum" else None
    res = []
    for dev in ("cpu", "cuda"):
        weight = w.to(dev).detach().requires_grad_()
        out = F.embedding_bag(idx.to(dev), weight, off.to(dev), mode=mode, padding_idx=0,
                              per_sample_weights=None if psw is None else psw.to(dev))
        assert out.device.type == dev
        out.sum().backward()
        res.append((_np(out), _np(weight.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_embedding_scale_grad_and_max_norm_cuda(cuda):
    jtorch.manual_seed(1)
    w = jtorch.randn(3, 2) * 3
    res = []
    for dev in ("cpu", "cuda"):
        weight = w.clone().to(dev).detach().requires_grad_()
        out = F.embedding(jtorch.tensor([2, 2, 1]).to(dev), weight, scale_grad_by_freq=True, max_norm=1.0)
        out.sum().backward()
        res.append((_np(out), _np(weight.grad), _np(weight)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
