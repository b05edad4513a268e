"""alpha_dropout and feature_alpha_dropout of nn.functional, and the one dropout computation behind
them and torch's feature_dropout / alpha_dropout (ATen's _dropout_impl in Dropout.cpp): a
Bernoulli(1 - p) keep mask, one per (sample, channel) for the feature forms; alpha dropout keeps
the self-normalising mean and variance (SELU's alpha) instead of scaling by 1 / (1 - p)."""
from __future__ import annotations

import math

import jtorch as torch

from ...scalar import format_double
from ...tensor import Tensor

__all__ = ["alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766  # SELU's alpha * scale


def dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool) -> Tensor:
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {format_double(float(p))}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = torch.empty([input.shape[0], input.shape[1]] + [1] * (input.dim() - 2), dtype=input.dtype,
                            device=input.device)
    else:
        noise = torch.empty_like(input)
    noise.bernoulli_(1 - p)
    if not alpha:
        noise.div_(1 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def _check(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    _check(p)
    return dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    _check(p)
    return dropout_impl(input, p, training, True, True, inplace)
