"""var, std, var_mean and std_mean where they are not finite data of ordinary size computed as torch
computes them: Welford's update in double (std_var_stub) and, for a float/double all-reduce var/std on
the CPU, std_var_all_cpu's mean in the input's dtype with the squared deviations summed in double
(finite data takes two vectorised passes, equal to rounding). Inputs near float32's largest value and
inputs holding inf/-inf/nan give torch's results (order-dependent, as Welford's update is), over
every dim/keepdim/correction form, float32 and float64; against torch (recorded) and NumPy."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _torch_compare import call_matches_torch
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

INF, NAN = float("inf"), float("nan")
ROWS = [
    [3e38, 3e38, 3e38], [3e38, 3.1e38, -3.2e38], [1.0, INF, 2.0], [INF, 1.0, 2.0], [INF, INF, 1.0],
    [INF, -INF, 0.0], [1.0, NAN, 2.0], [-INF, 1.0, 1.0], [1.0, 2.0, 4.0], [1e-30, 2e-30, 0.0],
]


def _forms(T: Any, x: Any) -> list:
    """Every overload family over x (2-D), as the values torch and jtorch compare."""
    out: list = []
    for name in ("var", "std"):
        f = getattr(T, name)
        out += [f(x), f(x, 1), f(x, 0, keepdim=True), f(x, [0, 1]), f(x, None, correction=0),
                f(x, 1, correction=2, keepdim=True), f(x, unbiased=False), f(x, (1,), False, True),
                getattr(x, name)(-1), f(x[0]), f(x[:, 0])]
        g = getattr(T, f"{name}_mean")
        for r in (g(x), g(x, 1), g(x, 0, keepdim=True), g(x, [0, 1], correction=0), g(x, None, correction=2),
                  g(x[0]), g(x, dim=1, unbiased=False)):
            out += list(r)
    return out


def _values(ts: list) -> list:
    return [(t.dtype, np.asarray(t.numpy())) for t in ts]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_extremes_match_torch(dtype: str) -> None:
    # float64 leaves out the rows near 3e38: no sum overflows there, so jtorch's two passes decide, and
    # they agree with Welford's update to rounding (of the order of 1e-16 * 3e38 ** 2), not bit for bit
    a = np.array(ROWS if dtype == "float32" else ROWS[2:], dtype=dtype)
    for x in (a, a.T.copy(), a[:, ::-1].copy()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # degrees of freedom <= 0
            T = oracle_torch()
            want = _values(_forms(T, T.tensor(x)))
            got = _values(_forms(jtorch, jtorch.tensor(x)))
        assert len(got) == len(want)
        for (gd, g), (wd, w) in zip(got, want):
            assert str(gd) == str(wd).replace("torch.", "jtorch.")
            np.testing.assert_allclose(g, w, rtol=1e-6 if dtype == "float32" else 1e-12, equal_nan=True)


def test_huge_float32_mean_is_finite() -> None:
    x = jtorch.full((5, 7), 3.0e38)
    v, m = jtorch.var_mean(x, 1)
    assert np.isfinite(m.numpy()).all() and (v.numpy() == 0).all()
    s, m = jtorch.std_mean(x)
    assert float(m) == pytest.approx(3.0e38, rel=1e-6) and float(s) == 0.0


def test_out_and_meta() -> None:
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)

    def f(T: Any) -> Any:
        out = T.empty(0, dtype=T.float64)
        T.var(T.tensor(a), 1, out=out)
        o0 = T.empty(0)
        T.std(T.tensor(a), 0, keepdim=True, correction=0, out=o0)
        return [out, o0]
    T = oracle_torch()
    for g, w in zip(_values(f(jtorch)), _values(f(T))):
        np.testing.assert_allclose(g[1], w[1], rtol=1e-6)
    v, m = jtorch.var_mean(jtorch.empty(3, 4, device="meta"), 1)
    assert v.shape == (3,) and m.device.type == "meta"


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_mean_pairs_take_no_out(name: str) -> None:
    """torch's Python API has no out= for var_mean / std_mean (their out= overload is generated and left
    unbound): the binding's TypeError, not a result."""
    for call in (lambda T: getattr(T, name)(T.ones(2, 3), 1, out=(T.empty(2), T.empty(2))),
                 lambda T: getattr(T, name)(T.ones(2, 3), out=(T.empty(()), T.empty(())))):
        call_matches_torch(call, name)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=3), dtype=st.sampled_from([np.float32, np.float64]),
       data=st.data(), keepdim=st.booleans(), correction=st.sampled_from([0, 1, 2]))
def test_var_mean_vs_numpy(shape: list, dtype: Any, data: st.DataObject, keepdim: bool, correction: int) -> None:
    seed = data.draw(st.integers(0, 2 ** 31))
    x = (np.random.default_rng(seed).standard_normal(shape) * 1e3 + 5e3).astype(dtype)
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    ax = tuple(dims) if dims else None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        v, m = jtorch.var_mean(jtorch.tensor(x), dims or None, correction=correction, keepdim=keepdim)
        wide = x.astype(np.float64)
        want_m = wide.mean(axis=ax, keepdims=keepdim)
        want_v = wide.var(axis=ax, ddof=correction, keepdims=keepdim)
        n = x.size // max(int(np.prod(np.shape(want_m))), 1) if x.size else 0
        if n - correction <= 0:
            want_v = np.where(np.asarray(want_v) == want_v, np.inf, np.nan) if n else np.full_like(want_v, np.nan)
    assert v.shape == np.shape(want_m) and v.dtype == m.dtype
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(m.numpy(), np.asarray(want_m).astype(dtype), rtol=tol, equal_nan=True)
    if n - correction > 0:
        np.testing.assert_allclose(v.numpy(), np.asarray(want_v).astype(dtype), rtol=tol * 10, atol=tol,
                                   equal_nan=True)
