"""3-d pooling (max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d), adaptive_max_pool1d,
max unpooling (1-3 d) and LP pooling (1-3 d) against torch where installed: values, indices, input
gradients, autograd node names, dtypes, error texts, module reprs; gradcheck / gradgradcheck in
float64; meta tensors."""
from __future__ import annotations

import numpy as np
import pytest
from _torch_oracle import oracle_torch, type_name

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF

TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _np(t) -> np.ndarray:
    return t.detach().numpy()


def _compare(torch, name, args, kwargs, x, dtype, extra=()):
    """F.<name>(x, *args, **kwargs) in both: every output (values, indices), dtype, grad_fn name and
    the input's gradient of sum(out * g)."""
    xt = torch.tensor(x, requires_grad=True)
    xj = jtorch.tensor(x).requires_grad_()
    rt = getattr(torch.nn.functional, name)(xt, *[torch.tensor(e) for e in extra], *args, **kwargs)
    rj = getattr(JF, name)(xj, *[jtorch.tensor(e) for e in extra], *args, **kwargs)
    outs_t = rt if isinstance(rt, tuple) else (rt,)
    outs_j = rj if isinstance(rj, tuple) else (rj,)
    assert len(outs_j) == len(outs_t)
    for a, b in zip(outs_j, outs_t):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(a), b.detach().numpy(), **TOL[dtype])
    assert type_name(outs_j[0].grad_fn) == type_name(outs_t[0].grad_fn)
    g = np.random.default_rng(5).standard_normal(tuple(outs_t[0].shape)).astype(dtype)
    outs_t[0].backward(torch.tensor(g))
    outs_j[0].backward(jtorch.tensor(g))
    np.testing.assert_allclose(_np(xj.grad), xt.grad.numpy(), **TOL[dtype])


def _input(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


MAX3D = [
    (2, None, 0, 1, False),
    ((2, 3, 2), (1, 2, 2), (1, 1, 0), 1, False),
    (3, 2, 1, (2, 1, 1), True),
    ((3, 2, 2), (2, 1, 3), (0, 1, 1), 1, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", MAX3D)
def test_max_pool3d_matches_torch(case, dtype):
    torch = oracle_torch()
    k, s, p, d, ceil = case
    x = _input((2, 3, 7, 6, 8), dtype)
    _compare(torch, "max_pool3d", (k, s, p, d, ceil), dict(return_indices=True), x, dtype)
    _compare(torch, "max_pool3d", (k, s, p, d, ceil), {}, x[0], dtype)  # unbatched


def test_max_pool3d_nan_and_ties_match_torch():
    torch = oracle_torch()
    x = np.zeros((1, 2, 4, 4, 4))
    x[0, 0, 1, 1, 1] = np.nan
    x[0, 1, 2:, 2:, 2:] = np.inf
    _compare(torch, "max_pool3d", (2,), dict(return_indices=True), x, np.float64)


AVG3D = [
    (2, None, 0, False, True, None),
    ((3, 2, 2), (2, 1, 2), (1, 1, 0), True, True, None),
    ((3, 2, 2), (2, 1, 2), (1, 1, 0), True, False, None),
    (3, 2, 1, False, False, 5),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", AVG3D)
def test_avg_pool3d_matches_torch(case, dtype):
    torch = oracle_torch()
    k, s, p, ceil, include, div = case
    x = _input((2, 3, 7, 6, 5), dtype, 1)
    _compare(torch, "avg_pool3d", (k, s, p, ceil, include, div), {}, x, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [(3, 2, 4), 1, (None, 5, 2), (7, 6, 5)])
def test_adaptive_pool3d_matches_torch(size, dtype):
    torch = oracle_torch()
    x = _input((2, 3, 7, 6, 5), dtype, 2)
    _compare(torch, "adaptive_avg_pool3d", (size,), {}, x, dtype)
    _compare(torch, "adaptive_max_pool3d", (size,), dict(return_indices=True), x, dtype)
    _compare(torch, "adaptive_avg_pool3d", (size,), {}, x[1], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adaptive_max_pool1d_matches_torch(dtype):
    torch = oracle_torch()
    x = _input((2, 3, 11), dtype, 3)
    for size in (4, 1, 11, 13):
        _compare(torch, "adaptive_max_pool1d", (size,), dict(return_indices=True), x, dtype)
    _compare(torch, "adaptive_max_pool1d", (5,), {}, x[0], dtype)
    t = torch.adaptive_max_pool1d(torch.tensor(x), [4])
    j = jtorch.adaptive_max_pool1d(jtorch.tensor(x), [4])
    np.testing.assert_array_equal(_np(j[1]), t[1].numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_unpool_matches_torch(dtype):
    torch = oracle_torch()
    for n, shape, k, s, p, osz in ((1, (2, 3, 9), 3, 2, 1, None), (2, (2, 3, 7, 8), 2, None, 0, [7, 9]),
                                   (2, (1, 2, 6, 6), 3, 2, 1, [6, 6]), (3, (2, 2, 5, 6, 4), 2, None, 0, None),
                                   (3, (1, 2, 6, 5, 6), (3, 2, 2), (2, 1, 2), (1, 0, 1), [6, 5, 6])):
        x = _input(shape, dtype, n)
        pooled, ind = getattr(torch.nn.functional, f"max_pool{n}d")(torch.tensor(x), k, s, p, return_indices=True)
        _compare(torch, f"max_unpool{n}d", (k, s, p, osz), {}, pooled.numpy(), dtype, extra=(ind.numpy(),))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lp_pool_matches_torch(dtype):
    torch = oracle_torch()
    x1, x2, x3 = (np.abs(_input(s, dtype, 4)) + 0.1 for s in ((2, 3, 9), (2, 3, 7, 6), (2, 2, 5, 6, 4)))
    for norm in (2, 1.5, 3):
        _compare(torch, "lp_pool1d", (norm, 3, 2), {}, x1, dtype)
        _compare(torch, "lp_pool2d", (norm, (3, 2)), dict(ceil_mode=True), x2, dtype)
        _compare(torch, "lp_pool3d", (norm, 2, (1, 2, 2)), {}, x3, dtype)
    _compare(torch, "lp_pool2d", (float("inf"), 2), {}, x2, dtype)


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    x = jtorch.tensor(rng.standard_normal((1, 2, 4, 5, 4))).requires_grad_()
    fns = [lambda x: JF.max_pool3d(x, 2, 1, 1),
           lambda x: JF.avg_pool3d(x, (2, 3, 2), 2, 1, True, False),
           lambda x: JF.adaptive_avg_pool3d(x, (3, 2, 3)),
           lambda x: JF.adaptive_max_pool3d(x, (3, 2, 3)),
           lambda x: JF.lp_pool3d(x.abs() + 0.5, 2, 2),
           lambda x: JF.max_unpool3d(*JF.max_pool3d(x, 2, return_indices=True), 2, output_size=[4, 5, 4])]
    for f in fns:
        assert jtorch.autograd.gradcheck(f, (x,))
        assert jtorch.autograd.gradgradcheck(f, (x,))
    y = jtorch.tensor(rng.standard_normal((2, 3, 9))).requires_grad_()
    assert jtorch.autograd.gradcheck(lambda y: JF.adaptive_max_pool1d(y, 4), (y,))


def _error_cases(lib, F):
    r = lib.ones
    long = lib.int64
    return [
        lambda: F.max_pool3d(r(2, 4, 4), 2),
        lambda: F.max_pool3d(r(1, 2, 4, 4, 4), (2, 2)),
        lambda: F.max_pool3d(r(1, 2, 4, 4, 4), 2, padding=2),
        lambda: F.max_pool3d(r(1, 2, 1, 4, 4), 2),
        lambda: F.max_pool3d(r(1, 2, 4, 4, 4), 2, stride=0),
        lambda: F.max_pool3d(r(1, 0, 4, 4, 4), 2),
        lambda: F.avg_pool3d(r(1, 2, 4, 4, 4), 2, divisor_override=0),
        lambda: F.avg_pool3d(r(1, 2, 1, 4, 4), 2),
        lambda: F.avg_pool3d(r(1, 2, 4, 4, 4), 2, padding=2),
        lambda: F.avg_pool3d(r(4, 4), 2),
        lambda: F.adaptive_avg_pool3d(r(4, 4), 2),
        lambda: F.adaptive_avg_pool3d(r(1, 2, 0, 4, 4), 2),
        lambda: F.adaptive_avg_pool3d(r(1, 2, 4, 4, 4), (2, 2)),
        lambda: F.adaptive_max_pool3d(r(4, 4), 2),
        lambda: F.adaptive_max_pool3d(r(1, 2, 0, 4, 4), 2),
        lambda: F.adaptive_max_pool1d(r(1, 2, 3, 4), 2),
        lambda: F.adaptive_max_pool1d(r(1, 0, 4), 2),
        lambda: F.max_unpool2d(r(1, 2, 2, 2), lib.full((1, 2, 2, 2), 9, dtype=long), 2, output_size=[2, 2]),
        lambda: F.max_unpool2d(r(1, 2, 2, 2), lib.full((1, 2, 2, 2), 1, dtype=lib.int32), 2),
        lambda: F.max_unpool2d(r(1, 2, 2, 2), lib.full((1, 2, 2), 1, dtype=long), 2),
        lambda: F.max_unpool2d(r(1, 2, 2, 2), lib.full((1, 2, 2, 2), 1, dtype=long), 2, output_size=[9, 9]),
        lambda: F.max_unpool2d(r(1, 2, 2, 2), lib.full((1, 2, 2, 2), 1, dtype=long), 2, output_size=[4]),
        lambda: F.max_unpool3d(r(1, 2, 2, 2, 2), lib.full((1, 2, 2, 2, 2), -1, dtype=long), 2),
        lambda: F.max_unpool3d(r(2, 2, 2), lib.full((2, 2, 2), 1, dtype=long), 2),
        lambda: F.max_unpool3d(r(1, 2, 2, 2, 2), lib.full((1, 2, 2, 2, 2), 1, dtype=lib.int32), 2),
        lambda: F.max_unpool1d(r(1, 0, 2), lib.full((1, 0, 2), 1, dtype=long), 2),
    ]


def test_error_texts_match_torch():
    torch = oracle_torch()

    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type_name(e), str(e)
        return None

    got = [outcome(c) for c in _error_cases(jtorch, JF)]
    want = [outcome(c) for c in _error_cases(torch, torch.nn.functional)]
    assert all(w is not None for w in want)
    for g, w in zip(got, want):
        assert g == w


MODULES = [
    ("MaxPool3d", (2,), dict(stride=1, padding=1, dilation=(1, 2, 1), ceil_mode=True)),
    ("AvgPool3d", ((2, 3, 2),), dict(stride=2, padding=1, count_include_pad=False)),
    ("AdaptiveAvgPool3d", ((3, None, 2),), {}),
    ("AdaptiveMaxPool3d", (2,), {}),
    ("LPPool3d", (2, 2), dict(stride=1)),
]


@pytest.mark.parametrize("cls,args,kw", MODULES)
def test_modules_match_torch(cls, args, kw):
    torch = oracle_torch()
    tm, jm = getattr(torch.nn, cls)(*args, **kw), getattr(jnn, cls)(*args, **kw)
    assert repr(jm) == repr(tm)
    x = np.abs(_input((2, 3, 6, 5, 6), np.float64, 6)) + 0.1
    np.testing.assert_allclose(_np(jm(jtorch.tensor(x))), tm(torch.tensor(x)).numpy(), rtol=1e-12)


def test_small_modules_reprs_and_results_match_torch():
    torch = oracle_torch()
    x1 = _input((2, 3, 10), np.float64, 7)
    for cls, args in (("AdaptiveMaxPool1d", (4,)), ("LPPool1d", (2, 3)), ("LPPool2d", (1, 2))):
        tm, jm = getattr(torch.nn, cls)(*args), getattr(jnn, cls)(*args)
        assert repr(jm) == repr(tm)
        xx = x1 if cls.endswith("1d") else x1.reshape(2, 3, 2, 5)
        np.testing.assert_allclose(_np(jm(jtorch.tensor(xx))), tm(torch.tensor(xx)).numpy(), rtol=1e-12)
    for n in (1, 2, 3):
        tm, jm = getattr(torch.nn, f"MaxUnpool{n}d")(2), getattr(jnn, f"MaxUnpool{n}d")(2)
        assert repr(jm) == repr(tm)
        x = _input((1, 2) + (4,) * n, np.float64, n)
        pt, it = getattr(torch.nn.functional, f"max_pool{n}d")(torch.tensor(x), 2, return_indices=True)
        pj, ij = getattr(JF, f"max_pool{n}d")(jtorch.tensor(x), 2, return_indices=True)
        np.testing.assert_array_equal(_np(jm(pj, ij)), tm(pt, it).numpy())


def test_meta_tensors_give_torch_shapes():
    torch = oracle_torch()
    got = []
    for lib in (jtorch, torch):
        x = lib.empty(2, 3, 9, 7, 8, device="meta")
        F = lib.nn.functional
        v, i = F.max_pool3d(x, 3, 2, 1, return_indices=True)
        outs = [v, i, F.avg_pool3d(x, 2, ceil_mode=True), F.adaptive_avg_pool3d(x, (4, 3, 2)),
                F.adaptive_max_pool3d(x, 3)[1], F.max_unpool3d(v, i, 3, 2, 1, output_size=[9, 7, 8]),
                F.adaptive_max_pool1d(lib.empty(2, 3, 9, device="meta"), 4)]
        got.append([(str(o.device), tuple(o.shape), str(o.dtype).split(".")[-1]) for o in outs])
    assert got[0] == got[1]


def test_bfloat16_matches_torch():
    """bfloat16 through float32 copies: max pooling picks exact elements; torch's CPU has no
    bfloat16 avg_pool3d, and says so."""
    torch = oracle_torch()
    x = _input((1, 2, 5, 6, 5), np.float32, 8)
    for name, args in (("max_pool3d", (2, 1, 1)), ("adaptive_max_pool3d", ((3, 2, 4),))):
        t = getattr(torch.nn.functional, name)(torch.tensor(x).to(torch.bfloat16), *args)
        j = getattr(JF, name)(jtorch.tensor(x).to(jtorch.bfloat16), *args)
        assert j.dtype == jtorch.bfloat16
        np.testing.assert_array_equal(j.float().numpy(), t.float().numpy())
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.avg_pool3d(torch.tensor(x).to(torch.bfloat16), 2)
    with pytest.raises(RuntimeError, match="not implemented for 'BFloat16'") as je:
        JF.avg_pool3d(jtorch.tensor(x).to(jtorch.bfloat16), 2)
    assert str(je.value) == str(te.value)
