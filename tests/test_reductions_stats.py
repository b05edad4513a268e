"""var, std, var_mean, std_mean, linalg.vector_norm / norm and logsumexp against NumPy: float and
complex dtypes, random shapes and layouts, dims, keepdim, corrections (unbiased=, correction=,
dof <= 0 giving inf/nan with PyTorch's warning), every ord of vector_norm (0, 1, 2, inf, -inf,
others, 'fro'), dtype=, out= and meta tensors; PyTorch's error texts.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import (COMPLEX, FLOATS, INEXACT, INTS, LAYOUTS, SETTINGS, assert_close, axes, check_error,
                                check_out_resize, dims_for, make, meta_like, np_of, reduced_count, shapes, values)

DOF_WARNING = "degrees of freedom is <= 0"


def real_of(dtype: np.dtype) -> np.dtype:
    return np.empty(0, dtype).real.dtype


@SETTINGS
@given(name=st.sampled_from(["var", "std"]), dtype=st.sampled_from(INEXACT), data=st.data(),
       shape=shapes(max_dims=3), layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(),
       correction=st.sampled_from([0, 1, 2, 0.5]), seed=st.integers(0, 2 ** 32 - 1))
def test_var_std(name: str, dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str, keepdim: bool,
                 correction: float, seed: int) -> None:
    dim = data.draw(dims_for(len(shape)))
    t, a = make(values(np.random.default_rng(seed), dtype, shape), layout)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = getattr(jtorch, name)(t, dim, correction=correction, keepdim=keepdim)
    n = reduced_count(shape, dim)
    out_numel = int(np.prod(got.shape))
    assert any(DOF_WARNING in str(x.message) for x in w) == (out_numel == 0 or n - correction <= 0)
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    ax = axes(dim, a.ndim)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m = wide.mean(axis=ax, keepdims=True)
        v = (np.abs(wide - m) ** 2).sum(axis=ax, keepdims=keepdim) / max(0.0, n - correction)
        r = np.sqrt(v) if name == "std" else v
    assert_close(np_of(got), np.asarray(r).astype(real_of(a.dtype)), n, (name, dtype, shape, dim, correction))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        mt = getattr(jtorch, name)(meta_like(t), dim, correction=correction, keepdim=keepdim)
    assert mt.shape == got.shape and mt.dtype == got.dtype


def test_var_std_overloads_and_pairs() -> None:
    x = jtorch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]])
    assert float(jtorch.var(x[0])) == pytest.approx(5 / 3)
    assert float(x[0].var(unbiased=False)) == pytest.approx(1.25) and float(x[0].var(correction=0)) == 1.25
    assert x.var(1).tolist() == pytest.approx([5 / 3, 20 / 3]) and x.std(0, True, True).shape == (1, 4)
    v, m = jtorch.var_mean(x, 1)
    assert v.tolist() == pytest.approx([5 / 3, 20 / 3]) and m.tolist() == [2.5, 5.0]
    s, m2 = jtorch.std_mean(x, dim=0, keepdim=True, correction=0)
    assert s.shape == (1, 4) and m2.tolist() == [[1.5, 3.0, 4.5, 6.0]]
    assert type(jtorch.var_mean(x)) is tuple  # unnamed returns: a plain tuple, as in torch
    h = x.to(jtorch.float16)
    assert h.var().dtype == jtorch.float16 and float(h.var()) == pytest.approx(float(x.var()), rel=1e-3)
    z = jtorch.tensor([1 + 1j, -1 - 1j], dtype=jtorch.complex64)
    assert z.var().dtype == jtorch.float32 and float(z.var()) == pytest.approx(4.0)
    out = jtorch.empty(2)
    assert jtorch.var(x, 1, out=out) is out and out.tolist() == pytest.approx([5 / 3, 20 / 3])


def test_dof_warning_and_values() -> None:
    x = jtorch.arange(6.0).reshape(2, 3)
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0. Correction should be strictly less "
                                         r"than the reduction factor \(input numel divided by output numel\)."):
        assert math.isinf(float(x.var(correction=6)))
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom"):
        assert all(math.isinf(v) for v in x.std(1, correction=3).tolist())
    with pytest.warns(UserWarning):
        assert math.isnan(float(jtorch.tensor([1.0, 1.0]).var(correction=2)))
    with pytest.warns(UserWarning):
        assert math.isnan(float(jtorch.empty(0).var()))


ORDS = [0, 1, 2, 3, 0.5, -1, math.inf, -math.inf]


def np_vector_norm(a: np.ndarray, ord_: float, ax: object, keepdim: bool) -> np.ndarray:
    x = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
    with np.errstate(all="ignore"):
        if ord_ == 0:
            r = (x != 0).sum(axis=ax, keepdims=keepdim).astype(np.float64)
        elif ord_ == math.inf:
            r = x.max(axis=ax, keepdims=keepdim)
        elif ord_ == -math.inf:
            r = x.min(axis=ax, keepdims=keepdim)
        else:
            r = (x ** ord_).sum(axis=ax, keepdims=keepdim) ** (1.0 / ord_)
    return np.asarray(r)


@SETTINGS
@given(dtype=st.sampled_from(INEXACT), ord_=st.sampled_from(ORDS), data=st.data(), shape=shapes(max_dims=3, min_side=1),
       layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_vector_norm(dtype: np.dtype, ord_: float, data: st.DataObject, shape: tuple, layout: str, keepdim: bool,
                     seed: int) -> None:
    dim = data.draw(dims_for(len(shape)))
    t, a = make(values(np.random.default_rng(seed), dtype, shape, low=-2, high=2), layout)
    got = jtorch.linalg.vector_norm(t, ord_, dim, keepdim)
    expected = np_vector_norm(a, ord_, axes(dim, a.ndim), keepdim).astype(real_of(a.dtype))
    assert_close(np_of(got), expected, reduced_count(shape, dim) * 4, (dtype, ord_, shape, layout, dim))
    mt = jtorch.linalg.vector_norm(meta_like(t), ord_, dim, keepdim)
    assert mt.shape == got.shape and mt.dtype == got.dtype


def test_norm_python_api() -> None:
    x = jtorch.arange(6.0).reshape(2, 3)
    assert float(jtorch.norm(x)) == pytest.approx(math.sqrt(55))
    assert float(x.norm("fro")) == pytest.approx(math.sqrt(55))
    assert x.norm(dim=1).tolist() == pytest.approx([math.sqrt(5), math.sqrt(50)])
    assert jtorch.norm(x, math.inf, 1, True).tolist() == [[2.0], [5.0]]
    assert float(jtorch.norm(x, 0)) == 5.0 and float(x.norm(p=1, dtype=jtorch.float64)) == 15.0
    assert x.norm(p=1, dtype=jtorch.float64).dtype == jtorch.float64
    assert jtorch.norm(x, 3, 1).tolist() == pytest.approx([9 ** (1 / 3), 216 ** (1 / 3)])
    out = jtorch.empty(2)
    assert jtorch.norm(x, 2, 1, out=out) is out
    assert jtorch.linalg.vector_norm(x.to(jtorch.complex64), dtype=jtorch.complex128).dtype == jtorch.float64
    assert float(jtorch.linalg.vector_norm(jtorch.zeros(3), -1)) == 0.0
    assert math.isnan(float(jtorch.linalg.vector_norm(x, float("nan"))))
    assert jtorch.linalg.vector_norm(jtorch.empty(0, 3), -math.inf, dim=1).shape == (0,)
    check_out_resize(lambda out: jtorch.linalg.vector_norm(x, 2, 1, out=out),
                     np.sqrt(np.array([5.0, 50.0], np.float32)), jtorch.float32, 3)


@SETTINGS
@given(dtype=st.sampled_from(FLOATS + INTS), data=st.data(), shape=shapes(max_dims=3, min_side=1),
       layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), seed=st.integers(0, 2 ** 32 - 1))
def test_logsumexp(dtype: np.dtype, data: st.DataObject, shape: tuple, layout: str, keepdim: bool, seed: int) -> None:
    if not shape:
        return
    dim = data.draw(dims_for(len(shape), allow_none=False).filter(lambda d: isinstance(d, int) or len(d) > 0))
    t, a = make(values(np.random.default_rng(seed), dtype, shape, low=-30, high=30), layout)
    got = jtorch.logsumexp(t, dim, keepdim)
    x = a.astype(np.float64)
    ax = axes(dim, a.ndim)
    m = x.max(axis=ax, keepdims=True)
    r = np.log(np.exp(x - m).sum(axis=ax, keepdims=True)) + m
    r = r if keepdim else np.squeeze(r, ax)
    want = a.dtype if a.dtype.kind == "f" else np.float32
    assert_close(np_of(got), np.asarray(r).astype(want), reduced_count(shape, dim) * 8, (dtype, shape, dim))


def test_logsumexp_special_values() -> None:
    inf = math.inf
    x = jtorch.tensor([[-inf, -inf], [inf, 1.0], [0.0, 1000.0]])
    r = x.logsumexp(1).tolist()
    assert r[0] == -inf and r[1] == inf and r[2] == pytest.approx(1000.0)
    assert jtorch.empty(0, 3).logsumexp(0).tolist() == [-inf, -inf, -inf]
    assert jtorch.logsumexp(x, 1, out=jtorch.empty(3, dtype=jtorch.float64)).dtype == jtorch.float64


@pytest.mark.parametrize("fn,exc,text", [
    (lambda T: T.arange(4).var(), RuntimeError, "std and var only support floating point and complex dtypes"),
    (lambda T: T.var_mean(T.arange(4)), RuntimeError, "var_mean only support floating point and complex dtypes"),
    (lambda T: T.std_mean(T.arange(4), 0), RuntimeError, "std_mean only support floating point and complex dtypes"),
    (lambda T: T.var(T.ones(2, 3), 0, out=T.empty(3, dtype=T.int64)), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda T: T.linalg.vector_norm(T.arange(3)), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda T: T.norm(T.arange(3), p=1), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda T: T.linalg.vector_norm(T.empty(0, 3), float("inf")), RuntimeError,
     "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an "
     "identity"),
    (lambda T: T.linalg.vector_norm(T.empty(0, 3), float("-inf"), dim=0), RuntimeError,
     "linalg.vector_norm cannot compute the -inf norm on the dimension 0because this dimension is empty and the "
     "operation does not have an identity"),
    (lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.float16), RuntimeError,
     "linalg.vector_norm: the dtype of the input (Float) should be convertible without narrowing to the specified "
     "dtype (Half)"),
    (lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.complex64), RuntimeError,
     "linalg.vector_norm: dtype should be real for real inputs, but got ComplexFloat"),
    (lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.int64), RuntimeError,
     "linalg.vector_norm: dtype should be floating point or complex, but got Long"),
    (lambda T: T.linalg.vector_norm(T.ones(3), 2, 0, out=T.empty((), dtype=T.float64)), RuntimeError,
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda T: T.logsumexp(T.ones(2, 3), 0, out=T.empty(3, dtype=T.int64)), RuntimeError,
     "logsumexp(): Expected floating point type for result tensor, but got: Long"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_var_norm(dtype: np.dtype) -> None:
    rng = np.random.default_rng(3)
    t, a = make(values(rng, dtype, (3, 4)), "transposed")
    assert_close(np_of(t.var(0)), np.var(a, axis=0, ddof=1).astype(real_of(a.dtype)), 3)
    assert_close(np_of(t.norm()), np.asarray(np.linalg.norm(a.reshape(-1))).astype(real_of(a.dtype)), 12)
    wide = a.astype(np.complex128)
    assert_close(np_of(t.logsumexp(1)), np.log(np.exp(wide).sum(1)).astype(a.dtype), 4 * 8)
