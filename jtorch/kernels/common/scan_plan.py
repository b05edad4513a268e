"""The rows a backend's scan stub walks: a ScanPlan (outputs, input, dim) read into row length,
row shape and strides."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...geometry import scan_rows


@dataclass
class ScanRows:
    """`tensors` (the outputs, then the input) as `rows` rows of `n` elements along the scanned dim;
    `shape` is the other dims (fastest first, coalesced), `strides` each tensor's over them."""

    tensors: tuple
    n: int
    shape: tuple
    strides: list[list[int]]
    rows: int


def scan_rows_of(plan: Any) -> ScanRows | None:
    """The rows of `plan`, None where there is nothing to scan (no rows, or empty rows)."""
    inp, dim = plan.input, plan.dim
    tensors = (*plan.outputs, inp)
    n, shape, strides = scan_rows(inp._size, dim, [t._stride for t in tensors])
    rows = 1
    for s in shape:
        rows *= s
    if rows == 0 or n == 0:
        return None
    return ScanRows(tensors, n, shape, strides, rows)
