"""Optimizers step CUDA parameters to the same numbers as CPU parameters (device-generic updates)."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch


@pytest.mark.parametrize("name,kw", [
    ("Adam", dict(lr=0.1, amsgrad=True)), ("AdamW", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1, weight_decay=0.1)),
])
def test_cuda_steps_equal_cpu_steps(cuda, name, kw):
    pc = jtorch.tensor([1.0, -2.0], device=cuda, requires_grad=True)
    p = jtorch.tensor([1.0, -2.0], requires_grad=True)
    oc, o = getattr(jtorch.optim, name)([pc], **kw), getattr(jtorch.optim, name)([p], **kw)
    for g in ([0.5, -1.0], [0.1, 0.3], [-0.2, 0.0]):
        pc.grad = jtorch.tensor(g, device=cuda)
        p.grad = jtorch.tensor(g)
        oc.step()
        o.step()
    assert pc.device.type == "cuda" and pc.cpu().tolist() == p.tolist()
    state = oc.state_dict()["state"][0]
    assert all(v.device.type == "cuda" for k, v in state.items() if k != "step" and hasattr(v, "device"))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_cuda_fused_adam_equals_the_loop(cuda, name):
    """The default (fused, one `_fused_adam_` call through the CUDA elementwise stub) and
    foreach=False (torch's op-per-line loop) give the same numbers on the device."""
    ps = [jtorch.tensor([[1.0, -2.0], [0.5, 3.0]], device=cuda, requires_grad=True) for _ in range(2)]
    fused = getattr(jtorch.optim, name)([ps[0]], lr=0.1, amsgrad=True, weight_decay=0.1)
    loop = getattr(jtorch.optim, name)([ps[1]], lr=0.1, amsgrad=True, weight_decay=0.1, foreach=False)
    for k in range(3):
        for p in ps:
            p.grad = jtorch.tensor([[0.5, -1.0], [0.1 * k, 0.3]], device=cuda)
        fused.step()
        loop.step()
    # equal up to rounding: on a GPU the compiler contracts a*b+c into one FMA in the fused kernel
    np.testing.assert_allclose(ps[0].detach().cpu().numpy(), ps[1].detach().cpu().numpy(), rtol=1e-6, atol=0)
    assert ps[1].cpu().tolist() != [[1.0, -2.0], [0.5, 3.0]]
