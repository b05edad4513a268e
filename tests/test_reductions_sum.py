"""sum, mean, prod, nansum and nanmean against NumPy: every dtype PyTorch takes, random shapes (0-dim,
empty, size-1 dims), dims (negative, lists, None, []), keepdim, non-contiguous inputs (transposed,
sliced, expanded), the dtype= argument, out= (its dtype decides sum's result; a wrongly shaped out
is resized with PyTorch's warning), method forms and meta tensors; dtype rules and error texts.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import (ALL, BOOL, FLOATS, INEXACT, INTS, LAYOUTS, SETTINGS, assert_close, axes,
                                check_error, check_out_resize, dims_for, jdtype, make, meta_like, np_of,
                                reduced_count, shapes, values, wider)

OPS = {
    # name: (jtorch function, NumPy reference on the widened array, dtypes, result dtype rule)
    "sum": (jtorch.sum, np.sum, ALL, "promote"),
    "prod": (None, np.prod, ALL, "promote"),
    "mean": (jtorch.mean, np.mean, INEXACT, "same"),
    "nansum": (jtorch.nansum, np.nansum, FLOATS + INTS + BOOL, "promote"),
    "nanmean": (jtorch.nanmean, np.nanmean, FLOATS, "same"),
}


def result_dtype(rule: str, dtype: np.dtype) -> np.dtype:
    if rule == "promote" and np.dtype(dtype).kind in "biu":
        return np.dtype(np.int64)
    return np.dtype(dtype)


def reference(name: str, a: np.ndarray, dim: object, keepdim: bool) -> np.ndarray:
    ref, rule = OPS[name][1], OPS[name][3]
    ax = axes(dim, a.ndim)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = ref(a.astype(wider(a.dtype)), axis=ax, keepdims=keepdim)
    return np.asarray(r).astype(result_dtype(rule, a.dtype))


def call(name: str, t: jtorch.Tensor, dim: object, keepdim: bool, **kw: object) -> jtorch.Tensor:
    if name == "prod":  # prod takes one int dim, or none
        if dim is None:
            return jtorch.prod(t, **kw) if not keepdim else t.prod(**kw).reshape([1] * t.dim())
        return jtorch.prod(t, dim, keepdim, **kw)
    return OPS[name][0](t, dim, keepdim, **kw)


@SETTINGS
@given(name=st.sampled_from(sorted(OPS)), data=st.data(), shape=shapes(), layout=st.sampled_from(LAYOUTS),
       keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_matches_numpy(name: str, data: st.DataObject, shape: tuple, layout: str, keepdim: bool, seed: int) -> None:
    dtype = data.draw(st.sampled_from(OPS[name][2]))
    dim = data.draw(dims_for(len(shape), single=name == "prod"))
    rng = np.random.default_rng(seed)
    t, a = make(values(rng, dtype, shape, specials=name.startswith("nan")), layout)
    got = call(name, t, dim, keepdim)
    expected = reference(name, a, dim, keepdim)
    assert_close(np_of(got), expected, reduced_count(shape, dim), (name, dtype, shape, layout, dim, keepdim))
    m = call(name, meta_like(t), dim, keepdim)  # meta tensors: shape and dtype only
    assert m.is_meta and m.shape == got.shape and m.dtype == got.dtype


@SETTINGS
@given(name=st.sampled_from(["sum", "mean", "nansum", "prod"]), dtype=st.sampled_from(FLOATS + INTS),
       shape=shapes(max_dims=3, min_side=1), seed=st.integers(0, 2 ** 32 - 1))
def test_method_and_out(name: str, dtype: np.dtype, shape: tuple, seed: int) -> None:
    if name == "mean" and np.dtype(dtype).kind in "iu":
        dtype = np.dtype(np.float64)
    rng = np.random.default_rng(seed)
    t, a = make(values(rng, dtype, shape))
    dim = -1 if shape else 0
    expected = reference(name, a, dim, False)
    assert_close(np_of(getattr(t, name)(dim)), expected, reduced_count(shape, dim))
    check_out_resize(lambda out: getattr(jtorch, name)(t, dim, out=out), expected, jdtype(expected.dtype),
                     reduced_count(shape, dim))


def test_dtype_argument_and_integer_promotion() -> None:
    x = jtorch.tensor([[100, 100, 100]], dtype=jtorch.int8)
    assert jtorch.sum(x).dtype == jtorch.int64 and int(jtorch.sum(x)) == 300
    assert int(x.prod()) == 1000000 and x.prod().dtype == jtorch.int64
    assert int(jtorch.sum(x, dtype=jtorch.int8)) == 44  # wraps like a C cast, as in torch
    assert jtorch.sum(x.bool()).dtype == jtorch.int64
    assert jtorch.sum(x, 1, dtype=jtorch.float64).dtype == jtorch.float64
    assert jtorch.mean(x, dtype=jtorch.float32).item() == 100.0
    h = jtorch.tensor([1.5, 2.25, 4.0], dtype=jtorch.float16)
    assert jtorch.sum(h).dtype == jtorch.float16 and float(jtorch.sum(h)) == 7.75
    assert jtorch.mean(h).dtype == jtorch.float16 and jtorch.sum(h, dtype=jtorch.float32).dtype == jtorch.float32


def test_out_dtype_decides_sum() -> None:
    out = jtorch.empty(2, dtype=jtorch.int64)
    jtorch.sum(jtorch.tensor([[1.5, 1.5], [0.5, 2.5]]).t(), 1, out=out)
    assert out.tolist() == [1, 3]  # the input is converted to int64 first (1.5 -> 1), as in torch
    o = jtorch.empty((), dtype=jtorch.int64)
    assert int(jtorch.sum(jtorch.tensor([1.5, 1.5]), [], out=o)) == 2
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        jtorch.sum(jtorch.ones(2, 3), 0, dtype=jtorch.float64, out=jtorch.empty(3))


def test_empty_inputs() -> None:
    e = jtorch.empty(0, 3)
    assert float(e.sum()) == 0 and float(e.prod()) == 1 and np.isnan(float(e.mean()))
    assert e.sum(0).tolist() == [0, 0, 0] and e.prod(0).tolist() == [1, 1, 1]
    assert all(np.isnan(e.mean(0).tolist())) and e.sum(1).shape == (0,)
    assert e.sum(1, keepdim=True).shape == (0, 1)
    z = jtorch.empty(0, dtype=jtorch.complex64).mean().item()
    assert z != z  # nan+nanj


def test_dims_and_keepdim_shapes() -> None:
    x = jtorch.ones(2, 3, 4)
    assert x.sum((0, -1)).shape == (3,) and x.sum([0, 2], keepdim=True).shape == (1, 3, 1)
    assert x.sum([]).shape == () and x.sum(dim=None, keepdim=True).shape == (1, 1, 1)
    assert float(x.sum([])) == 24
    s = jtorch.tensor(5.0)
    assert s.sum(0).shape == () and s.sum(-1).shape == () and s.mean(0, keepdim=True).shape == ()


def test_complex_sum_mean_prod() -> None:
    z = jtorch.tensor([1 + 2j, 3 - 1j, -2 + 0.5j], dtype=jtorch.complex64)
    assert z.sum().item() == pytest.approx(2 + 1.5j)
    assert z.mean().item() == pytest.approx((2 + 1.5j) / 3)
    assert z.prod().item() == pytest.approx((1 + 2j) * (3 - 1j) * (-2 + 0.5j))
    assert jtorch.sum(z, dtype=jtorch.complex128).dtype == jtorch.complex128


@pytest.mark.parametrize("fn,exc,text", [
    (lambda T: T.arange(6).reshape(2, 3).mean(), RuntimeError,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"),
    (lambda T: T.ones(2, dtype=T.bool).mean(), RuntimeError,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Bool"),
    (lambda T: T.ones(2).mean(dtype=T.int64), RuntimeError,
     "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. "
     "Got: Long"),
    (lambda T: T.mean(T.ones(2, 3), 0, out=T.empty(3, dtype=T.int64)), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda T: T.ones(2, 3).sum(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T: T.ones(2, 3).sum((0, -2)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda T: T.ones(2, 3).prod(-3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda T: T.tensor(1.0).sum(1), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda T: T.ones(2, dtype=T.complex64).nansum(), RuntimeError, "nansum on CPU does not support complex inputs"),
    (lambda T: T.arange(3).nanmean(), RuntimeError,
     "nanmean(): expected input to have floating point or complex dtype but got Long"),
    (lambda T: T.nansum(T.ones(2, 3), 0, out=T.empty(3, dtype=T.int64)), NotImplementedError,
     "\"nansum_cpu\" not implemented for 'Long'"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)
