"""Helpers shared by the tests/test_reductions_*.py files: dtypes, hypothesis strategies for shapes
(0-dim, empty and size-1 dims included), reduced dims (negative, lists, None) and layouts, NumPy
references computed the way PyTorch computes (integers and bools summed in int64, float16 through
float32), and comparisons with a tolerance suited to the dtype and the number of reduced elements.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import jtorch
from jtorch.testing import strategies as jst
from _elementwise_support import ALL, BOOL, COMPLEX, FLOATS, INTS, LAYOUTS, REAL, jdtype, tensor  # noqa: F401
from _torch_oracle import oracle_torch

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INEXACT = FLOATS + COMPLEX
NO_COMPLEX = REAL
RESIZE_WARNING = "An output with one or more elements was resized"


# ---- strategies ---------------------------------------------------------------------------------
def shapes(max_dims: int = 4, max_side: int = 5, min_side: int = 0) -> st.SearchStrategy:
    return jst.shapes(max_dims=max_dims, max_side=max_side, min_side=min_side)


@st.composite
def dims_for(draw: Callable, ndim: int, single: bool = False, allow_none: bool = True) -> Any:
    """None, one dim (maybe negative), or a tuple of distinct dims (maybe negative, maybe empty)."""
    n = max(ndim, 1)
    one = st.integers(-n, n - 1)
    if single:
        return draw(one)
    kinds = ["int", "tuple"] + (["none"] if allow_none else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":
        return draw(one)
    if ndim == 0:
        return draw(st.sampled_from([(), (0,), (-1,)]))
    picked = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    return tuple(d - n if draw(st.booleans()) else d for d in picked)


def axes(dim: Any, ndim: int) -> "tuple[int, ...] | None":
    """NumPy's axis for a torch dim argument: None / () reduce everything."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims or ndim == 0:
        return None
    return tuple(sorted(d % ndim for d in dims))


def values(rng: np.random.Generator, dtype: np.dtype, shape: tuple, *, specials: bool = False,
           low: float = -4, high: float = 4, small_ints: bool = True) -> np.ndarray:
    """Values of `dtype`: small integers (so products stay exact), floats with a fractional part,
    and with `specials` some NaN and infinities; bools half True."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else int(low)
        return rng.integers(lo, int(high) + 1, shape).astype(dtype)
    real = np.float32 if dtype in (np.float16, np.complex64) else np.float64

    def part() -> np.ndarray:
        x = rng.uniform(low, high, shape).astype(real)
        if specials and x.size:
            pick = rng.integers(0, 10, shape)
            x = np.where(pick == 0, rng.choice(np.array([np.nan, np.inf, -np.inf], real), shape), x)
        return x

    with np.errstate(all="ignore"):
        return (part() + 1j * part()).astype(dtype) if dtype.kind == "c" else part().astype(dtype)


# ---- tensors ------------------------------------------------------------------------------------
def make(a: np.ndarray, layout: str = "contiguous") -> "tuple[jtorch.Tensor, np.ndarray]":
    """A jtorch tensor holding `a` in `layout` and the values it holds (see _elementwise_support)."""
    return tensor(a, layout)


def np_of(t: jtorch.Tensor) -> np.ndarray:
    return np.array(t.numpy())


def meta_like(t: jtorch.Tensor) -> jtorch.Tensor:
    return jtorch.empty(t.shape, dtype=t.dtype, device="meta")


def wider(dtype: np.dtype) -> np.dtype:
    """The dtype PyTorch accumulates in on the CPU, for the NumPy reference."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        return np.dtype(np.int64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


# ---- comparison ---------------------------------------------------------------------------------
def tolerance(dtype: np.dtype, n: int) -> dict:
    """rtol/atol for a result of `dtype` reduced from `n` elements (the reference is exact-ish)."""
    dtype = np.dtype(dtype)
    eps = {2: 1e-3, 4: 1.2e-7, 8: 2.3e-16, 16: 2.3e-16}[dtype.itemsize if dtype.kind != "c" else dtype.itemsize // 2]
    k = max(n, 1)
    return dict(rtol=eps * (8 + 2 * np.log2(k + 1)), atol=eps * 4 * k)


def assert_close(actual: Any, expected: Any, n: int = 1, context: Any = "") -> None:
    """Same dtype and shape; integers and bools exactly; floats within the tolerance for `n`
    reduced elements, NaN and infinities where the reference has them."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype, context)
    assert actual.shape == expected.shape, (actual.shape, expected.shape, context)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=str(context))
        return
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), equal_nan=True, err_msg=str(context),
                               **tolerance(actual.dtype, n))


def reduced_count(shape: tuple, dim: Any) -> int:
    ax = axes(dim, len(shape))
    if ax is None:
        return int(np.prod(shape)) if shape else 1
    return int(np.prod([shape[d] for d in ax]))


def check_out_resize(fn: Callable[..., jtorch.Tensor], expected: np.ndarray, dtype: jtorch.dtype, n: int) -> None:
    """fn(out=...) into a non-empty out= of the wrong shape: resized with PyTorch's warning, result
    returned, values right."""
    wrong = tuple(s + 1 for s in expected.shape) or (2,)
    out = jtorch.zeros(wrong, dtype=dtype)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn(out=out)
    assert r is out
    assert any(RESIZE_WARNING in str(x.message) for x in w), [str(x.message) for x in w]
    assert_close(np_of(out), expected, n)


# ---- errors, compared with torch where installed -------------------------------------------------
def torch_or_none() -> Any:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is an optional oracle
        return None
    return torch


def check_same_error_as_torch(call: Callable[[Any], Any]) -> None:
    """call(jtorch) raises what call(torch) raises: the same type and text (torch required)."""
    torch = oracle_torch()
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(jtorch)
    assert str(got.value) == str(want.value)


def check_error(fn: Callable[[Any], Any], exc: type, text: str) -> None:
    """fn(jtorch) raises exc with exactly `text`; fn(torch), where installed, raises the same."""
    with pytest.raises(exc) as e:
        fn(jtorch)
    assert str(e.value) == text, str(e.value)
    torch = torch_or_none()
    if torch is not None:
        with pytest.raises(exc) as te:
            fn(torch)
        assert str(te.value).split("\n")[0] == text, str(te.value)
