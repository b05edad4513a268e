"""unique and unique_consecutive on tensors with zero-sized dimensions, as torch: with a dim, the
selected dim must be the only empty one (its texts: "Number of zero sized dimensions is more than
one, so unique cannot be applied ", "There are 0 sized dimensions, and they aren't selected, so
unique cannot be applied"); without a dim, an empty result. Against torch, case by case.
"""
from __future__ import annotations

from typing import Any

import pytest
from _torch_oracle import oracle_torch

import jtorch

CASES: dict[str, Any] = {
    "uc_2zero": lambda T: T.unique_consecutive(T.empty(0, 0)),
    "uc_2zero_b": lambda T: T.unique_consecutive(T.empty(2, 0, 0)),
    "uc_1zero": lambda T: T.unique_consecutive(T.empty(0, 3)),
    "uc_1zero_inv": lambda T: T.unique_consecutive(T.empty(3, 0), return_inverse=True, return_counts=True),
    "uc_dim_2zero": lambda T: T.unique_consecutive(T.empty(0, 0), dim=0),
    "uc_dim_1zero": lambda T: T.unique_consecutive(T.empty(0, 3), dim=0),
    "uc_dim_1zero_1": lambda T: T.unique_consecutive(T.empty(0, 3), dim=1),
    "uc_dim_1zero_b": lambda T: T.unique_consecutive(T.empty(3, 0), dim=0, return_counts=True),
    "uc_dim_1zero_c": lambda T: T.unique_consecutive(T.empty(3, 0), dim=1, return_inverse=True),
    "uc_dim_3": lambda T: T.unique_consecutive(T.empty(2, 0, 3), dim=2),
    "uc_dim_3b": lambda T: T.unique_consecutive(T.empty(2, 0, 3), dim=0),
    "u_2zero": lambda T: T.unique(T.empty(0, 0)),
    "u_dim_2zero": lambda T: T.unique(T.empty(0, 0), dim=0),
    "u_dim_2zero_1": lambda T: T.unique(T.empty(0, 0), dim=1),
    "u_dim_1zero": lambda T: T.unique(T.empty(0, 3), dim=0),
    "u_dim_1zero_1": lambda T: T.unique(T.empty(0, 3), dim=1),
    "u_dim_1zero_r": lambda T: T.unique(T.empty(3, 0), dim=0, return_inverse=True, return_counts=True),
    "u_dim_1zero_r1": lambda T: T.unique(T.empty(3, 0), dim=1, return_inverse=True, return_counts=True),
    "u_dim_3": lambda T: T.unique(T.empty(2, 0, 3), dim=2),
    "u_dim_3b": lambda T: T.unique(T.empty(2, 0, 3), dim=1),
    "u_sorted_false_dim": lambda T: T.unique(T.empty(0, 2), sorted=False, dim=1),
    "u_1d_empty": lambda T: T.unique(T.empty(0), dim=0, return_counts=True),
    "uc_1d_empty": lambda T: T.unique_consecutive(T.empty(0), dim=0, return_counts=True),
    "u_0d_dim": lambda T: T.unique(T.tensor(1.0), dim=0),
    "uc_0d_dim": lambda T: T.unique_consecutive(T.tensor(1.0), dim=0),
}


def outcome(T: Any, case: Any) -> tuple:
    try:
        r = case(T)
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e).replace("jtorch", "torch")
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return "ok", type(r).__name__ if isinstance(r, tuple) else "Tensor", [(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in rs]


@pytest.mark.parametrize("name", list(CASES))
def test_unique_of_empty_dims_as_torch(name: str) -> None:
    torch = oracle_torch()
    assert outcome(jtorch, CASES[name]) == outcome(torch, CASES[name])
