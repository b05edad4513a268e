"""gumbel_softmax and local_response_norm of nn.functional, composed as torch/nn/functional.py composes
them, so their gradients are the operators' own."""
from __future__ import annotations

import warnings

import jtorch

from ...tensor import Tensor
from ._conv import avg_pool2d
from ._resample import pad

__all__ = ["gumbel_softmax", "local_response_norm"]


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -jtorch.empty_like(logits, memory_format=jtorch.contiguous_format).exponential_().log()  # ~Gumbel(0,1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft  # the reparameterisation trick
    # straight through: the one-hot of the argmax forward, the soft sample's gradient backward
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = jtorch.zeros_like(logits, memory_format=jtorch.contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    # the mean of the squares over a window of `size` channels, zero padded: an average pool whose window
    # spans channels only (torch pools 4-D and larger inputs in 3-D with a (size, 1, 1) window: the same sums)
    sizes = input.size()
    div = div.view(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
