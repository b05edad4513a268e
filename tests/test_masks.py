"""masked_fill, masked_select, masked_scatter, nonzero (as_tuple), argwhere, where(condition)
against NumPy: every dtype, broadcast shapes with 0-dim / empty ones, non-contiguous inputs and
masks, in-place and out= forms, torch's errors, meta."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jtorch
from _index_support import ALL, LAYOUTS, SETTINGS, assert_same, assert_torch_error, jdtype, jt, rng_from, values

pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=4)


@SETTINGS
@given(st.sampled_from(ALL), pairs, st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS[:3]), st.data())
def test_masked_fill_against_numpy(dtype, shapes, layout, mlayout, data):
    rng = rng_from(data.draw)
    (xs, ms), shape = shapes.input_shapes, shapes.result_shape
    x = values(rng, dtype, xs)
    m = rng.integers(0, 2, ms).astype(bool)
    v = values(rng, dtype, ()).item()
    t, mt = jt(x, layout), jt(m, mlayout)
    x_held = np.asarray(jtorch.Tensor.numpy(t.contiguous())) if layout == "expanded" else x
    expected = np.where(m, np.array(v, dtype), x_held)
    assert_same(t.masked_fill(mt, v), expected)
    assert_same(jtorch.masked_fill(t, mt, jtorch.tensor(v, dtype=jdtype(dtype))), expected)
    if tuple(xs) == tuple(shape) and layout != "expanded":
        y = jt(x, layout)
        assert y.masked_fill_(mt, v) is y
        assert_same(y, expected)
    # masked_select and masked_scatter on the same shapes
    xb, mb = np.broadcast_to(x_held, shape), np.broadcast_to(m, shape)
    assert_same(t.masked_select(mt), xb[mb])
    out = jtorch.empty(1, dtype=jdtype(dtype))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jtorch.masked_select(t, mt, out=out) is out
    assert_same(out, xb[mb])
    src = values(rng, dtype, (int(mb.sum()) + data.draw(st.integers(0, 2)),))
    ref = np.array(xb)
    ref[mb] = src[: int(mb.sum())]
    assert_same(t.masked_scatter(mt, jt(src)), ref)


@SETTINGS
@given(st.sampled_from(ALL), st.lists(st.integers(0, 4), max_size=3).map(tuple), st.sampled_from(LAYOUTS[:3]),
       st.data())
def test_nonzero_argwhere_where_against_numpy(dtype, shape, layout, data):
    rng = rng_from(data.draw)
    x = values(rng, dtype, shape)
    x = np.where(rng.integers(0, 2, shape).astype(bool), x, np.zeros((), dtype))
    t = jt(x, layout)
    expected = np.argwhere(x)
    assert_same(t.nonzero(), expected)
    assert_same(jtorch.argwhere(t), expected)
    assert_same(jtorch.nonzero(t, out=jtorch.empty(0, dtype=jtorch.int64)), expected)
    tup = jtorch.nonzero(t, as_tuple=True)
    ref = np.nonzero(x) if x.ndim else np.nonzero(x.reshape(1))
    assert isinstance(tup, tuple) and len(tup) == len(ref)
    for a, b in zip(tup, ref):
        assert_same(a, b.astype(np.int64))
    w = jtorch.where(jt(x != 0, layout))
    for a, b in zip(w, ref):
        assert_same(a, b.astype(np.int64))
    assert len(t.nonzero(as_tuple=True)) == max(x.ndim, 1)


def test_three_argument_where_still_works():
    x = jtorch.arange(6.).reshape(2, 3)
    assert_same(jtorch.where(x > 2, x, 0.0), np.where(np.arange(6.).reshape(2, 3) > 2, np.arange(6.).reshape(2, 3), 0)
                .astype(np.float32))


def test_errors_match_torch():
    try:
        import torch
    except ImportError:
        torch = None
    m4 = [True, False, True, False]
    cases = [
        (lambda m: m.arange(12.).reshape(3, 4).masked_fill(m.tensor([1, 0, 1, 0]), 2.), RuntimeError,
         "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
        (lambda m: m.arange(12.).reshape(3, 4).masked_fill(m.tensor(m4, dtype=m.uint8), 2.), RuntimeError,
         "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
        (lambda m: m.arange(12.).reshape(3, 4).masked_fill(m.tensor(m4), m.tensor([2.])), RuntimeError,
         "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
        (lambda m: m.arange(12.).reshape(3, 4).masked_fill(m.tensor(m4), 1j), RuntimeError,
         "value cannot be converted to type float without overflow"),
        (lambda m: m.ones(4).masked_fill_(m.ones(3, 4, dtype=m.bool), 1.), RuntimeError,
         "output with shape [4] doesn't match the broadcast shape [3, 4]"),
        (lambda m: m.ones(4).masked_select(m.ones(4, dtype=m.long)), RuntimeError,
         "masked_select: expected BoolTensor for mask"),
        (lambda m: m.masked_select(m.ones(4), m.ones(4, dtype=m.bool), out=m.empty(4, dtype=m.float64)), RuntimeError,
         "masked_select(): self and result must have the same scalar type"),
        (lambda m: m.ones(4).masked_scatter(m.ones(4, dtype=m.long), m.ones(4)), RuntimeError,
         "masked_scatter_ only supports boolean masks, but got mask with dtype Long"),
        (lambda m: m.ones(4).masked_scatter(m.ones(4, dtype=m.bool), m.ones(4).double()), RuntimeError,
         "masked_scatter: expected self and source to have same dtypes but gotFloat and Double"),
        (lambda m: m.ones(4).masked_scatter(m.ones(4, dtype=m.bool), m.ones(2)), RuntimeError,
         "Number of elements of source < number of ones in mask"),
        (lambda m: m.nonzero(m.ones(4), out=m.empty(0, dtype=m.int32)), RuntimeError,
         "nonzero: Expected out tensor to have scalar type Long but got scalar typeInt"),
    ]
    for fn, typ, text in cases:
        assert_torch_error(lambda: fn(jtorch), (lambda: fn(torch)) if torch else None, typ, text)


def test_masked_scatter_refused_leaves_self_alone():
    y = jtorch.zeros(4)
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        y.masked_scatter_(jtorch.ones(4, dtype=jtorch.bool), jtorch.ones(3))
    assert_same(y, np.zeros(4, np.float32))


def test_meta():
    x = jtorch.empty(3, 4, device="meta")
    mask = jtorch.empty(4, dtype=jtorch.bool, device="meta")
    assert x.masked_fill(mask, 1.0).shape == (3, 4)
    assert x.masked_scatter(mask, jtorch.empty(12, device="meta")).shape == (3, 4)
    with pytest.raises(NotImplementedError, match="register_meta function for torch.nonzero"):
        x.nonzero()
    with pytest.raises(NotImplementedError, match="aten::masked_select: attempted to run this operator with Meta"):
        x.masked_select(mask)
