"""atleast_1d/2d/3d, ravel, adjoint, sum_to_size, inner, addr(_), addbmm(_), dist, renorm(_),
unravel_index, nonzero_static, fill_diagonal_, logspace and torch.range: values, dtypes, gradients and
node names, out= forms and error texts against torch (recorded); shape rules against NumPy over
random shapes; meta tensors.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import SETTINGS
from _torch_compare import same_as_torch, same_error_as_torch
from jtorch.testing import strategies as jst


def _lin(shape: tuple, lo: float = -2.0, hi: float = 3.0) -> np.ndarray:
    return np.linspace(lo, hi, int(np.prod(shape))).reshape(shape)


# ---- atleast_nd, ravel, adjoint, sum_to_size: shapes against NumPy ----------------------------------------
@SETTINGS
@given(shape=jst.shapes(max_dims=4, max_side=3))
def test_atleast_ravel_against_numpy(shape: tuple) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = jtorch.from_numpy(a)
    for fn, ref in ((jtorch.atleast_1d, np.atleast_1d), (jtorch.atleast_2d, np.atleast_2d),
                    (jtorch.atleast_3d, np.atleast_3d)):
        r = fn(t)
        np.testing.assert_array_equal(r.numpy(), ref(a))
        assert r.data_ptr() == t.data_ptr()  # a view (or the tensor itself)
        pair = fn(t, t)
        assert isinstance(pair, tuple) and len(pair) == 2 and pair[1].shape == ref(a).shape
        assert fn([t])[0].shape == ref(a).shape
    np.testing.assert_array_equal(jtorch.ravel(t).numpy(), a.ravel())
    if len(shape) >= 2:
        np.testing.assert_array_equal(t.mT.ravel().numpy(), np.swapaxes(a, -1, -2).ravel())
        np.testing.assert_array_equal(t.adjoint().numpy(), np.swapaxes(a, -1, -2))
    m = jtorch.empty(shape, device="meta")
    assert jtorch.atleast_3d(m).shape == np.atleast_3d(a).shape and m.ravel().is_meta


@SETTINGS
@given(shape=jst.shapes(min_dims=1, max_dims=4, max_side=3), data=st.data())
def test_sum_to_size_against_numpy(shape: tuple, data: st.DataObject) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    keep = data.draw(st.integers(0, len(shape)))
    target = tuple(s if data.draw(st.booleans()) else 1 for s in shape[len(shape) - keep:])
    lead = tuple(range(len(shape) - keep))
    ones = tuple(len(shape) - keep + i for i, s in enumerate(target) if s == 1)
    expected = a.sum(axis=lead + ones, keepdims=True).reshape(target) if target else np.asarray(a.sum())
    got = jtorch.from_numpy(a).sum_to_size(target)
    np.testing.assert_allclose(got.numpy(), expected)
    assert tuple(got.shape) == target


def test_shape_composites_against_torch() -> None:
    a = _lin((2, 3, 4))

    def fn(T: Any) -> list:
        x = T.tensor(a, requires_grad=True)
        z = T.tensor(2.5, requires_grad=True)
        parts = [T.atleast_1d(z), T.atleast_2d(x[0, 0]), T.atleast_3d(x[0]), T.ravel(x.transpose(0, 2)), x.adjoint(),
                 x.sum_to_size(3, 1), x.sum_to_size((1, 3, 4)), x.sum_to_size(2, 3, 4)]
        total = sum(((p * (i + 1)).sum() for i, p in enumerate(parts)), T.tensor(0.0, dtype=T.float64))
        total.backward()
        names = [p.grad_fn.name() if p.grad_fn is not None else None for p in parts]
        return parts + [x.grad, z.grad] + names

    same_as_torch(fn)


@pytest.mark.parametrize("call", [
    lambda T: T.zeros(2, 3).sum_to_size(4),
    lambda T: T.zeros(2, 3).sum_to_size(2, 2, 3),
    lambda T: T.zeros(3).adjoint(),
    lambda T: T.inner(T.zeros(2, 3), T.zeros(4)),
    lambda T: T.addr(T.zeros(2, 3), T.zeros(2, 1), T.zeros(3)),
    lambda T: T.addr(T.zeros(2, 3), T.zeros(2), T.zeros(4)),
    lambda T: T.addr(T.zeros(2, 3), T.zeros(2), T.zeros(3), beta=True),
    lambda T: T.addr(T.zeros(2, 3, dtype=T.long), T.zeros(2, dtype=T.long), T.zeros(3, dtype=T.long), alpha=1.5),
    lambda T: T.addr(T.zeros(2, 3), T.zeros(2), T.zeros(3), out=T.zeros(2, 3, dtype=T.long)),
    lambda T: T.addbmm(T.zeros(2, 3), T.zeros(4, 2), T.zeros(4, 5, 3)),
    lambda T: T.addbmm(T.zeros(2, 3), T.zeros(4, 2, 5), T.zeros(3, 5, 3)),
    lambda T: T.addbmm(T.zeros(2, 3), T.zeros(4, 2, 5), T.zeros(4, 6, 3)),
    lambda T: T.zeros(2, 2).addbmm_(T.zeros(4, 2, 5), T.zeros(4, 5, 3)),
    lambda T: T.renorm(T.zeros(3), 2, 0, 1),
    lambda T: T.renorm(T.ones(2, 3, dtype=T.long), 2, 0, 1),
    lambda T: T.zeros(1, 3).addr_(T.zeros(2), T.zeros(3)),
    lambda T: T.zeros(2, 3).addr_(T.zeros(2, 1), T.zeros(3)),
    lambda T: T.inner(T.zeros(2, 3), T.zeros(3), out=T.zeros(2, dtype=T.long)),
    lambda T: T.renorm(T.zeros(2, 3), 0, 0, 1),
    lambda T: T.renorm(T.zeros(2, 3), 2, 0, -1),
    lambda T: T.dist(T.zeros(2, dtype=T.long), T.zeros(2, dtype=T.long)),
    lambda T: T.nonzero_static(T.ones(3), size=-1),
    lambda T: T.zeros(3).fill_diagonal_(1),
    lambda T: T.zeros(2, 3, 2).fill_diagonal_(1),
])
def test_shape_and_product_errors(call: Any) -> None:
    same_error_as_torch(call)


# ---- inner, addr, addbmm, dist, renorm ---------------------------------------------------------------------
@SETTINGS
@given(s1=jst.shapes(max_dims=3, max_side=3), s2=jst.shapes(max_dims=3, max_side=3), k=st.integers(0, 3))
def test_inner_against_numpy(s1: tuple, s2: tuple, k: int) -> None:
    s1 = s1[:-1] + (k,) if s1 else s1
    s2 = s2[:-1] + (k,) if s2 else s2
    a = np.asarray(np.arange(int(np.prod(s1)), dtype=np.float64).reshape(s1) - 2)
    b = np.asarray(np.arange(int(np.prod(s2)), dtype=np.float64).reshape(s2) / 3)
    np.testing.assert_allclose(jtorch.inner(jtorch.from_numpy(a), jtorch.from_numpy(b)).numpy(), np.inner(a, b))


@SETTINGS
@given(n=st.integers(0, 4), m=st.integers(0, 4), beta=st.sampled_from([0, 1, 2]), alpha=st.sampled_from([0, 1, -3]),
       dtype=st.sampled_from(["int64", "float32", "float64"]))
def test_addr_against_numpy(n: int, m: int, beta: int, alpha: int, dtype: str) -> None:
    s = np.arange(n * m).reshape(n, m).astype(dtype)
    u, v = np.arange(n).astype(dtype) - 1, np.arange(m).astype(dtype) + 2
    expected = (beta * s if beta else 0) + alpha * np.outer(u, v)
    got = jtorch.addr(jtorch.from_numpy(s), jtorch.from_numpy(u), jtorch.from_numpy(v), beta=beta, alpha=alpha)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(expected, (n, m)), rtol=1e-6)
    assert got.numpy().dtype == np.dtype(dtype)


def test_products_against_torch() -> None:
    def fn(T: Any) -> list:
        m = T.tensor(_lin((2, 3)), requires_grad=True)
        v1 = T.tensor(_lin((2,), 1, 2), requires_grad=True)
        v2 = T.tensor(_lin((3,), -1, 4), requires_grad=True)
        b1 = T.tensor(_lin((4, 2, 5)), requires_grad=True)
        b2 = T.tensor(_lin((4, 5, 3), 0, 1), requires_grad=True)
        row = T.tensor(_lin((3,), 0.5, 1.5), requires_grad=True)
        outs = [T.inner(m, v2), T.inner(v2, v2), T.inner(T.tensor(2.0, dtype=T.float64), m), m.inner(m),
                T.addr(m, v1, v2), T.addr(row, v1, v2, beta=0.5, alpha=-2), m.addr(v1, v2, beta=0),
                T.addbmm(m, b1, b2), T.addbmm(row, b1, b2, beta=2, alpha=0.5), m.addbmm(b1, b2, beta=0),
                T.dist(m, v2), T.dist(m, row, 1), T.dist(m, v2.detach(), 0), T.dist(m, v2, float("inf")),
                m.dist(v2, 3.5)]  # (p=0 with `other` requiring grad: torch's own backward fails)
        sum(((o * (i + 1)).sum() for i, o in enumerate(outs)), T.tensor(0.0, dtype=T.float64)).backward()
        return outs + [m.grad, v1.grad, v2.grad, b1.grad, b2.grad, row.grad] + [o.grad_fn.name() for o in outs]

    same_as_torch(fn, rtol=1e-9, atol=1e-9)


def test_product_dtypes_inplace_and_out_against_torch() -> None:
    def fn(T: Any) -> list:
        i = T.tensor([[1, 2, 3], [4, 5, 6]])
        u, w = T.tensor([1, 2]), T.tensor([3, 4, 5])
        b = T.tensor([[True, False, True], [False, False, True]])
        bu, bw = T.tensor([True, False]), T.tensor([True, True, False])
        f32 = T.tensor(_lin((2, 3)), dtype=T.float32)
        out = T.zeros(0, dtype=T.float64)
        T.addr(f32, u, w, out=out)
        acc = f32.clone()
        acc.addr_(T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0, 5.0]), beta=2)
        bm = f32.clone().addbmm_(T.ones(2, 2, 4), T.ones(2, 4, 3), alpha=0.5)
        bo = T.zeros(0)
        T.addbmm(f32, T.ones(3, 2, 4), T.ones(3, 4, 3), out=bo)
        io = T.zeros(0, dtype=T.float64)
        T.inner(T.tensor(_lin((2, 3))), T.tensor(_lin((4, 3))), out=io)
        return [T.addr(i, u, w, beta=2, alpha=3), T.addr(b, bu, bw), T.addr(b, bu, bw, beta=False),
                T.addr(i, u, T.tensor([0.5, 1.0, 2.0])), out, acc, bm, bo, io, T.inner(i, w),
                T.addbmm(f32, T.ones(0, 2, 4), T.ones(0, 4, 3), beta=3)]

    same_as_torch(fn)


def test_renorm_against_torch() -> None:
    a = _lin((3, 4, 2), -3, 3)

    def fn(T: Any) -> list:
        x = T.tensor(a, requires_grad=True)
        outs = [T.renorm(x, 2, 0, 2.0), x.renorm(1, 1, 3.0), T.renorm(x, 3.5, -1, 1.5), T.renorm(x, 2, 2, 100.0)]
        sum(((o * T.arange(1.0, 25.0, dtype=T.float64).view(3, 4, 2) * (i + 1)).sum() for i, o in enumerate(outs)),
            T.tensor(0.0, dtype=T.float64)).backward()
        inplace = T.tensor(a, dtype=T.float32)
        inplace.renorm_(2, 1, 1.0)
        out = T.zeros(3, 4, 2, dtype=T.float64)
        T.renorm(T.tensor(a), 2, 0, 0.5, out=out)
        return outs + [x.grad, inplace, out, outs[0].grad_fn.name()]

    same_as_torch(fn, rtol=1e-7, atol=1e-9)


def test_renorm_and_dist_gradcheck() -> None:
    x = jtorch.randn(3, 4, dtype=jtorch.float64, requires_grad=True)
    y = jtorch.randn(4, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda t: jtorch.renorm(t, 2, 0, 0.5), (x,))
    assert jtorch.autograd.gradcheck(lambda t, u: jtorch.dist(t, u, 3), (x, y))
    b = jtorch.randn(2, 3, 4, dtype=jtorch.float64, requires_grad=True)
    c = jtorch.randn(2, 4, 2, dtype=jtorch.float64, requires_grad=True)
    s = jtorch.randn(3, 2, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda p, q, r: jtorch.addbmm(p, q, r, beta=0.5, alpha=2), (s, b, c))
    v1 = jtorch.randn(3, dtype=jtorch.float64, requires_grad=True)
    v2 = jtorch.randn(2, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradgradcheck(lambda p, q, r: jtorch.addr(p, q, r, alpha=2), (s, v1, v2))


def test_products_on_meta() -> None:
    m = jtorch.empty(2, 3, device="meta")
    assert jtorch.addr(m, jtorch.empty(2, device="meta"), jtorch.empty(3, device="meta")).shape == (2, 3)
    assert jtorch.addbmm(m, jtorch.empty(4, 2, 5, device="meta"), jtorch.empty(4, 5, 3, device="meta")).is_meta
    assert jtorch.inner(m, jtorch.empty(5, 3, device="meta")).shape == (2, 5)
    assert jtorch.renorm(m, 2, 0, 1).is_meta


# ---- unravel_index, nonzero_static, fill_diagonal_ ----------------------------------------------------------
@SETTINGS
@given(shape=jst.shapes(min_dims=1, max_dims=4, min_side=1, max_side=4), data=st.data())
def test_unravel_index_against_numpy(shape: tuple, data: st.DataObject) -> None:
    n = int(np.prod(shape))
    flat = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=6)), dtype=np.int64)
    got = jtorch.unravel_index(jtorch.from_numpy(flat), shape)
    expected = np.unravel_index(flat, shape)
    assert isinstance(got, tuple) and len(got) == len(shape)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e)


def test_index_helpers_against_torch() -> None:
    def fn(T: Any) -> list:
        idx = T.tensor([[5, 0], [11, 7]])
        coords = T.unravel_index(idx, (3, 4))
        ints = T.unravel_index(T.tensor(9, dtype=T.int32), 10)
        x = T.tensor([[0, 2, 0], [3, 0, 4]])
        out = T.zeros(0, dtype=T.long)
        T.nonzero_static(x, size=5, fill_value=-7, out=out)
        sq = T.zeros(3, 3)
        tall = T.zeros(7, 3)
        cube = T.zeros(3, 3, 3)
        sq.fill_diagonal_(2.5)
        tall.fill_diagonal_(1, wrap=True)
        cube.fill_diagonal_(4)
        g = T.tensor(_lin((3, 3)), requires_grad=True)
        h = g * 1
        h.fill_diagonal_(0.0)
        (h * T.arange(9.0, dtype=T.float64).view(3, 3)).sum().backward()
        return [coords[0], coords[1], ints[0], T.nonzero_static(x, size=2), T.nonzero_static(x, size=6),
                x.nonzero_static(size=0), T.nonzero_static(T.tensor(3.0), size=2), out, sq, tall, cube,
                T.zeros(5, 3).fill_diagonal_(1, False), g.grad, h.grad_fn.name()]

    same_as_torch(fn)


@pytest.mark.parametrize("call", [
    lambda T: T.unravel_index(T.tensor([1.0]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([1]), (2, -3)),
    lambda T: T.unravel_index(T.tensor([1]), (2, 3.0)),
    lambda T: T.unravel_index(T.tensor([1]), "ab"),
])
def test_unravel_index_errors(call: Any) -> None:
    same_error_as_torch(call)


# ---- logspace, range ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kw", [((0, 3, 5), {}), ((0, 3, 5, 2.0), {}), ((-2, 2, 7), {"dtype": "float64"}),
                                      ((0, 3, 4), {"dtype": "int64"}), ((1, 1, 1), {}), ((2, 0, 5, 3), {}),
                                      ((0, 2, 4, 3), {"dtype": "int32"}), ((0, 1, 0), {}), ((-1.5, 2.25, 9), {})])
def test_logspace_against_torch(args: tuple, kw: dict) -> None:
    def fn(T: Any) -> list:
        k = {n: getattr(T, v) for n, v in kw.items()}
        out = T.zeros(2, dtype=k.get("dtype", T.float32))
        T.logspace(*args, out=out)
        return [T.logspace(*args, **k), out, T.logspace(T.tensor(float(args[0])), args[1], *args[2:], **k)]

    same_as_torch(fn, rtol=2e-7, atol=0)
    assert jtorch.logspace(*args, device="meta").is_meta


def test_range_against_torch() -> None:
    def fn(T: Any) -> list:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outs = [T.range(0, 3), T.range(0, 1, 0.25), T.range(5, 1, -2, dtype=T.int64), T.range(-1.5, 1.5),
                    T.range(0, 0.9, 0.3, dtype=T.float64), T.range(1, 4, requires_grad=True)]
            out = T.zeros(0, dtype=T.int32)
            T.range(2, 10, 3, out=out)
        return outs + [out, str(caught[0].message), caught[0].category.__name__, len(caught),
                       outs[-1].requires_grad]

    same_as_torch(fn)


@pytest.mark.parametrize("call", [
    lambda T: T.range(0, 3, 0),
    lambda T: T.range(0, 3, -1),
    lambda T: T.range(0, float("inf")),
    lambda T: T.range(0, 3, dtype=T.bool),
    lambda T: T.logspace(0, 1, -1),
])
def test_range_errors(call: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error_as_torch(call)
