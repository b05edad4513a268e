"""index_select, index_add, index_copy, index_fill, index_reduce, take, put_, take_along_dim against
NumPy: every dtype, 0-dim / empty shapes, negative dims, non-contiguous inputs and index tensors,
out= / in-place forms, duplicates, negative and out-of-range values refused with torch's type and
text with nothing written (negative values wrapped where torch wraps), meta."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jtorch
from _index_support import (ALL, INDEX_LAYOUTS, LAYOUTS, SETTINGS, assert_same, assert_torch_error, jdtype, jt,
                            nonempty, reduce_values, rng_from, shaped, to_numpy, values)

warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")


@st.composite
def along_case(draw, dtypes=ALL, negative: bool = False, unique: bool = False):
    """self, a dim, a 1-D index (values in range; negative ones too when `negative`), a source."""
    rng = rng_from(draw)
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shaped())
    nd = max(len(shape), 1)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    n = nonempty(shape)[d]
    if unique:
        k = draw(st.integers(0, n))
        idx = rng.permutation(n)[:k].astype(np.int64)
    else:
        k = draw(st.integers(0, 5)) if n else 0
        idx = rng.integers(-n if negative else 0, max(n, 1), k).astype(np.int64)
    if not shape:  # a 0-dim self takes one index and a 0-dim source
        idx = rng.integers(-1 if negative else 0, 1, 1).astype(np.int64)
        if draw(st.booleans()):
            idx = idx.reshape(())
    sshape = list(nonempty(shape))
    sshape[d] = idx.size
    sshape = tuple(sshape) if shape else ()
    return (dtype, values(rng, dtype, shape), dim, idx, values(rng, dtype, sshape),
            draw(st.sampled_from(LAYOUTS[:3])), draw(st.sampled_from(INDEX_LAYOUTS)))


def _index_view(idx: np.ndarray, layout: str) -> jtorch.Tensor:
    return jt(idx, layout)


@SETTINGS
@given(along_case())
def test_index_select_against_numpy(case):
    dtype, x, dim, idx, _, layout, ilayout = case
    if not x.shape and idx.size != 1:
        return
    t = jt(x, layout)
    i = _index_view(idx, ilayout)
    expected = np.take(x.reshape(nonempty(x.shape)), idx.reshape(-1), axis=dim % max(x.ndim, 1)).reshape(
        tuple(idx.size if k == dim % max(x.ndim, 1) else s for k, s in enumerate(x.shape)))
    assert_same(t.index_select(dim, i), expected)
    assert_same(t.index_select(dim, jt(idx.astype(np.int32))), expected)
    out = jtorch.empty(0, dtype=jdtype(dtype))
    assert jtorch.index_select(t, dim, i, out=out) is out
    assert_same(out, expected)


def _along_ref(x, dim, idx, src, reduce=None, include_self=True, alpha=1):
    out = x.copy().reshape(nonempty(x.shape))
    d = dim % out.ndim
    s = src.reshape(tuple(idx.size if k == d else n for k, n in enumerate(out.shape)))
    om, sm = np.moveaxis(out, d, 0), np.moveaxis(s, d, 0)
    groups: dict = {}
    for j, v in enumerate(idx.reshape(-1)):
        groups.setdefault(int(v) % out.shape[d], []).append(j)
    for row, js in groups.items():
        cur = np.array(om[row])
        contrib = [np.array(sm[j]) for j in js]
        with np.errstate(all="ignore"):
            if reduce is None:
                cur = contrib[-1]
            elif reduce == "add":
                for c in contrib:
                    cur = (cur | (bool(alpha) & c)) if x.dtype.kind == "b" else (cur + np.array(alpha, x.dtype) * c)
            else:
                for pos in np.ndindex(cur.shape):
                    cur[pos] = reduce_values(cur[pos], [c[pos] for c in contrib], reduce, x.dtype, include_self)
        om[row] = cur
    return out.reshape(x.shape)


@SETTINGS
@given(along_case(), st.sampled_from([1, 2]))
def test_index_add_against_numpy(case, alpha):
    dtype, x, dim, idx, src, layout, ilayout = case
    if dtype.kind == "b":
        alpha = True
    t, i, s = jt(x, layout), _index_view(idx, ilayout), jt(src, layout)
    expected = _along_ref(x, dim, idx, src, "add", alpha=alpha)
    assert_same(t.index_add(dim, i, s, alpha=alpha), expected, tol=True)
    y = jt(x, layout).clone()
    assert y.index_add_(dim, i, s, alpha=alpha) is y
    assert_same(y, expected, tol=True)
    out = jtorch.empty(x.shape, dtype=jdtype(dtype))
    assert jtorch.index_add(t, dim, i, s, alpha=alpha, out=out) is out
    assert_same(out, expected, tol=True)


@SETTINGS
@given(along_case(unique=True))
def test_index_copy_against_numpy(case):
    dtype, x, dim, idx, src, layout, ilayout = case
    t, i, s = jt(x, layout), _index_view(idx, ilayout), jt(src, layout)
    expected = _along_ref(x, dim, idx, src)
    assert_same(t.index_copy(dim, i, s), expected)
    y = jt(x, layout).clone()
    assert y.index_copy_(dim, i, s) is y
    assert_same(y, expected)


@SETTINGS
@given(along_case(negative=True))
def test_index_fill_against_numpy(case):
    dtype, x, dim, idx, src, layout, ilayout = case
    t, i = jt(x, layout), _index_view(idx, ilayout)
    v = src.reshape(-1)[0].item() if src.size else 1
    out = x.copy().reshape(nonempty(x.shape))
    d = dim % out.ndim
    sl = [slice(None)] * out.ndim
    sl[d] = idx.reshape(-1) % out.shape[d] if out.shape[d] else idx.reshape(-1)
    out[tuple(sl)] = v
    assert_same(t.index_fill(dim, i, v), out.reshape(x.shape))
    assert_same(t.index_fill(dim, i, jtorch.tensor(v, dtype=jdtype(dtype))), out.reshape(x.shape))
    y = jt(x, layout).clone()
    assert y.index_fill_(dim, i, v) is y
    assert_same(y, out.reshape(x.shape))


@SETTINGS
@given(along_case(), st.sampled_from(["prod", "mean", "amax", "amin"]), st.booleans())
def test_index_reduce_against_numpy(case, reduce, include_self):
    dtype, x, dim, idx, src, layout, ilayout = case
    if dtype.kind in "cb":
        if True:  # torch's dtype dispatch runs even when there is nothing to do
            with pytest.raises(NotImplementedError):
                jt(x).index_reduce(dim, jt(idx), jt(src), reduce)
        return
    t, i, s = jt(x, layout), _index_view(idx, ilayout), jt(src, layout)
    expected = _along_ref(x, dim, idx, src, reduce, include_self)
    assert_same(t.index_reduce(dim, i, s, reduce, include_self=include_self), expected, tol=True)
    y = jt(x, layout).clone()
    assert y.index_reduce_(dim, i, s, reduce, include_self=include_self) is y
    assert_same(y, expected, tol=True)


@SETTINGS
@given(st.sampled_from(ALL), shaped(), shaped(max_dims=2), st.sampled_from(LAYOUTS[:3]), st.data())
def test_take_put_against_numpy(dtype, shape, ishape, layout, data):
    rng = rng_from(data.draw)
    x = values(rng, dtype, shape)
    n = x.size
    idx = rng.integers(-n, max(n, 1), ishape).astype(np.int64) if n else np.zeros((0,), np.int64)
    t = jt(x, layout)
    assert_same(t.take(jt(idx)), x.reshape(-1)[idx] if n else np.zeros(idx.shape, dtype))
    src = values(rng, dtype, idx.shape)
    ref = x.copy().reshape(-1)
    np.add.at(ref, idx.reshape(-1), src.reshape(-1)) if dtype.kind != "b" else None
    if dtype.kind != "b":
        assert_same(t.put(jt(idx), jt(src), accumulate=True), ref.reshape(x.shape), tol=True)
    y = jt(x, layout).clone() if layout == "contiguous" else jt(x, layout)
    y = y.clone() if layout != "strided" else y
    y.put_(jt(idx), jt(src))
    flat = to_numpy(y).reshape(-1)
    for k, v in zip(idx.reshape(-1), src.reshape(-1)):  # duplicates: one of the values
        assert any(flat[k] == s for s in src.reshape(-1)[idx.reshape(-1) % n == k % n]) or flat[k] == v


def test_put_accumulate_duplicates_exact():
    x = np.zeros(7, np.int64)
    idx = np.random.default_rng(1).integers(-7, 7, 100000)
    src = np.random.default_rng(2).integers(-3, 4, 100000)
    ref = x.copy()
    np.add.at(ref, idx, src)
    assert_same(jt(x).put_(jt(idx), jt(src), accumulate=True), ref)


@SETTINGS
@given(st.sampled_from(ALL), shaped(min_dims=1), st.data())
def test_take_along_dim_against_numpy(dtype, shape, data):
    rng = rng_from(data.draw)
    x = values(rng, dtype, shape)
    nd = len(shape)
    dim = data.draw(st.integers(-nd, nd - 1))
    ishape = tuple(data.draw(st.sampled_from([1, s])) if k != dim % nd else data.draw(st.integers(0, 3))
                   for k, s in enumerate(shape))
    n = shape[dim % nd]
    idx = rng.integers(-2 * n - 1, 2 * n + 1, ishape).astype(np.int64) if n else np.zeros(ishape, np.int64)
    if n == 0:
        idx = np.zeros(tuple(0 if k == dim % nd else s for k, s in enumerate(ishape)), np.int64)
    wrapped = idx % n if n else idx
    expected = np.take_along_axis(x, wrapped, axis=dim) if x.size and wrapped.size else None
    r = jtorch.take_along_dim(jt(x), jt(idx), dim)
    if expected is not None:
        assert_same(r, expected)
    flat_idx = rng.integers(0, max(x.size, 1), 3) if x.size else np.zeros(0, np.int64)
    assert_same(jt(x).take_along_dim(jt(flat_idx)), x.reshape(-1)[flat_idx])


@pytest.mark.parametrize("bad", [3, -1, -4, 7])
def test_out_of_range_refused_with_torch_text(bad):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    try:
        import torch
    except ImportError:
        torch = None
    m_list = [jtorch] + ([torch] if torch else [])

    def t(m):
        return m.tensor(x.copy())

    cases = [
        (lambda m, y: y.index_select(0, m.tensor([0, bad])), IndexError, "index out of range in self"),
        (lambda m, y: y.index_add_(0, m.tensor([0, bad]), m.ones(2, 4)), RuntimeError,
         f"index {bad} is out of bounds for dimension 0 with size 3"),
        (lambda m, y: y.index_add_(0, m.tensor([0, bad], dtype=m.int32), m.ones(2, 4)), IndexError,
         "index out of range in self"),
        (lambda m, y: y.index_copy_(0, m.tensor([0, bad]), m.ones(2, 4)), IndexError,
         f"index_copy_(): index {bad} is out of bounds for dimension 0 with size 3"),
        (lambda m, y: y.index_reduce_(0, m.tensor([0, bad]), m.ones(2, 4), "amax"), IndexError,
         "index out of range in self"),
    ]
    if bad < -3 or bad >= 3:
        cases.append((lambda m, y: y.index_fill_(0, m.tensor([0, bad]), 1.0), IndexError,
                      f"index {bad} is out of bounds for dimension 0 with size 3"))
    flat = 11 + bad if bad > 0 else -12 + bad  # outside [-12, 12)
    cases += [(lambda m, y: y.take(m.tensor([0, flat])), IndexError,
               f"out of range: tried to access index {flat} on a tensor of 12 elements."),
              (lambda m, y: y.put_(m.tensor([0, flat]), m.ones(2), accumulate=True), IndexError,
               f"out of range: tried to access index {flat} on a tensor of 12 elements.")]
    for fn, typ, text in cases:
        y = t(jtorch)
        assert_torch_error(lambda: fn(jtorch, y), (lambda: fn(torch, t(torch))) if torch else None, typ, text)
        assert_same(y, x)  # nothing written


def test_argument_errors_match_torch():
    try:
        import torch
    except ImportError:
        torch = None
    x = lambda m: m.arange(12.).reshape(3, 4)  # noqa: E731
    cases = [
        (lambda m: x(m).index_select(0, m.tensor([[0]])), IndexError, "index_select(): Index is supposed to be a vector"),
        (lambda m: x(m).index_select(0, m.tensor([0.])), RuntimeError,
         "index_select(): Expected dtype int32 or int64 for index"),
        (lambda m: m.tensor(5.).index_select(0, m.tensor([0, 0])), RuntimeError,
         "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
        (lambda m: m.index_select(x(m), 1, m.tensor([0]), out=m.empty(3, 1, dtype=m.float64)), RuntimeError,
         "index_select(): self and result must have the same scalar type"),
        (lambda m: x(m).index_add(0, m.tensor([0]), m.ones(2, 4)), RuntimeError,
         "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 0"),
        (lambda m: x(m).index_add(0, m.tensor([0]), m.ones(1, 3)), RuntimeError,
         "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
         "[3, 4] source.shape = [1, 3]"),
        (lambda m: x(m).index_add(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)), RuntimeError,
         "index_add_(): self (Float) and source (Double) must have the same scalar type"),
        (lambda m: x(m).index_add(0, m.tensor([[0]]), m.ones(1, 4)), IndexError,
         "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]"),
        (lambda m: x(m).index_add(1, m.tensor([0]), m.ones(3)), RuntimeError,
         "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1"),
        (lambda m: x(m).index_copy(0, m.tensor([0]), m.ones(2, 4)), IndexError,
         "index_copy_(): Number of indices (1) should be equal to source.size(dim) (2)"),
        (lambda m: x(m).index_copy(0, m.tensor([0], dtype=m.int32), m.ones(1, 4)), RuntimeError,
         "index_copy_(): Expected a long tensor for index, but got Int"),
        (lambda m: x(m).index_copy(1, m.tensor([0]), m.ones(3)), IndexError,
         "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
         "dimensionality (1), destination dimensionality (2)"),
        (lambda m: m.zeros(3, 4, 5).index_copy(0, m.tensor([0]), m.ones(1, 3, 6)), RuntimeError,
         "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 4 5 at "
         "dimension 0 and source slice shape: 3 6 at dimension 0."),
        (lambda m: x(m).index_fill(0, m.tensor([0], dtype=m.int32), 1.), IndexError,
         "index_fill_(): Expected dtype int64 for index."),
        (lambda m: x(m).index_fill(0, m.tensor([[0]]), 1.), RuntimeError, "Index has to be a vector/scalar"),
        (lambda m: x(m).index_fill(0, m.tensor([0]), m.tensor([1.])), RuntimeError,
         "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
        (lambda m: x(m).index_reduce(0, m.tensor([0]), m.ones(1, 4), "sum"), RuntimeError,
         "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum."),
        (lambda m: x(m).take(m.tensor([0], dtype=m.int32)), RuntimeError,
         "take(): Expected a long tensor for index, but got Int"),
        (lambda m: m.ones(0).take(m.tensor([0])), IndexError, "take(): tried to take from an empty tensor"),
        (lambda m: x(m).put_(m.tensor([0, 1]), m.ones(3)), IndexError,
         "put_(): Expected source and index to have the same number of elements, but got source.numel() = 3, "
         "index.numel() = 2"),
        (lambda m: x(m).put_(m.tensor([0]), m.ones(1).double()), RuntimeError,
         "put_(): self and source expected to have the same dtype, but got self.dtype = Float and source.dtype = "
         "Double"),
        (lambda m: m.ones(0).put_(m.tensor([0]), m.ones(1)), IndexError,
         "put_(): Tried to put elements into an empty tensor"),
        (lambda m: m.take_along_dim(x(m), m.tensor([1]), 1), RuntimeError,
         "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions "
         "for input, and 1 dimensions for indices"),
        (lambda m: m.take_along_dim(x(m), m.tensor([[1]], dtype=m.int32), 1), RuntimeError,
         "torch.take_along_dim(): dtype of indices should be Long but got Int"),
        (lambda m: m.take_along_dim(x(m), m.tensor([13])), RuntimeError,
         "index 13 is out of bounds for dimension 0 with size 12"),
    ]
    for fn, typ, text in cases:
        assert_torch_error(lambda: fn(jtorch), (lambda: fn(torch)) if torch else None, typ, text)


def test_meta_shapes():
    x = jtorch.empty(3, 4, device="meta")
    i = jtorch.empty(2, dtype=jtorch.int64, device="meta")
    assert x.index_add(0, i, jtorch.empty(2, 4, device="meta")).shape == (3, 4)
    assert x.index_copy(1, i, jtorch.empty(3, 2, device="meta")).shape == (3, 4)
    assert x.index_select(1, i).shape == (3, 2)
    assert x.take(jtorch.empty(5, 2, dtype=jtorch.int64, device="meta")).shape == (5, 2)
    assert x.index_fill(0, i, 1.0).device.type == "meta"
