"""Formula helpers for the elementwise entries (PyTorch's FunctionsManual.cpp; see formulas.py).

PyTorch's engine reduces a gradient to its input's shape and casts it to the input's dtype
(validate_outputs); jtorch's formulas do it themselves, with `fit(g, x.shape, x.dtype)`. A formula
reads an input only through `x.shape` / `x.dtype` where that is all it needs, so the node saves the
metadata, not the tensor. Tensor methods only: every helper is itself differentiable.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .formulas import conj, sum_to

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)  # M_SQRT2 * M_2_SQRTPI * 0.5, gelu's kBeta
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_KAPPA = 0.044715


def fit(g: Any, shape: Sequence[int], dtype: Any) -> Any:
    """validate_outputs: sum the broadcast dimensions away, then cast to the input's dtype."""
    if tuple(g.shape) != tuple(shape):
        g = sum_to(g, shape)
    return g if g.dtype == dtype else g.to(dtype)


def zeros_grad(grad: Any, shape: Sequence[int], dtype: Any) -> Any:
    """The gradient of a piecewise-constant function (floor, sign, round, div with rounding_mode)."""
    return grad.new_zeros(tuple(shape)).to(dtype)


def where_zero(mask: Any, grad: Any) -> Any:
    """where(mask, grad, 0) (masked_fill keeps grad's dtype; a NaN in grad where ~mask becomes 0)."""
    return grad.masked_fill(mask.logical_not(), 0)


# ---- binary arithmetic -------------------------------------------------------------------------------
def div_backward_self(grad: Any, other: Any, shape: Sequence[int], dtype: Any, rounding_mode: Any = None) -> Any:
    """div_tensor_self_backward."""
    if rounding_mode is not None:
        return zeros_grad(grad, shape, dtype)
    return fit(grad / conj(other), shape, dtype)


def div_backward_other(grad: Any, self: Any, other: Any, rounding_mode: Any = None) -> Any:
    """div_tensor_other_backward: -grad * self / other**2."""
    if rounding_mode is not None:
        return zeros_grad(grad, other.shape, other.dtype)
    return fit(-grad * conj((self / other) / other), other.shape, other.dtype)


def pow_backward(grad: Any, self: Any, exponent: Any) -> Any:
    """pow.Tensor_Scalar: exponent * self**(exponent - 1); an exponent of 0 gives zeros."""
    if exponent == 0:
        return grad.new_zeros(self.shape).to(self.dtype)
    if exponent == 2:  # 2 * self.pow(1) is self + self, exactly: no pow, and no Python-number operand
        return fit(grad * (self + self), self.shape, self.dtype)
    return fit(grad * (self.pow(exponent - 1) * exponent), self.shape, self.dtype)


def pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    """pow.Tensor_Tensor, d/dself: 0 where the exponent is 0 (also at self == 0, 0**-1 ...)."""
    out = grad * (exponent * self.pow(exponent - 1))
    return fit(out.masked_fill(exponent == 0, 0), self.shape, self.dtype)


def pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    """pow.Tensor_Tensor, d/dexponent: result * log(self); 0 where self == 0 and exponent >= 0."""
    cond = (self == 0).logical_and(exponent >= 0)
    base = self if self.dtype == result.dtype else self.to(result.dtype)  # log in the promoted dtype
    out = grad * (result * base.log()).masked_fill(cond, 0)
    return fit(out, exponent.shape, exponent.dtype)


def pow_backward_scalar_base(grad: Any, base: Any, exponent: Any, result: Any) -> Any:
    """pow.Scalar (a number to a tensor power), d/dexponent: result * log(base)."""
    b = float(base)
    log_b = math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)
    out = grad * (result * log_b)
    if b == 0:
        out = out.masked_fill(exponent >= 0, 0)
    return fit(out, exponent.shape, exponent.dtype)


def _atan2_recip(self: Any, other: Any) -> Any:
    """1 / (self**2 + other**2), 0 at the origin (torch's gradient of atan2(0, 0) is 0)."""
    d = self * self + other * other
    return d.reciprocal().masked_fill(d == 0, 0)


def atan2_backward_self(grad: Any, self: Any, other: Any) -> Any:
    return fit(grad * other * _atan2_recip(self, other), self.shape, self.dtype)


def atan2_backward_other(grad: Any, self: Any, other: Any) -> Any:
    return fit(grad * -self * _atan2_recip(self, other), other.shape, other.dtype)


def max_min_backward(grad: Any, self: Any, other: Any, zero_where: Any, shape: Sequence[int], dtype: Any) -> Any:
    """maximum / minimum: the whole grad to the larger (smaller) input, half to each on a tie."""
    return fit((grad / 2).where(self == other, grad).masked_fill(zero_where, 0), shape, dtype)


def fmax_fmin_backward(grad: Any, keep: Any, shape: Sequence[int], dtype: Any) -> Any:
    """fmax / fmin: grad where this input was chosen (`keep`), else 0."""
    return fit(grad.masked_fill(keep.logical_not(), 0), shape, dtype)


# ---- clamp ---------------------------------------------------------------------------------------------
def clamp_backward(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """Inclusive bounds: the gradient passes where min <= self <= max (NaN self: 0)."""
    if min is not None and max is not None:
        mask = (self >= min).logical_and(self <= max)
    elif min is not None:
        mask = self >= min
    elif max is not None:
        mask = self <= max
    else:
        return fit(grad, self.shape, self.dtype)
    return fit(where_zero(mask, grad), self.shape, self.dtype)


def clamp_backward_min(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """clamp_backward_min_max, the min part: self < min (and min < max when both are given)."""
    mask = self < min
    if max is not None:
        mask = mask.logical_and(min < max)
    return fit(where_zero(mask, grad), min.shape, min.dtype)


def clamp_backward_max(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """clamp_backward_min_max, the max part: self > max (or max < min when both are given)."""
    mask = self > max
    if min is not None:
        mask = mask.logical_or(max < min)
    return fit(where_zero(mask, grad), max.shape, max.dtype)


# ---- activations ---------------------------------------------------------------------------------------
def gelu_backward(grad: Any, self: Any, approximate: str) -> Any:
    """gelu_backward, written with differentiable operators (PyTorch's GeluKernel formulas)."""
    if approximate == "tanh":
        x_sq = self * self
        inner = (self + x_sq * self * _GELU_KAPPA) * _SQRT_2_OVER_PI
        t = inner.tanh()
        left_d = (t + 1) * 0.5
        right_d = self * 0.5 * (1 - t * t) * ((x_sq * (3 * _GELU_KAPPA) + 1) * _SQRT_2_OVER_PI)
        return grad * (left_d + right_d)
    cdf = ((self * math.sqrt(0.5)).erf() + 1) * 0.5
    pdf = (self * self * -0.5).exp() * _INV_SQRT_2PI
    return grad * (cdf + self * pdf)


def silu_backward(grad: Any, self: Any) -> Any:
    """infinitely_differentiable_silu_backward."""
    s = self.sigmoid()
    return grad * s * (1 + self * (1 - s))


def logit_backward(grad: Any, self: Any, eps: Any) -> Any:
    """infinitely_differentiable_logit_backward: 0 outside [eps, 1 - eps]; NaN outside [0, 1] without eps."""
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = (self >= lo).logical_and(self <= hi)
    return (grad / (self * (1 - self))).masked_fill(inside.logical_not(), math.nan if eps is None else 0.0)


# ---- fills, copies, conversions ------------------------------------------------------------------------
def masked_fill_value_backward(grad: Any, mask: Any, dtype: Any) -> Any:
    """masked_fill_backward: the filled positions' gradients, summed, in the value's dtype."""
    g = grad.masked_fill(mask.logical_not(), 0).sum()
    return g if g.dtype == dtype else g.to(dtype)


def sum_all_as(grad: Any, dtype: Any) -> Any:
    """fill_(Tensor value): every element came from the value."""
    g = grad.sum()
    return g if g.dtype == dtype else g.to(dtype)


def to_copy_backward(grad: Any, dtype: Any, device: Any) -> Any:
    """_to_copy_backward: the gradient back in the input's dtype and device."""
    if grad.dtype == dtype and grad.device == device:
        return grad
    return grad.to(device=device, dtype=dtype)


# ---- complex and sign functions --------------------------------------------------------------------------
def sgn_backward(self: Any, grad: Any, result: Any) -> Any:
    """sgn_backward: (g - sgn * Re(g * conj(sgn))) / |x|, 0 where x is 0 (0 everywhere for real x)."""
    a = self.abs()
    proj = grad * result.conj()
    if proj.is_complex():
        proj = proj.real
    return ((grad - result * proj) / a).masked_fill(a == 0, 0)


def angle_backward(grad: Any, self: Any) -> Any:
    """angle_backward: grad * i * x / |x|^2 (0 at 0) for complex x, zeros for real x."""
    if not self.is_complex():
        return self.new_zeros(self.shape)
    g = grad * self / self.abs().pow(2) * 1j
    return g.masked_fill(self == 0, 0)


def polar_backward(grad: Any, result: Any) -> tuple[Any, Any]:
    """polar_backward: Re(conj(g) * sgn(result)) and Re(conj(g) * result * i)."""
    grad_conj = grad.conj()
    return (grad_conj * result.sgn()).real, (grad_conj * (result * 1j)).real


def elu_backward(grad: Any, alpha: Any, scale: Any, input_scale: Any, is_result: bool, self_or_result: Any) -> Any:
    """elu_backward: from the input, or from the result of an in-place elu (is_result)."""
    neg_coef, pos_coef = alpha * scale, scale
    x = self_or_result
    if is_result:
        return (grad * input_scale * (x + neg_coef)).where(x <= 0, grad * pos_coef)
    return (grad * input_scale * neg_coef * (x * input_scale).exp()).where(x <= 0, grad * pos_coef)


def hardshrink_backward(grad: Any, self: Any, lambd: Any) -> Any:
    """0 where -lambd <= x <= lambd, grad elsewhere (NaN inputs pass the gradient)."""
    return grad.masked_fill((self >= -lambd).logical_and(self <= lambd), 0)


def xlogy_scalar_other_backward(grad: Any, self: Any, other: Any) -> Any:
    """torch's formula: grad * log(other) for a positive other, else grad * xlogy(self != 0, other)."""
    if float(other) > 0:
        return grad * math.log(float(other))
    nonzero = (self != 0).to(grad.dtype)
    return grad * nonzero.xlogy(other)


def hardtanh_backward(grad: Any, self: Any, min_val: Any, max_val: Any) -> Any:
    """0 at and beyond the bounds, grad elsewhere (NaN passes it)."""
    return grad.masked_fill((self <= min_val).logical_or(self >= max_val), 0)


def leaky_relu_backward(grad: Any, self_or_result: Any, negative_slope: Any, is_result: bool) -> Any:
    """grad where x > 0, grad * negative_slope elsewhere; from the result of leaky_relu_ only for a
    non-negative slope (a negative one flips the result's sign)."""
    if is_result and float(negative_slope) < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    return grad.where(self_or_result > 0, grad * negative_slope)


def softplus_backward(grad: Any, self: Any, beta: Any, threshold: Any) -> Any:
    """grad where x * beta > threshold, else grad * z / (z + 1) with z = exp(x * beta)."""
    scaled = self * beta
    z = scaled.exp()
    return grad.where(scaled > threshold, grad * z / (z + 1))


def hardsigmoid_backward(grad: Any, self: Any) -> Any:
    """grad / 6 strictly inside (-3, 3), 0 elsewhere; 1/6 is torch's float constant 1.0f / 6.0f."""
    return (grad * 0.1666666716337204).where((self > -3).logical_and(self < 3), 0)


def hardswish_backward(grad: Any, self: Any) -> Any:
    """0 up to -3, grad * (x / 3 + 1/2) below 3, grad from 3 on (and for NaN)."""
    return (grad * (self / 3 + 0.5)).where(self < 3, grad).masked_fill(self <= -3, 0)


def mish_backward(grad: Any, self: Any) -> Any:
    """grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2))."""
    tanh_softplus = self.exp().log1p().tanh()
    return grad * (tanh_softplus + self * self.sigmoid() * (1 - tanh_softplus * tanh_softplus))


def log_sigmoid_backward(grad: Any, self: Any, buffer: Any) -> Any:
    """torch's kernel: (max_deriv - sign * z / (1 + z)) * grad with z = exp(-|x|) (the forward's buffer),
    max_deriv and sign 1 below 0, 0 and -1 from 0 on (so 1/2 at 0). z is recomputed from self so that the
    formula differentiates again (torch's log_sigmoid_backward has its own derivative)."""
    z = (-self.abs()).exp()
    t = z / (z + 1)
    return (1 - t).where(self < 0, t) * grad


def glu_backward(grad: Any, self: Any, dim: int) -> Any:
    """For self = [a, b] along dim: grad * sigmoid(b), and grad * a * sigmoid(b) * (1 - sigmoid(b))."""
    a, b = self.chunk(2, dim)
    gate = b.sigmoid()
    grad_a = grad * gate
    # at::cat of the two halves, written as copies into a zero tensor (differentiable, see formulas_shape.py)
    out = grad.new_zeros(tuple(self.shape))
    half = a.shape[dim]
    out.narrow(dim, 0, half).copy_(grad_a)
    out.narrow(dim, half, half).copy_(grad_a * a * (1 - gate))
    return out


def rrelu_with_noise_backward(grad: Any, self: Any, noise: Any, lower: Any, upper: Any, training: bool) -> Any:
    """grad * noise while training (a real range), else leaky_relu's backward with the mean slope."""
    if training and float(upper) - float(lower) > 1e-6:
        return grad * noise
    slope = (float(lower) + float(upper)) / 2
    return grad.where(self > 0, grad * slope)


def prelu_kernel_backward(grad: Any, self: Any, weight: Any) -> tuple[Any, Any]:
    """_prelu_kernel_backward: grad or weight * grad for self; 0 or self * grad for weight, summed to its shape."""
    positive = self > 0
    grad_self = grad.where(positive, weight * grad)
    grad_weight = (self * grad).masked_fill(positive, 0)
    return grad_self, sum_to(grad_weight, weight.shape)


# ---- the pointwise losses (Loss.cpp's *_backward): reduction 1 (mean) divides by the input's numel -----
def _loss_norm(self: Any, reduction: int, scale: float = 1.0) -> float:
    return scale / self.numel() if reduction == 1 else scale


def mse_loss_backward(grad: Any, self: Any, target: Any, reduction: int) -> Any:
    """norm * (self - target) * grad, norm 2 (2 / numel for a mean)."""
    return fit((self - target) * _loss_norm(self, reduction, 2.0) * grad, self.shape, self.dtype)


def smooth_l1_loss_backward(grad: Any, self: Any, target: Any, reduction: int, beta: float) -> Any:
    """-norm * grad below -beta, norm * grad above beta, norm * x * grad / beta between (x = self - target)."""
    norm = _loss_norm(self, reduction)
    x = self - target
    inner = x * norm * grad / beta if beta else x * 0 * grad
    # NaN takes the inner branch, as torch's kernel's comparisons send it there
    g = (-norm * grad).where(x < -beta, (grad * norm).where(x > beta, inner))
    return fit(g, self.shape, self.dtype)


def huber_loss_backward(grad: Any, self: Any, target: Any, reduction: int, delta: float) -> Any:
    """-norm * grad * delta below -delta, norm * grad * delta above delta, norm * x * grad between."""
    norm = _loss_norm(self, reduction)
    x = self - target
    g = (grad * (-norm * delta)).where(x < -delta, (grad * (norm * delta)).where(x > delta, x * norm * grad))
    return fit(g, self.shape, self.dtype)


def soft_margin_loss_backward(grad: Any, self: Any, target: Any, reduction: int) -> Any:
    """-norm * target * z / (1 + z) * grad with z = exp(-target * self)."""
    z = (-target * self).exp()
    return fit(target * -_loss_norm(self, reduction) * z / (z + 1) * grad, self.shape, self.dtype)


def binary_cross_entropy_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """grad * (x - y) / max((1 - x) x, EPSILON), times the weight, over numel for a mean."""
    g = grad * (self - target) / ((1 - self) * self).clamp_min(1e-12)
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / self.numel()
    return fit(g, self.shape, self.dtype)


def binary_cross_entropy_target_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """-logit(x) * grad, times the weight, over numel for a mean."""
    g = -self.logit() * grad
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / target.numel()
    return fit(g, target.shape, target.dtype)


def bce_with_logits_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                             reduction: int) -> Any:
    """(sigmoid(x) - y) * grad, or ((pw y + 1 - y) sigmoid(x) - pw y) * grad; times the weight, over
    numel for a mean."""
    if pos_weight is not None:
        t = pos_weight * target
        g = (t + 1 - target) * self.sigmoid() - t
    else:
        g = self.sigmoid() - target
    g = g * grad
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / self.numel()
    return fit(g, self.shape, self.dtype)


def _log_sigmoid(x: Any) -> Any:
    """min(x, 0) - log1p(exp(-|x|)): log(sigmoid(x)) without its underflow."""
    return x.clamp_max(0) - (-x.abs()).exp().log1p()


def bce_with_logits_target_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                                    reduction: int) -> Any:
    """-x * grad, or (log_sigmoid(-x) - pw log_sigmoid(x)) * grad; times the weight, over numel for a mean."""
    if pos_weight is not None:
        g = _log_sigmoid(-self) - _log_sigmoid(self) * pos_weight
    else:
        g = -self
    g = g * grad
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / target.numel()
    return fit(g, target.shape, target.dtype)
