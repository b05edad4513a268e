"""Hypothesis strategies for property tests of tensor code against NumPy: the ones jtorch's own
tests use (tests/_elementwise_support.py, tests/_reduction_support.py build on them).

    from hypothesis import given
    from jtorch.testing import strategies as jst

    @given(jst.tensors(dtype=jst.dtypes(complex=False), shape=jst.shapes(max_dims=3)))
    def test_neg(t):
        np.testing.assert_array_equal((-t).numpy(), -t.numpy())

What they reach: every dtype jtorch has (by kind); shapes with 0 dims (0-dim tensors), empty and
size-1 sides; broadcastable shape tuples (hypothesis' mutually_broadcastable_shapes); layouts that
are not contiguous (transposed, every other element of a larger buffer, expanded with a zero
stride); Python scalars of a dtype's kind. Requires hypothesis (an optional dependency of jtorch:
`jtorch.testing` itself does not import it).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jtorch
from jtorch.geometry import contiguous_strides

# dtypes by kind, in a fixed order (sampled_from's order decides what derandomized runs draw)
BOOL = (jtorch.bool,)
INTEGRAL = (jtorch.uint8, jtorch.int8, jtorch.int16, jtorch.int32, jtorch.int64)
FLOATING = (jtorch.float16, jtorch.float32, jtorch.float64)
COMPLEX = (jtorch.complex64, jtorch.complex128)
ALL_DTYPES = BOOL + INTEGRAL + FLOATING + COMPLEX
# contiguous; transposed (last two dims swapped, for 2+ dims); strided (every other element of a
# larger buffer, offset 1); expanded (the first dim of size > 1 broadcast from one slice: stride 0)
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")


def numpy_dtype(dtype: jtorch.dtype) -> np.dtype:
    return np.dtype(dtype.numpy)


def dtypes(*, bool: bool = True, integral: bool = True, floating: bool = True,
           complex: bool = True) -> st.SearchStrategy:
    """jtorch dtypes of the kinds asked for."""
    chosen = ((BOOL if bool else ()) + (INTEGRAL if integral else ()) + (FLOATING if floating else ())
              + (COMPLEX if complex else ()))
    if not chosen:
        raise ValueError("dtypes(): no kind of dtype selected")
    return st.sampled_from(chosen)


def shapes(*, min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 5) -> st.SearchStrategy:
    """Shapes as tuples: min_dims=0 reaches 0-dim tensors, min_side=0 empty ones."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def broadcastable_shapes(num_shapes: int = 2, *, min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
                         max_side: int = 4) -> st.SearchStrategy:
    """(input shapes, broadcast result shape): `num_shapes` shapes that broadcast together (0-dim,
    empty and size-1 sides included)."""
    return mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=min_dims, max_dims=max_dims,
                                         min_side=min_side, max_side=max_side
                                         ).map(lambda r: (r.input_shapes, r.result_shape))


def layouts(choices: Sequence[str] = LAYOUTS) -> st.SearchStrategy:
    return st.sampled_from(tuple(choices))


def seeds() -> st.SearchStrategy:
    """Seeds for np.random.default_rng: values come from NumPy's generator (fast for any size),
    hypothesis chooses the seed (so a failure replays)."""
    return st.integers(0, 2 ** 32 - 1)


def scalars(dtype: jtorch.dtype, *, allow_nan: bool = False, allow_infinity: bool = False) -> st.SearchStrategy:
    """Python numbers of `dtype`'s kind (bool, int in the dtype's range, float, complex), as a
    Python program passes them to an operator (wrapped numbers)."""
    if dtype is jtorch.bool:
        return st.booleans()
    if not (dtype.is_floating_point or dtype.is_complex):
        info = jtorch.iinfo(dtype)
        return st.integers(info.min, info.max)
    width: Literal[16, 32, 64] = 16 if dtype is jtorch.float16 else 32 if dtype in (jtorch.float32, jtorch.complex64) \
        else 64
    if dtype.is_complex:  # 2 * a float width: 64 or 128
        return st.complex_numbers(allow_nan=allow_nan, allow_infinity=allow_infinity,
                                  width=2 * width)  # type: ignore[arg-type]  # see above
    return st.floats(allow_nan=allow_nan, allow_infinity=allow_infinity, width=width)


# ---- values and layouts (plain functions: the strategies below use them, tests call them too) ----
def random_values(rng: np.random.Generator, dtype: Any, shape: tuple, *, low: float = -20, high: float = 20,
                  nonzero: bool | str = False, specials: bool = False) -> np.ndarray:
    """Values of `dtype` (a NumPy or jtorch dtype) in [low, high]: integers ([0, high] unsigned),
    floats with a fractional part and, with `specials`, some NaN, +-inf and signed zeros. `nonzero`
    replaces zeros by ones (in integer and bool dtypes only when it is "integral")."""
    dtype = numpy_dtype(dtype) if isinstance(dtype, jtorch.dtype) else np.dtype(dtype)
    if dtype == np.bool_:
        a = rng.integers(0, 2, shape).astype(bool)
        return np.ones(shape, bool) if nonzero else a
    if dtype.kind in "ui":
        lo = max(int(low), 0) if dtype.kind == "u" else int(low)
        a = rng.integers(lo, int(high) + 1, shape).astype(dtype)
        if nonzero:
            a[a == 0] = 1
        return a
    real = np.float32 if dtype in (np.float16, np.complex64) else np.float64

    def part() -> np.ndarray:
        x = rng.uniform(low, high, shape).astype(real)
        if specials and x.size:
            pick = rng.integers(0, 8, shape)
            x = np.where(pick == 0, rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], real), shape), x)
        if nonzero is True:
            x[x == 0] = 1
        return x

    with np.errstate(all="ignore"):  # inf * 1j
        return (part() + 1j * part()).astype(dtype) if dtype.kind == "c" else part().astype(dtype)


def _c_array(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy (np.ascontiguousarray would turn a 0-dim array into a 1-dim one)."""
    return np.array(a, order="C", copy=True)


def with_layout(values: Any, layout: str = "contiguous") -> tuple[jtorch.Tensor, np.ndarray]:
    """A jtorch tensor holding `values` in `layout` (see LAYOUTS; a layout the shape cannot have
    falls back to contiguous), and the values it holds: an expanded tensor repeats its first slice
    along the expanded dim, so its values differ from `values`."""
    a = np.asarray(values)
    if layout == "transposed" and a.ndim >= 2:
        return jtorch.from_numpy(_c_array(np.swapaxes(a, -1, -2))).transpose(-1, -2), a
    if layout == "strided" and a.ndim >= 1 and a.size:
        buf = np.zeros(2 * a.size + 1, a.dtype)
        buf[1::2] = a.reshape(-1)
        strides = tuple(2 * s for s in contiguous_strides(a.shape))
        return jtorch.from_numpy(buf).as_strided(a.shape, strides, 1), a
    if layout == "expanded":
        dims = [d for d, s in enumerate(a.shape) if s > 1]
        if dims:
            first = _c_array(np.take(a, [0], axis=dims[0]))
            return jtorch.from_numpy(first.copy()).expand(*a.shape), np.broadcast_to(first, a.shape).copy()
    return jtorch.from_numpy(_c_array(a)), a


@st.composite
def tensors(draw: Any, dtype: jtorch.dtype | st.SearchStrategy | None = None,
            shape: tuple | st.SearchStrategy | None = None, layout: str | st.SearchStrategy | None = None,
            **value_options: Any) -> jtorch.Tensor:
    """A jtorch tensor: dtype (default: any), shape (default: shapes()), layout (default: any of
    LAYOUTS), values from random_values(**value_options) (low, high, nonzero, specials). Its
    values as NumPy sees them: `t.numpy()`."""
    dtype = draw(dtype if isinstance(dtype, st.SearchStrategy) else dtypes() if dtype is None else st.just(dtype))
    shape = draw(shape if isinstance(shape, st.SearchStrategy) else shapes() if shape is None else st.just(shape))
    layout = draw(layout if isinstance(layout, st.SearchStrategy) else layouts() if layout is None
                  else st.just(layout))
    rng = np.random.default_rng(draw(seeds()))
    values = random_values(rng, dtype, tuple(shape), **value_options)  # type: ignore[arg-type]  # drawn by now
    return with_layout(values, layout)[0]  # type: ignore[arg-type]  # as above
