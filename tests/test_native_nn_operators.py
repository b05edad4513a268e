"""The aten operators behind torch.nn.functional's activations and pointwise losses, and xlogy,
diagonal_copy, _trilinear, against torch 2.13 (recorded): values and dtypes over the dtypes torch
dispatches (and its refusal texts for the others), the in-place forms, the node each records and
gradients (torch's, and gradcheck/gradgradcheck in float64).
"""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _torch_compare import call_matches_torch, call_outcome
from _torch_oracle import oracle_torch

torch = oracle_torch()

X = np.array([-4.0, -3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 3.0, 25.0, float("inf"), float("-inf"),
              float("nan")], np.float64)
Y = np.array([0.0, 0.5, 3.0, 2.0, -1.0, 1.0, float("nan"), 0.25, 1.0, 4.0, 0.0, 2.0, 1.0, 0.5], np.float64)
DTYPES = ("bool", "int64", "float16", "float32", "float64", "complex64")


def _F(T):
    return T.nn.functional


ACTIVATIONS = {
    "leaky_relu": lambda T, x: _F(T).leaky_relu(x, 0.2),
    "hardtanh": lambda T, x: _F(T).hardtanh(x, -0.5, 2.0),
    "relu6": lambda T, x: _F(T).relu6(x),
    "softplus": lambda T, x: _F(T).softplus(x, 2.0, 3.0),
    "mish": lambda T, x: _F(T).mish(x),
    "hardsigmoid": lambda T, x: _F(T).hardsigmoid(x),
    "hardswish": lambda T, x: _F(T).hardswish(x),
    "softshrink": lambda T, x: _F(T).softshrink(x, 0.5),
    "logsigmoid": lambda T, x: _F(T).logsigmoid(x),
    "glu": lambda T, x: _F(T).glu(x[:12].reshape(3, 4), 1),
    "xlogy": lambda T, x: T.xlogy(x, T.tensor(Y).to(x.dtype) if x.dtype != T.bool else T.tensor(Y)),
    "xlogy(Scalar, Tensor)": lambda T, x: T.xlogy(2.0, x),
    "xlogy(Tensor, Scalar)": lambda T, x: T.xlogy(x, 3.0),
    "diagonal_copy": lambda T, x: T.diagonal_copy(x[:12].reshape(3, 4), 1),
}
INPLACE = {
    "leaky_relu": lambda T, x: _F(T).leaky_relu(x, 0.2, inplace=True),
    "hardtanh": lambda T, x: _F(T).hardtanh(x, -0.5, 2.0, inplace=True),
    "mish": lambda T, x: _F(T).mish(x, inplace=True),
    "hardsigmoid": lambda T, x: _F(T).hardsigmoid(x, inplace=True),
    "hardswish": lambda T, x: _F(T).hardswish(x, inplace=True),
    "xlogy_": lambda T, x: x.xlogy_(2.0),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_and_dtypes_match_torch(name, dtype):
    call_matches_torch(lambda T: ACTIVATIONS[name](T, T.tensor(X).to(getattr(T, dtype))), f"{name} {dtype}")


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_forms_write_their_input(name):
    x = jtorch.tensor(X)
    assert INPLACE[name](jtorch, x) is x
    call_matches_torch(lambda T: INPLACE[name](T, T.tensor(X)), name)


GRADS = {
    **{k: v for k, v in ACTIVATIONS.items() if k not in ("xlogy", "diagonal_copy")},
    "xlogy": lambda T, x: T.xlogy(x, T.tensor(Y, requires_grad=True)),
    "diagonal_copy": lambda T, x: T.diagonal_copy(x[:12].reshape(3, 4), -1),
    "leaky_relu_": lambda T, x: _F(T).leaky_relu(x * 1, 0.2, inplace=True),
    "hardswish_": lambda T, x: _F(T).hardswish(x * 1, inplace=True),
    "mse_loss": lambda T, x: _F(T).mse_loss(x, T.tensor(Y), reduction="none"),
    "smooth_l1_loss": lambda T, x: _F(T).smooth_l1_loss(x, T.tensor(Y), beta=0.5),
    "huber_loss": lambda T, x: _F(T).huber_loss(x, T.tensor(Y), delta=0.5),
    "soft_margin_loss": lambda T, x: _F(T).soft_margin_loss(x, T.tensor(Y).sign(), reduction="sum"),
    "bce": lambda T, x: _F(T).binary_cross_entropy(x.sigmoid(), T.tensor(Y).nan_to_num().sigmoid(),
                                                   T.tensor(Y).abs()),
    "bce_with_logits": lambda T, x: _F(T).binary_cross_entropy_with_logits(
        x, T.tensor(Y).sigmoid(), pos_weight=T.tensor(Y).abs()),
    "kl_div": lambda T, x: _F(T).kl_div(x, T.tensor(Y).abs(), reduction="batchmean"),
    "bilinear": lambda T, x: _F(T).bilinear(x[:6].reshape(2, 3), x[6:12].reshape(2, 3),
                                            x[:12].reshape(4, 3, 1).expand(4, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_nodes_and_gradients_match_torch(name):
    finite = np.nan_to_num(X[:12], posinf=5.0, neginf=-5.0) * 0.9 + 0.05  # off the kinks
    got = []
    for lib in (jtorch, torch):
        x = lib.tensor(np.resize(finite, X.shape), requires_grad=True)
        y = GRADS[name](lib, x)
        g = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        y.backward(g)
        got.append((y.grad_fn.name().replace("torch::autograd::", ""), y.detach().numpy(), x.grad.numpy()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12, atol=1e-15, equal_nan=True)
    np.testing.assert_allclose(got[0][2], got[1][2], rtol=1e-10, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("name", ["leaky_relu", "hardtanh", "softplus", "mish", "hardsigmoid", "hardswish",
                                  "softshrink", "logsigmoid", "glu", "xlogy(Tensor, Scalar)", "diagonal_copy"])
def test_gradcheck(name):
    x = jtorch.tensor(np.random.default_rng(2).uniform(0.1, 2.0, 14) * np.resize([1, -1], 14), requires_grad=True)
    fn = ACTIVATIONS[name]
    assert jtorch.autograd.gradcheck(lambda t: fn(jtorch, t), [x])
    assert jtorch.autograd.gradgradcheck(lambda t: fn(jtorch, t), [x])


def test_losses_and_trilinear_gradgradcheck():
    r = np.random.default_rng(3)
    a, b = (jtorch.tensor(r.standard_normal((2, 3)), requires_grad=True) for _ in range(2))
    w = jtorch.tensor(r.standard_normal((4, 3, 3)), requires_grad=True)
    F = jtorch.nn.functional
    for fn, args in [(F.bilinear, [a, b, w]), (F.mse_loss, [a, b]), (F.huber_loss, [a, b]),
                     (lambda p, q: F.binary_cross_entropy_with_logits(p, q.sigmoid()), [a, b])]:
        assert jtorch.autograd.gradcheck(fn, args)
        assert jtorch.autograd.gradgradcheck(fn, args)


ERRORS = {
    "softshrink(-1)": lambda T: _F(T).softshrink(T.tensor(X), -1.0),
    "glu odd": lambda T: _F(T).glu(T.ones(3)),
    "glu scalar": lambda T: _F(T).glu(T.tensor(1.0)),
    "huber delta 0": lambda T: _F(T).huber_loss(T.ones(2), T.ones(2), delta=0.0),
    "smooth_l1 beta<0": lambda T: _F(T).smooth_l1_loss(T.ones(2), T.ones(2), beta=-1.0),
    "bce outside [0, 1]": lambda T: _F(T).binary_cross_entropy(T.tensor([2.0]), T.tensor([1.0])),
    "bce target outside [0, 1]": lambda T: _F(T).binary_cross_entropy(T.tensor([0.5]), T.tensor([2.0])),
    "nll2d target dims": lambda T: _F(T).nll_loss(T.zeros(1, 2, 2, 2), T.zeros(1, 2, dtype=T.long)),
    "nll2d weight": lambda T: _F(T).nll_loss(T.zeros(1, 2, 2, 2), T.zeros(1, 2, 2, dtype=T.long), T.ones(3)),
    "nll_loss2d_forward 3-D": lambda T: T.ops.aten.nll_loss2d_forward(T.zeros(1, 2, 2), T.zeros(1, 2, 2, dtype=T.long),
                                                                      None, 1, -100),
    "kl_div ints": lambda T: T.kl_div(T.tensor([1]), T.tensor([1])),
    "nll2d target out of range": lambda T: _F(T).nll_loss(T.zeros(1, 2, 2, 2), T.full((1, 2, 2), 5)),
    "nll2d sizes": lambda T: _F(T).nll_loss(T.zeros(1, 2, 2, 2), T.zeros(1, 3, 2, dtype=T.long)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    assert call_outcome(ERRORS[name], jtorch)[:2] == call_outcome(ERRORS[name], torch)[:2]
