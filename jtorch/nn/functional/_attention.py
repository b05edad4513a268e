"""nn.functional: scaled_dot_product_attention (aten::scaled_dot_product_attention, declared in
native/attention.py) and multi_head_attention_forward (torch/nn/functional.py's, composed of linear,
scaled_dot_product_attention and, when the weights are asked for, baddbmm/softmax/bmm)."""
from __future__ import annotations

from typing import Any

import jtorch

from ...tensor import Tensor

__all__ = ["scaled_dot_product_attention"]

_sdpa: Any = None


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v over the last two dims, any leading batch dims (broadcast).
    A boolean attn_mask marks with True the positions that take part; a float one is added."""
    global _sdpa
    if _sdpa is None:
        _sdpa = jtorch.ops.aten.scaled_dot_product_attention.default
    return _sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa)
