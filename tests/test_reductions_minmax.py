"""amax, amin, max/min (whole tensor and (values, indices) along a dim), argmax, argmin, aminmax and
median against NumPy: every dtype PyTorch takes, random shapes and layouts, NaN propagation (the
first NaN wins), ties (the first index wins), keepdim, out= (incl. resize), meta tensors, the
named-tuple results (jtorch.return_types) and PyTorch's error texts for empty and complex inputs.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import (FLOATS, INTS, LAYOUTS, NO_COMPLEX, SETTINGS, assert_close, axes, check_error,
                                check_out_resize, dims_for, make, meta_like, np_of, shapes, values)

VALUE_OPS = {"amax": np.max, "amin": np.min}


def nonempty_dim(shape: tuple, dim: object) -> bool:
    """Reducing these dims is allowed (no size-0 reduced dim; dims given when empty)."""
    ax = axes(dim, len(shape))
    if ax is None:
        return int(np.prod(shape)) > 0
    return all(shape[d] > 0 for d in ax)


@SETTINGS
@given(name=st.sampled_from(sorted(VALUE_OPS)), dtype=st.sampled_from(NO_COMPLEX), data=st.data(),
       shape=shapes(), layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_amax_amin(name: str, dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str, keepdim: bool,
                   seed: int) -> None:
    dim = data.draw(dims_for(len(shape), allow_none=False))
    if not nonempty_dim(shape, dim):
        return
    t, a = make(values(np.random.default_rng(seed), dtype, shape, specials=True), layout)
    got = getattr(jtorch, name)(t, dim, keepdim)
    expected = np.asarray(VALUE_OPS[name](a, axis=axes(dim, a.ndim), keepdims=keepdim))
    assert_close(np_of(got), expected.astype(a.dtype), 1, (name, dtype, shape, layout, dim))
    m = getattr(jtorch, name)(meta_like(t), dim, keepdim)
    assert m.is_meta and m.shape == got.shape and m.dtype == got.dtype


@SETTINGS
@given(name=st.sampled_from(["max", "min", "argmax", "argmin"]), dtype=st.sampled_from(FLOATS + INTS), data=st.data(),
       shape=shapes(), layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_values_and_indices(name: str, dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str,
                            keepdim: bool, seed: int) -> None:
    dim = data.draw(dims_for(len(shape), single=True))
    if shape and shape[dim % len(shape)] == 0:
        return
    rng = np.random.default_rng(seed)
    t, a = make(values(rng, dtype, shape, specials=True, low=-2, high=2), layout)  # many ties
    ax = dim % a.ndim if a.ndim else None
    npf = np.argmax if name.endswith("max") else np.argmin
    idx = np.asarray(npf(a, axis=ax) if a.ndim else np.int64(0))
    if keepdim and a.ndim:
        idx = np.expand_dims(idx, ax)
    if name.startswith("arg"):
        got = getattr(jtorch, name)(t, dim, keepdim)
        assert_close(np_of(got), idx.astype(np.int64), 1, (name, dtype, shape, layout, dim))
        return
    r = getattr(t, name)(dim, keepdim)
    assert isinstance(r, jtorch.return_types.__dict__[name]) and len(r) == 2
    vals = np.asarray((np.max if name == "max" else np.min)(a, axis=ax, keepdims=keepdim) if a.ndim else a)
    assert_close(np_of(r.values), vals.astype(a.dtype), 1, (name, dtype, shape, layout, dim))
    assert_close(np_of(r.indices), idx.astype(np.int64), 1, (name, dtype, shape, layout, dim))
    mv, mi = getattr(meta_like(t), name)(dim, keepdim)
    assert mv.shape == r.values.shape and mv.dtype == r.values.dtype and mi.dtype == jtorch.int64


@pytest.mark.parametrize("dtype", NO_COMPLEX)
def test_every_dtype_whole_tensor(dtype: np.dtype) -> None:
    rng = np.random.default_rng(1)
    a = values(rng, dtype, (3, 5))
    t, a = make(a, "transposed")
    assert_close(np_of(t.max()), np.asarray(a.max()), 1)
    assert_close(np_of(jtorch.min(t)), np.asarray(a.min()), 1)
    mn, mx = jtorch.aminmax(t)
    assert_close(np_of(mn), np.asarray(a.min()), 1) and assert_close(np_of(mx), np.asarray(a.max()), 1)
    if dtype != np.bool_:
        assert int(t.argmax()) == int(a.argmax()) and int(t.argmin()) == int(a.argmin())


def test_nan_and_ties() -> None:
    n = float("nan")
    x = jtorch.tensor([1.0, n, 5.0, n])
    assert np.isnan(float(x.max())) and np.isnan(float(x.amin()))
    r = x.max(0)
    assert np.isnan(float(r.values)) and int(r.indices) == 1
    assert int(x.argmax()) == 1 and int(x.argmin()) == 1
    assert int(jtorch.tensor([1, 5, 5, 2]).argmax()) == 1
    assert int(jtorch.tensor([3, 1, 1, 2]).argmin()) == 1
    assert int(jtorch.tensor([-0.0, 0.0]).argmax()) == 0  # equal values: the first
    assert int(jtorch.tensor([-np.inf, -np.inf]).argmax()) == 0
    assert jtorch.tensor([[1, 9], [9, 1]]).max(1).indices.tolist() == [1, 0]


def test_return_types() -> None:
    x = jtorch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    r = x.max(1)
    assert isinstance(r, tuple) and type(r).__name__ == "max" and r[0] is r.values and r[1] is r.indices
    assert repr(r) == ("torch.return_types.max(\nvalues=tensor([5., 6.]),\nindices=tensor([1, 2]))")
    assert jtorch.return_types.max.n_fields == 2 and tuple(pickle.loads(pickle.dumps(r))[1].tolist()) == (1, 2)
    plain = jtorch.ops.aten.max.dim(x, 1)
    assert type(plain) is tuple
    vals, idx = jtorch.empty(0), jtorch.empty(0, dtype=jtorch.int64)
    o = jtorch.max(x, 0, out=(vals, idx))
    assert type(o).__name__ == "max_out" and o.values is vals and idx.tolist() == [1, 0, 1]
    m = jtorch.aminmax(x, dim=1)
    assert type(m).__name__ == "aminmax" and m.min.tolist() == [1, 2] and m.max.tolist() == [5, 6]
    md = x.median(1)
    assert type(md).__name__ == "median" and md.values.tolist() == [3, 4] and md.indices.tolist() == [2, 0]
    with pytest.raises(TypeError):
        jtorch.max(x, 0, out=vals)


@SETTINGS
@given(dtype=st.sampled_from(FLOATS + INTS), shape=shapes(max_dims=3, min_side=1), data=st.data(),
       layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_median(dtype: np.dtype, shape: tuple, data: st.DataObject, layout: str, keepdim: bool, seed: int) -> None:
    t, a = make(values(np.random.default_rng(seed), dtype, shape, specials=True), layout)
    flat = np.sort(a.reshape(-1))  # NaNs sort last: a NaN anywhere makes the median NaN
    whole = flat[(flat.size - 1) // 2] if not np.isnan(flat.astype(np.float64)).any() else np.nan
    assert_close(np_of(t.median()), np.asarray(whole).astype(a.dtype), 1)
    if not shape:
        return
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    r = jtorch.median(t, dim, keepdim)
    ax = dim % len(shape)
    srt = np.sort(a, axis=ax)
    med = np.take(srt, (a.shape[ax] - 1) // 2, axis=ax)
    if a.dtype.kind == "f":
        med = np.where(np.isnan(a).any(axis=ax), np.nan, med).astype(a.dtype)
    if keepdim:
        med = np.expand_dims(med, ax)
    assert_close(np_of(r.values), med, 1)
    picked = np.take_along_axis(a, np_of(r.indices) if keepdim else np.expand_dims(np_of(r.indices), ax), ax)
    picked = picked if keepdim else np.squeeze(picked, ax)
    assert_close(picked, np_of(r.values), 1)  # the index points at the median (or the first NaN)


@pytest.mark.parametrize("fn", [lambda t: t.amax(1), lambda t: t.argmax(1), lambda t: t.max(1)[0],
                                lambda t: jtorch.aminmax(t, dim=1)[1]])
def test_out_and_noncontiguous(fn: object) -> None:
    rng = np.random.default_rng(2)
    t, a = make(values(rng, np.float32, (4, 6)), "strided")
    got = fn(t)
    exp = np_of(fn(jtorch.from_numpy(np.ascontiguousarray(a))))
    assert_close(np_of(got), exp, 1)


def test_out_resize() -> None:
    t = jtorch.tensor([[1.0, 7.0, 3.0], [4.0, 2.0, 6.0]])
    check_out_resize(lambda out: jtorch.amax(t, 1, out=out), np.array([7.0, 6.0], np.float32), jtorch.float32, 3)
    check_out_resize(lambda out: jtorch.argmin(t, 0, out=out), np.array([0, 1, 0]), jtorch.int64, 2)
    check_out_resize(lambda out: jtorch.max(t, out=out), np.array(7.0, np.float32), jtorch.float32, 6)


@pytest.mark.parametrize("fn,exc,text", [
    (lambda T: T.empty(0, 3).max(), RuntimeError, "max(): Expected reduction dim to be specified for input.numel() "
     "== 0. Specify the reduction dim with the 'dim' argument."),
    (lambda T: T.empty(0, 3).amin(), RuntimeError, "amin(): Expected reduction dim to be specified for input.numel() "
     "== 0. Specify the reduction dim with the 'dim' argument."),
    (lambda T: T.empty(0, 3).argmax(), IndexError,
     "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda T: T.empty(0, 3).max(0), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda T: T.empty(0, 3).max(-2), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda T: T.empty(0, 3).amax(-2), IndexError, "amax(): Expected reduction dim -2 to have non-zero size."),
    (lambda T: T.empty(0, 3).argmin(0), IndexError, "argmin(): Expected reduction dim 0 to have non-zero size."),
    (lambda T: T.empty(0, 3).aminmax(), RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as "
     "the operation has no identity."),
    (lambda T: T.empty(0, 3).aminmax(dim=0), IndexError, "aminmax: Expected reduction dim 0 to have non-zero size."),
    (lambda T: T.empty(0, 3).median(0), IndexError, "median(): Expected reduction dim 0 to have non-zero size."),
    (lambda T: T.ones(2, dtype=T.complex64).max(), NotImplementedError,
     "\"max_all\" not implemented for 'ComplexFloat'"),
    (lambda T: T.ones(2, dtype=T.complex64).max(0), RuntimeError, "max(): does not support complex input"),
    (lambda T: T.ones(2, dtype=T.complex64).amax(0), NotImplementedError,
     "\"max_values_cpu\" not implemented for 'ComplexFloat'"),
    (lambda T: T.ones(2, dtype=T.complex64).argmax(), RuntimeError, "argmax(): does not support complex input"),
    (lambda T: T.ones(2, dtype=T.bool).argmin(), RuntimeError, "argmin(): does not support bool input"),
    (lambda T: T.ones(2, dtype=T.complex64).aminmax(), NotImplementedError,
     "\"aminmax_cpu\" not implemented for 'ComplexFloat'"),
    (lambda T: T.ones(2, dtype=T.bool).median(0), NotImplementedError, "\"median_out\" not implemented for 'Bool'"),
    (lambda T: T.ones(2, dtype=T.complex64).median(), NotImplementedError,
     "\"median_cpu\" not implemented for 'ComplexFloat'"),
    (lambda T: T.amax(T.ones(2, 3), 0, out=T.empty(3, dtype=T.int64)), RuntimeError,
     "Expected the dtype for input and out to match, but got Float for input's dtype and Long for out's dtype."),
    (lambda T: T.max(T.ones(2, 3), 0, out=(T.empty(3), T.empty(3))), RuntimeError,
     "Expected out tensor to have dtype long int, but got float instead"),
    (lambda T: T.argmax(T.ones(2, 3), 0, out=T.empty(3)), RuntimeError,
     "Expected out tensor to have dtype long int, but got float instead"),
    (lambda T: T.ones(2, 3).amax((0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda T: T.ones(2, 3).argmax(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)


def test_empty_results_and_scalars() -> None:
    e = jtorch.empty(0, 3)
    r = e.max(1)
    assert r.values.shape == (0,) and r.indices.dtype == jtorch.int64
    assert e.argmax(1).shape == (0,) and e.amax(1).shape == (0,)
    assert np.isnan(float(e.median()))
    s = jtorch.tensor(5.0)
    assert s.max(0).indices.item() == 0 and s.argmax(0).item() == 0 and float(s.amax()) == 5.0
    assert s.argmax(keepdim=True).shape == ()
    assert jtorch.ones(2, 3).argmax(keepdim=True).shape == (1, 1)
