"""cov and corrcoef: against torch (correction, fweights, aweights, 0-1-2-D and integer inputs,
gradients, error texts, the degrees-of-freedom warning) and against NumPy's np.cov / np.corrcoef
(hypothesis over shapes, dtypes and weights)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 6)).astype(np.float32)
FW = np.array([1, 2, 0, 3, 1, 1])
AW = RNG.random(6)


def _same(fn: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        want = np.asarray(fn(oracle_torch()).numpy())
        got = np.asarray(fn(jtorch).numpy())
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


VALUES = [
    lambda T: T.cov(T.tensor(A)),
    lambda T: T.cov(T.tensor(A), correction=0, fweights=T.tensor(FW)),
    lambda T: T.cov(T.tensor(A), fweights=T.tensor(FW), aweights=T.tensor(AW)),
    lambda T: T.cov(T.tensor(A, dtype=T.float64), correction=2, aweights=T.tensor(AW, dtype=T.float32)),
    lambda T: T.cov(T.tensor(A[0])),
    lambda T: T.cov(T.tensor(3.5)),
    lambda T: T.cov(T.tensor([[1, 2, 3], [4, 1, 0]])),
    lambda T: T.tensor(A).cov(correction=7),
    lambda T: T.cov(T.zeros(2, 0)),
    lambda T: T.corrcoef(T.tensor(A)),
    lambda T: T.corrcoef(T.tensor(A[0])),
    lambda T: T.tensor([[1, 2, 3], [3, 2, 1], [1, 1, 1]]).corrcoef(),
]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_values_match_torch(i: int) -> None:
    _same(VALUES[i])


def test_grad_and_warning() -> None:
    def grad(T: Any) -> Any:
        x = T.tensor(A.astype(np.float64), requires_grad=True)
        (T.cov(x, aweights=T.tensor(AW)) * T.arange(9.).reshape(3, 3)).sum().backward()
        return x.grad
    _same(grad)

    def corr_grad(T: Any) -> Any:
        x = T.tensor(A.astype(np.float64), requires_grad=True)
        T.corrcoef(x)[0, 1].backward()
        return x.grad
    _same(corr_grad)
    with pytest.warns(UserWarning, match=r"cov\(\): degrees of freedom is <= 0. Correction should be strictly less "
                                         r"than the number of observations."):
        r = jtorch.cov(jtorch.tensor(A), correction=6)
    assert np.isinf(r.numpy()).all()


ERRORS = [
    lambda T: T.cov(T.ones(2, 2, 2)),
    lambda T: T.cov(T.ones(2, 2, dtype=T.bool)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(3)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(2, dtype=T.long)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, -1, 1])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(1, 3, dtype=T.long)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.ones(3, dtype=T.long)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.ones(4)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.zeros(3)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1., -1, 1])),
    lambda T: T.corrcoef(T.ones(2, 2, 2)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i: int) -> None:
    with pytest.raises(RuntimeError) as want:
        ERRORS[i](oracle_torch())
    with pytest.raises(RuntimeError) as got:
        ERRORS[i](jtorch)
    assert str(got.value) == str(want.value)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(rows=st.integers(1, 4), cols=st.integers(2, 7), dtype=st.sampled_from([np.float32, np.float64, np.int64]),
       weights=st.sampled_from(["none", "f", "a", "fa"]), ddof=st.integers(0, 1), data=st.data())
def test_vs_numpy(rows: int, cols: int, dtype: Any, weights: str, ddof: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    x = (rng.standard_normal((rows, cols)) * 10).astype(dtype)
    fw = rng.integers(1, 4, cols) if "f" in weights else None
    aw = rng.random(cols) + 0.1 if "a" in weights else None
    got = jtorch.cov(jtorch.tensor(x), correction=ddof, fweights=None if fw is None else jtorch.tensor(fw),
                     aweights=None if aw is None else jtorch.tensor(aw)).numpy()
    want = np.cov(x, ddof=ddof, fweights=fw, aweights=aw)
    tol = 1e-4 if got.dtype == np.float32 else 1e-9  # an integer input gives the default dtype, as in torch
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if weights == "none" and dtype != np.int64:
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(jtorch.corrcoef(jtorch.tensor(x)).numpy(), np.clip(np.corrcoef(x), -1, 1),
                                       rtol=tol * 10, atol=tol * 10, equal_nan=True)
