"""CUDA cat and remap stubs (jtorch/kernels/cuda/cat.py, remap.py) against the CPU results of the
same jtorch operators: cat/stack/hstack/vstack/dstack (dims, dtypes, empty and legacy inputs,
non-contiguous inputs and outputs, more inputs than one launch takes, mixed dtypes), flip,
rot90, roll, tril/triu (in place too), and autograd through cat, stack and flip.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

DTYPES = [np.float32, np.float64, np.int64, np.bool_, np.int8, np.complex128]


def data(shape: tuple, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape)
    if dtype == np.bool_:
        return a > 0
    if np.dtype(dtype).kind == "c":
        return (a + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    return a.astype(dtype)


def pair(a: np.ndarray, layout: str = "contiguous") -> tuple:
    """(CPU tensor, CUDA tensor) holding `a` with the same layout (views of a CUDA base)."""
    if layout == "transposed" and a.ndim >= 2:
        rev = tuple(range(a.ndim))[::-1]
        base, view = np.ascontiguousarray(a.transpose(rev)), (lambda t: t.permute(rev))
    elif layout == "strided" and a.ndim >= 1:
        base, view = np.repeat(a, 2, axis=-1), (lambda t: t[..., ::2])
    else:
        base, view = a, (lambda t: t)
    c = jtorch.tensor(base)
    return view(c), view(c.cuda())


def same(got, want) -> None:
    assert got.device.type == "cuda"
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


# ---- cat and friends --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dtype, dim):
    parts = [pair(data((2, 3, 2), dtype, 1), "transposed" if dim else "contiguous"),
             pair(data((2, 3, 2), dtype, 2), "strided"),
             pair(data((2, 3, 2), dtype, 3))]
    same(jtorch.cat([c for _, c in parts], dim), jtorch.cat([x for x, _ in parts], dim))


def test_cat_sizes_empty_and_legacy():
    a, ac = pair(data((2, 3), np.float32, 1))
    b, bc = pair(data((2, 1), np.float32, 2), "strided")
    e, ec = pair(np.zeros((2, 0), np.float32))
    leg, legc = pair(np.zeros((0,), np.float32))
    same(jtorch.cat([ac, ec, bc, legc, ac], 1), jtorch.cat([a, e, b, leg, a], 1))
    same(jtorch.cat([legc, ac], 0), jtorch.cat([leg, a], 0))
    same(jtorch.cat([ec, ec], 1), jtorch.cat([e, e], 1))
    v, vc = pair(data((3,), np.int64, 4))
    same(jtorch.cat([vc, legc.long(), vc[:0], vc]), jtorch.cat([v, leg.long(), v[:0], v]))


def test_cat_many_inputs_mixed_dtypes_and_out():
    parts = [pair(data((1, 2), np.float64, s), ("contiguous", "transposed", "strided")[s % 3]) for s in range(19)]
    same(jtorch.cat([c for _, c in parts], 0), jtorch.cat([x for x, _ in parts], 0))  # three launches
    same(jtorch.cat([c for _, c in parts], 1), jtorch.cat([x for x, _ in parts], 1))
    i, ic = pair(data((1, 2), np.int64, 9))
    f, fc = pair(data((1, 2), np.float32, 8))
    same(jtorch.cat([ic, fc, parts[0][1]]), jtorch.cat([i, f, parts[0][0]]))  # promoted: the copy stub
    out_base = jtorch.zeros(4, 6, dtype=jtorch.float32)
    out_c = out_base.cuda()
    jtorch.cat([fc, fc], 0, out=out_c[:, ::3])  # a strided out= view
    jtorch.cat([f, f], 0, out=out_base[:, ::3])
    same(out_c, out_base)
    o = jtorch.empty(0, dtype=jtorch.float64).cuda()  # resized
    jtorch.cat([parts[1][1], parts[2][1]], out=o)
    same(o, jtorch.cat([parts[1][0], parts[2][0]]))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_stack_family(dtype):
    a, ac = pair(data((2, 3), dtype, 1), "transposed")
    b, bc = pair(data((2, 3), dtype, 2), "strided")
    for dim in (0, 1, 2, -1):
        same(jtorch.stack([ac, bc], dim), jtorch.stack([a, b], dim))
    for fn in (jtorch.hstack, jtorch.vstack, jtorch.dstack, jtorch.column_stack):
        same(fn([ac, bc, ac]), fn([a, b, a]))
    v, vc = pair(data((3,), dtype, 5))
    same(jtorch.hstack([vc, vc]), jtorch.hstack([v, v]))
    same(jtorch.vstack([vc, vc]), jtorch.vstack([v, v]))
    s, sc = pair(np.array(1, dtype=dtype))
    same(jtorch.stack([sc, sc]), jtorch.stack([s, s]))


# ---- flip, rot90, roll, tril, triu --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_flip_rot90_roll(dtype, layout):
    x, xc = pair(data((2, 3, 4), dtype, 7), layout)
    for dims in ([0], [2], [-1, 0], [0, 1, 2]):
        same(jtorch.flip(xc, dims), jtorch.flip(x, dims))
    same(xc.fliplr(), x.fliplr())
    same(xc.flipud(), x.flipud())
    for k in (1, 2, -1, 3):
        same(jtorch.rot90(xc, k, [1, 2]), jtorch.rot90(x, k, [1, 2]))
    same(jtorch.roll(xc, 2, 2), jtorch.roll(x, 2, 2))
    same(jtorch.roll(xc, (1, -1), (0, 1)), jtorch.roll(x, (1, -1), (0, 1)))
    same(jtorch.roll(xc, 5), jtorch.roll(x, 5))


def test_flip_edges():
    for a in (np.array(3.0), np.zeros((0, 3)), np.arange(5.0).reshape(1, 5)):
        x, xc = pair(a)
        same(jtorch.flip(xc, list(range(a.ndim))), jtorch.flip(x, list(range(a.ndim))))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_tril_triu(dtype, layout):
    x, xc = pair(data((2, 3, 4), dtype, 9), layout)
    for k in (0, 1, -1, 5, -5):
        same(jtorch.tril(xc, k), jtorch.tril(x, k))
        same(jtorch.triu(xc, k), jtorch.triu(x, k))
    y, yc = x.clone(), xc.clone()
    same(yc.tril_(-1), y.tril_(-1))
    same(xc.clone().triu_(2), x.clone().triu_(2))
    out = jtorch.empty(0, dtype=x.dtype).cuda()
    jtorch.triu(xc, 1, out=out)
    same(out, jtorch.triu(x, 1))
    e, ec = pair(np.zeros((0, 3), dtype))
    same(jtorch.tril(ec), jtorch.tril(e))


def test_triu_in_place_on_a_view():
    """tril_/triu_ write through a transposed view of a larger CUDA tensor (dst and src one
    buffer in the kernel)."""
    base = jtorch.tensor(data((4, 4), np.float32, 3))
    bc = base.cuda()
    bc.t().triu_(1)
    base.t().triu_(1)
    same(bc, base)


# ---- autograd -------------------------------------------------------------------------------------------
def test_autograd_cat_stack_flip():
    a = data((2, 3), np.float64, 1)
    b = data((2, 2), np.float64, 2)

    def run(dev):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        y = jtorch.tensor(b).to(dev).requires_grad_()
        outs = [jtorch.cat([x, y, x.flip(1)], 1) * 3, jtorch.stack([x, x * x], 0), jtorch.rot90(x), x.tril(),
                jtorch.roll(y, 1, 0)]
        for n, o in enumerate(outs):
            o.backward(jtorch.tensor(data(tuple(o.shape), np.float64, 10 + n)).to(dev))
        return x.grad, y.grad

    got, want = run("cuda"), run("cpu")
    for g, w in zip(got, want):
        assert g.device.type == "cuda"
        np.testing.assert_array_equal(g.cpu().numpy(), w.numpy())


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.integers(1, 4), st.integers(0, 2 ** 31))
def test_cat_property(shape, count, seed):
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(-len(shape), len(shape)))
    parts = []
    for k in range(count):
        s = list(shape)
        s[dim] = int(rng.integers(0, 3))
        parts.append(pair(data(tuple(s), np.float32, seed % 1000 + k), ("contiguous", "transposed", "strided")[k % 3]))
    same(jtorch.cat([c for _, c in parts], dim), jtorch.cat([x for x, _ in parts], dim))


def test_cat_stub_takes_one_dtype_and_declines_mixed():
    """The stub itself: True (its kernel wrote the result) for inputs of out's dtype, any strides;
    False for a mixed list, which aten::cat then copies input by input."""
    from jtorch.kernels.cuda.cat import cat as cat_stub

    a, ac = pair(data((2, 3), np.int64, 1), "transposed")
    b, bc = pair(data((2, 2), np.int64, 2), "strided")
    out = jtorch.zeros(2, 5, dtype=jtorch.int64).cuda()
    assert cat_stub(out, [ac, bc], 1) is True
    same(out, jtorch.cat([a, b], 1))
    assert cat_stub(out, [ac, bc.float()], 1) is False
