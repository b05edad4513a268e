"""nn.functional losses and distances over pairs of rows: cosine_embedding_loss and pdist (the aten
operators' front ends, as torch's are), triplet_margin_loss (pairwise distances)."""
from __future__ import annotations

import jtorch as torch

from ...tensor import Tensor
from .._reduction import get_reduction
from ._linear import pairwise_distance

__all__ = ["cosine_embedding_loss", "triplet_margin_loss", "pdist"]

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def pdist(input: Tensor, p: float = 2) -> Tensor:
    return torch.pdist(input, p)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    return torch.ops.aten.cosine_embedding_loss.default(input1, input2, target, margin,
                                                        _ENUM[get_reduction(reduction, size_average, reduce)])


def triplet_margin_loss_impl(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float, p: float, eps: float,
                             swap: bool, reduction: int) -> Tensor:
    """aten::triplet_margin_loss: max(margin + d(a, p) - d(a, n), 0), d(a, n) the smaller of d(a, n) and
    d(p, n) with swap."""
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = torch.min(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = torch.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == 1:
        return output.mean()
    return output.sum() if reduction == 2 else output


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    reduction_enum = _ENUM[get_reduction(reduction, size_average, reduce)]
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_loss_impl(anchor, positive, negative, margin, p, eps, swap, reduction_enum)
