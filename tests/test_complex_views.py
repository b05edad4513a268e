"""Complex numbers against torch 2.13 (recorded): view_as_real / view_as_complex and the real / imag
views (writes through them reach the complex tensor), conj / conj_physical / resolve_conj / resolve_neg /
is_conj / is_neg, complex(real, imag), polar(abs, angle), angle; their error texts, out= forms, meta
tensors, autograd nodes and gradients.

The conjugate and negative bits themselves (views, fallback, writes through them) are tested in
tests/test_conjugate_bit.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jtorch
from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
Z = np.array([[1 + 2j, -0.5 + 0.1j, 0j], [3 - 1j, -2 - 0.5j, 4j]], np.complex64)
R = np.array([[1.0, -2.5, 0.0], [0.25, 3.0, -0.0]], np.float32)


def outcome(fn, lib):
    """fn(lib) as ('ok', dtype, shape, strides, values) or (exception type, first line of its text)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type_name(e), str(e).split("\n")[0]
    return "ok", str(r.dtype).split(".")[-1], tuple(r.shape), tuple(r.stride()), r.detach().resolve_conj().numpy()


def same_as_torch(fn, context=""):
    got, want = outcome(fn, jtorch), outcome(fn, torch)
    if not (got[0] == want[0] == "ok"):
        assert got == want, context
        return
    assert got[:4] == want[:4], (got[:4], want[:4], context)
    rtol = 2e-6 if got[4].dtype in (np.float32, np.complex64) else 1e-13
    np.testing.assert_allclose(got[4], want[4], rtol=rtol, atol=1e-6 if rtol > 1e-6 else 1e-15, err_msg=context)


# ---- views ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.view_as_real(T.tensor(Z)),
    lambda T: T.view_as_real(T.tensor(Z).t()),
    lambda T: T.view_as_real(T.tensor(Z)[:, 1:]),
    lambda T: T.view_as_real(T.tensor(1 + 2j)),
    lambda T: T.view_as_real(T.tensor(Z, dtype=T.complex128)),
    lambda T: T.view_as_complex(T.tensor(R.reshape(3, 2))),
    lambda T: T.view_as_complex(T.view_as_real(T.tensor(Z)).t().contiguous().t()[0]),
    lambda T: T.view_as_complex(T.view_as_real(T.tensor(Z))[:, 1:]),
    lambda T: T.tensor(Z).real,
    lambda T: T.tensor(Z).imag,
    lambda T: T.real(T.tensor(Z).t()),
    lambda T: T.imag(T.tensor(Z, dtype=T.complex128)),
    lambda T: T.tensor(R).real,
])
def test_views_match_torch(call):
    same_as_torch(call)


@pytest.mark.parametrize("call", [
    lambda T: T.view_as_real(T.tensor(R)),
    lambda T: T.view_as_complex(T.ones(3)),
    lambda T: T.view_as_complex(T.ones(2, 2).t()),
    lambda T: T.view_as_complex(T.ones(2, 3)),
    lambda T: T.view_as_complex(T.ones((), dtype=T.float64)),
    lambda T: T.view_as_complex(T.ones(2, dtype=T.int64)),
    lambda T: T.view_as_complex(T.ones(3, 2)[1:]),
    lambda T: T.view_as_complex(T.ones(12).as_strided((2, 2), (3, 1))),
    lambda T: T.imag(T.tensor(R)),
    lambda T: T.tensor([1, 2]).imag,
])
def test_view_errors_match_torch(call):
    same_as_torch(call)


def test_writes_through_real_and_imag_reach_the_complex_tensor():
    def run(T):
        x = T.tensor(Z)
        x.real.mul_(10)
        x.imag[0] = -1
        x.imag[1].zero_()
        v = T.view_as_real(x)
        v[..., 0] += 0.5
        return x
    same_as_torch(run)


def test_real_and_imag_setters():
    def run(T):
        x = T.tensor(Z)
        x.real = T.tensor([7.0, 8.0, 9.0])
        x.imag = 2
        return x
    same_as_torch(run)


def test_views_share_the_base_and_its_version():
    x = jtorch.tensor(Z)
    r = jtorch.view_as_real(x)
    assert r._base is x and x.real._base is x and jtorch.view_as_complex(r)._base is x
    v = x._version
    x.imag.add_(1)
    assert x._version == v + 1 and r._version == v + 1
    assert x.real.data_ptr() == x.data_ptr() and x.imag.data_ptr() == x.data_ptr() + 4
    assert x.real.storage_offset() == 0 and x.imag.storage_offset() == 1


def test_real_of_a_real_tensor_is_itself():
    for T in (jtorch,):
        x = T.tensor(R)
        assert x.real is x and T.real(x) is x
        assert T.conj(x) is x and T.conj_physical(x) is x and T.resolve_conj(x) is x and T.resolve_neg(x) is x


# ---- conj ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.conj(T.tensor(Z)),
    lambda T: T.tensor(Z).t().conj(),
    lambda T: T.conj_physical(T.tensor(Z, dtype=T.complex128)),
    lambda T: T.tensor(Z).conj_physical(),
    lambda T: T._conj_physical(T.tensor(Z)),
    lambda T: T.conj_physical_(T.tensor(Z)),
    lambda T: T.tensor(Z).conj_physical_(),
    lambda T: T.conj_physical(T.tensor(Z), out=T.empty(0, dtype=T.complex64)),
    lambda T: T.conj_physical(T.tensor(R), out=T.empty(0)),
    lambda T: T.conj_physical(T.tensor(Z), out=T.empty(0)),
    lambda T: T.conj(T.tensor(R)),
    lambda T: T.conj(T.tensor([1, 2])),
    lambda T: T.resolve_conj(T.conj(T.tensor(Z))),
    lambda T: T.resolve_neg(T.tensor(Z)),
    lambda T: T.tensor(Z).H,
    lambda T: T.tensor(Z).mH,
    lambda T: T.tensor(Z).unsqueeze(0).mH,
    lambda T: T.tensor(Z).adjoint(),
    lambda T: T.adjoint(T.tensor(R)),
    lambda T: T.tensor(R).H,
    lambda T: T.ones(3).H,
    lambda T: T.ones(2, 2, 2).H,
    lambda T: T.ones(3).mH,
    lambda T: T.ones(3).adjoint(),
])
def test_conj_matches_torch(call):
    same_as_torch(call)


def test_H_of_a_0_dim_tensor_warns_and_conjugates():
    for T in (jtorch, torch):
        with pytest.warns(UserWarning, match="Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."):
            r = T.tensor(1 + 1j).H
        assert r.resolve_conj().item() == 1 - 1j


def test_conj_bits():
    """conj of a complex tensor sets the conjugate bit, of a real one returns it; zero_ through it writes z."""
    for T in (jtorch, torch):
        z, r = T.tensor(Z), T.tensor(R)
        assert z.conj().is_conj() and not T.is_conj(z) and not z.is_neg() and not T.is_neg(r)
        assert not r.conj().is_conj()
        z.conj().zero_()
        assert not z.numpy().any()


# ---- complex, polar, angle --------------------------------------------------------------------------------
A = np.array([1.0, 2.0, 0.5, 0.0], np.float32)
B = np.array([0.3, -1.0, 3.0, 2.0], np.float32)


@pytest.mark.parametrize("call", [
    lambda T: T.complex(T.tensor(A), T.tensor(B)),
    lambda T: T.complex(T.tensor(A, dtype=T.float64), T.tensor(B, dtype=T.float64)),
    lambda T: T.complex(T.tensor(A), T.tensor(B)[:1]),
    lambda T: T.complex(T.tensor(A).reshape(4, 1), T.tensor(B)),
    lambda T: T.complex(T.tensor(A), T.tensor(B), out=T.empty(0, dtype=T.complex64)),
    lambda T: T.polar(T.tensor(A), T.tensor(B)),
    lambda T: T.polar(T.tensor(A, dtype=T.float64), T.tensor(B, dtype=T.float64)),
    lambda T: T.polar(T.tensor(A), T.tensor(B), out=T.empty(4, dtype=T.complex64)),
    lambda T: T.angle(T.tensor(Z)),
    lambda T: T.angle(T.tensor(Z, dtype=T.complex128)),
    lambda T: T.angle(T.tensor([-2, 0, 3])),
    lambda T: T.angle(T.tensor([True, False])),
    lambda T: T.angle(T.tensor([-2.0, -0.0, 0.0, float("nan"), float("-inf")])),
    lambda T: T.angle(T.tensor(Z), out=T.empty(0, dtype=T.float64)),
    lambda T: T.angle(T.tensor(Z), out=T.empty(0, dtype=T.complex64)),
    lambda T: T.tensor(Z).angle(),
    lambda T: T.isreal(T.tensor([1 + 0j, 1j, 0j])),
    lambda T: T.tensor(Z).sgn(),
    lambda T: T.tensor(Z).sgn_(),
    lambda T: T.tensor(Z).abs(),
])
def test_complex_constructors_and_angle_match_torch(call):
    same_as_torch(call)


@pytest.mark.parametrize("call", [
    lambda T: T.complex(T.tensor(A), T.tensor(B, dtype=T.float64)),
    lambda T: T.complex(T.tensor([1, 2]), T.tensor([1, 2])),
    lambda T: T.complex(T.tensor(A), T.tensor(B), out=T.empty(0, dtype=T.complex128)),
    lambda T: T.complex(T.tensor(A), T.tensor(B), out=T.empty(0)),
    lambda T: T.polar(T.tensor(A), T.tensor(B, dtype=T.float64)),
    lambda T: T.polar(T.tensor([1j]), T.tensor([1j])),
    lambda T: T.complex(T.tensor(A), T.tensor(B[:3])),
    lambda T: T.angle(T.tensor(Z), out=T.empty(0, dtype=T.int64)),
])
def test_complex_constructor_errors_match_torch(call):
    same_as_torch(call)


@SETTINGS
@given(parts=hnp.arrays(np.float64, st.tuples(st.integers(0, 3), st.integers(1, 4), st.just(2)),
                        elements=st.floats(-1e3, 1e3)))
def test_round_trips_against_numpy(parts):
    # dense strides (torch.tensor of an empty NumPy array keeps NumPy's zero strides, which view_as_complex refuses)
    t = jtorch.zeros(parts.shape, dtype=jtorch.float64).copy_(jtorch.tensor(parts))
    z = jtorch.view_as_complex(t)
    want = np.ascontiguousarray(parts).view(np.complex128)[..., 0]
    np.testing.assert_array_equal(z.numpy(), want)
    np.testing.assert_array_equal(jtorch.view_as_real(z).numpy(), parts)
    np.testing.assert_array_equal(jtorch.complex(t[..., 0], t[..., 1]).numpy(), want)
    np.testing.assert_array_equal(z.conj().resolve_conj().numpy(), np.conj(want))
    np.testing.assert_allclose(jtorch.angle(z).numpy(), np.angle(want), rtol=1e-15)
    np.testing.assert_allclose(jtorch.polar(z.abs(), z.angle()).numpy(), want, rtol=1e-12, atol=1e-9)


# ---- meta -------------------------------------------------------------------------------------------------
def test_meta():
    m = jtorch.empty(2, 3, dtype=jtorch.complex64, device="meta")
    assert jtorch.view_as_real(m).shape == (2, 3, 2) and jtorch.view_as_real(m).dtype is jtorch.float32
    assert m.real.shape == (2, 3) and m.imag.dtype is jtorch.float32 and m.conj().device.type == "meta"
    assert jtorch.angle(m).dtype is jtorch.float32
    f = jtorch.empty(4, 2, dtype=jtorch.float64, device="meta")
    assert jtorch.view_as_complex(f).dtype is jtorch.complex128 and jtorch.view_as_complex(f).shape == (4,)
    assert jtorch.complex(f, f).dtype is jtorch.complex128 and jtorch.polar(f, f).shape == (4, 2)


# ---- autograd -------------------------------------------------------------------------------------------
W = np.array([[0.5 - 1j, 2 + 0.25j, -1j], [1 + 0j, -0.5 + 0.5j, 3 - 2j]])


@pytest.mark.parametrize("name, fn", [
    ("conj", lambda T, z: T.conj(z)),
    ("conj_physical", lambda T, z: T.conj_physical(z)),
    ("real", lambda T, z: z.real),
    ("imag", lambda T, z: z.imag),
    ("view_as_real", lambda T, z: T.view_as_real(z)),
    ("angle", lambda T, z: T.angle(z)),
    ("sgn", lambda T, z: T.sgn(z)),
    ("abs", lambda T, z: z.abs()),
    ("H", lambda T, z: z.H),
    ("adjoint", lambda T, z: z.adjoint()),
])
def test_complex_gradients_and_nodes_match_torch(name, fn):
    def run(T):
        z = T.tensor(Z.astype(np.complex128) + 0.25, requires_grad=True)
        y = fn(T, z)
        w = T.tensor(W if y.is_complex() else W.real)
        if name in ("H", "adjoint"):
            w = w.t()
        elif name == "view_as_real":
            w = T.view_as_real(T.tensor(W))
        (g,) = T.autograd.grad((y * w).sum().abs(), z)
        return y.grad_fn.name(), g.resolve_conj().numpy()

    (jn, jg), (tn, tg) = run(jtorch), run(torch)
    assert jn == tn or (name == "conj" and (jn, tn) == ("ConjBackward0", "ConjBackward0"))
    np.testing.assert_allclose(jg, tg, rtol=1e-12)


def test_parts_gradients_and_nodes_match_torch():
    a, b = np.array([1.0, 2.0, 0.5]), np.array([0.3, -1.0, 3.0])

    def run(T, which):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        z = getattr(T, which)(x, y)
        w = T.tensor(np.array([0.5 - 1j, 2 + 0.25j, -1j]))
        gx, gy = T.autograd.grad((z * w).sum().abs(), (x, y))
        return z.grad_fn.name(), gx.numpy(), gy.numpy()

    for which in ("complex", "polar"):
        j, t = run(jtorch, which), run(torch, which)
        assert j[0] == t[0]
        np.testing.assert_allclose(j[1], t[1], rtol=1e-12)
        np.testing.assert_allclose(j[2], t[2], rtol=1e-12)


def test_view_as_complex_gradient_and_gradcheck():
    x = jtorch.tensor(np.array([[1.0, 2.0], [0.5, -3.0]]), requires_grad=True)
    y = jtorch.view_as_complex(x)
    assert y.grad_fn.name() == "ViewAsComplexBackward0"
    assert jtorch.autograd.gradcheck(lambda x: jtorch.view_as_real(jtorch.view_as_complex(x).sgn()), (x,))
    assert jtorch.autograd.gradcheck(lambda x: jtorch.view_as_complex(x).angle(), (x,))
    assert jtorch.autograd.gradcheck(lambda x: jtorch.view_as_complex(x).conj().imag, (x,))
    a = jtorch.tensor([1.0, 2.0], dtype=jtorch.float64, requires_grad=True)
    b = jtorch.tensor([0.3, 0.7], dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda a, b: jtorch.view_as_real(jtorch.polar(a, b)), (a, b))
    assert jtorch.autograd.gradcheck(lambda a, b: jtorch.view_as_real(jtorch.complex(a, b)), (a, b))
