"""The CPU loss kernels: nll_loss forward and backward (PyTorch's LossNLL.cpp, nll_loss_out_frame
and nll_loss_backward_out_frame).

    nll_loss_forward(x, target, weight | None, reduction, ignore_index, out, total_weight)
    nll_loss_backward(grad_output, target, weight | None, reduction, ignore_index, total_weight, grad_input)

x and grad_input are contiguous (N, C) or (C,) (one sample), target holds N int64 class indices,
weight C values; every tensor is contiguous and in one float dtype (jtorch/native/loss.py sees to
it). Returns None, or the first target out of [0, C) that is not ignore_index (the caller raises
torch's IndexError; nothing was written to the outputs then). Sums accumulate in float64.
"""
from __future__ import annotations

from typing import Any

import numba

from ..common.cache import enable_package_cache


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _targets_ok(t, to, n, c, ignore_index):  # pragma: no cover - compiled
    """-1 when every target is ignore_index or a class, else the position of the first that is not."""
    for i in range(n):
        k = t[to + i]
        if k != ignore_index and (k < 0 or k >= c):
            return i
    return -1


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _forward(x, xo, t, to, w, wo, has_w, n, c, reduction, ignore_index, out, oo, tw, two):  # pragma: no cover
    loss = 0.0
    total = 0.0
    for i in range(n):
        k = t[to + i]
        if k == ignore_index:
            if reduction == 0:
                out[oo + i] = 0
            continue
        wk = w[wo + k] if has_w else x.dtype.type(1)
        v = -x[xo + i * c + k] * wk
        if reduction == 0:
            out[oo + i] = v
        else:
            loss += v
            total += wk
    tw[two] = total
    if reduction == 1:
        out[oo] = loss / total  # 0 / 0 (every target ignored) is NaN, as in torch
    elif reduction == 2:
        out[oo] = loss


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _backward(g, go, t, to, w, wo, has_w, n, c, reduction, ignore_index, tw, two, gi, gio):  # pragma: no cover
    for j in range(n * c):
        gi[gio + j] = 0
    scale = g[go]
    if reduction == 1:
        scale = scale / tw[two]
    for i in range(n):
        k = t[to + i]
        if k == ignore_index:
            continue
        gk = g[go + i] if reduction == 0 else scale
        gi[gio + i * c + k] = -(w[wo + k] * gk if has_w else gk)


def _d(t: Any) -> tuple:
    return t._storage.data, t._offset


def _checked(rows: Any, target: Any, ignore_index: int) -> tuple:
    """(samples, classes, target buffer, offset, the first bad target or None) of an (N, C) or
    (C,) tensor and its targets."""
    c = rows._size[-1]
    n = rows._size[0] if rows.dim() == 2 else 1
    tb, to = _d(target)
    bad = _targets_ok(tb, to, n, c, ignore_index)
    return n, c, tb, to, (int(tb[to + bad]) if bad >= 0 else None)


def nll_loss_forward(x: Any, target: Any, weight: Any, reduction: int, ignore_index: int, out: Any,
                     tw: Any) -> int | None:
    n, c, tb, to, bad = _checked(x, target, ignore_index)
    if bad is None:
        wb, wo = _d(weight) if weight is not None else (_d(x)[0], 0)
        _forward(*_d(x), tb, to, wb, wo, weight is not None, n, c, reduction, ignore_index, *_d(out), *_d(tw))
    return bad


def nll_loss_backward(g: Any, target: Any, weight: Any, reduction: int, ignore_index: int, tw: Any,
                      gi: Any) -> int | None:
    n, c, tb, to, bad = _checked(gi, target, ignore_index)
    if bad is None:
        wb, wo = _d(weight) if weight is not None else (_d(g)[0], 0)
        _backward(*_d(g), tb, to, wb, wo, weight is not None, n, c, reduction, ignore_index, *_d(tw), *_d(gi))
    return bad
