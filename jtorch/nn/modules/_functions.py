"""torch/nn/modules/_functions.py: CrossMapLRN2d, the legacy cross-channel LRN as an autograd Function with its own
window and hand-written backward (its node is CrossMapLRN2dBackward, as torch's)."""
from __future__ import annotations

from typing import Any

import jtorch

from ...autograd.function import Function
from ...tensor import Tensor

__all__ = ["CrossMapLRN2d"]


class CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> Tensor:
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        square = input.pow(2)
        # a running window over the channels: channel c sums the squares of c - pre_pad + 1 .. c + pre_pad - 1
        pre_pad = int((size - 1) / 2 + 1)
        scale = jtorch.empty_like(input)
        current = square.narrow(1, 0, min(pre_pad, channels)).sum(1)
        scale.select(1, 0).copy_(current)
        for c in range(1, channels):
            if c < channels - pre_pad + 1:
                current = current + square.select(1, c + pre_pad - 1)
            if c > pre_pad:
                current = current - square.select(1, c - pre_pad)
            scale.select(1, c).copy_(current)
        scale.mul_(alpha / size).add_(k)
        output = scale.pow(-beta).mul_(input)
        ctx.scale = scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        input, output = ctx.saved_tensors
        batch_size, channels, height, width = input.shape
        size = ctx.size
        padded_ratio = input.new_zeros((channels + size - 1, height, width))
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / size
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta).mul_(grad_output)
        center = padded_ratio.narrow(0, inverse_pre_pad, channels)
        for n in range(batch_size):
            center.copy_(grad_output[n] * output[n] / ctx.scale[n])
            accum_ratio = padded_ratio.narrow(0, 0, size - 1).sum(0)
            for c in range(channels):
                accum_ratio = accum_ratio + padded_ratio[c + size - 1]
                grad_input[n][c].addcmul_(input[n][c], accum_ratio, value=-cache_ratio_value)
                accum_ratio = accum_ratio - padded_ratio[c]
        return grad_input, None, None, None, None
