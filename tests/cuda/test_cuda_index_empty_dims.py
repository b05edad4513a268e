"""Index-taking operators on a size-0 dim with a non-empty index on CUDA tensors: the same outcome
(torch's error type and text, or the result's shape) as on the CPU (tests/test_index_ops_empty_dims.py
compares the CPU with torch)."""
from __future__ import annotations

import pytest
from test_index_ops_empty_dims import CASES, _outcome

import jtorch


# take_along_dim wraps indices with an integer remainder: by 0, torch's CPU kernel raises
# ZeroDivisionError where a CUDA kernel cannot; gather then refuses the index instead
CPU_ONLY = {"take_along_dim", "take_along_dim_1d"}


@pytest.mark.parametrize("name", sorted(set(CASES) - CPU_ONLY))
def test_empty_dim_with_index_matches_cpu(cuda, name: str) -> None:
    want = _outcome(CASES[name], jtorch)
    jtorch.set_default_device(cuda)
    try:
        got = _outcome(CASES[name], jtorch)
    finally:
        jtorch.set_default_device(None)
    assert got == want
