"""The torch-namespace names of nn functions (torch.batch_norm, torch.layer_norm, torch.dropout,
torch.embedding, torch.kl_div, ...) with torch's own positional signatures (those of their aten
schemas: `torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)`, losses taking the reduction as an int: 0 none, 1 mean, 2 sum). Where the schema
says `int reduction=Mean`, torch's Python binding defaults it to 0 (no reduction): so do these.

Each is the same computation as its `jtorch.nn.functional` function (one home: this module only
maps the arguments, and skips the checks torch's nn.functional makes in Python before calling the aten
operator); nn.functional is imported on first call, so `import jtorch` does not load it.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from .tensor import Tensor

__all__ = ["dropout", "dropout_", "batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
           "embedding_renorm_", "kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss",
           "margin_ranking_loss", "poisson_nll_loss", "bilinear", "alpha_dropout", "alpha_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
           "triplet_margin_loss", "cosine_embedding_loss", "ctc_loss", "cosine_similarity", "pairwise_distance"]

_REDUCTIONS = ("none", "mean", "sum")  # at::Reduction::Reduction


def _F() -> Any:
    from .nn import functional

    return functional


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        from .scalar import format_double

        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {format_double(float(p))}")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _F().dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _F().dropout(input, p, train, inplace=True)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    from .nn.functional._norm import batch_norm_impl

    return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    from .nn.functional._norm import group_norm_impl

    if input.dim() < 2:  # aten's own check (nn.functional makes it before its Python-level one)
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    return group_norm_impl(input, num_groups, weight, bias, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    from .nn.functional._norm import instance_norm_impl

    return instance_norm_impl(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    return _F().rms_norm(input, normalized_shape, weight, eps)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    from .nn.functional._linear import _embedding_renorm_

    _embedding_renorm_(input, indices.reshape(-1), max_norm, norm_type)
    return input


def _reduction(reduction: int) -> str:
    return _REDUCTIONS[reduction]


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    with warnings.catch_warnings():  # the 'mean' warning is nn.functional's, not aten's
        warnings.simplefilter("ignore")
        return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    from .nn.functional._loss import binary_cross_entropy_with_logits_impl

    return binary_cross_entropy_with_logits_impl(input, target, weight, _reduction(reduction), pos_weight)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int) -> Tensor:
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return _F().bilinear(input1, input2, weight, bias)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return _F().cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


def _dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool) -> Tensor:
    from .nn.functional._dropout_variants import dropout_impl

    return dropout_impl(input, p, train, feature, alpha, inplace)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, False, True, True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, True, True, True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _dropout_impl(input, p, train, True, False, True)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    from .nn.functional._loss_pairs import triplet_margin_loss_impl

    return triplet_margin_loss_impl(anchor, positive, negative, margin, p, eps, swap, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    from ._ops import ops

    return ops.aten.cosine_embedding_loss.default(input1, input2, target, margin, reduction)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """aten::ctc_loss (its IntList and Tensor overloads: lengths as lists or tensors)."""
    from .nn.functional._ctc import ctc_loss_impl

    return ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
