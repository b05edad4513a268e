"""The smaller nn.functional pieces of sequence models against torch: one_hot, normalize, the distances
and their modules, glu, gelu(tanh), mish, silu, hardswish, softmin, gumbel_softmax, local_response_norm,
LocalResponseNorm and CrossMapLRN2d: values, gradients, error types and texts."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn.functional as JF
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional
def _f(*shape: int, seed: int = 0, dtype=np.float32) -> np.ndarray:
    """Normal values fixed by the shape and seed (not by which tests ran before: recordings replay alone)."""
    return np.random.default_rng((seed, *shape)).standard_normal(shape).astype(dtype)


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("jtorch", "torch")
    return None


def _same(jfn, tfn, *arrays: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6, node: bool = False) -> None:
    """jfn/tfn on the same inputs: outputs, and the gradients of sum(out * R) for a fixed R."""
    jx = [jtorch.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    tx = [torch.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    jy, ty = jfn(*jx), tfn(*tx)
    assert tuple(jy.shape) == tuple(ty.shape)
    assert str(jy.dtype).replace("jtorch", "torch") == str(ty.dtype)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    if node:
        assert jy.grad_fn.name() == ty.grad_fn.name()
    if ty.requires_grad:
        r = np.linspace(-1, 1, int(np.prod(tuple(ty.shape)))).reshape(tuple(ty.shape)).astype(arrays[0].dtype)
        (jy * jtorch.tensor(r)).sum().backward()
        (ty * torch.tensor(r)).sum().backward()
        for a, b in zip(jx, tx):
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


# ---- activations ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["gelu_tanh", "gelu", "mish", "silu", "hardswish", "softmin", "softmin0", "glu",
                                  "glu0"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_values_and_gradients(name, dtype):
    fns = {"gelu_tanh": lambda F: lambda x: F.gelu(x, approximate="tanh"), "gelu": lambda F: F.gelu,
           "mish": lambda F: F.mish, "silu": lambda F: F.silu, "hardswish": lambda F: F.hardswish,
           "softmin": lambda F: lambda x: F.softmin(x, dim=-1), "softmin0": lambda F: lambda x: F.softmin(x, 0),
           "glu": lambda F: F.glu, "glu0": lambda F: lambda x: F.glu(x, 0)}
    x = (_f(4, 6, dtype=dtype) * 3).astype(dtype)
    x[0, :3] = [-3.0, 3.0, 0.0]  # hardswish's corners
    _same(fns[name](JF), fns[name](TF), x, node=True)


@pytest.mark.parametrize("name", ["mish", "silu", "hardswish"])
def test_inplace_activations(name):
    x = _f(3, 4)
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        t = lib.tensor(x)
        out = getattr(F, name)(t, inplace=True)
        res.append((out.numpy(), t.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


@pytest.mark.parametrize("case", ["glu odd", "glu 0-d", "gelu approx"])
def test_activation_errors(case):
    fns = {"glu odd": lambda T, F: F.glu(T.ones(2, 3)), "glu 0-d": lambda T, F: F.glu(T.tensor(1.0)),
           "gelu approx": lambda T, F: F.gelu(T.ones(2), approximate="foo")}
    assert _errors(lambda: fns[case](jtorch, JF)) == _errors(lambda: fns[case](torch, TF))


# ---- one_hot, normalize, distances ----------------------------------------------------------------------
@pytest.mark.parametrize("case", [([0, 2, 1], -1), ([[0, 3], [1, 1]], 5), ([], 3)])
def test_one_hot(case):
    values, n = case
    j = JF.one_hot(jtorch.tensor(values, dtype=jtorch.int64), n)
    t = TF.one_hot(torch.tensor(values, dtype=torch.int64), n)
    assert j.tolist() == t.tolist() and str(j.dtype).replace("jtorch", "torch") == str(t.dtype)


@pytest.mark.parametrize("case", ["negative", "too big", "empty infer", "float"])
def test_one_hot_errors(case):
    fns = {"negative": lambda T, F: F.one_hot(T.tensor([-1, 0])), "too big": lambda T, F: F.one_hot(T.tensor([3]), 2),
           "empty infer": lambda T, F: F.one_hot(T.tensor([], dtype=T.int64)),
           "float": lambda T, F: F.one_hot(T.tensor([1.0]))}
    assert _errors(lambda: fns[case](jtorch, JF)) == _errors(lambda: fns[case](torch, TF))


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, -1), (3.0, 0), (float("inf"), 1)])
def test_normalize(p, dim):
    x = _f(3, 4)
    x[1] = 0.0  # the eps clamp
    _same(lambda a: JF.normalize(a, p, dim), lambda a: TF.normalize(a, p, dim), x)


@pytest.mark.parametrize("dim", [1, -1, 0])
def test_cosine_similarity_and_module(dim):
    a, b = _f(3, 4), _f(3, 4, seed=1)
    b[0] = 0.0
    _same(lambda x, y: JF.cosine_similarity(x, y, dim), lambda x, y: TF.cosine_similarity(x, y, dim), a, b)
    _same(jtorch.nn.CosineSimilarity(dim, 1e-6), torch.nn.CosineSimilarity(dim, 1e-6), a, b)
    _same(lambda x, y: JF.cosine_similarity(x, y, dim), lambda x, y: TF.cosine_similarity(x, y, dim), a,
          _f(1, 4, seed=2) if dim != 0 else _f(3, 1, seed=2))  # broadcasting


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False), (float("inf"), False), (0.0, True)])
def test_pairwise_distance_and_module(p, keepdim):
    a, b = _f(4, 5), _f(4, 5, seed=1)
    _same(lambda x, y: JF.pairwise_distance(x, y, p, 1e-6, keepdim),
          lambda x, y: TF.pairwise_distance(x, y, p, 1e-6, keepdim), a, b)
    _same(jtorch.nn.PairwiseDistance(p, 1e-3, keepdim), torch.nn.PairwiseDistance(p, 1e-3, keepdim), a, b)
    _same(lambda x, y: JF.pairwise_distance(x, y, p), lambda x, y: TF.pairwise_distance(x, y, p), _f(5), _f(5, seed=1))


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 5), dim=st.sampled_from([0, 1, -1]),
       eps=st.sampled_from([1e-8, 1e-2]))
def test_cosine_similarity_matches_numpy(rows, cols, dim, eps):
    rng = np.random.default_rng(rows * 10 + cols)
    a, b = rng.standard_normal((rows, cols)), rng.standard_normal((rows, cols))
    got = JF.cosine_similarity(jtorch.tensor(a), jtorch.tensor(b), dim, eps).numpy()
    na = np.maximum(np.linalg.norm(a, axis=dim, keepdims=True), eps)
    nb = np.maximum(np.linalg.norm(b, axis=dim, keepdims=True), eps)
    np.testing.assert_allclose(got, ((a / na) * (b / nb)).sum(dim), rtol=1e-10, atol=1e-12)


# ---- gumbel_softmax -------------------------------------------------------------------------------------
def test_gumbel_softmax_soft_sample_is_a_distribution():
    logits = jtorch.tensor(_f(5, 4)).requires_grad_()
    y = JF.gumbel_softmax(logits, tau=0.5)
    assert y.grad_fn.name() == "SoftmaxBackward0"
    np.testing.assert_allclose(y.detach().sum(-1).numpy(), np.ones(5), rtol=1e-6)
    assert float(y.detach().min()) >= 0.0


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    x = _f(6, 3)
    r = jtorch.tensor(_f(6, 3, seed=1))
    grads = []
    for hard in (True, False):
        jtorch.manual_seed(5)
        logits = jtorch.tensor(x).requires_grad_()
        y = JF.gumbel_softmax(logits, tau=2.0, hard=hard, dim=1)
        (y * r).sum().backward()
        grads.append((y.detach().numpy(), logits.grad.numpy()))
    (hard_y, hard_g), (soft_y, soft_g) = grads
    np.testing.assert_array_equal(hard_y.sum(1), np.ones(6))
    np.testing.assert_array_equal(hard_y.argmax(1), soft_y.argmax(1))
    assert set(np.unique(hard_y)) <= {0.0, 1.0}
    np.testing.assert_allclose(hard_g, soft_g, rtol=1e-5, atol=1e-6)


def test_gumbel_softmax_hard_samples_follow_softmax_of_logits():
    jtorch.manual_seed(7)
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    draws = JF.gumbel_softmax(jtorch.tensor(np.tile(logits, (20000, 1))), hard=True).numpy()
    np.testing.assert_allclose(draws.mean(0), [0.1, 0.2, 0.7], atol=0.015)


def test_gumbel_softmax_eps_warning_matches_torch():
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        with pytest.warns(UserWarning) as rec:
            F.gumbel_softmax(lib.ones(2, 3), eps=1e-5)
        res.append([str(w.message) for w in rec])
    assert res[0] == res[1]


# ---- local response normalisation -----------------------------------------------------------------------
@pytest.mark.parametrize("shape,size", [((2, 5, 4), 3), ((2, 6, 3, 2), 2), ((1, 4, 2, 2, 3), 5), ((2, 3, 4), 1)])
def test_local_response_norm(shape, size):
    x = _f(*shape)
    _same(lambda a: JF.local_response_norm(a, size, 1e-2, 0.75, 2.0),
          lambda a: TF.local_response_norm(a, size, 1e-2, 0.75, 2.0), x)
    _same(jtorch.nn.LocalResponseNorm(size), torch.nn.LocalResponseNorm(size), x)
    assert repr(jtorch.nn.LocalResponseNorm(size, k=2.0)) == repr(torch.nn.LocalResponseNorm(size, k=2.0))


def test_local_response_norm_errors_and_empty():
    assert _errors(lambda: JF.local_response_norm(jtorch.ones(2, 3), 2)) == \
        _errors(lambda: TF.local_response_norm(torch.ones(2, 3), 2))
    assert tuple(JF.local_response_norm(jtorch.ones(0, 3, 2), 2).shape) == (0, 3, 2)


@pytest.mark.parametrize("size,channels", [(3, 5), (2, 4), (5, 3)])
def test_cross_map_lrn2d(size, channels):
    x = _f(2, channels, 3, 2)
    _same(jtorch.nn.CrossMapLRN2d(size, 1e-2, 0.75, 1.5), torch.nn.CrossMapLRN2d(size, 1e-2, 0.75, 1.5), x,
          node=True)
    assert repr(jtorch.nn.CrossMapLRN2d(size)) == repr(torch.nn.CrossMapLRN2d(size))
    assert _errors(lambda: jtorch.nn.CrossMapLRN2d(size)(jtorch.ones(2, 3))) == \
        _errors(lambda: torch.nn.CrossMapLRN2d(size)(torch.ones(2, 3)))


def test_cross_map_lrn2d_size_one_backward_fails_as_torch():
    res = []
    for lib in (jtorch, torch):
        y = lib.nn.CrossMapLRN2d(1)(lib.ones(1, 2, 2, 2, requires_grad=True))
        res.append((y.detach().numpy().tolist(), _errors(lambda y=y: y.sum().backward())))
    assert res[0] == res[1]


# ---- meta tensors: shapes and dtypes only, as torch's meta kernels give them ------------------------------
_META = {
    "lrn": lambda T, F, m: F.local_response_norm(m(2, 3, 4, 5), 3),
    "cross map lrn": lambda T, F, m: T.nn.CrossMapLRN2d(3)(m(1, 3, 2, 2)),
    "cosine": lambda T, F, m: F.cosine_similarity(m(3, 4), m(1, 4)),
    "pairwise": lambda T, F, m: F.pairwise_distance(m(3, 4), m(3, 4), keepdim=True),
    "normalize": lambda T, F, m: F.normalize(m(3, 4), dim=0),
    "embedding max_norm": lambda T, F, m: F.embedding(T.empty(2, 3, dtype=T.int64, device="meta"), m(5, 4),
                                                     max_norm=1.0),
    "embedding_bag": lambda T, F, m: F.embedding_bag(T.empty(2, 3, dtype=T.int64, device="meta"), m(5, 4),
                                                     mode="max"),
    "multi margin": lambda T, F, m: F.multi_margin_loss(m(3, 4), T.empty(3, dtype=T.int64, device="meta"),
                                                        reduction="none"),
    "glu": lambda T, F, m: F.glu(m(2, 6), 1),
    "one_hot": lambda T, F, m: F.one_hot(T.empty(3, dtype=T.int64, device="meta"), 4),
    "dropout2d": lambda T, F, m: F.dropout2d(m(2, 3, 4, 4), 0.5, True),
    "lazy linear": lambda T, F, m: T.nn.LazyLinear(3, device="meta")(m(2, 5)),
}


@pytest.mark.parametrize("case", sorted(_META))
def test_meta_shapes_match_torch(case):
    got = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        out = _META[case](lib, F, lambda *s, lib=lib: lib.empty(*s, device="meta"))
        got.append((tuple(out.shape), str(out.dtype).replace("jtorch", "torch"), str(out.device)))
    assert got[0] == got[1]
