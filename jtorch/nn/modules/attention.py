"""MultiheadAttention (torch/nn/modules/activation.py) with torch's parameter layout and initialisation,
and NonDynamicallyQuantizableLinear, the class of its out_proj (torch/nn/modules/linear.py)."""
from __future__ import annotations

from typing import Any

import jtorch

from ...tensor import Tensor
from .. import functional as F
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name (torch keeps it so quantization leaves MultiheadAttention's out_proj alone)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)


class MultiheadAttention(Module):
    """Attention over `num_heads` heads of embed_dim // num_heads features. Parameters: in_proj_weight (3E, E)
    = [Wq; Wk; Wv] when kdim == vdim == E, else q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight
    (E, vdim); in_proj_bias (3E,); out_proj; bias_k, bias_v (1, 1, E) with add_bias_kv."""

    __constants__ = ["batch_first"]
    bias_k: Tensor | None
    bias_v: Tensor | None

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(jtorch.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(jtorch.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(jtorch.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(jtorch.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(jtorch.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(jtorch.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(jtorch.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state: dict) -> None:
        # checkpoints of torch 1.1 lack the flag
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        # torch's eval-mode fast path (_native_multi_head_attention) gives the same values as this one
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # keep `query is key is value` true for the packed projection
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, query: Tensor
                    ) -> tuple[Tensor | None, int | None]:
        """attn_mask and key_padding_mask as one (N, heads, L, S) mask and its type (2), or the one given
        (0: (L, S) attn_mask, 1: key_padding_mask)."""
        mask_type: int | None = None
        merged: Tensor | None = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1,
                                                                                  -1)
            merged = attn_mask_expanded
            if key_padding_mask is not None:
                kpm = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
                merged = attn_mask_expanded + kpm
        return merged, mask_type
