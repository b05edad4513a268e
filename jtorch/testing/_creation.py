"""`jtorch.testing.make_tensor`: torch.testing.make_tensor's arguments, defaults, clamping and
errors; values drawn uniformly from [low, high) by jtorch's generator."""
from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any

import jtorch

_INTEGRAL = (jtorch.uint8, jtorch.int8, jtorch.int16, jtorch.int32, jtorch.int64)
_BOOL_OR_INTEGRAL = (jtorch.bool, *_INTEGRAL)
_FLOATING = (jtorch.float16, jtorch.float32, jtorch.float64)
_COMPLEX = (jtorch.complex64, jtorch.complex128)
_FLOATING_OR_COMPLEX = (*_FLOATING, *_COMPLEX)
_REAL_OF = {jtorch.complex64: jtorch.float32, jtorch.complex128: jtorch.float64}


def _low_high(dtype: jtorch.dtype, low: Any, high: Any, lowest: float, highest: float, default_low: float,
              default_high: float) -> tuple:
    """torch's modify_low_high: defaults, NaN and order checks, clamping to what the dtype holds
    (integers round up: [low, high) of reals holds the integers [ceil(low), ceil(high)))."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
    if low == high and dtype in _FLOATING_OR_COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(shape: tuple, dtype: jtorch.dtype, device: Any, low: float, high: float) -> jtorch.Tensor:
    t = jtorch.empty(shape, dtype=dtype, device=device)
    if high - low >= jtorch.finfo(dtype).max:  # the width would overflow: draw half of it, then double
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape: Any, dtype: jtorch.dtype, device: Any, low: float | None = None,
                high: float | None = None, requires_grad: bool = False, noncontiguous: bool = False,
                exclude_zero: bool = False, memory_format: Any = None) -> jtorch.Tensor:
    """A tensor of `shape` filled with values drawn uniformly from [low, high) (torch.testing.make_tensor):
    defaults by dtype (bool [0, 2), uint8 [0, 10), signed [-9, 10), floating and complex [-9, 9)),
    bounds clamped to the dtype's range, `noncontiguous` (every other element of the last dim, for
    tensors of 2+ elements), `exclude_zero` (zeros become 1 or the dtype's tiny), `memory_format`."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]  # type: ignore[assignment]  # make_tensor((2, 3), ...)
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous!r} and memory_format={memory_format!r}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is jtorch.bool:
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2)
        result = jtorch.randint(low, high, shape, device=device, dtype=dtype)  # type: ignore[arg-type]  # ints
    elif dtype in _INTEGRAL:
        info = jtorch.iinfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max + (dtype is not jtorch.int64), -9, 10)
        result = jtorch.randint(low, high, shape, device=device, dtype=dtype)  # type: ignore[arg-type]  # ints
    elif dtype in _FLOATING_OR_COMPLEX:
        real = _REAL_OF.get(dtype, dtype)
        info = jtorch.finfo(dtype)  # type: ignore[assignment]  # this branch's finfo
        low, high = _low_high(dtype, low, high, info.min, info.max, -9, 9)
        result = _uniform(shape, real, device, low, high)
        if dtype in _COMPLEX:  # real and imaginary parts each uniform in [low, high), as torch draws them
            result = result + _uniform(shape, real, device, low, high) * 1j
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else jtorch.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result
