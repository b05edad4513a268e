"""PyTorch type promotion: promote_types, result_type (at::native::result_type), can_cast.

Everything is table driven on ``dtype._index`` (0..15) plus an extra index 16 meaning
"Undefined", so promote_skip_undefined and combine_categories are single list lookups.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from jtorch import dtypes as _dt
from jtorch.dtypes import dtype

__all__ = ["promote_types", "result_type", "result_type_many", "can_cast",
           "is_integral", "is_floating", "is_complex", "category",
           "scalar_type_of_python_value"]

_ALL = _dt.all_dtypes
_N = len(_ALL)
_UND = _N  # "Undefined" ScalarType slot in the int tables

# c10::promoteTypes table restricted to jtorch's dtypes (rows/cols in _dt index order); "--" is a pair torch
# refuses ("Promotion for uint16, uint32, uint64 types is not supported"; the bits type uint1 too, with the
# same text, but it promotes with the floating types).
_CODES = ("b1", "u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "c4", "c8", "bf2", "u2", "u4", "u8", "bit")
_TABLE = """
      b1  u1  i1  i2  i4  i8  f2  f4  f8  c4  c8 bf2  u2  u4  u8 bit
  b1  b1  u1  i1  i2  i4  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  u1  u1  u1  i2  i2  i4  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  i1  i1  i2  i1  i2  i4  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  i2  i2  i2  i2  i2  i4  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  i4  i4  i4  i4  i4  i4  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  i8  i8  i8  i8  i8  i8  i8  f2  f4  f8  c4  c8 bf2  --  --  --  --
  f2  f2  f2  f2  f2  f2  f2  f2  f4  f8  c4  c8  f4  f2  f2  f2  f2
  f4  f4  f4  f4  f4  f4  f4  f4  f4  f8  c4  c8  f4  f4  f4  f4  f4
  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  c8  c8  f8  f8  f8  f8  f8
  c4  c4  c4  c4  c4  c4  c4  c4  c4  c8  c4  c8  c4  --  --  --  --
  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  --  --  --  --
 bf2 bf2 bf2 bf2 bf2 bf2 bf2  f4  f4  f8  c4  c8 bf2 bf2 bf2 bf2 bf2
  u2  --  --  --  --  --  --  f2  f4  f8  --  -- bf2  u2  --  --  --
  u4  --  --  --  --  --  --  f2  f4  f8  --  -- bf2  --  u4  --  --
  u8  --  --  --  --  --  --  f2  f4  f8  --  -- bf2  --  --  u8  --
 bit  --  --  --  --  --  --  f2  f4  f8  --  -- bf2  --  --  -- bit
"""
_rows = [line.split() for line in _TABLE.strip().splitlines()[1:]]
assert [r[0] for r in _rows] == list(_CODES) and all(d.char == c for d, c in zip(_ALL, _CODES))
_ERR = -1  # a refused pair in the int tables


def _unsupported(a: int, b: int) -> RuntimeError:
    names = _dt._TORCH_NAMES
    return RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                        f"{names[a]} and {names[b]}")


# _PROMOTE_I[a][b]: int index result, with Undefined row/col (promote_skip_undefined).
_PROMOTE_I: list = [[_CODES.index(c) if c != "--" else _ERR for c in r[1:]] + [i] for i, r in enumerate(_rows)]
_PROMOTE_I.append(list(range(_N)) + [_UND])
# _PROMOTE_D[a][b]: dtype result (hot path of promote_types); None for a refused pair.
_PROMOTE_D: list = [[_ALL[j] if j != _ERR else None for j in row[:_N]] for row in _PROMOTE_I[:_N]]

_IS_FLOAT = [d.is_floating_point for d in _ALL] + [False]
_IS_COMPLEX = [d.is_complex for d in _ALL] + [False]
_TO_COMPLEX = [d.to_complex()._index if (d.is_floating_point or d.is_complex) else i
               for i, d in enumerate(_ALL)] + [_UND]
_BOOL_I = _dt.bool._index


def _combine(higher: int, lower: int) -> int:
    """at::native combine_categories on int indices (used only to build _COMBINE_I)."""
    if _IS_COMPLEX[higher]:
        return higher
    if _IS_COMPLEX[lower]:
        # keep the value type of a floating `higher` (float64 dims + complex64 -> complex128)
        return _TO_COMPLEX[higher] if _IS_FLOAT[higher] else lower
    if _IS_FLOAT[higher]:
        return higher
    if higher == _BOOL_I or _IS_FLOAT[lower]:
        return _PROMOTE_I[higher][lower]  # _ERR for a refused pair
    return higher if higher != _UND else lower


_COMBINE_I: list = [[_combine(h, lo) for lo in range(_N + 1)] for h in range(_N + 1)]


def _type_error(fn: str, arg: str, pos: int, value: object) -> TypeError:
    return TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be jtorch.dtype, "
                     f"not {type(value).__name__}")


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """Smallest dtype both can be promoted to (c10::promoteTypes)."""
    try:
        r = _PROMOTE_D[type1._index][type2._index]
    except AttributeError:
        if not isinstance(type1, dtype):
            raise _type_error("promote_types", "type1", 1, type1) from None
        raise _type_error("promote_types", "type2", 2, type2) from None
    if r is None:
        raise _unsupported(type1._index, type2._index)
    return r


# ---------------------------------------------------------------- wrapped numbers
# Each operand gets a code = slot * _N + dtype index; slot 0: dimResult (ndim > 0),
# 1: zeroResult (0-dim tensor), 2: wrappedResult (Python scalar / wrapped number).
# Wrapped float/complex map to the *current* default dtypes, so the code tables below
# are refreshed by a listener on set_default_dtype.
_ZERO, _WRAPPED = _N, 2 * _N  # slot offsets (dim slot is 0)
_PY_CODE: dict = {}            # exact Python scalar type -> code
_WRAPPED_CODE: list = []       # wrapped-number tensor dtype index -> code


def _refresh_defaults(_d: object = None) -> None:
    f = _dt.get_default_dtype()._index
    c = _dt.default_complex_dtype()._index
    _PY_CODE.update({bool: _WRAPPED + _BOOL_I, int: _WRAPPED + _dt.int64._index,
                     float: _WRAPPED + f, complex: _WRAPPED + c})
    _WRAPPED_CODE[:] = [_WRAPPED + (c if _IS_COMPLEX[i] else f if _IS_FLOAT[i] else i)
                        for i in range(_N)]


_refresh_defaults()
_dt._default_listeners.append(_refresh_defaults)


def _code(op: Any) -> int:  # Any: numbers, tensors and anything with a dtype and ndim
    """Category code of one operand; -1 when op is neither a tensor-like nor a number."""
    c = _PY_CODE.get(type(op))
    if c is not None:
        return c
    d = getattr(op, "dtype", None)
    if isinstance(d, dtype):
        if op.ndim > 0:
            return d._index
        if getattr(op, "_is_wrapped_number", False):
            return _WRAPPED_CODE[d._index]
        return _ZERO + d._index
    # subclasses of Python numbers, and numpy scalars (treated as numbers of their kind)
    if isinstance(op, (bool, np.bool_)):
        return _PY_CODE[bool]
    if isinstance(op, (int, np.integer)):
        return _PY_CODE[int]
    if isinstance(op, (float, np.floating)):
        return _PY_CODE[float]
    if isinstance(op, (complex, np.complexfloating)):
        return _PY_CODE[complex]
    return -1


def _not_number(op: object) -> TypeError:
    return TypeError(f"result_type(): expected a Tensor or a Number, but got {type(op).__name__}")


def _result_type_codes(codes: list[int] | tuple[int, ...]) -> dtype:
    """update_result_type_state over all operands, then combine_categories."""
    s = [_UND, _UND, _UND]  # dimResult, zeroResult, wrappedResult
    P = _PROMOTE_I
    for c in codes:
        slot = c // _N
        r = P[s[slot]][c - slot * _N]
        if r == _ERR:
            raise _unsupported(s[slot], c - slot * _N)
        s[slot] = r
    lower = _COMBINE_I[s[1]][s[2]]
    if lower == _ERR:
        raise _unsupported(s[1], s[2])
    r = _COMBINE_I[s[0]][lower]
    if r == _ERR:
        raise _unsupported(s[0], lower)
    if r == _UND:
        raise ValueError("result_type() needs at least one operand")
    return _ALL[r]


# result_type of two operands is a single lookup in this (3N x 3N) table.
def _pair(a: int, b: int) -> dtype | None:
    try:
        return _result_type_codes((a, b))
    except RuntimeError:
        return None  # a refused pair: result_type recomputes it to raise


_PAIR: list = [[_pair(a, b) for b in range(3 * _N)] for a in range(3 * _N)]


def result_type(tensor: Any, other: Any) -> dtype:  # Any: as _code's operands
    """torch.result_type(tensor, other): dtype an op on the two operands would compute in."""
    ca = _PY_CODE.get(type(tensor))
    cb = _PY_CODE.get(type(other))
    if ca is None and cb is None:
        # Fast path: two dimensioned tensors (the common `a + b`) need only promoteTypes.
        try:
            if tensor.ndim > 0 and other.ndim > 0:
                r = _PROMOTE_D[tensor.dtype._index][other.dtype._index]
                if r is not None:
                    return r
        except AttributeError:
            pass
    if ca is None:
        ca = _code(tensor)
    if cb is None:
        cb = _code(other)
    if ca < 0 or cb < 0:
        raise _not_number(tensor if ca < 0 else other)
    r = _PAIR[ca][cb]
    return r if r is not None else _result_type_codes((ca, cb))


def result_type_many(*operands: object) -> dtype:
    """result_type over any number of operands (torch's internal variadic form)."""
    if len(operands) == 2:
        return result_type(operands[0], operands[1])
    codes = []
    for op in operands:
        c = _code(op)
        if c < 0:
            raise _not_number(op)
        codes.append(c)
    return _result_type_codes(codes)


def can_cast(from_: dtype, to: dtype) -> bool:
    """c10::canCast: same-kind casting (no complex->real, float->int, non-bool->bool)."""
    if not isinstance(from_, dtype):
        raise _type_error("can_cast", "from_", 1, from_)
    if not isinstance(to, dtype):
        raise _type_error("can_cast", "to", 2, to)
    return _CAN_CAST[from_._index][to._index]


def _can_cast(f: dtype, t: dtype) -> bool:
    if f.is_complex and not t.is_complex:
        return False
    if f.is_floating_point and is_integral(t, include_bool=False):
        return False
    if f is not _dt.bool and t is _dt.bool:
        return False
    return True


# ---------------------------------------------------------------- small helpers
# bool < integral < floating < complex; the bits type is none of them (-1: float -> uint1 casts, as c10's canCast)
_CATEGORY = [0] + [1] * 5 + [2] * 3 + [3] * 2 + [2] + [1] * 3 + [-1]


def category(d: dtype) -> int:
    """Kind rank: 0 bool, 1 integral, 2 floating, 3 complex (-1: a bits type)."""
    return _CATEGORY[d._index]


def is_integral(d: dtype, include_bool: bool) -> bool:
    """c10::isIntegralType."""
    c = _CATEGORY[d._index]
    return c == 1 or (include_bool and c == 0)


def is_floating(d: dtype) -> bool:
    return d.is_floating_point


def is_complex(d: dtype) -> bool:
    return d.is_complex


def scalar_type_of_python_value(v: object) -> dtype:
    """dtype a Python scalar gets as a wrapped number: bool, int64, default float/complex."""
    c = _PY_CODE.get(type(v))
    if c is None:
        c = -1 if isinstance(getattr(v, "dtype", None), dtype) else _code(v)
        if c < 0:
            raise TypeError(f"expected a Python number, but got {type(v).__name__}")
    return _ALL[c - _WRAPPED]


# built last: _can_cast needs is_integral
_CAN_CAST: list = [[_can_cast(f, t) for t in _ALL] for f in _ALL]
