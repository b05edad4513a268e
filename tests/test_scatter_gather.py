"""gather, scatter (src / value / legacy reduce), scatter_add, scatter_reduce against NumPy loop
references: every dtype, 0-dim / empty / size-1 shapes, negative dims, non-contiguous inputs and
index tensors, out= and in-place forms, duplicates (exact integer sums, also on the parallel path),
out-of-range and negative index values refused with torch's text with nothing written, meta."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _index_support import (ALL, INDEX_LAYOUTS, LAYOUTS, SETTINGS, assert_same, assert_torch_error, contributions,
                            jdtype, jt, nonempty, reduce_values, rng_from, shaped, to_numpy, values)


@st.composite
def gather_case(draw, scatter: bool = False, dtypes=ALL):
    rng = rng_from(draw)
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shaped(min_dims=0))
    nd = max(len(shape), 1)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    base = nonempty(shape)
    # index no larger than self apart from dim (gather) / than self and src (scatter)
    ishape = tuple(draw(st.integers(0, base[k] + (0 if scatter else 2))) if k == d else
                   draw(st.integers(0, base[k])) for k in range(nd))
    if not shape and draw(st.booleans()):
        ishape = ()
    n = base[d]
    idx = rng.integers(0, max(n, 1), ishape or ()).astype(np.int64) if n else np.zeros(ishape or (), np.int64)
    if n == 0 and np.prod(ishape or (1,)) != 0:  # nothing valid to index: make the index empty
        ishape = tuple(0 if k == d else s for k, s in enumerate(ishape)) if ishape else (0,)
        idx = np.zeros(ishape, np.int64)
        if not shape:
            idx = np.zeros((0,), np.int64)
    x = values(rng, dtype, shape)
    src = values(rng, dtype, tuple(s + draw(st.integers(0, 1)) for s in idx.shape) if scatter else ())
    return dtype, x, dim, idx, src, draw(st.sampled_from(LAYOUTS[:3])), draw(st.sampled_from(INDEX_LAYOUTS))


def _ref_gather(x: np.ndarray, dim: int, idx: np.ndarray) -> np.ndarray:
    xs = x.reshape(nonempty(x.shape))
    ix = idx.reshape(nonempty(idx.shape))
    d = dim % xs.ndim
    sub = xs[tuple(slice(None) if k == d else slice(0, s) for k, s in enumerate(ix.shape))]
    return np.take_along_axis(sub, ix, axis=d).reshape(idx.shape)


@SETTINGS
@given(gather_case())
def test_gather_against_numpy(case):
    dtype, x, dim, idx, _, layout, ilayout = case
    t, i = jt(x, layout), jt(idx, ilayout)
    expected = _ref_gather(x, dim, idx)
    assert_same(t.gather(dim, i), expected)
    assert_same(jtorch.gather(t, dim, i, sparse_grad=False), expected)
    out = jtorch.empty((2, 1) if idx.size else (0,), dtype=jdtype(dtype))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        r = jtorch.gather(t, dim, i, out=out)
    assert r is out
    assert_same(out, expected)
    # int32 index, and the meta backend gives the shape
    assert_same(t.gather(dim, jt(idx.astype(np.int32))), expected)
    m = jtorch.empty(x.shape, dtype=jdtype(dtype), device="meta").gather(dim, jtorch.empty(idx.shape, dtype=jtorch.int64,
                                                                                          device="meta"))
    assert m.shape == idx.shape and m.device.type == "meta"


def _scatter_ref(x, dim, idx, src, reduce=None, include_self=True):
    out = x.copy().reshape(nonempty(x.shape))
    d = dim % out.ndim
    ix = idx.reshape(nonempty(idx.shape))
    s = src if np.ndim(src) == 0 else src.reshape(nonempty(src.shape)) if src.ndim == 0 else src
    contrib = contributions(out.shape, d, ix, s)
    for pos, vals in contrib.items():
        if reduce is None:
            out[pos] = vals[-1]
        else:
            out[pos] = reduce_values(out[pos], vals, reduce, out.dtype, include_self)
    return out.reshape(x.shape), contrib


def _check_one_of(result: np.ndarray, x: np.ndarray, contrib: dict) -> None:
    """scatter with duplicate indices writes one of the values (which one is unspecified)."""
    r = result.reshape(nonempty(x.shape))
    for pos, vals in contrib.items():
        assert any(np.array_equal(r[pos], v, equal_nan=True) for v in vals), (pos, r[pos], vals)


@SETTINGS
@given(gather_case(scatter=True), st.sampled_from(["tensor", "value"]))
def test_scatter_against_numpy(case, kind):
    dtype, x, dim, idx, src, layout, ilayout = case
    t, i = jt(x, layout), jt(idx, ilayout)
    value = src.reshape(-1)[0].item() if src.size else 1
    s = jt(src, layout) if kind == "tensor" else value
    expected, contrib = _scatter_ref(x, dim, idx, src if kind == "tensor" else np.array(value, dtype))
    r = t.scatter(dim, i, s)
    _check_one_of(to_numpy(r), x, contrib)
    untouched = np.ones(nonempty(x.shape), bool)
    for pos in contrib:
        untouched[pos] = False
    np.testing.assert_array_equal(to_numpy(r).reshape(untouched.shape)[untouched], x.reshape(untouched.shape)[untouched])
    y = jt(x, layout).clone()
    assert y.scatter_(dim, i, s) is y
    _check_one_of(to_numpy(y), x, contrib)
    out = jtorch.empty(x.shape, dtype=jdtype(dtype))
    assert jtorch.scatter(t, dim, i, s, out=out) is out
    _check_one_of(to_numpy(out), x, contrib)


@SETTINGS
@given(gather_case(scatter=True, dtypes=ALL), st.sampled_from(["sum", "prod", "mean", "amax", "amin"]), st.booleans())
def test_scatter_reduce_against_numpy(case, reduce, include_self):
    dtype, x, dim, idx, src, layout, ilayout = case
    if (reduce in ("amax", "amin") and dtype.kind == "c") or (reduce == "mean" and dtype.kind == "b"):
        if idx.size:
            kernel = f"scatter_gather_tensor_cpu_reduce_{reduce}"
            with pytest.raises(NotImplementedError, match=kernel):
                jt(x).scatter_reduce(dim, jt(idx), jt(src), reduce)
        return
    t, i, s = jt(x, layout), jt(idx, ilayout), jt(src, layout)
    expected, _ = _scatter_ref(x, dim, idx, src, reduce, include_self)
    assert_same(t.scatter_reduce(dim, i, s, reduce, include_self=include_self), expected, tol=True)
    y = jt(x, layout).clone()
    assert y.scatter_reduce_(dim, i, s, reduce, include_self=include_self) is y
    assert_same(y, expected, tol=True)
    if reduce == "sum":
        assert_same(t.scatter_add(dim, i, s), expected if include_self else _scatter_ref(x, dim, idx, src, "sum")[0],
                    tol=True)


@SETTINGS
@given(gather_case(scatter=True), st.sampled_from(["add", "multiply"]), st.booleans())
def test_scatter_legacy_reduce(case, reduce, with_value):
    dtype, x, dim, idx, src, layout, ilayout = case
    t, i = jt(x, layout), jt(idx, ilayout)
    if with_value:
        v = src.reshape(-1)[0].item() if src.size else 2
        expected, _ = _scatter_ref(x, dim, idx, np.array(v, dtype), reduce)
        assert_same(t.scatter(dim, i, v, reduce=reduce), expected, tol=True)
    else:
        expected, _ = _scatter_ref(x, dim, idx, src, reduce)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(t.scatter(dim, i, jt(src), reduce=reduce), expected, tol=True)


def test_legacy_reduce_warns_and_bad_names():
    import jtorch.native.scatter_gather as sg

    sg._warned_legacy = False
    x = jtorch.zeros(3)
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
        x.scatter(0, jtorch.tensor([0]), jtorch.ones(1), reduce="add")
    assert_torch_error(lambda: x.scatter(0, jtorch.tensor([0]), 1.0, reduce="max"), None, RuntimeError,
                       "reduce argument must be either add or multiply.")
    assert_torch_error(lambda: x.scatter_reduce(0, jtorch.tensor([0]), jtorch.ones(1), "add"), None, RuntimeError,
                       "reduce argument must be either sum, prod, mean, amax or amin, got add")
    # 'max' and 'min' are accepted by scatter_reduce, as in torch
    assert_same(x.scatter_reduce(0, jtorch.tensor([0]), jtorch.full((1,), 5.0), "max"), np.array([5, 0, 0], np.float32))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_duplicates_sum_exactly_in_parallel(dtype, monkeypatch):
    """Many duplicates on a tensor large enough for the parallel path: every contribution counted."""
    from jtorch.kernels.cpu import index_map, threads

    launches = []
    real = index_map.launch_parallel

    def counted(*args, **kwargs):
        launches.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(index_map, "launch_parallel", counted)
    monkeypatch.setattr(index_map, "num_chunks", lambda n: 2)  # the split itself, whatever the machine's load
    threads.reset()
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 5, (300, 400)).astype(dtype)
    idx = rng.integers(0, 7, (300, 400))
    src = rng.integers(-3, 4, (300, 400)).astype(dtype)
    for dim in (0, 1):
        ref = x.copy()
        for pos in np.ndindex(idx.shape):
            p = list(pos)
            p[dim] = idx[pos]
            ref[tuple(p)] += src[pos]
        got = jt(x).scatter_add(dim, jt(idx), jt(src))
        assert_same(got, ref)
        assert_same(jt(x).gather(dim, jt(idx % 300)), np.take_along_axis(x, idx % 300, dim))
        got = jt(x).index_add(dim, jt(idx[:, 0] if dim == 0 else idx[0]), jt(src))
        ref2 = x.copy()
        np.add.at(ref2, (idx[:, 0],) if dim == 0 else (slice(None), idx[0]), src)
        assert_same(got, ref2)
    assert launches and all(n == 2 for n in launches)


def test_scatter_duplicates_write_one_value_large():
    x = np.zeros((200, 300), np.float32)
    idx = np.zeros((200, 300), np.int64)
    src = np.arange(200 * 300, dtype=np.float32).reshape(200, 300)
    r = to_numpy(jt(x).scatter(1, jt(idx), jt(src)))
    assert all(r[k, 0] in src[k] for k in range(200))
    np.testing.assert_array_equal(r[:, 1:], 0)


@pytest.mark.parametrize("op", ["gather", "scatter_", "scatter_add_", "scatter_reduce_", "out"])
@pytest.mark.parametrize("bad", [4, -1, 9])
def test_out_of_range_refused_nothing_written(op, bad):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = jt(x)
    idx = np.array([[0, bad], [1, 2]])
    i = jt(idx)
    src = jtorch.ones(2, 2)
    text = f"index {bad} is out of bounds for dimension 1 with size 4"

    def run(tt, ii, ss, out=None):
        if op == "gather":
            return tt.gather(1, ii)
        if op == "scatter_":
            return tt.scatter_(1, ii, ss)
        if op == "scatter_add_":
            return tt.scatter_add_(1, ii, ss)
        if op == "scatter_reduce_":
            return tt.scatter_reduce_(1, ii, ss, "amax")
        return type(tt).scatter if False else (jtorch.scatter(tt, 1, ii, ss, out=out) if out is not None else
                                               __import__("torch").scatter(tt, 1, ii, ss, out=__import__("torch").zeros(3, 4)))

    out = jtorch.full((3, 4), 7.0)
    fn_torch = None
    try:
        import torch
        tx = torch.arange(12.).reshape(3, 4)
        fn_torch = (lambda: run(tx, torch.tensor(idx), torch.ones(2, 2))) if op != "out" else (
            lambda: torch.scatter(tx, 1, torch.tensor(idx), torch.ones(2, 2), out=torch.zeros(3, 4)))
    except ImportError:
        pass
    assert_torch_error(lambda: run(t, i, src, out) if op == "out" else run(t, i, src), fn_torch, RuntimeError, text)
    assert_same(t, x)
    assert_same(out, np.full((3, 4), 7, np.float32))


def test_shape_and_dtype_errors_match_torch():
    x = jtorch.arange(12.).reshape(3, 4)
    i = jtorch.zeros(2, 2, dtype=jtorch.int64)
    cases = [
        (lambda m: m.arange(12.).reshape(3, 4).gather(1, m.tensor([0, 1])), RuntimeError,
         "Index tensor must have the same number of dimensions as input tensor"),
        (lambda m: m.arange(12.).reshape(3, 4).gather(1, m.zeros(4, 2, dtype=m.int64)), RuntimeError,
         "Size does not match at dimension 0 expected index [4, 2] to be no larger than self [3, 4] apart from "
         "dimension 1"),
        (lambda m: m.arange(12.).reshape(3, 4).gather(1, m.zeros(2, 2)), RuntimeError,
         "gather(): Expected dtype int32/int64 for index"),
        (lambda m: m.arange(12.).reshape(3, 4).scatter(1, m.zeros(2, 2, dtype=m.int64), m.ones(2, 2).double()),
         RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda m: m.arange(12.).reshape(3, 4).scatter_add(1, m.zeros(1, 2, dtype=m.int64), m.ones(1, 1)),
         RuntimeError, "Expected index [1, 2] to be no larger than self [3, 4] apart from dimension 1 and to be no "
                       "larger size than src [1, 1]"),
        (lambda m: m.arange(12.).reshape(3, 4).scatter(1, m.zeros(4, 1, dtype=m.int64), 1.0), RuntimeError,
         "Expected index [4, 1] to be no larger than self [3, 4] apart from dimension 1"),
        (lambda m: m.arange(12.).reshape(3, 4).gather(2, m.zeros(2, 2, dtype=m.int64)), IndexError,
         "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        (lambda m: m.gather(m.arange(12.).reshape(3, 4), 1, m.zeros(2, 2, dtype=m.int64),
                            out=m.empty(2, 2, dtype=m.float64)), RuntimeError,
         "Expected out tensor to have dtype float, but got double instead"),
        (lambda m: m.ones(3, 4).scatter_reduce(1, m.zeros(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.complex64),
                                               "sum"), RuntimeError,
         "scatter(): Expected self.dtype to be equal to src.dtype"),
    ]
    try:
        import torch
    except ImportError:
        torch = None
    for fn, typ, text in cases:
        assert_torch_error(lambda: fn(jtorch), (lambda: fn(torch)) if torch else None, typ, text)
    del x, i


def test_meta_scatter_family():
    x = jtorch.empty(3, 4, device="meta")
    i = jtorch.empty(2, 2, dtype=jtorch.int64, device="meta")
    s = jtorch.empty(2, 2, device="meta")
    for r in (x.scatter(1, i, s), x.scatter(1, i, 2.0), x.scatter_add(1, i, s), x.scatter_reduce(1, i, s, "mean")):
        assert r.shape == (3, 4) and r.device.type == "meta"
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        x.scatter(1, i, s.double())
