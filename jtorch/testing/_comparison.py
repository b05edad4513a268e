"""`jtorch.testing.assert_close`: torch.testing.assert_close's rules and message texts.

The inputs are walked as torch walks them: sequences (not strings) and mappings pairwise, then
each leaf pair is compared by the first kind that takes it: None, booleans (bool, np.bool_),
numbers (int, float, complex, NumPy numbers), tensor-likes (tensors; anything `as_tensor` takes,
NumPy arrays included, when both sides are of related types). The first failing pair raises.
Values are compared with `jtorch.isclose`, so the comparison is the operator users test.
"""
from __future__ import annotations

import cmath
import collections.abc
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

import numpy as np

import jtorch

Msg: TypeAlias = "str | Callable[[str], str] | None"

# torch.testing's default tolerances {dtype: (rtol, atol)}; other dtypes compare exactly
_DTYPE_PRECISIONS = {
    jtorch.float16: (0.001, 1e-5),
    jtorch.float32: (1.3e-6, 1e-5),
    jtorch.float64: (1e-7, 1e-7),
    jtorch.complex64: (1.3e-6, 1e-5),
    jtorch.complex128: (1e-7, 1e-7),
}
# a Python number's type stands for this dtype when tolerances are chosen
_NUMBER_DTYPES = {int: jtorch.int64, float: jtorch.float64, complex: jtorch.complex128}


class _Failure(Exception):
    """A comparison that failed: the exception type torch raises, its text and the item path."""

    def __init__(self, type_: type, msg: str, id: tuple = ()) -> None:
        super().__init__(msg)
        self.type, self.msg, self.id = type_, msg, id

    def to_error(self, msg: Msg = None) -> Exception:
        if isinstance(msg, str):
            return self.type(msg)
        text = self.msg
        if self.id:
            text += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
        return self.type(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs: try the next."""


def default_tolerances(*inputs: jtorch.Tensor | jtorch.dtype) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes."""
    dtypes = []
    for x in inputs:
        if isinstance(x, jtorch.Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, jtorch.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*inputs: Any, rtol: float | None, atol: float | None, id: tuple) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]  # both set on this path
    return default_tolerances(*inputs)


# ---- messages -------------------------------------------------------------------------------------
def _mismatch_msg(identifier: Any, default: str, extra: str, abs_diff: Any, abs_idx: Any, atol: float,
                  rel_diff: Any, rel_idx: Any, rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def diff_line(kind: str, diff: Any, idx: Any, tol: float) -> str:
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    name = default if identifier is None else identifier(default) if callable(identifier) else identifier
    msg = f"{name} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_idx, atol) + diff_line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual: Any, expected: Any, rtol: float, atol: float, identifier: Any = None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                         rel_diff, None, rtol)


def _tensor_mismatch_msg(actual: jtorch.Tensor, expected: jtorch.Tensor, matches: jtorch.Tensor, rtol: float,
                         atol: float) -> str:
    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple:
        index = []
        for size in reversed(shape):
            flat, mod = divmod(flat, size)
            index.append(mod)
        return tuple(reversed(index))

    total = matches.numel()
    mismatches = total - int(jtorch.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        a, e = a.to(jtorch.int64), e.to(jtorch.int64)  # differences of narrow integers must not wrap
    abs_diff = jtorch.abs(a - e)
    abs_diff[m] = 0  # only mismatches count
    max_abs, abs_idx = jtorch.max(abs_diff, 0)
    rel_diff = abs_diff / jtorch.abs(e)
    rel_diff[m] = 0
    max_rel, rel_idx = jtorch.max(rel_diff, 0)
    return _mismatch_msg(None, "Tensor-likes", extra, max_abs.item(), unravel(int(abs_idx)), atol, max_rel.item(),
                         unravel(int(rel_idx)), rtol)


# ---- pairs ----------------------------------------------------------------------------------------
# Each pair kind takes (actual, expected, id, **options) and returns the comparison to run, or raises
# _Unsupported; torch makes every pair (choosing tolerances) before it compares any.
Compare = Callable[[], None]


def _none_pair(actual: Any, expected: Any, id: tuple, **_: Any) -> Compare:
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare() -> None:
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", id)

    return compare


def _bool_pair(actual: Any, expected: Any, id: tuple, **_: Any) -> Compare:
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (bool(x) for x in (actual, expected))

    def compare() -> None:
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id)

    return compare


def _number_pair(actual: Any, expected: Any, id: tuple, *, rtol: Any, atol: Any, equal_nan: bool,
                 check_dtype: bool, **_: Any) -> Compare:
    if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances(*(_NUMBER_DTYPES[type(x)] for x in (actual, expected)), rtol=rtol, atol=atol, id=id)

    def compare() -> None:
        if check_dtype and type(actual) is not type(expected):
            raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", id)
        if actual == expected:
            return
        if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_mismatch_msg(actual, expected, rtol, atol), id)

    return compare


def _as_tensor(x: Any) -> jtorch.Tensor:
    if isinstance(x, jtorch.Tensor):
        return x
    try:
        return jtorch.as_tensor(x)
    except Exception:
        raise _Unsupported from None


def _tensor_like_pair(actual: Any, expected: Any, id: tuple, *, allow_subclasses: bool, rtol: Any, atol: Any,
                      **flags: bool) -> Compare:
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances(actual, expected, rtol=rtol, atol=atol, id=id)
    return lambda: _compare_tensors(actual, expected, id, rtol=rtol, atol=atol, **flags)


def _compare_tensors(actual: jtorch.Tensor, expected: jtorch.Tensor, id: tuple, *, rtol: float, atol: float,
                     equal_nan: bool, check_device: bool, check_dtype: bool, check_layout: bool,
                     check_stride: bool) -> None:

    def mismatch(attribute: str, a: Any, e: Any) -> NoReturn:
        raise _Failure(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", id)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if actual.layout != expected.layout:
        if check_layout:
            mismatch("layout", actual.layout, expected.layout)
    elif check_stride and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    if actual.is_meta or expected.is_meta:
        return  # meta tensors have no values to compare
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = jtorch.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    matches = jtorch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if jtorch.all(matches):
        return
    if not actual.shape:
        msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol, atol)
    else:
        msg = _tensor_mismatch_msg(actual, expected, matches, rtol, atol)
    raise _Failure(AssertionError, msg, id)


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_like_pair)


def _pair(actual: Any, expected: Any, id: tuple, options: dict) -> Compare:
    for make in _PAIRS:
        try:
            return make(actual, expected, id, **options)
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", id)


def _leaves(actual: Any, expected: Any, id: tuple = ()) -> list:
    """The (actual, expected, id) leaf pairs, in torch's order; structural mismatches raise."""
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id)
        return [leaf for i in range(len(actual)) for leaf in _leaves(actual[i], expected[i], (*id, i))]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}\n"
                                           f"Additional keys in the actual mapping: {sorted(a_keys - e_keys)}", id)
        keys: Any = a_keys
        try:
            keys = sorted(keys)
        except Exception:  # keys that do not sort keep the set's order, as in torch
            pass
        return [leaf for k in keys for leaf in _leaves(actual[k], expected[k], (*id, k))]
    return [(actual, expected, id)]


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Msg = None) -> None:
    """Asserts that `actual` and `expected` are close (torch.testing.assert_close): for tensors,
    same shape (and device, dtype, layout, stride as the check_* flags ask) and
    |actual - expected| <= atol + rtol * |expected| elementwise, with defaults by dtype."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = [_pair(a, e, id, options) for a, e, id in _leaves(actual, expected)]
    except _Failure as failure:  # structure, types and tolerances: torch ignores `msg` here
        raise failure.to_error() from None
    for compare in pairs:
        try:
            compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None
