"""Differential helpers against torch through the oracle (tests/_torch_oracle.py): a test writes its
program once as `fn(T)` over a module T (jtorch or torch) and compares what the two give."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch


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
