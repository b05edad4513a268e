"""Loss functions of `torch.nn.functional`, composed from jtorch's differentiable operators.

cross_entropy with class indices is torch's: one log_softmax and one aten::nll_loss_forward
(jtorch/native/loss.py), recording LogSoftmaxBackward0 and NllLossBackward0. mse_loss, smooth_l1_loss,
huber_loss and the binary cross entropies call their aten operators (jtorch/native/pointwise_losses.py),
recording torch's one node each.
"""
from __future__ import annotations

import warnings

import jtorch as torch

from ...native.registry import by_name as _ops
from ...scalar import SCALAR_TYPE_NAME
from ...tensor import Tensor
from ...warn import user_stacklevel
from .._reduction import apply_reduction, get_reduction, legacy_get_string

__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
]


def _size_warning(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=user_stacklevel())


def _weighted(loss: Tensor, input: Tensor, weight: Tensor, reduction: str, mean_by_weight: bool) -> Tensor:
    # the Python-level weighted forms of torch's mse_loss / l1_loss (sum / sum(weight)) and huber_loss (mean)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---- regression losses ------------------------------------------------------------------------
def _regression_inputs(input: Tensor, target: Tensor, size_average: bool | None, reduce: bool | None,
                       reduction: str) -> tuple[Tensor, Tensor, str]:
    """mse_loss's, l1_loss's and smooth_l1_loss's opening: torch's size warning, the legacy
    size_average/reduce pair read as a reduction, input and target broadcast."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    input, target = torch.broadcast_tensors(input, target)
    return input, target, reduction


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    input, target, reduction = _regression_inputs(input, target, size_average, reduce, reduction)
    if weight is not None:
        diff = input - target
        return _weighted(diff * diff, input, weight, reduction, True)
    return _ops["mse_loss"].op(input, target, _ENUM[get_reduction(reduction)])


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    input, target, reduction = _regression_inputs(input, target, size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), input, weight, reduction, True)
    return apply_reduction((input - target).abs(), get_reduction(reduction))


_ENUM = {"none": 0, "mean": 1, "sum": 2}  # torch.nn._reduction.get_enum


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    input, target, reduction = _regression_inputs(input, target, size_average, reduce, reduction)
    reduction = get_reduction(reduction)
    if beta == 0.0:
        return apply_reduction((input - target).abs(), reduction)
    return _ops["smooth_l1_loss"].op(input, target, _ENUM[reduction], beta)


def _huber(input: Tensor, target: Tensor, delta: float) -> Tensor:
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    z = (input - target).abs()
    return torch.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    _size_warning(input, target)
    input, target = torch.broadcast_tensors(input, target)
    if weight is not None:
        return _weighted(_huber(input, target, delta), input, weight, reduction, False)
    return _ops["huber_loss"].op(input, target, _ENUM[get_reduction(reduction)], delta)


# ---- classification: nll_loss and cross_entropy ------------------------------------------------
def _check_nll(input: Tensor, target: Tensor, weight: Tensor | None) -> int:
    """torch's nll_loss_nd / nll_loss / nll_loss2d checks, in their order; returns the class count."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and input.shape[0] != (target.shape[0] if target.dim() else 1):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.dim() else 1}).")
    n_classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    if input.dim() <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.dim() == 1 and target.dim() == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                               f"but got weight tensor of shape: {list(weight.shape)}")
    elif input.dim() == 4:
        if target.dim() != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.dim()}")
        if weight is not None and weight.numel() != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    else:
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, "
                               f"got {list(target.shape)}")
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                               f"but got weight tensor of shape: {list(weight.shape)}")
    if target.dtype not in (torch.int64, torch.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {SCALAR_TYPE_NAME[target.dtype]}")
    return n_classes


_REDUCTION = {"none": 0, "mean": 1, "sum": 2}  # at::Reduction


def _nll(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, reduction: str) -> Tensor:
    """torch's nll_loss_nd: aten::nll_loss_forward on a (C,) or (N, C) input, aten::nll_loss2d_forward
    on an (N, C, H, W) one; other (N, C, d1, ...) inputs are viewed as (N, C, 1, d1 * ...) for it."""
    _check_nll(input, target, weight)
    r = _REDUCTION[reduction]
    forward = torch.ops.aten.nll_loss_forward.default
    if input.dim() == 1 and target.dim() == 1:  # (C,) with a one-element target: one sample
        target = target.reshape(())
    if input.dim() <= 2:
        return forward(input, target, weight, r, ignore_index)[0]
    forward2d = torch.ops.aten.nll_loss2d_forward.default
    if input.dim() == 4:
        return forward2d(input, target, weight, r, ignore_index)[0]
    # 3-D or more than 4-D: viewed as (N, C, 1, positions), as torch's nll_loss_nd
    n, c, out_size = input.shape[0], input.shape[1], list(input.shape[2:])
    # an empty batch is viewed as (N, C, 0, 0), as torch does
    input = input.contiguous().view(n, c, 1, -1) if input.numel() else input.contiguous().view(n, c, 0, 0)
    target = target.contiguous().view(n, 1, -1) if target.numel() else target.contiguous().view(n, 0, 0)
    out = forward2d(input, target, weight, r, ignore_index)[0]
    return out.view([n, *out_size]) if r == 0 else out


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    return _nll(input, target, weight, ignore_index, get_reduction(reduction, size_average, reduce))


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    class_dim = 0 if input.dim() == 1 else 1
    if input.shape == target.shape:
        return _cross_entropy_probs(input, target, weight, class_dim, reduction, label_smoothing, ignore_index)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_smoothed(input, target, weight, class_dim, reduction, ignore_index, label_smoothing)
    return _nll(input.log_softmax(class_dim), target, weight, ignore_index, reduction)


def _class_view(weight: Tensor, input: Tensor, class_dim: int) -> Tensor:
    shape = [1] * input.dim()
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probs(input: Tensor, target: Tensor, weight: Tensor | None, class_dim: int, reduction: str,
                         label_smoothing: float, ignore_index: int) -> Tensor:
    # torch's cross_entropy_loss_prob_target
    if not target.is_floating_point():
        raise RuntimeError("Expected floating point type for target with class probabilities, got "
                           f"{SCALAR_TYPE_NAME[target.dtype]}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if label_smoothing < 0.0 or label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    n_classes = input.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = input.log_softmax(class_dim) * target
    if weight is not None:
        if weight.dim() != 1 or weight.numel() != n_classes:
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                               f"but got weight tensor of shape: {list(weight.shape)}")
        prod = prod * _class_view(weight, input, class_dim)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    return torch.ops.aten.div.Scalar(-prod.sum(), input.numel() // n_classes if n_classes else 0)  # DivBackward1


def _cross_entropy_smoothed(input: Tensor, target: Tensor, weight: Tensor | None, class_dim: int,
                            reduction: str, ignore_index: int, label_smoothing: float) -> Tensor:
    # torch's cross_entropy_loss_label_smoothing: (1 - s) nll + s / C * (-sum_c w_c logp_c)
    logp = input.log_softmax(class_dim)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    n_classes = input.shape[class_dim]
    ignore = target == ignore_index
    smooth = -(logp * _class_view(weight, input, class_dim)).sum(class_dim) if weight is not None \
        else -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            ret = smooth.sum() / weight.gather(0, target.masked_select(~ignore).flatten()).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    mul = torch.ops.aten.mul.Scalar  # ATen's `nll * (1 - s)`: MulBackward1
    return mul(nll, 1 - label_smoothing) + mul(ret, label_smoothing / n_classes)


# ---- binary losses ----------------------------------------------------------------------------
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(torch.broadcast_shapes(target.size(), weight.size()))
    return _ops["binary_cross_entropy"].op(input, target, weight, _ENUM[reduction])


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    reduction = get_reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return binary_cross_entropy_with_logits_impl(input, target, weight, reduction, pos_weight)


def binary_cross_entropy_with_logits_impl(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
                                          pos_weight: Tensor | None) -> Tensor:
    """aten::binary_cross_entropy_with_logits: nn.functional's less its Python-level size check."""
    return _ops["binary_cross_entropy_with_logits"].op(input, target, weight, pos_weight, _ENUM[reduction])


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=user_stacklevel())
    if reduction != "batchmean":
        get_reduction(reduction)
    # aten::kl_div: xlogy(y, y) - y x (or exp(y) (y - x) for a log target), reduced; batchmean sums
    out = _ops["kl_div"].op(input, target, _ENUM["sum" if reduction == "batchmean" else reduction],
                            log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        return out / input.shape[0]
    return out
