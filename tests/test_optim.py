"""jtorch.optim: trajectories equal to torch's for 20 steps, state dicts in torch's format, torch's errors.

The known-answer vectors (more-facts.md E) run without torch; the trajectory comparisons need torch.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import jtorch
from jtorch import optim
from _torch_oracle import live_torch, oracle_torch

P0 = [1.0, -2.0]
GRADS = ([0.5, -1.0], [0.1, 0.3], [-0.2, 0.0])
VECTORS = [
    ("Adam", dict(lr=0.1), [[0.9, -1.9], [0.8196959, -1.8572152], [0.7852606, -1.8241423]]),
    ("AdamW", dict(lr=0.1), [[0.899, -1.898], [0.8177969, -1.8533173], [0.7825438, -1.8183911]]),
    ("SGD", dict(lr=0.1, momentum=0.9), [[0.95, -1.9], [0.895, -1.84], [0.8655, -1.786]]),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True), [[0.905, -1.81], [0.8455, -1.786], [0.83895, -1.7374]]),
    ("RMSprop", dict(lr=0.01), [[0.9, -1.9], [0.8802934, -1.9288675], [0.9171211, -1.9288675]]),
]


@pytest.mark.parametrize("name,kw,expected", VECTORS)
def test_known_vectors(name, kw, expected):
    p = jtorch.tensor(P0, requires_grad=True)
    opt = getattr(optim, name)([p], **kw)
    for g, want in zip(GRADS, expected):
        p.grad = jtorch.tensor(g)
        opt.step()
        np.testing.assert_allclose(p.tolist(), want, rtol=0, atol=1e-6)


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
]


def _trajectory(lib, name, kw, dtype, steps=20):
    """20 steps on two parameters; the gradient depends on the parameter so errors would compound."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 4))
    b0 = rng.standard_normal(4)
    noise = rng.standard_normal((steps, 3, 4))
    w = lib.tensor(w0, dtype=dtype, requires_grad=True)
    b = lib.tensor(b0, dtype=dtype, requires_grad=True)
    opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": kw.get("lr", 0.01) * 0.5}], **kw)
    out = []
    for k in range(steps):
        w.grad = lib.tensor(np.sin(w.detach().numpy()) + noise[k], dtype=dtype)
        b.grad = lib.tensor(np.cos(3 * b.detach().numpy()) - 0.2, dtype=dtype)
        opt.step()
        out.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return out, opt


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_trajectory_equals_torch(name, kw, dt):
    torch = oracle_torch()
    ours, _ = _trajectory(jtorch, name, kw, getattr(jtorch, dt))
    theirs, _ = _trajectory(torch, name, kw, getattr(torch, dt))
    tol = dict(rtol=2e-6, atol=2e-7) if dt == "float32" else dict(rtol=1e-12, atol=1e-13)
    for (w1, b1), (w2, b2) in zip(ours, theirs):
        np.testing.assert_allclose(w1, w2, **tol)
        np.testing.assert_allclose(b1, b2, **tol)


def _plain(x):
    """A state dict with tensors replaced by nested lists (comparable across libraries)."""
    if hasattr(x, "tolist") and not isinstance(x, (int, float)):
        return ("tensor", str(x.dtype).split(".")[-1], x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


@pytest.mark.parametrize("name,kw", [CONFIGS[1], CONFIGS[4], CONFIGS[9], CONFIGS[11]])
def test_state_dict_matches_torch(name, kw):
    torch = live_torch("the state dicts hold torch's tensors in nested containers")
    _, ours = _trajectory(jtorch, name, kw, jtorch.float64, steps=3)
    _, theirs = _trajectory(torch, name, kw, torch.float64, steps=3)
    a, b = _plain(ours.state_dict()), _plain(theirs.state_dict())
    assert a["param_groups"] == b["param_groups"]
    assert a["state"].keys() == b["state"].keys()
    for k in a["state"]:
        assert a["state"][k].keys() == b["state"][k].keys()
        for key in a["state"][k]:
            ta, tb = a["state"][k][key], b["state"][k][key]
            assert ta[1] == tb[1], key
            np.testing.assert_allclose(ta[2], tb[2], rtol=1e-12)
    assert repr(ours).replace("jtorch", "torch") == repr(theirs)


def test_load_state_dict_resumes_trajectory():
    rng = np.random.default_rng(0)
    w = jtorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    opt = optim.Adam([w], lr=0.05, amsgrad=True)
    for _ in range(2):
        w.grad = jtorch.ones(3, 4, dtype=jtorch.float64)
        opt.step()
    sd = copy.deepcopy(opt.state_dict())  # load_state_dict keeps the tensors it is given, as torch's
    w2 = jtorch.tensor(w.detach().numpy(), requires_grad=True)
    opt2 = optim.Adam([w2], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.05 and opt2.param_groups[0]["params"][0] is w2
    for o, p in ((opt, w), (opt2, w2)):
        p.grad = jtorch.full((3, 4), 0.3, dtype=jtorch.float64)
        o.step()
    np.testing.assert_array_equal(w.detach().numpy(), w2.detach().numpy())
    assert opt2.state[w2]["step"].item() == 3.0


def test_load_state_dict_casts_to_param_dtype():
    p = jtorch.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    sd = {"state": {0: {"momentum_buffer": jtorch.ones(2, dtype=jtorch.float64)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    assert opt.state[p]["momentum_buffer"].dtype == jtorch.float32


def test_load_state_dict_errors():
    p, q = jtorch.zeros(2, requires_grad=True), jtorch.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    two = optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict has a different number of parameter groups$"):
        opt.load_state_dict(two.state_dict())
    both = optim.SGD([p, q], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that doesn't match the size of optimizer's group$"):
        opt.load_state_dict(both.state_dict())


def test_constructor_errors():
    p = jtorch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="^params argument given to the optimizer should be an iterable of Tensors or dicts, but got "):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="^Nesterov momentum requires a momentum and zero dampening$"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="^Invalid learning rate: -1$"):
        optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match=r"^Invalid beta parameter at index 1: 1.0$"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="^Invalid alpha value: -0.1$"):
        optim.RMSprop([p], alpha=-0.1)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="^optimizer can only optimize Tensors, but one of the params is builtins.int$|^optimizer can only optimize Tensors, but one of the params is int$"):
        optim.SGD([1], lr=0.1)


def test_add_param_group():
    p, q = jtorch.zeros(2, requires_grad=True), jtorch.zeros(3, requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.5)
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter group$"):
        opt.add_param_group({"params": p})
    with pytest.raises(TypeError, match="^param_group must be a dict, but got <class 'list'>$"):
        opt.add_param_group([q])
    with pytest.raises(TypeError, match="ordering of tensors in sets will change between runs"):
        opt.add_param_group({"params": {q}})
    opt.add_param_group({"params": q, "lr": 0.2})
    assert opt.param_groups[1]["lr"] == 0.2 and opt.param_groups[1]["momentum"] == 0.5
    assert opt.param_groups[1]["params"] == [q] or opt.param_groups[1]["params"][0] is q
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([q, q], lr=0.1)


def test_zero_grad_and_step_runs_without_grad():
    p = jtorch.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert p.requires_grad and p.grad_fn is None and p.tolist() == [0.0, 0.0]
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None
    assert jtorch.is_grad_enabled()


def test_closure_and_hooks():
    p = jtorch.tensor([2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.25)
    calls = []
    h = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 4.0 and p.tolist() == [1.0] and calls == ["pre", "post"]
    h.remove()
    opt.step(closure)
    assert calls == ["pre", "post", "post"]


def test_user_optimizer_subclass_keeps_grad_mode_and_hooks():
    seen = []

    class Mine(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def step(self, closure=None):
            seen.append(jtorch.is_grad_enabled())  # torch leaves grad mode alone for user steps

    opt = Mine([jtorch.zeros(1, requires_grad=True)])
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))
    opt.step()
    assert seen == [True, "post"]
