"""torch.gradient: every overload (unit, scalar, list-of-scalars and coordinate-tensor spacing; dim as
an int or a list; edge_order 1 and 2) against torch (values, dtypes, tuple results, error texts,
autograd through it) and against NumPy's np.gradient (hypothesis over shapes and dtypes)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 5)).astype(np.float32)
C0, C1 = np.array([0.0, 1.0, 3.0, 3.5]), np.array([0.0, 0.5, 1.0, 2.0, 4.0])

VALUES = [
    lambda T: T.gradient(T.tensor(A)),
    lambda T: T.gradient(T.tensor(A), spacing=2.0),
    lambda T: T.gradient(T.tensor(A), spacing=2.0, dim=1),
    lambda T: T.gradient(T.tensor(A), dim=1, edge_order=2),
    lambda T: T.gradient(T.tensor(A), dim=[0, 1], edge_order=2),
    lambda T: T.gradient(T.tensor(A), spacing=[2.0, 3], edge_order=2),
    lambda T: T.gradient(T.tensor(A), spacing=[3.0], dim=[1]),
    lambda T: T.gradient(T.tensor(A), spacing=2, dim=[0]),
    lambda T: T.gradient(T.tensor(A), spacing=(T.tensor(C0), T.tensor(C1))),
    lambda T: T.gradient(T.tensor(A), spacing=(T.tensor(C0, dtype=T.float32), T.tensor(C1, dtype=T.float32)),
                         edge_order=2),
    lambda T: T.gradient(T.tensor(A), spacing=[T.tensor(C1)], dim=1, edge_order=2),
    lambda T: T.gradient(T.tensor(A), spacing=[T.tensor(C1)], dim=[-1]),
    lambda T: T.gradient(T.tensor([1, 4, 9, 16])),
    lambda T: T.gradient(T.tensor([1.0, 4.0, 9.0], dtype=T.float64), edge_order=2),
]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_values_match_torch(i: int) -> None:
    want, got = VALUES[i](oracle_torch()), VALUES[i](jtorch)
    assert type(got) is tuple and len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w.numpy())
        assert g.numpy().dtype == w.dtype
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)


def test_autograd_through_gradient() -> None:
    def f(T: Any) -> Any:
        x = T.tensor(A.astype(np.float64), requires_grad=True)
        gx, gy = T.gradient(x, spacing=(T.tensor(C0), T.tensor(C1)), edge_order=2)
        (gx * T.arange(20.).reshape(4, 5) + gy).sum().backward()
        return x.grad
    np.testing.assert_allclose(f(jtorch).numpy(), np.asarray(f(oracle_torch()).numpy()), rtol=1e-10)


ERRORS = [
    lambda T: T.gradient(T.tensor([1, 4, 9, 16], dtype=T.uint8)),
    lambda T: T.gradient(T.tensor(A), spacing=[1.0, 2, 3]),
    lambda T: T.gradient(T.tensor(A), spacing=[1.0, 2], dim=[0]),
    lambda T: T.gradient(T.tensor(A), edge_order=3),
    lambda T: T.gradient(T.tensor([1.0, 2.0]), edge_order=2),
    lambda T: T.gradient(T.tensor(A), dim=[0, 0]),
    lambda T: T.gradient(T.tensor(A), spacing=[T.ones(2, 2)], dim=[0]),
    lambda T: T.gradient(T.tensor(A), dim=5),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i: int) -> None:
    with pytest.raises(Exception) as want:
        ERRORS[i](oracle_torch())
    with pytest.raises(type(want.value)) as got:
        ERRORS[i](jtorch)
    assert str(got.value) == str(want.value)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(3, 6), min_size=1, max_size=3), dtype=st.sampled_from([np.float32, np.float64]),
       edge_order=st.sampled_from([1, 2]), kind=st.sampled_from(["unit", "scalar", "coords"]), data=st.data())
def test_vs_numpy(shape: list, dtype: Any, edge_order: int, kind: str, data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    x = rng.standard_normal(shape).astype(dtype)
    if kind == "unit":
        got, want = jtorch.gradient(jtorch.tensor(x), edge_order=edge_order), np.gradient(x, edge_order=edge_order)
    elif kind == "scalar":
        got = jtorch.gradient(jtorch.tensor(x), spacing=0.5, edge_order=edge_order)
        want = np.gradient(x, 0.5, edge_order=edge_order)
    else:
        coords = [np.cumsum(rng.random(n) + 0.5).astype(dtype) for n in shape]
        got = jtorch.gradient(jtorch.tensor(x), spacing=[jtorch.tensor(c) for c in coords], edge_order=edge_order)
        want = np.gradient(x, *coords, edge_order=edge_order)
    want = [want] if isinstance(want, np.ndarray) else want
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=tol, atol=tol * 10)
