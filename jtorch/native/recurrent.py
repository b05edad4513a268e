"""Recurrent layers: one layer and direction of an RNN, LSTM or GRU as one operator, forward and backward.

`_fused_rnn_layer` runs a whole sequence the way torch's CPU does it (aten/src/ATen/native/RNN.cpp's
FullLayer/PackedLayer), and is one autograd node per layer and direction, as torch's oneDNN layer is:

* all time steps' input projections in ONE matrix product (x W_ih^T + b_ih over every row);
* per step, one hidden product (h W_hh^T) and ONE fused pointwise cell kernel (the backend's `rows`
  stub running a scalar function of jtorch/kernels/scalar_recurrent.py) that writes the new h (into the
  output and into the next step's h_prev), the new c and the activated gates the backward reads;
* the backward walks the steps back with one fused cell-backward kernel and one hidden product per
  step, then forms the input's and the weights' gradients in one product each over all steps.

Input is the time-major data of a sequence, (T, input_size) rows with `batch_sizes` rows per step (a
PackedSequence's layout; a padded (L, N, I) input is L steps of N). Sequences are sorted by length,
so a step's rows are a prefix of the previous step's: rows that end early keep their last state (hy),
and the reverse direction starts each sequence from hx when it first appears.

The workspace (T + N rows) keeps per step the gates, c, c_prev and h_prev (and h before the projection
with proj_size); h_prev of the step processed next is written by the cell itself, N spare rows take
the writes past the last step.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..kernels import scalar_recurrent as S
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate
from ..tensor import Tensor
from .factories import aten
from .registry import declare

RNN_RELU, RNN_TANH, LSTM, GRU = 0, 1, 2, 3  # cuDNN's mode numbers, as torch's _cudnn_rnn takes them
GATES = {RNN_RELU: 1, RNN_TANH: 1, LSTM: 4, GRU: 3}

_CELL: dict[int, Callable[..., Any]] = {RNN_TANH: S.rnn_tanh_layer_cell, RNN_RELU: S.rnn_relu_layer_cell,
                                       LSTM: S.lstm_layer_cell,
                                       GRU: S.gru_layer_cell}

_ARGS = ("Tensor input, Tensor weight_ih, Tensor weight_hh, Tensor? bias_ih, Tensor? bias_hh, Tensor? weight_hr, "
         "Tensor hx, Tensor? cx, int mode, bool reverse, int[] batch_sizes")
fused_rnn_layer = declare(f"_fused_rnn_layer({_ARGS}) -> (Tensor, Tensor, Tensor, Tensor)")
fused_rnn_layer_backward = declare(
    f"_fused_rnn_layer_backward({_ARGS}, Tensor output, Tensor workspace, Tensor? grad_output, "
    "Tensor? grad_hy, Tensor? grad_cy, bool[8] output_mask) -> "
    "(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)")


def _v(t: Tensor, off: int, size: tuple[int, int], stride: tuple[int, int]) -> Tensor:
    """A 2-D view into t's memory, `off` elements past t's start (internal buffers only)."""
    return Tensor._make(t._storage, size, stride, t._offset + off, t.dtype, t._device)


class _Layout:
    """Column blocks of the workspace rows (K columns) for a mode."""

    def __init__(self, mode: int, H: int, H_out: int, proj: bool) -> None:
        self.G = GATES[mode]
        self.K = 0
        if mode == LSTM:            # [i f g o | c | c_prev | h before projection? | h_prev]
            self.C, self.CP = 4 * H, 5 * H
            self.HR = 6 * H
            self.HP = 7 * H if proj else 6 * H
        elif mode == GRU:           # torch's fused GRU workspace: [r z n | hx | hn]
            self.HP, self.HN, self.K = 3 * H, 4 * H, 5 * H
        else:                       # [h | h_prev]
            self.HY, self.HP = 0, H
        self.K = self.K or self.HP + H_out


def _steps(batch_sizes: Sequence[int], reverse: bool) -> tuple[list[int], list[int]]:
    """(row offset of each step, the steps in processing order)."""
    offs, o = [], 0
    for b in batch_sizes:
        offs.append(o)
        o += b
    order = list(range(len(batch_sizes)))
    return offs, order[::-1] if reverse else order


_zeros: dict[tuple[Any, Any], Tensor] = {}


def _zero(like: Tensor, rows: int, cols: int) -> Tensor:
    """A (rows, cols) view of one zero of like's dtype and device (a bias or gradient that is absent)."""
    key = (like.dtype, like._device)
    z = _zeros.get(key)
    if z is None:
        z = _zeros[key] = allocate((1,), None, like.dtype, like._device)
        backend(like._device.type).fill(z, 0)
    return _v(z, 0, (rows, cols), (0, 0))


def _check(input: Tensor, weights: Sequence[Tensor | None]) -> None:
    for w in weights:
        if w is not None and w.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAME[input.dtype]} but found "
                               f"{SCALAR_TYPE_NAME[w.dtype]}")
    if input.dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"\"rnn\" not implemented for '{SCALAR_TYPE_NAME[input.dtype]}'")


def _contig(t: Tensor) -> Tensor:
    return t if t.is_contiguous() else aten("contiguous")(t)


@fused_rnn_layer.impl_backends
def fused_rnn_layer_kernel(input: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
                           bias_hh: Tensor | None, weight_hr: Tensor | None, hx: Tensor, cx: Tensor | None,
                           mode: int, reverse: bool, batch_sizes: Sequence[int]
                           ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    T = input._size[0]
    G = GATES[mode]
    GH, H_out = weight_hh._size
    H = GH // G
    N = hx._size[0]
    dt, dev = input.dtype, input._device
    lay = _Layout(mode, H, H_out, weight_hr is not None)
    K = lay.K
    output = allocate((T, H_out), None, dt, dev)
    hy = allocate((N, H_out), None, dt, dev)
    cy = allocate((N, H) if mode == LSTM else (0,), None, dt, dev)
    ws = allocate((T + N, K), None, dt, dev)
    if dev.type == "meta" or not T:
        return output, hy, cy, ws
    _check(input, (weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx))
    b = backend(dev.type)
    x = _contig(input)
    hx, cx = _contig(hx), (_contig(cx) if cx is not None else None)
    # every step's input projection, b_ih included, in one product
    pre = allocate((T, GH), None, dt, dev)
    if bias_ih is not None:
        b.mm(pre, x, weight_ih.t(), _v(bias_ih, 0, (T, GH), (0, bias_ih._stride[0])), 1, 1)
    else:
        b.mm(pre, x, weight_ih.t())
    hg = allocate((N, GH), None, dt, dev)
    w_hh_t = weight_hh.t()
    w_hr_t = weight_hr.t() if weight_hr is not None else None
    offs, order = _steps(batch_sizes, reverse)
    cell = _CELL[mode]
    prev_bs = 0
    for s, t in enumerate(order):
        bs, off = batch_sizes[t], offs[t]
        if bs > prev_bs:  # rows that start here start from hx (cx)
            b.copy(_v(ws, off * K + lay.HP + prev_bs * K, (bs - prev_bs, H_out), (K, 1)),
                   _v(hx, prev_bs * H_out, (bs - prev_bs, H_out), (H_out, 1)))
            if mode == LSTM:
                assert cx is not None
                b.copy(_v(ws, off * K + lay.CP + prev_bs * K, (bs - prev_bs, H), (K, 1)),
                       _v(cx, prev_bs * H, (bs - prev_bs, H), (H, 1)))
        nxt = offs[order[s + 1]] if s + 1 < len(order) else T
        h_prev = _v(ws, off * K + lay.HP, (bs, H_out), (K, 1))
        hgt = _v(hg, 0, (bs, GH), (GH, 1))
        b.mm(hgt, h_prev, w_hh_t)
        ins = [_v(pre, off * GH + k * H, (bs, H), (GH, 1)) for k in range(G)]
        ins += [_v(hgt, k * H, (bs, H), (GH, 1)) for k in range(G)]
        zero = _zero(input, bs, H)
        ins += [zero] * G
        ins += ([_v(bias_hh, k * H * bias_hh._stride[0], (bs, H), (0, bias_hh._stride[0])) for k in range(G)]
                if bias_hh is not None else [zero] * G)
        h_out = _v(output, off * H_out, (bs, H_out), (H_out, 1))
        h_next = _v(ws, nxt * K + lay.HP, (bs, H_out), (K, 1))
        if mode == LSTM:
            ins.append(_v(ws, off * K + lay.CP, (bs, H), (K, 1)))
            h_dst = [h_out, h_next] if w_hr_t is None else [_v(ws, off * K + lay.HR, (bs, H), (K, 1))] * 2
            outs = h_dst + [_v(ws, off * K + lay.C, (bs, H), (K, 1)), _v(ws, nxt * K + lay.CP, (bs, H), (K, 1))]
            outs += [_v(ws, off * K + k * H, (bs, H), (K, 1)) for k in range(4)]
        elif mode == GRU:
            ins.append(h_prev)
            outs = [h_out, h_next] + [_v(ws, off * K + k * H, (bs, H), (K, 1)) for k in range(3)]
            outs.append(_v(ws, off * K + lay.HN, (bs, H), (K, 1)))
        else:
            outs = [h_out, h_next, _v(ws, off * K + lay.HY, (bs, H), (K, 1))]
        b.rows(cell, outs, ins, ())
        if w_hr_t is not None:
            b.mm(h_out, outs[0], w_hr_t)
            b.copy(h_next, h_out)
        prev_bs = bs
    # the final states: the rows whose sequence ends at each step
    for s, t in enumerate(order):
        bs, off = batch_sizes[t], offs[t]
        end = batch_sizes[order[s + 1]] if s + 1 < len(order) else 0
        if bs > end:
            b.copy(_v(hy, end * H_out, (bs - end, H_out), (H_out, 1)),
                   _v(output, (off + end) * H_out, (bs - end, H_out), (H_out, 1)))
            if mode == LSTM:
                b.copy(_v(cy, end * H, (bs - end, H), (H, 1)), _v(ws, (off + end) * K + lay.C, (bs - end, H), (K, 1)))
    return output, hy, cy, ws


@fused_rnn_layer_backward.impl_backends
def fused_rnn_layer_backward_kernel(input: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
                                    bias_hh: Tensor | None, weight_hr: Tensor | None, hx: Tensor,
                                    cx: Tensor | None, mode: int, reverse: bool, batch_sizes: Sequence[int],
                                    output: Tensor, workspace: Tensor, grad_output: Tensor | None,
                                    grad_hy: Tensor | None, grad_cy: Tensor | None, output_mask: Sequence[bool]
                                    ) -> tuple[Tensor, ...]:
    T, in_size = input._size
    G = GATES[mode]
    GH, H_out = weight_hh._size
    H = GH // G
    N = hx._size[0]
    dt, dev = input.dtype, input._device
    proj = weight_hr is not None
    lay = _Layout(mode, H, H_out, proj)
    K = lay.K
    ws = workspace

    def empty() -> Tensor:
        return allocate((0,), None, dt, dev)

    shapes: list[Any] = [input, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx]
    if dev.type == "meta":
        return tuple(allocate(t._size, None, dt, dev) if t is not None and m else empty()
                     for t, m in zip(shapes, output_mask))
    b = backend(dev.type)
    dh = allocate((N, H_out), None, dt, dev)
    if grad_hy is not None:
        b.copy(dh, grad_hy)
    else:
        b.fill(dh, 0)
    dc = allocate((N, H), None, dt, dev)
    if mode == LSTM and grad_cy is not None:
        b.copy(dc, grad_cy)
    else:
        b.fill(dc, 0)
    dh0 = allocate((N, H_out), None, dt, dev)
    dc0 = allocate((N, H), None, dt, dev) if mode == LSTM else empty()
    dout = _contig(grad_output) if grad_output is not None else None
    DG = allocate((max(T, 1), GH), None, dt, dev)
    DGH = allocate((T, GH), None, dt, dev) if mode == GRU else DG
    DH = allocate((T, H_out), None, dt, dev) if proj else None
    dhr = allocate((N, H), None, dt, dev) if proj else None
    offs, order = _steps(batch_sizes, reverse)
    bwd = _CELL_BACKWARD[mode]
    for s in range(len(order) - 1, -1, -1):
        t = order[s]
        bs, off = batch_sizes[t], offs[t]
        prev_bs = batch_sizes[order[s - 1]] if s > 0 else 0
        d_out = (_v(dout, off * H_out, (bs, H_out), (H_out, 1)) if dout is not None
                 else _zero(input, bs, H_out))
        d_h = _v(dh, 0, (bs, H_out), (H_out, 1))
        dgt = [_v(DG, off * GH + k * H, (bs, H), (GH, 1)) for k in range(G)]
        if proj:
            assert DH is not None and dhr is not None and weight_hr is not None
            dht = _v(DH, off * H_out, (bs, H_out), (H_out, 1))
            b.rows(S.add_pair, [dht], [d_out, d_h], ())
            d_out, d_h = _v(dhr, 0, (bs, H), (H, 1)), _zero(input, bs, H)
            b.mm(d_out, dht, weight_hr)
        if mode == LSTM:
            d_c = _v(dc, 0, (bs, H), (H, 1))
            ins = [d_out, d_h, d_c, _v(ws, off * K + lay.CP, (bs, H), (K, 1)),
                   _v(ws, off * K + lay.C, (bs, H), (K, 1))]
            ins += [_v(ws, off * K + k * H, (bs, H), (K, 1)) for k in range(4)]
            b.rows(bwd, dgt + [d_c], ins, ())
        elif mode == GRU:
            ins = [d_out, d_h] + [_v(ws, off * K + k * H, (bs, H), (K, 1)) for k in range(5)]
            dght = [_v(DGH, off * GH + k * H, (bs, H), (GH, 1)) for k in range(3)]
            d_hdirect = _v(dh, 0, (bs, H_out), (H_out, 1))
            b.rows(bwd, dgt + dght + [d_hdirect], ins, ())
        else:
            b.rows(bwd, dgt, [d_out, d_h, _v(ws, off * K + lay.HY, (bs, H), (K, 1))], ())
        dh_t = _v(dh, 0, (bs, H_out), (H_out, 1))
        dgh_t = _v(DGH, off * GH, (bs, GH), (GH, 1))
        if mode == GRU:
            b.mm(dh_t, dgh_t, weight_hh, dh_t, 1, 1)
        else:
            b.mm(dh_t, dgh_t, weight_hh)
        if bs > prev_bs:  # rows that started from hx at this step
            b.copy(_v(dh0, prev_bs * H_out, (bs - prev_bs, H_out), (H_out, 1)),
                   _v(dh, prev_bs * H_out, (bs - prev_bs, H_out), (H_out, 1)))
            if mode == LSTM:
                b.copy(_v(dc0, prev_bs * H, (bs - prev_bs, H), (H, 1)), _v(dc, prev_bs * H, (bs - prev_bs, H), (H, 1)))
    DGv = _v(DG, 0, (T, GH), (GH, 1))
    DGHv = _v(DGH, 0, (T, GH), (GH, 1))
    res: list[Tensor] = [empty() for _ in range(8)]
    if output_mask[0]:
        res[0] = allocate((T, in_size), None, dt, dev)
        b.mm(res[0], DGv, weight_ih)
    if output_mask[1]:
        res[1] = allocate(weight_ih._size, None, dt, dev)
        b.mm(res[1], DGv.t(), _contig(input))
    if output_mask[2]:
        res[2] = allocate(weight_hh._size, None, dt, dev)
        b.mm(res[2], DGHv.t(), _v(ws, lay.HP, (T, H_out), (K, 1)))
    if output_mask[3] and bias_ih is not None:
        res[3] = aten("sum.dim_IntList")(DGv, [0])
    if output_mask[4] and bias_hh is not None:
        res[4] = aten("sum.dim_IntList")(DGHv, [0])
    if output_mask[5] and proj:
        assert DH is not None and weight_hr is not None
        res[5] = allocate(weight_hr._size, None, dt, dev)
        b.mm(res[5], DH.t(), _v(ws, lay.HR, (T, H), (K, 1)))
    if output_mask[6]:
        res[6] = dh0
    if output_mask[7] and mode == LSTM:
        res[7] = dc0
    return tuple(res)


_CELL_BACKWARD: dict[int, Callable[..., Any]] = {RNN_TANH: S.rnn_tanh_cell_backward, RNN_RELU: S.rnn_relu_cell_backward,
                  LSTM: S.lstm_cell_backward, GRU: S.gru_layer_cell_backward}
