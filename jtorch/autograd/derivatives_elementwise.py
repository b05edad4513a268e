"""Derivatives of pointwise operators: unary and binary math, clamp/where/lerp, fills, copies and
conversions: part of the table in derivatives.py (see its doc).

In derivatives.yaml's order, because node names count per base name in table order. Entries for
overloads jtorch does not declare (div.Scalar, remainder.Scalar, ...) are kept where PyTorch has
them so that the declared ones get PyTorch's numbers (DivBackward2 for div.Tensor_mode); an entry
is only analyzed when its operator is used. Each formula reduces and casts its gradient itself
(`fit`, see formulas_elementwise.py) and reads its own input only as metadata where it can.
"""
from __future__ import annotations

from .derivative import D

_SELF = "fit(grad, self.shape, self.dtype)"
_ZERO = "zeros_grad(grad, self.shape, self.dtype)"

ENTRIES = [
    D("abs", self="grad * sgn(self)"),
    D("acos", self="grad * -((-self * self + 1).rsqrt())"),
    D("acosh", self="grad * ((self + 1).rsqrt() * (self - 1).rsqrt()).conj() if self.is_complex() "
                     "else grad * (self * self - 1).rsqrt()"),
    D("acosh_", self='not_implemented("inplace version of acosh")'),
    D("asinh", self="grad * (self.pow(2) + 1).rsqrt().conj()"),
    D("asinh_", self='not_implemented("inplace version of asinh")'),
    D("atanh", self="grad * 1 / (1 - self.pow(2)).conj()"),
    D("atanh_", self='not_implemented("inplace version of atanh")'),
    D("add.Tensor", self=_SELF, other="fit(maybe_multiply(grad, alpha), other.shape, other.dtype)"),
    D("add.Scalar", self=_SELF),
    D("addcdiv", self=_SELF,
      tensor1="fit(grad * (value / tensor2), tensor1.shape, tensor1.dtype)",
      tensor2="fit(-grad * (value * tensor1 / (tensor2 * tensor2)), tensor2.shape, tensor2.dtype)"),
    D("addcmul", self=_SELF,
      tensor1="fit(grad * (tensor2 * value), tensor1.shape, tensor1.dtype)",
      tensor2="fit(grad * (tensor1 * value), tensor2.shape, tensor2.dtype)"),
    D("angle", self="angle_backward(grad, self)"),
    D("asin", self="grad * (-self * self + 1).rsqrt()"),
    D("atan", self="grad / (self * self + 1)"),
    D("atan2", self="atan2_backward_self(grad, self, other)", other="atan2_backward_other(grad, self, other)"),
    D("bernoulli", self=_ZERO),  # bernoulli.p has no entry: NotImplemented, as in torch
    D("bernoulli_.Tensor", self=_ZERO, p="zeros_grad(grad, p.shape, p.dtype)"),
    D("bernoulli_.float", self=_ZERO),
    D("ceil", self=_ZERO),
    D("clamp.Tensor", self="clamp_backward(grad, self, min, max)",
      min="clamp_backward_min(grad, self, min, max)", max="clamp_backward_max(grad, self, min, max)"),
    D("clamp", self="clamp_backward(grad, self, min, max)"),
    D("clamp_min", self="fit(where_zero(self >= min, grad), self.shape, self.dtype)"),
    D("clamp_min.Tensor", self="fit(where_zero(self >= min, grad), self.shape, self.dtype)",
      min="fit(where_zero(self < min, grad), min.shape, min.dtype)"),
    D("clamp_max", self="fit(where_zero(self <= max, grad), self.shape, self.dtype)"),
    D("clamp_max.Tensor", self="fit(where_zero(self <= max, grad), self.shape, self.dtype)",
      max="fit(where_zero(self > max, grad), max.shape, max.dtype)"),
    D("clone", self="grad"),
    D("complex", real="aten.real.default(grad)", imag="aten.imag.default(grad)"),
    D("polar", **{"abs, angle": "polar_backward(grad, result)"}),  # type: ignore[arg-type]  # formulas only
    D("_conj", self="grad.conj()"),
    D("_conj_physical", self="grad.conj_physical()"),
    D("conj_physical_", self="grad.conj_physical()"),
    D("_to_copy", self="to_copy_backward(grad, self.dtype, self.device)"),
    # PyTorch's copy_ is written by hand (CopyBackwards, its name); the same gradients
    D("copy_", self="grad.new_zeros(self.shape)", src="fit(grad, src.shape, src.dtype)", node_name="CopyBackwards"),
    D("cos", self="grad * -self.sin()"),
    D("cosh", self="grad * self.sinh()"),
    D("deg2rad", self="grad * 0.017453292519943295"),  # deg2rad_backward: grad * (pi / 180)
    D("div.Tensor", self="div_backward_self(grad, other, self.shape, self.dtype)",
      other="div_backward_other(grad, self, other)"),
    D("div.Scalar", self="grad / other"),
    D("div.Tensor_mode", self="div_backward_self(grad, other, self.shape, self.dtype, rounding_mode)",
      other="div_backward_other(grad, self, other, rounding_mode)"),
    D("div.Scalar_mode", self="grad / other if rounding_mode is None else zeros_grad(grad, self.shape, self.dtype)"),
    D("erf", self="(-(self * self)).exp() * grad * 1.1283791670955126"),  # 2 / sqrt(pi)
    D("exp", self="grad * result"),
    D("exponential_", self=_ZERO),
    D("exp2", self="grad * result * 0.6931471805599453"),
    D("expm1", self="grad * (result + 1)"),
    D("fill.Scalar", self="grad.new_zeros(grad.shape)"),
    D("fill.Tensor", self="grad.new_zeros(grad.shape)", value="sum_all_as(grad, value.dtype)"),
    D("fill_.Scalar", self="grad.new_zeros(grad.shape)"),
    D("fill_.Tensor", self="grad.new_zeros(grad.shape)", value="sum_all_as(grad, value.dtype)"),
    D("floor", self=_ZERO),
    D("fmod.Scalar", self="grad"),
    D("fmod.Tensor", self=_SELF,
      other="fit(-grad * self.div(other, rounding_mode='trunc'), other.shape, other.dtype)"),
    D("frac", self="grad"),
    D("hypot", self="fit(grad * self / result, self.shape, self.dtype)",
      other="fit(grad * other / result, other.shape, other.dtype)"),
    D("lerp.Scalar", self="fit(grad * (1 - weight), self.shape, self.dtype)",
      end="fit(grad * weight, end.shape, end.dtype)"),
    D("lerp.Tensor", self="fit(grad * (1 - weight), self.shape, self.dtype)",
      end="fit(grad * weight, end.shape, end.dtype)",
      weight="fit(grad * (end - self), weight.shape, weight.dtype)"),
    D("log", self="grad / self"),
    D("log10", self="grad / (self * 2.3025850929940456)"),
    D("log1p", self="grad / (self + 1)"),
    D("log2", self="grad / (self * 0.6931471805599453)"),
    D("masked_fill.Scalar", self="fit(grad.masked_fill(mask, 0), self.shape, self.dtype)"),
    D("masked_fill.Tensor", self="fit(grad.masked_fill(mask, 0), self.shape, self.dtype)",
      value="masked_fill_value_backward(grad, mask, value.dtype)"),
    D("maximum", self="max_min_backward(grad, self, other, self < other, self.shape, self.dtype)",
      other="max_min_backward(grad, self, other, self > other, other.shape, other.dtype)"),
    D("fmax", self="fmax_fmin_backward(grad, (self >= other).logical_or(other.isnan()), self.shape, self.dtype)",
      other="fmax_fmin_backward(grad, (self >= other).logical_or(other.isnan()).logical_not(), other.shape, "
            "other.dtype)"),
    D("minimum", self="max_min_backward(grad, self, other, self > other, self.shape, self.dtype)",
      other="max_min_backward(grad, self, other, self < other, other.shape, other.dtype)"),
    D("fmin", self="fmax_fmin_backward(grad, (self <= other).logical_or(other.isnan()), self.shape, self.dtype)",
      other="fmax_fmin_backward(grad, (self <= other).logical_or(other.isnan()).logical_not(), other.shape, "
            "other.dtype)"),
    D("mul.Tensor", self="fit(grad * conj(other), self.shape, self.dtype)",
      other="fit(grad * conj(self), other.shape, other.dtype)"),
    D("mul.Scalar", self="grad * other"),
    D("nan_to_num", self="grad * self.isfinite()"),
    D("neg", self="grad.neg()"),
    D("pow.Tensor_Scalar", self="pow_backward(grad, self, exponent)"),
    D("pow.Tensor_Tensor", self="pow_backward_self(grad, self, exponent)",
      exponent="pow_backward_exponent(grad, self, exponent, result)"),
    D("pow.Scalar", exponent="pow_backward_scalar_base(grad, self, exponent, result)"),
    D("rad2deg", self="grad * 57.29577951308232"),  # rad2deg_backward: grad * (180 / pi)
    D("reciprocal", self="-grad * (result * result)"),
    D("remainder.Scalar", self="grad"),
    D("remainder.Tensor", self=_SELF,
      other="fit(-grad * self.div(other, rounding_mode='floor'), other.shape, other.dtype)"),
    D("round", self=_ZERO),
    D("round.decimals", self=_ZERO),
    D("rsqrt", self="-0.5 * grad * result.pow(3)"),
    D("sigmoid", self="grad * (1 - result) * result"),
    D("logit", self="logit_backward(grad, self, eps)"),
    D("sign", self=_ZERO),
    D("sgn", self="sgn_backward(self, grad, result)"),
    D("sin", self="grad * self.cos()"),
    D("sinh", self="grad * self.cosh()"),
    D("sqrt", self="grad / (2 * result)"),
    D("sub.Tensor", self=_SELF, other="fit(maybe_multiply(-grad, alpha), other.shape, other.dtype)"),
    D("sub.Scalar", self=_SELF),
    D("rsub.Tensor", self="fit(maybe_multiply(-grad, alpha), self.shape, self.dtype)",
      other="fit(grad, other.shape, other.dtype)"),
    D("rsub.Scalar", self="fit(maybe_multiply(-grad, alpha), self.shape, self.dtype)"),
    D("tan", self="grad * (1 + result * result)"),
    D("tanh", self="grad * (1 - result * result)"),
    D("trunc", self=_ZERO),
    D("where.self", self="fit(where_zero(condition, grad), self.shape, self.dtype)",
      other="fit(grad.masked_fill(condition, 0), other.shape, other.dtype)"),
    D("view_as_real", self="aten.view_as_complex.default(grad.contiguous())"),
    D("view_as_complex", self="aten.view_as_real.default(grad.contiguous())"),
    D("zero_", self="grad.new_zeros(grad.shape)"),
    # Filled with values that do not depend on the input: a zero gradient, which also rebases the
    # history of an in-place fill of a tensor that has one (x = a * 2; x.uniform_() drops MulBackward0).
    D("normal_", self=_ZERO),
    D("normal.Tensor_float", mean="zeros_grad(grad, mean.shape, grad.dtype)"),
    D("normal.float_Tensor", std="zeros_grad(grad, std.shape, grad.dtype)"),
    D("normal.Tensor_Tensor", mean="zeros_grad(grad, mean.shape, grad.dtype)",
      std="zeros_grad(grad, std.shape, grad.dtype)"),
    D("random_.from", self=_ZERO),
    D("random_.to", self=_ZERO),
    D("random_", self=_ZERO),
    D("uniform_", self=_ZERO),
    # the samplers with parameters (binomial, _sample_dirichlet have no entry: NotImplemented, as in torch)
    D("cauchy_", self=_ZERO),
    D("geometric_", self=_ZERO),
    D("log_normal_", self=_ZERO),
    D("poisson", self=_ZERO),
    D("_standard_gamma", self="grad * aten._standard_gamma_grad.default(self, result)"),
    # An in-place comparison keeps self's dtype (x.eq_(y) on floats writes 0.0 and 1.0): zero gradients.
    *[D(f"{op}_.{kind}", self=_ZERO,
        **({"other": "zeros_grad(grad, other.shape, other.dtype)"}  # type: ignore[arg-type]  # formulas only
           if kind == "Tensor" else {}))
      for op in ("eq", "ge", "gt", "le", "lt", "ne") for kind in ("Scalar", "Tensor")],
    D("relu", self="aten.threshold_backward.default(grad, result, 0)"),
    D("threshold_backward", grad_output="aten.threshold_backward.default(grad, self, threshold)",
      self="zeros_grad(grad, self.shape, self.dtype)"),
    D("silu", self="silu_backward(grad, self)"),
    D("gelu", self="gelu_backward(grad, self, approximate)"),
    # activations in derivatives.yaml's order
    D("elu", self="elu_backward(grad, alpha, scale, input_scale, False, self)"),
    D("elu_", self="elu_backward(grad, alpha, scale, input_scale, True, result)"),
    D("celu", self="elu_backward(grad, alpha, 1, 1.0 / float(alpha), False, self)"),
    D("celu_", self="elu_backward(grad, alpha, 1, 1.0 / float(alpha), True, result)"),
    D("hardshrink", self="hardshrink_backward(grad, self, lambd)"),
    D("_prelu_kernel", **{"self, weight": "prelu_kernel_backward(grad, self, weight)"}),  # type: ignore[arg-type]
    D("rrelu_with_noise", self="rrelu_with_noise_backward(grad, self, noise, lower, upper, training)"),
    D("rrelu_with_noise_", self="rrelu_with_noise_backward(grad, result, noise, lower, upper, training)"),
    D("threshold", self="aten.threshold_backward.default(grad, self, threshold)"),
    D("threshold_", self="aten.threshold_backward.default(grad, self, threshold)"),
    D("xlogy.Tensor", self="fit(grad * aten.xlogy.Tensor(self != 0, other), self.shape, self.dtype)",
      other="fit(grad * self / other, other.shape, other.dtype)"),
    D("xlogy.Scalar_Self", other="fit(grad * self / other, other.shape, other.dtype)"),
    D("xlogy.Scalar_Other", self="xlogy_scalar_other_backward(grad, self, other)"),
    D("hardtanh", self="hardtanh_backward(grad, self, min_val, max_val)"),
    D("leaky_relu", self="leaky_relu_backward(grad, self, negative_slope, False)"),
    D("leaky_relu_", self="leaky_relu_backward(grad, result, negative_slope, True)"),
    D("softplus", self="softplus_backward(grad, self, beta, threshold)"),
    D("softshrink", self="hardshrink_backward(grad, self, lambd)"),
    D("hardsigmoid", self="hardsigmoid_backward(grad, self)"),
    D("hardswish", self="hardswish_backward(grad, self)"),
    D("mish", self="mish_backward(grad, self)"),
    D("log_sigmoid_forward", self="log_sigmoid_backward(grad, self, buffer)"),
    D("glu", self="glu_backward(grad, self, dim)"),
]

# floor_divide and remainder.Scalar_Tensor are left without an entry, as in PyTorch: their outputs
# get a NotImplemented node ("derivative for aten::floor_divide is not implemented").
NON_DIFFERENTIABLE: frozenset = frozenset({
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isclose", "allclose",
    "bitwise_left_shift", "bitwise_right_shift", "signbit", "isposinf", "isneginf",
})
