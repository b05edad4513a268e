"""Comparison, logical, selection and clamping operators (eq, ne, lt, le, gt, ge, logical_and/or/xor,
maximum, minimum, fmax, fmin, where, clamp, clamp_min, clamp_max) against NumPy references (and torch
when installed): every dtype PyTorch's CPU kernels take, NaN handling, broadcastable shapes with
0-dim and empty tensors, non-contiguous inputs, Python scalars, out= and in-place variants, meta
tensors, and PyTorch's error texts; `t == None` and hashing keep working."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
from _elementwise_support import (
    ALL, FLOATS, INTS, REAL, Case, assert_close, check_against_numpy, check_meta, check_out_and_inplace,
    compute_dtype, layouts, ndtype, random_values, ref_clamp, seeds, shapes, tensor, to_numpy,
)
from _torch_oracle import oracle_torch, type_name

SPECIALS = {"all": dict(specials=True, low=-3, high=3)}  # NaN, infinities, signed zeros, many ties

CASES = [
    Case("eq", np.equal, flavour="compare", values=SPECIALS),
    Case("ne", np.not_equal, flavour="compare", values=SPECIALS),
    Case("lt", np.less, flavour="compare", dtypes=REAL, values=SPECIALS),
    Case("le", np.less_equal, flavour="compare", dtypes=REAL, values=SPECIALS),
    Case("gt", np.greater, flavour="compare", dtypes=REAL, values=SPECIALS),
    Case("ge", np.greater_equal, flavour="compare", dtypes=REAL, values=SPECIALS),
    Case("logical_and", np.logical_and, flavour="compare", values=SPECIALS),
    Case("logical_or", np.logical_or, flavour="compare", values=SPECIALS),
    Case("logical_xor", np.logical_xor, flavour="compare", values=SPECIALS),
    Case("maximum", np.maximum, dtypes=REAL, values=SPECIALS, has_inplace=False),
    Case("minimum", np.minimum, dtypes=REAL, values=SPECIALS, has_inplace=False),
    Case("fmax", np.fmax, dtypes=REAL, values=SPECIALS, has_inplace=False),
    Case("fmin", np.fmin, dtypes=REAL, values=SPECIALS, has_inplace=False),
    Case("clamp", ref_clamp, arity=3, dtypes=INTS + FLOATS, values=SPECIALS),
    Case("clamp_min", lambda a, lo: ref_clamp(a, lo, None), dtypes=REAL, values=SPECIALS),
    Case("clamp_max", lambda a, hi: ref_clamp(a, None, hi), dtypes=REAL, values=SPECIALS),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=8, deadline=None, derandomize=True)
@given(data=st.data())
def test_matches_numpy(case: Case, data) -> None:
    check_against_numpy(case, data)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=st.data())
def test_out_and_inplace(case: Case, data) -> None:
    check_out_and_inplace(case, data)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_meta_tensors(case: Case, data) -> None:
    check_meta(case, data)


# ---- comparisons with Python scalars --------------------------------------------------------------
COMPARE = {"eq": (lambda t, s: t == s, lambda s, t: s == t, np.equal),
           "ne": (lambda t, s: t != s, lambda s, t: s != t, np.not_equal),
           "lt": (lambda t, s: t < s, lambda s, t: s < t, np.less),
           "le": (lambda t, s: t <= s, lambda s, t: s <= t, np.less_equal),
           "gt": (lambda t, s: t > s, lambda s, t: s > t, np.greater),
           "ge": (lambda t, s: t >= s, lambda s, t: s >= t, np.greater_equal)}


@pytest.mark.parametrize("name", sorted(COMPARE))
@settings(max_examples=6, deadline=None, derandomize=True)
@given(data=st.data())
def test_compare_with_python_scalars(name: str, data) -> None:
    call, rcall, ref = COMPARE[name]
    d = data.draw(st.sampled_from(list(REAL)), label="dtype")
    value = data.draw(st.sampled_from([True, 0, 3, -2, 1.5, float("nan"), float("inf"), 1000]), label="scalar")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    t, a = tensor(random_values(rng, d, (2, 3), low=-4, high=4, specials=True), data.draw(layouts, label="layout"))
    common = jtorch.result_type(t, value)
    cd = compute_dtype(ndtype(common))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, v = a.astype(cd), np.array(value).astype(cd)  # the scalar in the compute dtype (wraps like C)
    r = call(t, value)
    assert r.dtype is jtorch.bool
    assert_close(to_numpy(r), ref(x, v), (name, value))
    assert_close(to_numpy(rcall(value, t)), ref(v, x), (name, value, "reflected"))


def test_comparison_dunders_and_none() -> None:
    t = jtorch.tensor([1.0, 2.0, 3.0])
    assert (2 < t).tolist() == [False, False, True] and (2 >= t).tolist() == [True, True, False]
    assert (t == 2).tolist() == [False, True, False] and (2 == t).tolist() == [False, True, False]
    assert (t == None) is False and (t != None) is True  # noqa: E711 - torch's behaviour
    assert (t == "a") is False and t.__eq__(None) is NotImplemented
    assert hash(t) == id(t) and {t: 1}[t] == 1 and t in [t] and t in {t}
    assert (jtorch.tensor([1 + 1j]) == jtorch.tensor([1 + 1j])).tolist() == [True]


def test_comparison_out_and_inplace_keep_their_dtype() -> None:
    f, i = jtorch.tensor([1.0, 2.0]), jtorch.tensor([1, 2])
    out = jtorch.empty(2, dtype=jtorch.int64)
    assert jtorch.lt(f, jtorch.tensor([2, 2]), out=out) is out and out.tolist() == [1, 0]
    assert i.lt_(1.5) is i and i.dtype is jtorch.int64 and i.tolist() == [1, 0]
    g = jtorch.tensor([0.0, 3.0])
    g.logical_and_(jtorch.tensor([1, 1]))
    assert g.dtype is jtorch.float32 and g.tolist() == [0.0, 1.0]
    assert jtorch.logical_xor(f, f, out=jtorch.empty(2)).tolist() == [0.0, 0.0]
    assert jtorch.greater(i, 0).tolist() == [True, False] and jtorch.not_equal(i, 1).tolist() == [False, True]


def test_nan_handling() -> None:
    nan = float("nan")
    a, b = jtorch.tensor([1.0, nan, nan, 2.0]), jtorch.tensor([nan, 1.0, nan, 1.0])
    assert_close(to_numpy(jtorch.maximum(a, b)), np.array([nan, nan, nan, 2], np.float32))
    assert_close(to_numpy(jtorch.fmin(a, b)), np.array([1, 1, nan, 1], np.float32))
    assert to_numpy(jtorch.logical_xor(jtorch.tensor([0.0, 1.0]), jtorch.tensor([nan, 0.0]))).tolist() == [True, True]
    assert_close(to_numpy(jtorch.clamp(jtorch.tensor([1.0, nan]), min=nan)), np.array([nan, nan], np.float32))
    assert_close(to_numpy(jtorch.clamp(jtorch.tensor([1.0, 5.0]), 0, nan)), np.array([nan, nan], np.float32))
    assert_close(to_numpy(jtorch.clamp_min(jtorch.tensor([1.0, nan]), jtorch.tensor([nan, 0.0]))),
                 np.array([nan, nan], np.float32))
    # the sign of zero: maximum keeps the first operand when they compare equal
    assert np.signbit(to_numpy(jtorch.maximum(jtorch.tensor([-0.0]), jtorch.tensor([0.0])))[0])
    assert not np.signbit(to_numpy(jtorch.minimum(jtorch.tensor([0.0]), jtorch.tensor([-0.0])))[0])


# ---- where ----------------------------------------------------------------------------------------
@settings(max_examples=16, deadline=None, derandomize=True)
@given(data=st.data())
def test_where_matches_numpy(data) -> None:
    (cs, xs, ys), result_shape = data.draw(shapes(3), label="shapes")
    dx = data.draw(st.sampled_from(list(ALL)), label="x dtype")
    dy = data.draw(st.sampled_from([dx, dx, dx] + list(ALL)), label="y dtype")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    c, cv = tensor(rng.integers(0, 2, cs).astype(bool), data.draw(layouts, label="c layout"))
    if data.draw(st.booleans(), label="python scalar y"):
        y, yv = data.draw(st.sampled_from([0, 2.5, True, -1])), None
    else:
        y, yv = tensor(random_values(rng, dy, ys, specials=True), data.draw(layouts, label="y layout"))
    x, xv = tensor(random_values(rng, dx, xs, specials=True), data.draw(layouts, label="x layout"))
    r = jtorch.where(c, x, y)
    rt = jtorch.result_type(x, y)
    if yv is None:
        result_shape = np.broadcast_shapes(cs, xs)
    assert r.dtype is rt and tuple(r.shape) == tuple(result_shape)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.where(cv, xv.astype(ndtype(rt)), (np.array(y) if yv is None else yv).astype(ndtype(rt)))
    assert_close(to_numpy(r), expected)
    assert_close(to_numpy(x.where(c, y)), expected)
    out = jtorch.empty(0, dtype=rt)
    assert jtorch.where(c, x, y, out=out) is out
    assert_close(to_numpy(out), expected)
    m = jtorch.where(c.to("meta"), x.to("meta"), y.to("meta") if yv is not None else y)
    assert m.device.type == "meta" and m.dtype is rt and tuple(m.shape) == tuple(result_shape)


def test_where_scalars_and_errors() -> None:
    c = jtorch.tensor([True, False])
    f, i = jtorch.tensor([1.0, 2.0]), jtorch.tensor([1, 2])
    assert jtorch.where(c, 2, 3).dtype is jtorch.int64 and jtorch.where(c, 2.0, 3).dtype is jtorch.float32
    assert jtorch.where(c, True, False).dtype is jtorch.bool
    assert jtorch.where(c, jtorch.tensor(1, dtype=jtorch.int8), 2.5).tolist() == [1.0, 2.5]
    assert jtorch.where(jtorch.tensor(True), jtorch.tensor(1, dtype=jtorch.int8), jtorch.tensor(2)).dtype is jtorch.int64
    with pytest.raises(RuntimeError, match="^where expected condition to be a boolean tensor, but got a tensor "
                                           "with dtype Long$"):
        jtorch.where(i, f, i)
    with pytest.raises(RuntimeError, match="^Expected out type to be Float but got Long$"):
        jtorch.where(c, f, i, out=jtorch.empty(2, dtype=jtorch.int64))
    with pytest.raises(RuntimeError, match=re.escape("The size of tensor a (2) must match the size of tensor b (3) "
                                                     "at non-singleton dimension 0")):
        jtorch.where(c, f, jtorch.ones(3))
    import jtorch.native.binary as binary

    binary._warned_uint8_condition = False
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        assert jtorch.where(c.to(jtorch.uint8), f, 0.0).tolist() == [1.0, 0.0]


# ---- clamp ----------------------------------------------------------------------------------------
@settings(max_examples=16, deadline=None, derandomize=True)
@given(data=st.data())
def test_clamp_with_scalar_bounds(data) -> None:
    d = data.draw(st.sampled_from(list(INTS + FLOATS)), label="dtype")
    bounds = data.draw(st.sampled_from([(-2, 3), (None, 1.5), (-0.5, None), (2, -1), (0, 0), (-1.5, 2.5)]))
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    t, a = tensor(random_values(rng, d, (3, 4), low=-4, high=4, specials=True), data.draw(layouts, label="layout"))
    lo, hi = bounds
    rt = jtorch.promotion.result_type_many(t, *(b for b in bounds if b is not None))
    if d.kind == "f":
        rt = t.dtype
    if ndtype(rt).kind == "u" and any(b is not None and b < 0 for b in bounds):
        return  # a negative bound wraps in uint8 (tested below)
    r = jtorch.clamp(t, lo, hi)
    assert r.dtype is rt
    cd = compute_dtype(ndtype(rt))
    expected = ref_clamp(a.astype(cd), None if lo is None else cd.type(lo), None if hi is None else cd.type(hi))
    assert_close(to_numpy(r), expected.astype(ndtype(rt)), bounds)
    if lo is not None:
        assert_close(to_numpy(jtorch.clamp_min(t, lo)), ref_clamp(a.astype(cd), cd.type(lo), None).astype(ndtype(
            jtorch.promotion.result_type_many(t, lo) if d.kind != "f" else t.dtype)))
    if rt is t.dtype and t.stride().count(0) == 0:
        assert t.clamp_(lo, hi) is t
        assert_close(to_numpy(t), expected.astype(ndtype(rt)))
    assert jtorch.clamp(t.to("meta"), lo, hi).dtype is rt


def test_clamp_details() -> None:
    f, i = jtorch.tensor([1.0, 2.0, 5.0]), jtorch.tensor([1, 2, 5])
    u8 = jtorch.tensor([5], dtype=jtorch.uint8)
    assert jtorch.clamp(u8, min=-1).tolist() == [255]  # -1 wraps into uint8, as in C++
    assert jtorch.clamp(f, min=3, max=2).tolist() == [2.0, 2.0, 2.0]  # min > max gives max
    assert jtorch.clamp(i, min=1.5).dtype is jtorch.float32
    assert jtorch.clamp(i, min=jtorch.tensor([1.5], dtype=jtorch.float64)).dtype is jtorch.float64
    assert jtorch.clamp(f, jtorch.tensor(2.0), 4).tolist() == [2.0, 2.0, 4.0]
    assert jtorch.clamp_min(jtorch.tensor([1, 2], dtype=jtorch.int8), jtorch.tensor(1000)).tolist() == [1, 2]
    assert jtorch.clamp(jtorch.tensor([True, False]), jtorch.tensor([True, True])).tolist() == [True, True]
    assert jtorch.clip(f, 2, 4).tolist() == [2.0, 2.0, 4.0] and jtorch.clip_(f.clone(), 0, 1).tolist() == [1.0] * 3
    g = f.clone()
    assert jtorch.clamp_(g, 2, 4) is g and jtorch.clamp_min_(g, 3) is g and g.tolist() == [3.0, 3.0, 4.0]
    out = jtorch.empty(3, dtype=jtorch.float64)
    assert jtorch.clamp(f, jtorch.tensor(1), jtorch.tensor(2), out=out).tolist() == [1.0, 2.0, 2.0]


def _raises(exc: type, message: str):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_error_texts() -> None:
    f, i, c = jtorch.tensor([1.0, 2.0]), jtorch.tensor([1, 2]), jtorch.tensor([1 + 1j])
    for call in (lambda: jtorch.clamp(f), lambda: jtorch.clamp(f, None, None), lambda: f.clamp_(),
                 lambda: jtorch.clamp(f, min=None)):
        with _raises(RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None"):
            call()
    with _raises(NotImplementedError, "clamp is not supported for complex types"):
        jtorch.clamp(c, min=0)
    with _raises(NotImplementedError, "clamp is not supported for complex types"):
        jtorch.clamp_min(c, 1)
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type long int"):
        jtorch.tensor([1, 5]).clamp_(min=0.5)
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type long int"):
        jtorch.tensor([1, 5]).clamp_min_(2.5)
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        jtorch.tensor([1, 5]).clamp_(min=jtorch.tensor(2.5))
    with _raises(RuntimeError, "Found dtype Long but expected Float"):
        jtorch.clamp(f, 1, 2, out=jtorch.empty(2, dtype=jtorch.int64))
    with _raises(RuntimeError, "value cannot be converted to type int8_t without overflow"):
        jtorch.clamp(jtorch.tensor([1], dtype=jtorch.int8), min=1000)
    with _raises(RuntimeError, "maximum not implemented for complex tensors."):
        jtorch.maximum(c, c)
    with _raises(RuntimeError, "fmin not implemented for complex tensors."):
        jtorch.fmin(c, c)
    with _raises(RuntimeError, "output with shape [2] doesn't match the broadcast shape [1, 2]"):
        f.lt_(jtorch.tensor([[1.5]]))
    with _raises(TypeError, "maximum(): argument 'other' (position 2) must be Tensor, not int"):
        jtorch.maximum(f, 2)
    with _raises(TypeError, "logical_and(): argument 'other' (position 2) must be Tensor, not float"):
        jtorch.logical_and(i, 2.5)


@pytest.mark.parametrize("call,message", [
    (lambda: jtorch.lt(jtorch.tensor([1.0]), 1 + 1j), "\"lt_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.tensor([1j]) >= jtorch.tensor([1j]), "\"ge_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.clamp(jtorch.tensor([True]), min=False, max=True), "\"clamp_scalar_cpu\" not implemented for 'Bool'"),
    (lambda: jtorch.clamp_min(jtorch.tensor([True]), True), "\"clamp_min_scalar_cpu\" not implemented for 'Bool'"),
    (lambda: jtorch.clamp(jtorch.tensor([True]), jtorch.tensor([True]), jtorch.tensor([True])),
     "\"clamp_cpu\" not implemented for 'Bool'"),
    (lambda: jtorch.clamp(jtorch.ones(2), jtorch.tensor([1j]), jtorch.tensor([1j])),
     "\"clamp_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.clamp_min(jtorch.ones(1), jtorch.tensor([1j])), "\"maximum_cpu\" not implemented for 'ComplexFloat'"),
], ids=range(7))
def test_dtype_not_implemented(call, message) -> None:
    with _raises(NotImplementedError, message):
        call()


def test_parallel_path() -> None:
    rng = np.random.default_rng(1)
    x = random_values(rng, np.float64, (200, 200), specials=True)
    y = random_values(rng, np.float64, (200, 200), specials=True)
    a, b = jtorch.from_numpy(x.copy()), jtorch.from_numpy(y.copy())
    assert_close(to_numpy(a.t() < b), x.T < y)
    assert_close(to_numpy(jtorch.where(a > 0, a, b)), np.where(x > 0, x, y))
    assert_close(to_numpy(jtorch.clamp(a, -1, 1)), np.clip(x, -1, 1))


# ---- the same expressions in torch and jtorch ------------------------------------------------------------
ORACLE = """\
m.where(f > 1, f, i)
m.where(f > 1, 2, 3)
m.where(b, m.tensor(1, dtype=m.int8), 2.5)
f.where(b, 2)
m.where(m.tensor([True, False]), m.tensor([1, 2]), m.tensor([3.0, 4]), out=m.empty(2))
m.eq(f, 1 + 1j)
m.lt(f, m.tensor([1, 2]), out=m.empty(2, dtype=m.int64))
m.tensor([1, 2]).lt_(1.5)
m.logical_and(i, f, out=m.empty(2))
m.clamp(u8, min=m.tensor(-1))
m.clamp(i, min=0.5)
m.clamp(i, min=m.tensor([1.5]))
m.clamp(i, min=1, max=None)
m.clamp(f, min=None, max=m.tensor([1.0]))
m.clamp(f, min=1, max=2, out=m.empty(2, dtype=m.float64))
m.clamp(f, min=m.tensor(1), max=m.tensor(2), out=m.empty(2, dtype=m.float64))
m.clamp(i, min=m.tensor(1.0), max=m.tensor(2), out=m.empty(2, dtype=m.int64))
m.clamp_min(f, 1, out=m.empty(2, dtype=m.float64))
m.clamp_min(i, 1.5)
m.maximum(f, i)
m.maximum(b, b)
m.minimum(i8, u8)
"""


def test_same_outcome_as_torch() -> None:
    torch = oracle_torch()

    def run(m, expr):
        env = dict(m=m, f=m.tensor([1.0, 2.0]), i=m.tensor([1, 2]), b=m.tensor([True, False]),
                   i8=m.tensor([1, 2], dtype=m.int8), u8=m.tensor([1, 2], dtype=m.uint8))
        try:
            r = eval(expr, env)
        except Exception as e:  # noqa: BLE001 - comparing errors is the point
            return type_name(e), str(e).split("\n")[0]
        return str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()

    for expr in ORACLE.strip().splitlines():
        assert run(jtorch, expr) == run(torch, expr), expr
