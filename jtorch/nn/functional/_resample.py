"""nn.functional: padding, interpolation, grid sampling, unfold/fold front ends and pixel shuffles
(torch/nn/functional.py's front ends over the aten operators of jtorch/native/padding.py,
upsample.py, grid_sample.py, pixel_shuffle.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jtorch

from ...tensor import Tensor

__all__ = ["pad"]


def _aten() -> Any:
    return jtorch.ops.aten


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """torch._C._nn.pad: the aten pad composite (constant_pad_nd, reflection_padNd, replication_padNd,
    _pad_circular)."""
    return _aten().pad.default(input, list(pad), mode, value)
