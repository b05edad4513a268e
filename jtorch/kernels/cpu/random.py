"""The CPU random kernels: each fills t (any strides) with samples (CPUBackend.uniform, ...).

The caller (the backend-neutral sampler kernels of jtorch.native.random) has checked the
arguments; this applies the transformation ATen applies to its random bits (`uniform_real`:
`digits` random bits scaled to [0, 1); `random_from_to`: integers modulo the range), the bits
coming from the Generator's NumPy PCG64 rather than PyTorch's mt19937: distributions match
PyTorch, the streams do not.

The functions and their parameters are the contract's random methods (jtorch/backends.py),
each taking the Generator's NumPy stream in place of the generator.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...scalar import bfloat16_round, float32_to_bfloat16_bits
from .host import numpy_view

DIGITS = {_dt.float16: 11, _dt.float32: 24, _dt.float64: 53,  # std::numeric_limits<T>::digits
          _dt.bfloat16: 8}


def _to(d: _dt.dtype, values: np.ndarray) -> np.ndarray:
    """values cast to d's storage (bfloat16: float32 rounded to nearest even, as its bit patterns)."""
    if d is _dt.bfloat16:
        return float32_to_bfloat16_bits(values.astype(np.float32)).view(d.numpy)
    return values.astype(d.numpy)


def _acc(d: _dt.dtype) -> type:
    """dist_acctype: float for half and float, double for double."""
    return np.float64 if d is _dt.float64 else np.float32


def _write(t: Any, values: np.ndarray) -> None:
    """Store `values` (numel of them, C order) into t."""
    numpy_view(t)[...] = values.reshape(t._size)


def _uniform_values(rng: np.random.Generator, n: int, d: _dt.dtype, from_: float, to: float) -> np.ndarray:
    """transformation::uniform_real: `digits` random bits -> x in [0, 1), then x * (to - from) + from."""
    digits = DIGITS[d]
    acc = _acc(d)
    bits = rng.integers(0, 1 << digits, size=n, dtype=np.int64)
    x = bits.astype(acc) * acc(2.0 ** -digits)
    t = (lambda v: bfloat16_round(np.float32(v))) if d is _dt.bfloat16 else d.numpy.type
    with np.errstate(over="ignore"):
        span = acc(t(to) - t(from_))  # computed in scalar_t, as ATen does
        return _to(d, x * span + acc(t(from_)))


def _normal_values(rng: np.random.Generator, n: int, d: _dt.dtype, mean: float, std: float) -> np.ndarray:
    acc = _acc(d)
    z = rng.standard_normal(n, dtype=acc)
    with np.errstate(over="ignore"):
        return _to(d, z * acc(std) + acc(mean))


def _complex(t: Any, sample: Callable[[int, _dt.dtype], np.ndarray]) -> None:
    """view_as_real: a complex tensor's two parts drawn as 2 * numel reals."""
    d = t.dtype
    vals = sample(2 * t.numel(), d.to_real())
    _write(t, vals[0::2] + 1j * vals[1::2].astype(d.numpy))


def uniform(t: Any, rng: np.random.Generator, from_: float, to: float) -> None:
    if t.dtype.is_complex:
        _complex(t, lambda n, r: _uniform_values(rng, n, r, from_, to))
    else:
        _write(t, _uniform_values(rng, t.numel(), t.dtype, from_, to))


def normal(t: Any, rng: np.random.Generator, mean: float, std: float) -> None:
    if t.dtype.is_complex:  # each part gets half the variance
        _complex(t, lambda n, r: _normal_values(rng, n, r, mean, std / math.sqrt(2)))
    else:
        _write(t, _normal_values(rng, t.numel(), t.dtype, mean, std))


def exponential(t: Any, rng: np.random.Generator, lambd: float) -> None:
    acc = _acc(t.dtype)
    z = rng.standard_exponential(t.numel(), dtype=acc)
    _write(t, _to(t.dtype, z / acc(lambd)))


def random_from_to(t: Any, rng: np.random.Generator, from_: int, range_: int) -> None:
    """from + (random % range) for every element, in uint64 arithmetic as ATen's random_from_to."""
    n = t.numel()
    if range_ <= 2 ** 63:
        u = rng.integers(0, range_, size=n, dtype=np.int64).astype(np.uint64)
    else:
        u = rng.integers(0, range_, size=n, dtype=np.uint64)
    vals = (np.uint64(from_ % 2 ** 64) + u).view(np.int64)  # wraps like the C++ unsigned sum
    _write(t, _to(t.dtype, vals))


def bernoulli_scalar(t: Any, rng: np.random.Generator, p: float) -> None:
    _write(t, _to(t.dtype, rng.random(t.numel()) < p))


def bernoulli_tensor(t: Any, rng: np.random.Generator, p: Any) -> None:
    pv = np.broadcast_to(numpy_view(p), t._size).astype(np.float64).reshape(-1)
    if not ((pv >= 0) & (pv <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    _write(t, _to(t.dtype, rng.random(t.numel()) < pv))
