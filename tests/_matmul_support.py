"""Helpers shared by tests/test_matmul.py and tests/test_einsum.py: operands of any dtype and
layout, NumPy references (float64 / complex128 for floating types, wrapping int64 for integers)
and a comparison whose tolerance follows the dtype and the length of the sums."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import jtorch
from _elementwise_support import COMPLEX, FLOATS, INTS, jdtype, random_values, tensor

NUMERIC = INTS + FLOATS + COMPLEX  # every dtype torch's CPU matrix products take (bool is refused)
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")

_UNIT_ROUNDOFF = {np.dtype(np.float16): 2.0 ** -11, np.dtype(np.float32): 2.0 ** -24,
                  np.dtype(np.float64): 2.0 ** -53, np.dtype(np.complex64): 2.0 ** -24,
                  np.dtype(np.complex128): 2.0 ** -53}


def values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    """Random values; integers over the whole range of narrow types, so products wrap."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and dtype.itemsize <= 2:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    return random_values(rng, dtype, shape, low=-4, high=4)


def operand(rng: np.random.Generator, dtype: np.dtype, shape: tuple, layout: str) -> tuple[jtorch.Tensor, np.ndarray]:
    """A jtorch tensor of `shape` in `layout` and the values it holds."""
    return tensor(values(rng, dtype, shape), layout)


def wide(a: np.ndarray) -> np.ndarray:
    """The reference dtype: complex128, float64, or int64 (which wraps like the narrow types)."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64 if a.dtype.kind == "f" else np.int64)


def check(actual: Any, dtype: np.dtype, ref: Callable[..., np.ndarray], arrays: list, terms: int,
          context: Any = "", magnitude: "Callable[..., np.ndarray] | None" = None, rounded_steps: int = 1) -> None:
    """actual (a jtorch tensor or an array) against ref(*wide arrays): integers exactly (modulo the
    dtype's width); floating types within the rounding-error bound of a sum of `terms` products,
    |error| <= (terms + 2) * u * magnitude(*|arrays|) (magnitude: ref with |scalars|, by default
    ref itself), plus `rounded_steps` roundings to the dtype for float16 (one: the result)."""
    dtype = np.dtype(dtype)
    got = np.asarray(actual.detach().numpy() if isinstance(actual, jtorch.Tensor) else actual)
    assert got.dtype == dtype, (got.dtype, dtype, context)
    expected = ref(*[wide(a) for a in arrays])
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected), context)
    if dtype.kind in "iu":
        np.testing.assert_array_equal(got, np.asarray(expected).astype(dtype), err_msg=str(context))
        return
    u = _UNIT_ROUNDOFF[dtype]
    compute_u = 2.0 ** -24 if dtype == np.float16 else u  # float16 sums in float32
    mag = np.abs((magnitude or ref)(*[np.abs(wide(a)) for a in arrays]))
    bound = (terms + 2) * compute_u * mag * (4 if dtype.kind == "c" else 1)
    if dtype == np.float16:
        bound = bound + rounded_steps * 2 * u * mag
    got_w = got.astype(expected.dtype)
    with np.errstate(invalid="ignore"):
        err = np.where(got_w == expected, 0.0, np.abs(got_w - expected))  # equal infinities are no error
    assert np.all(err <= bound + 1e-300), (context, float(np.max(err - bound)) if err.size else 0.0)


def dtype_ids(d: np.dtype) -> str:
    return np.dtype(d).name


def jt(d: np.dtype) -> jtorch.dtype:
    return jdtype(d)
