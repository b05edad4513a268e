"""Tensor.unfold (a view, UnfoldBackward0 and its double backward), the *_scatter operators
(slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter: functional and out=, their
derivatives) and the in-place view operators (squeeze_, unsqueeze_, t_, transpose_, swapaxes_,
swapdims_, as_strided_): values, gradients, node names, view/base sharing, version counters and error
texts against torch; unfold against NumPy's sliding windows over random shapes; meta tensors.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import SETTINGS
from jtorch.testing import strategies as jst
from _torch_compare import same_as_torch, same_error_as_torch

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7 - 1


# ---- unfold ----------------------------------------------------------------------------------------
@SETTINGS
@given(shape=jst.shapes(min_dims=1, max_dims=3, max_side=5, min_side=1), data=st.data())
def test_unfold_matches_numpy_windows(shape: tuple, data: st.DataObject) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = jtorch.from_numpy(a)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = data.draw(st.integers(0, shape[dim]))
    step = data.draw(st.integers(1, 3))
    u = t.unfold(dim, size, step)
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim % len(shape))
    idx = [slice(None)] * len(shape)
    idx[dim % len(shape)] = slice(None, None, step)
    np.testing.assert_array_equal(u.numpy(), windows[tuple(idx)])
    assert u._base is t and u.data_ptr() == t.data_ptr()
    m = jtorch.empty(shape, device="meta").unfold(dim, size, step)
    assert m.is_meta and m.shape == u.shape and m.stride() == u.stride()


@pytest.mark.parametrize("shape, dim, size, step", [((10,), 0, 3, 2), ((4, 6), 1, 2, 1), ((4, 6), 0, 4, 3),
                                                    ((3, 5, 2), -2, 3, 3), ((), 0, 1, 1), ((5,), 0, 0, 1)])
def test_unfold_values_grads_against_torch(shape: tuple, dim: int, size: int, step: int) -> None:
    base = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)

    def fn(T: Any) -> list:
        x = T.tensor(base, requires_grad=True)
        u = x.unfold(dim, size, step)
        w = T.tensor(np.arange(1.0, 1.0 + int(np.prod(tuple(u.shape)))).reshape(tuple(u.shape)))
        (u * w).sum().backward()
        return [u, x.grad, u.grad_fn.name(), tuple(u.stride())]

    same_as_torch(fn)


def test_unfold_double_backward_against_torch() -> None:
    def fn(T: Any) -> list:
        x = T.tensor(np.arange(8.0), requires_grad=True)
        u = x.unfold(0, 3, 2)
        g = T.ones(tuple(u.shape), dtype=T.float64, requires_grad=True)
        (gx,) = T.autograd.grad(u, x, g, create_graph=True)
        (gg,) = T.autograd.grad((gx * T.arange(8.0, dtype=T.float64)).sum(), g)
        return [gx, gg, gx.grad_fn.name()]

    same_as_torch(fn)


def test_unfold_gradcheck() -> None:
    x = jtorch.randn(5, 4, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda t: t.unfold(0, 2, 2), (x,))
    assert jtorch.autograd.gradgradcheck(lambda t: t.unfold(1, 3, 1), (x,))


@pytest.mark.parametrize("call", [
    lambda T: T.zeros(3, 4).unfold(1, 5, 1),
    lambda T: T.zeros(3, 4).unfold(1, -1, 1),
    lambda T: T.zeros(3, 4).unfold(1, 2, 0),
    lambda T: T.zeros(3, 4).unfold(2, 2, 1),
])
def test_unfold_errors(call: Any) -> None:
    same_error_as_torch(call)


# ---- *_scatter -----------------------------------------------------------------------------------
@SETTINGS
@given(shape=jst.shapes(min_dims=1, max_dims=3, max_side=4), data=st.data())
def test_slice_and_select_scatter_against_numpy(shape: tuple, data: st.DataObject) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    dim = data.draw(st.integers(0, len(shape) - 1))
    start = data.draw(st.integers(0, shape[dim]))
    end = data.draw(st.integers(start, shape[dim]))
    step = data.draw(st.integers(1, 3))
    idx = [slice(None)] * len(shape)
    idx[dim] = slice(start, end, step)
    expected = a.copy()
    src = -np.arange(expected[tuple(idx)].size, dtype=np.int64).reshape(expected[tuple(idx)].shape) - 1
    expected[tuple(idx)] = src
    got = jtorch.slice_scatter(jtorch.from_numpy(a), jtorch.from_numpy(src), dim, start, end, step)
    np.testing.assert_array_equal(got.numpy(), expected)
    if shape[dim]:
        i = data.draw(st.integers(-shape[dim], shape[dim] - 1))
        neg = np.asarray(-np.take(a, i, axis=dim))
        expected = a.copy()
        idx[dim] = i  # type: ignore[call-overload]  # an int index
        expected[tuple(idx)] = neg
        got = jtorch.from_numpy(a).select_scatter(jtorch.from_numpy(neg), dim, i)
        np.testing.assert_array_equal(got.numpy(), expected)


@SETTINGS
@given(n=st.integers(1, 4), m=st.integers(1, 4), offset=st.integers(-4, 4))
def test_diagonal_scatter_against_numpy(n: int, m: int, offset: int) -> None:
    a = np.zeros((n, m), dtype=np.float32)
    d = np.diagonal(a, offset)
    src = np.arange(1, d.size + 1, dtype=np.float32)
    expected = a.copy()
    rows = np.arange(d.size) + max(-offset, 0)
    expected[rows, rows + offset] = src
    got = jtorch.diagonal_scatter(jtorch.from_numpy(a), jtorch.from_numpy(src), offset)
    np.testing.assert_array_equal(got.numpy(), expected)


SCATTERS = [
    ("slice_scatter", (2, 3, 4), (2, 1, 4), (1, 1, 3, 2)),
    ("slice_scatter", (2, 3, 4), (2, 3, 2), (-1, None, None, 2)),
    ("select_scatter", (2, 3, 4), (2, 4), (1, -1)),
    ("diagonal_scatter", (2, 3, 4), (3, 2), (1, 0, 2)),
    ("diagonal_scatter", (3, 3), (2,), (-1,)),
    ("as_strided_scatter", (2, 3, 4), (3, 2), ((3, 2), (4, 1), 2)),
]
# torch 2.13's gradient of as_strided_scatter's self is wrong (it passes the gradient where src was written
# and zeroes it elsewhere); jtorch's is held to the numerical one by the gradcheck below instead
_TORCH_SELF_GRAD_WRONG = {"as_strided_scatter"}


@pytest.mark.parametrize("name, shape, src_shape, args", SCATTERS)
def test_scatter_values_grads_against_torch(name: str, shape: tuple, src_shape: tuple, args: tuple) -> None:
    a = np.linspace(-2, 2, int(np.prod(shape))).reshape(shape)
    b = np.linspace(5, 9, int(np.prod(src_shape))).reshape(src_shape)

    def fn(T: Any) -> list:
        x = T.tensor(a, requires_grad=True)
        s = T.tensor(b, requires_grad=True)
        r = getattr(T, name)(x, s, *args)
        m = getattr(x.detach(), name)(s.detach(), *args)
        w = T.tensor(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape)))
        (r * w).sum().backward()
        out = T.zeros(0, dtype=T.float64)
        getattr(T.ops.aten, name).out(x.detach(), s.detach(), *args, out=out)
        return [r, m, None if name in _TORCH_SELF_GRAD_WRONG else x.grad, s.grad, out, r.grad_fn.name(),
                r._base is None]

    same_as_torch(fn)


@pytest.mark.parametrize("name, shape, src_shape, args", SCATTERS)
def test_scatter_gradcheck_and_meta(name: str, shape: tuple, src_shape: tuple, args: tuple) -> None:
    x = jtorch.randn(shape, dtype=jtorch.float64, requires_grad=True)
    s = jtorch.randn(src_shape, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda p, q: getattr(jtorch, name)(p, q, *args), (x, s))
    m = getattr(jtorch, name)(jtorch.empty(shape, device="meta"), jtorch.empty(src_shape, device="meta"), *args)
    assert m.is_meta and tuple(m.shape) == shape


@pytest.mark.parametrize("call", [
    lambda T: T.slice_scatter(T.zeros(3, 3), T.zeros(1, 3)),
    lambda T: T.select_scatter(T.zeros(3, 3), T.zeros(2), 0, 0),
    lambda T: T.diagonal_scatter(T.zeros(3, 3), T.zeros(2)),
    lambda T: T.as_strided_scatter(T.zeros(3, 3), T.zeros(2), (3,), (1,)),
    lambda T: T.select_scatter(T.zeros(3, 3), T.zeros(3), 0, 5),
])
def test_scatter_errors(call: Any) -> None:
    same_error_as_torch(call)


# ---- in-place view operators ------------------------------------------------------------------------
INPLACE_VIEWS = [
    ("squeeze_", (3, 1, 4, 1), ()), ("squeeze_", (3, 1, 4, 1), (1,)), ("squeeze_", (3, 1, 4, 1), ((1, 3),)),
    ("unsqueeze_", (3, 4), (1,)), ("unsqueeze_", (3, 4), (-1,)), ("t_", (3, 4), ()), ("t_", (4,), ()),
    ("transpose_", (2, 3, 4), (0, 2)), ("swapaxes_", (2, 3, 4), (1, -1)), ("swapdims_", (2, 3, 4), (0, 1)),
    ("as_strided_", (3, 4), ((2, 2), (1, 3), 1)),
]


@pytest.mark.parametrize("name, shape, args", INPLACE_VIEWS)
def test_inplace_view_against_torch(name: str, shape: tuple, args: tuple) -> None:
    a = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)

    def fn(T: Any) -> list:
        leaf = T.tensor(a, requires_grad=True)
        x = leaf * 2
        r = getattr(x, name)(*args)
        w = T.tensor(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape)))
        (r * w).sum().backward()
        plain = T.tensor(a)
        v0 = plain._version
        getattr(plain, name)(*args)
        return [r, leaf.grad, x.grad_fn.name(), tuple(x.shape), tuple(x.stride()), x.storage_offset(),
                plain._version - v0, tuple(plain.shape)]

    same_as_torch(fn)
    x = jtorch.tensor(a) * 2
    assert getattr(x, name)(*args) is x


def test_inplace_view_of_a_view_keeps_its_base() -> None:
    a = np.arange(12.0).reshape(3, 4)

    def fn(T: Any) -> list:
        leaf = T.tensor(a, requires_grad=True)
        c = leaf.clone()
        v = c[:2]
        v.transpose_(0, 1)
        name = v.grad_fn.name()
        v.mul_(T.tensor(np.arange(8.0).reshape(4, 2)))  # written through the transposed view
        w = T.tensor(np.arange(12.0).reshape(3, 4))
        (c * w).sum().backward()
        return [v, c, leaf.grad, name, c.grad_fn.name(), v._version, c._version]

    same_as_torch(fn)
    c = jtorch.zeros(3, 4)
    v = c[:2]
    assert v.transpose_(0, 1) is v and v._base is c and v.data_ptr() == c.data_ptr()


@pytest.mark.parametrize("call", [
    lambda T: T.zeros(2, 3, requires_grad=True).t_(),
    lambda T: T.zeros(2, 3, 4).t_(),
    lambda T: T.zeros(2, 3).transpose_(0, 2),
    lambda T: T.zeros(2, 3).squeeze_(2),
    lambda T: T.zeros(2, 3).unsqueeze_(3),
    lambda T: T.zeros(2, 3).as_strided_((3, 3), (1, 1), 5),
])
def test_inplace_view_errors(call: Any) -> None:
    same_error_as_torch(call)


def test_out_forms_bound_as_torch_binds_them() -> None:
    x, s = jtorch.zeros(3, 3), jtorch.ones(3)
    out = jtorch.empty(0)
    assert jtorch.slice_scatter(x, s.view(1, 3), 0, 1, 2, out=out) is out and out[1].tolist() == [1.0] * 3
    with pytest.raises(TypeError):
        jtorch.select_scatter(x, s, 0, 0, out=out)
    assert not hasattr(jtorch, "unfold_backward")


def test_inplace_views_on_meta() -> None:
    m = jtorch.empty(2, 1, 3, device="meta")
    assert m.squeeze_().shape == (2, 3) and m.t_().shape == (3, 2) and m.unsqueeze_(0).shape == (1, 3, 2)
    assert m.swapdims_(0, 2).shape == (2, 3, 1) and m.is_meta
