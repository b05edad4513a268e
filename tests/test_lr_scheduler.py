"""jtorch.optim.lr_scheduler: learning rates (and cycled momentum) equal to torch's, step by step."""
from __future__ import annotations

import math
import warnings

import pytest

import jtorch
from jtorch.optim import SGD, lr_scheduler
from _torch_oracle import oracle_torch


def _opt(lib, kind="sgd"):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.5}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.5), "sgd"),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3), "sgd"),
    ("ExponentialLR", dict(gamma=0.9), "sgd"),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01), "sgd"),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (e + 1)), "sgd"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=25), "sgd"),
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], total_steps=25, three_phase=True, anneal_strategy="linear"), "adam"),
    ("OneCycleLR", dict(max_lr=0.3, epochs=3, steps_per_epoch=8, pct_start=0.25), "adam"),
]


def _run(lib, name, kw, kind, steps):
    opt = _opt(lib, kind)
    sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
    out = [(sched.get_last_lr(), [g.get("momentum", g.get("betas")) for g in opt.param_groups])]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append((sched.get_last_lr(), [g.get("momentum", g.get("betas")) for g in opt.param_groups]))
    return out, sched


@pytest.mark.parametrize("name,kw,kind", SCHEDULES, ids=[f"{s[0]}-{i}" for i, s in enumerate(SCHEDULES)])
def test_schedule_equals_torch(name, kw, kind):
    torch = oracle_torch()
    steps = 24 if name == "OneCycleLR" else 30
    ours, s1 = _run(jtorch, name, kw, kind, steps)
    theirs, s2 = _run(torch, name, kw, kind, steps)
    assert ours == theirs  # exact: the same float operations in the same order
    sd1, sd2 = s1.state_dict(), s2.state_dict()
    assert sd1.keys() == sd2.keys()
    assert {k: v for k, v in sd1.items() if k not in ("lr_lambdas", "_schedule_phases")} == \
        {k: v for k, v in sd2.items() if k not in ("lr_lambdas", "_schedule_phases")}


def test_known_values_without_torch():
    opt = _opt(jtorch)
    s = lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    lrs = []
    for _ in range(5):
        lrs.append(s.get_last_lr()[0])
        opt.step()
        s.step()
    assert lrs == pytest.approx([0.1, 0.1, 0.01, 0.01, 0.001])
    opt = _opt(jtorch)
    s = lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    for e in range(1, 5):
        opt.step()
        s.step()
        assert s.get_last_lr()[0] == pytest.approx(0.1 * (1 + math.cos(math.pi * e / 4)) / 2, abs=1e-15)


def test_onecycle_cycles_momentum_and_ends():
    opt = _opt(jtorch)
    s = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["lr"] == pytest.approx(1.0 / 25) and opt.param_groups[0]["momentum"] == 0.95
    for _ in range(9):
        opt.step()
        s.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(1.0 / 25 / 1e4)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)
    opt.step()
    s.step()
    with pytest.raises(ValueError, match="^Tried to step 11 times. The specified number of total steps is 10$"):
        s.step()
    with pytest.raises(ValueError, match=r"^You must define either total_steps OR \(epochs AND steps_per_epoch\)$"):
        lr_scheduler.OneCycleLR(_opt(jtorch), max_lr=1.0)


def test_reduce_on_plateau():
    opt = _opt(jtorch)
    s = lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1, min_lr=[0.0, 0.2])
    seen = []
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95]:
        s.step(metric)
        seen.append(s.get_last_lr())
    assert seen[3] == [0.05, 0.25]  # third epoch without improvement (patience 1): halve
    assert seen[-1][1] == 0.2  # never below min_lr
    torch = oracle_torch()
    t = torch.optim.lr_scheduler.ReduceLROnPlateau(_opt(torch), patience=1, factor=0.5, cooldown=1, min_lr=[0.0, 0.2])
    want = []
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95]:
        t.step(metric)
        want.append(t.get_last_lr())
    assert seen == want
    assert s.state_dict().keys() == t.state_dict().keys()


def test_errors_and_warnings():
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        lr_scheduler.StepLR([], step_size=1)
    with pytest.raises(ValueError, match=r"^Factor should be < 1.0.$"):
        lr_scheduler.ReduceLROnPlateau(_opt(jtorch), factor=1.0)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(_opt(jtorch), step_size=1, last_epoch=3)
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
        lr_scheduler.LambdaLR(_opt(jtorch), [lambda e: 1.0])
    opt = _opt(jtorch)
    s = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    opt = _opt(jtorch)
    s = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        s.step(4)
    assert s.get_last_lr() == [0.1 * 0.5**4, 0.5 * 0.5**4]


def test_state_dict_round_trip():
    opt = _opt(jtorch)
    s = lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
    for _ in range(2):
        opt.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 2
    opt2 = SGD([jtorch.zeros(1, requires_grad=True)], lr=0.1)
    s2 = lr_scheduler.MultiStepLR(opt2, milestones=[7], gamma=0.5)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 2 and s2.milestones == s.milestones
