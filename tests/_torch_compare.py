"""Differential helpers against torch through the oracle (tests/_torch_oracle.py): a test writes its
program once as `fn(T)` over a module T (jtorch or torch), or as source text with `torch` bound to
either, and compares what the two give."""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch, type_name


def as_arrays(values: Any) -> list:
    """A list of tensors (None allowed) as NumPy arrays (dtype and values), Python values kept."""
    out = []
    for v in values:
        if v is None or isinstance(v, (bool, int, float, str, tuple)):
            out.append(v)
        else:
            out.append(v.detach().numpy())
    return out


def same_as_torch(fn: Callable[[Any], list], rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """fn(T) returns a list of tensors / Python values: jtorch's and torch's agree (dtype and values)."""
    got = as_arrays(fn(jtorch))
    expected = as_arrays(fn(oracle_torch()))
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        if isinstance(e, np.ndarray):
            assert isinstance(g, np.ndarray), (i, g)
            assert g.dtype == e.dtype and g.shape == e.shape, (i, g.dtype, e.dtype, g.shape, e.shape)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"item {i}")
        else:
            assert g == e, (i, g, e)


def same_error_as_torch(fn: Callable[[Any], Any]) -> None:
    """fn(T) raises in torch; jtorch raises the same exception type with the same text."""
    with pytest.raises(Exception) as te:
        fn(oracle_torch())
    with pytest.raises(type(te.value)) as je:
        fn(jtorch)
    assert str(je.value) == str(te.value), (str(je.value), str(te.value))


# ---- one operator call: its outcome, values compared to a dtype's tolerance ---------------------------------------
def call_outcome(fn: Callable[[Any], Any], lib: Any) -> tuple:
    """("ok", dtype name, shape, values) of the tensor fn(lib) returns, or (exception type, first line of its text)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type_name(e), str(e).split("\n")[0]
    return "ok", str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.detach().numpy())


def call_matches_torch(fn: Callable[[Any], Any], context: str = "") -> None:
    """fn(jtorch) and fn(torch) give the same dtype, shape and values (to float16/float32 rounding), or the
    same exception type and text."""
    got, want = call_outcome(fn, jtorch), call_outcome(fn, oracle_torch())
    if not (got[0] == want[0] == "ok"):
        assert got == want, context
        return
    assert got[:3] == want[:3], (got[:3], want[:3], context)
    rtol = {np.float16: 2e-3, np.float32: 2e-6}.get(got[3].dtype.type, 1e-13)
    np.testing.assert_allclose(got[3], want[3], rtol=rtol, atol=1e-30, equal_nan=True, err_msg=context)


# ---- source text: what it evaluates to, compared exactly ------------------------------------------------------------
def source_outcome(mod: Any, src: str, env: dict | None = None, statements: bool = False,
                   storage_offset: bool = False) -> Any:
    """What evaluating `src` with `torch` bound to `mod` gives, in a form both libraries share: a tensor as
    (dtype name, shape, strides[, storage offset], values), an exception as (type, text). `statements`:
    src is statements joined by "; ", the last one an expression."""
    env = {"torch": mod, "np": np, **(env or {})}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if statements:
                *stmts, last = src.split("; ")
                for s in stmts:
                    exec(s, env)
                r = eval(last, env)
            else:
                r = eval(src, env)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            return (type_name(e), str(e).replace("jtorch", "torch"))
    if isinstance(r, mod.Tensor):
        dt = str(r.dtype).split(".")[-1]
        if r.is_meta:
            return ("meta", dt, tuple(r.shape), tuple(r.stride()))
        if dt == "bfloat16":  # NumPy has no bfloat16: its values, exactly, as float32
            r = r.float()
        vals = r.detach().numpy() if mod.__name__ == "torch" else r.numpy()
        shape, stride = tuple(r.shape), tuple(r.stride())
        where = (r.storage_offset(),) if storage_offset else ()
        return (dt, shape, stride, *where, np.array(vals, copy=True))
    if isinstance(r, (tuple, list)):
        return tuple(v.replace("jtorch", "torch") if isinstance(v, str) else v for v in r)
    if isinstance(r, (int, float, bool)):
        return r
    return str(r).replace("jtorch", "torch")


def source_matches_torch(src: str, torch: Any, **how: Any) -> None:
    """src gives the same outcome with jtorch as with torch (source_outcome's arguments in `how`); tensor
    values compared exactly, NaN equal to NaN."""
    a, b = source_outcome(torch, src, **how), source_outcome(jtorch, src, **how)
    if isinstance(a, tuple) and a and isinstance(a[-1], np.ndarray):
        assert isinstance(b, tuple) and len(b) == len(a) and isinstance(b[-1], np.ndarray), (src, a, b)
        assert a[:-1] == b[:-1], (src, a[:-1], b[:-1])
        assert a[-1].dtype == b[-1].dtype and np.array_equal(a[-1], b[-1], equal_nan=True), (src, a[-1], b[-1])
    else:
        assert a == b, (src, a, b)


def error_of(fn: Callable[[], Any]) -> tuple | None:
    """(exception type, text) of what fn() raises, None when it returns."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e), str(e)
    return None
