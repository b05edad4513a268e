"""MultiMarginLoss, MultiLabelMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss and
CosineEmbeddingLoss (modules and functions) against torch: values, input gradients, error texts."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as JF
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    """Normal values fixed by the shape and seed (not by which tests ran before: recordings replay alone)."""
    return np.random.default_rng((seed, *shape)).standard_normal(shape).astype(np.float32)


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("jtorch", "torch")
    return None


def _same(jfn, tfn, floats: list, ints: list = (), rtol: float = 1e-5) -> None:
    jf = [jtorch.tensor(a, requires_grad=True) for a in floats]
    tf = [torch.tensor(a, requires_grad=True) for a in floats]
    jy, ty = jfn(*jf, *[jtorch.tensor(i) for i in ints]), tfn(*tf, *[torch.tensor(i) for i in ints])
    assert tuple(jy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=1e-6)
    r = np.linspace(0.5, 1.5, max(int(np.prod(tuple(ty.shape))), 1)).reshape(tuple(ty.shape)).astype(floats[0].dtype)
    (jy * jtorch.tensor(r)).sum().backward()
    (ty * torch.tensor(r)).sum().backward()
    for a, b in zip(jf, tf):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss(p, reduction, weighted):
    x = _rand(4, 5) * 0.7
    y = np.array([0, 4, 2, 2])
    w = np.linspace(0.5, 2, 5).astype(np.float32)

    def f(lib, F):
        return lambda a, t: F.multi_margin_loss(a, t, p, 0.8, lib.tensor(w) if weighted else None,
                                                reduction=reduction)

    _same(f(jtorch, JF), f(torch, TF), [x], [y])
    jm = jtorch.nn.MultiMarginLoss(p, 0.8, jtorch.tensor(w) if weighted else None, reduction=reduction)
    tm = torch.nn.MultiMarginLoss(p, 0.8, torch.tensor(w) if weighted else None, reduction=reduction)
    _same(jm, tm, [x], [y])


@pytest.mark.parametrize("shape,target", [((5,), [3]), ((5,), 1), ((0, 5), np.zeros(0, dtype=np.int64))])
def test_multi_margin_loss_vector_and_empty(shape, target):
    x = _rand(*shape)
    for reduction in ("none", "sum") if x.size else ("none",):  # torch's empty sum reads unset memory
        j = JF.multi_margin_loss(jtorch.tensor(x), jtorch.tensor(target), reduction=reduction)
        t = TF.multi_margin_loss(torch.tensor(x), torch.tensor(target), reduction=reduction)
        assert tuple(j.shape) == tuple(t.shape)
        np.testing.assert_allclose(j.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(reduction):
    x = _rand(3, 5)
    y = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [0, 1, 2, 3, 4]])
    _same(lambda a, t: JF.multilabel_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.multilabel_margin_loss(a, t, reduction=reduction), [x], [y])
    _same(jtorch.nn.MultiLabelMarginLoss(reduction=reduction), torch.nn.MultiLabelMarginLoss(reduction=reduction),
          [x[0]], [y[0]])


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_triplet_losses(swap, reduction):
    a, p, n = (_rand(4, 3, seed=s) for s in range(3))
    _same(jtorch.nn.TripletMarginLoss(0.7, 1.5, swap=swap, reduction=reduction),
          torch.nn.TripletMarginLoss(0.7, 1.5, swap=swap, reduction=reduction), [a, p, n])
    _same(jtorch.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=swap, reduction=reduction),
          torch.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=swap, reduction=reduction), [a, p, n])

    def cos(lib, F):
        return lib.nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
                                                    margin=0.5, swap=swap, reduction=reduction)

    _same(cos(jtorch, JF), cos(torch, TF), [a, p, n])


def test_cosine_embedding_loss_module():
    a, b = _rand(4, 3), _rand(4, 3, seed=1)
    t = np.array([1.0, -1.0, -1.0, 1.0], dtype=np.float32)
    for reduction in ("mean", "sum", "none"):
        _same(lambda x, y: jtorch.nn.CosineEmbeddingLoss(0.2, reduction=reduction)(x, y, jtorch.tensor(t)),
              lambda x, y: torch.nn.CosineEmbeddingLoss(0.2, reduction=reduction)(x, y, torch.tensor(t)), [a, b])


_ERRORS = {
    "mm target size": lambda T, F: F.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1])),
    "mm target range": lambda T, F: F.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1, 4])),
    "mm weight size": lambda T, F: F.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1, 2]), weight=T.ones(3)),
    "mm rank": lambda T, F: F.multi_margin_loss(T.ones(2, 3, 4), T.tensor([0, 1])),
    "mm p": lambda T, F: F.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1, 2]), p=3),
    "mm float target": lambda T, F: F.multi_margin_loss(T.ones(3, 4), T.tensor([0.0, 1.0, 2.0])),
    "mm module weight": lambda T, F: T.nn.MultiMarginLoss(weight=T.ones(2, 2)),
    "ml target size": lambda T, F: F.multilabel_margin_loss(T.ones(3, 4), T.tensor([[0, 1]] * 3)),
    "ml target range": lambda T, F: F.multilabel_margin_loss(T.ones(3, 4), T.tensor([[0, 5, -1, 0]] * 3)),
    "ml rank": lambda T, F: F.multilabel_margin_loss(T.ones(2, 3, 4), T.tensor([3, -1, 0, 0])),
    "tm margin": lambda T, F: T.nn.TripletMarginLoss(margin=0),
    "tmd margin": lambda T, F: T.nn.TripletMarginWithDistanceLoss(margin=-1.0),
    "tmd reduction": lambda T, F: F.triplet_margin_with_distance_loss(T.ones(2), T.ones(2), T.ones(2),
                                                                      reduction="avg"),
    "tmd dims": lambda T, F: F.triplet_margin_with_distance_loss(T.ones(2, 3), T.ones(3), T.ones(2, 3)),
}


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_errors_match_torch(case):
    fn = _ERRORS[case]
    assert _errors(lambda: fn(jtorch, JF)) == _errors(lambda: fn(torch, TF))


@pytest.mark.parametrize("name,args,kwargs", [
    ("TripletMarginWithDistanceLoss", (), {"swap": True}), ("TripletMarginLoss", (0.5, 1.0), {}),
    ("MultiMarginLoss", (2, 0.5), {"reduction": "sum"}), ("MultiLabelMarginLoss", (), {}),
    ("CosineEmbeddingLoss", (0.1,), {}), ("CosineSimilarity", (0,), {}), ("PairwiseDistance", (1.0,), {}),
])
def test_module_repr_and_state(name, args, kwargs):
    jm, tm = getattr(jtorch.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in jm.named_modules()] == [n for n, _ in tm.named_modules()]
