"""repr of real jtorch tensors (through the Tensor class, views and operators) against torch's text."""
import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch

torch = oracle_torch()

CASES = [
    lambda m: m.tensor([3, 5, 7]),
    lambda m: m.tensor([1.5, 2.0]),
    lambda m: m.tensor([1.0, 2.0], dtype=m.float64),
    lambda m: m.arange(12, dtype=m.float32).view(3, 4).t(),
    lambda m: m.arange(2000, dtype=m.float32) / 7,
    lambda m: m.tensor([[True, False], [False, True]]),
    lambda m: m.tensor([1 + 2j, 3 - 1j]),
    lambda m: m.tensor(3.5),
    lambda m: m.zeros(0, 3),
    lambda m: m.tensor([1e-8, 1e8, float("nan"), float("inf")]),
    lambda m: m.ones(2, 3, device="meta"),
    lambda m: m.arange(24).view(2, 3, 4)[:, 1:, ::2],
    lambda m: m.tensor([1.0, 2.0], dtype=m.float16) * 3,
    lambda m: m.tensor([1.0, 2.0], requires_grad=True),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_repr_matches_torch(i):
    j, t = CASES[i](jtorch), CASES[i](torch)
    assert repr(j) == repr(t).replace("torch.", "jtorch.")
    assert str(j) == str(t).replace("torch.", "jtorch.")


def test_format_of_zero_dim():
    assert "{:+.2f}".format(jtorch.tensor(1.5)) == "{:+.2f}".format(torch.tensor(1.5)) == "+1.50"
