"""Derivatives of convolution, pooling and nll_loss: part of the table in derivatives.py (see its doc).

Node names are torch's (ConvolutionBackward0, MaxPool2DWithIndicesBackward0, AvgPool2DBackward0,
AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0, Im2ColBackward0, Col2ImBackward0,
NllLossBackward0, NllLossBackwardBackward0). Every formula is made of
differentiable operators, the backward operators included, so double backward works.
"""
from __future__ import annotations

from .derivative import D

_VALUES_ONLY = [True, False]  # (values, indices)

ENTRIES = [
    D("_adaptive_avg_pool2d", self="aten._adaptive_avg_pool2d_backward.default(grad, self)"),
    D("_adaptive_avg_pool2d_backward",
      grad_output="aten._adaptive_avg_pool2d.default(grad, [grad_output.shape[-2], grad_output.shape[-1]])",
      self="grad.new_zeros(self.shape)"),
    D("adaptive_max_pool2d", self="aten.adaptive_max_pool2d_backward.default(grad, self, result1)",
      output_differentiability=_VALUES_ONLY),
    D("adaptive_max_pool2d_backward", grad_output="max_pool_double_backward(grad, indices, 2)",
      self="grad.new_zeros(self.shape)"),
    D("avg_pool2d", self="aten.avg_pool2d_backward.default(grad, self, kernel_size, stride, padding, ceil_mode, "
                         "count_include_pad, divisor_override)"),
    D("avg_pool2d_backward", grad_output="aten.avg_pool2d.default(grad, kernel_size, stride, padding, ceil_mode, "
                                         "count_include_pad, divisor_override)",
      self="grad.new_zeros(self.shape)"),
    D("col2im", self="aten.im2col.default(grad, kernel_size, dilation, padding, stride)"),
    D("convolution", **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
        "input, weight, bias": "convolution_backward(aten, grad, input, weight, stride, padding, "
                                               "dilation, transposed, output_padding, groups, needs)"}),
    D("im2col", self="aten.col2im.default(grad, [self.shape[-2], self.shape[-1]], kernel_size, dilation, padding, "
                     "stride)"),
    D("max_pool2d_with_indices", self="aten.max_pool2d_with_indices_backward.default(grad, self, kernel_size, stride, "
                                      "padding, dilation, ceil_mode, result1)",
      output_differentiability=_VALUES_ONLY),
    D("nll_loss_forward", self="aten.nll_loss_backward.default(grad, self, target, weight, reduction, ignore_index, "
                                "total_weight)", output_differentiability=[True, False]),
    D("nll_loss_backward",
      grad_output="aten.nll_loss_forward.default(grad, target, weight, reduction, ignore_index)[0]",
      self="grad.new_zeros(self.shape)"),
    D("nll_loss2d_forward", self="aten.nll_loss2d_backward.default(grad, self, target, weight, reduction, "
                                  "ignore_index, total_weight)", output_differentiability=[True, False]),
    D("nll_loss2d_backward",
      grad_output="aten.nll_loss2d_forward.default(grad, target, weight, reduction, ignore_index)[0]",
      self="grad.new_zeros(self.shape)"),
    D("max_pool2d_with_indices_backward", grad_output="max_pool_double_backward(grad, indices, 2)",
      self="grad.new_zeros(self.shape)"),
    # 3-d pooling (jtorch/native/pooling_3d.py)
    D("max_pool3d_with_indices", self="aten.max_pool3d_with_indices_backward.default(grad, self, kernel_size, stride, "
                                      "padding, dilation, ceil_mode, result1)",
      output_differentiability=_VALUES_ONLY),
    D("max_pool3d_with_indices_backward", grad_output="max_pool_double_backward(grad, indices, 3)",
      self="grad.new_zeros(self.shape)"),
    D("avg_pool3d", self="aten.avg_pool3d_backward.default(grad, self, kernel_size, stride, padding, ceil_mode, "
                         "count_include_pad, divisor_override)"),
    D("avg_pool3d_backward", grad_output="aten.avg_pool3d.default(grad, kernel_size, stride, padding, ceil_mode, "
                                         "count_include_pad, divisor_override)",
      self="grad.new_zeros(self.shape)"),
    D("_adaptive_avg_pool3d", self="aten._adaptive_avg_pool3d_backward.default(grad, self)"),
    D("_adaptive_avg_pool3d_backward",
      grad_output="aten._adaptive_avg_pool3d.default(grad, [grad_output.shape[-3], grad_output.shape[-2], "
                  "grad_output.shape[-1]])",
      self="grad.new_zeros(self.shape)"),
    D("adaptive_max_pool3d", self="aten.adaptive_max_pool3d_backward.default(grad, self, result1)",
      output_differentiability=_VALUES_ONLY),
    D("adaptive_max_pool3d_backward", grad_output="max_pool_double_backward(grad, indices, 3)",
      self="grad.new_zeros(self.shape)"),
    D("max_unpool2d", self="max_pool_double_backward(grad, indices, 2)"),
    D("max_unpool3d", self="max_pool_double_backward(grad, indices, 3)"),
    D("fractional_max_pool2d", self="aten.fractional_max_pool2d_backward.default(grad, self, kernel_size, "
                                    "output_size, result1)", output_differentiability=_VALUES_ONLY),
    D("fractional_max_pool2d_backward", grad_output="max_pool_double_backward(grad, indices, 2)",
      self="grad.new_zeros(self.shape)"),
    D("fractional_max_pool3d", self="aten.fractional_max_pool3d_backward.default(grad, self, kernel_size, "
                                    "output_size, result1)", output_differentiability=_VALUES_ONLY),
    D("fractional_max_pool3d_backward", grad_output="max_pool_double_backward(grad, indices, 3)",
      self="grad.new_zeros(self.shape)"),
    # the pointwise losses (jtorch/native/pointwise_losses.py)
    D("binary_cross_entropy", self="binary_cross_entropy_backward(grad, self, target, weight, reduction)",
      target="binary_cross_entropy_target_backward(grad, self, target, weight, reduction)"),
    D("binary_cross_entropy_with_logits",
      self="bce_with_logits_backward(grad, self, target, weight, pos_weight, reduction)",
      target="bce_with_logits_target_backward(grad, self, target, weight, pos_weight, reduction)"),
    D("mse_loss", self="mse_loss_backward(grad, self, target, reduction)",
      target="mse_loss_backward(grad, target, self, reduction)"),
    D("smooth_l1_loss", self="smooth_l1_loss_backward(grad, self, target, reduction, beta)",
      target="smooth_l1_loss_backward(grad, target, self, reduction, beta)"),
    D("huber_loss", self="huber_loss_backward(grad, self, target, reduction, delta)",
      target="huber_loss_backward(grad, target, self, reduction, delta)"),
    D("soft_margin_loss", self="soft_margin_loss_backward(grad, self, target, reduction)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
