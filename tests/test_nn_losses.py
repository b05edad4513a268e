"""jtorch.nn.functional losses and the loss modules against torch: values and gradients (input
and, where torch has one, target) in float32 and float64 for every reduction, class weights,
ignore_index, label smoothing, class-probability targets, K-dim inputs, edge inputs (BCE at
exactly 0 and 1, logits of +-100), warnings, error texts and reprs.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional
REDUCTIONS = ("none", "mean", "sum")
TOL = {np.float32: 3e-5, np.float64: 1e-10}


def pair(a, requires_grad=False):
    a = np.asarray(a)
    return (jtorch.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def compare(jfn, tfn, arrays, tol, grads=(0,)):
    """jfn(*jtorch tensors) against tfn(*torch tensors): value, then the gradients of the
    arguments listed in `grads` for a random upstream gradient."""
    js, ts = zip(*(pair(a, i in grads) for i, a in enumerate(arrays)))
    jy, ty = jfn(*js), tfn(*ts)
    assert tuple(jy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(7).standard_normal(tuple(ty.shape)).astype(arrays[0].dtype)
    jy.backward(jtorch.tensor(g))
    ty.backward(torch.tensor(g))
    for i in grads:
        np.testing.assert_allclose(js[i].grad.numpy(), ts[i].grad.numpy(), rtol=tol, atol=tol)


def rand(shape, dtype, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}),
                                     ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
                                     ("huber_loss", {}), ("huber_loss", {"delta": 2.0})])
def test_regression(name, kw, reduction, dtype):
    x, y = rand((4, 5), dtype, 0, 2.0), rand((4, 5), dtype, 1, 2.0)
    y[0, :3] = x[0, :3]  # zero differences
    y[1, 0], y[1, 1] = x[1, 0] + 1.0, x[1, 1] - 0.5  # differences at beta and delta
    compare(lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kw),
            lambda a, b: getattr(TF, name)(a, b, reduction=reduction, **kw), [x, y], TOL[dtype], grads=(0, 1))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_regression_weight_and_broadcast(name):
    x, y, w = rand((3, 4), np.float64, 0), rand((3, 4), np.float64, 1), np.abs(rand((3, 4), np.float64, 2))
    for reduction in REDUCTIONS:
        compare(lambda a, b, c: getattr(F, name)(a, b, reduction=reduction, weight=c),
                lambda a, b, c: getattr(TF, name)(a, b, reduction=reduction, weight=c), [x, y, w], 1e-12, (0, 2))
    text = ("Using a target size (torch.Size([4])) that is different to the input size (torch.Size([3, 4])). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.")
    with pytest.warns(UserWarning) as rec:
        got = getattr(F, name)(jtorch.tensor(x), jtorch.tensor(y[0]))
    assert str(rec[0].message) == text.replace("torch.Size", "jtorch.Size") or str(rec[0].message) == text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(TF, name)(torch.tensor(x), torch.tensor(y[0]))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


CE_CASES = [
    {}, {"ignore_index": 1}, {"weight": True}, {"weight": True, "ignore_index": 2}, {"label_smoothing": 0.1},
    {"label_smoothing": 0.3, "weight": True, "ignore_index": 0},
]


def _ce_args(kw, n_classes, dtype):
    jkw, tkw = dict(kw), dict(kw)
    if kw.get("weight"):
        w = np.linspace(0.5, 2.0, n_classes).astype(dtype)
        jkw["weight"], tkw["weight"] = jtorch.tensor(w), torch.tensor(w)
    return jkw, tkw


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", range(len(CE_CASES)))
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5), (2, 4, 3, 2), (4,)])
def test_cross_entropy_indices(shape, case, reduction, dtype):
    kw = CE_CASES[case]
    x = rand(shape, dtype, 3, 3.0)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = np.random.default_rng(4).integers(0, shape[0 if len(shape) == 1 else 1], tshape)
    jkw, tkw = _ce_args(kw, shape[0 if len(shape) == 1 else 1], dtype)
    jt, tt = pair(t)
    compare(lambda a: F.cross_entropy(a, jt, reduction=reduction, **jkw),
            lambda a: TF.cross_entropy(a, tt, reduction=reduction, **tkw), [x], TOL[dtype])
    if not kw.get("label_smoothing"):  # nll_loss on the same log-probabilities
        lp = torch.log_softmax(torch.tensor(x), 0 if len(shape) == 1 else 1).numpy()
        compare(lambda a: F.nll_loss(a, jt, reduction=reduction, **jkw),
                lambda a: TF.nll_loss(a, tt, reduction=reduction, **tkw), [lp], TOL[dtype])


def test_cross_entropy_all_ignored_and_extremes():
    x = rand((3, 4), np.float32, 0)
    x[0, 0], x[1, 2] = 80.0, -80.0
    for t in ([-100, -100, -100], [0, 2, 3], [0, -100, 3]):
        for reduction in REDUCTIONS:
            jt, tt = pair(np.array(t))
            compare(lambda a: F.cross_entropy(a, jt, reduction=reduction),
                    lambda a: TF.cross_entropy(a, tt, reduction=reduction), [x], 3e-5)
    # uint8 targets are accepted as class indices
    jt, tt = pair(np.array([1, 0, 3], dtype=np.uint8))
    compare(lambda a: F.cross_entropy(a, jt), lambda a: TF.cross_entropy(a, tt), [x], 3e-5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.2}, {"weight": True}])
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4), (3,)])
def test_cross_entropy_probabilities(shape, kw, reduction):
    x = rand(shape, np.float64, 5, 2.0)
    p = np.random.default_rng(6).random(shape)
    p /= p.sum(axis=0 if len(shape) == 1 else 1, keepdims=True)
    jkw, tkw = _ce_args(kw, shape[0 if len(shape) == 1 else 1], np.float64)
    compare(lambda a, b: F.cross_entropy(a, b, reduction=reduction, **jkw),
            lambda a, b: TF.cross_entropy(a, b, reduction=reduction, **tkw), [x, p], 1e-12, grads=(0, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction, dtype):
    x = np.random.default_rng(0).random((4, 5)).astype(dtype)
    y = np.random.default_rng(1).random((4, 5)).astype(dtype)
    # torch's clamped logs and its max(x (1 - x), 1e-12) gradient (its epsilon differs from the
    # double 1e-12 by a float rounding: 1e-7 relative)
    x[0, :4] = [0.0, 1.0, 0.0, 1.0]
    y[0, :4] = [0.0, 1.0, 1.0, 0.0]
    w = np.random.default_rng(2).random((5,)).astype(dtype)
    compare(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
            lambda a, b: TF.binary_cross_entropy(a, b, reduction=reduction), [x, y], max(TOL[dtype], 1e-7))
    x[0, :4] = [1e-3, 0.999, 0.5, 0.25]  # no edges for the target's gradient (torch's is -logit(x))
    compare(lambda a, b, c: F.binary_cross_entropy(a, b, weight=c, reduction=reduction),
            lambda a, b, c: TF.binary_cross_entropy(a, b, weight=c, reduction=reduction), [x, y, w], TOL[dtype],
            grads=(0, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(reduction, dtype):
    x = rand((4, 3), dtype, 0, 3.0)
    x[0] = [100.0, -100.0, 0.0]
    y = np.random.default_rng(1).random((4, 3)).astype(dtype)
    w, pw = np.abs(rand((3,), dtype, 2)), np.abs(rand((3,), dtype, 3)) + 0.5
    compare(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction),
            lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction=reduction), [x, y], TOL[dtype], (0, 1))
    compare(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, weight=c, pos_weight=d, reduction=reduction),
            lambda a, b, c, d: TF.binary_cross_entropy_with_logits(a, b, weight=c, pos_weight=d, reduction=reduction),
            [x, y, w, pw], TOL[dtype], (0, 1))


@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean", "mean"])
def test_kl_div(reduction, log_target):
    x = np.log(np.random.default_rng(0).dirichlet(np.ones(4), size=3))
    y = np.random.default_rng(1).dirichlet(np.ones(4), size=3)
    y[0, 1] = 0.0  # xlogy(0, 0) = 0
    if log_target:
        y = np.log(y + 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target),
                lambda a, b: TF.kl_div(a, b, reduction=reduction, log_target=log_target), [x, y], 1e-12)
    if reduction == "mean":
        with pytest.warns(UserWarning, match="^reduction: 'mean' divides the total loss by both the batch size"):
            F.kl_div(jtorch.tensor(x), jtorch.tensor(y), reduction="mean")


def raises_like(jcall, tcall):
    with pytest.raises(Exception) as texc:
        tcall()
    with pytest.raises(type(texc.value)) as jexc:
        jcall()
    assert str(jexc.value) == str(texc.value).replace("torch.Size", "jtorch.Size")


ERROR_CASES = [
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 4])),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, -1, 2])),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, 1])),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0.0, 1, 2])),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.zeros(3, 4, dtype=m.int64)),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.zeros(3, 4), ignore_index=2),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.zeros(3, 5)),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 3]), weight=m.ones(3)),
    lambda m, f: f.cross_entropy(m.zeros(2, 3, 4), m.zeros(2, 5, dtype=m.int64)),
    lambda m, f: f.cross_entropy(m.zeros(2, 3, 4, 4), m.zeros(2, 4, dtype=m.int64)),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 3]), label_smoothing=1.5),
    lambda m, f: f.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 3]), reduction="avg"),
    lambda m, f: f.nll_loss(m.zeros(3, 4), m.tensor([0, 1, 3], dtype=m.int32)),
    lambda m, f: f.nll_loss(m.zeros(3, 4), m.tensor([0, 1, 9])),
    lambda m, f: f.nll_loss(m.zeros(4), m.tensor([1, 2])),
    lambda m, f: f.nll_loss(m.tensor(1.0), m.tensor(1)),
    lambda m, f: f.nll_loss(m.zeros(3, 4), m.zeros(3, 2, dtype=m.int64)),
    lambda m, f: f.mse_loss(m.zeros(3, 4), m.zeros(3, 4), reduction="avg"),
    lambda m, f: f.mse_loss(m.zeros(3, 4), m.zeros(3, 4), weight=m.ones(4)),
    lambda m, f: f.binary_cross_entropy(m.tensor([0.5, 1.5]), m.tensor([0.0, 1.0])),
    lambda m, f: f.binary_cross_entropy(m.tensor([0.5, 0.5]), m.tensor([0.0, 1, 1])),
    lambda m, f: f.binary_cross_entropy_with_logits(m.tensor([0.5, 0.5]), m.tensor([0.0, 1, 1])),
    lambda m, f: f.smooth_l1_loss(m.zeros(3), m.zeros(3), beta=-1.0),
    lambda m, f: f.huber_loss(m.zeros(3), m.zeros(3), delta=0.0),
    lambda m, f: f.kl_div(m.zeros(3), m.zeros(3), reduction="avg"),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors(case):
    fn = ERROR_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_like(lambda: fn(jtorch, F), lambda: fn(torch, TF))


MODULES = [
    ("MSELoss", {}), ("L1Loss", {"reduction": "sum"}), ("SmoothL1Loss", {"beta": 0.5}), ("HuberLoss", {"delta": 2.0}),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}), ("CrossEntropyLoss", {"ignore_index": 1}), ("NLLLoss", {}),
    ("BCELoss", {}), ("BCEWithLogitsLoss", {}), ("KLDivLoss", {"reduction": "batchmean"}),
    ("KLDivLoss", {"log_target": True, "reduction": "sum"}),
]


@pytest.mark.parametrize("name,kw", MODULES)
def test_modules(name, kw):
    jm, tm = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(jm) == repr(tm)
    x = np.random.default_rng(0).random((4, 3))
    if name in ("CrossEntropyLoss", "NLLLoss"):
        y = np.array([0, 2, 1, 1])
        grads = (0,)
    else:
        y = np.random.default_rng(1).random((4, 3))
        grads = (0, 1)
    compare(jm, tm, [x, y], 1e-12, grads)
    assert jm.reduction == tm.reduction
    assert list(jm.state_dict()) == list(tm.state_dict())


def test_module_weights_are_buffers():
    w = np.array([1.0, 2.0, 0.5])
    for name in ("CrossEntropyLoss", "NLLLoss", "BCELoss"):
        jm, tm = getattr(nn, name)(weight=jtorch.tensor(w)), getattr(torch.nn, name)(weight=torch.tensor(w))
        assert list(jm.state_dict()) == list(tm.state_dict()) == ["weight"]
    jm = nn.BCEWithLogitsLoss(pos_weight=jtorch.tensor(w))
    tm = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(w))
    assert list(jm.state_dict()) == list(tm.state_dict())
    assert repr(jm) == repr(tm)


def test_training_steps_match_torch():
    """A digits-like model (Linear, BatchNorm1d, ReLU, Linear, CrossEntropyLoss), same weights,
    five plain SGD steps by hand: same losses, same parameters and buffers, same repr."""
    def build(m):
        return m.nn.Sequential(m.nn.Linear(8, 16), m.nn.BatchNorm1d(16), m.nn.ReLU(), m.nn.Linear(16, 10))
    jm, tm = build(jtorch), build(torch)
    assert repr(jm) == repr(tm)
    with torch.no_grad():
        for (name, jp), tp in zip(jm.state_dict().items(), tm.state_dict().values()):
            jp.copy_(jtorch.tensor(tp.numpy()))
    jl, tl = nn.CrossEntropyLoss(label_smoothing=0.05), torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for step in range(5):
        x, t = rand((32, 8), np.float32, step), np.random.default_rng(step).integers(0, 10, 32)
        losses = []
        for m, lf, mod in ((jm, jl, jtorch), (tm, tl, torch)):
            m.zero_grad()
            loss = lf(m(mod.tensor(x)), mod.tensor(t))
            loss.backward()
            with mod.no_grad():
                for p in m.parameters():
                    p -= 0.1 * p.grad
            losses.append(float(loss.detach()))
        assert abs(losses[0] - losses[1]) < 1e-5
    for (k, jv), (_, tv) in zip(jm.state_dict().items(), tm.state_dict().items()):
        np.testing.assert_allclose(jv.numpy(), tv.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("kw", [{}, {"ignore_index": 3}])
def test_cross_entropy_double_backward(reduction, kw):
    """A gradient penalty through cross_entropy: the fast path's backward under create_graph."""
    x, t = rand((8, 5), np.float64, 0), np.array([0, 1, 2, 3, 4, 0, 1, 2])
    grads = []
    for mod, fn in ((jtorch, F.cross_entropy), (torch, TF.cross_entropy)):
        a = mod.tensor(x, requires_grad=True)
        g, = mod.autograd.grad(fn(a * 2, mod.tensor(t), reduction=reduction, **kw), a, create_graph=True)
        (g * g).sum().backward()
        grads.append((g.detach().numpy(), a.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("legacy", [{"size_average": False}, {"reduce": False}, {"size_average": True, "reduce": True}])
def test_legacy_size_average_reduce(legacy):
    x, y = rand((3, 4), np.float64, 0), rand((3, 4), np.float64, 1)
    results = []
    for mod, fn in ((jtorch, F.mse_loss), (torch, TF.mse_loss)):
        with pytest.warns(UserWarning) as rec:
            r = fn(mod.tensor(x), mod.tensor(y), **legacy)
        results.append((r.numpy(), [str(w.message) for w in rec]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    assert results[0][1] == results[1][1]
    with pytest.warns(UserWarning):
        jm = nn.CrossEntropyLoss(**legacy)
    with pytest.warns(UserWarning):
        assert jm.reduction == torch.nn.CrossEntropyLoss(**legacy).reduction


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, 5), c=st.integers(1, 5), extra=st.lists(st.integers(1, 3), max_size=2),
       reduction=st.sampled_from(REDUCTIONS), ignore=st.sampled_from([-100, 0, 2]), weighted=st.booleans(),
       smoothing=st.sampled_from([0.0, 0.25]), seed=st.integers(0, 2**16))
def test_cross_entropy_property(n, c, extra, reduction, ignore, weighted, smoothing, seed):
    """Random shapes (empty batches and one class included), targets drawn with ignored entries,
    weights, smoothing: same loss and gradient as torch, or the same error."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, *extra)) * 3
    t = rng.integers(0, c, (n, *extra))
    if n and ignore == -100:
        t.reshape(-1)[0] = -100
    w = rng.random(c) + 0.1 if weighted else None
    out = []
    for mod, fn in ((jtorch, F.cross_entropy), (torch, TF.cross_entropy)):
        a = mod.tensor(x, requires_grad=True)
        try:
            y = fn(a, mod.tensor(t), weight=None if w is None else mod.tensor(w), ignore_index=ignore,
                   reduction=reduction, label_smoothing=smoothing)
        except Exception as e:  # noqa: BLE001  (compared below)
            out.append((type(e), str(e)))
            continue
        y.backward(mod.ones_like(y))
        out.append((y.detach().numpy(), a.grad.numpy()))
    if isinstance(out[1][0], type):
        assert out[0] == out[1]
        return
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)
