"""Summation accuracy (PyTorch's cascade sum) and the parallel paths of the CPU reduce kernels:
inputs above the grain size, reduced whole (two passes over per-chunk partials), along an inner dim,
along an outer dim (accumulated into a vector of outputs) and in non-contiguous layouts, checked
against NumPy; indices stay the first best across chunk boundaries.
"""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _reduction_support import assert_close, np_of


def test_float32_sum_of_16m_random_values() -> None:
    a = np.random.default_rng(0).random(16 * 2 ** 20, dtype=np.float32)
    exact = a.astype(np.float64).sum()
    got = float(jtorch.from_numpy(a).sum())
    assert abs(got - exact) / exact < 1e-6, (got, exact)
    naive_error = abs(float(np.cumsum(a[: 2 ** 22], dtype=np.float32)[-1]) - a[: 2 ** 22].astype(np.float64).sum())
    assert naive_error > 1.0  # the test could fail: a plain running float32 sum is far off


def test_sum_of_2_pow_25_ones_is_exact() -> None:
    ones = jtorch.ones(2 ** 25)
    assert float(ones.sum()) == 33554432.0
    assert float(ones.mean()) == 1.0
    assert float(ones.reshape(2 ** 13, 2 ** 12).sum(0).sum()) == 33554432.0


def test_outer_and_inner_sums_are_accurate() -> None:
    x = np.random.default_rng(1).random((2 ** 21, 8), dtype=np.float32)
    t = jtorch.from_numpy(x)
    exact0 = x.astype(np.float64).sum(0)
    np.testing.assert_allclose(np_of(t.sum(0)), exact0, rtol=1e-6)          # outer: a vector of outputs
    np.testing.assert_allclose(np_of(t.t().sum(1)), exact0, rtol=1e-6)      # the same dim, transposed view
    y = np.ascontiguousarray(x.T)
    np.testing.assert_allclose(np_of(jtorch.from_numpy(y).sum(1)), exact0, rtol=1e-6)  # inner rows


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16, np.complex64])
def test_large_layouts(dtype: type) -> None:
    rng = np.random.default_rng(2)
    base = rng.uniform(-3, 3, (300, 401)).astype(np.float32)
    a = (base + 1j * base[::-1]).astype(dtype) if np.dtype(dtype).kind == "c" else (
        np.round(base).astype(dtype) if np.dtype(dtype).kind in "iu" else base.astype(dtype))
    n = a.shape[0] * a.shape[1]
    views = {
        "contiguous": (jtorch.from_numpy(a), a),
        "transposed": (jtorch.from_numpy(np.ascontiguousarray(a.T)).t(), a),
        "sliced": (jtorch.from_numpy(np.ascontiguousarray(np.repeat(a, 2, axis=1)))[:, ::2], a),
    }
    acc = np.complex128 if a.dtype.kind == "c" else np.float64 if a.dtype.kind == "f" else np.int64
    out_dt = a.dtype if a.dtype.kind in "fc" else np.dtype(np.int64)
    for name, (t, v) in views.items():
        for dim in (None, 0, 1):
            got = np_of(t.sum(dim) if dim is not None else t.sum())
            assert_close(got, np.asarray(v.astype(acc).sum(axis=dim)).astype(out_dt), n, (name, dim))
        if a.dtype.kind != "c":
            for dim in (0, 1):
                r = t.max(dim)
                assert_close(np_of(r.values), v.max(axis=dim), 1, (name, dim))
                assert_close(np_of(r.indices), v.argmax(axis=dim).astype(np.int64), 1, (name, dim))
                assert_close(np_of(t.amin(dim)), v.min(axis=dim), 1, (name, dim))
            assert int(t.argmin()) == int(v.argmin())
            assert_close(np_of(t.amax()), np.asarray(v.max()), 1, name)


def test_indices_across_chunks() -> None:
    n = 200_000
    a = np.zeros(n, np.float32)
    a[[150_000, 30_000, 190_000]] = 7.0  # ties in both halves: the first one wins
    t = jtorch.from_numpy(a)
    assert int(t.argmax()) == 30_000 and int(t.max(0).indices) == 30_000
    a[[160_000, 170_000]] = np.nan  # a NaN in the second half beats every number: the first NaN
    assert int(jtorch.from_numpy(a).argmax()) == 160_000 and int(jtorch.from_numpy(a).argmin()) == 160_000
    m = np.tile(a[:, None], (1, 3))
    r = jtorch.from_numpy(np.ascontiguousarray(m)).max(0)
    assert np.isnan(np_of(r.values)).all() and np_of(r.indices).tolist() == [160_000] * 3


def test_large_other_reductions() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (64, 1024)).astype(np.float64)
    t = jtorch.from_numpy(x)
    assert_close(np_of(t.prod(1)), x.prod(1), 1024)
    assert_close(np_of(t.var(0)), x.var(0, ddof=1), 64)
    b = x[:16] > 0.6  # below the grain size: the serial kernels, already tested in every layout
    tb = jtorch.from_numpy(np.ascontiguousarray(b))
    assert bool(tb.any()) and not bool(tb.all()) and int(tb.count_nonzero()) == int(b.sum())
