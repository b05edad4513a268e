"""jtorch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against NumPy finite differences
and torch's results, output nesting, create_graph and strict mode, error texts."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from _torch_oracle import oracle_torch, type_name

AF = jtorch.autograd.functional
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True)


def f_np(a, b):
    return np.exp(a * b).sum(-1), a * a


def f_lib(a, b):
    return (a * b).exp().sum(-1), a * a


def numeric_jacobian(fn, arrays, eps=1e-6):
    """J[i][k]: d out_i / d in_k by central differences, shaped out_i.shape + in_k.shape."""
    outs = fn(*arrays)
    res = [[np.zeros(np.shape(o) + a.shape) for a in arrays] for o in outs]
    for k, a in enumerate(arrays):
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            for i, (op, om) in enumerate(zip(fn(*plus), fn(*minus))):
                res[i][k][(Ellipsis,) + idx] = (np.asarray(op) - np.asarray(om)) / (2 * eps)
    return res


@SETTINGS
@given(n=st.integers(1, 3), m=st.integers(0, 3), seed=st.integers(0, 9))
def test_jacobian_against_finite_differences(n, m, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, (n, m)), rng.uniform(-1, 1, m)
    J = AF.jacobian(f_lib, (jtorch.tensor(a), jtorch.tensor(b)))
    want = numeric_jacobian(f_np, [a, b])
    assert isinstance(J, tuple) and len(J) == 2 and all(isinstance(r, tuple) and len(r) == 2 for r in J)
    for i in range(2):
        for k in range(2):
            assert tuple(J[i][k].shape) == want[i][k].shape and not J[i][k].requires_grad
            np.testing.assert_allclose(J[i][k].numpy(), want[i][k], rtol=1e-5, atol=1e-7)


def test_nesting_and_values_match_torch():
    torch = oracle_torch()
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, 3)
    cases = [
        ("jacobian", lambda L, F, x, y: F.jacobian(lambda p, q: (p * q).exp().sum(-1), (x, y))),
        ("jacobian", lambda L, F, x, y: F.jacobian(lambda p: p.sin(), y)),
        ("jacobian", lambda L, F, x, y: F.jacobian(lambda p: (p.sin(), p * p), y)),
        ("jacobian", lambda L, F, x, y: F.jacobian(lambda p: p.sum(), x)),
        ("hessian", lambda L, F, x, y: F.hessian(lambda p, q: (p * p * q).sum(), (x, y))),
        ("hessian", lambda L, F, x, y: F.hessian(lambda p: (p * p * p).sum(), y)),
        ("vjp", lambda L, F, x, y: F.vjp(lambda p: p * p, y, L.ones(3, dtype=L.float64))),
        ("vjp", lambda L, F, x, y: F.vjp(lambda p, q: (p * q).sum(), (x, y))),
        ("jvp", lambda L, F, x, y: F.jvp(lambda p: (p * p, p.sin()), y, L.ones(3, dtype=L.float64))),
        ("hvp", lambda L, F, x, y: F.hvp(lambda p: (p * p * p).sum(), y, L.ones(3, dtype=L.float64))),
        ("vhp", lambda L, F, x, y: F.vhp(lambda p, q: (p * p * q).sum(), (x, y),
                                         (L.ones(2, 3, dtype=L.float64), L.ones(3, dtype=L.float64)))),
    ]

    def flat(r):
        if isinstance(r, tuple):
            return ("tuple", [flat(e) for e in r])
        return tuple(r.shape), r.detach().numpy()

    def same(x, y):
        assert type(x) is type(y)
        if x[0] == "tuple":
            assert len(x[1]) == len(y[1])
            for p, q in zip(x[1], y[1]):
                same(p, q)
        else:
            assert x[0] == y[0]
            np.testing.assert_allclose(x[1], y[1], rtol=1e-10, atol=1e-12)

    for name, case in cases:
        got = case(jtorch, AF, jtorch.tensor(a), jtorch.tensor(b))
        want = case(torch, torch.autograd.functional, torch.tensor(a), torch.tensor(b))
        same(flat(got), flat(want))


def test_hessian_against_finite_differences():
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, 4)
    H = AF.hessian(lambda p: (p * p * p).sum() + (p.sin() * p).sum(), jtorch.tensor(a))
    grad = lambda x: [3 * x * x + np.sin(x) + x * np.cos(x)]  # noqa: E731
    np.testing.assert_allclose(H.numpy(), numeric_jacobian(grad, [a])[0][0], rtol=1e-5, atol=1e-7)


def test_create_graph_keeps_history():
    x = jtorch.tensor([0.5, -1.0, 2.0], dtype=jtorch.float64, requires_grad=True)
    J = AF.jacobian(lambda p: p * p * p, x, create_graph=True)
    assert J.requires_grad
    g, = jtorch.autograd.grad(J.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * np.array([0.5, -1.0, 2.0]))
    assert not AF.jacobian(lambda p: p * p * p, x).requires_grad
    out, vj = AF.vjp(lambda p: p * p, x, jtorch.ones(3, dtype=jtorch.float64), create_graph=True)
    assert vj.requires_grad and out.requires_grad


def test_unused_input_gives_zeros_and_strict_errors():
    y = jtorch.tensor([1.0, 2.0], dtype=jtorch.float64)
    J = AF.jacobian(lambda p, q: p * 2, (y, y))
    assert J[1].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided function is independent of input 1. This is "
                                           "not allowed in strict mode.$"):
        AF.jacobian(lambda p, q: p * 2, (y, y), strict=True)
    with pytest.raises(RuntimeError, match="^While computing the hessian, found that the jacobian of the user-provided "
                                           "function with respect to input 0 is independent of the input."):
        AF.hessian(lambda p: (p * 2).sum(), y, strict=True)


def _err(lib, which):
    F = lib.autograd.functional
    y = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    run = {
        "v_none": lambda: F.vjp(lambda a: a * a, y),
        "list_input": lambda: F.jacobian(lambda a: a, [y]),
        "hessian_nonscalar": lambda: F.hessian(lambda a: a * a, y),
        "v_size": lambda: F.jvp(lambda a: a * a, y, lib.ones(2, dtype=lib.float64)),
        "strategy": lambda: F.jacobian(lambda a: a, y, strategy="x"),
        "v_tuple_len": lambda: F.vjp(lambda a: (a, a), y, (y,)),
        "hvp_tuple_out": lambda: F.hvp(lambda a: (a.sum(), a.sum()), y, y),
        "strict_out": lambda: F.vjp(lambda a: lib.ones(3, dtype=lib.float64), y, y, strict=True),
    }[which]
    try:
        run()
    except Exception as e:  # noqa: BLE001 - compared below
        return type_name(e), str(e).replace("jtorch.Size", "Size").replace("torch.Size", "Size").replace(
            "jtorch.tensor.Tensor", "torch.Tensor")
    return None


@pytest.mark.parametrize("which", ["v_none", "list_input", "hessian_nonscalar", "v_size", "strategy", "v_tuple_len",
                                   "hvp_tuple_out", "strict_out"])
def test_errors_match_torch(which):
    torch = oracle_torch()
    want = _err(torch, which)
    assert want is not None and _err(jtorch, which) == want
