"""The `reduction=` argument of the losses (torch/nn/_reduction.py): its legacy spelling
(`size_average=`, `reduce=`), its check, and the reduction it names. Shared by the functional
losses and the loss modules."""
from __future__ import annotations

import warnings

from ..tensor import Tensor
from ..warn import user_stacklevel


def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The `reduction` that `size_average=` and `reduce=` stand for, with torch's deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=user_stacklevel())
    return ret


def get_reduction(reduction: str, size_average: bool | None = None, reduce: bool | None = None) -> str:
    """The loss's reduction: from the legacy arguments when given, else `reduction` checked."""
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    """The elementwise loss reduced as `reduction` says ('mean', 'sum' or 'none')."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
