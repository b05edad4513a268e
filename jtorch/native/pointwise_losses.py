"""The elementwise losses of ATen's Loss.cpp as operators: mse_loss, smooth_l1_loss, huber_loss,
soft_margin_loss, binary_cross_entropy and binary_cross_entropy_with_logits (and kl_div, a composite of
xlogy as in torch). Each kernel computes
the elementwise loss and reduces it (reduction: 0 none, 1 mean, 2 sum), below autograd; its
gradient is the derivatives table's, so nn.functional's losses record torch's one node
(MseLossBackward0, SmoothL1LossBackward0, ...).
"""
from __future__ import annotations

from typing import Any

from ..structured.meta import check_same_device
from ..tensor import Tensor
from .factories import aten
from .factories import wrapped_scalar_tensor as _w
from .pair_losses import apply_loss_reduction
from .registry import composite_explicit_autograd, composite_implicit_autograd

_EPSILON = 1e-12  # Loss.cpp's EPSILON


@composite_explicit_autograd("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", "")
def mse_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    diff = aten("sub.Tensor")(self, target)
    return apply_loss_reduction(aten("mul.Tensor")(diff, diff), reduction)


@composite_explicit_autograd("smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) "
                             "-> Tensor", "")
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = 1, beta: float = 1.0) -> Tensor:
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    z = aten("abs")(aten("sub.Tensor")(self, target))
    if beta == 0:
        return apply_loss_reduction(z, reduction)
    # torch's kernel: z < beta ? 0.5 * z * z / beta : z - 0.5 * beta
    quad = aten("div.Tensor")(aten("mul.Tensor")(aten("mul.Tensor")(z, _w(0.5)), z), _w(beta))
    lin = aten("sub.Tensor")(z, _w(0.5 * beta))
    return apply_loss_reduction(aten("where.self")(aten("lt.Tensor")(z, _w(beta)), quad, lin), reduction)


@composite_explicit_autograd("huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) "
                             "-> Tensor", "")
def huber_loss(self: Tensor, target: Tensor, reduction: int = 1, delta: float = 1.0) -> Tensor:
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # torch's kernel: z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta)
    z = aten("abs")(aten("sub.Tensor")(self, target))
    quad = aten("mul.Tensor")(aten("mul.Tensor")(z, _w(0.5)), z)
    lin = aten("mul.Tensor")(aten("sub.Tensor")(z, _w(0.5 * delta)), _w(delta))
    return apply_loss_reduction(aten("where.self")(aten("lt.Tensor")(z, _w(delta)), quad, lin), reduction)


@composite_explicit_autograd("soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", "")
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    # log(1 + exp(-y x)), as torch's at::log1p(at::exp(-input * target))
    margin = aten("mul.Tensor")(aten("neg")(self), target)
    return apply_loss_reduction(aten("log1p")(aten("exp")(margin)), reduction)


@composite_explicit_autograd("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, "
                             "int reduction=Mean) -> Tensor", "")
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    check_same_device((self, target, weight))  # torch's CPU/CUDA kernel: the dispatcher's check
    if self._device.type != "meta":
        inside = aten("logical_and")(aten("ge.Tensor")(self, _w(0)), aten("le.Tensor")(self, _w(1)))
        if not bool(aten("all")(inside)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        inside = aten("logical_and")(aten("ge.Tensor")(target, _w(0)), aten("le.Tensor")(target, _w(1)))
        if not bool(aten("all")(inside)):
            raise RuntimeError("all elements of target should be between 0 and 1")
    # (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100)
    log_1mx = aten("clamp_min")(aten("log1p")(aten("neg")(self)), -100.0)
    log_x = aten("clamp_min")(aten("log")(self), -100.0)
    loss = aten("sub.Tensor")(aten("mul.Tensor")(aten("sub.Tensor")(target, _w(1)), log_1mx),
                              aten("mul.Tensor")(target, log_x))
    if weight is not None:
        loss = aten("mul.Tensor")(loss, weight)
    return apply_loss_reduction(loss, reduction)


@composite_explicit_autograd("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
                             "Tensor? pos_weight=None, int reduction=Mean) -> Tensor", "")
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    # (1 - y) x - lw * log_sigmoid(x), lw = 1 + (pos_weight - 1) y: stable for any x
    log_sig = aten("log_sigmoid_forward")(self)[0]
    if pos_weight is not None:
        lw = aten("add.Tensor")(aten("mul.Tensor")(aten("sub.Tensor")(pos_weight, _w(1)), target), _w(1))
        log_sig = aten("mul.Tensor")(log_sig, lw)
    loss = aten("sub.Tensor")(aten("mul.Tensor")(aten("rsub.Scalar")(target, 1), self), log_sig)
    if weight is not None:
        loss = aten("mul.Tensor")(loss, weight)
    return apply_loss_reduction(loss, reduction)


@composite_implicit_autograd("kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) "
                             "-> Tensor", "")
def kl_div(self: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False) -> Tensor:
    if self.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (self.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = aten("mul.Tensor")(aten("exp")(target), aten("sub.Tensor")(target, self))
    else:
        loss = aten("sub.Tensor")(aten("xlogy.Tensor")(target, target), aten("mul.Tensor")(target, self))
    return apply_loss_reduction(loss, reduction)


def reduction_enum(reduction: str) -> Any:
    """torch.nn._reduction.get_enum: 'none' 0, 'mean' 1, 'sum' 2."""
    return {"none": 0, "mean": 1, "sum": 2}[reduction]
