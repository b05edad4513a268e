"""The activation operators of the torch namespace against torch 2.13 (recorded): hardshrink (also a
method), threshold(_), celu(_), selu(_), rrelu(_), prelu (also a method); values, dtypes, out= and
in-place forms, torch's error texts, meta tensors, the autograd nodes torch records (also through
torch.nn.functional, which calls the same operators) and gradients (gradcheck in float64).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jtorch
from _torch_compare import call_matches_torch
from _torch_oracle import oracle_torch

torch = oracle_torch()

X = np.array([-3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, float("inf"), float("-inf"), float("nan")],
             np.float32)
DTYPES = ("bool", "uint8", "int64", "float16", "float32", "float64", "complex64")


CALLS = {
    "hardshrink": lambda T, x: T.hardshrink(x),
    "hardshrink(1.0)": lambda T, x: T.hardshrink(x, 1.0),
    "Tensor.hardshrink": lambda T, x: x.hardshrink(lambd=0.25),
    "threshold": lambda T, x: T.threshold(x, 0.25, -7.0),
    "celu": lambda T, x: T.celu(x),
    "celu(2.5)": lambda T, x: T.celu(x, 2.5),
    "selu": lambda T, x: T.selu(x),
    "rrelu": lambda T, x: T.rrelu(x),
    "rrelu(0.1, 0.3)": lambda T, x: T.rrelu(x, 0.1, 0.3),
    "prelu": lambda T, x: T.prelu(x, T.tensor([0.25], dtype=x.dtype).to(x.device)),
    "Tensor.prelu": lambda T, x: x.prelu(T.tensor(0.5, dtype=x.dtype).to(x.device)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_match_torch(name):
    for d in ("float32", "float64"):
        call_matches_torch(lambda T: CALLS[name](T, T.tensor(X.astype(d))), f"{name} {d}")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_dtype_outcomes_match_torch(name):
    for d in DTYPES:
        call_matches_torch(lambda T: CALLS[name](T, T.zeros(0, dtype=getattr(T, d))), f"{name} {d}")


def test_integer_threshold_and_float16_values():
    call_matches_torch(lambda T: T.threshold(T.tensor([1, 2, 5, -3]), 1.5, 9))
    call_matches_torch(lambda T: T.threshold(T.tensor([1, 2, 5, -3], dtype=T.int8), 2, -1))
    for name in ("hardshrink", "threshold", "celu", "selu", "rrelu"):
        call_matches_torch(lambda T: CALLS[name](T, T.tensor(X.astype(np.float16))), name)


@pytest.mark.parametrize("call", [
    lambda T: T.threshold_(T.tensor(X), 0.0, 3.0),
    lambda T: T.celu_(T.tensor(X), 0.5),
    lambda T: T.selu_(T.tensor(X)),
    lambda T: T.rrelu_(T.tensor(X)),
    lambda T: T.hardshrink(T.tensor(X), out=T.empty(0)),
    lambda T: T.hardshrink(T.tensor(X), out=T.empty(0, dtype=T.float64)),
    lambda T: T.threshold(T.tensor(X), 1.0, 2.0, out=T.empty(12)),
    lambda T: T.threshold(T.tensor(X).reshape(3, 4).t(), 1.0, 2.0),
])
def test_inplace_and_out_forms_match_torch(call):
    call_matches_torch(call)


def test_inplace_forms_return_self():
    x = jtorch.tensor(X)
    for r in (jtorch.threshold_(x, 0.0, 1.0), jtorch.celu_(x), jtorch.selu_(x), jtorch.rrelu_(x)):
        assert r is x


@pytest.mark.parametrize("call", [
    lambda T: T.hardshrink(T.tensor([1, 2])),
    lambda T: T.threshold(T.tensor([True]), 0, 1),
    lambda T: T.threshold(T.tensor([1j]), 0, 1),
    lambda T: T.celu(T.tensor([1.0]), 0.0),
    lambda T: T.celu_(T.tensor([1.0]), 0),
    lambda T: T.celu(T.tensor([1])),
    lambda T: T.selu(T.tensor([1])),
    lambda T: T.rrelu(T.tensor([1])),
    lambda T: T.rrelu(T.tensor([1.0]), 0.5, 0.25),
    lambda T: T.prelu(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
    lambda T: T.prelu(T.ones(2, 3), T.ones(2)),
    lambda T: T.prelu(T.tensor(1.0), T.ones(2)),
    lambda T: T.prelu(T.ones(2, 3), T.ones(1, 3)),
    lambda T: T.prelu(T.ones(2, 3), T.ones(1, 1)),
])
def test_errors_match_torch(call):
    call_matches_torch(call)


def test_prelu_shapes_match_torch():
    x = np.linspace(-2, 2, 24).reshape(2, 3, 4).astype(np.float32)
    call_matches_torch(lambda T: T.prelu(T.tensor(x), T.tensor([0.1, 0.2, 0.3])))
    call_matches_torch(lambda T: T.prelu(T.tensor(x), T.tensor(0.2)))
    call_matches_torch(lambda T: T.prelu(T.tensor(x[0, 0]), T.tensor([0.1])))
    call_matches_torch(lambda T: T.prelu(T.tensor(x[0]), T.tensor([0.1, 0.2, 0.3])))


def test_rrelu_training_slopes():
    """While training each non-positive element gets a slope drawn from U(lower, upper); one seed, one draw."""
    x = -jtorch.rand(20000) - 0.1
    g = jtorch.Generator().manual_seed(7)
    y = jtorch.rrelu(x, 0.1, 0.3, training=True, generator=g)
    slope = (y / x).numpy()
    assert slope.min() >= 0.1 and slope.max() <= 0.3
    assert abs(slope.mean() - 0.2) < 4 * (0.2 / np.sqrt(12)) / np.sqrt(slope.size)
    y2 = jtorch.rrelu(x, 0.1, 0.3, training=True, generator=jtorch.Generator().manual_seed(7))
    np.testing.assert_array_equal(y.numpy(), y2.numpy())
    p = jtorch.tensor([0.5, 2.0])
    np.testing.assert_array_equal(jtorch.rrelu(p, training=True).numpy(), p.numpy())


def test_meta():
    for name in ("hardshrink", "threshold", "celu", "selu", "rrelu", "prelu"):
        m = CALLS[name](jtorch, jtorch.empty(2, 3, device="meta"))
        assert m.device.type == "meta" and m.shape == (2, 3) and m.dtype is jtorch.float32, name


# ---- autograd: torch's nodes, the same through torch.nn.functional ------------------------------------------
NODE_CALLS = {
    "hardshrink": lambda T, x: T.hardshrink(x, 0.75),
    "threshold": lambda T, x: T.threshold(x, 0.3, -2.0),
    "threshold_": lambda T, x: T.threshold_(x * 1, 0.3, -2.0),
    "celu": lambda T, x: T.celu(x, 1.5),
    "celu_": lambda T, x: T.celu_(x * 1, 1.5),
    "selu": lambda T, x: T.selu(x),
    "selu_": lambda T, x: T.selu_(x * 1),
    "rrelu": lambda T, x: T.rrelu(x),
    "rrelu_": lambda T, x: T.rrelu_(x * 1),
    "prelu": lambda T, x: T.prelu(x.reshape(2, 3), T.tensor([0.1, 0.2, 0.3], dtype=T.float64)),
    "F.hardshrink": lambda T, x: T.nn.functional.hardshrink(x, 0.75),
    "F.threshold": lambda T, x: T.nn.functional.threshold(x, 0.3, -2.0),
    "F.elu": lambda T, x: T.nn.functional.elu(x, 0.5),
    "F.elu_": lambda T, x: T.nn.functional.elu(x * 1, 0.5, inplace=True),
    "F.celu": lambda T, x: T.nn.functional.celu(x, 1.5),
    "F.selu": lambda T, x: T.nn.functional.selu(x),
    "F.rrelu": lambda T, x: T.nn.functional.rrelu(x),
    "F.prelu": lambda T, x: T.nn.functional.prelu(x, T.tensor([0.3], dtype=T.float64)),
}


@pytest.mark.parametrize("name", sorted(NODE_CALLS))
def test_nodes_and_gradients_match_torch(name):
    x = np.array([-2.0, -0.6, 0.1, 0.3, 0.9, 2.0])
    w = np.array([0.5, -1.0, 2.0, 1.5, -0.25, 3.0])

    def run(T):
        t = T.tensor(x, requires_grad=True)
        y = NODE_CALLS[name](T, t)
        (g,) = T.autograd.grad((y.reshape(-1) * T.tensor(w)).sum(), t)
        return y.grad_fn.name(), g.numpy()

    (jn, jg), (tn, tg) = run(jtorch), run(torch)
    assert jn == tn
    np.testing.assert_allclose(jg, tg, rtol=1e-13)


def test_prelu_weight_gradient_matches_torch():
    x = np.linspace(-2, 2, 24).reshape(2, 3, 4)

    def run(T, w):
        t, wt = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
        gx, gw = T.autograd.grad((T.prelu(t, wt) * T.tensor(x * 0.5 + 1)).sum(), (t, wt))
        return gx.numpy(), gw.numpy()

    for w in (np.array([0.1, 0.2, 0.3]), np.array([0.25]), np.array(0.25)):
        for a, b in zip(run(jtorch, w), run(torch, w)):
            np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize("name", ["hardshrink", "threshold", "celu", "selu", "rrelu", "F.elu"])
def test_gradcheck(name):
    x = jtorch.tensor([-2.0, -0.6, 0.1, 0.4, 0.9, 2.0], dtype=jtorch.float64, requires_grad=True)
    fn = lambda t: NODE_CALLS[name](jtorch, t)  # noqa: E731
    assert jtorch.autograd.gradcheck(fn, (x,))
    assert jtorch.autograd.gradgradcheck(fn, (x,))


def test_prelu_and_rrelu_training_gradcheck():
    x = jtorch.linspace(-2, 2, 24, dtype=jtorch.float64).reshape(2, 3, 4).requires_grad_()
    w = jtorch.tensor([0.1, 0.2, 0.3], dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(jtorch.prelu, (x + 0.01, w))
    assert jtorch.autograd.gradcheck(
        lambda t: jtorch.rrelu(t, training=True, generator=jtorch.Generator().manual_seed(3)), (x + 0.01,))


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                    elements=st.floats(-50, 50) | st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf])),
       lambd=st.floats(0, 3), alpha=st.floats(0.1, 3))
def test_against_numpy(x, lambd, alpha):
    t = jtorch.tensor(x)
    with np.errstate(all="ignore"):
        hard = np.where((x >= -lambd) & (x <= lambd), 0.0, x)
        thr = np.where(x <= lambd, -alpha, x)
        celu = np.where(x <= 0, alpha * np.expm1(x / alpha), x)
    np.testing.assert_array_equal(jtorch.hardshrink(t, lambd).numpy(), hard)
    np.testing.assert_array_equal(jtorch.threshold(t, lambd, -alpha).numpy(), thr)
    np.testing.assert_allclose(jtorch.celu(t, alpha).numpy(), celu, rtol=1e-15, equal_nan=True)
