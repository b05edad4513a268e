"""softmax, log_softmax, _softmax and _log_softmax against a float64 reference (and torch where
installed): float16/32/64, random shapes (0-dim, empty, size 1), negative dims, non-contiguous
inputs and outputs, rows along the last dim and along inner dims (the blocked kernel), dtype=,
out= (resized with PyTorch's warning, aliasing the input), meta tensors, inf/NaN rows, and
PyTorch's error texts.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtorch
from _unary_support import FLOATS, jdtype, make_layout, to_numpy
from _torch_oracle import oracle_torch

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded")
TOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-13}
RESIZE = ("An output with one or more elements was resized since it had shape [5], which does not match "
          "the required output shape [2, 3]. This behavior is deprecated, and in a future PyTorch release "
          "outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor "
          "t by resizing it, inplace, to zero elements with t.resize_(0).")


def ref(name: str, a: np.ndarray, dim: int) -> np.ndarray:
    """softmax / log_softmax in float64, cast to a's dtype."""
    x = a.astype(np.float64)
    if x.ndim == 0:
        x = x.reshape(1)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=dim, keepdims=True) if x.size else x
        e = np.exp(x - m)
        s = np.sum(e, axis=dim, keepdims=True)
        r = e / s if name == "softmax" else x - m - np.log(s)
    return r.reshape(a.shape).astype(a.dtype)


def assert_close(got: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> None:
    """Within a few ulps; `scale`: the inputs' magnitude (log_softmax's x - (max + log sum) cancels)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tol = TOL[got.dtype]
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol * scale)


def magnitude(a: np.ndarray) -> float:
    finite = np.abs(a[np.isfinite(a)]).astype(np.float64)
    return max(1.0, float(finite.max())) if finite.size else 1.0


shapes = st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@SETTINGS
@given(shape=shapes, data=st.data())
def test_matches_float64_reference(name, dtype, shape, data):
    nd = max(len(shape), 1)
    dim = data.draw(st.integers(-nd, nd - 1), label="dim")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    t, a = make_layout(rng.normal(0, 3, shape).astype(dtype), layout)
    expected, scale = ref(name, a, dim), magnitude(a)
    assert_close(to_numpy(getattr(jtorch, name)(t, dim)), expected, scale)
    assert_close(to_numpy(getattr(t, name)(dim)), expected, scale)
    assert_close(to_numpy(getattr(jtorch, "_" + name)(t, dim, False)), expected, scale)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((4096 * 3 + 5,), 0), ((40, 1000), 1), ((40, 1000), 0), ((6, 300, 33), 1),
                                       ((5, 7, 2, 3), 2), ((3, 2), 0)])
def test_rows_and_blocks_of_rows(name, shape, dim):
    """Long rows (vector loops, parallel chunks of rows) and inner dims (rows side by side)."""
    a = np.random.default_rng(5).normal(0, 4, shape).astype(np.float32)
    assert_close(to_numpy(getattr(jtorch, name)(jtorch.from_numpy(a), dim)), ref(name, a, dim), magnitude(a))
    # the same values with the scanned dim made the fastest one (other strides in the kernel)
    t = jtorch.from_numpy(np.ascontiguousarray(np.moveaxis(a, dim, -1))).movedim(-1, dim)
    assert_close(to_numpy(getattr(jtorch, name)(t, dim)), ref(name, a, dim), magnitude(a))


def test_float32_accuracy_against_torch():
    """Errors against the exact result, relative to max(|result|, 1): within a few ulps, and no
    worse than PyTorch's own float32 kernel (plus an ulp)."""
    torch = oracle_torch()
    a = np.random.default_rng(6).normal(0, 10, (64, 4096)).astype(np.float32)
    for name in ("softmax", "log_softmax"):
        exact = ref(name, a.astype(np.float64), -1)
        scale = np.maximum(np.abs(exact), 1)
        ours = np.max(np.abs(to_numpy(getattr(jtorch, name)(jtorch.from_numpy(a), -1)) - exact) / scale)
        # torch's error, computed in torch: only the number is recorded, not the 64 x 4096 result
        got = getattr(torch, name)(torch.from_numpy(a), -1).double()
        theirs = ((got - torch.from_numpy(exact)).abs() / torch.from_numpy(scale)).max().item()
        assert ours < 8 * 2**-23 and ours <= theirs + 2**-23, (name, ours / 2**-23, theirs / 2**-23)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_special_values_match_torch_rules(name):
    inf, nan = np.inf, np.nan
    rows = np.array([[inf, 1.0, 2.0], [-inf, -inf, -inf], [nan, 1.0, 2.0], [1.0, 2.0, nan], [-inf, 1.0, 1.0]],
                    np.float32)
    got = to_numpy(getattr(jtorch, name)(jtorch.from_numpy(rows), 1))
    assert np.isnan(got[:4]).all()  # inf or NaN in a row: the whole row is NaN; all -inf: NaN too
    if name == "softmax":
        assert got[4].tolist() == [0.0, 0.5, 0.5]
    else:
        assert got[4, 0] == -inf and np.allclose(got[4, 1:], np.log(0.5))
    torch = oracle_torch()
    expected = getattr(torch, name)(torch.from_numpy(rows), 1).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, equal_nan=True)


def test_dtype_argument_converts_first():
    a = jtorch.tensor([[1, 2, 3], [4, 5, 7]])
    r = jtorch.softmax(a, 1, dtype=jtorch.float32)
    assert r.dtype is jtorch.float32
    assert_close(to_numpy(r), ref("softmax", to_numpy(a).astype(np.float32), 1))
    f = jtorch.tensor([[0.5, 1.5, -2.0]])
    assert f.log_softmax(-1, jtorch.float64).dtype is jtorch.float64
    h = jtorch.tensor([[0.5, 1.5, -2.0]], dtype=jtorch.float16)
    assert_close(to_numpy(jtorch.softmax(h, 0)), np.ones((1, 3), np.float16))
    assert jtorch._softmax(h, 1, False).dtype is jtorch.float16


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_out(name):
    a = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], np.float32)
    out = jtorch.empty(5)
    with pytest.warns(UserWarning) as w:
        assert getattr(jtorch, name)(jtorch.from_numpy(a), 1, out=out) is out
    assert [str(m.message) for m in w] == [RESIZE]
    assert_close(to_numpy(out), ref(name, a, 1))
    base = jtorch.zeros(3, 2)  # a transposed out= is written through its strides
    getattr(jtorch, "_" + name)(jtorch.from_numpy(a), 0, False, out=base.t())
    assert_close(to_numpy(base).T, ref(name, a, 0))
    t = jtorch.from_numpy(a.copy())  # the input itself as out=: computed through a temporary
    getattr(jtorch, name)(t, 1, out=t)
    assert_close(to_numpy(t), ref(name, a, 1))
    x = jtorch.arange(6.0)  # a partly overlapping out= too
    getattr(jtorch, name)(x[:4], 0, out=x[2:])
    assert_close(to_numpy(x)[2:], ref(name, np.arange(4.0, dtype=np.float32), 0))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        getattr(jtorch, name)(jtorch.from_numpy(a), 1, out=jtorch.ones(1, 3).expand(2, 3))
    assert getattr(jtorch, name)(jtorch.from_numpy(a), 1, dtype=jtorch.float64,
                                 out=jtorch.empty(2, 3, dtype=jtorch.float64)).dtype is jtorch.float64


def test_meta_and_empty():
    for dtype in (jtorch.float16, jtorch.float32, jtorch.int64):
        m = jtorch.empty(2, 3, dtype=dtype, device="meta")
        r = jtorch.softmax(m, 1)  # the kernel's dtype dispatch needs data: no error on meta
        assert r.device.type == "meta" and r.shape == (2, 3) and r.dtype is dtype
        assert jtorch._log_softmax(m, 0, False).dtype is dtype
    assert jtorch._softmax(jtorch.empty(2, 3, dtype=jtorch.float16, device="meta"), 1, True).dtype is jtorch.float32
    assert jtorch.softmax(jtorch.empty(0, 3, dtype=jtorch.int64), 1).shape == (0, 3)
    assert jtorch.log_softmax(jtorch.empty(2, 0), 1).shape == (2, 0)
    assert to_numpy(jtorch.softmax(jtorch.tensor(3.0), 0)) == 1.0
    assert to_numpy(jtorch.log_softmax(jtorch.tensor(3.0), -1)) == 0.0


ERRORS = [
    (lambda m: m.softmax(m.ones(2, 3, dtype=m.int64), 1), NotImplementedError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda m: m.softmax(m.ones(2, 3, dtype=m.int64), 0), NotImplementedError,
     "\"softmax_kernel_impl\" not implemented for 'Long'"),
    (lambda m: m.log_softmax(m.ones(2, 3, dtype=m.bool), -1), NotImplementedError,
     "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Bool'"),
    (lambda m: m.ones(2, 3, dtype=m.complex64).log_softmax(0), NotImplementedError,
     "\"log_softmax_kernel_impl\" not implemented for 'ComplexFloat'"),
    (lambda m: m.softmax(m.tensor(3), 0), NotImplementedError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda m: m.softmax(m.ones(2, 3), 1, dtype=m.int64), NotImplementedError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda m: m.softmax(m.tensor(3.0), 1), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda m: m._softmax(m.ones(2, 3), 2, False), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda m: m._softmax(m.ones(2, 3, dtype=m.float16), 1, True), RuntimeError,
     "softmax with half to float conversion is not supported on CPU"),
    (lambda m: m._log_softmax(m.empty(0, 3), 1, True), RuntimeError,
     "softmax with half to float conversion is not supported on CPU"),
    (lambda m: m.softmax(m.ones(2, 3), 1, out=m.empty(2, 3, dtype=m.float64)), RuntimeError,
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda m: m.log_softmax(m.ones(2, 3), 1, dtype=m.float64, out=m.empty(2, 3)), RuntimeError,
     "Expected out tensor to have dtype double, but got float instead"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_error_texts(call, exc, msg):
    with pytest.raises(exc) as e:
        call(jtorch)
    assert str(e.value) == msg


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_error_texts_are_torchs(call, exc, msg):
    torch = oracle_torch()
    with pytest.raises(exc) as e:
        call(torch)
    assert str(e.value) == msg
