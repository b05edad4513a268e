"""Derivatives of the attention operators: part of the table in derivatives.py (see its doc).

Node names are torch's (SafeSoftmaxBackward0, ScaledDotProductFlashAttentionForCpuBackward0); the fused
operator's gradient is its own backward operator, which recomputes the probabilities from the saved
log-sum-exp, as torch's flash kernel does (it has no derivative of its own, as in torch).
"""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("_safe_softmax", self="aten._softmax_backward_data.default(grad, result, dim, self.dtype)"),
    D("_scaled_dot_product_flash_attention_for_cpu", **{  # type: ignore[arg-type]  # formulas only
        "query, key, value": "aten._scaled_dot_product_flash_attention_for_cpu_backward.default(grad, query, key, "
                             "value, output, logsumexp, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)"},
      output_differentiability=[True, False]),
]

NON_DIFFERENTIABLE: frozenset[str] = frozenset({"_fused_sdp_choice"})
