"""Recurrent layers on CUDA: the same modules on the device give the CPU's outputs and gradients (the fused
cell kernels and their backward run as generated CUDA kernels; tiny sizes for the simulator)."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn as nn
from jtorch.nn.utils import rnn as rnn_utils


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("cls,kw", [("LSTM", {"bidirectional": True}), ("GRU", {}), ("RNN", {"nonlinearity": "relu"}),
                                    ("LSTM", {"proj_size": 1})])
def test_layer_matches_cpu(cuda, cls, kw):
    jtorch.manual_seed(0)
    cpu = getattr(nn, cls)(2, 3, **kw)
    dev = getattr(nn, cls)(2, 3, **kw)
    dev.load_state_dict(cpu.state_dict())
    dev.cuda()
    x = jtorch.randn(2, 2, 2)
    xc = x.clone().requires_grad_()
    xd = x.cuda().requires_grad_()
    yc, _ = cpu(xc)
    yd, _ = dev(xd)
    assert yd.device.type == "cuda"
    np.testing.assert_allclose(_np(yd), _np(yc), rtol=1e-5, atol=1e-6)
    yc.sum().backward()
    yd.sum().backward()
    np.testing.assert_allclose(_np(xd.grad), _np(xc.grad), rtol=1e-5, atol=1e-6)
    for (n, p), q in zip(dev.named_parameters(), cpu.parameters()):
        assert p.grad.device.type == "cuda", n
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-5, atol=1e-6)


def test_packed_lstm_and_cell_match_cpu(cuda):
    jtorch.manual_seed(1)
    cpu = nn.LSTM(2, 2)
    dev = nn.LSTM(2, 2)
    dev.load_state_dict(cpu.state_dict())
    dev.cuda()
    x = jtorch.randn(3, 2, 2)
    pc = rnn_utils.pack_padded_sequence(x, [2, 3], enforce_sorted=False)
    pd = rnn_utils.pack_padded_sequence(x.cuda(), [2, 3], enforce_sorted=False)
    oc, (hc, _) = cpu(pc)
    od, (hd, _) = dev(pd)
    np.testing.assert_allclose(_np(od.data), _np(oc.data), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(hd), _np(hc), rtol=1e-5, atol=1e-6)
    cell = nn.GRUCell(2, 2)
    cd = nn.GRUCell(2, 2)
    cd.load_state_dict(cell.state_dict())
    cd.cuda()
    np.testing.assert_allclose(_np(cd(x[0].cuda())), _np(cell(x[0])), rtol=1e-5, atol=1e-6)
