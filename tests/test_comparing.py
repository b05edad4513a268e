"""isclose, allclose, equal against NumPy references written from torch's formulas (and against torch
where installed): every dtype, broadcastable shapes with 0-dim and empty tensors, non-contiguous
inputs, NaN and infinities, zero tolerances, meta tensors, method forms and torch's error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch
from jtorch.testing import strategies as jst

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TOLERANCES = [(1e-05, 1e-08), (0.0, 0.0), (0.0, 0.5), (0.1, 0.0), (1.3e-6, 1e-5), (2.0, 1.0)]


def optional_torch():
    try:
        import torch
    except ImportError:  # torch is an optional oracle
        return None
    return torch


def ref_isclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """at::native::isclose in NumPy, op by op in the tensors' dtype (NumPy's float16 arithmetic
    rounds every step to float16, as torch's does); integers and bools in float32."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close = a == b
        if equal_nan and a.dtype.kind in "fc":
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind in "biu":
            a, b = a.astype(np.float32), b.astype(np.float32)
        real = np.float16 if a.dtype == np.float16 else np.float32 if a.dtype in (np.float32, np.complex64) \
            else np.float64
        allowed = (real(atol) + np.abs(b * a.dtype.type(rtol)).astype(real)).astype(real)
        actual = np.abs(a - b).astype(real)
        return close | (np.isfinite(actual) & (actual <= allowed))


@st.composite
def pairs(draw, dtypes=jst.dtypes()):
    """(self, other, their values): broadcastable shapes, any layouts, `other` often a small
    perturbation of `self` so that closeness is decided by the tolerances."""
    dtype = draw(dtypes, label="dtype")
    (sa, sb), _ = draw(jst.broadcastable_shapes(2), label="shapes")
    rng = np.random.default_rng(draw(jst.seeds(), label="seed"))
    a = jst.random_values(rng, dtype, sa, low=-3, high=3, specials=True)
    b = jst.random_values(rng, dtype, sb, low=-3, high=3, specials=True)
    if a.size and b.size and draw(st.booleans(), label="near"):
        scale = rng.choice(np.array([0, 1e-7, 1e-5, 1e-3, 0.3]), sb)
        if dtype.is_floating_point or dtype.is_complex:
            src = np.broadcast_to(a, np.broadcast_shapes(sa, sb))
            b = np.broadcast_to(b, src.shape).copy()
            with np.errstate(all="ignore"):
                near = (src * (1 + np.broadcast_to(scale, src.shape))).astype(b.dtype)
            pick = rng.integers(0, 2, src.shape).astype(bool)
            b[pick] = near[pick]
    ta, va = jst.with_layout(a, draw(jst.layouts(), label="layout a"))
    tb, vb = jst.with_layout(b, draw(jst.layouts(), label="layout b"))
    return ta, tb, va, vb


@SETTINGS
@given(data=st.data())
def test_isclose_against_numpy(data):
    ta, tb, va, vb = data.draw(pairs())
    rtol, atol = data.draw(st.sampled_from(TOLERANCES), label="tolerances")
    equal_nan = data.draw(st.booleans(), label="equal_nan")
    r = jtorch.isclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan)
    expected = ref_isclose(va, vb, rtol, atol, equal_nan)
    assert r.dtype is jtorch.bool and tuple(r.shape) == expected.shape
    np.testing.assert_array_equal(r.numpy(), expected)
    np.testing.assert_array_equal(ta.isclose(tb, rtol, atol, equal_nan).numpy(), expected)  # method, positional
    assert jtorch.allclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan) is bool(expected.all())
    torch = optional_torch()
    if torch is not None:
        t = torch.isclose(torch.from_numpy(np.array(va)), torch.from_numpy(np.array(vb)), rtol=rtol, atol=atol,
                          equal_nan=equal_nan)
        np.testing.assert_array_equal(r.numpy(), t.numpy())


@SETTINGS
@given(data=st.data())
def test_isclose_meta(data):
    dtype = data.draw(jst.dtypes(), label="dtype")
    (sa, sb), result = data.draw(jst.broadcastable_shapes(2), label="shapes")
    a, b = (jtorch.empty(s, dtype=dtype, device="meta") for s in (sa, sb))
    r = jtorch.isclose(a, b)
    assert r.is_meta and r.dtype is jtorch.bool and tuple(r.shape) == tuple(result)


def test_isclose_integers_do_not_wrap():
    """The difference of integers is taken in the default dtype: 0 and 255 as uint8 are not close."""
    u = jtorch.tensor([0, 7], dtype=jtorch.uint8)
    v = jtorch.tensor([255, 8], dtype=jtorch.uint8)
    assert jtorch.isclose(u, v, atol=1).tolist() == [False, True]
    big = jtorch.tensor([2 ** 53 + 1])  # equal once in float32
    assert jtorch.isclose(big, jtorch.tensor([2 ** 53]), rtol=0, atol=0.5).tolist() == [True]
    assert jtorch.isclose(big, jtorch.tensor([2 ** 53]), rtol=0, atol=0).tolist() == [False]


@pytest.mark.parametrize("fn, exc, text", [
    (lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)), RuntimeError, "Float did not match Double"),
    (lambda m: m.isclose(m.ones(2, dtype=m.int64), m.ones(2)), RuntimeError, "Long did not match Float"),
    (lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1), RuntimeError,
     "rtol must be greater than or equal to zero, but got -1"),
    (lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1.5), RuntimeError,
     "atol must be greater than or equal to zero, but got -1.5"),
    (lambda m: m.isclose(m.ones(2), m.ones(2), atol=float("nan")), RuntimeError,
     "atol must be greater than or equal to zero, but got nan"),
    (lambda m: m.isclose(m.ones(2), m.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda m: m.isclose(m.ones(2), 1.0), TypeError,
     "isclose(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda m: m.allclose(m.ones(2), m.ones(2, dtype=m.float64)), RuntimeError, "Float did not match Double"),
    (lambda m: m.allclose(m.ones(2, device="meta"), m.ones(2, device="meta")), RuntimeError,
     "Tensor.item() cannot be called on meta tensors"),
    (lambda m: m.equal(m.ones(2, device="meta"), m.ones(2, device="meta")), NotImplementedError,
     "aten::equal: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel "
     "registered."),
    (lambda m: m.equal(m.ones(2), 1), TypeError, "equal(): argument 'other' (position 2) must be Tensor, not int"),
])
def test_errors(fn, exc, text):
    with pytest.raises(exc) as e:
        fn(jtorch)
    assert str(e.value) == text
    torch = optional_torch()
    if torch is not None:
        with pytest.raises(exc) as te:
            fn(torch)
        assert str(te.value).startswith(text), str(te.value)


@SETTINGS
@given(data=st.data())
def test_equal_against_numpy(data):
    """Same size and every element equal after promotion (NaN never equal); other dtypes mixed in."""
    da = data.draw(jst.dtypes(), label="dtype a")
    db = data.draw(st.sampled_from([da, da, data.draw(jst.dtypes(), label="dtype b")]), label="dtype b")
    shape = data.draw(jst.shapes(max_dims=3, max_side=3), label="shape")
    rng = np.random.default_rng(data.draw(jst.seeds(), label="seed"))
    a = jst.random_values(rng, da, shape, low=-2, high=2, specials=data.draw(st.booleans(), label="specials"))
    how = data.draw(st.sampled_from(["same", "changed", "reshaped", "other"]), label="how")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = a.astype(jst.numpy_dtype(db))  # the same values where db holds them
    if how == "changed" and b.size:
        b = b.copy()
        b.reshape(-1)[rng.integers(0, b.size)] = jst.random_values(rng, db, ())
    elif how == "reshaped":
        b = b.reshape(-1) if b.ndim != 1 else b.reshape(1, -1)
    elif how == "other":
        b = jst.random_values(rng, db, data.draw(jst.shapes(max_dims=3, max_side=3), label="other shape"))
    ta, va = jst.with_layout(a, data.draw(jst.layouts(), label="layout a"))
    tb, vb = jst.with_layout(b, data.draw(jst.layouts(), label="layout b"))
    common = jst.numpy_dtype(jtorch.promote_types(ta.dtype, tb.dtype))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = va.shape == vb.shape and bool(np.all(va.astype(common) == vb.astype(common)))
    assert jtorch.equal(ta, tb) is expected
    assert ta.equal(tb) is expected
    torch = optional_torch()
    if torch is not None:
        assert torch.equal(torch.from_numpy(np.array(va)), torch.from_numpy(np.array(vb))) is expected


def test_equal_nan_and_aliases():
    x = jtorch.tensor([1.0, float("nan")])
    assert jtorch.equal(x, x) is False  # the same tensor: NaN is still not equal
    assert jtorch.equal(x[:1], x[:1]) is True
    assert jtorch.equal(jtorch.ones(0, 3), jtorch.ones(0, 3)) is True
    assert jtorch.equal(jtorch.ones(0, 3), jtorch.ones(3, 0)) is False
    assert jtorch.equal(jtorch.tensor([1, 1]), jtorch.tensor([1])) is False  # no broadcasting


def test_schemas():
    assert str(jtorch.ops.aten.isclose.default._schema).endswith(
        "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor")
    assert str(jtorch.ops.aten.equal.default._schema).endswith("equal(Tensor self, Tensor other) -> bool")
