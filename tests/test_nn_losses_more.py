"""The other losses (Poisson and Gaussian NLL, soft margin, margin ranking, hinge embedding,
multilabel soft margin), functional and modules, against torch: values and gradients for each
reduction, edge values, reprs and error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional
REDUCTIONS = ("none", "mean", "sum")


def rand(shape, seed=0, scale=1.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


def compare(jfn, tfn, arrays, grads, tol=1e-10):
    js = [jtorch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    ts = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    jy, ty = jfn(*js), tfn(*ts)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    g = rand(tuple(ty.shape), 5)
    jy.backward(jtorch.tensor(g)), ty.backward(torch.tensor(g))
    for i in grads:
        np.testing.assert_allclose(js[i].grad.numpy(), ts[i].grad.numpy(), rtol=tol, atol=tol)


SIGNS = np.where(rand((4, 5), 3) > 0, 1.0, -1.0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,make,kw,grads", [
    ("poisson_nll_loss", lambda: [rand((4, 5)), np.abs(rand((4, 5), 1)) * 3], {}, (0, 1)),
    ("poisson_nll_loss", lambda: [np.abs(rand((4, 5))) + 0.1, np.abs(rand((4, 5), 1)) * 3],
     {"log_input": False, "full": True}, (0,)),
    ("soft_margin_loss", lambda: [rand((4, 5)), SIGNS], {}, (0,)),
    ("hinge_embedding_loss", lambda: [rand((4, 5)), SIGNS], {"margin": 0.5}, (0,)),
    ("multilabel_soft_margin_loss", lambda: [rand((4, 5), 0, 3.0), (rand((4, 5), 1) > 0) * 1.0], {}, (0, 1)),
])
def test_losses(name, make, kw, grads, reduction):
    compare(lambda *a: getattr(F, name)(*a, reduction=reduction, **kw),
            lambda *a: getattr(TF, name)(*a, reduction=reduction, **kw), make(), grads)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_and_multilabel_weight(reduction):
    a, b = rand((6,)), rand((6,), 1)
    b[0] = a[0]  # on the hinge
    compare(lambda x, y, t: F.margin_ranking_loss(x, y, t, margin=0.2, reduction=reduction),
            lambda x, y, t: TF.margin_ranking_loss(x, y, t, margin=0.2, reduction=reduction),
            [a, b, np.array([1.0, -1, 1, -1, 1, 1])], (0, 1))
    w = np.abs(rand((5,), 4))
    compare(lambda x, t, c: F.multilabel_soft_margin_loss(x, t, weight=c, reduction=reduction),
            lambda x, t, c: TF.multilabel_soft_margin_loss(x, t, weight=c, reduction=reduction),
            [rand((4, 5)), (rand((4, 5), 1) > 0) * 1.0, w], (0, 2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
def test_gaussian_nll(var_shape, reduction):
    var = np.abs(rand(var_shape, 2)) + 1e-8
    var.reshape(-1)[0] = 0.0  # clamped to eps
    for full in (False, True):
        compare(lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=full, reduction=reduction),
                lambda x, t, v: TF.gaussian_nll_loss(x, t, v, full=full, reduction=reduction),
                [rand((4, 3)), rand((4, 3), 1), var], (0, 1, 2))
    compare(lambda x, t: F.gaussian_nll_loss(x, t, 0.5, reduction=reduction),
            lambda x, t: TF.gaussian_nll_loss(x, t, 0.5, reduction=reduction), [rand((4, 3)), rand((4, 3), 1)], (0,))


def raises_like(jcall, tcall):
    with pytest.raises(Exception) as texc:
        tcall()
    with pytest.raises(type(texc.value)) as jexc:
        jcall()
    assert str(jexc.value) == str(texc.value).replace("torch.Size", "jtorch.Size")


ERRORS = [
    lambda m, f: f.poisson_nll_loss(m.zeros(3), m.zeros(3), reduction="x"),
    lambda m, f: f.gaussian_nll_loss(m.zeros(3), m.zeros(3), m.ones(2)),
    lambda m, f: f.gaussian_nll_loss(m.zeros(3), m.zeros(3), -1.0),
    lambda m, f: f.gaussian_nll_loss(m.zeros(3), m.zeros(3), -m.ones(3)),
    lambda m, f: f.gaussian_nll_loss(m.zeros(3), m.zeros(3), m.ones(3), reduction="x"),
    lambda m, f: f.soft_margin_loss(m.zeros(3), m.zeros(3), reduction="x"),
    lambda m, f: f.margin_ranking_loss(m.zeros(3), m.zeros(3, 1), m.zeros(3)),
    lambda m, f: f.hinge_embedding_loss(m.zeros(3), m.zeros(3), reduction="x"),
    lambda m, f: f.multilabel_soft_margin_loss(m.zeros(3, 2), m.zeros(3, 2), reduction="x"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    raises_like(lambda: ERRORS[case](jtorch, F), lambda: ERRORS[case](torch, TF))


@pytest.mark.parametrize("name,kw", [("PoissonNLLLoss", {"log_input": False}), ("GaussianNLLLoss", {"full": True}),
                                     ("SoftMarginLoss", {}), ("MarginRankingLoss", {"margin": 0.5}),
                                     ("HingeEmbeddingLoss", {"reduction": "sum"}), ("MultiLabelSoftMarginLoss", {})])
def test_modules(name, kw):
    jm, tm = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    args = {"PoissonNLLLoss": [np.abs(rand((3, 2))) + 0.1, np.abs(rand((3, 2), 1))],
            "GaussianNLLLoss": [rand((3, 2)), rand((3, 2), 1), np.abs(rand((3, 2), 2))],
            "MarginRankingLoss": [rand((3,)), rand((3,), 1), np.array([1.0, -1.0, 1.0])],
            }.get(name, [rand((3, 2)), SIGNS[:3, :2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(jm, tm, args, (0,))
