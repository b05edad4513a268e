"""Activations, losses and normalisation on CUDA tensors (the simulator's tiny sizes): the same
jtorch calls as on the CPU, same values and gradients, results on the device, and batch norm's
running statistics updated in place on the device."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F

X = np.random.default_rng(0).standard_normal((4, 3))
T = np.array([0, 2, 1, 1])

CASES = {
    "relu6": lambda x, t: F.relu6(x).sum(),
    "elu": lambda x, t: F.elu(x).sum(),
    "softplus": lambda x, t: F.softplus(x, beta=2.0).sum(),
    "logsigmoid": lambda x, t: F.logsigmoid(x).sum(),
    "hardswish": lambda x, t: F.hardswish(x).sum(),
    "cross_entropy": lambda x, t: F.cross_entropy(x, t),
    "cross_entropy_ignore": lambda x, t: F.cross_entropy(x, t, ignore_index=1, label_smoothing=0.1),
    "bce_with_logits": lambda x, t: F.binary_cross_entropy_with_logits(x, x.detach().sigmoid()),
    "bce": lambda x, t: F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid() * 0.5),
    "smooth_l1": lambda x, t: F.smooth_l1_loss(x, x.detach() * 0.5),
    "batch_norm": lambda x, t: (F.batch_norm(x, None, None, training=True) ** 2).sum(),
    "layer_norm": lambda x, t: (F.layer_norm(x, [3]) ** 2).sum(),
    "group_norm": lambda x, t: (F.group_norm(x.reshape(2, 2, 3), 2) ** 2).sum(),
}


def run(fn, device):
    x = jtorch.tensor(X, device=device, requires_grad=True)
    y = fn(x, jtorch.tensor(T, device=device))
    y.backward()
    assert y.device.type == device and x.grad.device.type == device
    return y.detach().cpu().numpy(), x.grad.cpu().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_cpu(name):
    (vc, gc), (vg, gg) = run(CASES[name], "cpu"), run(CASES[name], "cuda")
    np.testing.assert_allclose(vg, vc, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gg, gc, rtol=1e-12, atol=1e-12)


def test_batch_norm_module_running_stats_on_device():
    mods = [nn.BatchNorm1d(3).double(), nn.BatchNorm1d(3).double().cuda()]
    for step in range(2):
        for m, dev in zip(mods, ("cpu", "cuda")):
            m(jtorch.tensor(X * (step + 1), device=dev))
    for (k, vc), (_, vg) in zip(mods[0].state_dict().items(), mods[1].state_dict().items()):
        assert vg.device.type == "cuda", k
        np.testing.assert_allclose(vg.cpu().numpy(), vc.numpy(), rtol=1e-12)
