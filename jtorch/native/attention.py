"""Scaled dot-product attention, as torch declares it (aten/src/ATen/native/transformers/attention.cpp).

`scaled_dot_product_attention` is CompositeImplicitAutograd: it validates its inputs, asks
`_fused_sdp_choice` for a backend, turns a boolean mask into an additive 0/-inf one and calls either
`_scaled_dot_product_flash_attention_for_cpu` (one node, ScaledDotProductFlashAttentionForCpuBackward0)
or `_scaled_dot_product_attention_math` (the reference: matmul, `_safe_softmax`, matmul; its nodes are
theirs). The fused operator runs the backend's blocked online-softmax kernel when the backend has one
(`Backend.attention_forward` / `attention_backward`); otherwise it computes the same result, the output
and the row log-sum-exp, with whole-row matmuls and softmax.
"""
from __future__ import annotations

import math
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..dtypes import bfloat16, float16, float32, float64
from ..scalar import TYPE_META_NAME
from ..tensor import Tensor
from ..warn import warn_once
from .factories import aten
from .registry import composite_explicit_autograd, composite_implicit_autograd, declare

_NEG_INF = float("-inf")
_FLASH_DTYPES = (float32, float64, bfloat16, float16)
MATH, FLASH = 0, 1  # sdp::SDPBackend's values as _fused_sdp_choice returns them


def calculate_scale(query: Tensor, scale: float | None) -> float:
    """sdp::calculate_scale: the given scale, else 1/sqrt(E)."""
    return scale if scale is not None else 1.0 / math.sqrt(query.size(-1))


def validate_sdpa_input(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{TYPE_META_NAME[query.dtype]} key.dtype: {TYPE_META_NAME[key.dtype]} and value.dtype: "
                           f"{TYPE_META_NAME[value.dtype]} instead.")
    if query.device != key.device or query.device != value.device:
        raise RuntimeError("Expected query, key, and value to have the same device type, but got query.device: "
                           f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dt.bool, float32, query.dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {TYPE_META_NAME[attn_mask.dtype]} and  query.dtype: "
                           f"{TYPE_META_NAME[query.dtype]} instead.")


def convert_boolean_attn_mask(attn_mask: Tensor | None, dtype: Any) -> Tensor | None:
    """A boolean mask (True takes part) as an additive one: 0 where True, -inf where False."""
    if attn_mask is None or attn_mask.dtype != _dt.bool:
        return attn_mask
    zeros = aten("zeros")(list(attn_mask.shape), dtype=dtype, device=attn_mask.device)
    return zeros.masked_fill_(attn_mask.logical_not(), _NEG_INF)


def _gqa_expand(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool) -> tuple[Tensor, Tensor]:
    """pre_process_group_query_attention_input: key and value repeat_interleaved up to the query's heads."""
    if not enable_gqa:
        return key, value
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    equal = hq == hk and hk == hv
    if not equal and (hq % hk != 0 or hq % hv != 0):
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if equal:
        return key, value
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


# ---- _fused_sdp_choice: which CPU kernel runs (sdp_utils_cpp.cpp) ------------------------------------------

def _flash_possible(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                    enable_gqa: bool) -> bool:
    if dropout_p != 0.0 or query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    if query.dtype not in _FLASH_DTYPES:
        return False
    b, hq, lq, e = query.shape
    if key.size(0) != b or value.size(0) != b:
        return False
    hk, hv = key.size(1), value.size(1)
    if not (hk == hq and hv == hq) and not (enable_gqa and hk == hv and hk > 0 and hq % hk == 0):
        return False
    if attn_mask is not None:
        if attn_mask.requires_grad or attn_mask.dim() not in (2, 4):
            return False
        if attn_mask.size(-2) not in (lq, 1) or attn_mask.size(-1) not in (key.size(2), 1):
            return False
        if attn_mask.dim() == 4 and (attn_mask.size(0) not in (1, b) or attn_mask.size(1) not in (1, hq)):
            return False
    if key.size(3) != e or value.size(3) != e:
        return False
    if lq == 0 or key.size(2) == 0:
        return False
    return query.stride(-1) == 1 and key.stride(-1) == 1 and value.stride(-1) == 1


@composite_explicit_autograd("_fused_sdp_choice(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
                             "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) "
                             "-> int")
def _fused_sdp_choice(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                      dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                      enable_gqa: bool = False) -> int:
    if query.device.type != "cpu":  # the other backends run the math path
        return MATH
    return FLASH if _flash_possible(query, key, value, attn_mask, dropout_p, enable_gqa) else MATH


# ---- the composite -----------------------------------------------------------------------------------------

@composite_implicit_autograd("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
                             "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, "
                             "bool enable_gqa=False) -> Tensor", variants="")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    validate_sdpa_input(query, key, value, attn_mask)
    choice = FLASH if query.device.type == "cpu" and _flash_possible(query, key, value, attn_mask, dropout_p,
                                                                     enable_gqa) else MATH
    mask = convert_boolean_attn_mask(attn_mask, query.dtype)
    if choice == FLASH:
        return aten("_scaled_dot_product_flash_attention_for_cpu")(query, key, value, dropout_p, is_causal,
                                                                    attn_mask=mask, scale=scale)[0]
    return aten("_scaled_dot_product_attention_math")(query, key, value, mask, dropout_p, is_causal, None,
                                                      scale=scale, enable_gqa=enable_gqa)[0]


# ---- the math path (the reference) -------------------------------------------------------------------------

@composite_explicit_autograd("_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
def _safe_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """softmax whose rows of only -inf give 0 rather than NaN."""
    out = aten("_softmax")(self if dtype is None else self.to(dtype), dim, False)
    masked_rows = (self == _NEG_INF).all(dim, keepdim=True)
    return out.masked_fill(masked_rows, 0.0)


def _dropout(attn: Tensor, p: float) -> Tensor:
    """at::dropout(attn, p, train=True) on the CPU: a Bernoulli(1-p) keep mask scaled by 1/(1-p)."""
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 1.0:
        return attn * 0.0
    return attn * aten("empty_like")(attn).bernoulli_(1 - p).div_(1 - p)


@composite_implicit_autograd("_scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value, "
                             "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, "
                             "Tensor? dropout_mask=None, *, float? scale=None, bool enable_gqa=False) "
                             "-> (Tensor, Tensor)")
def _scaled_dot_product_attention_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                       dropout_p: float = 0.0, is_causal: bool = False,
                                       dropout_mask: Tensor | None = None, *, scale: float | None = None,
                                       enable_gqa: bool = False) -> tuple[Tensor, Tensor]:
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    origin = query.dtype
    if origin in (float16, bfloat16):  # computed in float32 for accuracy, returned in the inputs' dtype
        out, attn = _scaled_dot_product_attention_math(
            query.float(), key.float(), value.float(), attn_mask, dropout_p, is_causal, dropout_mask, scale=scale,
            enable_gqa=enable_gqa)
        return out.to(origin), attn.to(origin)
    # q and k are each scaled by sqrt(scale) before the product, for stability
    negative = scale is not None and scale < 0.0
    factor = math.sqrt(calculate_scale(query, abs(scale) if negative and scale is not None else scale))
    q = query * (-factor if negative else factor)
    lq, s = q.size(-2), key.size(-2)
    if is_causal:
        attn_mask = _causal_mask(lq, s, query.dtype, query.device)
    k, v = _gqa_expand(q, key, value, enable_gqa)
    attn = aten("matmul")(q, k.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = aten("_safe_softmax")(attn, -1)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            warn_once("Dropout mask should only be used for testing purposes.")
            attn = attn.masked_fill(dropout_mask.logical_not(), 0.0)
            return aten("matmul")(attn, v * (1.0 / (1 - dropout_p))), attn
        attn = _dropout(attn, dropout_p)
    return aten("matmul")(attn, v), attn


# ---- the fused CPU operator --------------------------------------------------------------------------------

_FLASH = "scaled_dot_product_attention_flash_attention: "


def _check_flash(query: Tensor, key: Tensor, value: Tensor, dropout_p: float, attn_mask: Tensor | None) -> None:
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise RuntimeError(_FLASH + "Accept only 4 dims inputs shape of {B, H, T, K}")
    if dropout_p != 0.0:
        raise RuntimeError(_FLASH + "Currently do not support dropout > 0")
    if query.dtype not in _FLASH_DTYPES:
        raise RuntimeError(_FLASH + "Expected data type of FP32, FP64, BF16 or FP16")
    if attn_mask is not None:
        if attn_mask.dtype not in (float32, query.dtype):
            raise RuntimeError(_FLASH + "Attention mask is the same data type as query")
        if attn_mask.dim() not in (2, 4):
            raise RuntimeError(_FLASH + "Attention mask dim in {2, 4}")


def _lse_dtype(dtype: Any) -> Any:
    return float32 if dtype in (bfloat16, float16) else dtype


def _causal_mask(lq: int, s: int, dtype: Any, device: Any) -> Tensor:
    """Top-left aligned: key j is masked for query i when j > i (ones(L, S).tril())."""
    upper = aten("ones")([lq, s], dtype=_dt.bool, device=device).triu(1)
    return aten("zeros")([lq, s], dtype=dtype, device=device).masked_fill_(upper, _NEG_INF)


def _probabilities(q: Tensor, k: Tensor, mask: Tensor | None, scale: float, may_mask_rows: bool,
                   want_lse: bool = True) -> tuple[Tensor, Tensor | None]:
    """softmax(q k^T * scale + mask) over flat (N, L, E) / (N, S, E) operands and its row log-sum-exp:
    lse = max_j s_ij - log(max_j p_ij) (the largest probability is exp(m - lse)). A fully masked row
    (only -inf scores) gets p = 0 and lse = 0, as the flash kernel gives."""
    kt = k.transpose(1, 2)
    qs = q * scale  # (N, L, E): smaller than the scores, and baddbmm then adds the mask in its one pass
    s = aten("bmm")(qs, kt) if mask is None else aten("baddbmm")(mask, qs, kt)
    p = aten("_softmax")(s, -1, False)
    if not want_lse:
        if may_mask_rows:
            p.masked_fill_(p.isnan(), 0.0)
        return p, None
    lse = s.amax(-1).sub_(p.amax(-1).log_())
    if may_mask_rows:
        empty = lse.isnan()  # -inf - log(nan)
        p.masked_fill_(empty.unsqueeze(-1), 0.0)
        lse.masked_fill_(empty, 0.0)
    return p, lse


def _additive_mask(attn_mask: Tensor | None, is_causal: bool, b: int, h: int, lq: int, s: int, dtype: Any,
                   device: Any) -> Tensor | None:
    """The mask and the causal mask as one additive (B*H, L, S) tensor (zero strides where it broadcasts)."""
    m = None if attn_mask is None else _flat_mask(attn_mask, b, h, lq, s, dtype)
    if is_causal:
        c = _causal_mask(lq, s, dtype, device).expand(b * h, lq, s)
        m = c if m is None else m + c
    return m


def _flat(t: Tensor) -> Tensor:
    """(B, H, T, E) as a contiguous (B*H, T, E)."""
    return t.reshape(-1, t.size(-2), t.size(-1)).contiguous()


def _flat_mask(attn_mask: Tensor, b: int, h: int, lq: int, s: int, dtype: Any) -> Tensor:
    """The additive 2-D or 4-D mask expanded to (B*H, L, S) (zero strides where it broadcasts)."""
    m = attn_mask if attn_mask.dtype == dtype else attn_mask.to(dtype)
    if m.dim() == 2:
        return m.expand(b * h, lq, s)
    return m.expand(b, h, lq, s).reshape(b * h, lq, s)


def _backend_methods(query: Tensor) -> Any:
    """The query's backend, typed loosely: the attention methods are optional in the contract."""
    return backend(query.device.type)


def _use_backend_kernel(query: Tensor, method: str) -> bool:
    return query.dtype in (float32, float64) and backend(query.device.type).implements(method)


@declare("_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0., "
         "bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) "
         "-> (Tensor output, Tensor logsumexp)").impl("CPU", "Meta")
def _scaled_dot_product_flash_attention_for_cpu(query: Tensor, key: Tensor, value: Tensor, dropout_p: float = 0.0,
                                                is_causal: bool = False, *, attn_mask: Tensor | None = None,
                                                scale: float | None = None) -> tuple[Tensor, Tensor]:
    _check_flash(query, key, value, dropout_p, attn_mask)
    sc = calculate_scale(query, scale)
    b, h, lq, _ = query.shape
    k, v = _gqa_expand(query, key, value, key.size(1) != h)
    s = k.size(2)
    ev = v.size(-1)
    if query.device.type == "meta":
        return query.new_empty((b, h, lq, ev)), query.new_empty((b, h, lq), dtype=_lse_dtype(query.dtype))
    qf, kf, vf = _flat(query), _flat(k), _flat(v)
    if _use_backend_kernel(query, "attention_forward"):
        out = query.new_empty((b * h, lq, ev))
        lse = query.new_empty((b * h, lq), dtype=_lse_dtype(query.dtype))
        mask = None if attn_mask is None else _flat_mask(attn_mask, b, h, lq, s, query.dtype)
        _backend_methods(query).attention_forward(
            qf, kf, vf, mask, is_causal, sc, out, lse)
        return out.view(b, h, lq, ev), lse.view(b, h, lq)
    acc = _lse_dtype(query.dtype)  # float16 and bfloat16 accumulate in float32, as the kernel's buffers do
    if acc != query.dtype:
        qf, kf, vf = qf.to(acc), kf.to(acc), vf.to(acc)
    mask = _additive_mask(attn_mask, is_causal, b, h, lq, s, acc, query.device)
    p, lse_rows = _probabilities(qf, kf, mask, sc, attn_mask is not None)
    out = aten("bmm")(p, vf).to(query.dtype)
    assert lse_rows is not None
    return out.view(b, h, lq, ev), lse_rows.view(b, h, lq)


@declare("_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, "
         "Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, "
         "float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)").impl("CPU", "Meta")
def _scaled_dot_product_flash_attention_for_cpu_backward(
        grad_out: Tensor, query: Tensor, key: Tensor, value: Tensor, out: Tensor, logsumexp: Tensor,
        dropout_p: float, is_causal: bool, *, attn_mask: Tensor | None = None, scale: float | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    sc = calculate_scale(query, scale)
    b, h, lq, _ = query.shape
    hk, hv = key.size(1), value.size(1)
    k, v = _gqa_expand(query, key, value, hk != h)
    s = k.size(2)
    if query.device.type == "meta":
        return (aten("empty_like")(query), aten("empty_like")(key), aten("empty_like")(value))
    qf, kf, vf, gof, of = _flat(query), _flat(k), _flat(v), _flat(grad_out), _flat(out)
    if _use_backend_kernel(query, "attention_backward"):
        gq, gk, gv = (aten("empty_like")(t) for t in (qf, kf, vf))
        mask = None if attn_mask is None else _flat_mask(attn_mask, b, h, lq, s, query.dtype)
        _backend_methods(query).attention_backward(
            gof, qf, kf, vf, mask, is_causal, sc, of, logsumexp.reshape(b * h, lq).contiguous(), gq, gk, gv)
    else:
        # P recomputed; dS = P * (dO v^T - rowsum(dO * O)), which is softmax's backward of dO v^T
        acc = _lse_dtype(query.dtype)
        if acc != query.dtype:
            qf, kf, vf, gof = qf.to(acc), kf.to(acc), vf.to(acc), gof.to(acc)
        mask = _additive_mask(attn_mask, is_causal, b, h, lq, s, acc, query.device)
        p, _ = _probabilities(qf, kf, mask, sc, attn_mask is not None, want_lse=False)
        gv = aten("bmm")(p.transpose(1, 2), gof)
        dp = aten("bmm")(gof, vf.transpose(1, 2))
        ds = aten("_softmax_backward_data")(dp, p, -1, acc)
        gq = aten("bmm")(ds, kf).mul_(sc)
        gk = aten("bmm")(ds.transpose(1, 2), qf).mul_(sc)
        if acc != query.dtype:
            gq, gk, gv = gq.to(query.dtype), gk.to(query.dtype), gv.to(query.dtype)
    grad_q, grad_k, grad_v = gq.view(query.shape), gk.view(k.shape), gv.view(v.shape)
    if hk != h:  # sum the repeated heads' gradients back into their key/value head
        grad_k = grad_k.view(b, hk, h // hk, s, -1).sum(2)
    if hv != h:
        grad_v = grad_v.view(b, hv, h // hv, s, -1).sum(2)
    return grad_q, grad_k, grad_v
