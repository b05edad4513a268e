"""The other losses of `torch.nn.functional` (Poisson and Gaussian NLL, the margin losses),
composed as ATen composes them, so their gradients are autograd's of the same formulas."""
from __future__ import annotations

import math

import jtorch as torch

from ...native.factories import wrapped_scalar_tensor as _wrapped
from ...native.registry import by_name as _ops
from ...tensor import Tensor
from .._reduction import apply_reduction, get_reduction
from ._activation import logsigmoid

__all__ = ["poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "multilabel_soft_margin_loss"]


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    loss = torch.exp(input) - target * input if log_input else input - target * torch.log(input + eps)
    if full:
        # Stirling's term for target > 1 (the log's argument is made 1 elsewhere: no NaN there)
        big = target > 1
        t = torch.where(big, target, 1.0)
        stirling = t * torch.log(t) - t + 0.5 * torch.log(2 * math.pi * t)
        loss = loss + torch.where(big, stirling, 0.0)
    return apply_reduction(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * torch.ones_like(input)
    elif bool(torch.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():  # homoscedastic: one variance per sample
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass  # homoscedastic: one dimension of size 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # clamped for stability; the clamp is not differentiated (torch clamps under no_grad)
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return apply_reduction(loss, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    return _ops["soft_margin_loss"].op(input, target, {"none": 0, "mean": 1, "sum": 2}[reduction])


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    # ATen's (-target * (input1 - input2) + margin): the Scalar overload (AddBackward1)
    return apply_reduction(torch.ops.aten.add.Scalar(-target * (input1 - input2), margin).clamp_min(0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    # ATen's margin - self: a wrapped number minus the tensor (SubBackward0)
    margin_part = torch.where(target != 1, torch.ops.aten.sub.Tensor(_wrapped(margin), input).clamp_min(0), 0.0)
    self_part = torch.where(target != -1, input, 0.0)
    return apply_reduction(margin_part + self_part, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = get_reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return apply_reduction(loss, reduction)
