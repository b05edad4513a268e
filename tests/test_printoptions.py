"""set_printoptions in full (precision, threshold, edgeitems, linewidth, the three profiles,
sci_mode) against torch: the options read back and the printed text."""
from __future__ import annotations

import pytest

import jtorch
from _torch_oracle import oracle_torch

OPTIONS = [
    {"precision": 2},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"linewidth": 40},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "default"},
    {"profile": "short", "precision": 6},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "nonsense"},
    {"precision": 0},
    {"linewidth": 10},
    {"threshold": 0},
    {"edgeitems": 10, "threshold": 3},
    {"sci_mode": True, "precision": 1},
    {"threshold": 20, "linewidth": 200},
]

TENSORS = [
    lambda m: m.arange(2000, dtype=m.float32) / 7,
    lambda m: m.arange(30).reshape(5, 6),
    lambda m: m.tensor([1e-6, 1.5, 3e5]),
    lambda m: m.tensor([[1.123456789, -2.0], [3.5, 100.25]], dtype=m.float64),
    lambda m: m.tensor([1 + 2j, -3.25 - 1j]),
    lambda m: m.linspace(0, 1, 12).reshape(3, 4),
    lambda m: m.tensor([0.5, 1.25, -3.0], dtype=m.float16),
    lambda m: m.tensor([True, False, True]),
    lambda m: m.tensor([1.0, float("inf"), float("nan"), -0.0]),
    lambda m: m.arange(60, dtype=m.float64).reshape(3, 4, 5) * 1.5,
    lambda m: m.tensor(2.5),
    lambda m: m.zeros(2, 0),
]


@pytest.mark.parametrize("opts", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_printing_under_options(opts):
    torch = oracle_torch()
    try:
        jtorch.set_printoptions(**opts)
        torch.set_printoptions(**opts)
        tj = jtorch.get_printoptions()
        for k in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode"):
            assert tj[k] == getattr(torch._tensor_str.PRINT_OPTS, k), k
        for make in TENSORS:
            assert repr(make(jtorch)) == repr(make(torch)).replace("torch.", "jtorch.")
    finally:
        jtorch.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
