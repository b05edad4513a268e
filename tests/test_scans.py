"""cumsum, cumprod, logcumsumexp, cummax and cummin against NumPy (and torch where installed):
every dtype PyTorch's CPU kernels take, random shapes (0-dim, empty, size 1), negative dims,
non-contiguous inputs and outputs, out= (resized with PyTorch's warning, its dtype deciding the
result), in-place cumsum_/cumprod_, dtype=, meta tensors, ties and NaN in cummax/cummin, and
PyTorch's error texts.

References follow PyTorch's CPU kernels: the input converted to the result dtype, accumulated in
PyTorch's accumulate type (float64 for float32, int64 for integers, complex128 for complex64) and
each output cast back, so float32, float64 and integer results are compared exactly.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.backends
from jtorch.kernels.scalar_scan import Scan, acc_const
from jtorch.structured.scan import ScanPlan
from _unary_support import ALL, COMPLEX, FLOATS, INTS, jdtype, make_layout, to_numpy
from _torch_oracle import oracle_torch

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded")
RESIZE = ("An output with one or more elements was resized since it had shape [5], which does not match "
          "the required output shape [2, 3]. This behavior is deprecated, and in a future PyTorch release "
          "outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor "
          "t by resizing it, inplace, to zero elements with t.resize_(0).")

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def values(dtype, shape, rng: np.random.Generator, special: bool = True) -> np.ndarray:
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = rng.integers(max(info.min, -3), min(info.max, 3), n, endpoint=True)
        full = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        return np.where(rng.random(n) < 0.7, small, full).astype(dtype).reshape(shape)
    v = rng.normal(0, 2, n)
    if special:
        v[rng.random(n) < 0.05] = np.nan
        v[rng.random(n) < 0.05] = np.inf
        v[rng.random(n) < 0.05] = -np.inf
    if dtype.kind == "c":
        v = v + 1j * rng.normal(0, 2, n)
    return v.astype(dtype).reshape(shape)


def acc_type(d: np.dtype) -> type:
    return np.complex128 if d.kind == "c" else np.float64 if d.kind == "f" else np.int64


def ref_cum(name: str, a: np.ndarray, dim: int, out: np.dtype) -> np.ndarray:
    x = a.astype(out)
    if x.ndim == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        r = (np.cumsum if name == "cumsum" else np.cumprod)(x.astype(acc_type(np.dtype(out))), axis=dim)
        return r.astype(out)


def result_dtype(d: np.dtype) -> np.dtype:
    return np.dtype(d) if np.dtype(d).kind in "fc" else np.dtype(np.int64)


def assert_close(actual: np.ndarray, expected: np.ndarray, dtype: np.dtype) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if dtype == np.float16:  # PyTorch accumulates half in float32, jtorch in float64: one half-ulp apart
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=1e-3, atol=1e-3)
    elif dtype.kind == "c":
        np.testing.assert_allclose(actual, expected, rtol=1e-12 if dtype == np.complex128 else 1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)


# ---- cumsum / cumprod ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
@SETTINGS
@given(shape=shapes, data=st.data())
def test_cumsum_cumprod_match_numpy(name, dtype, shape, data):
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    t, a = make_layout(values(dtype, shape, rng, special=name == "cumsum"), layout)
    expected = ref_cum(name, a, dim, result_dtype(dtype))
    assert_close(to_numpy(getattr(jtorch, name)(t, dim)), expected, np.dtype(dtype))
    assert_close(to_numpy(getattr(t, name)(dim)), expected, np.dtype(dtype))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("src,dst", [(np.float32, np.int8), (np.int64, np.float16), (np.int8, np.int8),
                                     (np.float64, np.complex128), (np.uint8, np.int32), (np.bool_, np.float32)])
def test_dtype_argument_converts_first(name, src, dst):
    a = values(src, (3, 5), np.random.default_rng(1), special=False)
    if np.dtype(src).kind == "f":
        a = (a * 40).astype(src)  # int8 results wrap, as PyTorch's (a C cast of the int64 accumulator)
    got = getattr(jtorch, name)(jtorch.from_numpy(a), 1, dtype=jdtype(dst))
    assert got.dtype is jdtype(dst)
    with np.errstate(all="ignore"):
        assert_close(to_numpy(got), ref_cum(name, a, 1, np.dtype(dst)), np.dtype(dst))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_out_decides_dtype_and_is_resized_with_warning(name):
    a = np.array([[1.5, 2.5, -1.0], [0.5, 3.0, 2.0]], np.float32)
    out = jtorch.empty(2, 3, dtype=jtorch.int64)
    r = getattr(jtorch, name)(jtorch.from_numpy(a), 1, out=out)
    assert r is out
    np.testing.assert_array_equal(to_numpy(out), ref_cum(name, a, 1, np.dtype(np.int64)))
    out = jtorch.empty(5)
    with pytest.warns(UserWarning) as w:
        getattr(jtorch, name)(jtorch.from_numpy(a), 1, out=out)
    assert [str(m.message) for m in w] == [RESIZE]
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(to_numpy(out), ref_cum(name, a, 1, np.dtype(np.float32)))
    # a non-contiguous out= of the right shape is written in place, through its strides
    base = jtorch.zeros(3, 2)
    out = base.t()
    getattr(jtorch, name)(jtorch.from_numpy(a), 0, out=out)
    np.testing.assert_array_equal(to_numpy(base).T, ref_cum(name, a, 0, np.dtype(np.float32)))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_inplace(name, dtype):
    a = values(dtype, (4, 3), np.random.default_rng(2), special=False)
    t = jtorch.from_numpy(a.copy())
    v = t._version
    r = getattr(t, name + "_")(0)
    assert r is t and t._version > v and t.dtype is jdtype(dtype)
    assert_close(to_numpy(t), ref_cum(name, a, 0, np.dtype(dtype)), np.dtype(dtype))


def test_exact_alias_out_is_fine():
    x = jtorch.arange(6.0).reshape(2, 3).t()  # in place through the strides, like torch
    x.cumsum_(1)
    assert to_numpy(x).tolist() == [[0, 3], [1, 5], [2, 7]]
    v = jtorch.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
    r = jtorch.cummin(v, 1, out=(v, jtorch.empty(0, dtype=jtorch.int64)))
    assert r[0] is v and to_numpy(v).tolist() == [[3, 1, 1], [1, 1, 1]]
    assert to_numpy(r[1]).tolist() == [[0, 1, 1], [0, 0, 0]]


def test_parallel_rows_and_columns():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(300, 257)).astype(np.float32)  # > 32768 elements: chunks of rows in parallel
    for dim in (0, 1, -1):
        np.testing.assert_array_equal(to_numpy(jtorch.cumsum(jtorch.from_numpy(a), dim)),
                                      ref_cum("cumsum", a, dim, np.dtype(np.float32)))
    v, i = jtorch.cummax(jtorch.from_numpy(a).t(), 1)
    np.testing.assert_array_equal(to_numpy(v), np.maximum.accumulate(a.T, axis=1))
    np.testing.assert_array_equal(to_numpy(i), ref_cummaxmin(a.T, 1, True)[1])


def test_float32_accumulates_in_double_like_torch():
    a = jtorch.tensor([1e8, 1.0, -1e8])
    assert to_numpy(jtorch.cumsum(a, 0)).tolist() == [1e8, 1e8, 1.0]
    assert to_numpy(jtorch.cumprod(jtorch.tensor([1e30, 1e30, 1e-30]), 0)).tolist()[1:] == [np.inf, np.float32(1e30)]
    h = jtorch.tensor([2048.0, 1.0, 1.0, -2048.0], dtype=jtorch.float16)
    assert to_numpy(jtorch.cumsum(h, 0)).tolist() == [2048.0, 2048.0, 2050.0, 2.0]


# ---- logcumsumexp ----------------------------------------------------------------------------------------
def ref_logcumsumexp(a: np.ndarray, dim: int) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    x = a.astype(acc_type(a.dtype))
    with np.errstate(all="ignore"):
        if x.dtype.kind == "c":  # moderate values only (see the test): the plain formula is accurate
            return np.log(np.cumsum(np.exp(x), axis=dim)).astype(a.dtype)
        return np.logaddexp.accumulate(x, axis=dim).astype(a.dtype)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX, ids=lambda d: np.dtype(d).name)
@SETTINGS
@given(shape=shapes, data=st.data())
def test_logcumsumexp_matches_numpy(dtype, shape, data):
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    t, a = make_layout(values(dtype, shape, rng, special=np.dtype(dtype).kind == "f"), layout)
    got = to_numpy(jtorch.logcumsumexp(t, dim))
    tol = {np.float16: 2e-3, np.float32: 1e-6, np.complex64: 1e-5}.get(dtype, 1e-12)
    expected = ref_logcumsumexp(a, dim)
    if np.dtype(dtype).kind == "c":  # a complex log is defined up to 2 pi i: compare the angles' unit vectors
        np.testing.assert_allclose(got.real, expected.real, rtol=tol, atol=tol)
        got, expected = np.exp(1j * got.imag.astype(np.float64)), np.exp(1j * expected.imag.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_logcumsumexp_special_values():
    inf, nan = np.inf, np.nan
    a = np.array([-inf, -inf, 1.0, inf, 2.0, nan, 3.0])
    assert np.array_equal(to_numpy(jtorch.logcumsumexp(jtorch.from_numpy(a), 0)),
                          [-inf, -inf, 1.0, inf, inf, nan, nan], equal_nan=True)
    assert to_numpy(jtorch.logcumsumexp(jtorch.tensor([inf, inf, -inf]), 0)).tolist() == [inf, inf, inf]
    c = to_numpy(jtorch.logcumsumexp(jtorch.tensor([1 + 2j, complex(-inf, 0), complex(nan, 1)]), 0))
    assert c[0] == np.complex64(1 + 2j) and c[1] == c[0] and np.isnan(c[2].real) and np.isnan(c[2].imag)


def test_logcumsumexp_out():
    a = jtorch.tensor([[0.5, 1.0, 2.0], [3.0, -1.0, 0.0]])
    out = jtorch.empty(5)
    with pytest.warns(UserWarning) as w:
        assert jtorch.logcumsumexp(a, 1, out=out) is out
    assert [str(m.message) for m in w] == [RESIZE]
    np.testing.assert_allclose(to_numpy(out), ref_logcumsumexp(to_numpy(a), 1), rtol=1e-6)


# ---- cummax / cummin -------------------------------------------------------------------------------------
def ref_cummaxmin(a: np.ndarray, dim: int, is_max: bool) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's rule: x replaces the best when it is NaN, or the best is not NaN and x >= best
    (<= for cummin): ties take the later index, every NaN takes over."""
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    x = np.moveaxis(a, dim, -1)
    vals, idx = np.empty_like(x), np.empty(x.shape, np.int64)
    for pos in (np.ndindex(x.shape[:-1]) if x.shape[-1] else ()):
        row = x[pos]
        best, bi = row[0], 0
        for i, v in enumerate(row):
            take = v != v or (best == best and (v >= best if is_max else v <= best))
            if take:
                best, bi = v, i
            vals[pos + (i,)], idx[pos + (i,)] = best, bi
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", (np.bool_,) + INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@SETTINGS
@given(shape=shapes, data=st.data())
def test_cummax_cummin_match_numpy(name, dtype, shape, data):
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    a = values(dtype, shape, rng)
    if np.dtype(dtype).kind == "f":
        a = np.round(a)  # ties
    t, a = make_layout(a, layout)
    v, i = getattr(jtorch, name)(t, dim)
    ev, ei = ref_cummaxmin(a, dim, name == "cummax")
    if a.size and a.ndim:
        acc = np.maximum if name == "cummax" else np.minimum
        np.testing.assert_array_equal(ev, acc.accumulate(a, axis=dim))  # the reference agrees with NumPy
    np.testing.assert_array_equal(to_numpy(v), ev)
    np.testing.assert_array_equal(to_numpy(i), ei)
    assert v.dtype is jdtype(dtype) and i.dtype is jtorch.int64


def test_cummax_ties_take_last_index_and_nan_propagates():
    v, i = jtorch.tensor([1.0, 3.0, 3.0, 2.0, 3.0]).cummax(0)
    assert to_numpy(v).tolist() == [1, 3, 3, 3, 3] and to_numpy(i).tolist() == [0, 1, 2, 2, 4]
    r = jtorch.tensor([3.0, 1.0, 1.0, 2.0, 1.0]).cummin(0)
    assert to_numpy(r[0]).tolist() == [3, 1, 1, 1, 1] and to_numpy(r[1]).tolist() == [0, 1, 2, 2, 4]
    for name in ("cummax", "cummin"):
        v, i = getattr(jtorch.tensor([1.0, np.nan, 5.0, np.nan, 7.0]), name)(0)
        assert np.isnan(to_numpy(v)[1:]).all() and to_numpy(i).tolist() == [0, 1, 1, 3, 3]


def test_cummax_out_and_zero_dim():
    a = jtorch.tensor([[2.0, 1.0, 4.0], [0.0, 5.0, 5.0]])
    values_, indices = jtorch.empty(5), jtorch.empty(5, dtype=jtorch.int64)
    with pytest.warns(UserWarning) as w:
        r = jtorch.cummax(a, 1, out=(values_, indices))
    assert [str(m.message) for m in w] == [RESIZE, RESIZE]
    assert r[0] is values_ and r[1] is indices
    assert to_numpy(values_).tolist() == [[2, 2, 4], [0, 5, 5]] and to_numpy(indices).tolist() == [[0, 0, 2], [0, 1, 2]]
    v, i = jtorch.cummin(jtorch.tensor(1j), -1)  # a 0-dim input is copied, whatever its dtype
    assert v.shape == () and to_numpy(v) == 1j and to_numpy(i) == 0


# ---- a scan declared by its pieces alone, run through the backend's stub ----------------------------------
def _sumsq_identity(x):
    return acc_const(x, 0)


def _sumsq_combine(acc, x):
    return acc + x * x


def test_a_new_scan_is_its_pieces():
    """A cumulative sum of squares: two scalar functions and a declaration; the CPU stub
    generates, caches and runs its loops along any dim of any layout."""
    decl = Scan("test_cumsumsq", _sumsq_identity, _sumsq_combine)
    t, a = make_layout(np.arange(12, dtype=np.float64).reshape(3, 4), "transposed")
    out = jtorch.empty(3, 4, dtype=jtorch.float64)
    jtorch.backends.backend("cpu").scan(ScanPlan(t, (out,), 0), decl, ())
    np.testing.assert_array_equal(to_numpy(out), np.cumsum(a * a, axis=0))


# ---- meta tensors, empty and 0-dim -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_meta_tensors(dtype):
    m = jtorch.empty(2, 3, dtype=jdtype(dtype), device="meta")
    for name in ("cumsum", "cumprod"):
        r = getattr(m, name)(1)
        assert r.device.type == "meta" and r.shape == (2, 3) and r.dtype is jdtype(result_dtype(dtype))
        assert getattr(m, name)(-1, dtype=jtorch.float64).dtype is jtorch.float64
    assert jtorch.logcumsumexp(m, 0).dtype is jdtype(dtype)  # the dtype dispatch needs data
    v, i = jtorch.cummax(m, 0)
    assert v.dtype is jdtype(dtype) and i.dtype is jtorch.int64 and i.device.type == "meta"
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        m.cumsum(2)


def test_empty_and_zero_dim():
    e = jtorch.empty(0, 3, dtype=jtorch.int8)
    assert jtorch.cumsum(e, 1).shape == (0, 3) and jtorch.cumsum(e, 1).dtype is jtorch.int64
    assert jtorch.cummax(jtorch.empty(0, 3), 5)[0].shape == (0, 3)  # empty: the dim is not checked
    assert to_numpy(jtorch.cumsum(jtorch.tensor(True), 0, dtype=jtorch.bool)) == True  # noqa: E712 (copied)
    assert to_numpy(jtorch.cumprod(jtorch.tensor(3, dtype=jtorch.int8), -1)) == 3


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.")


# ---- errors: PyTorch's texts (each case is run by jtorch, and by torch where installed) -----------------------
ERRORS = [
    (lambda m: m.ones(2, 3).cumsum(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda m: m.cumsum(m.tensor(3), 1), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda m: m.cumsum(m.ones(2, 3, dtype=m.int64), 1, dtype=m.bool), NotImplementedError,
     "\"cumsum_out_cpu\" not implemented for 'Bool'"),
    (lambda m: m.ones(3, dtype=m.bool).cumprod_(0), NotImplementedError,
     "\"cumprod_out_cpu\" not implemented for 'Bool'"),
    (lambda m: m.ones(3, dtype=m.int8).cumsum_(0, dtype=m.int64), RuntimeError,
     "Bad in-place call: input tensor dtype signed char and output tensor dtype long int should match"),
    (lambda m: m.cumsum(m.ones(2, 3), 1, dtype=m.float64, out=m.empty(2, 3, dtype=m.int32)), RuntimeError,
     "Expected out tensor to have dtype double, but got int instead"),
    (lambda m: m.logcumsumexp(m.empty(0, dtype=m.int64), 0), NotImplementedError,
     "\"logcumsumexp_out_cpu\" not implemented for 'Long'"),
    (lambda m: m.logcumsumexp(m.ones(2, 3, dtype=m.int64), 3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    (lambda m: m.logcumsumexp(m.ones(2, 3), 1, out=m.empty(2, 3, dtype=m.float64)), RuntimeError,
     "expected scalar_type Float but found Double"),
    (lambda m: m.cummax(m.tensor(3.0), 5), IndexError,
     "cummax(): Expected reduction dim -1 or 0 for scalar but got 5"),
    (lambda m: m.cummin(m.ones(2, 3), 5), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda m: m.cummax(m.ones(2, 3, dtype=m.complex64), 1), NotImplementedError,
     "\"cummax_cpu\" not implemented for 'ComplexFloat'"),
    (lambda m: m.cummin(m.ones(2, 3), 1, out=(m.empty(2, 3), m.empty(2, 3, dtype=m.int32))), RuntimeError,
     "expected scalar_type Long but found Int"),
    (lambda m: m.cummax(m.ones(2, 3), 1, out=(m.empty(2, 3, dtype=m.float64), m.empty(2, 3, dtype=m.int64))),
     RuntimeError, "expected scalar_type Float but found Double"),
    (lambda m: m.ones(1, 3).expand(2, 3).cumsum_(1), RuntimeError, OVERLAP),
    (lambda m: m.cumprod(m.ones(4, 3), 0, out=m.ones(1, 3).expand(4, 3)), RuntimeError, OVERLAP),
    (lambda m: m.logcumsumexp(m.ones(4, 3), 0, out=m.ones(1, 3).expand(4, 3)), RuntimeError, OVERLAP),
    (lambda m: (lambda x: m.cumsum(x[:4], 0, out=x[2:]))(m.arange(6.0)), RuntimeError,
     "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
     "memory location. Please clone() the tensor before performing the operation."),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_error_texts(call, exc, msg):
    with pytest.raises(exc) as e:
        call(jtorch)
    assert str(e.value) == msg


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_error_texts_are_torchs(call, exc, msg):
    torch = oracle_torch()
    with pytest.raises(exc) as e:
        call(torch)
    assert str(e.value) == msg


def test_complex_to_real_dtype_warns_like_copy(monkeypatch):
    import jtorch.warn

    monkeypatch.setattr(jtorch.warn, "warned", set())  # a TORCH_WARN_ONCE, as in torch
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = jtorch.tensor([2 + 1j, 3 + 0j]).cumsum(0, dtype=jtorch.float32)
    assert to_numpy(r).tolist() == [2.0, 5.0]
    assert [str(m.message) for m in w] == ["Casting complex values to real discards the imaginary part"]
