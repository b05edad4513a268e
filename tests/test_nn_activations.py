"""jtorch.nn.functional activations (and their modules) against torch: values and gradients in
float32 and float64 on random inputs with the edge values of each function (0, the clamp
boundaries, saturating exponentials), in-place variants, softmax's implicit-dim warning, error
texts and module reprs.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F
from _torch_oracle import oracle_torch

torch = oracle_torch()
TF = torch.nn.functional

# edge values: 0, the boundaries of hardtanh/relu6/hardsigmoid/hardswish, softplus' threshold,
# values where exp overflows float32, and tiny ones
EDGES = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 0.5, -0.5, 20.0, -20.0, 100.0, -100.0, 1e-7, -1e-7]
DTYPES = [(np.float32, 2e-5), (np.float64, 1e-10)]


def sample(dtype, shape=(3, 16), seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = x.reshape(-1)
    n = min(len(EDGES), flat.size)
    flat[:n] = EDGES[:n]
    return x


def check(jfn, tfn, x: np.ndarray, tol: float, grad: bool = True) -> None:
    """Same value and same gradient (for a random upstream gradient) as torch."""
    jx = jtorch.tensor(x, requires_grad=grad)
    tx = torch.tensor(x, requires_grad=grad)
    jy, ty = jfn(jx), tfn(tx)
    assert jy.dtype == getattr(jtorch, str(ty.dtype).split(".")[1])
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    if grad:
        g = np.random.default_rng(1).standard_normal(ty.shape).astype(x.dtype)
        jy.backward(jtorch.tensor(g))
        ty.backward(torch.tensor(g))
        np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)


UNARY = {
    "relu": {}, "relu6": {}, "elu": {}, "elu_alpha": {"alpha": 0.7}, "selu": {}, "celu": {"alpha": 1.5},
    "leaky_relu": {}, "leaky_relu_slope": {"negative_slope": 0.2}, "gelu": {}, "gelu_tanh": {"approximate": "tanh"},
    "silu": {}, "mish": {}, "hardtanh": {}, "hardtanh_range": {"min_val": -2.0, "max_val": 3.0},
    "hardsigmoid": {}, "hardswish": {}, "softplus": {}, "softplus_beta": {"beta": 2.0, "threshold": 10.0},
    "softsign": {}, "tanhshrink": {}, "hardshrink": {}, "softshrink": {"lambd": 1.0}, "sigmoid": {}, "tanh": {},
    "logsigmoid": {}, "rrelu": {}, "rrelu_range": {"lower": 0.2, "upper": 0.4},
}


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("case", sorted(UNARY))
def test_unary_matches_torch(case, dtype, tol):
    name = case.split("_")[0] if case not in ("leaky_relu", "leaky_relu_slope") else "leaky_relu"
    kw = UNARY[case]
    if case == "hardsigmoid" and dtype is np.float64:
        tol = 1e-7  # torch's hardsigmoid_backward multiplies by the float constant 1.0f / 6.0f
    check(lambda t: getattr(F, name)(t, **kw), lambda t: getattr(TF, name)(t, **kw), sample(dtype), tol)


def test_threshold_glu_prelu():
    x = sample(np.float64, (6, 4))
    check(lambda t: F.threshold(t, 0.5, -2.0), lambda t: TF.threshold(t, 0.5, -2.0), x, 1e-12)
    for dim in (0, 1, -1):
        check(lambda t: F.glu(t, dim), lambda t: TF.glu(t, dim), x, 1e-12)
    w = np.array([0.25, -0.5, 2.0, 0.1], dtype=np.float64)
    # 0-dim input with one slope
    check(lambda t: F.prelu(t, jtorch.tensor([0.3], dtype=jtorch.float64)),
          lambda t: TF.prelu(t, torch.tensor([0.3], dtype=torch.float64)), np.array(-2.0), 1e-12)
    for weight in (w, w[:1]):
        jx, jw = jtorch.tensor(x, requires_grad=True), jtorch.tensor(weight, requires_grad=True)
        tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(weight, requires_grad=True)
        jy, ty = F.prelu(jx, jw), TF.prelu(tx, tw)
        np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
        jy.sum().backward(), ty.sum().backward()
        np.testing.assert_allclose(jw.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family(name):
    x = sample(np.float32, (2, 3, 4))
    for dim in (0, 1, -1):
        check(lambda t: getattr(F, name)(t, dim=dim), lambda t: getattr(TF, name)(t, dim=dim), x, 2e-5)
    jy = getattr(F, name)(jtorch.tensor(x), 1, dtype=jtorch.float64)
    ty = getattr(TF, name)(torch.tensor(x), 1, dtype=torch.float64)
    assert jy.dtype == jtorch.float64
    np.testing.assert_allclose(jy.numpy(), ty.numpy(), rtol=1e-12)
    # the implicit dim: 0 for 0-, 1- and 3-dim inputs, else 1, with torch's warning
    for shape in ((5,), (2, 3), (2, 3, 4)):
        xs = sample(np.float64, shape)
        with pytest.warns(UserWarning, match=f"^Implicit dimension choice for {name} has been deprecated. "
                          "Change the call to include dim=X as an argument.$"):
            jy = getattr(F, name)(jtorch.tensor(xs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ty = getattr(TF, name)(torch.tensor(xs))
        np.testing.assert_allclose(jy.numpy(), ty.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,kw", [("relu", {}), ("elu", {}), ("leaky_relu", {}), ("hardtanh", {}), ("relu6", {}),
                                     ("selu", {}), ("celu", {}), ("silu", {}), ("mish", {}), ("hardsigmoid", {}),
                                     ("hardswish", {}), ("threshold", {"threshold": 0.1, "value": 7.0})])
def test_inplace(name, kw):
    x = sample(np.float64, (2, 8))
    jx, tx = jtorch.tensor(x), torch.tensor(x)
    jy = getattr(F, name)(jx, inplace=True, **kw)
    getattr(TF, name)(tx, inplace=True, **kw)
    assert jy is jx
    np.testing.assert_allclose(jx.numpy(), tx.numpy(), rtol=1e-12)
    # through autograd: in place on a non-leaf, gradient to the leaf
    jl, tl = jtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    getattr(F, name)(jl * 2, inplace=True, **kw).sum().backward()
    getattr(TF, name)(tl * 2, inplace=True, **kw).sum().backward()
    tol = 1e-7 if name == "hardsigmoid" else 1e-12  # torch's backward uses the float 1.0f / 6.0f
    np.testing.assert_allclose(jl.grad.numpy(), tl.grad.numpy(), rtol=tol, atol=tol)


def test_underscore_variants():
    x = sample(np.float64, (2, 8))
    for name, kw in (("relu_", {}), ("elu_", {"alpha": 0.5}), ("leaky_relu_", {"negative_slope": 0.3}),
                     ("hardtanh_", {}), ("threshold_", {"threshold": 0.0, "value": 1.0}), ("selu_", {}), ("celu_", {})):
        jx, tx = jtorch.tensor(x), torch.tensor(x)
        assert getattr(F, name)(jx, **kw) is jx
        getattr(TF, name)(tx, **kw)
        np.testing.assert_allclose(jx.numpy(), tx.numpy(), rtol=1e-12)


def raises_like(jcall, tcall):
    with pytest.raises(Exception) as texc:
        tcall()
    with pytest.raises(type(texc.value)) as jexc:
        jcall()
    assert str(jexc.value) == str(texc.value)


def test_errors():
    cases = [
        lambda m, f: f.glu(m.ones(3, 3)),
        lambda m, f: f.glu(m.ones(3, 3), 0),
        lambda m, f: f.glu(m.tensor(1.0)),
        lambda m, f: f.prelu(m.ones(3, 4), m.ones(3)),
        lambda m, f: f.prelu(m.tensor(1.0), m.ones(2)),
        lambda m, f: f.prelu(m.ones(3, 4), m.ones(4).double()),
        lambda m, f: f.prelu(m.ones(3, 4), m.ones(1, 1)),
        lambda m, f: f.prelu(m.ones(3, 4), m.ones(2, 2)),
        lambda m, f: f.celu(m.ones(3), alpha=0.0),
        lambda m, f: f.hardtanh(m.ones(3), 1.0, -1.0),
        lambda m, f: f.leaky_relu(m.tensor([1, 2])),
        lambda m, f: f.elu(m.tensor([1, 2])),
        lambda m, f: f.softplus(m.tensor([1, 2])),
        lambda m, f: f.rrelu(m.tensor([1, 2])),
        lambda m, f: f.softshrink(m.ones(3), -1.0),
        lambda m, f: f.gelu(m.ones(3), approximate="fast"),
    ]
    for case in cases:
        raises_like(lambda: case(jtorch, F), lambda: case(torch, TF))


def test_integer_inputs_where_torch_allows():
    a = [-2, 0, 3]
    for name, kw in (("relu", {}), ("softsign", {}), ("hardtanh", {}), ("relu6", {}),
                     ("threshold", {"threshold": 1, "value": 5.0})):
        jy, ty = getattr(F, name)(jtorch.tensor(a), **kw), getattr(TF, name)(torch.tensor(a), **kw)
        assert str(jy.dtype).split(".")[1] == str(ty.dtype).split(".")[1], name
        np.testing.assert_allclose(jy.numpy(), ty.numpy())


MODULES = [
    ("ReLU", {}), ("ReLU", {"inplace": True}), ("ReLU6", {}), ("ReLU6", {"inplace": True}), ("LeakyReLU", {}),
    ("LeakyReLU", {"negative_slope": 0.2, "inplace": True}), ("ELU", {"alpha": 0.5}), ("CELU", {}), ("SELU", {}),
    ("SELU", {"inplace": True}), ("GELU", {}), ("GELU", {"approximate": "tanh"}), ("SiLU", {}), ("Mish", {}),
    ("Hardtanh", {}), ("Hardtanh", {"min_val": -2.0, "max_val": 0.5, "inplace": True}), ("Hardsigmoid", {}),
    ("Hardswish", {}), ("Softplus", {"beta": 2, "threshold": 5}), ("Softsign", {}), ("Tanhshrink", {}),
    ("Hardshrink", {}), ("Softshrink", {"lambd": 0.25}), ("Sigmoid", {}), ("Tanh", {}), ("LogSigmoid", {}),
    ("Softmax", {"dim": 1}), ("Softmin", {"dim": -1}), ("LogSoftmax", {"dim": 1}), ("GLU", {}),
    ("Threshold", {"threshold": 0.1, "value": 20.0}), ("PReLU", {}), ("PReLU", {"num_parameters": 4, "init": 0.1}),
]


@pytest.mark.parametrize("name,kw", MODULES)
def test_modules_match_torch(name, kw):
    jm, tm = getattr(jtorch.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        np.testing.assert_array_equal(jm.state_dict()[k].numpy(), v.numpy())
    jm.double(), tm.double()
    x = sample(np.float64, (3, 4))
    # modules working in place get a non-leaf input, so that autograd allows it
    jx, tx = jtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    jy, ty = jm(jx * 1.0), tm(tx * 1.0)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(2).standard_normal(ty.shape)
    jy.backward(jtorch.tensor(g)), ty.backward(torch.tensor(g))
    tol = 1e-7 if name == "Hardsigmoid" else 1e-12
    np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
    for (jn, jp), (tn, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        assert jn == tn
        np.testing.assert_allclose(jp.grad.numpy(), tp.grad.numpy(), rtol=1e-12)


def test_softmax_module_implicit_dim_warns():
    with pytest.warns(UserWarning, match="^Implicit dimension choice for softmax"):
        jtorch.nn.Softmax()(jtorch.ones(2, 3))
    assert repr(jtorch.nn.Softmax()) == repr(torch.nn.Softmax()) == "Softmax(dim=None)"


def test_rrelu_training_draws_slopes():
    """Training: each non-positive element gets its own slope in [lower, upper], the gradient is
    that slope; positive elements pass. Seeded draws repeat."""
    x = jtorch.tensor([-2.0, -1.0, 0.0, 3.0] * 50, requires_grad=True)
    jtorch.manual_seed(0)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    slope = x.grad.numpy()
    neg = x.detach().numpy() <= 0
    assert np.all((slope[neg] >= 0.1) & (slope[neg] <= 0.3)) and np.all(slope[~neg] == 1.0)
    assert len(np.unique(slope[neg])) > 100
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * slope)
    jtorch.manual_seed(0)
    np.testing.assert_array_equal(F.rrelu(x.detach(), 0.1, 0.3, training=True).numpy(), y.detach().numpy())
    m = jtorch.nn.RReLU(0.1, 0.3)
    assert repr(m) == repr(torch.nn.RReLU(0.1, 0.3)) == "RReLU(lower=0.1, upper=0.3)"
    assert repr(jtorch.nn.RReLU(inplace=True)) == repr(torch.nn.RReLU(inplace=True))
    m.eval()
    np.testing.assert_allclose(m(x.detach()).numpy(), F.leaky_relu(x.detach(), 0.2).numpy())


def test_softmax2d():
    x = sample(np.float64, (2, 3, 2, 2))
    jm, tm = jtorch.nn.Softmax2d(), torch.nn.Softmax2d()
    assert repr(jm) == repr(tm)
    for inp in (x, x[0]):
        check(jm, tm, inp, 1e-12)
    raises_like(lambda: jm(jtorch.zeros(2, 2)), lambda: tm(torch.zeros(2, 2)))
