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
        is_batched = query.dim() == 3
        fast = self._takes_fast_path(query, key, value, key_padding_mask, attn_mask)
        given_masks = (attn_mask, key_padding_mask)
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
            out = out.transpose(1, 0)
        if fast and not need_weights:
            out = self._fast_path_nan_rows(out, *given_masks)
        return out, weights

    def _takes_fast_path(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                         attn_mask: Tensor | None) -> bool:
        """Whether torch would run _native_multi_head_attention (batched self-attention in evaluation,
        batch_first, packed weights with biases, no bias_kv/zero_attn, even heads, boolean or no masks, nothing
        requiring grad while grad is on)."""
        if query.dim() != 3 or query is not key or key is not value or self.training or not self.batch_first:
            return False
        if self.in_proj_weight is None or self.in_proj_bias is None or not self._qkv_same_embed_dim:
            return False
        if query.dtype != self.in_proj_weight.dtype or query.dtype != self.in_proj_bias.dtype:
            return False
        if self.num_heads % 2 or self.bias_k is not None or self.bias_v is not None or self.add_zero_attn:
            return False
        if any(m is not None and m.dtype != jtorch.bool for m in (key_padding_mask, attn_mask)):
            return False
        if query.device.type not in ("cpu", "cuda"):
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return not (jtorch.is_grad_enabled() and any(a is not None and a.requires_grad for a in args))

    def _fast_path_nan_rows(self, out: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor:
        """The fast path's one visible difference: a query row whose keys are all masked (in any head) comes
        out NaN, where SDPA gives 0 (and the output projection its bias)."""
        return nan_fully_masked_rows(out, attn_mask, key_padding_mask, self.num_heads)


def nan_fully_masked_rows(out: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                          num_heads: int) -> Tensor:
    """out (N, L, E) with NaN in the rows whose keys are all masked in some head, as torch's fused
    eval-mode kernels give; masks bool (True = masked) or additive float (-inf = masked)."""
    if attn_mask is None and key_padding_mask is None:
        return out

    def as_bool(m: Tensor) -> Tensor:
        return m if m.dtype == jtorch.bool else m == float("-inf")
    n, lq, _ = out.shape
    masked = jtorch.zeros((n, num_heads, lq, 1), dtype=jtorch.bool, device=out.device)
    if attn_mask is not None:
        am = as_bool(attn_mask)
        masked = masked | (am.view(n, num_heads, lq, -1) if am.dim() == 3 else am)
    if key_padding_mask is not None:
        masked = masked | as_bool(key_padding_mask).view(n, 1, 1, -1)
    rows = masked.all(-1).any(1)
    return out.masked_fill(rows.unsqueeze(-1), float("nan")) if bool(rows.any()) else out
