"""The conjugate and negative bits against torch 2.13 (recorded): `conj()` is a lazy view with the bit,
views of it keep it, writes through it reach the conjugated tensor, every other operator sees the
conjugated values (the fallback of jtorch/native/math_bits.py), resolve_conj / resolve_neg / conj_physical
materialise, `.numpy()` refuses a tensor with a bit, and autograd goes through conj as torch's does.
"""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()

A = np.array([[1 + 2j, -0.5 + 0.25j, 3j], [3 - 1j, -2 - 0.5j, 4 + 0j]], np.complex64)
B = np.array([[2 - 1j, 1j, 0.5 + 0.5j], [3 + 0j, 1 + 1j, -1 - 2j]], np.complex64)


def values(t):
    """What a tensor means, whatever bits it carries."""
    return t.detach().resolve_conj().resolve_neg().numpy()


def both(fn):
    """fn(lib) for jtorch and torch: (is_conj, is_neg, values) of the result, or the error."""
    out = []
    for T in (jtorch, torch):
        try:
            r = fn(T)
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            out.append((type_name(e), str(e)))
            continue
        out.append((bool(r.is_conj()), bool(r.is_neg()), str(r.dtype).split(".")[-1], values(r)))
    return out


def assert_same(fn):
    got, want = both(fn)
    assert got[:-1] == want[:-1]  # the bits and dtype, or the error type
    if len(got) == 2:
        assert got == want  # the error text
    else:
        np.testing.assert_allclose(got[3], want[3], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda T: T.tensor(A).conj(),
    lambda T: T.tensor(A).conj().conj(),
    lambda T: T.tensor(A).conj()[1],
    lambda T: T.tensor(A).conj()[:, 1:],
    lambda T: T.tensor(A).conj().t(),
    lambda T: T.tensor(A).conj().view(3, 2),
    lambda T: T.tensor(A).conj().reshape(-1),
    lambda T: T.tensor(A).conj().unsqueeze(0).expand(2, 2, 3),
    lambda T: T.tensor(A).conj().permute(1, 0).diagonal(),
    lambda T: T.tensor(A).conj().detach(),
    lambda T: T.tensor(A).conj().resolve_conj(),
    lambda T: T.tensor(A).conj().clone(),
    lambda T: T.tensor(A).conj().contiguous(),
    lambda T: T.tensor(A).conj().conj_physical(),
    lambda T: T.tensor(A).conj_physical(),
    lambda T: T.tensor(A).conj().imag,
    lambda T: T.tensor(A).conj().real,
    lambda T: T.tensor(A).conj().imag.resolve_neg(),
    lambda T: T.tensor(A)._neg_view(),
    lambda T: T.tensor(A)._neg_view().conj(),
    lambda T: T.tensor(A.real.copy()).conj(),
    lambda T: T.view_as_real(T.tensor(A).conj()),
    lambda T: T.view_as_real(T.tensor(A)._neg_view()),
    lambda T: T.tensor(A)._neg_view().unfold(1, 2, 1),
    lambda T: T.tensor(A).conj().split(1, 1)[2],
    lambda T: T.tensor(A).conj().mT.flatten(),
    lambda T: T.tensor(A).conj().movedim(0, 1).unflatten(0, (3, 1)),
], ids=lambda f: "")
def test_bits_and_values(fn):
    assert_same(fn)


@pytest.mark.parametrize("fn", [
    lambda T: T.tensor(A).conj() + T.tensor(B),
    lambda T: T.tensor(A).conj() * T.tensor(B).conj(),
    lambda T: T.tensor(A).conj() @ T.tensor(B).t(),
    lambda T: T.matmul(T.tensor(A).t().conj(), T.tensor(B)),
    lambda T: T.tensor(A).conj().sum(0),
    lambda T: T.tensor(A).conj().abs(),
    lambda T: T.tensor(A).conj().exp(),
    lambda T: T.tensor(A).conj()[T.tensor([1, 0])],
    lambda T: T.cat([T.tensor(A).conj(), T.tensor(B)]),
    lambda T: T.stack([T.tensor(A).conj(), T.tensor(B)._neg_view()]),
    lambda T: T.tensor(A).conj().to(T.complex128),
    lambda T: T.tensor(A).conj().imag * 2,
    lambda T: T.where(T.tensor([True, False, True]), T.tensor(A).conj(), T.tensor(B)),
], ids=lambda f: "")
def test_operators_see_the_conjugate(fn):
    assert_same(fn)


def test_in_inference_mode():
    got = []
    for T in (jtorch, torch):
        with T.inference_mode():
            z = T.tensor(A)
            c = z.conj()
            c.mul_(2j)
            got.append((bool(c.is_conj()), bool(c.reshape(-1).is_conj()), (c + 1).numpy(), z.numpy()))
    assert got[0][:2] == got[1][:2]
    for a, b in zip(got[0][2:], got[1][2:]):
        np.testing.assert_allclose(a, b)


def test_item_tolist_and_printing():
    for T in (jtorch, torch):
        c = T.tensor(A).conj()
        assert c[0, 0].item() == (1 - 2j)
        assert c.tolist() == np.conj(A).tolist()
        assert c.imag.tolist() == (-A.imag).tolist()
    assert str(jtorch.tensor(A).conj()) == str(torch.tensor(A).conj())
    assert str(jtorch.tensor(A).conj().imag) == str(torch.tensor(A).conj().imag)


def test_storage_is_shared_and_writes_go_through():
    got = []
    for T in (jtorch, torch):
        z = T.tensor(A)
        c = z.conj()
        c[0, 0] = 5 + 5j          # copy_ into a conjugate view writes the conjugate
        c[1].add_(1j)             # an in-place operator on a view of it: computed, written back conjugated
        c.imag[0, 1:] = 7.0       # a negative view: writes -7 into z's imaginary parts
        T.mul(T.tensor(B)[:, :2], 2, out=c[:, :2])  # out= into a conjugate view
        got.append(z.numpy())
    np.testing.assert_array_equal(got[0], got[1])
    z = jtorch.tensor(A)
    assert z.conj()._base is z and z.conj().data_ptr() == z.data_ptr() == z.conj().imag.data_ptr() - 4


def test_copy_from_and_into_conjugates():
    got = []
    for T in (jtorch, torch):
        dst = T.zeros(2, 3, dtype=T.complex64)
        dst.copy_(T.tensor(A).conj())
        dst2 = T.zeros(2, 3, dtype=T.complex64)
        dst2.conj().copy_(T.tensor(A).conj())  # both conjugate: the storage's values are A's
        got.append((dst.numpy(), dst2.numpy()))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    np.testing.assert_array_equal(got[0][1], A)


@pytest.mark.parametrize("how", ["conj", "neg"])
def test_numpy_refuses_a_tensor_with_a_bit(how):
    texts = []
    for T in (jtorch, torch):
        z = T.tensor(A)
        t = z.conj() if how == "conj" else z._neg_view()
        with pytest.raises(RuntimeError) as info:
            t.numpy()
        texts.append(str(info.value))
        np.testing.assert_allclose(t.numpy(force=True), np.conj(A) if how == "conj" else -A)
    assert texts[0] == texts[1]


def test_autograd_through_conj():
    res = []
    for T in (jtorch, torch):
        x = T.tensor(A, requires_grad=True)
        c = x.conj()
        names = [c.grad_fn.name(), c.resolve_conj().grad_fn.name(), c.imag.grad_fn.name(),
                 x._neg_view().grad_fn.name(), c.conj_physical().grad_fn.name()]
        y = (c * T.tensor(B)).real.sum() + (c.imag * 3).sum() + (x._neg_view().abs()).sum()
        y.backward()
        res.append((names, x.grad.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)
