"""unique / unique_consecutive, isin, searchsorted / bucketize, bincount, histc and
Tensor.__contains__: hypothesis property tests against NumPy (every dtype torch takes, random
shapes with 0-dim and empty ones, negative dims, non-contiguous layouts, out=), and torch's
results and error texts where torch is installed."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _reduction_support import FLOATS, INTS, LAYOUTS, REAL, RESIZE_WARNING, SETTINGS, check_same_error_as_torch, shapes, tensor, values
from _torch_oracle import oracle_torch


def same(got: jtorch.Tensor, want: np.ndarray) -> None:
    g = np.asarray(got.numpy())
    want = np.asarray(want)
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, want.shape, g.dtype, want.dtype)
    np.testing.assert_array_equal(g, want)


@st.composite
def arrays(draw, dtypes=REAL, max_dims=3, specials=True):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes(max_dims=max_dims, max_side=5))
    layout = draw(st.sampled_from(LAYOUTS))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    a = values(rng, dtype, shape, specials=specials, low=-3, high=3)
    if a.dtype.kind == "f":
        a = np.round(a)  # ties
    return tensor(np.asarray(a, dtype), layout)


# ---- unique ------------------------------------------------------------------------------------
@SETTINGS
@given(arrays(), st.booleans(), st.booleans())
def test_unique_matches_numpy(case, inverse, counts):
    t, a = case
    u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
    r = jtorch.unique(t, return_inverse=inverse, return_counts=counts)
    r = r if isinstance(r, tuple) else (r,)
    same(r[0], u)
    if inverse:
        same(r[1], inv.reshape(a.shape))
    if counts:
        same(r[-1], cnt)
    v, i, c = jtorch._unique2(t)
    same(v, u)
    assert i.shape == (0,) and c.shape == (0,)


@SETTINGS
@given(arrays(max_dims=3, specials=False), st.data())
def test_unique_dim_matches_numpy(case, data):
    t, a = case
    if a.ndim == 0:
        return
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    if a.size == 0:
        if a.shape[dim] != 0:
            with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
                jtorch.unique(t, dim=dim)
        return
    u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    v, i, c = t.unique(dim=dim, return_inverse=True, return_counts=True)
    same(v, u)
    same(i, inv.reshape(-1))
    same(c, cnt)


def _consecutive(flat: np.ndarray) -> tuple:
    starts = [j for j in range(flat.size) if j == 0 or not flat[j] == flat[j - 1]]
    inv = np.cumsum([1 if j in starts else 0 for j in range(flat.size)]) - 1
    return flat[starts], inv.astype(np.int64), np.diff(starts + [flat.size]).astype(np.int64)


@SETTINGS
@given(arrays())
def test_unique_consecutive(case):
    t, a = case
    u, inv, cnt = _consecutive(a.reshape(-1))
    v, i, c = jtorch.unique_consecutive(t, return_inverse=True, return_counts=True)
    same(v, u)
    same(i, inv.reshape(a.shape))
    same(c, cnt)
    same(t.unique_consecutive(), u)


def test_unique_against_torch():
    torch = oracle_torch()
    x = [[1, 2], [1, 2], [0, 1], [0, 1], [1, 2]]
    for dim in (0, 1, -1):
        for fn in ("unique", "unique_consecutive"):
            want = getattr(torch, fn)(torch.tensor(x), dim=dim, return_inverse=True, return_counts=True)
            got = getattr(jtorch, fn)(jtorch.tensor(x), dim=dim, return_inverse=True, return_counts=True)
            for g, w in zip(got, want):
                same(g, w.numpy())
    nan = float("nan")
    want = torch.unique(torch.tensor([1.0, nan, nan, 0.0]), return_inverse=True, return_counts=True)
    got = jtorch.unique(jtorch.tensor([1.0, nan, nan, 0.0]), return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        same(g, w.numpy())
    same(jtorch.unique(jtorch.tensor(3), return_inverse=True)[1], np.array(0))


# ---- isin ---------------------------------------------------------------------------------------
NUMERIC = INTS + FLOATS


@SETTINGS
@given(arrays(dtypes=NUMERIC), arrays(dtypes=NUMERIC), st.booleans(), st.booleans())
def test_isin_matches_numpy(a_case, b_case, invert, use_out):
    (t, a), (u, b) = a_case, b_case
    ct = jtorch.promote_types(t.dtype, u.dtype)
    npct = np.dtype(str(ct).replace("jtorch.", ""))
    want = np.isin(a.astype(npct), b.astype(npct), invert=invert)
    if use_out:
        out = jtorch.empty(0, dtype=jtorch.bool)
        jtorch.isin(t, u, invert=invert, out=out)
        same(out, want)
    else:
        same(jtorch.isin(t, u, invert=invert), want)


def test_isin_scalar_forms_and_errors():
    t = jtorch.tensor([1, 2, 3])
    same(jtorch.isin(t, 2), np.array([False, True, False]))
    same(jtorch.isin(t, 2, invert=True), np.array([True, False, True]))
    same(jtorch.isin(2, t), np.array(True))
    same(jtorch.isin(jtorch.tensor([1.0, float("nan")]), jtorch.tensor([float("nan"), 1.0])), np.array([True, False]))
    with pytest.raises(RuntimeError, match=r"Unsupported input type encountered for isin\(\): Bool"):
        jtorch.isin(jtorch.tensor([True]), jtorch.tensor([True]))
    with pytest.raises(RuntimeError, match=r"Unsupported input type encountered for isin\(\): ComplexFloat"):
        jtorch.isin(jtorch.tensor([1j]), jtorch.tensor([1j]))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype bool, but got float instead"):
        jtorch.isin(t, t, out=jtorch.empty(3))


# ---- searchsorted, bucketize ----------------------------------------------------------------------
@SETTINGS
@given(st.sampled_from(NUMERIC), st.sampled_from(NUMERIC), st.integers(0, 6), shapes(max_dims=2, max_side=4),
       st.booleans(), st.booleans(), st.integers(0, 2 ** 16))
def test_searchsorted_matches_numpy(bdt, vdt, m, vshape, right, int32, seed):
    rng = np.random.default_rng(seed)
    b = np.sort(values(rng, bdt, (m,), low=-3, high=3))
    v = values(rng, vdt, vshape, low=-4, high=4)
    ct = jtorch.promote_types(jtorch.from_numpy(b).dtype, jtorch.from_numpy(v).dtype)
    npct = np.dtype(str(ct).replace("jtorch.", ""))
    want = np.searchsorted(b.astype(npct), v.astype(npct), side="right" if right else "left")
    got = jtorch.searchsorted(jtorch.from_numpy(b), jtorch.from_numpy(v), right=right, out_int32=int32)
    same(got, np.asarray(want, np.int32 if int32 else np.int64))
    if b.ndim == 1:
        got = jtorch.bucketize(jtorch.from_numpy(v), jtorch.from_numpy(b), right=right)
        same(got, np.asarray(want, np.int64))


@SETTINGS
@given(st.sampled_from(NUMERIC), st.integers(1, 3), st.integers(0, 5), st.integers(0, 4), st.booleans(),
       st.sampled_from(LAYOUTS), st.integers(0, 2 ** 16))
def test_searchsorted_rows_and_sorter(dtype, rows, m, nv, right, layout, seed):
    rng = np.random.default_rng(seed)
    bt, raw = tensor(values(rng, dtype, (rows, m), low=-3, high=3), layout)
    sorter = np.argsort(raw, axis=-1, kind="stable")
    vt, v = tensor(values(rng, dtype, (rows, nv), low=-4, high=4), layout)
    side = "right" if right else "left"
    want = np.stack([np.searchsorted(raw[r], v[r], side=side, sorter=sorter[r]) for r in range(rows)]) \
        if rows else np.zeros((0, nv), np.int64)
    same(jtorch.searchsorted(bt, vt, side=side, sorter=jtorch.from_numpy(sorter)), want.astype(np.int64))
    out = jtorch.empty(7, dtype=jtorch.int64)
    if want.size:
        with pytest.warns(UserWarning, match=RESIZE_WARNING):
            jtorch.searchsorted(jtorch.from_numpy(np.sort(raw, -1)), vt, side=side, out=out)
        same(out, want.astype(np.int64))


def test_searchsorted_nan_and_scalars_against_torch():
    torch = oracle_torch()
    nan = float("nan")
    for bd, v in (([1.0, 3.0, 5.0], [3.0, nan, 6.0]), ([1.0, nan], [3.0, nan, 6.0]), ([nan, nan], [nan, 0.0])):
        for right in (False, True):
            want = torch.searchsorted(torch.tensor(bd), torch.tensor(v), right=right)
            same(jtorch.searchsorted(jtorch.tensor(bd), jtorch.tensor(v), right=right), want.numpy())
    same(jtorch.searchsorted(jtorch.tensor([1.0, 3.0, 5.0]), 3), torch.searchsorted(torch.tensor([1.0, 3, 5]), 3).numpy())
    same(jtorch.bucketize(3, jtorch.tensor([1.0, 3.0, 5.0]), right=True), np.array(2))
    same(jtorch.searchsorted(jtorch.tensor([1.0, 3.0]), jtorch.tensor(3.0)), np.array(1))


SEARCH_ERRORS = [
    ("opposites", lambda T: T.searchsorted(T.tensor([1.0]), T.tensor([3.0]), side="left", right=True)),
    ("side", lambda T: T.searchsorted(T.tensor([1.0]), T.tensor([3.0]), side="foo")),
    ("dims", lambda T: T.searchsorted(T.zeros(2, 3), T.zeros(3, 3))),
    ("dims 1", lambda T: T.searchsorted(T.zeros(2, 3), T.zeros(3))),
    ("scalar", lambda T: T.searchsorted(T.zeros(2, 3), 3.0)),
    ("0-dim boundaries", lambda T: T.searchsorted(T.tensor(1.0), T.tensor([3.0]))),
    ("sorter size", lambda T: T.searchsorted(T.zeros(3), T.zeros(1), sorter=T.tensor([0, 1]))),
    ("sorter range", lambda T: T.searchsorted(T.zeros(3), T.zeros(1), sorter=T.tensor([0, 1, 5]))),
    ("sorter dtype", lambda T: T.searchsorted(T.zeros(3), T.zeros(1), sorter=T.tensor([0.0, 1, 2]))),
    ("out dtype", lambda T: T.searchsorted(T.zeros(3), T.zeros(1), out=T.zeros(1, dtype=T.int32))),
    ("bool", lambda T: T.searchsorted(T.tensor([True, False]), T.tensor([True]))),
    ("complex", lambda T: T.searchsorted(T.tensor([1j]), T.tensor([1j]))),
    ("bucketize dim", lambda T: T.bucketize(T.tensor([3.0]), T.zeros(2, 2))),
    ("bincount negative", lambda T: T.bincount(T.tensor([-1, 2]))),
    ("bincount 2-d", lambda T: T.bincount(T.zeros(2, 2, dtype=T.int64))),
    ("bincount 0-dim", lambda T: T.bincount(T.tensor(3))),
    ("bincount float", lambda T: T.bincount(T.tensor([1.0, 2.0]))),
    ("bincount bool", lambda T: T.bincount(T.tensor([True]))),
    ("bincount minlength", lambda T: T.bincount(T.tensor([1]), minlength=-1)),
    ("bincount weights", lambda T: T.bincount(T.tensor([1, 2]), T.tensor([1.0]))),
    ("histc int", lambda T: T.histc(T.tensor([1, 2]), bins=4, min=0, max=3)),
    ("histc bins", lambda T: T.histc(T.tensor([1.0]), bins=0)),
    ("histc min>max", lambda T: T.histc(T.tensor([1.0]), min=2, max=1)),
    ("histc inf", lambda T: T.histc(T.tensor([1.0, float("inf")]))),
    ("histc out dtype", lambda T: T.histc(T.tensor([1.0]), out=T.zeros(3, dtype=T.int64))),
    ("contains str", lambda T: "a" in T.tensor([1])),
    ("contains list", lambda T: [1] in T.tensor([1])),
    ("unique complex", lambda T: T.unique(T.tensor([1j]))),
    ("unique dim zero", lambda T: T.unique(T.zeros(2, 0), dim=0)),
    ("unique dim range", lambda T: T.unique(T.zeros(2, 2), dim=2)),
]


@pytest.mark.parametrize("name,call", SEARCH_ERRORS, ids=[e[0] for e in SEARCH_ERRORS])
def test_errors_match_torch(name, call):
    check_same_error_as_torch(call)


# ---- bincount, histc ------------------------------------------------------------------------------
@SETTINGS
@given(st.sampled_from(INTS), st.integers(0, 20), st.integers(0, 12), st.sampled_from([None] + list(NUMERIC)),
       st.integers(0, 2 ** 16))
def test_bincount_matches_numpy(dtype, n, minlength, wdtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 8, n).astype(dtype)
    w = None if wdtype is None else values(rng, wdtype, (n,))
    got = jtorch.bincount(jtorch.from_numpy(x), None if w is None else jtorch.from_numpy(w), minlength)
    if w is None:
        same(got, np.bincount(x, minlength=minlength))
    elif n == 0:
        same(got, np.zeros(minlength, np.int64))  # torch: zeros({minlength}, kLong) even with weights
    elif w.dtype == np.float32:
        want = np.zeros(max(int(x.max()) + 1, minlength), np.float32)
        np.add.at(want, x.astype(np.int64), w)
        same(got, want)
    else:
        same(got, np.bincount(x, w.astype(np.float64), minlength))


@SETTINGS
@given(st.sampled_from(FLOATS), shapes(max_dims=2, max_side=30), st.integers(1, 12),
       st.sampled_from([(0, 0), (-2, 2), (0.5, 3), (-1, -1)]), st.sampled_from(LAYOUTS), st.integers(0, 2 ** 16))
def test_histc_against_torch(dtype, shape, bins, rng_, layout, seed):
    torch = oracle_torch()
    a = values(np.random.default_rng(seed), dtype, shape, specials=False, low=-3, high=3)
    t, a = tensor(a, layout)
    want = torch.histc(torch.from_numpy(np.array(a, copy=True)), bins=bins, min=rng_[0], max=rng_[1])
    same(jtorch.histc(t, bins=bins, min=rng_[0], max=rng_[1]), want.numpy())
    out = jtorch.empty(0, dtype=t.dtype)
    jtorch.histc(t, bins, rng_[0], rng_[1], out=out)
    same(out, want.numpy())


def test_histc_matches_numpy_histogram():
    a = np.array([0.0, 0.5, 1.0, 2.5, 3.0, 7.0, -1.0], np.float64)
    want, _ = np.histogram(a[(a >= 0) & (a <= 3)], bins=3, range=(0, 3))
    same(jtorch.histc(jtorch.from_numpy(a), bins=3, min=0, max=3), want.astype(np.float64))


# ---- __contains__ -----------------------------------------------------------------------------------
def test_contains():
    t = jtorch.tensor([[1, 2], [3, 4]])
    assert 2 in t and 2.0 in t and 5 not in t
    assert jtorch.tensor([3, 4]) in t
    assert jtorch.tensor([4, 3]) not in t
    assert float("nan") not in jtorch.tensor([float("nan")])
