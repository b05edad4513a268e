"""Helpers shared by tests/test_binary_ops.py and tests/test_comparison_ops.py: dtypes, hypothesis
strategies for broadcastable shapes and layouts, jtorch tensors of any layout over NumPy values,
NumPy references computed as PyTorch computes (in the compute dtype: float16 through float32), and
dtype-aware comparison."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jtorch
from jtorch.tensor import contiguous_strides

BOOL = (np.dtype(np.bool_),)
INTS = tuple(np.dtype(d) for d in (np.uint8, np.int8, np.int16, np.int32, np.int64))
FLOATS = tuple(np.dtype(d) for d in (np.float16, np.float32, np.float64))
COMPLEX = tuple(np.dtype(d) for d in (np.complex64, np.complex128))
REAL = BOOL + INTS + FLOATS
ALL = REAL + COMPLEX
INTEGRAL = BOOL + INTS
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")


def jdtype(d: Any) -> jtorch.dtype:
    return jtorch.dtypes.from_numpy_dtype(np.dtype(d))


def ndtype(d: jtorch.dtype) -> np.dtype:
    return np.dtype(d.numpy)


def compute_dtype(d: np.dtype) -> np.dtype:
    """The dtype CPU kernels compute in: float16 goes through float32, as in PyTorch (opmath)."""
    return np.dtype(np.float32) if d == np.float16 else np.dtype(d)


# ---- values ---------------------------------------------------------------------------------------------
def random_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple, *, low: float = -20, high: float = 20,
                  nonzero: bool = False, specials: bool = False) -> np.ndarray:
    """Values of `dtype` in [low, high] (integers; [0, high] for uint8), floats with a fractional part
    and, with `specials`, some NaN, +-inf and signed zeros."""
    dtype = np.dtype(dtype)
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
        if nonzero:
            x[x == 0] = 1
        return x

    if dtype.kind == "c":
        return (part() + 1j * part()).astype(dtype)
    return part().astype(dtype)


# ---- tensors of any layout ---------------------------------------------------------------------------
def tensor(values: np.ndarray, layout: str = "contiguous") -> tuple[jtorch.Tensor, np.ndarray]:
    """A jtorch tensor holding `values` in `layout`, and the values it holds (an expanded tensor
    repeats its first slice along the expanded dimension, so its values differ from the input)."""
    a = np.asarray(values)
    if layout == "transposed" and a.ndim >= 2:
        t = jtorch.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2)).copy()).transpose(-1, -2)
        return t, a
    if layout == "strided" and a.ndim >= 1 and a.size:
        # every other element of a larger buffer, starting one element in
        buf = np.zeros(2 * a.size + 1, a.dtype)
        buf[1::2] = a.reshape(-1)
        strides = tuple(2 * s for s in contiguous_strides(a.shape))
        return jtorch.from_numpy(buf).as_strided(a.shape, strides, 1), a
    if layout == "expanded":
        dims = [d for d, s in enumerate(a.shape) if s > 1]
        if dims:
            d = dims[0]
            first = np.ascontiguousarray(np.take(a, [0], axis=d))
            return jtorch.from_numpy(first.copy()).expand(*a.shape), np.broadcast_to(first, a.shape).copy()
    return jtorch.from_numpy(np.ascontiguousarray(a).copy()), a


def to_numpy(t: jtorch.Tensor) -> np.ndarray:
    return np.array(t.numpy())


# ---- hypothesis strategies ------------------------------------------------------------------------------
def shapes(num_shapes: int, max_dims: int = 3, max_side: int = 4) -> st.SearchStrategy:
    """Broadcastable input shapes (0-dim and empty included) -> (input shapes, result shape)."""
    return mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=0, max_dims=max_dims, min_side=0,
                                         max_side=max_side).map(lambda r: (r.input_shapes, r.result_shape))


layouts = st.sampled_from(LAYOUTS)
seeds = st.integers(0, 2 ** 32 - 1)


# ---- comparison ------------------------------------------------------------------------------------------
def tolerance(dtype: np.dtype) -> dict:
    dtype = np.dtype(dtype)
    if dtype in (np.float16,):
        return dict(rtol=2e-3, atol=1e-3)
    if dtype in (np.float32, np.complex64):
        return dict(rtol=1e-5, atol=1e-6)
    return dict(rtol=1e-12, atol=1e-14)


def assert_close(actual: np.ndarray, expected: np.ndarray, context: Any = "") -> None:
    """Same dtype and shape; integers and bools exactly, floats within their dtype's tolerance with
    NaN (and infinity) positions matching."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype, context)
    assert actual.shape == expected.shape, (actual.shape, expected.shape, context)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=str(context))
        return
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), equal_nan=True,
                               err_msg=str(context), **tolerance(actual.dtype))


# ---- NumPy references: computed in the compute dtype, the way PyTorch's kernels compute -----------------
def np_errstate() -> Any:
    return np.errstate(all="ignore")


def ref_trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    q = a // b
    return q + ((a % b != 0) & ((a < 0) != (b < 0))).astype(q.dtype)


def ref_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """std::pow for floats; c10's powi for integers (wrapping, negative exponents give 0 or +-1)."""
    if a.dtype.kind not in "biu":
        return np.power(a, b)
    bits = a.dtype.itemsize * 8

    def powi(x: int, y: int) -> int:
        if y < 0:
            return 1 if x == 1 else (-1 if y % 2 else 1) if x == -1 else 0
        r = pow(int(x), int(y), 1 << bits)
        return r - (1 << bits) if a.dtype.kind == "i" and r >= 1 << (bits - 1) else r

    out = np.frompyfunc(powi, 2, 1)(a, b)
    return np.asarray(out, dtype=object).astype(a.dtype) if np.ndim(out) else a.dtype.type(out)


def ref_lerp(a: np.ndarray, b: np.ndarray, w: Any) -> np.ndarray:
    one = np.ones((), dtype=np.result_type(a, w) if np.ndim(w) else a.dtype)
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (one - w))


def ref_clamp(a: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    if lo is not None:
        a = np.maximum(a, lo)
    if hi is not None:
        a = np.minimum(a, hi)
    return a


@dataclass
class Case:
    """One operator as the property tests see it."""

    name: str
    call: Callable[..., jtorch.Tensor]          # call(jtorch, *tensors)
    ref: Callable[..., np.ndarray]               # ref(*arrays in the compute dtype)
    dtypes: Sequence[np.dtype] = ALL
    flavour: str = "binary"                      # binary | float | compare | same
    arity: int = 2
    value_kw: dict = field(default_factory=dict)  # random_values arguments per input: {index: {...}}

    def __repr__(self) -> str:
        return self.name


def common_dtype(flavour: str, tensors: Sequence[jtorch.Tensor]) -> jtorch.dtype:
    """The dtype the operator computes in, by PyTorch's TensorIterator flavours."""
    d = jtorch.result_type(*tensors) if len(tensors) == 2 else jtorch.promotion.result_type_many(*tensors)
    if flavour == "float" and not (d.is_floating_point or d.is_complex):
        d = jtorch.get_default_dtype()
    if flavour == "same":
        d = tensors[0].dtype
    return d


def result_dtype(flavour: str, common: jtorch.dtype) -> jtorch.dtype:
    return jtorch.bool if flavour == "compare" else common


def reference(case: Case, arrays: Sequence[np.ndarray], common: jtorch.dtype) -> np.ndarray:
    """case.ref on the inputs converted to the compute dtype, as the result dtype."""
    cd = compute_dtype(ndtype(common))
    with np_errstate(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = case.ref(*[np.asarray(a).astype(cd) for a in arrays])
    return np.asarray(r).astype(ndtype(result_dtype(case.flavour, common)))
