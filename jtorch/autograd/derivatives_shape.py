"""Derivatives of views, shape operators, indexing, joining, gather/scatter, sorting values: part of the table in derivatives.py (see its doc)."""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("expand", self="sum_to(grad, self.shape)"),
    D("permute", self="grad.permute(inverse_permutation(dims))"),
    D("select.int", self="select_backward(grad, self.shape, dim, index)"),
    D("t", self="grad.t()"),
    D("transpose.int", self="grad.transpose(dim0, dim1)"),
    D("unsqueeze", self="grad.squeeze(dim)"),
    D("view", self="grad.reshape(self.shape)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
