"""Derivatives of reductions, scans, softmax and matrix products: part of the table in derivatives.py (see its doc)."""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("mean", self="grad.expand(self.shape) / self.numel()"),
    D("mean.dim", self="mean_backward(grad, self.shape, dim, reduced_numel(self.shape, dim), keepdim)"),
    D("mm", self="mm_mat1_backward(grad, mat2, self)", mat2="mm_mat2_backward(grad, self, mat2)"),
    D("sum", self="grad.expand(self.shape)"),
    D("sum.dim_IntList", self="sum_backward(grad, self.shape, dim, keepdim)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
