"""Helpers shared by tests/test_scatter_gather.py, test_index_ops.py and test_masks.py: hypothesis
draws of a tensor (any dtype, 0-dim / empty / size-1 shapes, a layout) with a dim and an index
tensor, a loop reference that lists every contribution to each destination element (so that
sums, products, max/min, means and "one of the values" for duplicates are all checked against
NumPy arithmetic), and error checks against torch where it is installed.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import jtorch
from _elementwise_support import ALL, COMPLEX, FLOATS, INTS, LAYOUTS, REAL, jdtype, random_values, tensor, to_numpy  # noqa: F401

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INDEX_LAYOUTS = ("contiguous", "transposed", "strided")


def rng_from(draw: Callable) -> np.random.Generator:
    return np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))


@st.composite
def shaped(draw: Callable, max_dims: int = 3, max_side: int = 4, min_dims: int = 0) -> tuple:
    return tuple(draw(st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims)))


def values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    """Small values: sums and products of a few stay exact in every dtype."""
    return random_values(rng, np.dtype(dtype), shape, low=-3, high=3)


def jt(a: np.ndarray, layout: str = "contiguous") -> jtorch.Tensor:
    t, held = tensor(a, layout)
    assert np.array_equal(np.asarray(held), a, equal_nan=True) or layout == "expanded"
    return t


def nonempty(shape: tuple) -> tuple:
    return shape if shape else (1,)


def contributions(dst_shape: tuple, dim: int, idx: np.ndarray, src: Any, index_dim_along: bool = False) -> dict:
    """{destination position: [source values in iteration order]} for a scatter along dim
    (idx values already wrapped to be non-negative)."""
    out: dict = {}
    idx = idx.reshape(nonempty(idx.shape)) if idx.ndim == 0 else idx
    for pos in itertools.product(*(range(s) for s in idx.shape)):
        p = list(pos)
        p[dim] = int(idx[pos])
        v = src if np.ndim(src) == 0 else src[pos]
        out.setdefault(tuple(p), []).append(v)
    return out


def reduce_values(start: Any, vals: list, reduce: str, dtype: np.dtype, include_self: bool = True) -> Any:
    acc = list(vals) if not include_self else [start] + list(vals)
    arr = np.array(acc, dtype=dtype)
    with np.errstate(all="ignore"):
        if reduce in ("sum", "add"):
            return arr.sum(dtype=dtype) if dtype.kind != "b" else arr.any()
        if reduce in ("prod", "multiply"):
            return arr.prod(dtype=dtype) if dtype.kind != "b" else arr.all()
        if reduce == "amax":
            return arr.max() if not np.isnan(arr).any() else np.nan if dtype.kind == "f" else arr.max()
        if reduce == "amin":
            return arr.min() if not np.isnan(arr).any() else np.nan if dtype.kind == "f" else arr.min()
        if reduce == "mean":
            s = arr.astype(np.float64 if dtype.kind in "biu" else dtype).sum()
            q = s / len(acc)
            return np.floor(q) if dtype.kind in "iu" else q
    raise ValueError(reduce)


def assert_same(actual: jtorch.Tensor, expected: np.ndarray, tol: bool = False) -> None:
    a = to_numpy(actual)
    expected = np.asarray(expected)
    assert a.shape == expected.shape, (a.shape, expected.shape)
    assert a.dtype == expected.dtype, (a.dtype, expected.dtype)
    if tol and a.dtype.kind in "fc":
        rtol = 1e-2 if a.dtype in (np.float16,) else 1e-5
        np.testing.assert_allclose(a, expected, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, expected)


def torch_error(fn_torch: Callable) -> "tuple[type, str] | None":
    try:
        fn_torch()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


def assert_torch_error(fn_jt: Callable, fn_torch: "Callable | None", typ: type, text: str) -> None:
    """fn_jt raises typ(text) exactly, and torch (where installed) raises the same."""
    with pytest.raises(typ) as info:
        fn_jt()
    assert str(info.value) == text
    if fn_torch is not None:
        try:
            import torch  # noqa: F401
        except ImportError:
            return
        got = torch_error(fn_torch)
        assert got is not None and got[0] is typ and got[1].split(" (Triggered")[0] == text, got
