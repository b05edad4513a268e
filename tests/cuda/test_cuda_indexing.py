"""CUDA indexing stubs (jtorch/kernels/cuda/index.py) against the CPU results of the same jtorch
operators: advanced indexing (get, put, accumulate), gather/scatter/scatter_add/scatter_reduce,
index_select/index_add/index_copy/index_fill/index_reduce, take/put, the masked operators,
nonzero/argwhere, out-of-range errors (torch's text) and autograd. Tiny sizes: the simulator
runs one OS thread per CUDA thread.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

DTYPES = [np.float32, np.float64, np.int64, np.bool_]
LAYOUTS = ["contiguous", "transposed", "strided"]


def data(shape: tuple, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape)
    if dtype == np.bool_:
        return a > 0
    return a.astype(dtype)


def pair(a: np.ndarray, layout: str = "contiguous") -> tuple:
    """(CPU tensor, CUDA tensor) holding `a`, both viewed with the same layout (a CUDA view of a
    CUDA base, so the kernels see the non-contiguous strides)."""
    if layout == "transposed" and a.ndim >= 2:
        rev = tuple(range(a.ndim))[::-1]
        base = np.ascontiguousarray(a.transpose(rev))
        view = lambda t: t.permute(rev)  # noqa: E731
    elif layout == "strided" and a.ndim >= 1:
        base = np.repeat(a, 2, axis=-1)
        view = lambda t: t[..., ::2]  # noqa: E731
    else:
        base, view = a, (lambda t: t)
    c = jtorch.tensor(base)
    out = view(c), view(c.cuda())
    assert not out[1].is_contiguous() or layout == "contiguous" or a.ndim < 2 or a.size <= 1
    return out


def idx(values) -> tuple:
    t = jtorch.tensor(np.asarray(values, dtype=np.int64))
    return t, t.cuda()


def same(got, want, close: bool = False) -> None:
    assert got.device.type == "cuda"
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    g, w = got.cpu().numpy(), want.numpy()
    if close:
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(g, w)


# ---- advanced indexing: get ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_get(dtype, layout):
    x, xc = pair(data((3, 4, 5), dtype), layout)
    i, ic = idx([2, 0, -1, 0])
    j, jc = idx([[1], [3]])
    same(xc[ic], x[i])
    same(xc[:, ic], x[:, i])
    same(xc[..., ic], x[..., i])
    same(xc[ic[:2], :, jc], x[i[:2], :, j])   # non-adjacent: broadcast dims first
    same(xc[:, jc, ic[:3]], x[:, j, i[:3]])   # adjacent: in place
    same(xc[ic[:0]], x[i[:0]])                # empty index
    m = jtorch.tensor(data((3, 4), np.bool_, 1))
    same(xc[m.cuda()], x[m])
    same(xc[:, m[0].cuda()], x[:, m[0]])


def test_index_get_cpu_index_and_0dim():
    x, xc = pair(data((4,), np.float32))
    i = jtorch.tensor([3, 1])
    same(xc[i], x[i])  # index on the CPU, self on CUDA
    z, zc = pair(np.array(2.5, dtype=np.float64))
    same(zc[jtorch.tensor(True).cuda()], z[jtorch.tensor(True)])
    same(zc[jtorch.tensor(False).cuda()], z[jtorch.tensor(False)])


# ---- advanced indexing: put -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_put(dtype, layout):
    x, xc = pair(data((3, 4), dtype), layout)
    v = jtorch.tensor(data((2, 4), dtype, 5))
    i, ic = idx([2, -3])
    x[i] = v
    xc[ic] = v.cuda()
    same(xc, x)
    v1 = jtorch.tensor(data((3,), dtype, 6))
    x[:, i] = v1[:, None]          # broadcast values
    xc[:, ic] = v1[:, None].cuda()
    same(xc, x)
    m = jtorch.tensor(data((3, 4), np.bool_, 7))
    w = jtorch.tensor(data((int(m.sum()),), dtype, 8))
    x[m] = w
    xc[m.cuda()] = w.cuda()
    same(xc, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int16, np.bool_, np.float16])
def test_index_put_accumulate_duplicates(dtype):
    """atomic add (float32/64, int32/64) or the deterministic row walk (the others)."""
    x, xc = pair(data((4, 3), dtype))
    i, ic = idx([1, 3, 1, 1, -1])
    v = jtorch.tensor(data((5, 3), dtype, 2))
    same(xc.index_put_((ic,), v.cuda(), accumulate=True), x.index_put_((i,), v, accumulate=True))
    j, jc = idx([[0, 2, 0], [2, 2, 1]])
    v2 = jtorch.tensor(data((2, 3), dtype, 3))
    same(jtorch.index_put(xc, (jc, ic[:3] % 3), v2.cuda(), accumulate=True),
         jtorch.index_put(x, (j, i[:3] % 3), v2, accumulate=True))
    x, xc = pair(data((2, 3), dtype), "transposed")
    same(xc.index_put_((None, ic[:4] % 3), v[:2, :1].expand(2, 4).cuda(), accumulate=True),
         x.index_put_((None, i[:4] % 3), v[:2, :1].expand(2, 4), accumulate=True))


# ---- gather / scatter --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather(dtype, layout):
    x, xc = pair(data((3, 4), dtype), layout)
    for dim, values in ((0, [[2, 0, 1, -3], [1, 1, 0, 2]]), (1, [[3, 0], [1, 1], [0, 2]]), (-1, [[0], [3], [2]])):
        i = jtorch.tensor(np.remainder(values, x.shape[dim]))
        same(jtorch.gather(xc, dim, i.cuda()), jtorch.gather(x, dim, i))
    out = jtorch.empty((2, 4), dtype=x.dtype).cuda()
    i = jtorch.tensor([[2, 0, 1, 0], [1, 1, 0, 2]])
    jtorch.gather(xc, 0, i.cuda(), out=out)
    same(out, jtorch.gather(x, 0, i))
    same(jtorch.gather(xc, 1, i[:0].cuda()), jtorch.gather(x, 1, i[:0]))
    z, zc = pair(np.array(3, dtype=dtype))
    z0 = jtorch.tensor(0)
    same(jtorch.gather(zc, 0, z0.cuda()), jtorch.gather(z, 0, z0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int16])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_scatter_family(dtype, layout):
    x, xc = pair(data((3, 4), dtype), layout)
    s, sc = pair(data((3, 4), dtype, 1), layout)
    i = jtorch.tensor([[0, 2, 0, 1], [2, 2, 1, 0]])
    ic = i.cuda()
    u = jtorch.tensor([[0, 2, 0, 1], [2, 1, 1, 0]])  # a plain scatter's duplicates race on a GPU (as in torch)
    same(xc.scatter(0, u.cuda(), sc), x.scatter(0, u, s))
    same(xc.scatter(1, ic[:, :3], 7), x.scatter(1, i[:, :3], 7))
    same(xc.scatter_add(0, ic, sc), x.scatter_add(0, i, s), close=True)
    same(xc.scatter_add(-1, ic, sc), x.scatter_add(-1, i, s), close=True)
    with warnings.catch_warnings():  # torch warns once per process about reduce= with a src tensor
        warnings.simplefilter("ignore")
        same(xc.scatter(0, ic, sc, reduce="multiply"), x.scatter(0, i, s, reduce="multiply"))
    same(xc.scatter(0, ic, 2, reduce="add"), x.scatter(0, i, 2, reduce="add"))
    y, yc = x.clone(), xc.clone()
    same(yc.scatter_add_(1, ic, sc), y.scatter_add_(1, i, s), close=True)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int16])
def test_scatter_reduce(reduce, include_self, dtype):
    x, xc = pair(data((3, 4), dtype))
    s, sc = pair(data((4, 4), dtype, 1), "transposed")
    i = jtorch.tensor([[0, 2, 0, 1], [2, 2, 1, 0], [0, 0, 0, 0], [1, 2, 2, 2]])
    same(xc.scatter_reduce(0, i.cuda(), sc, reduce, include_self=include_self),
         x.scatter_reduce(0, i, s, reduce, include_self=include_self), close=True)


def test_scatter_reduce_nan():
    x = jtorch.tensor([[1.0, np.nan, 3.0], [0.0, 5.0, -1.0]])
    s = jtorch.tensor([[np.nan, 2.0, 4.0], [2.0, 0.0, 9.0]])
    i = jtorch.tensor([[0, 0, 0], [0, 1, 0]])
    for reduce in ("amax", "amin"):
        for inc in (True, False):
            same(x.cuda().scatter_reduce(0, i.cuda(), s.cuda(), reduce, include_self=inc),
                 x.scatter_reduce(0, i, s, reduce, include_self=inc))


def test_scatter_bool():
    x = jtorch.tensor(data((3, 3), np.bool_))
    s = jtorch.tensor(data((2, 3), np.bool_, 4))
    i = jtorch.tensor([[0, 1, 2], [0, 0, 2]])
    same(x.cuda().scatter(0, i.cuda(), s.cuda()), x.scatter(0, i, s))
    same(x.cuda().scatter_add(0, i.cuda(), s.cuda()), x.scatter_add(0, i, s))
    same(x.cuda().scatter_reduce(0, i.cuda(), s.cuda(), "amax"), x.scatter_reduce(0, i, s, "amax"))


# ---- index_* ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_select_fill_copy(dtype, layout):
    x, xc = pair(data((3, 4), dtype), layout)
    i, ic = idx([3, 0, 3])
    same(xc.index_select(1, ic), x.index_select(1, i))
    same(xc.index_select(-2, ic[1:] % 3), x.index_select(-2, i[1:] % 3))
    same(jtorch.index_select(xc, 0, ic[:0]), jtorch.index_select(x, 0, i[:0]))
    same(xc.index_fill(1, ic, 1), x.index_fill(1, i, 1))
    s = jtorch.tensor(data((3, 2), dtype, 3))
    j, jc = idx([3, 1])
    same(xc.index_copy(1, jc, s.cuda()), x.index_copy(1, j, s))
    z, zc = pair(np.array(4, dtype=dtype))
    same(zc.index_select(0, jtorch.tensor([0]).cuda()), z.index_select(0, jtorch.tensor([0])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16])
def test_index_add_reduce(dtype):
    x, xc = pair(data((3, 4), dtype), "strided")
    s, sc = pair(data((3, 5), dtype, 2), "transposed")
    i, ic = idx([1, 3, 1, 0, 1])
    same(xc.index_add(1, ic, sc, alpha=2), x.index_add(1, i, s, alpha=2), close=True)
    y, yc = x.clone(), xc.clone()
    same(yc.index_add_(1, ic, sc), y.index_add_(1, i, s), close=True)
    for reduce in ("prod", "mean", "amax", "amin"):
        same(xc.index_reduce(1, ic, sc, reduce, include_self=False), x.index_reduce(1, i, s, reduce, include_self=False),
             close=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16])
def test_take_put(dtype):
    x, xc = pair(data((3, 4), dtype), "transposed")
    i, ic = idx([[0, -1], [5, 11], [5, 5]])
    same(xc.take(ic), x.take(i))
    same(jtorch.take_along_dim(xc, ic[:, :1] % 3, 0), jtorch.take_along_dim(x, i[:, :1] % 3, 0))
    v = jtorch.tensor(data((3, 2), dtype, 9))
    same(xc.put(ic[:1], v[:1].cuda()), x.put(i[:1], v[:1]))
    same(xc.put(ic, v.cuda(), accumulate=True), x.put(i, v, accumulate=True), close=True)
    y, yc = x.clone(), xc.clone()
    same(yc.put_(ic, v.cuda(), accumulate=True), y.put_(i, v, accumulate=True), close=True)


# ---- masks, nonzero ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked(dtype):
    x, xc = pair(data((3, 4), dtype), "transposed")
    m = jtorch.tensor(data((4,), np.bool_, 3))  # broadcasts over the rows
    mc = m.cuda()
    same(xc.masked_select(mc), x.masked_select(m))
    same(xc.masked_fill(mc, 1), x.masked_fill(m, 1))
    s = jtorch.tensor(data((12,), dtype, 4))
    same(xc.masked_scatter(mc, s.cuda()), x.masked_scatter(m, s))
    out = jtorch.empty(0, dtype=x.dtype).cuda()
    jtorch.masked_select(xc, mc, out=out)
    same(out, x.masked_select(m))


@pytest.mark.parametrize("dtype", DTYPES + [np.complex64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_nonzero(dtype, layout):
    a = data((3, 5, 4), dtype, 11)  # 60 elements: several compaction blocks and tiles
    if dtype == np.complex64:
        a = a + 1j * data((3, 5, 4), np.float32, 12)
    x, xc = pair(a, layout)
    same(jtorch.nonzero(xc), jtorch.nonzero(x))
    same(jtorch.argwhere(xc), jtorch.argwhere(x))
    for got, want in zip(jtorch.nonzero(xc, as_tuple=True), jtorch.nonzero(x, as_tuple=True)):
        same(got, want)
    out = jtorch.empty((1, 1), dtype=jtorch.int64).cuda()
    jtorch.nonzero(xc, out=out)
    same(out, jtorch.nonzero(x))


@pytest.mark.parametrize("a", [np.zeros((2, 3)), np.zeros((0, 3)), np.array(0.0), np.array(-2), np.ones(1, bool),
                               np.arange(7)])
def test_nonzero_edges(a):
    x = jtorch.tensor(a)
    same(jtorch.nonzero(x.cuda()), jtorch.nonzero(x))
    same(x.cuda().nonzero(), x.nonzero())


# ---- errors: torch's texts ----------------------------------------------------------------------------
def check_same_error(call) -> None:
    """call(jtorch, on CUDA) raises what call(torch, on the CPU) raises: jtorch checks the index
    values before any kernel runs, so its CUDA text is torch's CPU text (torch's CUDA kernels stop
    with a device-side assert instead)."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as want:
        call(torch, "cpu")
    with pytest.raises(type(want.value)) as got:
        call(jtorch, "cuda")
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("call", [
    lambda t, d: t.zeros(3, 4).to(d)[t.tensor([0, 3]).to(d)],
    lambda t, d: t.zeros(3, 4).to(d)[:, t.tensor([[-5]]).to(d)],
    lambda t, d: t.zeros(3, 4).to(d).index_put_((t.tensor([7]).to(d),), t.ones(4).to(d), accumulate=True),
    lambda t, d: t.gather(t.zeros(3, 4).to(d), 1, t.tensor([[0, 4]]).to(d)),
    lambda t, d: t.gather(t.zeros(3, 4).to(d), 0, t.tensor([[-1]]).to(d)),
    lambda t, d: t.zeros(3, 4).to(d).scatter_add(0, t.tensor([[1, 3]]).to(d), t.ones(1, 2).to(d)),
    lambda t, d: t.zeros(3, 4).to(d).index_add(0, t.tensor([3]).to(d), t.ones(1, 4).to(d)),
    lambda t, d: t.zeros(3, 4).to(d).take(t.tensor([12]).to(d)),
    lambda t, d: t.zeros(3, 4).to(d).put_(t.tensor([-13]).to(d), t.ones(1).to(d)),
])
def test_out_of_range_errors(call):
    check_same_error(call)


def test_index_select_error_same_as_cpu():
    """torch 2.13's CPU index_select says 'INDICES element is out of DATA bounds, id=4 axis_dim=4';
    jtorch's backend-neutral check raises the older 'index out of range in self' on every device."""
    def call(dev):
        with pytest.raises(Exception) as e:
            jtorch.zeros(3, 4).to(dev).index_select(1, jtorch.tensor([1, 4, 9]).to(dev))
        return type(e.value), str(e.value)

    assert call("cuda") == call("cpu")


def test_bounds_reports_first_in_order():
    """index_bounds' atomic min finds the first offending position in logical order, also for a
    transposed index."""
    x = jtorch.zeros(5, 5)
    i = jtorch.tensor([[0, 9], [7, 1]]).t()  # logical order: 0, 7, 9, 1
    with pytest.raises(RuntimeError, match="index 7 is out of bounds"):
        jtorch.gather(x.cuda(), 0, i.cuda())


# ---- autograd ----------------------------------------------------------------------------------------
def test_autograd():
    """Backward of gather (scatter_add), index_select (index_add), x[idx] (index_put_ with
    accumulate), masked_select, take (put_ accumulate) and scatter_add (gather) on CUDA equals
    the CPU gradient. Each output is backpropagated with a gradient tensor (no reduction: that
    stub is another family's)."""
    a = data((3, 4), np.float64, 21)
    i = jtorch.tensor([[0, 2, 2, 1], [2, 2, 0, 0]])
    k = jtorch.tensor([1, 1, 3])
    m = jtorch.tensor(data((3, 4), np.bool_, 22))

    def run(dev):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        ii, kk, mm = i.to(dev), k.to(dev), m.to(dev)
        outs = [jtorch.gather(x, 0, ii) * 2, x.index_select(1, kk), x[kk % 3] ** 2, x[:, kk], x.masked_select(mm),
                x.take(kk), jtorch.zeros(3, 4, dtype=x.dtype).to(dev).scatter_add(0, ii, x[:2]) ** 2]
        for n, y in enumerate(outs):
            grad = jtorch.tensor(data(tuple(y.shape), np.float64, 30 + n)).to(dev)
            y.backward(grad)
        return x.grad

    g = run("cuda")
    assert g.device.type == "cuda"
    np.testing.assert_allclose(g.cpu().numpy(), run("cpu").numpy())


# ---- property: random shapes and index values ----------------------------------------------------------
@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2 ** 31), st.booleans())
def test_gather_scatter_add_property(shape, seed, transposed):
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(0, len(shape)))
    ishape = tuple(int(rng.integers(0, s + 1)) if d != dim else int(rng.integers(0, 5)) for d, s in enumerate(shape))
    iv = rng.integers(0, shape[dim], size=ishape)
    x, xc = pair(data(tuple(shape), np.float32, seed % 100), "transposed" if transposed else "contiguous")
    i = jtorch.tensor(iv)
    same(jtorch.gather(xc, dim, i.cuda()), jtorch.gather(x, dim, i))
    s = jtorch.tensor(data(ishape, np.float32, 3))
    same(xc.scatter_add(dim, i.cuda(), s.cuda()), x.scatter_add(dim, i, s), close=True)
    same(xc.scatter_reduce(dim, i.cuda(), s.cuda(), "amax"), x.scatter_reduce(dim, i, s, "amax"))
