"""nn core on CUDA: the same module and functional code runs on the device, with the CPU's results
(tiny sizes for the simulator)."""
from __future__ import annotations

import numpy as np

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F


def _np(t):
    return t.detach().cpu().numpy()


def test_module_cuda_forward_backward_match_cpu(cuda):
    jtorch.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(3, 2), nn.Flatten(0))
    x = jtorch.randn(2, 3)
    y = cpu(x)
    y.sum().backward()
    dev = nn.Sequential(nn.Linear(3, 2), nn.Flatten(0))
    dev.load_state_dict(cpu.state_dict())
    w = dev[0].weight
    dev.cuda()
    assert dev[0].weight is w and w.device.type == "cuda" and type(w) is nn.Parameter
    yd = dev(x.cuda())
    yd.sum().backward()
    np.testing.assert_allclose(_np(yd), _np(y), rtol=1e-6)
    np.testing.assert_allclose(_np(dev[0].weight.grad), _np(cpu[0].weight.grad), rtol=1e-6)
    total = nn.utils.clip_grad_norm_(dev.parameters(), 0.1)
    assert total.device.type == "cuda"
    dev.cpu()
    assert dev[0].weight.device.type == "cpu" and dev[0].weight.grad.device.type == "cpu"


def test_functional_on_cuda_match_cpu(cuda):
    jtorch.manual_seed(1)
    x = jtorch.randn(1, 1, 2, 3)
    for fn in (lambda t: F.pad(t, (1, 2, 1, 0), mode="reflect"), lambda t: F.pad(t, (1, 0, 0, 1), value=2.0),
               lambda t: F.interpolate(t, size=(3, 4), mode="bilinear"), lambda t: F.normalize(t, dim=-1)):
        np.testing.assert_allclose(_np(fn(x.cuda())), _np(fn(x)), rtol=1e-6, atol=1e-7)
    idx = jtorch.tensor([0, 2, 2])
    w = jtorch.randn(3, 2)
    np.testing.assert_array_equal(_np(F.embedding(idx.cuda(), w.cuda(), padding_idx=0)), _np(F.embedding(idx, w)))
    np.testing.assert_array_equal(_np(F.one_hot(idx.cuda(), 3)), _np(F.one_hot(idx, 3)))


def test_init_and_dropout_on_cuda(cuda):
    jtorch.manual_seed(2)
    lin = nn.Linear(4, 3, device=cuda)
    assert lin.weight.device.type == "cuda" and float(_np(lin.weight).__abs__().max()) <= 0.5
    y = nn.Dropout(0.5)(jtorch.ones(16, device=cuda))
    assert set(np.unique(_np(y))) <= {0.0, 2.0}
