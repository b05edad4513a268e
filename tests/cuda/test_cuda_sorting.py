"""CUDA sorting, selection, searching and counting equal the CPU kernels of the same operators
(run under the simulator: tiny sizes; `bitonic.TILE` is small there, so rows of more than 32
elements take the global merge passes as well)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch.backends import backend
from jtorch.kernels.cuda import bitonic

RNG = np.random.RandomState(0)


def same(a, b):
    """Equal values, dtypes and shapes; NaN equals NaN and the sign of zero counts."""
    a, b = a.cpu(), b.cpu()
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    x, y = a.numpy(), b.numpy()
    np.testing.assert_array_equal(x, y)
    if x.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(x), np.signbit(y))


def floats(shape, dtype=np.float32):
    """Values with ties, NaNs, -0.0 and 0.0."""
    pool = np.array([np.nan, -0.0, 0.0, 1.5, -1.5, 2.0, -np.inf, np.inf, 3.0, -7.0], dtype)
    return jtorch.tensor(pool[RNG.randint(0, len(pool), size=shape)])


def ints(shape, dtype=np.int64, lo=-5, hi=5):
    return jtorch.tensor(RNG.randint(lo, hi, size=shape).astype(dtype))


INPUTS = [floats((3, 7)), floats((4, 5), np.float64), floats((2, 9), np.float16), ints((3, 6)),
          ints((5, 4), np.int32), ints((2, 8), np.int8), ints((3, 5), np.uint8, 0, 9),
          jtorch.tensor(RNG.randint(0, 2, size=(3, 6)).astype(bool))]


@pytest.mark.parametrize("x", INPUTS, ids=lambda x: str(x.dtype))
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_dtypes(x, dim, descending):
    v, i = jtorch.sort(x.cuda(), dim=dim, descending=descending, stable=True)
    ev, ei = jtorch.sort(x, dim=dim, descending=descending, stable=True)
    same(v, ev)
    same(i, ei)


def test_sort_long_row_takes_the_merge_passes():
    n = bitonic.TILE * 3 // 2 + 1  # 49 under the simulator, 1537 on a GPU
    x = floats((n,))
    assert bitonic.padded(n) > bitonic.TILE  # the global strides run
    for desc in (False, True):
        v, i = jtorch.sort(x.cuda(), descending=desc)
        ev, ei = jtorch.sort(x, descending=desc)
        same(v, ev)
        same(i, ei)


def test_sort_pairs_with_tiny_tiles():
    """The same network with 4-pair tiles: many global strides, several rows."""
    keys = RNG.randint(0, 6, size=(3, 64)).astype(np.uint64)
    idx = np.tile(np.arange(64), (3, 1)).astype(np.int64)
    k, ix = keys.reshape(-1).copy(), idx.reshape(-1).copy()
    bitonic.sort_pairs(k, ix, 3, 64, tile=4)
    order = np.argsort(keys, axis=1, kind="stable")
    np.testing.assert_array_equal(ix.reshape(3, 64), order)
    np.testing.assert_array_equal(k.reshape(3, 64), np.take_along_axis(keys, order, 1))


def test_sort_layouts():
    x = floats((5, 6, 4))
    xt = x.transpose(0, 2)  # non-contiguous input
    for dim in (0, 1, 2, -1):
        same(jtorch.sort(xt.cuda(), dim=dim)[1], jtorch.sort(xt, dim=dim)[1])
        same(jtorch.sort(x.cuda()[:, ::2], dim=dim)[0], jtorch.sort(x[:, ::2], dim=dim)[0])
    zero = jtorch.tensor(2.5)  # 0-dim
    v, i = jtorch.sort(zero.cuda())
    same(v, jtorch.sort(zero)[0])
    same(i, jtorch.sort(zero)[1])
    empty = jtorch.tensor(np.zeros((0, 3), np.float32))
    same(jtorch.sort(empty.cuda(), dim=0)[1], jtorch.sort(empty, dim=0)[1])
    one = floats((4, 1))
    same(jtorch.sort(one.cuda(), dim=1)[0], jtorch.sort(one, dim=1)[0])


def test_sort_out_argsort_msort():
    x = floats((4, 6))
    c = x.cuda()
    vo = jtorch.empty((6, 4), device="cuda").t()  # a non-contiguous out=
    io = jtorch.empty((4, 6), dtype=jtorch.int64, device="cuda")
    r = jtorch.sort(c, dim=1, descending=True, out=(vo, io))
    same(vo, jtorch.sort(x, dim=1, descending=True)[0])
    same(io, jtorch.sort(x, dim=1, descending=True)[1])
    assert r[0] is vo
    same(jtorch.argsort(c, dim=0), jtorch.argsort(x, dim=0))
    same(jtorch.argsort(c, dim=1, stable=True, descending=True), jtorch.argsort(x, dim=1, stable=True, descending=True))
    same(jtorch.msort(c), jtorch.msort(x))
    same(c.sort(0)[0], x.sort(0)[0])


@pytest.mark.parametrize("x", INPUTS[:5], ids=lambda x: str(x.dtype))
def test_topk(x):
    c = x.cuda()
    for k in (0, 1, 3):
        for largest in (True, False):
            v, i = jtorch.topk(c, k, dim=1, largest=largest)
            ev, ei = jtorch.topk(x, k, dim=1, largest=largest)
            same(v, ev)
            same(i, ei)
    same(jtorch.topk(c, 2, dim=0)[1], jtorch.topk(x, 2, dim=0)[1])
    same(c.t().topk(2, dim=-1)[0], x.t().topk(2, dim=-1)[0])


def test_topk_zero_dim_and_long_row():
    z = jtorch.tensor(3.0)
    same(jtorch.topk(z.cuda(), 1)[0], jtorch.topk(z, 1)[0])
    x = floats((100,))
    same(jtorch.topk(x.cuda(), 5)[1], jtorch.topk(x, 5)[1])


@pytest.mark.parametrize("x", INPUTS[:7], ids=lambda x: str(x.dtype))
def test_kthvalue(x):
    c = x.cuda()
    for k in (1, 2, x.shape[1]):
        for keepdim in (False, True):
            v, i = jtorch.kthvalue(c, k, dim=1, keepdim=keepdim)
            ev, ei = jtorch.kthvalue(x, k, dim=1, keepdim=keepdim)
            same(v, ev)
            same(i, ei)
    same(jtorch.kthvalue(c, 2, dim=0)[1], jtorch.kthvalue(x, 2, dim=0)[1])
    z = jtorch.tensor(4)
    same(jtorch.kthvalue(z.cuda(), 1)[0], jtorch.kthvalue(z, 1)[0])


@pytest.mark.parametrize("x", [ints((4, 9), lo=0, hi=3), floats((3, 8)), ints((5, 6), np.int16, 0, 4),
                               jtorch.tensor(RNG.randint(0, 2, size=(3, 5)).astype(bool))],
                         ids=lambda x: str(x.dtype))
def test_mode(x):
    c = x.cuda()
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            v, i = jtorch.mode(c, dim, keepdim)
            ev, ei = jtorch.mode(x, dim, keepdim)
            same(v, ev)
            same(i, ei)
    z = jtorch.tensor(5)
    same(jtorch.mode(z.cuda())[1], jtorch.mode(z)[1])


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 40), rows=st.integers(1, 3), desc=st.booleans(), seed=st.integers(0, 99))
def test_sort_hypothesis(n, rows, desc, seed):
    x = jtorch.tensor(np.random.RandomState(seed).randint(-3, 3, size=(rows, n)).astype(np.float32))
    v, i = jtorch.sort(x.cuda(), descending=desc, stable=True)
    ev, ei = jtorch.sort(x, descending=desc, stable=True)
    same(v, ev)
    same(i, ei)


# ---- searching ---------------------------------------------------------------------------------------
def test_searchsorted():
    b = jtorch.tensor(np.array([-1.0, 0.0, 0.0, 2.5, 4.0, np.nan], np.float32))
    v = jtorch.tensor(np.array([[-3.0, 0.0, 2.5], [np.nan, 4.0, 9.0]], np.float32))
    for right in (False, True):
        same(jtorch.searchsorted(b.cuda(), v.cuda(), right=right), jtorch.searchsorted(b, v, right=right))
    same(jtorch.searchsorted(b.cuda(), v.cuda(), side="right", out_int32=True),
         jtorch.searchsorted(b, v, side="right", out_int32=True))
    b2 = floats((3, 5)).nan_to_num().sort(dim=1)[0]  # batched boundaries, on the CPU
    v2 = floats((3, 4)).nan_to_num()
    same(jtorch.searchsorted(b2.cuda(), v2.cuda()), jtorch.searchsorted(b2, v2))
    same(jtorch.searchsorted(b2.cuda(), v2.cuda().t().contiguous().t()), jtorch.searchsorted(b2, v2))
    u = jtorch.tensor(np.array([1, 3, 5, 7, 9], np.int64))
    same(jtorch.searchsorted(u.cuda(), 4), jtorch.searchsorted(u, 4))
    h = jtorch.tensor(np.array([0.5, 1.0, 2.0], np.float16))
    hv = jtorch.tensor(np.array([1.0, 0.1, 3.0], np.float16))
    same(jtorch.searchsorted(h.cuda(), hv.cuda()), jtorch.searchsorted(h, hv))
    e = jtorch.tensor(np.zeros(0, np.float32))
    same(jtorch.searchsorted(e.cuda(), v.cuda()), jtorch.searchsorted(e, v))


def test_searchsorted_sorter_stub():
    """The stub with a sorter (the operator checks the sorter's range with aminmax: the reduce stub)."""
    u = jtorch.tensor(np.array([5, 1, 3, 9, 7], np.int64))
    sorter = jtorch.argsort(u)
    vals = jtorch.tensor(np.array([[0, 3, 4], [9, 10, 5]], np.int64))
    for right in (False, True):
        out = jtorch.empty((2, 3), dtype=jtorch.int64, device="cuda")
        backend("cuda").searchsorted(u.cuda(), vals.cuda(), right, sorter.cuda(), out)
        same(out, jtorch.searchsorted(u, vals, sorter=sorter, right=right))


def test_searchsorted_sorter_operator():
    u = jtorch.tensor(np.array([5, 1, 3, 9, 7], np.int64))
    sorter = jtorch.argsort(u)
    vals = jtorch.tensor(np.array([0, 3, 4, 9, 10], np.int64))
    same(jtorch.searchsorted(u.cuda(), vals.cuda(), sorter=sorter.cuda()), jtorch.searchsorted(u, vals, sorter=sorter))


def test_bucketize():
    b = jtorch.tensor(np.array([1, 3, 5, 7], np.int64))
    x = ints((3, 4), lo=0, hi=9)
    for right in (False, True):
        same(jtorch.bucketize(x.cuda(), b.cuda(), right=right), jtorch.bucketize(x, b, right=right))
    same(jtorch.bucketize(x.cuda(), b.cuda(), out_int32=True), jtorch.bucketize(x, b, out_int32=True))


def test_isin():
    e = floats((4, 5))
    t = jtorch.tensor(np.array([0.0, np.nan, 3.0, -7.0], np.float32))  # 0.0 matches -0.0, NaN matches nothing
    for invert in (False, True):
        same(jtorch.isin(e.cuda(), t.cuda(), invert=invert), jtorch.isin(e, t, invert=invert))
    same(jtorch.isin(e.cuda().t(), t.cuda()), jtorch.isin(e.t(), t))
    a, b = ints((6,), lo=0, hi=20), ints((50,), lo=0, hi=20)  # test elements take the merge passes
    same(jtorch.isin(a.cuda(), b.cuda()), jtorch.isin(a, b))
    same(jtorch.isin(a.cuda(), 3), jtorch.isin(a, 3))
    same(jtorch.isin(a.cuda(), b.cuda()[:0]), jtorch.isin(a, b[:0]))
    h = jtorch.tensor(np.array([0.5, -0.0, np.nan, 2.0], np.float16))
    same(jtorch.isin(h.cuda(), h.cuda()[1:]), jtorch.isin(h, h[1:]))


# ---- counting ---------------------------------------------------------------------------------------------
def test_bincount_stub():
    """The stub's atomics directly (the operator computes its length with max: the reduce stub)."""
    x = ints((40,), lo=0, hi=7)
    for w in (None, jtorch.tensor(RNG.rand(40).astype(np.float32)), jtorch.tensor(RNG.rand(40))):
        dt = jtorch.int64 if w is None else w.dtype
        out = jtorch.empty(9, dtype=dt, device="cuda")
        backend("cuda").bincount(x.cuda(), None if w is None else w.cuda(), out)
        exp = jtorch.bincount(x, w, minlength=9)
        if w is None:
            same(out, exp)
        else:
            np.testing.assert_allclose(out.cpu().numpy(), exp.numpy(), rtol=1e-5)
    out = jtorch.empty(3, dtype=jtorch.int64, device="cuda")
    backend("cuda").bincount(x.cuda()[:0], None, out)
    same(out, jtorch.tensor([0, 0, 0]))


def test_bincount_operator():
    x = ints((30,), np.int32, 0, 6)
    same(jtorch.bincount(x.cuda(), minlength=8), jtorch.bincount(x, minlength=8))


def test_histc():
    x = jtorch.tensor(np.array([3., 0, -0.0, 1, 1, -2, 5, 7, 3.5, 8, -3, np.nan], np.float32))
    for bins in (1, 4, 9):
        same(jtorch.histc(x.cuda(), bins=bins, min=-2, max=7), jtorch.histc(x, bins=bins, min=-2, max=7))
    d = jtorch.tensor(RNG.rand(6, 5))
    same(jtorch.histc(d.cuda().t(), bins=7, min=0.1, max=0.9), jtorch.histc(d.t(), bins=7, min=0.1, max=0.9))
    o = jtorch.empty(4, device="cuda")
    jtorch.histc(x.cuda(), bins=4, min=-2, max=7, out=o)
    same(o, jtorch.histc(x, bins=4, min=-2, max=7))


def test_unique():
    x = ints((4, 6), lo=0, hi=4)
    c = x.cuda()
    for kw in ({}, {"return_inverse": True}, {"return_counts": True},
               {"return_inverse": True, "return_counts": True, "dim": 0}, {"dim": 1, "return_counts": True}):
        got, exp = jtorch.unique(c, **kw), jtorch.unique(x, **kw)
        for g, e in zip(got if isinstance(got, tuple) else (got,), exp if isinstance(exp, tuple) else (exp,)):
            same(g, e)
            assert g.device.type == "cuda"
    got = jtorch.unique_consecutive(c.reshape(-1), return_inverse=True, return_counts=True)
    for g, e in zip(got, jtorch.unique_consecutive(x.reshape(-1), return_inverse=True, return_counts=True)):
        same(g, e)
    f = floats((10,))
    same(jtorch.unique(f.cuda()), jtorch.unique(f))
