"""histogram and histogramdd: against torch (int and tensor bins, range, weight, density, out=, the
named-tuple results, empty input, every check's text) and against NumPy's np.histogram /
np.histogramdd (hypothesis over sizes, dtypes and bins)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

RNG = np.random.default_rng(0)
a = RNG.standard_normal(50).astype(np.float32)
p = RNG.standard_normal((30, 2))
w = RNG.random(50).astype(np.float32)
W30 = RNG.random(30)

CASES = [
    lambda T: T.histogram(T.tensor(a)),
    lambda T: T.histogram(T.tensor(a), 7),
    lambda T: T.histogram(T.tensor(a), 7, range=(-1., 1.)),
    lambda T: T.histogram(T.tensor(a), 7, weight=T.tensor(w), density=True),
    lambda T: T.histogram(T.tensor(a), T.tensor([-2., -0.5, 0, 0.3, 2.])),
    lambda T: T.histogram(T.tensor(a), T.tensor([-2., -0.5, 0, 0.3, 2.]), weight=T.tensor(w), density=True),
    lambda T: T.tensor(a.reshape(5, 10)).histogram(4),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, range=(1., 1.)),
    lambda T: T.histogram(T.tensor([1.,2,3]), T.tensor([3.,2,1])),
    lambda T: T.histogram(T.tensor([], dtype=T.float64), 4),
    lambda T: T.histogram(T.tensor([1,2,3]), 3),
    lambda T: T.histogram(T.tensor([1.,2,3]), 0),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, range=(2., 1.)),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, range=(0., float('inf'))),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, range=(0., 1., 2.)),
    lambda T: T.histogram(T.tensor([1.,2,3]), T.tensor([1.,2], dtype=T.float64)),
    lambda T: T.histogram(T.tensor([1.,2,3]), T.tensor([1,2])),
    lambda T: T.histogram(T.tensor([1.,2,3]), T.tensor([[1.,2]])),
    lambda T: T.histogram(T.tensor([1.,2,3]), T.tensor([])),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, weight=T.ones(2)),
    lambda T: T.histogram(T.tensor([1.,2,3], dtype=T.float64), 3, weight=T.ones(3)),
    lambda T: T.histogramdd(T.tensor(p), 4),
    lambda T: T.histogramdd(T.tensor(p), [3, 5], range=[-1., 1., -2., 2.], density=True),
    lambda T: T.histogramdd(T.tensor(p), [3, 5], weight=T.tensor(W30)),
    lambda T: T.histogramdd(T.tensor(p), [T.tensor([-1., 0., 1.], dtype=T.float64),
                                      T.tensor([-3., 0, 0.5, 3], dtype=T.float64)]),
    lambda T: T.histogramdd(T.tensor([1.,2,3]), 3),
    lambda T: T.histogramdd(T.rand(4, 2), [3]),
    lambda T: T.histogramdd(T.rand(4, 2), [3, 2], range=[0., 1.]),
    lambda T: T.histogramdd(T.rand(4, 2), [3, 2], weight=T.ones(4,1)),
    lambda T: T.histogramdd(T.rand(4, 2), [3, 0]),
    lambda T: T.histogram(T.tensor([1.,2,3]), 3, out=(T.empty(0), T.empty(0))),
]


def _outcome(fn: Any, T: Any) -> Any:
    try:
        out = fn(T)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return (type(e).__name__, str(e))
    parts = []
    for o in out:
        items = o if isinstance(o, (list, tuple)) else [o]
        parts.append([(str(t.dtype).split(".")[-1], np.asarray(t.numpy()).astype(np.float64).round(5).tolist())
                      for t in items])
    return (type(out).__name__, parts)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_matches_torch(i: int) -> None:
    assert _outcome(CASES[i], jtorch) == _outcome(CASES[i], oracle_torch())


def test_cpu_only() -> None:
    with pytest.raises(NotImplementedError) as e:  # torch registers no Meta (nor CUDA) kernel
        jtorch.histogram(jtorch.empty(10, device="meta"), 6, range=(0.0, 1.0))
    assert "aten::histogram.bin_ct" in str(e.value)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(n=st.integers(0, 60), bins=st.integers(1, 9), dtype=st.sampled_from([np.float32, np.float64]),
       weighted=st.booleans(), density=st.booleans(), data=st.data())
def test_histogram_vs_numpy(n: int, bins: int, dtype: Any, weighted: bool, density: bool, data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    x = rng.integers(-5, 6, n).astype(dtype) / 2  # values on the edges too
    wt = rng.random(n).astype(dtype) if weighted else None
    h, e = jtorch.histogram(jtorch.tensor(x), bins, weight=None if wt is None else jtorch.tensor(wt),
                            density=density and n > 0)
    we = np.histogram_bin_edges(x, bins)
    np.testing.assert_allclose(e.numpy(), we.astype(dtype), rtol=1e-6, atol=1e-6)
    # the counts over jtorch's own edges (float32 edges, as torch's linspace makes them, can put a
    # value on the other side of an edge than NumPy's float64 ones)
    wh, _ = np.histogram(x, e.numpy(), weights=wt, density=density and n > 0)
    np.testing.assert_allclose(h.numpy(), wh, rtol=1e-5, atol=1e-6)
    edges = np.sort(rng.standard_normal(bins + 1)).astype(dtype)
    h2, _ = jtorch.histogram(jtorch.tensor(x), jtorch.tensor(edges))
    np.testing.assert_allclose(h2.numpy(), np.histogram(x, edges)[0])


@settings(max_examples=20, deadline=None, derandomize=True)
@given(m=st.integers(1, 40), nd=st.integers(1, 3), data=st.data())
def test_histogramdd_vs_numpy(m: int, nd: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    x = rng.integers(-4, 5, (m, nd)) / 2.0
    bins = [int(b) for b in rng.integers(1, 5, nd)]
    r = jtorch.histogramdd(jtorch.tensor(x), bins)
    wh, we = np.histogramdd(x, bins)
    np.testing.assert_allclose(r.hist.numpy(), wh)
    for g, ww in zip(r.bin_edges, we):
        np.testing.assert_allclose(g.numpy(), ww, rtol=1e-12)
