"""Derivatives of pointwise operators: unary and binary math, comparisons-free arithmetic, clamp/where/lerp, copies and conversions: part of the table in derivatives.py (see its doc)."""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("abs", self="grad * self.sgn()"),
    D("add.Tensor", self="handle_r_to_c(self, sum_to(grad, self.shape))",
      other="handle_r_to_c(other, sum_to(maybe_multiply(grad, alpha), other.shape))"),
    D("clone", self="grad"),
    D("copy_", self="zeros_like(grad)", src="sum_to(grad, src.shape).to(src.dtype)"),
    D("div.Tensor", self="div_tensor_self_backward(grad, other, self)",
      other="div_tensor_other_backward(grad, self, other)"),
    D("exp", self="grad * conj(result)"),
    D("log", self="grad.div(conj(self))"),
    D("mul.Tensor", self="mul_tensor_backward(grad, other, self)", other="mul_tensor_backward(grad, self, other)"),
    D("neg", self="grad.neg()"),
    D("relu", self="threshold_backward(grad, result, 0)"),
    D("sigmoid", self="grad * result * (1 - result)"),
    D("sin", self="grad * self.cos()"),
    D("cos", self="grad * -self.sin()"),
    D("sub.Tensor", self="handle_r_to_c(self, sum_to(grad, self.shape))",
      other="handle_r_to_c(other, sum_to(-maybe_multiply(grad, alpha), other.shape))"),
    D("tanh", self="grad * (1 - result * result)"),
    D("where.self", self="where_backward_self(condition, grad, self)",
      other="where_backward_other(condition, grad, other)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
