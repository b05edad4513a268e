"""torch's recurrent functions: the stacks `lstm`, `gru`, `rnn_tanh`, `rnn_relu` (padded `.input` and packed
`.data` overloads) and the single steps `lstm_cell`, `gru_cell`, `rnn_tanh_cell`, `rnn_relu_cell`.

CompositeImplicitAutograd, as in torch (aten/src/ATen/native/RNN.cpp): a stack is its layers and
directions, each one `_fused_rnn_layer` (jtorch/native/recurrent.py), the directions' outputs concatenated
on the last dim, dropout between layers in training; a cell is a layer of one step.

`params` is torch's flat weight list: per layer, per direction, w_ih, w_hh, then b_ih, b_hh with biases,
then w_hr with a projection (LSTM's proj_size).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..tensor import Tensor
from .factories import aten
from .recurrent import GRU, LSTM, RNN_RELU, RNN_TANH
from .registry import composite_implicit_autograd


def _dropout(x: Tensor, p: float) -> Tensor:
    if p >= 1.0:
        return x * 0.0
    mask = aten("empty_like")(x).bernoulli_(1 - p).div_(1 - p)  # torch's _dropout_impl: a scaled keep mask
    return x * mask


def _stack(mode: int, data: Tensor, batch_sizes: Sequence[int], hx: Tensor, cx: Tensor | None,
           params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float, train: bool,
           bidirectional: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    """(output data (T, D*H_out), h_n, c_n) of a stack over time-major rows `data` (T, I)."""
    D = 2 if bidirectional else 1
    per = len(params) // (num_layers * D)
    if per * num_layers * D != len(params) or per not in ((4, 5) if has_biases else (2, 3)):
        raise RuntimeError(f"Expected {num_layers * D * (4 if has_biases else 2)} parameters "
                           f"(or with projections {num_layers * D * (5 if has_biases else 3)}), got {len(params)}")
    proj = per in (3, 5)
    layer = aten("_fused_rnn_layer")
    x = data
    hys: list[Tensor] = []
    cys: list[Tensor] = []
    for n in range(num_layers):
        outs = []
        for d in range(D):
            k = n * D + d
            w = params[k * per:(k + 1) * per]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            o, hy, cy, _ = layer(x, w[0], w[1], b_ih, b_hh, w[-1] if proj else None, hx[k],
                                 cx[k] if cx is not None else None, mode, d == 1, list(batch_sizes))
            outs.append(o)
            hys.append(hy)
            cys.append(cy)
        x = outs[0] if D == 1 else aten("cat")(outs, 1)
        if dropout and train and n < num_layers - 1:
            x = _dropout(x, dropout)
    return x, aten("stack")(hys, 0), aten("stack")(cys, 0) if cx is not None else None


def _padded(mode: int, input: Tensor, hx: Tensor, cx: Tensor | None, params: Sequence[Tensor], has_biases: bool,
            num_layers: int, dropout: float, train: bool, bidirectional: bool, batch_first: bool
            ) -> tuple[Tensor, Tensor, Tensor | None]:
    x = input.transpose(0, 1) if batch_first else input
    L, N = x.shape[0], x.shape[1]
    data = x.reshape(L * N, x.shape[2])
    out, hy, cy = _stack(mode, data, [N] * L, hx, cx, params, has_biases, num_layers, dropout, train,
                         bidirectional)
    out = out.view(L, N, out.shape[-1])
    return (out.transpose(0, 1) if batch_first else out), hy, cy


def _sizes(batch_sizes: Tensor) -> list[int]:
    return [int(b) for b in batch_sizes.tolist()]


_PADDED = ("(Tensor input, {h}, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
           "bool bidirectional, bool batch_first) -> {r}")
_PACKED = ("(Tensor data, Tensor batch_sizes, {h}, Tensor[] params, bool has_biases, int num_layers, float dropout, "
           "bool train, bool bidirectional) -> {r}")


@composite_implicit_autograd("lstm.input" + _PADDED.format(h="Tensor[] hx", r="(Tensor, Tensor, Tensor)"))
def lstm_input(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool, num_layers: int,
               dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    out, hy, cy = _padded(LSTM, input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                          batch_first)
    assert cy is not None
    return out, hy, cy


@composite_implicit_autograd("lstm.data" + _PACKED.format(h="Tensor[] hx", r="(Tensor, Tensor, Tensor)"))
def lstm_data(data: Tensor, batch_sizes: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
              num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor, Tensor]:
    out, hy, cy = _stack(LSTM, data, _sizes(batch_sizes), hx[0], hx[1], params, has_biases, num_layers, dropout,
                         train, bidirectional)
    assert cy is not None
    return out, hy, cy


def _declare_simple(name: str, mode: int) -> None:
    @composite_implicit_autograd(name + ".input" + _PADDED.format(h="Tensor hx", r="(Tensor, Tensor)"))
    def padded(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int,
               dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
        out, hy, _ = _padded(mode, input, hx, None, params, has_biases, num_layers, dropout, train, bidirectional,
                             batch_first)
        return out, hy

    @composite_implicit_autograd(name + ".data" + _PACKED.format(h="Tensor hx", r="(Tensor, Tensor)"))
    def packed(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
               num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor]:
        out, hy, _ = _stack(mode, data, _sizes(batch_sizes), hx, None, params, has_biases, num_layers, dropout,
                            train, bidirectional)
        return out, hy


_declare_simple("gru", GRU)
_declare_simple("rnn_tanh", RNN_TANH)
_declare_simple("rnn_relu", RNN_RELU)


def _check_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor) -> None:
    """RNN.cpp's check_rnn_cell_forward_input and check_rnn_cell_forward_hidden."""
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    for label, h in enumerate(hx):
        if input.shape[0] != h.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size "
                               f"{h.shape[0]}")
        if h.shape[1] != w_hh.shape[1]:
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h.shape[1]}, "
                               f"expected {w_hh.shape[1]}")


def _step(mode: int, input: Tensor, hx: Tensor, cx: Tensor | None, w_ih: Tensor, w_hh: Tensor,
          b_ih: Tensor | None, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """One step of a cell over a (N, I) input: a layer of one time step."""
    _check_cell(input, [hx] if cx is None else [hx, cx], w_ih, w_hh)
    _, hy, cy, _ = aten("_fused_rnn_layer")(input, w_ih, w_hh, b_ih, b_hh, None, hx, cx, mode, False,
                                            [input.shape[0]])
    return hy, cy


_CELL = "(Tensor input, {h}, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None) -> {r}"


@composite_implicit_autograd("lstm_cell" + _CELL.format(h="Tensor[] hx", r="(Tensor, Tensor)"))
def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _step(LSTM, input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


@composite_implicit_autograd("gru_cell" + _CELL.format(h="Tensor hx", r="Tensor"))
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    return _step(GRU, input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


@composite_implicit_autograd("rnn_tanh_cell" + _CELL.format(h="Tensor hx", r="Tensor"))
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    return _step(RNN_TANH, input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


@composite_implicit_autograd("rnn_relu_cell" + _CELL.format(h="Tensor hx", r="Tensor"))
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    return _step(RNN_RELU, input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]
