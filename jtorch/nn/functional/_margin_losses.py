"""multi_margin_loss, multilabel_margin_loss and triplet_margin_with_distance_loss of nn.functional.
The two margin losses are ATen kernels in torch (LossMultiMargin.cpp, LossMultiLabelMargin.cpp); here
they are composed from differentiable operators with the kernels' checks, shapes and sums, so their
gradients are the operators' (the graph differs: torch records one MultiMarginLossBackward0 /
MultilabelMarginLossBackward0 node)."""
from __future__ import annotations

from collections.abc import Callable

import jtorch

from ...scalar import SCALAR_TYPE_NAME
from ...tensor import Tensor
from .._reduction import get_reduction
from ._linear import pairwise_distance

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "triplet_margin_with_distance_loss"]


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _as_matrix(input: Tensor) -> tuple[Tensor, int, int]:
    """(input as (nframe, dim), nframe, dim), after the kernels' shape check."""
    ndims = input.dim()
    if not ((ndims == 2 and input.size(1) != 0) or (ndims == 1 and input.size(0) != 0) or ndims == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if ndims <= 1:
        dim = 1 if ndims == 0 else input.size(0)
        return input.reshape(1, dim), 1, dim
    return input, input.size(0), input.size(1)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: bool | None = None, reduce: bool | None = None,
                      reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, nframe, dim = _as_matrix(input)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    if target.dtype != jtorch.int64:
        raise RuntimeError(f"expected scalar type Long but found {SCALAR_TYPE_NAME[target.dtype]}")
    y = target.reshape(nframe, 1)
    if nframe and input.device.type != "meta" and bool(((y < 0) | (y >= dim)).any()):
        raise RuntimeError("target out of range")
    # sum over j != y of w[y] * max(0, margin - x[y] + x[j]) ** p, divided by the number of classes
    z = (margin - x.gather(1, y) + x).clamp_min(0)
    z = z.masked_fill(jtorch.arange(dim, device=x.device) == y, 0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y.reshape(-1)).unsqueeze(1)
    loss = z.sum(1) / dim
    if reduction == "none":
        return loss if target.dim() > 0 else loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    x, nframe, dim = _as_matrix(input)
    if target.shape != input.shape and not (input.dim() <= 1 and target.dim() <= 1 and target.numel() == dim):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target.dtype != jtorch.int64:
        raise RuntimeError(f"expected scalar type Long but found {SCALAR_TYPE_NAME[target.dtype]}")
    t = target.reshape(nframe, dim)
    # the targets of a row are its entries before the first -1
    valid = (t == -1).long().cumsum(1) == 0
    if nframe and input.device.type != "meta" and bool((valid & ((t < 0) | (t >= dim))).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    safe = t.clamp_min(0)
    is_target = jtorch.zeros_like(x).scatter_add(1, safe, valid.to(x.dtype)) > 0
    # every (target j, non-target k) pair of a row: max(0, 1 - (x[j] - x[k])), over the number of classes
    xj = x.gather(1, safe)
    pairs = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    keep = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = pairs.masked_fill(keep.logical_not(), 0).sum((1, 2)) / dim
    if reduction == "none":
        return loss if input.dim() == 2 else loss.reshape(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance  # torch.pairwise_distance's body
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:  # the positive example as the anchor when it is nearer the negative one
        dist_neg = jtorch.minimum(dist_neg, distance_function(positive, negative))
    return _reduce(jtorch.clamp_min(margin + dist_pos - dist_neg, 0), reduction)
