"""quantile, nanquantile and nanmedian: against torch (every interpolation, q as a float or a tensor, dims,
keepdim, out=, NaNs, gradients, error texts) and against NumPy's np.quantile / np.nanquantile
(hypothesis over shapes and dtypes)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


def _same(fn: Any, rtol: float = 1e-5) -> None:
    """fn(torch) and fn(jtorch) give the same array (shape, dtype, values; NaN where torch has NaN; torch's
    vectorised lerp rounds once, with a fused multiply-add, hence the tolerance)."""
    want = np.asarray(fn(oracle_torch()).numpy())
    got = np.asarray(fn(jtorch).numpy())
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-7, equal_nan=True)


def _data(nan: bool) -> np.ndarray:
    a = np.random.default_rng(3).standard_normal((3, 4, 5)).astype(np.float32)
    if nan:
        a[0, 1, 2] = a[1, :, 3][0] = np.nan
        a[2, 3, :] = np.nan  # a row of NaNs only
    return a


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_quantile_matches_torch(name: str, nan: bool, mode: str) -> None:
    a = _data(nan)
    for q in (0.0, 0.37, 1.0, [0.1, 0.5, 0.9]):
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                def f(T: Any, q: Any = q, dim: Any = dim, keepdim: bool = keepdim) -> Any:
                    qq = T.tensor(q) if isinstance(q, list) else q
                    return getattr(T, name)(T.tensor(a), qq, dim, keepdim, interpolation=mode)
                _same(f)


def test_quantile_forms() -> None:
    a = np.random.default_rng(0).standard_normal(9)
    _same(lambda T: T.tensor(a).quantile(T.tensor(0.25, dtype=T.float64)))  # a 0-dim q
    _same(lambda T: T.tensor(a).nanquantile(0.5, dim=0, keepdim=True))
    _same(lambda T: T.quantile(T.tensor(2.5, dtype=T.float64), 0.5, dim=0, keepdim=True))
    _same(lambda T: T.quantile(T.tensor(a).reshape(3, 3), T.tensor([0.5], dtype=T.float64), keepdim=True))

    def with_out(T: Any) -> Any:
        out = T.empty(0, dtype=T.float64)
        T.quantile(T.tensor(a).reshape(3, 3), T.tensor([0.2, 0.8], dtype=T.float64), 1, out=out)
        return out
    _same(with_out)
    _same(lambda T: T.nanquantile(T.tensor(a), 0.3, out=T.empty(0, dtype=T.float64)))
    out = jtorch.empty(0, dtype=jtorch.float64)
    assert jtorch.quantile(jtorch.tensor(a), 0.3, out=out) is out


def test_quantile_meta_and_grad() -> None:
    x = jtorch.empty(4, 6, device="meta")
    assert jtorch.quantile(x, jtorch.empty(3, device="meta"), 1, True).shape == (3, 4, 1)
    a = np.random.default_rng(1).standard_normal((4, 6))

    def grad(T: Any) -> Any:
        t = T.tensor(a, requires_grad=True)
        T.quantile(t, T.tensor([0.3, 0.6], dtype=T.float64), 1).sum().backward()
        return t.grad
    _same(grad)


ERRORS = [
    (lambda T: T.quantile(T.tensor([]), 0.5), RuntimeError),
    (lambda T: T.quantile(T.ones(3), 1.5), RuntimeError),
    (lambda T: T.nanquantile(T.ones(3), -0.5), RuntimeError),
    (lambda T: T.quantile(T.ones(3), T.tensor([1.5])), RuntimeError),
    (lambda T: T.quantile(T.ones(3), T.ones(2, 2)), RuntimeError),
    (lambda T: T.quantile(T.ones(3, dtype=T.int64), 0.5), RuntimeError),
    (lambda T: T.quantile(T.ones(3, dtype=T.float16), 0.5), RuntimeError),
    (lambda T: T.quantile(T.ones(3), T.tensor([0.5], dtype=T.float64)), RuntimeError),
    (lambda T: T.quantile(T.ones(3), 0.5, interpolation="foo"), RuntimeError),
    (lambda T: T.quantile(T.ones(3), 0.5, out=T.empty(1, dtype=T.float64)), RuntimeError),
    (lambda T: T.quantile(T.ones(3), 0.5, dim=3), IndexError),
    (lambda T: T.quantile(T.ones(2 ** 24 + 1), 0.5), RuntimeError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_quantile_errors(i: int) -> None:
    fn, exc = ERRORS[i]
    torch = oracle_torch()
    with pytest.raises(exc) as want:
        fn(torch)
    with pytest.raises(exc) as got:
        fn(jtorch)
    assert str(got.value) == str(want.value)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3), dtype=st.sampled_from([np.float32, np.float64]),
       mode=st.sampled_from(MODES), data=st.data(), nan=st.booleans())
def test_quantile_vs_numpy(shape: list, dtype: Any, mode: str, data: st.DataObject, nan: bool) -> None:
    seed = data.draw(st.integers(0, 2 ** 31))
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if nan:
        x.reshape(-1)[:: 3] = np.nan
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    q = np.array(data.draw(st.lists(st.floats(0, 1), min_size=1, max_size=4)), dtype=dtype)
    for name, npf in (("quantile", np.quantile), ("nanquantile", np.nanquantile)):
        got = getattr(jtorch, name)(jtorch.tensor(x), jtorch.tensor(q), dim, interpolation=mode).numpy()
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice
            want = npf(x, q, axis=dim, method=mode)
        np.testing.assert_allclose(got, want.astype(dtype), rtol=1e-5, atol=1e-6, equal_nan=True)


# ---- nanmedian -------------------------------------------------------------------------------------
def _pair(fn: Any) -> None:
    """fn(T) -> (values, indices) or a tensor: equal on torch and jtorch, indices included."""
    want, got = fn(oracle_torch()), fn(jtorch)
    if isinstance(got, jtorch.Tensor):
        want, got = (want,), (got,)
    for w, g in zip(want, got):
        w, g = np.asarray(w.numpy()), np.asarray(g.numpy())
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def _ties(seed: int, shape: tuple, nan: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, shape).astype(np.float32)
    a[rng.random(shape) < nan] = np.nan
    return a


@pytest.mark.parametrize("seed", range(6))
def test_nanmedian_matches_torch(seed: int) -> None:
    a = _ties(seed, (5, 9, 4), 0.3)
    a[1, :, 2] = np.nan  # a row of NaNs only
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            _pair(lambda T, dim=dim, keepdim=keepdim: T.tensor(a).nanmedian(dim, keepdim))
    _pair(lambda T: T.nanmedian(T.tensor(a)))
    _pair(lambda T: T.tensor(np.nan_to_num(a).astype(np.int64) if seed % 2 else a[0, 0]).nanmedian(0))


def test_nanmedian_forms() -> None:
    for n in (1, 2, 4, 7, 13, 100, 1000):  # rows of NaNs only: the index torch's nth_element leaves
        _pair(lambda T, n=n: T.full((2, n), float("nan")).nanmedian(1))
    _pair(lambda T: T.tensor(5.0).nanmedian(0))
    _pair(lambda T: T.zeros(0, 3).nanmedian(1))
    _pair(lambda T: T.tensor([3, 1, 2]).nanmedian())
    _pair(lambda T: T.tensor([]).nanmedian())

    def with_out(T: Any) -> Any:
        v, i = T.empty(0), T.empty(0, dtype=T.long)
        T.nanmedian(T.tensor(_ties(9, (3, 5), 0.4)), 1, out=(v, i))
        return v, i
    _pair(with_out)
    r = jtorch.tensor([[1.0, 2.0]]).nanmedian(1)
    assert type(r).__name__ == "nanmedian" and r.values.shape == (1,) and r.indices.dtype == jtorch.int64
    m = jtorch.empty(3, 4, device="meta").nanmedian(0, True)
    assert m.values.shape == (1, 4) and m.indices.device.type == "meta"

    def grads(T: Any) -> Any:
        x = T.tensor([[1.0, float("nan"), 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
        x.nanmedian(1)[0].sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        x.nanmedian().backward()
        return g1, x.grad
    _pair(grads)


NANMEDIAN_ERRORS = [
    (lambda T: T.tensor([True]).nanmedian(), NotImplementedError),
    (lambda T: T.tensor([True]).nanmedian(0), NotImplementedError),
    (lambda T: T.nanmedian(T.ones(3), 0, out=(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.long))), RuntimeError),
    (lambda T: T.nanmedian(T.ones(3), 3), IndexError),
    (lambda T: T.zeros(0).nanmedian(0), IndexError),
]


@pytest.mark.parametrize("i", range(len(NANMEDIAN_ERRORS)))
def test_nanmedian_errors(i: int) -> None:
    fn, exc = NANMEDIAN_ERRORS[i]
    with pytest.raises(exc) as want:
        fn(oracle_torch())
    with pytest.raises(exc) as got:
        fn(jtorch)
    assert str(got.value) == str(want.value)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_nanmedian_vs_numpy(shape: list, data: st.DataObject, dtype: Any) -> None:
    x = _ties(data.draw(st.integers(0, 2 ** 31)), tuple(shape), 0.3).astype(dtype)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    v, i = jtorch.tensor(x).nanmedian(dim)
    s = np.sort(x, axis=dim)  # NaN last; the lower median of the non-NaN values
    k = np.maximum((np.sum(~np.isnan(x), axis=dim, keepdims=True) - 1) // 2, 0)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(s, k, dim).squeeze(dim))
    picked = np.take_along_axis(x, np.expand_dims(i.numpy(), dim), dim).squeeze(dim)
    np.testing.assert_array_equal(picked, v.numpy())
