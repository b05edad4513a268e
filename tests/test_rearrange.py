"""repeat, tile, repeat_interleave, flip, fliplr, flipud, roll, rot90, tril/triu (functional,
in-place, out=), diag, diag_embed, diagflat, trace and block_diag against NumPy: every dtype,
random shapes (0-dim, empty, size-1), negative dims, non-contiguous inputs, meta tensors; error
types and texts against torch.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import (ALL, LAYOUTS, SETTINGS, check_error, jdtype, make, meta_like, np_of, shapes, values,
                                wider)
from _torch_oracle import oracle_torch

seeds = st.integers(0, 2 ** 32 - 1)


def _t(data: st.DataObject, seed: int, shape: tuple, dtypes: tuple = ALL) -> tuple:
    dt = data.draw(st.sampled_from(dtypes))
    layout = data.draw(st.sampled_from(LAYOUTS))
    return make(values(np.random.default_rng(seed), dt, shape, specials=True), layout)


def _same(got: jtorch.Tensor, expected: np.ndarray) -> None:
    np.testing.assert_array_equal(np_of(got), expected)
    assert np_of(got).dtype == expected.dtype


# ---- repeat, tile ---------------------------------------------------------------------------------------
@SETTINGS
@given(shape=shapes(max_dims=3, max_side=3), data=st.data(), seed=seeds)
def test_repeat_and_tile(shape: tuple, data: st.DataObject, seed: int) -> None:
    t, a = _t(data, seed, shape)
    extra = data.draw(st.integers(0, 2))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=len(shape) + extra, max_size=len(shape) + extra)))
    _same(t.repeat(reps), np.tile(a, reps))
    short = reps[extra:][: max(len(shape) - 1, 0)]
    _same(jtorch.tile(t, short), np.tile(a, short) if short else a)
    _same(t.tile(reps), np.tile(a, reps))
    m = meta_like(t).repeat(reps)
    assert m.is_meta and tuple(m.shape) == np.tile(a, reps).shape


# ---- repeat_interleave ---------------------------------------------------------------------------------
@SETTINGS
@given(shape=shapes(max_dims=3, max_side=4), data=st.data(), seed=seeds)
def test_repeat_interleave(shape: tuple, data: st.DataObject, seed: int) -> None:
    t, a = _t(data, seed, shape)
    k = data.draw(st.integers(0, 3))
    _same(jtorch.repeat_interleave(t, k), np.repeat(a, k))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1)) if shape else None
    if dim is not None:
        n = shape[dim]
        reps = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        rt = jtorch.tensor(reps, dtype=data.draw(st.sampled_from([jtorch.int32, jtorch.int64])))
        expected = np.repeat(a, reps, axis=dim)
        _same(t.repeat_interleave(rt, dim), expected)
        _same(jtorch.repeat_interleave(t, rt, dim, output_size=int(sum(reps))), expected)
        _same(jtorch.repeat_interleave(t, k, dim), np.repeat(a, k, axis=dim))
        counts = jtorch.repeat_interleave(rt)
        assert counts.dtype == rt.dtype
        np.testing.assert_array_equal(counts.numpy(), np.repeat(np.arange(n), reps))


# ---- flip, fliplr, flipud, roll, rot90 ---------------------------------------------------------------
@SETTINGS
@given(shape=shapes(max_dims=4, max_side=4), data=st.data(), seed=seeds)
def test_flip_roll(shape: tuple, data: st.DataObject, seed: int) -> None:
    t, a = _t(data, seed, shape)
    n = max(len(shape), 1)
    dims = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    dims = [d - n if data.draw(st.booleans()) else d for d in dims]
    axes = tuple(d % n for d in dims) if shape else ()
    _same(jtorch.flip(t, dims), np.flip(a, axes) if axes else a.copy())
    _same(t.flip(dims), np.flip(a, axes) if axes else a.copy())
    m = jtorch.flip(meta_like(t), dims)
    assert m.is_meta and m.shape == t.shape
    if len(shape) >= 1:
        _same(jtorch.flipud(t), np.flipud(a))
    if len(shape) >= 2:
        _same(jtorch.fliplr(t), np.fliplr(a))
    shifts = data.draw(st.lists(st.integers(-7, 7), min_size=len(axes), max_size=len(axes)))
    if axes:
        _same(jtorch.roll(t, shifts, dims), np.roll(a, shifts, axes))
    s = data.draw(st.integers(-7, 7))
    _same(t.roll(s), np.roll(a, s))
    if len(shape) >= 2:
        k = data.draw(st.integers(-5, 5))
        d0, d1 = data.draw(st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, -1)]))
        _same(jtorch.rot90(t, k, [d0, d1]), np.rot90(a, k, (d0 % len(shape), d1 % len(shape))))


def test_flip_large_parallel() -> None:
    a = np.random.default_rng(1).random((300, 400)).astype(np.float32)
    t = jtorch.from_numpy(a)
    np.testing.assert_array_equal(jtorch.flip(t, [0, 1]).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(jtorch.flip(t.t(), [1]).numpy(), a.T[:, ::-1])
    np.testing.assert_array_equal(jtorch.tril(t, 3).numpy(), np.tril(a, 3))


def test_rot90_geometry() -> None:
    a = jtorch.arange(6).reshape(2, 3)
    assert a.rot90().stride() == (1, 3) and a.rot90(2).stride() == (3, 1)


# ---- tril, triu ------------------------------------------------------------------------------------
@SETTINGS
@given(shape=st.lists(st.integers(0, 5), min_size=2, max_size=4).map(tuple), data=st.data(), seed=seeds,
       k=st.integers(-6, 6))
def test_tril_triu(shape: tuple, data: st.DataObject, seed: int, k: int) -> None:
    t, a = _t(data, seed, shape)
    for name in ("tril", "triu"):
        ref = getattr(np, name)(a, k)
        _same(getattr(jtorch, name)(t, k), ref)
        _same(getattr(t, name)(k), ref)
        c = t.clone()
        assert getattr(c, name + "_")(k) is c
        _same(c, ref)
        out = jtorch.zeros(3, dtype=t.dtype)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert getattr(jtorch, name)(t, k, out=out) is out
        assert any("was resized" in str(x.message) for x in w)
        _same(out, ref)
        m = getattr(jtorch, name)(meta_like(t), k)
        assert m.is_meta and m.shape == t.shape


def test_tril_out_refused_untouched() -> None:
    a = jtorch.arange(6).reshape(2, 3)
    out = jtorch.full((2, 3), 9.0)
    check_error(lambda T: T.tril(T.arange(6).reshape(2, 3), out=T.full((2, 3), 9.0)), RuntimeError,
                "Expected out tensor to have dtype long int, but got float instead")
    with pytest.raises(RuntimeError):
        jtorch.tril(a, out=out)
    assert (out.numpy() == 9).all()


# ---- diag, diag_embed, diagflat, trace, block_diag ----------------------------------------------------
@SETTINGS
@given(n=st.integers(0, 4), m=st.integers(0, 4), data=st.data(), seed=seeds, k=st.integers(-5, 5))
def test_diag_family(n: int, m: int, data: st.DataObject, seed: int, k: int) -> None:
    v, av = _t(data, seed, (n,))
    _same(jtorch.diag(v, k), np.diag(av, k))
    _same(jtorch.diagflat(v, k), np.diagflat(av, k))
    x, ax = _t(data, seed, (n, m))
    _same(jtorch.diag(x, k), np.diag(ax, k).copy())
    _same(x.diagflat(k), np.diagflat(ax, k))
    out = jtorch.empty(0, dtype=x.dtype)
    assert jtorch.diag(x, k, out=out) is out
    _same(out, np.diag(ax, k).copy())
    b, ab = _t(data, seed, (2, n, m))
    got = jtorch.diag_embed(b, k, 0, -1)
    # reference: each vector b[j, r, :] on the k-th diagonal of the new dims (0, -1)
    ref = np.zeros(got.shape, ab.dtype)
    size = m + abs(k)
    for j in range(2):
        for r in range(n):
            for i in range(m):
                row, col = (i, i + k) if k >= 0 else (i - k, i)
                ref[row, j, r, col] = ab[j, r, i]
    assert got.shape == (size, 2, n, size)
    _same(got, ref)
    if ax.dtype != np.bool_:
        tr = jtorch.trace(x)
        _same(tr, np.asarray(np.trace(ax.astype(wider(ax.dtype)))).astype(
            np.int64 if ax.dtype.kind in "iu" else ax.dtype))


@SETTINGS
@given(data=st.data(), seed=seeds)
def test_block_diag(data: st.DataObject, seed: int) -> None:
    shapes_ = data.draw(st.lists(st.sampled_from([(), (0,), (2,), (1, 3), (2, 2), (0, 2), (3, 0)]), max_size=4))
    rng = np.random.default_rng(seed)
    dts = [data.draw(st.sampled_from(ALL)) for _ in shapes_]
    arrs = [values(rng, d, s) for d, s in zip(dts, shapes_)]
    got = jtorch.block_diag(*[jtorch.from_numpy(np.array(a)) for a in arrs])
    dt = jdtype(dts[0]) if dts else jtorch.float32
    for d in dts[1:]:
        dt = jtorch.promote_types(dt, jdtype(d))
    assert got.dtype == dt
    mats = [np.atleast_2d(a) if a.ndim < 2 else a for a in arrs]
    rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    expected = np.zeros((rows, cols), np.dtype(got.dtype.numpy))
    r = c = 0
    for mat in mats:
        expected[r:r + mat.shape[0], c:c + mat.shape[1]] = mat
        r, c = r + mat.shape[0], c + mat.shape[1]
    if not arrs:
        expected = np.zeros((1, 0), np.float32)
    _same(got, expected)
    torch = oracle_torch()
    assert str(torch.block_diag(*[torch.from_numpy(np.array(a)) for a in arrs]).dtype).split(".")[1] == \
        str(got.dtype).split(".")[1]


@pytest.mark.parametrize("fn, exc, text", [
    (lambda T: T.arange(6).reshape(2, 3).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    (lambda T: T.arange(6).reshape(2, 3).repeat(2, -1), RuntimeError,
     "Trying to create tensor with negative dimension -3: [4, -3]"),
    (lambda T: T.repeat_interleave(T.tensor([[1, 2]])), RuntimeError, "repeat_interleave only accept 1D vector as repeat"),
    (lambda T: T.repeat_interleave(T.tensor([1., 2])), NotImplementedError,
     "\"repeat_interleave_cpu\" not implemented for 'Float'"),
    (lambda T: T.repeat_interleave(T.tensor([1, -2])), RuntimeError, "repeats can not be negative"),
    (lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=4), RuntimeError,
     "allocated size does not match required size"),
    (lambda T: T.repeat_interleave(T.ones(2, 3), T.tensor([1, 2, 3]), 0), RuntimeError,
     "repeats must have the same size as input along dim, but got repeats.size(0) = 3 and input.size(0) = 2"),
    (lambda T: T.repeat_interleave(T.ones(2, 3), T.tensor([[1]]), 0), RuntimeError,
     "repeats must be 0-dim or 1-dim tensor"),
    (lambda T: T.repeat_interleave(T.ones(2, 3), -1), RuntimeError, "Repeats must be non-negative"),
    (lambda T: T.repeat_interleave(T.ones(2, 3), 2, 5), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda T: T.ones(2, 3).flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda T: T.ones(2, 3).flip(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T: T.fliplr(T.ones(3)), RuntimeError, "Input must be >= 2-d."),
    (lambda T: T.flipud(T.tensor(1.)), RuntimeError, "Input must be >= 1-d."),
    (lambda T: T.ones(2, 3).roll((1, 2), (0,)), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda T: T.ones(2, 3).roll([], []), RuntimeError, "`shifts` required"),
    (lambda T: T.tensor(1.).roll(1, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda T: T.ones(2, 3).rot90(1, [0]), RuntimeError, "expected total rotation dims == 2, but got dims = 1"),
    (lambda T: T.ones(2, 3).rot90(1, [0, 0]), RuntimeError,
     "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
    (lambda T: T.ones(3).rot90(), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    (lambda T: T.ones(3).tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda T: T.ones(3).triu_(), RuntimeError, "triu: input tensor must have at least 2 dimensions"),
    (lambda T: T.diag(T.ones(2, 2, 2)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda T: T.diag(T.tensor([1., 2]), out=T.empty(0, dtype=T.int64)), RuntimeError,
     "diag: result type Float can't be cast to the desired out= type Long"),
    (lambda T: T.diag(T.tensor([1, 2]), out=T.empty(0, dtype=T.uint8)), RuntimeError,
     "Expected out tensor to have dtype long int, but got unsigned char instead"),
    (lambda T: T.diag_embed(T.tensor(1.)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    (lambda T: T.diag_embed(T.ones(2, 3), 0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    (lambda T: T.trace(T.ones(3)), RuntimeError, "trace: expected a matrix, but got tensor with dim 1"),
    (lambda T: T.trace(T.ones(2, 3, dtype=T.bool)), NotImplementedError, "\"trace\" not implemented for 'Bool'"),
    (lambda T: T.block_diag(T.ones(2, 2, 2)), RuntimeError,
     "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions"),
    (lambda T: T.block_diag(T.ones(2), T.ones(2, device="meta")), RuntimeError,
     "Input tensors must all be on the same device. Input 0 is on device cpu and input 1 is on device meta."),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)


def test_dtypes_kept_and_promoted() -> None:
    for d in (jtorch.float16, jtorch.bool, jtorch.complex64, jtorch.uint8):
        x = jtorch.ones(2, 3, dtype=d)
        for r in (x.flip(0), x.roll(1, 1), x.rot90(), x.tril(), x.repeat(2, 1), jtorch.diag(x), x.diag_embed()):
            assert r.dtype == d
    assert jtorch.trace(jtorch.ones(2, 2, dtype=jtorch.uint8)).dtype == jtorch.int64
    assert jtorch.trace(jtorch.ones(2, 2, dtype=jtorch.float16)).dtype == jtorch.float16
    assert jdtype(np.float64) == jtorch.block_diag(jtorch.tensor(1), jtorch.ones(2, dtype=jtorch.float64)).dtype
