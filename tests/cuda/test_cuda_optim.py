"""Optimizers step CUDA parameters to the same numbers as CPU parameters (device-generic updates)."""
from __future__ import annotations

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
