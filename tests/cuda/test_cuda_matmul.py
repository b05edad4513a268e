"""CUDA matrix products (kernels/cuda/matmul.py, gemm.py) against the CPU backend: mm, bmm, mv,
dot, vdot, matmul/@, addmm, addmv, baddbmm, einsum (jtorch has no addbmm); dtypes, strided operands, alpha/beta,
empty contractions, out= and in-place forms, autograd. Tiny sizes: the simulator is slow."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch

RNG = np.random.default_rng(0)
DTYPES = ["float32", "float64", "float16", "int64", "int8", "complex64"]


def data(shape, dtype="float64", rng=RNG):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def same(fn, *arrays, rtol=None):
    """fn over CPU tensors and over the same tensors on CUDA give the same values and dtype."""
    cpu = [jtorch.tensor(a) for a in arrays]
    gpu = [t.cuda() for t in cpu]
    want = fn(*cpu)
    got = fn(*gpu)
    assert got.device.type == "cuda"
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    w, g = want.numpy(), got.numpy()
    if w.dtype.kind in "iub":
        np.testing.assert_array_equal(g, w)
    else:
        tol = rtol or {np.float16: 2e-3, np.float32: 1e-5, np.complex64: 1e-5}.get(w.dtype.type, 1e-12)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * 4)
    return got


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_dtypes_and_strides(dtype):
    a, b = data((5, 7), dtype), data((7, 10), dtype)
    same(jtorch.mm, a, b)
    same(lambda x, y: y.t() @ x.t(), a, b)  # transposed operands read through their strides
    same(lambda x, y: x[::2, 1:] @ y[1:, ::3], a, b)  # sliced, step > 1


def test_mm_int8_wraps_like_cpu():
    a, b = np.full((3, 20), 100, np.int8), np.full((20, 2), 7, np.int8)
    got = same(jtorch.mm, a, b)
    assert got.numpy()[0, 0] == np.int8(np.int64(14000) % 256 - 256)


def test_mm_larger_than_one_tile():
    same(jtorch.mm, data((17, 19), "float32"), data((19, 9), "float32"))


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_bmm(dtype):
    a, b = data((3, 4, 5), dtype), data((3, 5, 2), dtype)
    same(jtorch.bmm, a, b)
    same(lambda x, y: jtorch.bmm(y.transpose(1, 2), x.transpose(1, 2)), a, b)
    same(lambda x, y: jtorch.bmm(x[:, :, 1:], y[:, 1:, :]), a, b)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "complex64"])
def test_mv_dot_vdot(dtype):
    m, v, w = data((4, 6), dtype), data((6,), dtype), data((6,), dtype)
    same(jtorch.mv, m, v)
    same(lambda x, y: x.t()[1:, ::2] @ y[::2], data((3, 8), dtype), data((3,), dtype))
    same(jtorch.dot, v, w)
    same(lambda x, y: jtorch.dot(x[::2], y[1::2]), v, w)
    same(jtorch.vdot, v, w)


def test_vdot_conjugates_first():
    v, w = data((5,), "complex64"), data((5,), "complex64")
    got = same(jtorch.vdot, v, w)
    np.testing.assert_allclose(got.numpy(), np.vdot(v, w), rtol=1e-5)


def test_matmul_shapes_and_broadcasting():
    same(jtorch.matmul, data((2, 1, 3, 4)), data((3, 4, 2)))  # batch broadcast
    same(jtorch.matmul, data((4,)), data((2, 4, 3)))          # 1-D @ batched
    same(jtorch.matmul, data((2, 3, 4)), data((4,)))          # batched @ 1-D
    same(jtorch.matmul, data((4,)), data((4,)))               # 0-dim result
    same(lambda x, y: x @ y, data((1, 4)), data((4, 1)))      # size-1 dims
    same(lambda x, y: x @ y.mT, data((2, 3, 4)), data((2, 2, 4)))


def test_addmm_addmv_baddbmm_alpha_beta():
    m1, m2, s = data((3, 4)), data((4, 5)), data((3, 5))
    same(lambda s, a, b: jtorch.addmm(s, a, b, beta=0.5, alpha=2.0), s, m1, m2)
    same(lambda s, a, b: jtorch.addmm(s, a, b), data((5,)), m1, m2)  # self broadcast (stride 0)
    same(lambda s, a, b: jtorch.addmv(s, a, b, beta=-1.5, alpha=0.25), data((3,)), m1, data((4,)))
    b1, b2 = data((2, 3, 4)), data((2, 4, 5))
    same(lambda s, a, b: jtorch.baddbmm(s, a, b, beta=2.0, alpha=-1.0), data((2, 3, 5)), b1, b2)
    same(lambda s, a, b: jtorch.addmm(s, a, b, beta=3, alpha=2), data((3, 5), "int64"), data((3, 4), "int64"),
         data((4, 5), "int64"))
    same(lambda s, a, b: jtorch.addmm(s, a, b, beta=0.5, alpha=2.0), data((3, 5), "float16"),
         data((3, 4), "float16"), data((4, 5), "float16"))


def test_beta_zero_ignores_nan_alpha_zero_ignores_inf():
    s = np.full((3, 5), np.nan)
    got = same(lambda s, a, b: jtorch.addmm(s, a, b, beta=0), s, data((3, 4)), data((4, 5)))
    assert not np.isnan(got.numpy()).any()
    got = same(lambda s, a, b: jtorch.addmv(s, a, b, beta=0), np.full(3, np.nan), data((3, 4)), data((4,)))
    assert not np.isnan(got.numpy()).any()
    a = data((3, 4))
    a[0, 0] = np.inf
    got = same(lambda s, a, b: jtorch.addmm(s, a, b, alpha=0), data((3, 5)), a, data((4, 5)))
    assert np.isfinite(got.numpy()).all()


def test_empty_dims():
    same(jtorch.mm, data((3, 0)), data((0, 4)))               # K = 0: zeros
    same(jtorch.mm, data((0, 3)), data((3, 4)))               # M = 0
    same(jtorch.bmm, data((0, 2, 3)), data((0, 3, 4)))
    same(jtorch.dot, data((0,)), data((0,)))
    same(jtorch.mv, data((3, 0)), data((0,)))
    same(jtorch.matmul, data((2, 3, 0)), data((0, 2)))


def test_addmm_empty_contraction_scales_self():
    same(lambda s, a, b: jtorch.addmm(s, a, b, beta=2.0), data((3, 4)), data((3, 0)), data((0, 4)))


def test_out_and_inplace():
    a, b = data((3, 4)), data((4, 5))
    ca, cb = jtorch.tensor(a).cuda(), jtorch.tensor(b).cuda()
    out = jtorch.empty(5, 3, dtype=jtorch.float64).cuda().t()  # a transposed out
    r = jtorch.mm(ca, cb, out=out)
    assert r is out
    np.testing.assert_allclose(out.cpu().numpy(), a @ b, rtol=1e-12)
    out2 = jtorch.empty(0, dtype=jtorch.float64).cuda()        # resized by out=
    jtorch.matmul(ca, cb, out=out2)
    np.testing.assert_allclose(out2.cpu().numpy(), a @ b, rtol=1e-12)
    s = data((3, 5))
    cs = jtorch.tensor(s).cuda()
    cs.addmm_(ca, cb, beta=0.5, alpha=2.0)                    # self is out
    np.testing.assert_allclose(cs.cpu().numpy(), 0.5 * s + 2 * (a @ b), rtol=1e-12)
    bs, b1, b2 = data((2, 3, 2)), data((2, 3, 4)), data((2, 4, 2))
    cbs = jtorch.tensor(bs).cuda()
    cbs.baddbmm_(jtorch.tensor(b1).cuda(), jtorch.tensor(b2).cuda(), alpha=-1.0)
    np.testing.assert_allclose(cbs.cpu().numpy(), bs - b1 @ b2, rtol=1e-12)
    sq, sq2 = data((4, 4)), data((4, 4))
    c1 = jtorch.tensor(sq).cuda()
    jtorch.mm(c1, jtorch.tensor(sq2).cuda(), out=c1)           # out is an operand
    np.testing.assert_allclose(c1.cpu().numpy(), sq @ sq2, rtol=1e-12)
    v = jtorch.empty(3, dtype=jtorch.float64).cuda()
    jtorch.mv(ca, jtorch.tensor(b[:, 0].copy()).cuda(), out=v)
    np.testing.assert_allclose(v.cpu().numpy(), a @ b[:, 0], rtol=1e-12)


def test_einsum():
    same(lambda x, y: jtorch.einsum("ij,jk->ik", x, y), data((3, 4)), data((4, 2)))
    same(lambda x, y: jtorch.einsum("bij,bjk->bik", x, y), data((2, 3, 4)), data((2, 4, 2)))
    same(lambda x, y: jtorch.einsum("i,i->", x, y), data((5,)), data((5,)))
    same(lambda x, y: jtorch.einsum("ij,kj->ik", x, y), data((3, 4), "float32"), data((2, 4), "float32"))


def test_bool_errors_like_cpu():
    a = jtorch.ones(2, 2, dtype=jtorch.bool)
    with pytest.raises(NotImplementedError) as cpu_err:
        jtorch.mm(a, a)
    with pytest.raises(type(cpu_err.value)) as cuda_err:
        jtorch.mm(a.cuda(), a.cuda())
    assert str(cuda_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("op", ["mm", "matmul"])
def test_autograd(op):
    a, b, g = data((3, 4)), data((4, 2)), data((3, 2))
    grads = []
    for dev in ("cpu", "cuda"):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        y = jtorch.tensor(b).to(dev).requires_grad_()
        z = getattr(jtorch, op)(x, y)
        z.backward(jtorch.tensor(g).to(dev))  # not sum(): reductions are another stub family
        grads.append((x.grad.cpu().numpy(), y.grad.cpu().numpy()))
        assert x.grad.device.type == dev
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)


def test_autograd_batched_matmul():
    a, b, g = data((2, 3, 4)), data((4,)), data((2, 3))
    grads = []
    for dev in ("cpu", "cuda"):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        y = jtorch.tensor(b).to(dev).requires_grad_()
        jtorch.matmul(x, y).backward(jtorch.tensor(g).to(dev))
        grads.append((x.grad.cpu().numpy(), y.grad.cpu().numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)


@settings(max_examples=6, deadline=None)
@given(m=st.integers(1, 6), k=st.integers(0, 6), n=st.integers(1, 6), ta=st.booleans(), tb=st.booleans(),
       dtype=st.sampled_from(["float64", "int64", "complex64"]), seed=st.integers(0, 2**16))
def test_mm_property(m, k, n, ta, tb, dtype, seed):
    rng = np.random.default_rng(seed)
    a = data((k, m) if ta else (m, k), dtype, rng)
    b = data((n, k) if tb else (k, n), dtype, rng)
    same(lambda x, y: jtorch.mm(x.t() if ta else x, y.t() if tb else y), a, b)
