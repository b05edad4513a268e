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


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_operators_on_device(reduction, weighted):
    """aten::nll_loss_forward / nll_loss_backward through the CUDA `loss` stub: the CPU's values."""
    rng = np.random.default_rng(reduction + 3 * weighted)
    x, t = rng.standard_normal((5, 4)), np.array([0, 3, -100, 2, 1])
    w = rng.random(4) + 0.5 if weighted else None
    res = {}
    for dev in ("cpu", "cuda"):
        jw = jtorch.tensor(w, device=dev) if weighted else None
        out, tw = jtorch.ops.aten.nll_loss_forward(jtorch.tensor(x, device=dev), jtorch.tensor(t, device=dev), jw,
                                                   reduction, -100)
        g = jtorch.ones(out.shape, dtype=out.dtype, device=dev)
        gi = jtorch.ops.aten.nll_loss_backward(g, jtorch.tensor(x, device=dev), jtorch.tensor(t, device=dev), jw,
                                               reduction, -100, tw)
        assert out.device.type == dev and gi.device.type == dev
        res[dev] = (out.cpu().numpy(), gi.cpu().numpy(), float(tw.cpu()) if reduction else 0.0)
    for a, b in zip(res["cpu"], res["cuda"]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_nll_loss_bad_target_on_device():
    with pytest.raises(IndexError, match=r"^Target 4 is out of bounds\.$"):
        jtorch.ops.aten.nll_loss_forward(jtorch.zeros(3, 4, device="cuda"), jtorch.tensor([0, 4, 1], device="cuda"),
                                         None, 1, -100)


@pytest.mark.parametrize("log", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_backward_on_device(log, dim):
    rng = np.random.default_rng(dim)
    x, g = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    got = {}
    for dev in ("cpu", "cuda"):
        out = jtorch.tensor(x, device=dev)
        out = out.log_softmax(dim) if log else out.softmax(dim)
        op = jtorch.ops.aten._log_softmax_backward_data if log else jtorch.ops.aten._softmax_backward_data
        r = op(jtorch.tensor(g, device=dev), out, dim, jtorch.float64)
        assert r.device.type == dev
        got[dev] = r.cpu().numpy()
    np.testing.assert_allclose(got["cuda"], got["cpu"], rtol=1e-12, atol=1e-12)
