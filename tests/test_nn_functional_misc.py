"""nn.functional (linear family, dropout, one_hot, pad, interpolate, normalize, distances) and
nn.utils (clipping, vector conversion) against torch: values, gradients, error texts."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF
from _torch_compare import error_of
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional
RNG = np.random.default_rng(99)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _same(jfn, tfn, *arrays: np.ndarray, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """jfn/tfn on the same float inputs: outputs, and the gradients of sum(out * R) for a fixed R."""
    jx = [jtorch.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    tx = [torch.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    jy, ty = jfn(*jx), tfn(*tx)
    assert tuple(jy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    if ty.requires_grad:
        r = RNG.standard_normal(tuple(ty.shape)).astype(np.float32)
        (jy * jtorch.tensor(r)).sum().backward()
        (ty * torch.tensor(r)).sum().backward()
        for a, b in zip(jx, tx):
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


# ---- linear, bilinear, embedding ----------------------------------------------------------------------
def test_linear_and_bilinear():
    _same(JF.linear, TF.linear, _f32(5, 4), _f32(3, 4), _f32(3))
    _same(JF.linear, TF.linear, _f32(2, 5, 4), _f32(3, 4))
    _same(JF.bilinear, TF.bilinear, _f32(5, 3), _f32(5, 2), _f32(4, 3, 2), _f32(4))


@pytest.mark.parametrize("case", range(5))
def test_bilinear_errors_match_torch(case):
    shapes = [((2, 3), (2,), (1, 3, 3), None), ((2, 3), (3, 3), (1, 3, 3), None), ((2, 4), (2, 3), (1, 3, 3), None),
              ((2, 3), (2, 2), (1, 3, 3), None), ((2, 3), (2, 3), (1, 3, 3), (2,))]
    a, b, w, bias = shapes[case]

    def run(lib, fn):
        return error_of(lambda: fn(lib.ones(*a), lib.ones(*b), lib.ones(*w), None if bias is None else lib.ones(*bias)))

    assert run(jtorch, JF.bilinear) == run(torch, TF.bilinear)


def test_embedding_functional():
    idx = np.array([[1, 0], [3, 3]])
    _same(lambda w: JF.embedding(jtorch.tensor(idx), w, padding_idx=3),
          lambda w: TF.embedding(torch.tensor(idx), w, padding_idx=3), _f32(4, 2))


# ---- dropout and one_hot -------------------------------------------------------------------------------
def test_dropout_functional():
    x = jtorch.ones(4)
    assert JF.dropout(x, 0.5, training=False) is x and JF.dropout(x, 0.0) is x
    assert JF.dropout(x, 1.0).tolist() == [0.0] * 4
    y = jtorch.ones(10000)
    jtorch.manual_seed(5)
    out = JF.dropout(y, 0.4, inplace=True)
    assert out is y and abs((y.numpy() == 0).mean() - 0.4) < 0.02
    np.testing.assert_allclose(np.unique(y.numpy()), [0.0, 1 / 0.6], rtol=1e-6)
    assert error_of(lambda: JF.dropout(x, -0.1)) == error_of(lambda: TF.dropout(torch.ones(4), -0.1))


def test_one_hot():
    for args in [([0, 2, 1],), ([[0, 2], [1, 1]], 4)]:
        np.testing.assert_array_equal(JF.one_hot(jtorch.tensor(args[0]), *args[1:]).numpy(),
                                      TF.one_hot(torch.tensor(args[0]), *args[1:]).numpy())
    assert JF.one_hot(jtorch.tensor([1])).dtype == jtorch.int64
    for bad in [([1.0],), ([-1],), ([3], 2)]:
        j = error_of(lambda: JF.one_hot(jtorch.tensor(bad[0]), *bad[1:]))
        t = error_of(lambda: TF.one_hot(torch.tensor(bad[0]), *bad[1:]))
        assert j == t


# ---- pad ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (2, 1)), ((1, 2, 4, 5), (1, 2, 3, 0)),
                                       ((1, 1, 3, 4, 4), (1, 1, 2, 0, 1, 2)), ((2, 3, 5), (-1, 2))])
def test_pad_matches_torch(mode, shape, pad):
    _same(lambda x: JF.pad(x, pad, mode=mode), lambda x: TF.pad(x, pad, mode=mode), _f32(*shape))


def test_pad_constant_value_and_any_rank():
    _same(lambda x: JF.pad(x, (1, 2, 0, 1, 1, 1), value=-2.5), lambda x: TF.pad(x, (1, 2, 0, 1, 1, 1), value=-2.5),
          _f32(3, 2, 4))
    np.testing.assert_array_equal(JF.pad(jtorch.tensor([1, 2]), (1, 1), value=7).numpy(),
                                  TF.pad(torch.tensor([1, 2]), (1, 1), value=7).numpy())


@pytest.mark.parametrize("case", range(8))
def test_pad_errors_match_torch(case):
    cases = [((1, 1, 3), (3, 3), "reflect"), ((1, 1, 3), (1, 2, 3), "constant"), ((3,), (1, 1), "reflect"),
             ((1, 1, 3), (4, 4), "circular"), ((1, 1, 3), (1, 1), "foo"), ((1, 3), (-2, -2), "constant"),
             ((1, 3), (5, -4), "constant"), ((3,), (1, 1, 1, 1), "constant")]
    shape, pad, mode = cases[case]
    assert error_of(lambda: JF.pad(jtorch.ones(*shape), pad, mode=mode)) == \
        error_of(lambda: TF.pad(torch.ones(*shape), pad, mode=mode))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 5), left=st.integers(0, 4), right=st.integers(0, 4),
       mode=st.sampled_from(["constant", "reflect", "replicate", "circular"]))
def test_pad_property(n, left, right, mode):
    if mode == "reflect":
        left, right = min(left, n - 1), min(right, n - 1)
    if mode == "circular":
        left, right = min(left, n), min(right, n)
    x = np.arange(2 * n, dtype=np.float32).reshape(1, 2, n)
    np.testing.assert_array_equal(JF.pad(jtorch.tensor(x), (left, right), mode=mode).numpy(),
                                  TF.pad(torch.tensor(x), (left, right), mode=mode).numpy())


# ---- interpolate ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(size=(7, 3)), dict(scale_factor=2), dict(scale_factor=(0.5, 1.5)),
                                    dict(size=(7, 9), mode="bilinear"),
                                    dict(size=(7, 3), mode="bilinear", align_corners=True),
                                    dict(scale_factor=1.7, mode="bilinear"),
                                    dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)])
def test_interpolate_2d_matches_torch(kwargs):
    _same(lambda x: JF.interpolate(x, **kwargs), lambda x: TF.interpolate(x, **kwargs), _f32(2, 3, 5, 4))


@pytest.mark.parametrize("kwargs", [dict(size=8), dict(size=4, mode="linear"),
                                    dict(scale_factor=3, mode="linear", align_corners=True)])
def test_interpolate_1d_matches_torch(kwargs):
    _same(lambda x: JF.interpolate(x, **kwargs), lambda x: TF.interpolate(x, **kwargs), _f32(2, 2, 5))


@pytest.mark.parametrize("case", range(6))
def test_interpolate_errors_match_torch(case):
    cases = [dict(size=(4, 4)), dict(), dict(size=4, scale_factor=2), dict(size=4, align_corners=True),
             dict(size=4, mode="bilinear"), dict(size=(4,), shape=(3,))]
    shape = cases[case].pop("shape", (1, 1, 3))
    assert error_of(lambda: JF.interpolate(jtorch.ones(*shape), **cases[case])) == \
        error_of(lambda: TF.interpolate(torch.ones(*shape), **cases[case]))


# ---- normalize and distances -------------------------------------------------------------------------
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, -1), (math.inf, 0)])
def test_normalize(p, dim):
    _same(lambda x: JF.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim), _f32(3, 4, 2))


def test_normalize_eps_for_zero_rows():
    x = np.zeros((2, 3), np.float32)
    np.testing.assert_array_equal(JF.normalize(jtorch.tensor(x)).numpy(), TF.normalize(torch.tensor(x)).numpy())


def test_cosine_similarity_and_pairwise_distance():
    _same(JF.cosine_similarity, TF.cosine_similarity, _f32(4, 3), _f32(4, 3))
    _same(lambda a, b: JF.cosine_similarity(a, b, dim=-1), lambda a, b: TF.cosine_similarity(a, b, dim=-1),
          _f32(2, 1, 5), _f32(3, 5))
    _same(JF.pairwise_distance, TF.pairwise_distance, _f32(4, 3), _f32(4, 3))
    _same(lambda a, b: JF.pairwise_distance(a, b, p=1.0, keepdim=True),
          lambda a, b: TF.pairwise_distance(a, b, p=1.0, keepdim=True), _f32(4, 3), _f32(3))


# ---- nn.utils ------------------------------------------------------------------------------------------
def _params_with_grads(lib, nn, grads):
    ps = []
    for g in grads:
        p = nn.Parameter(lib.zeros(g.shape))
        p.grad = lib.tensor(g)
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    grads = [_f32(3, 4), _f32(5)]
    jp, tp = _params_with_grads(jtorch, jnn, grads), _params_with_grads(torch, torch.nn, grads)
    jn = jnn.utils.clip_grad_norm_(jp, max_norm, norm_type, foreach=True)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    np.testing.assert_allclose(jn.numpy(), tn.numpy(), rtol=1e-6)
    for a, b in zip(jp, tp):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_edge_cases():
    p = jnn.Parameter(jtorch.ones(2))
    assert jnn.utils.clip_grad_norm_(p, 1.0).item() == 0.0  # no gradients: a zero norm
    p.grad = jtorch.tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped"):
        jnn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
        jnn.utils.clip_grad_norm_((q for q in []), 1.0)


def test_clip_grad_value():
    grads = [_f32(3, 4) * 3]
    jp, tp = _params_with_grads(jtorch, jnn, grads), _params_with_grads(torch, torch.nn, grads)
    assert jnn.utils.clip_grad_value_(jp, 1.5) is None
    torch.nn.utils.clip_grad_value_(tp, 1.5)
    np.testing.assert_array_equal(jp[0].grad.numpy(), tp[0].grad.numpy())


def test_parameters_to_vector_and_back():
    lin = jnn.Linear(3, 2)
    v = jnn.utils.parameters_to_vector(lin.parameters())
    assert v.shape == (8,)
    np.testing.assert_array_equal(v.detach().numpy()[:6], lin.weight.detach().numpy().ravel())
    new = jtorch.arange(8, dtype=jtorch.float32)
    jnn.utils.vector_to_parameters(new, lin.parameters())
    assert lin.bias.tolist() == [6.0, 7.0] and type(lin.weight) is jnn.Parameter
    with pytest.raises(TypeError, match="expected jtorch.Tensor, but got: list"):
        jnn.utils.vector_to_parameters([1.0], lin.parameters())
    meta = jnn.Parameter(jtorch.empty(1, device="meta"))
    with pytest.raises(TypeError, match="Found two parameters on different devices, this is currently not supported."):
        jnn.utils.parameters_to_vector([lin.weight, meta])
