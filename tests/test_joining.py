"""cat / concat / concatenate, stack, hstack, vstack, dstack, column_stack, tensor_split, hsplit,
vsplit and dsplit against NumPy: every dtype, random shapes (0-dim where allowed, empty, size-1),
negative dims, non-contiguous inputs, type promotion, out= (a wrongly shaped out resized with
torch's warning, a refused out left untouched), meta tensors; error types and texts against torch.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import ALL, LAYOUTS, SETTINGS, check_error, jdtype, make, np_of, values

RESIZE = "An output with one or more elements was resized"


def _inputs(rng: np.random.Generator, shape: tuple, dim: int, sizes: list, dtypes: list, layouts: list) -> tuple:
    ts, arrs = [], []
    for n, dt, lay in zip(sizes, dtypes, layouts):
        s = list(shape)
        s[dim] = n
        t, a = make(values(rng, dt, tuple(s)), lay)
        ts.append(t)
        arrs.append(a)
    return ts, arrs


def _np_result_type(arrs: list) -> np.dtype:
    d = jdtype(arrs[0].dtype)
    for a in arrs[1:]:
        d = jtorch.promote_types(d, jdtype(a.dtype))
    return np.dtype(d.numpy)


@SETTINGS
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple), data=st.data(),
       seed=st.integers(0, 2 ** 32 - 1))
def test_cat_matches_numpy(shape: tuple, data: st.DataObject, seed: int) -> None:
    nd = len(shape)
    dim = data.draw(st.integers(-nd, nd - 1))
    k = data.draw(st.integers(1, 4))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
    mixed = data.draw(st.booleans())
    dt0 = data.draw(st.sampled_from(ALL))
    dtypes = [data.draw(st.sampled_from(ALL)) if mixed else dt0 for _ in range(k)]
    layouts = data.draw(st.lists(st.sampled_from(LAYOUTS), min_size=k, max_size=k))
    rng = np.random.default_rng(seed)
    ts, arrs = _inputs(rng, shape, dim % nd, sizes, dtypes, layouts)
    rt = _np_result_type(arrs)
    expected = np.concatenate([a.astype(rt) for a in arrs], axis=dim)
    got = jtorch.cat(ts, dim)
    np.testing.assert_array_equal(np_of(got), expected)
    assert got.dtype == jdtype(rt)
    for alias in (jtorch.concat, jtorch.concatenate):
        np.testing.assert_array_equal(np_of(alias(ts, dim=dim)), expected)
    m = jtorch.cat([jtorch.empty(t.shape, dtype=t.dtype, device="meta") for t in ts], dim)
    assert m.is_meta and m.shape == got.shape and m.dtype == got.dtype


def test_cat_large_parallel_and_many_inputs() -> None:
    """Above the grain size (the parallel launch) and more inputs than one launch takes."""
    rng = np.random.default_rng(0)
    xs = [rng.random((300, 7 + i)).astype(np.float32) for i in range(20)]
    got = jtorch.cat([jtorch.from_numpy(x) for x in xs], 1)
    np.testing.assert_array_equal(got.numpy(), np.concatenate(xs, 1))
    ys = [rng.random(50_000).astype(np.float32) for _ in range(3)]
    np.testing.assert_array_equal(jtorch.cat([jtorch.from_numpy(y) for y in ys]).numpy(), np.concatenate(ys))
    zs = [(rng.random((40, 30)) + 1j).astype(np.complex128) for _ in range(3)]
    np.testing.assert_array_equal(jtorch.cat([jtorch.from_numpy(z) for z in zs], -1).numpy(), np.concatenate(zs, -1))


def test_cat_legacy_empty_and_memory_format() -> None:
    a = jtorch.ones(2, 3)
    r = jtorch.cat([jtorch.empty(0, dtype=jtorch.float64), a, jtorch.empty(0)])
    assert r.shape == (2, 3) and r.dtype == jtorch.float64  # skipped for the shape, not the dtype
    assert jtorch.cat([jtorch.empty(0), jtorch.empty(0)], 5).shape == (0,)
    cl = jtorch.ones(2, 3, 4, 5).contiguous(memory_format=jtorch.channels_last)
    assert jtorch.cat([cl, cl]).stride() == (60, 1, 15, 3)
    assert jtorch.cat([cl, jtorch.ones(2, 3, 4, 5)]).stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(jtorch.cat([cl, cl], 1).numpy(), np.ones((2, 6, 4, 5), np.float32))


def test_cat_out() -> None:
    a = jtorch.arange(6).reshape(2, 3)
    out = jtorch.zeros(5, dtype=jtorch.float64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = jtorch.cat([a, a], 1, out=out)
    assert r is out and out.dtype == jtorch.float64 and any(RESIZE in str(x.message) for x in w)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([a.numpy()] * 2, 1).astype(np.float64))
    bad = jtorch.full((4, 3), 7, dtype=jtorch.int32)
    with pytest.raises(TypeError, match="input types can't be cast to the desired output type Int"):
        jtorch.cat([a.float(), a], out=bad)
    assert (bad.numpy() == 7).all()  # refused before anything was written
    x = jtorch.arange(4.)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        jtorch.cat([x[:2], x[:2]], out=x)
    np.testing.assert_array_equal(x.numpy(), np.arange(4.0, dtype=np.float32))


@pytest.mark.parametrize("fn, exc, text", [
    (lambda T: T.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    (lambda T: T.cat([T.ones(2)], 1), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda T: T.cat([T.ones(2), T.ones(2, 3)]), RuntimeError, "Tensors must have same number of dimensions: got 1 and 2"),
    (lambda T: T.cat([T.ones(2, 3), T.ones(3, 3)], 1), RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."),
    (lambda T: T.cat([T.ones(2, 3), T.tensor(1.)]), RuntimeError,
     "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda T: T.cat([T.empty(0), T.ones(2, 3)], 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T: T.cat([T.ones(2), T.ones(2, device="meta")]), RuntimeError,
     "Tensor on device meta is not on the expected device cpu!"),
    (lambda T: T.cat(T.ones(2, 3)), TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda T: T.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (lambda T: T.stack([T.ones(2), T.ones(3)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"),
    (lambda T: T.stack([T.ones(2), T.ones(2)], 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T: T.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    (lambda T: T.vstack([]), RuntimeError, "vstack expects a non-empty TensorList"),
    (lambda T: T.dstack([]), RuntimeError, "dstack expects a non-empty TensorList"),
    (lambda T: T.column_stack([]), RuntimeError, "column_stack expects a non-empty TensorList"),
    (lambda T: T.tensor_split(T.ones(5), 0), RuntimeError, "number of sections must be larger than 0, got 0"),
    (lambda T: T.tensor_split(T.tensor(1.), 2), RuntimeError,
     "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
    (lambda T: T.tensor_split(T.ones(5), T.tensor([[1]])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a "
     "tensor with 2 dims"),
    (lambda T: T.tensor_split(T.ones(5), T.tensor([1.])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float"),
    (lambda T: T.tensor_split(T.ones(5), 3, 4), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 4)"),
    (lambda T: T.hsplit(T.ones(6, 4), 3), RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 4 is not divisible by the "
     "split_size 3!"),
    (lambda T: T.hsplit(T.tensor(1.), 2), RuntimeError,
     "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!"),
    (lambda T: T.vsplit(T.ones(5), 2), RuntimeError,
     "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!"),
    (lambda T: T.dsplit(T.ones(5, 4), 2), RuntimeError,
     "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)


@SETTINGS
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple), data=st.data(),
       seed=st.integers(0, 2 ** 32 - 1))
def test_stack_family_matches_numpy(shape: tuple, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, 3))
    dt = data.draw(st.sampled_from(ALL))
    layout = data.draw(st.sampled_from(LAYOUTS))
    rng = np.random.default_rng(seed)
    pairs = [make(values(rng, dt, shape), layout) for _ in range(k)]
    ts, arrs = [p[0] for p in pairs], [p[1] for p in pairs]
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    np.testing.assert_array_equal(np_of(jtorch.stack(ts, dim)), np.stack(arrs, dim))
    np.testing.assert_array_equal(np_of(jtorch.hstack(ts)), np.hstack(arrs))
    np.testing.assert_array_equal(np_of(jtorch.vstack(ts)), np.vstack(arrs))
    np.testing.assert_array_equal(np_of(jtorch.dstack(ts)), np.dstack(arrs))
    if len(shape) <= 2:
        np.testing.assert_array_equal(np_of(jtorch.column_stack(ts)), np.column_stack(arrs))
    expected = np.stack(arrs, dim)
    out = jtorch.empty(0, dtype=jdtype(dt))
    assert jtorch.stack(ts, dim, out=out) is out
    np.testing.assert_array_equal(np_of(out), expected)
    m = jtorch.stack([jtorch.empty(shape, dtype=jdtype(dt), device="meta")] * k, dim)
    assert m.is_meta and tuple(m.shape) == expected.shape


def test_stack_promotes_and_out_variants() -> None:
    r = jtorch.stack([jtorch.tensor(1), jtorch.tensor(2.5)])
    assert r.dtype == jtorch.float32 and r.tolist() == [1.0, 2.5]
    a = jtorch.arange(6).reshape(2, 3)
    out = jtorch.empty(0, dtype=jtorch.int32)
    assert jtorch.hstack([a, a], out=out) is out and out.dtype == jtorch.int32 and out.shape == (2, 6)
    assert jtorch.dstack([jtorch.ones(2), jtorch.ones(2)]).shape == (1, 2, 2)
    assert jtorch.column_stack([jtorch.ones(2), jtorch.ones(2, 3)]).shape == (2, 4)


@SETTINGS
@given(shape=st.lists(st.integers(0, 6), min_size=1, max_size=3).map(tuple), data=st.data())
def test_tensor_split_matches_numpy(shape: tuple, data: st.DataObject) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = jtorch.from_numpy(a.copy())
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    sections = data.draw(st.integers(1, 5))
    indices = data.draw(st.lists(st.integers(-8, 8), max_size=4))
    for got, ref in ((jtorch.tensor_split(t, sections, dim), np.array_split(a, sections, dim)),
                     (t.tensor_split(jtorch.tensor(sections), dim), np.array_split(a, sections, dim)),
                     (jtorch.tensor_split(t, indices, dim), np.array_split(a, indices, dim)),
                     (jtorch.tensor_split(t, jtorch.tensor(indices, dtype=jtorch.int64), dim),
                      np.array_split(a, indices, dim))):
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert g._base is t  # views
            np.testing.assert_array_equal(np_of(g), r)


def test_directional_splits() -> None:
    a = np.arange(48).reshape(2, 4, 6)
    t = jtorch.from_numpy(a.copy())
    for name in ("hsplit", "vsplit", "dsplit"):
        for arg in (2, [1, 3]):
            got = getattr(jtorch, name)(t, arg)
            ref = getattr(np, name)(a, arg)
            assert [g.tolist() for g in got] == [r.tolist() for r in ref], (name, arg)
            assert [g.tolist() for g in getattr(t, name)(arg)] == [r.tolist() for r in ref]
    v = jtorch.arange(6)
    assert [g.tolist() for g in jtorch.hsplit(v, 3)] == [[0, 1], [2, 3], [4, 5]]


def test_cat_loop_chunks_split_anywhere():
    """The CPU cat loop walks a chunk of the output from any start (mid-run, mid-row): chunks
    cut at random positions must together write exactly NumPy's concatenate."""
    from jtorch.kernels.cpu import cat_loops as loops

    rng = np.random.default_rng(0)
    for _ in range(60):
        outer = int(rng.integers(1, 6))
        widths = [int(w) for w in rng.integers(1, 5, int(rng.integers(1, 6)))]
        srcs = [rng.integers(0, 1000, (outer, w)).astype(np.uint32) for w in widths]
        gw = sum(widths)
        total = outer * gw
        dst = np.zeros(total, np.uint32)
        plan = np.array([v for i, w in enumerate(widths) for v in (0, w, sum(widths[:i]))], np.int64)
        slots = tuple(s.reshape(-1) for s in srcs) + (dst,) * (loops.SLOTS - len(srcs))
        cuts = sorted({0, total, *(int(c) for c in rng.integers(0, total + 1, 3))})
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            loops.cat_flat(lo, hi, dst, 0, slots, plan, len(widths), gw, gw)
        np.testing.assert_array_equal(dst.reshape(outer, gw), np.concatenate(srcs, 1))
