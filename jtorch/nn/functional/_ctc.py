"""ctc_loss (torch.nn.functional.ctc_loss, aten::ctc_loss): the connectionist temporal classification
loss by the forward (alpha) recursion in log space over the blank-extended targets, written with
differentiable operators, so its gradient is theirs. The log-sum-exps are guarded so that a
combination of impossible paths (all -inf) passes a zero gradient, never NaN."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jtorch as torch

from ...tensor import Tensor
from .._reduction import get_reduction

__all__ = ["ctc_loss"]

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _logsumexp(*terms: Tensor) -> Tensor:
    m = terms[0]
    for t in terms[1:]:
        m = torch.maximum(m, t)
    finite = torch.isfinite(m)
    shift = torch.where(finite, m, torch.zeros_like(m)).detach()
    total = sum((torch.exp(t - shift) for t in terms[1:]), torch.exp(terms[0] - shift))
    ok = total > 0
    return torch.where(ok, shift + torch.log(torch.where(ok, total, torch.ones_like(total))),
                       torch.full_like(total, float("-inf")))


def _lengths(v: Any) -> list[int]:
    return [int(x) for x in (v.tolist() if isinstance(v, Tensor) else v)]


def ctc_loss_impl(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int,
                  reduction: int, zero_infinity: bool) -> Tensor:
    """aten::ctc_loss: the per-sample negative log likelihoods, then the reduction (mean: each divided by
    its target length, at least 1, then averaged)."""
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    n_time, batch, _ = lp.shape
    in_lens, tg_lens = _lengths(input_lengths), _lengths(target_lengths)
    if len(in_lens) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tg_lens) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    tg = targets.to(torch.int64)
    if tg.dim() == 1 and batched or (not batched and tg.dim() == 1 and tg.numel() != max(tg_lens, default=0)):
        offsets = [sum(tg_lens[:b]) for b in range(batch)]
        rows = [tg[o:o + n].tolist() for o, n in zip(offsets, tg_lens)]
    else:
        tg2 = tg if tg.dim() == 2 else tg.unsqueeze(0)
        rows = [tg2[b, :n].tolist() for b, n in enumerate(tg_lens)]
    for t_len in in_lens:
        if t_len > n_time:
            raise RuntimeError(f"Expected input_lengths to have value at most {n_time}, but got value {t_len} "
                               f"(while checking arguments for ctc_loss_allocate_outputs)")
    s_max = max(tg_lens, default=0)
    width = 2 * s_max + 1
    ext = [[blank] * width for _ in range(batch)]
    skip = [[False] * width for _ in range(batch)]
    for b, row in enumerate(rows):
        for i, label in enumerate(row):
            ext[b][2 * i + 1] = label
            if i > 0 and label != row[i - 1]:
                skip[b][2 * i + 1] = True
    dev = lp.device
    ext_t = torch.tensor(ext, dtype=torch.int64, device=dev)
    skip_t = torch.tensor(skip, dtype=torch.bool, device=dev)
    lp_ext = lp.gather(2, ext_t.unsqueeze(0).expand(n_time, batch, width))  # (T, N, 2S+1)
    neg_inf = torch.full((batch, 1), float("-inf"), dtype=lp.dtype, device=dev)
    start = torch.arange(width, device=dev) < torch.tensor([[2 if n else 1] for n in tg_lens], device=dev)
    alpha = torch.where(start, lp_ext[0], torch.full_like(lp_ext[0], float("-inf")))
    running = torch.tensor(in_lens, device=dev).unsqueeze(1)
    for t in range(1, n_time):
        prev1 = torch.cat([neg_inf, alpha[:, :-1]], 1)
        prev2 = torch.where(skip_t, torch.cat([neg_inf, neg_inf, alpha[:, :-2]], 1)[:, :width],
                            torch.full_like(alpha, float("-inf")))
        step = _logsumexp(alpha, prev1, prev2) + lp_ext[t]
        alpha = torch.where(running > t, step, alpha)
    last = torch.tensor([[2 * n] for n in tg_lens], device=dev)
    before = torch.tensor([[max(2 * n - 1, 0)] for n in tg_lens], device=dev)
    has_label = torch.tensor([[n > 0] for n in tg_lens], device=dev)
    end_prev = torch.where(has_label, alpha.gather(1, before), neg_inf)
    res = -_logsumexp(alpha.gather(1, last), end_prev).squeeze(1)
    empty_input = torch.tensor([n == 0 for n in in_lens], device=dev)
    res = torch.where(empty_input, torch.where(torch.tensor([n == 0 for n in tg_lens], device=dev),
                                               torch.zeros_like(res), torch.full_like(res, float("inf"))), res)
    if zero_infinity:
        res = torch.where(res == float("inf"), torch.zeros_like(res), res)
    if reduction == 1:
        return (res / torch.tensor(tg_lens, dtype=res.dtype, device=dev).clamp_min(1)).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Sequence[int] | Tensor,
             target_lengths: Sequence[int] | Tensor, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    return ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, _ENUM[get_reduction(reduction)],
                         zero_infinity)
