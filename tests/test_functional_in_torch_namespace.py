"""The torch-namespace names of nn functions (torch.batch_norm, torch.layer_norm, torch.group_norm,
torch.instance_norm, torch.rms_norm, torch.dropout(_), torch.embedding, torch.embedding_renorm_,
torch.kl_div, torch.binary_cross_entropy_with_logits, torch.hinge_embedding_loss,
torch.margin_ranking_loss, torch.poisson_nll_loss, torch.bilinear, torch.cosine_similarity,
torch.pairwise_distance) with torch's positional
signatures: values, gradients, running statistics, reductions (and their defaults) and error texts
against torch (recorded); each agrees with its nn.functional counterpart.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F
from _torch_compare import same_as_torch, same_error_as_torch

X = np.linspace(-2, 2, 60).reshape(4, 3, 5)
T3 = np.linspace(0.05, 0.95, 60).reshape(4, 3, 5)


def test_normalisations_against_torch() -> None:
    def fn(T: Any) -> list:
        x = T.tensor(X, requires_grad=True)
        w = T.tensor(np.linspace(0.5, 1.5, 3), requires_grad=True)
        b = T.tensor(np.linspace(-1, 1, 3), requires_grad=True)
        lw = T.tensor(np.linspace(0.5, 1.5, 5), requires_grad=True)
        rm, rv = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        outs = [T.batch_norm(x, w, b, rm, rv, True, 0.2, 1e-5, False),
                T.batch_norm(x, None, None, rm, rv, False, 0.1, 1e-3, True),
                T.layer_norm(x, [5], lw, None, 1e-5, True), T.layer_norm(x, (3, 5)),
                T.group_norm(x, 3, w, b, 1e-5, True), T.group_norm(x, 1),
                T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                T.rms_norm(x, [5], lw, 1e-6), T.rms_norm(x, [3, 5])]
        sum(((o * (i + 1) * T.tensor(X)).sum() for i, o in enumerate(outs)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + [rm, rv, x.grad, w.grad, b.grad, lw.grad]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_losses_against_torch() -> None:
    def fn(T: Any) -> list:
        x = T.tensor(X, requires_grad=True)
        y = T.tensor(T3)
        sign = T.tensor(np.sign(X + 0.1))
        outs = []
        for r in (0, 1, 2):
            outs += [T.kl_div(x, y, r), T.kl_div(x, y.log(), r, log_target=True),
                     T.binary_cross_entropy_with_logits(x, y, None, None, r),
                     T.binary_cross_entropy_with_logits(x, y, T.tensor(np.linspace(0, 1, 5)),
                                                        T.tensor(np.linspace(1, 3, 5)), r),
                     T.hinge_embedding_loss(x, sign, 0.5, r), T.margin_ranking_loss(x, y, sign, 0.2, r),
                     T.poisson_nll_loss(x, y, True, False, 1e-8, r), T.poisson_nll_loss(x.abs(), y, False, True, 1e-6, r)]
        defaults = [T.kl_div(x, y), T.binary_cross_entropy_with_logits(x, y), T.hinge_embedding_loss(x, sign),
                    T.margin_ranking_loss(x, y, sign)]
        sum((o.sum() * (i + 1) for i, o in enumerate(outs + defaults)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + defaults + [x.grad]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_embedding_bilinear_dropout_against_torch() -> None:
    def fn(T: Any) -> list:
        w = T.tensor(np.linspace(-1, 1, 15).reshape(5, 3), requires_grad=True)
        idx = T.tensor([[0, 2, 4], [4, 4, 1]])
        e = T.embedding(w, idx)
        p = T.embedding(w, idx, 4)
        (e.sum() + (p * 2).sum()).backward()
        big = T.tensor(np.linspace(1, 6, 15).reshape(5, 3))
        v0 = big._version
        r = T.embedding_renorm_(big, T.tensor([0, 3, 3]), 2.0, 2.0)
        x1 = T.tensor(np.linspace(-1, 1, 8).reshape(2, 4), requires_grad=True)
        x2 = T.tensor(np.linspace(0, 2, 6).reshape(2, 3), requires_grad=True)
        bw = T.tensor(np.linspace(-1, 1, 24).reshape(2, 4, 3), requires_grad=True)
        bl = T.bilinear(x1, x2, bw, T.tensor([0.5, -0.5], dtype=T.float64))
        bl.sum().backward()
        x = T.tensor(X)
        return [e, p, w.grad, big, r, big._version - v0, bl, x1.grad, bw.grad,
                T.dropout(x, 0.3, False), T.dropout(x, 0.0, True), T.dropout_(x.clone(), 0.5, False)]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_pair_losses_against_torch() -> None:
    a = np.linspace(-1, 2, 12).reshape(4, 3)

    def fn(T: Any) -> list:
        x = T.tensor(a, requires_grad=True)
        y = T.tensor(a[::-1].copy(), requires_grad=True)
        n = T.tensor(a * 2 - 0.5)
        t = T.tensor([1.0, -1.0, 1.0, -1.0])
        outs = [T.pdist(x), T.pdist(x, 1.5), T.pdist(x, 0), T.pdist(x, float("inf")), T.pdist(x[:1]),
                T.cosine_embedding_loss(x, y, t, 0.1, 1), T.cosine_embedding_loss(x, y, t),
                T.cosine_embedding_loss(x[0], y[0], T.tensor(-1.0), -0.5, 2),
                T.triplet_margin_loss(x, y, n, 1.0, 2.0, 1e-6, True, 1), T.triplet_margin_loss(x, y, n),
                T.nn.functional.triplet_margin_loss(x, y, n, margin=0.5, p=1, swap=True, reduction="sum"),
                T.nn.functional.cosine_embedding_loss(x, y, t, reduction="none"), T.nn.functional.pdist(x, 3)]
        sum((o.sum() * (i + 1) for i, o in enumerate(outs)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + [x.grad, y.grad]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_pdist_gradcheck() -> None:
    x = jtorch.randn(5, 3, dtype=jtorch.float64, requires_grad=True)
    for p in (1, 1.5, 2, 3):
        assert jtorch.autograd.gradcheck(lambda t: jtorch.pdist(t, p), (x,))
    assert jtorch.pdist(x).grad_fn.name() == "PdistBackward0"


@pytest.mark.parametrize("call", [
    lambda T: T.pdist(T.ones(2, 3, 4)),
    lambda T: T.pdist(T.ones(2, 3, dtype=T.long)),
    lambda T: T.pdist(T.ones(2, 3), -1),
    lambda T: T.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 1)),
    lambda T: T.cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(2)),
    lambda T: T.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.tensor(1.0)),
    lambda T: T.triplet_margin_loss(T.ones(2, 3), T.ones(3), T.ones(2, 3)),
    lambda T: T.nn.functional.triplet_margin_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), margin=0),
    lambda T: T.feature_dropout(T.ones(3), 0.5, True),
    lambda T: T.ctc_loss(T.zeros(6, 3, 5), T.ones(3, 2, dtype=T.long), [7, 6, 6], [2, 2, 2]),
    lambda T: T.nn.functional.ctc_loss(T.zeros(6, 3, 5), T.ones(3, 2, dtype=T.long), [6, 6], [2, 2, 2]),
    lambda T: T.alpha_dropout(T.ones(3), 2.0, True),
    lambda T: T.nn.functional.alpha_dropout(T.ones(3), -1.0),
])
def test_pair_loss_and_dropout_errors(call: Any) -> None:
    same_error_as_torch(call)


def test_ctc_loss_against_torch() -> None:
    logits = np.sin(np.arange(90.0)).reshape(6, 3, 5) * 2

    def fn(T: Any) -> list:
        x = T.tensor(logits, requires_grad=True)
        lp = x.log_softmax(2)
        padded = T.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
        outs = [T.nn.functional.ctc_loss(lp, padded, [6, 5, 6], [3, 2, 2], reduction=r) for r in ("none", "mean", "sum")]
        outs += [T.ctc_loss(lp, padded, [6, 5, 6], [3, 2, 2]), T.ctc_loss(lp, padded, [6, 6, 4], [3, 0, 2], 0, 1),
                 T.ctc_loss(lp, T.tensor([1, 2, 1, 3, 3, 2]), T.tensor([6, 5, 6]), T.tensor([2, 1, 3]), 4, 2),
                 T.nn.functional.ctc_loss(lp[:, 0], T.tensor([1, 2]), [6], [2], reduction="none"),
                 T.nn.functional.ctc_loss(lp[:2], padded, [2, 2, 2], [3, 2, 2], zero_infinity=True,
                                          reduction="none")]
        sum((o.sum() * (i + 1) for i, o in enumerate(outs)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + [x.grad]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_dropout_variants_against_torch_where_deterministic() -> None:
    def fn(T: Any) -> list:
        x = T.tensor(X)
        return [T.alpha_dropout(x, 0.5, False), T.feature_dropout(x, 0.5, False), T.feature_alpha_dropout(x, 0.0, True),
                T.alpha_dropout(x, 1.0, True), T.feature_dropout(x, 1.0, True), T.feature_alpha_dropout_(x.clone(), 1, True),
                T.nn.functional.alpha_dropout(x, 1.0, True), T.nn.functional.feature_alpha_dropout(x, 0.3)]

    same_as_torch(fn)


def test_feature_and_alpha_dropout_in_training() -> None:
    x = jtorch.ones(200, 8, 3, dtype=jtorch.float64)
    y = jtorch.feature_dropout(x, 0.5, True)
    per_channel = y.amax(-1)
    assert jtorch.equal(y.amin(-1), per_channel)  # one draw per (sample, channel)
    assert set(per_channel.unique().tolist()) <= {0.0, 2.0}
    z = jtorch.randn(100000, dtype=jtorch.float64)
    a = jtorch.alpha_dropout(z, 0.3, True)
    assert abs(a.mean().item()) < 0.02 and abs(a.var().item() - 1) < 0.03  # self-normalising: N(0, 1) kept
    f = jtorch.feature_alpha_dropout(jtorch.ones(50, 4, 2), 0.5, True)
    assert jtorch.equal(f.amin(-1), f.amax(-1)) and f.unique().numel() == 2
    w = jtorch.ones(4, 4)
    assert jtorch.feature_dropout_(w, 0.5, True) is w and jtorch.alpha_dropout_(w, 0.5, True) is w


def test_dropout_in_training_scales_the_kept_elements() -> None:
    x = jtorch.ones(2000, dtype=jtorch.float64)
    y = jtorch.dropout(x, 0.25, True)
    kept = y != 0
    assert jtorch.allclose(y[kept], jtorch.full_like(y[kept], 1 / 0.75))
    assert 0.2 < 1 - kept.double().mean().item() < 0.3
    z = x.clone()
    assert jtorch.dropout_(z, 0.5, True) is z and (z == 0).any()
    t = jtorch.ones(3)
    assert jtorch.dropout(t, 0.5, False) is t


def test_every_name_is_reached_from_jtorch() -> None:
    from jtorch import nn_functions_in_torch

    assert set(nn_functions_in_torch.__all__) == jtorch._NN_FUNCTIONS
    assert all(getattr(jtorch, n) is getattr(nn_functions_in_torch, n) for n in nn_functions_in_torch.__all__)
    assert jtorch._NN_FUNCTIONS <= set(dir(jtorch))


def test_aten_forms_skip_the_python_level_checks_as_torch() -> None:
    def fn(T: Any) -> list:
        x = T.tensor(np.linspace(-1, 1, 12).reshape(2, 3, 2))
        return [T.batch_norm(x[:1, :, 0], None, None, None, None, True, 0.1, 1e-5, False),
                T.instance_norm(x[:, :, :1], None, None, None, None, True, 0.1, 1e-5, False),
                T.group_norm(x[:1, :, :1], 3), T.binary_cross_entropy_with_logits(x[0, :, 0], x[:, :, 0].sigmoid())]

    same_as_torch(fn)
    with pytest.raises(ValueError):
        F.batch_norm(jtorch.ones(1, 3), None, None, training=True)


def test_same_as_nn_functional() -> None:
    x = jtorch.tensor(X)
    w, b = jtorch.linspace(0.5, 1.5, 3, dtype=jtorch.float64), jtorch.linspace(-1, 1, 3, dtype=jtorch.float64)
    assert jtorch.equal(jtorch.layer_norm(x, [5]), F.layer_norm(x, [5]))
    assert jtorch.equal(jtorch.group_norm(x, 3, w, b), F.group_norm(x, 3, w, b))
    assert jtorch.equal(jtorch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                        F.batch_norm(x, None, None, w, b, True))
    assert jtorch.equal(jtorch.kl_div(x, x.exp(), 2), F.kl_div(x, x.exp(), reduction="sum"))


@pytest.mark.parametrize("call", [
    lambda T: T.dropout(T.ones(3), 1.5, True),
    lambda T: T.dropout_(T.ones(3), -0.1, False),
    lambda T: T.layer_norm(T.ones(2, 3), [4]),
    lambda T: T.group_norm(T.ones(2, 3, 4), 2),
    lambda T: T.rms_norm(T.ones(2, 3), [2]),
    lambda T: T.batch_norm(T.ones(2, 3), None, None, T.zeros(4), T.ones(3), False, 0.1, 1e-5, False),
])
def test_errors(call: Any) -> None:
    same_error_as_torch(call)


def test_distances_against_torch() -> None:
    def fn(T: Any) -> list:
        a = T.tensor(X, requires_grad=True)
        b = T.tensor(T3, requires_grad=True)
        outs = [T.cosine_similarity(a, b), T.cosine_similarity(a, b[:1], 2, 1e-3), T.cosine_similarity(a[0], b[0], 0),
                T.pairwise_distance(a[0], b[0]), T.pairwise_distance(a[0], b[0], 1.0, 1e-3, True),
                T.pairwise_distance(a, b, 3.0)]
        sum(((o * (i + 1)).sum() for i, o in enumerate(outs)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + [a.grad, b.grad]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)
    x, y = jtorch.tensor(X), jtorch.tensor(T3)
    assert jtorch.equal(jtorch.cosine_similarity(x, y, 2), F.cosine_similarity(x, y, 2))
    assert jtorch.equal(jtorch.pairwise_distance(x, y), F.pairwise_distance(x, y))
