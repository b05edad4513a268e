"""The result dtype of the joining operators as torch computes it, over pairs of dtypes and
dimensions (0-dim inputs promote as a lower category in torch's result_type: block_diag of an
int8 0-dim tensor and a uint8 matrix is uint8, where pairwise promotion would give int16): cat,
stack, hstack, vstack, dstack, column_stack, block_diag (of two and of three inputs), where and
cartesian_prod, against torch.
"""
from __future__ import annotations

import itertools
from typing import Any

import pytest
from _torch_oracle import oracle_torch

import jtorch

DTYPES = ("bool", "uint8", "int8", "int16", "float16", "float32", "complex64")
NDIMS = (0, 2)
FAMILIES: dict[str, Any] = {
    "cat": lambda T, a, b: T.cat([a.reshape(1, -1), b.reshape(1, -1)]),
    "stack": lambda T, a, b: T.stack([a, b]),
    "hstack": lambda T, a, b: T.hstack([a, b]),
    "vstack": lambda T, a, b: T.vstack([a, b]),
    "dstack": lambda T, a, b: T.dstack([a, b]),
    "column_stack": lambda T, a, b: T.column_stack([a, b]),
    "block_diag": lambda T, a, b: T.block_diag(a, b),
    "block_diag3": lambda T, a, b: T.block_diag(a, b, T.ones(1, dtype=T.int8)),
    "where": lambda T, a, b: T.where(T.tensor(True), a, b),
    "cartesian_prod": lambda T, a, b: T.cartesian_prod(a.reshape(-1), b.reshape(-1)),
}
# torch's complex32, which jtorch does not have, is the result of float16 with a 0-dim complex64
_COMPLEX32 = {("float16", "complex64"), ("complex64", "float16")}


def outcome(T: Any, family: str, a: tuple, b: tuple) -> tuple:
    def make(dt: str, nd: int) -> Any:
        return T.ones((1, 2) if nd == 2 else (), dtype=getattr(T, dt))

    try:
        r = FAMILIES[family](T, make(*a), make(*b))
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e).replace("jtorch", "torch")
    return "ok", str(r.dtype).split(".")[-1], tuple(r.shape)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_result_dtype_as_torch(family: str) -> None:
    torch = oracle_torch()
    operands = list(itertools.product(DTYPES, NDIMS))
    for a, b in itertools.product(operands, operands):
        if (a[0], b[0]) in _COMPLEX32 and 0 in (a[1], b[1]):
            continue
        assert outcome(jtorch, family, a, b) == outcome(torch, family, a, b), (a, b)


def test_block_diag_of_bool_uint8_and_0_dim_int8_is_uint8() -> None:
    t = jtorch.block_diag(jtorch.ones(1, 1, dtype=jtorch.bool), jtorch.ones(1, 1, dtype=jtorch.uint8),
                          jtorch.tensor(1, dtype=jtorch.int8))
    assert t.dtype is jtorch.uint8
