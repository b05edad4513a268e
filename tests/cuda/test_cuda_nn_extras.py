"""The smaller nn pieces on CUDA (tiny sizes for the simulator): local response normalisation, channel
dropout, the margin losses, gumbel_softmax and a Lazy module created on the device."""
from __future__ import annotations

import numpy as np

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F


def _np(t):
    return t.detach().cpu().numpy()


def test_local_response_norm_and_margin_losses_match_cpu(cuda):
    jtorch.manual_seed(0)
    x = jtorch.randn(1, 3, 2)
    y = jtorch.tensor([2])
    scores = jtorch.randn(1, 3)
    for fn in (lambda t: F.local_response_norm(t, 2, 0.1),
               lambda t: F.multi_margin_loss(t.reshape(2, 3), jtorch.tensor([0, 2], device=t.device)),
               lambda t: F.multilabel_margin_loss(t.reshape(2, 3), jtorch.tensor([[1, -1, 0], [2, 0, -1]],
                                                                                  device=t.device))):
        cpu_x, dev_x = x.clone().requires_grad_(), x.cuda().requires_grad_()
        a, b = fn(cpu_x), fn(dev_x)
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(dev_x.grad), _np(cpu_x.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(F.multi_margin_loss(scores.cuda(), y.cuda())), _np(F.multi_margin_loss(scores, y)),
                               rtol=1e-6)


def test_channel_dropout_and_gumbel_on_device(cuda):
    jtorch.manual_seed(1)
    out = F.dropout2d(jtorch.ones(2, 3, 1, 2, device="cuda"), 0.5, True)
    assert out.device.type == "cuda"
    v = _np(out).reshape(6, 2)
    assert all(r[0] == r[1] and r[0] in (0.0, 2.0) for r in v)
    g = F.gumbel_softmax(jtorch.zeros(2, 3, device="cuda"), hard=True)
    np.testing.assert_array_equal(_np(g).sum(1), [1.0, 1.0])


def test_lazy_linear_materialises_on_the_device(cuda):
    m = nn.LazyLinear(2, device="cuda")
    y = m(jtorch.ones(1, 3, device="cuda"))
    assert type(m) is nn.Linear and m.weight.device.type == "cuda" and tuple(m.weight.shape) == (2, 3)
    assert y.device.type == "cuda"
