"""sort, argsort, msort, topk, kthvalue, mode: hypothesis property tests against a stable NumPy /
Python reference (NaN largest, ties in their original order in both directions) for every dtype,
random shapes (0-dim, empty), negative dims, non-contiguous layouts, out= (a wrongly shaped out
resized with torch's warning), meta tensors, and errors with torch's texts (against torch where
it is installed)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import jtorch
from _reduction_support import LAYOUTS, REAL, RESIZE_WARNING, SETTINGS, check_same_error_as_torch, jdtype, shapes, tensor, values
from _torch_oracle import oracle_torch, type_name

SORTABLE = REAL  # bool, ints, float16/32/64


def _row_order(row: np.ndarray, descending: bool) -> list:
    """Stable order of one row, NaN largest (Python's sort is stable with reverse=True too)."""
    def key(j: int) -> tuple:
        v = row[j]
        nan = bool(row.dtype.kind == "f" and math.isnan(v))
        return (nan, 0 if nan else (int(v) if row.dtype.kind in "biu" else float(v)))
    return sorted(range(row.shape[0]), key=key, reverse=descending)


def reference_argsort(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    if a.ndim == 0:
        return np.zeros((), np.int64)
    m = np.moveaxis(a, dim, -1)
    out = np.empty(m.shape, np.int64)
    for idx in np.ndindex(*m.shape[:-1]):
        out[idx] = _row_order(m[idx], descending)
    return np.moveaxis(out, -1, dim)


def take(a: np.ndarray, idx: np.ndarray, dim: int) -> np.ndarray:
    return a.copy() if a.ndim == 0 else np.take_along_axis(a, idx, dim)


def same(got: jtorch.Tensor, want: np.ndarray) -> None:
    g = np.asarray(got.numpy())
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, want.shape, g.dtype, want.dtype)
    np.testing.assert_array_equal(g, want)


@st.composite
def cases(draw, dtypes=SORTABLE, min_side: int = 0):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes(max_dims=3, max_side=6, min_side=min_side))
    n = max(len(shape), 1)
    dim = draw(st.integers(-n, n - 1))
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    # few distinct values: many ties; floats with NaN, infinities and signed zeros
    a = values(rng, dtype, shape, specials=True, low=-2, high=2)
    if a.dtype.kind == "f" and a.size:
        a = np.where(rng.integers(0, 6, shape) == 0, np.array(-0.0, a.dtype), np.round(a))
    t, a = tensor(np.asarray(a, dtype), layout)
    return t, a, dim


@SETTINGS
@given(cases(), st.booleans())
def test_sort_is_stable_with_nan_largest(case, descending):
    t, a, dim = case
    r = jtorch.sort(t, dim=dim, descending=descending)
    assert type_name(r) == "sort"
    idx = reference_argsort(a, dim, descending)
    same(r.indices, idx)
    same(r.values, take(a, idx, dim))
    # values keep their bits (a -0.0 stays -0.0)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(r.values.numpy()), np.signbit(take(a, idx, dim)))
    same(t.argsort(dim, descending), idx)
    same(jtorch.argsort(t, stable=True, dim=dim, descending=descending), idx)
    v2, i2 = t.sort(stable=True, dim=dim, descending=descending)
    same(i2, idx)


@SETTINGS
@given(cases())
def test_msort(case):
    t, a, _ = case
    if a.ndim == 0:
        same(jtorch.msort(t), a.copy())
        return
    same(jtorch.msort(t), take(a, reference_argsort(a, 0, False), 0))


@SETTINGS
@given(cases(min_side=1), st.booleans(), st.data())
def test_topk_first_k_of_the_stable_order(case, largest, data):
    t, a, dim = case
    n = 1 if a.ndim == 0 else a.shape[dim]
    k = data.draw(st.integers(0, n))
    if a.dtype == np.bool_:
        with pytest.raises(RuntimeError, match="topk does not support bool dtypes on CPU"):
            jtorch.topk(t, k, dim)
        return
    r = jtorch.topk(t, k, dim, largest)
    assert type_name(r) == "topk"
    idx = reference_argsort(a, dim, largest)
    if a.ndim:
        idx = np.take(idx, np.arange(k), axis=dim)
    same(r.indices, idx)
    same(r.values, take(a, idx, dim))


def _stable_order(a: np.ndarray, descending: bool) -> np.ndarray:
    """NumPy's stable argsort with torch's order: NaN largest, ties in their original order."""
    nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    v = np.where(nan, 0, a).astype(np.float64 if a.dtype.kind == "f" else np.int64)
    return np.lexsort((-v, -nan) if descending else (v, nan))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8])
@pytest.mark.parametrize("k", [1, 100])
def test_topk_of_one_long_row_in_parallel_chunks(dtype, k) -> None:
    """A row long enough to be scanned in parallel chunks (topk.select): the same k first of
    the stable order, values and indices, as NumPy's stable argsort; many ties, NaN and -0.0,
    largest and smallest, contiguous and strided."""
    rng = np.random.default_rng(k)
    n = 300_000
    a = rng.integers(-3, 4, 2 * n).astype(dtype) if dtype != np.uint8 else rng.integers(0, 7, 2 * n).astype(dtype)
    if a.dtype.kind == "f":
        a[rng.integers(0, 2 * n, 300)] = np.nan
        a[rng.integers(0, 2 * n, 300)] = -0.0
    whole = jtorch.from_numpy(a)
    for row, t in ((a[:n], whole[:n]), (a[::2], whole[::2])):
        for largest in (True, False):
            want = _stable_order(row, largest)[:k]
            r = jtorch.topk(t, k, largest=largest)
            same(r.indices, want)
            same(r.values, row[want])


@SETTINGS
@given(cases(dtypes=tuple(d for d in SORTABLE if d != np.bool_), min_side=1), st.booleans(), st.data())
def test_kthvalue(case, keepdim, data):
    t, a, dim = case
    n = 1 if a.ndim == 0 else a.shape[dim]
    k = data.draw(st.integers(1, n))
    r = jtorch.kthvalue(t, k, dim, keepdim)
    assert type_name(r) == "kthvalue"
    if a.ndim == 0:
        same(r.values, a.copy())
        same(r.indices, np.zeros((), np.int64))
        return
    idx = np.take(reference_argsort(a, dim, False), [k - 1], axis=dim)
    want_v, want_i = take(a, idx, dim), idx
    if not keepdim:
        want_v, want_i = want_v.squeeze(dim), want_i.squeeze(dim)
    same(r.values, want_v)
    same(r.indices, want_i)


def reference_mode(row: np.ndarray) -> tuple:
    """torch's mode: the most frequent value (the smallest among equally frequent ones; every NaN
    its own value), at the index of its last occurrence."""
    best, best_v, best_i = 0, None, 0
    order = _row_order(row, False)
    j = 0
    while j < len(order):
        e = j + 1
        v = row[order[j]]
        if not (row.dtype.kind == "f" and math.isnan(v)):
            while e < len(order) and row[order[e]] == v:
                e += 1
        if e - j > best:
            best, best_v, best_i = e - j, row[order[e - 1]], order[e - 1]
        j = e
    return best_v, best_i


@SETTINGS
@given(cases(min_side=1), st.booleans())
def test_mode(case, keepdim):
    t, a, dim = case
    # rows holding a NaN follow torch's insertion sort, not this reference: the torch test below has them
    assume(not np.isnan(a).any())
    r = jtorch.mode(t, dim, keepdim)
    assert type_name(r) == "mode"
    if a.ndim == 0:
        same(r.values, a.copy())
        same(r.indices, np.zeros((), np.int64))
        return
    m = np.moveaxis(a, dim, -1)
    wv = np.empty(m.shape[:-1], a.dtype)
    wi = np.empty(m.shape[:-1], np.int64)
    for ix in np.ndindex(*m.shape[:-1]):
        wv[ix], wi[ix] = reference_mode(m[ix])
    if keepdim:
        wv, wi = np.expand_dims(wv, dim), np.expand_dims(wi, dim)
    same(r.values, wv)
    same(r.indices, wi)


# ---- against torch ----------------------------------------------------------------------------------
@SETTINGS
@given(cases(min_side=1), st.booleans())
def test_against_torch(case, flag):
    torch = oracle_torch()
    t, a, dim = case
    x = torch.from_numpy(np.array(a, copy=True))  # (ascontiguousarray makes a 0-dim array 1-dim)
    v, i = torch.sort(x, dim=dim, descending=flag, stable=True)
    r = jtorch.sort(t, dim=dim, descending=flag, stable=True)
    same(r.values, v.numpy())
    same(r.indices, i.numpy())
    if a.dtype != np.bool_:
        k = 1 if a.ndim == 0 else max(1, a.shape[dim] // 2)
        tv = torch.topk(x, k, dim, largest=flag).values
        same(jtorch.topk(t, k, dim, largest=flag).values, tv.numpy())
        kv = torch.kthvalue(x, k, dim).values
        same(jtorch.kthvalue(t, k, dim).values, kv.numpy())
    if a.ndim and a.shape[dim] <= 16:  # torch's mode index is its std::sort's; insertion sort up to 16
        mv, mi = torch.mode(x, dim)
        r = jtorch.mode(t, dim)
        same(r.values, mv.numpy())
        same(r.indices, mi.numpy())


# ---- out=, meta, big rows -------------------------------------------------------------------------
def test_sort_out_resizes_with_warning_and_keeps_strided_out():
    x = jtorch.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    v, i = jtorch.empty(7), jtorch.empty(7, dtype=jtorch.int64)
    with pytest.warns(UserWarning, match=RESIZE_WARNING):
        r = jtorch.sort(x, 1, out=(v, i))
    assert r[0] is v and r[1] is i and v.shape == (2, 3)
    same(v, np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]], np.float32))
    vt = jtorch.zeros(3, 2).t()  # right shape, not contiguous: written in place
    it = jtorch.zeros(3, 2, dtype=jtorch.int64).t()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.sort(x, 1, descending=True, out=(vt, it))
    assert vt.stride() == (1, 2)
    same(it, np.array([[0, 2, 1], [2, 0, 1]]))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got long int instead"):
        jtorch.sort(x, out=(jtorch.empty(0, dtype=jtorch.int64), jtorch.empty(0, dtype=jtorch.int64)))
    out = jtorch.empty(0, dtype=jtorch.int64)
    jtorch.argsort(x, stable=True, dim=0, out=out)
    same(out, np.array([[1, 1, 0], [0, 0, 1]]))
    tv, ti = jtorch.empty(0), jtorch.empty(0, dtype=jtorch.int64)
    jtorch.topk(x, 2, out=(tv, ti))
    same(tv, np.array([[3.0, 2.0], [5.0, 0.0]], np.float32))
    kv, ki = jtorch.empty(0), jtorch.empty(0, dtype=jtorch.int64)
    jtorch.kthvalue(x, 2, 0, True, out=(kv, ki))
    same(kv, np.array([[3.0, 1.0, 5.0]], np.float32))
    mv, mi = jtorch.empty(0), jtorch.empty(0, dtype=jtorch.int64)
    jtorch.mode(x, out=(mv, mi))
    assert mv.shape == (2,)


def test_sort_into_its_own_input():
    x = jtorch.tensor([3, 1, 2, 1])
    i = jtorch.empty(0, dtype=jtorch.int64)
    jtorch.sort(x, out=(x, i))
    same(x, np.array([1, 1, 2, 3]))
    same(i, np.array([1, 3, 2, 0]))


def test_sort_dense_strides_follow_the_input():
    x = jtorch.randn(3, 4).t()
    assert jtorch.sort(x, 0).values.stride() == (1, 4)
    assert jtorch.topk(x, 2, 0).values.stride() == (3, 1)


def test_meta():
    m = jtorch.empty(3, 5, device="meta")
    v, i = jtorch.sort(m, 0)
    assert v.device.type == "meta" and v.shape == (3, 5) and i.dtype == jtorch.int64
    v, i = jtorch.topk(m, 2)
    assert v.shape == (3, 2) and i.dtype == jtorch.int64
    v, i = jtorch.kthvalue(m, 2, 0, keepdim=True)
    assert v.shape == (1, 5) and v.device.type == "meta"
    assert jtorch.argsort(m).shape == (3, 5)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        jtorch.topk(m, 6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16])
def test_long_rows(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(50_000) * 1000).astype(dtype)
    a[::7] = a[0]  # ties
    t = jtorch.from_numpy(a)
    idx = np.argsort(a, kind="stable")
    same(jtorch.sort(t).indices, idx)
    didx = np.argsort(-a.astype(np.float64), kind="stable")
    same(jtorch.sort(t, descending=True).indices, didx)
    same(jtorch.topk(t, 100).values, a[didx[:100]])
    same(jtorch.kthvalue(t, 25_000).values, np.array(a[idx[24_999]]))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8])
def test_one_long_row_radix_sorted(dtype, threads):
    """One row of RADIX_MIN elements or more takes the parallel radix sort (kernels/cpu/radix.py):
    torch's stable order with NaN largest and -0.0 == 0.0, with one chunk and with two."""
    from jtorch.kernels.cpu.radix import RADIX_MIN

    rng = np.random.default_rng(2)
    n = RADIX_MIN + 12_345
    a = (rng.standard_normal(n) * 100).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[::7], a[::11], a[::13] = 0.0, -0.0, np.nan
    a[::17] = a[3]  # ties
    t = jtorch.from_numpy(a)
    saved = jtorch.get_num_threads()
    jtorch.set_num_threads(threads)
    try:
        v, i = jtorch.sort(t)
        d = jtorch.sort(t, descending=True, stable=True).indices
    finally:
        jtorch.set_num_threads(saved)
    idx = np.argsort(a, kind="stable")  # NumPy's order: NaN last, -0.0 == 0.0, stable
    same(i, idx)
    np.testing.assert_array_equal(v.numpy(), a[idx])
    order = np.where(np.isnan(a), np.inf, a.astype(np.float64))  # NaN first when descending
    same(d, np.argsort(-order, kind="stable"))


# ---- one long row: radix.sort_row ----------------------------------------------------------------
def _stable_order(a: np.ndarray, descending: bool) -> np.ndarray:
    """torch's stable order of a 1-D array: NaN largest and all NaNs equal, -0.0 == 0.0, ties in
    index order in both directions (np.lexsort: its last key first)."""
    x = a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64)
    nan = np.isnan(x) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    x = np.where(nan, 0, x)
    if descending:
        return np.lexsort((np.arange(a.size), -x, ~nan))
    return np.lexsort((np.arange(a.size), x, nan))


def _check_long_row(a: np.ndarray, t: "jtorch.Tensor | None" = None) -> None:
    """sort (both directions), argsort: torch's order, and the values bit for bit."""
    t = jtorch.from_numpy(a) if t is None else t
    for descending in (False, True):
        want = _stable_order(a, descending)
        v, i = jtorch.sort(t, descending=descending, stable=True)
        same(i, want)
        got = np.asarray(v.numpy())
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got.view(np.uint8), a[want].view(np.uint8))  # -0.0, NaN payloads
        same(jtorch.argsort(t, descending=descending, stable=True), want)


def _long_row(kind: str, dtype, n: int, rng) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if kind == "equal":
        return np.full(n, 3, dt)
    if dt.kind == "f":
        if kind == "wide":  # every exponent, both signs
            return (rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)).astype(dt)
        if kind == "dups":
            return rng.integers(-20, 20, n).astype(dt)
        a = rng.standard_normal(n).astype(dt)  # "specials": zeros of both signs, NaNs, infinities
        r = rng.random(n)
        a[r < 0.2], a[(r >= 0.2) & (r < 0.35)] = 0.0, -0.0
        a[(r >= 0.45) & (r < 0.5)], a[(r >= 0.5) & (r < 0.55)] = np.inf, -np.inf
        nan = (r >= 0.35) & (r < 0.45)
        u = a.view(np.uint32 if dt.itemsize == 4 else np.uint16)
        quiet, payload = (0x7FC00000, 1 << 22) if dt.itemsize == 4 else (0x7E00, 1 << 9)
        bits = quiet | rng.integers(0, payload, nan.sum()) | (rng.integers(0, 2, nan.sum()) << (8 * dt.itemsize - 1))
        u[nan] = bits.astype(u.dtype)  # NaNs with payloads, some with the sign bit set
        return a
    info = np.iinfo(dt)
    if kind == "wide":
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    if kind == "dups":
        return rng.integers(max(info.min, -5), min(info.max, 5), n, endpoint=True).astype(dt)
    a = rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    a[rng.random(n) < 0.5] = 0
    return a


@pytest.mark.parametrize("kind", ["wide", "dups", "specials", "equal"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8, np.bool_])
def test_long_row_against_stable_reference(dtype, kind):
    from jtorch.kernels.cpu.radix import RADIX_MIN

    rng = np.random.default_rng(3)
    _check_long_row(_long_row(kind, dtype, RADIX_MIN + 4321, rng))


def test_long_row_sorted_reversed_and_one_thread():
    from jtorch.kernels.cpu.radix import RADIX_MIN

    rng = np.random.default_rng(4)
    a = np.sort(rng.standard_normal(3 * RADIX_MIN).astype(np.float32))
    _check_long_row(a)
    _check_long_row(a[::-1].copy())
    saved = jtorch.get_num_threads()
    jtorch.set_num_threads(1)
    try:
        _check_long_row(rng.permutation(a))
    finally:
        jtorch.set_num_threads(saved)


def test_long_row_non_contiguous():
    from jtorch.kernels.cpu.radix import RADIX_MIN

    rng = np.random.default_rng(5)
    b = _long_row("specials", np.float32, 2 * RADIX_MIN + 10, rng)
    _check_long_row(b[::2], jtorch.from_numpy(b)[::2])
    m = rng.integers(-1000, 1000, (RADIX_MIN + 7, 3)).astype(np.int16)
    _check_long_row(np.ascontiguousarray(m[:, 1]), jtorch.from_numpy(m)[:, 1])


def test_long_row_sample_miss_and_big_bucket():
    """The prefix comes from a sample: an element the sample skips that sets a higher key bit
    (a negative among positives) must still sort right; so must a bucket of one prefix too big
    for the per-chunk buffer (half the row within 2**-10 of 1.0, the rest spread out)."""
    from jtorch.kernels.cpu.radix import LOCAL, RADIX_MIN

    rng = np.random.default_rng(6)
    n = RADIX_MIN + 999
    a = (1.0 + rng.random(n)).astype(np.float32)
    a[1], a[n - 2] = -5.0, 1e30  # the sample takes every (n // 4096)th element from 0
    _check_long_row(a)
    b = (rng.standard_normal(4 * LOCAL) * 100).astype(np.float32)
    b[: 2 * LOCAL] = 1.0 + rng.integers(0, 1 << 13, 2 * LOCAL) * np.float32(2.0 ** -23)
    _check_long_row(rng.permutation(b))


def test_long_row_mode():
    """mode of one long row sorts it with radix.sort_row, then its keys."""
    from jtorch.kernels.cpu.radix import RADIX_MIN

    rng = np.random.default_rng(7)
    a = rng.integers(-300, 300, RADIX_MIN + 5).astype(np.int32)
    a[rng.random(a.size) < 0.01] = 17
    want_v, want_i = reference_mode(a)
    r = jtorch.mode(jtorch.from_numpy(a))
    same(r.values, np.array(want_v, np.int32))
    same(r.indices, np.array(want_i))
    f = rng.standard_normal(RADIX_MIN + 5).astype(np.float32).round(1)
    f[::3] = np.nan  # NaNs are never equal: the most frequent is a number
    want_v, want_i = reference_mode(f)
    r = jtorch.mode(jtorch.from_numpy(f))
    same(r.values, np.array(want_v, np.float32))
    same(r.indices, np.array(want_i))


# ---- errors ---------------------------------------------------------------------------------------
ERRORS = [
    ("sort complex", lambda T: T.sort(T.tensor([1j]))),
    ("topk complex", lambda T: T.topk(T.tensor([1j]), 1)),
    ("topk bool", lambda T: T.topk(T.tensor([True]), 1)),
    ("topk k>n", lambda T: T.topk(T.arange(5.0), 6)),
    ("topk k<0", lambda T: T.topk(T.arange(5.0), -1)),
    ("topk dim", lambda T: T.topk(T.arange(5.0), 1, 1)),
    ("sort dim", lambda T: T.sort(T.zeros(3, 0), dim=2)),
    ("sort 0-dim dim", lambda T: T.sort(T.tensor(3.0), dim=1)),
    ("kthvalue k", lambda T: T.kthvalue(T.arange(5.0), 6)),
    ("kthvalue k0", lambda T: T.kthvalue(T.arange(5.0), 0)),
    ("kthvalue empty dim", lambda T: T.kthvalue(T.zeros(3, 0), 1)),
    ("kthvalue complex", lambda T: T.kthvalue(T.tensor([1j]), 1)),
    ("kthvalue bool", lambda T: T.kthvalue(T.tensor([True]), 1)),
    ("kthvalue out dtype", lambda T: T.kthvalue(T.arange(3.0), 1, out=(T.empty(0, dtype=T.int64),
                                                                        T.empty(0, dtype=T.int64)))),
    ("kthvalue out idx dtype", lambda T: T.kthvalue(T.arange(3.0), 1, out=(T.empty(0), T.empty(0)))),
    ("mode empty", lambda T: T.mode(T.tensor([]))),
    ("mode empty dim", lambda T: T.mode(T.zeros(3, 0))),
    ("mode complex", lambda T: T.mode(T.tensor([1j]))),
    ("mode out dtype", lambda T: T.mode(T.arange(3.0), out=(T.empty(0, dtype=T.int64), T.empty(0, dtype=T.int64)))),
    ("mode out idx", lambda T: T.mode(T.arange(3.0), out=(T.empty(0), T.empty(0)))),
    ("argsort out dtype", lambda T: T.argsort(T.arange(3.0), stable=True, out=T.empty(0))),
    ("msort out dtype", lambda T: T.msort(T.arange(3.0), out=T.empty(0, dtype=T.int64))),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, call):
    check_same_error_as_torch(call)


def test_zero_dim_and_empty():
    r = jtorch.sort(jtorch.tensor(3.0), dim=-1)
    same(r.values, np.array(3.0, np.float32))
    same(r.indices, np.array(0))
    e = jtorch.zeros(0, 3)
    assert jtorch.sort(e, 0).values.shape == (0, 3)
    assert jtorch.topk(jtorch.zeros(3, 0), 0).values.shape == (3, 0)
    assert jtorch.kthvalue(e, 1).values.shape == (0,)
    assert jtorch.mode(e).values.shape == (0,)
    assert jtorch.dtypes.float16 == jdtype(np.float16)


def test_mode_of_short_rows_with_nan_as_torch():
    """torch's CPU mode std::sorts (value, index) pairs by `<`: rows of at most 16 go through an
    insertion sort that leaves NaNs where they stand, and runs are split by `!=` (NaN never equal,
    -0.0 == 0.0). Fixed rows where that decides the value and the index, in three float dtypes."""
    torch = oracle_torch()
    nan = np.nan
    rows = np.array([[nan, nan, -0.0, 1.0], [nan, -0.0, 0.0, nan], [-0.0, nan, 2.0, 2.0],
                     [1.0, nan, 1.0, nan], [nan, nan, nan, nan], [2.0, nan, -1.0, -1.0]])
    for dt in (np.float16, np.float32, np.float64):
        for a, dim in ((rows.astype(dt), 1), (rows.T.astype(dt).copy(), 0)):
            mv, mi = torch.mode(torch.from_numpy(a), dim)
            r = jtorch.mode(jtorch.from_numpy(a), dim)
            same(r.values, mv.numpy())
            same(r.indices, mi.numpy())
