"""Pooling (max/avg 1d/2d, adaptive avg 1d/2d, the modules) against torch where installed (outputs,
indices, input gradients, grad_fn names, error texts, reprs) and against a NumPy reference
otherwise; NaN propagation; double backward; meta tensors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF
from _torch_oracle import oracle_torch, type_name

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)


def _torch():
    return oracle_torch()


def _np(t) -> np.ndarray:
    return t.detach().numpy()


# ---- NumPy reference --------------------------------------------------------------------------------
def max_pool2d_ref(x, k, s, p):
    """-inf padding, windows by stride (dilation 1, floor mode)."""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::s, ::s]
    return win.max(axis=(-1, -2))


def avg_pool2d_ref(x, k, s, p):
    """count_include_pad=True: the zero-padded window's mean."""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::s, ::s]
    return win.mean(axis=(-1, -2))


@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 1), st.sampled_from([np.float32, np.float64]))
@SETTINGS
def test_pooling_matches_numpy_reference(k, s, p, dtype):
    if p > k // 2:
        return
    x = np.random.default_rng(k * 10 + s).standard_normal((2, 3, 7, 6)).astype(dtype)
    jx = jtorch.tensor(x)
    np.testing.assert_array_equal(_np(JF.max_pool2d(jx, k, s, p)), max_pool2d_ref(x, k, s, p))
    np.testing.assert_allclose(_np(JF.avg_pool2d(jx, k, s, p)), avg_pool2d_ref(x, k, s, p), rtol=1e-5, atol=1e-6)
    # adaptive to (1, 1) is the plane mean; to the input size, the identity
    np.testing.assert_allclose(_np(JF.adaptive_avg_pool2d(jx, 1)), x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(_np(JF.adaptive_avg_pool2d(jx, (7, 6))), x)


def test_max_pool_gradient_goes_to_the_maximum_and_nan_propagates():
    x = jtorch.tensor([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, float("nan"), 1.0]]]]).requires_grad_()
    y, idx = JF.max_pool2d(x, 2, return_indices=True)
    assert _np(y)[0, 0, 0, 0] == 5.0 and np.isnan(_np(y)[0, 0, 0, 1])
    assert _np(idx).tolist() == [[[[1, 6]]]]
    y.sum().backward()
    assert _np(x.grad).tolist() == [[[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]]]
    inf, nan = float("inf"), float("nan")
    x = jtorch.tensor([[[[-inf, 1.0, inf, nan, 3.0, -inf], [-inf, -inf, 2.0, nan, 7.0, inf]]]])
    y, idx = JF.max_pool2d(x, 2, return_indices=True)
    assert _np(y)[0, 0, 0, 0] == 1.0 and np.isnan(_np(y)[0, 0, 0, 1]) and _np(y)[0, 0, 0, 2] == inf
    assert _np(idx).tolist() == [[[[1, 9, 11]]]]  # the last NaN of a window wins, as torch
    y = JF.max_pool2d(jtorch.tensor([[[[-inf, -inf], [-inf, -inf]]]]), 2, return_indices=True)
    assert _np(y[0]).tolist() == [[[[-inf]]]] and _np(y[1]).tolist() == [[[[0]]]]


# ---- against torch ----------------------------------------------------------------------------------
def _compare(torch, fn_t, fn_j, x, exact=True):
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    rt, rj = fn_t(xt), fn_j(xj)
    if isinstance(rt, tuple):
        np.testing.assert_array_equal(_np(rj[1]), rt[1].numpy())
        rt, rj = rt[0], rj[0]
    assert tuple(rj.shape) == tuple(rt.shape)
    tol = dict(rtol=0, atol=0) if exact else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(rj), _np(rt), **tol)
    g = np.random.default_rng(1).standard_normal(tuple(rt.shape)).astype(x.dtype)
    rt.backward(torch.tensor(g))
    rj.backward(jtorch.tensor(g))
    assert type_name(rj.grad_fn) == type_name(rt.grad_fn)
    np.testing.assert_allclose(_np(xj.grad), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


pool_params = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 1),
                        st.integers(1, 2), st.booleans(), st.sampled_from([np.float32, np.float64]))


@given(pool_params, st.booleans())
@SETTINGS
def test_max_pool2d_matches_torch(params, indices):
    torch = _torch()
    kh, kw, s, p, d, ceil, dtype = params
    if p > ((min(kh, kw) - 1) * d + 1) // 2:
        return
    x = np.random.default_rng(kh * 9 + kw).standard_normal((2, 3, 7, 6)).astype(dtype)
    args = dict(kernel_size=(kh, kw), stride=(s, 1), padding=p, dilation=(d, 1), ceil_mode=ceil,
                return_indices=indices)
    _compare(torch, lambda t: torch.nn.functional.max_pool2d(t, **args), lambda t: JF.max_pool2d(t, **args), x)


@given(pool_params, st.booleans(), st.sampled_from([None, 3]))
@SETTINGS
def test_avg_pool2d_matches_torch(params, include_pad, divisor):
    torch = _torch()
    kh, kw, s, p, _, ceil, dtype = params
    if p > min(kh, kw) // 2:
        return
    x = np.random.default_rng(kh * 9 + kw).standard_normal((2, 3, 7, 6)).astype(dtype)
    args = dict(kernel_size=(kh, kw), stride=s, padding=p, ceil_mode=ceil, count_include_pad=include_pad,
                divisor_override=divisor)
    _compare(torch, lambda t: torch.nn.functional.avg_pool2d(t, **args), lambda t: JF.avg_pool2d(t, **args), x,
             exact=dtype == np.float64)


@pytest.mark.parametrize("size", [(3, 4), (5, 5), (1, 1), (7, 6), (2, None), 4, (10, 9)])
def test_adaptive_avg_pool2d_matches_torch(size):
    torch = _torch()
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 6))
    _compare(torch, lambda t: torch.nn.functional.adaptive_avg_pool2d(t, size),
             lambda t: JF.adaptive_avg_pool2d(t, size), x, exact=False)


@pytest.mark.parametrize("size", [(3, 4), (1, 1), (7, 6), (10, 4), (2, None)])
def test_adaptive_max_pool2d_matches_torch(size):
    torch = _torch()
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 6))
    x[0, 1, 2, 3] = np.nan  # NaN wins its windows, as in torch
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    rt = torch.nn.functional.adaptive_max_pool2d(xt, size, return_indices=True)
    rj = JF.adaptive_max_pool2d(xj, size, return_indices=True)
    np.testing.assert_array_equal(_np(rj[0]), _np(rt[0]))
    np.testing.assert_array_equal(_np(rj[1]), rt[1].numpy())
    g = np.random.default_rng(1).standard_normal(tuple(rt[0].shape))
    rt[0].backward(torch.tensor(g))
    rj[0].backward(jtorch.tensor(g))
    assert type_name(rj[0].grad_fn) == type_name(rt[0].grad_fn) == "AdaptiveMaxPool2DBackward0"
    np.testing.assert_allclose(_np(xj.grad), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_1d_pooling_and_unbatched_inputs_match_torch():
    torch = _torch()
    x = np.random.default_rng(3).standard_normal((2, 3, 9))
    F = torch.nn.functional
    _compare(torch, lambda t: F.max_pool1d(t, 3, 2, 1, ceil_mode=True), lambda t: JF.max_pool1d(t, 3, 2, 1,
                                                                                                ceil_mode=True), x)
    _compare(torch, lambda t: F.max_pool1d(t, 2, return_indices=True), lambda t: JF.max_pool1d(t, 2,
                                                                                               return_indices=True), x)
    _compare(torch, lambda t: F.avg_pool1d(t, 3, 2, 1, False, False), lambda t: JF.avg_pool1d(t, 3, 2, 1, False,
                                                                                               False), x)
    _compare(torch, lambda t: F.adaptive_avg_pool1d(t, 4), lambda t: JF.adaptive_avg_pool1d(t, 4), x, exact=False)
    x3 = np.random.default_rng(4).standard_normal((3, 7, 6))
    _compare(torch, lambda t: F.max_pool2d(t, 2), lambda t: JF.max_pool2d(t, 2), x3)
    _compare(torch, lambda t: F.avg_pool2d(t, 3, 2, 1), lambda t: JF.avg_pool2d(t, 3, 2, 1), x3)
    _compare(torch, lambda t: F.adaptive_avg_pool2d(t, 3), lambda t: JF.adaptive_avg_pool2d(t, 3), x3, exact=False)


def test_integer_pooling_matches_torch():
    torch = _torch()
    x = np.random.default_rng(5).integers(-50, 50, (1, 2, 6, 6))
    for f in ("max_pool2d", "avg_pool2d"):
        a = getattr(JF, f)(jtorch.tensor(x), 3, 2, 1)
        b = getattr(torch.nn.functional, f)(torch.tensor(x), 3, 2, 1)
        assert a.dtype == jtorch.int64
        np.testing.assert_array_equal(_np(a), b.numpy())


def test_double_backward_matches_torch():
    torch = _torch()
    x = np.random.default_rng(6).standard_normal((1, 2, 6, 6))
    res = []
    for lib, F in ((torch, torch.nn.functional), (jtorch, JF)):
        outs = []
        for fn in (lambda t: F.max_pool2d(t, 2), lambda t: F.avg_pool2d(t, 3, 2, 1),
                   lambda t: F.adaptive_avg_pool2d(t, 4)):
            xt = lib.tensor(x).requires_grad_()
            y = fn(xt)
            gx, = lib.autograd.grad(y.pow(2).sum(), xt, create_graph=True)
            gx.pow(3).sum().backward()
            outs += [_np(gx), _np(xt.grad)]
        res.append(outs)
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _cases(lib, F):
    x = lib.zeros(2, 3, 8, 8)
    return [
        lambda: F.max_pool2d(x, 3, padding=2),
        lambda: F.max_pool2d(lib.zeros(1, 3, 1, 1), 2),
        lambda: F.max_pool2d(x, (1, 2, 3)),
        lambda: F.max_pool2d(lib.zeros(8), 2),
        lambda: F.max_pool2d(x, 2, stride=0),
        lambda: F.max_pool2d(x, 0),
        lambda: F.max_pool2d(x, 2, dilation=0),
        lambda: F.avg_pool2d(x, 3, padding=2),
        lambda: F.avg_pool2d(lib.zeros(1, 3, 1, 1), 2),
        lambda: F.avg_pool2d(lib.zeros(8), 2),
        lambda: F.avg_pool2d(x, 2, divisor_override=0),
        lambda: F.max_pool1d(lib.zeros(8), 2),
        lambda: F.avg_pool1d(lib.zeros(8), 2),
        lambda: F.max_pool1d(lib.zeros(1, 2, 1), 2),
        lambda: F.avg_pool1d(lib.zeros(1, 2, 1), 2),
        lambda: F.adaptive_avg_pool2d(lib.zeros(8), 2),
        lambda: F.adaptive_avg_pool2d(x, (1, 2, 3)),
        lambda: F.adaptive_avg_pool2d(lib.zeros(2, 3, 0, 4), 2),
        lambda: F.adaptive_max_pool2d(lib.zeros(8), 2),
        lambda: F.adaptive_max_pool2d(x, (1, 2, 3)),
        lambda: F.adaptive_max_pool2d(lib.zeros(2, 3, 0, 4), 2),
        lambda: F.adaptive_max_pool2d(x, (-1, 2)),
    ]


def test_error_texts_match_torch():
    torch = _torch()

    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return type_name(e), str(e)
        return None

    jt = [outcome(c) for c in _cases(jtorch, JF)]
    tt = [outcome(c) for c in _cases(torch, torch.nn.functional)]
    for i, (a, b) in enumerate(zip(jt, tt)):
        assert a == b, (i, a, b)


def test_module_reprs_and_forward_match_torch():
    torch = _torch()
    specs = [("MaxPool2d", (2,), {}), ("MaxPool2d", (3, 2, 1, 2, True, True), {}), ("AvgPool2d", (2,), {}),
             ("AvgPool2d", (3, 2, 1, True, False, 2), {}), ("AdaptiveAvgPool2d", ((3, None),), {}),
             ("MaxPool1d", (2,), {}), ("AvgPool1d", (3,), {}), ("AdaptiveAvgPool1d", (4,), {}),
             ("AdaptiveMaxPool2d", ((3, None),), {}), ("AdaptiveMaxPool2d", (2, True), {})]
    x2 = np.random.default_rng(7).standard_normal((2, 3, 9, 8))
    for name, a, kw in specs:
        jm, tm = getattr(jnn, name)(*a, **kw), getattr(torch.nn, name)(*a, **kw)
        assert repr(jm) == repr(tm)
        x = x2 if name.endswith("2d") else x2[:, :, 0]
        rj, rt = jm(jtorch.tensor(x)), tm(torch.tensor(x))
        if isinstance(rt, tuple):
            np.testing.assert_array_equal(_np(rj[1]), rt[1].numpy())
            rj, rt = rj[0], rt[0]
        np.testing.assert_allclose(_np(rj), rt.numpy(), rtol=1e-12, atol=1e-12)


def test_meta_tensors_give_shapes():
    x = jtorch.empty(2, 3, 9, 8, device="meta")
    y, i = JF.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
    assert tuple(y.shape) == (2, 3, 5, 5)  # torch.Size([2, 3, 5, 5])
    assert i.dtype == jtorch.int64 and y.device.type == "meta" and tuple(i.shape) == (2, 3, 5, 5)
    assert tuple(JF.avg_pool2d(x, 2).shape) == (2, 3, 4, 4)
    assert tuple(JF.adaptive_avg_pool2d(x, (3, 5)).shape) == (2, 3, 3, 5)


@pytest.mark.parametrize("name,args", [("max_pool2d", (3, 2, 1)), ("avg_pool2d", (3, 2, 1)),
                                       ("adaptive_avg_pool2d", ((3, 2),)), ("adaptive_max_pool2d", ((3, 2),))])
def test_float16_matches_torch(name, args):
    """Computed in float32 (Numba has no float16 on the CPU) and rounded once, as torch's opmath."""
    torch = _torch()
    x = np.random.default_rng(8).standard_normal((2, 3, 7, 6)).astype(np.float16)
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    rt, rj = getattr(torch.nn.functional, name)(xt, *args), getattr(JF, name)(xj, *args)
    assert rj.dtype == jtorch.float16
    np.testing.assert_allclose(_np(rj).astype(np.float32), _np(rt).astype(np.float32), rtol=1e-3, atol=1e-3)
    rt.sum().backward()
    rj.sum().backward()
    np.testing.assert_allclose(_np(xj.grad).astype(np.float32), xt.grad.numpy().astype(np.float32), rtol=1e-3,
                               atol=1e-3)


def test_inf_and_nan_in_average_pooling_match_torch():
    """A window sum with an inf is inf (no 0 * inf start); NaN stays NaN; others untouched."""
    torch = _torch()
    x = np.arange(2 * 1 * 6 * 6, dtype=np.float64).reshape(2, 1, 6, 6)
    x[0, 0, 0, 0], x[1, 0, 2, 3], x[1, 0, 5, 5] = np.inf, np.nan, -np.inf
    for name, args in (("avg_pool2d", (3, 2, 1)), ("adaptive_avg_pool2d", ((4, 3),)),
                       ("max_pool2d", (2,)), ("adaptive_max_pool2d", ((4, 3),))):
        a = _np(getattr(JF, name)(jtorch.tensor(x), *args))
        b = getattr(torch.nn.functional, name)(torch.tensor(x), *args).numpy()
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("pool", ["max_pool2d", "adaptive_max_pool2d"])
def test_max_pools_double_backward(pool):
    """The backward of a max pool is itself differentiable (its gradient picks the same elements):
    gradcheck and gradgradcheck in float64, and the double-backward node torch records."""
    rng = np.random.default_rng(3)
    a = rng.permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) * 0.1  # distinct values: no ties at the maxima
    x = jtorch.tensor(a, requires_grad=True)
    fn = (lambda t: JF.max_pool2d(t, 2)) if pool == "max_pool2d" else (lambda t: JF.adaptive_max_pool2d(t, (2, 3)))
    assert jtorch.autograd.gradcheck(fn, (x,))
    assert jtorch.autograd.gradgradcheck(fn, (x,))
    y = fn(x)
    (g,) = jtorch.autograd.grad(y, x, jtorch.ones_like(y), create_graph=True)
    torch = oracle_torch()
    tx = torch.tensor(a, requires_grad=True)
    tf = getattr(torch.nn.functional, pool)
    ty = tf(tx, 2) if pool == "max_pool2d" else tf(tx, (2, 3))
    (tg,) = torch.autograd.grad(ty, tx, torch.ones_like(ty), create_graph=True)
    assert g.grad_fn.name() == tg.grad_fn.name()
    np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())
