"""all, any and count_nonzero against NumPy: every dtype, random shapes and layouts, dims (incl. the
"reduce nothing" dim=[] of all/any), bool results (uint8 inputs keep uint8), out= and meta
tensors, and PyTorch's error texts.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import (ALL, LAYOUTS, SETTINGS, assert_close, axes, check_error, check_out_resize, dims_for,
                                make, meta_like, np_of, shapes, values)


def sparse_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    """Mostly non-zero values with some zeros (and NaN, which counts as true)."""
    a = np.asarray(values(rng, dtype, shape, specials=True))
    if np.dtype(dtype).kind != "b":
        a = np.where(rng.random(shape) < 0.3, np.zeros((), a.dtype), a).astype(a.dtype)
    return a


@SETTINGS
@given(name=st.sampled_from(["all", "any"]), dtype=st.sampled_from(ALL), data=st.data(), shape=shapes(),
       layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_all_any(name: str, dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str, keepdim: bool,
                 seed: int) -> None:
    dim = data.draw(dims_for(len(shape)))
    t, a = make(sparse_values(np.random.default_rng(seed), dtype, shape), layout)
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        got = getattr(jtorch, name)(t, dim, keepdim)  # dim=[]: nothing reduced, x != 0 elementwise
        expected = a != 0
    else:
        got = getattr(jtorch, name)(t, dim, keepdim) if dim is not None else (
            getattr(t, name)() if not keepdim else getattr(jtorch, name)(t, None, True))
        expected = np.asarray(getattr(np, name)(a != 0, axis=axes(dim, a.ndim), keepdims=keepdim))
    want = np.uint8 if np.dtype(dtype) == np.uint8 else np.bool_
    assert_close(np_of(got), expected.astype(want), 1, (name, dtype, shape, layout, dim))
    m = getattr(jtorch, name)(meta_like(t), dim, keepdim)
    assert m.is_meta and m.shape == got.shape and m.dtype == got.dtype


@SETTINGS
@given(dtype=st.sampled_from(ALL), data=st.data(), shape=shapes(), layout=st.sampled_from(LAYOUTS),
       seed=st.integers(0, 2 ** 32 - 1))
def test_count_nonzero(dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str, seed: int) -> None:
    dim = data.draw(dims_for(len(shape)))
    t, a = make(sparse_values(np.random.default_rng(seed), dtype, shape), layout)
    if isinstance(dim, int) or dim is None:
        got = jtorch.count_nonzero(t, dim)
    else:
        got = t.count_nonzero(list(dim))
    expected = np.asarray(np.count_nonzero(a, axis=axes(dim, a.ndim))).astype(np.int64)
    assert_close(np_of(got), expected, 1, (dtype, shape, layout, dim))
    assert jtorch.count_nonzero(meta_like(t), dim if isinstance(dim, int) else None).dtype == jtorch.int64


def test_values_and_identities() -> None:
    x = jtorch.tensor([[0, 1, 2], [3, 4, 5]], dtype=jtorch.uint8)
    assert x.all().dtype == jtorch.uint8 and int(x.all()) == 0 and int(x.any()) == 1
    assert x.all(1).tolist() == [0, 1] and x.any(0, keepdim=True).shape == (1, 3)
    f = jtorch.tensor([0.0, float("nan"), -0.0])
    assert f.any().item() is True and f.all().item() is False  # NaN is non-zero
    e = jtorch.empty(0, 2)
    assert e.all().item() is True and e.any().item() is False and e.all(0).tolist() == [True, True]
    z = jtorch.tensor([0j, 1j], dtype=jtorch.complex64)
    assert z.any().item() is True and z.all().item() is False and int(z.count_nonzero()) == 1
    assert jtorch.all(jtorch.ones(2, 3), dim=(0, 1)).item() is True
    assert int(jtorch.count_nonzero(jtorch.ones(2, 3), (0, 1))) == 6


def test_out() -> None:
    x = jtorch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    check_out_resize(lambda out: jtorch.all(x, 1, out=out), np.array([False, True]), jtorch.bool, 3)
    u = jtorch.empty(2, dtype=jtorch.uint8)
    assert jtorch.any(x, 1, out=u) is u and u.tolist() == [1, 1]


@pytest.mark.parametrize("fn,exc,text", [
    (lambda T: T.all(T.ones(2, 3), 0, out=T.empty(3)), RuntimeError,
     "all only supports bool tensor for result, got: Float"),
    (lambda T: T.any(T.ones(2, 3), out=T.empty(3)), RuntimeError,
     "any only supports bool tensor for result, got: Float"),
    (lambda T: T.ones(2, 3).all(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T: T.count_nonzero(T.ones(2, 3), (0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)
