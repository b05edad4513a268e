"""Scalar functions of the recurrent cells: one element of a cell's pointwise part, forward and backward.

A cell step is a matrix product (the gates' pre-activations) and then ONE pointwise kernel made from
these functions by a backend's ``rows`` stub (jtorch/kernels/cpu/rows.py, kernels/cuda/rows.py):
column j of a row reads element j of each gate's block ([i | f | g | o] for the LSTM, [r | z | n] for
the GRU, torch's chunk order) and writes one value per output, so each function returns a tuple.

Formulas are torch's (aten/src/ATen/native/RNN.cpp, and the fused CUDA cells of RNN.cu):
  LSTM  c' = sigmoid(f) c + sigmoid(i) tanh(g),  h' = sigmoid(o) tanh(c')
  GRU   r, z = sigmoid(..),  n = tanh(gi_n + r (gh_n + b_hn)),  h' = (h - n) z + n
  RNN   h' = tanh(..) or relu(..)
The backward functions take the activated gates the forward saved (its "workspace") and return the
gates' gradients, as torch's fused backward kernels do.
"""
from . import jmath
from .jmath import like


def lstm_cell(ii, if_, ig, io, hi, hf, hg, ho, bii, bif, big, bio, bhi, bhf, bhg, bho, cx):
    """(hy, cy, i, f, g, o): the LSTM step from input gates, hidden gates, both biases and c."""
    i = jmath.sigmoid(ii + bii + hi + bhi)
    f = jmath.sigmoid(if_ + bif + hf + bhf)
    g = jmath.tanh(ig + big + hg + bhg)
    o = jmath.sigmoid(io + bio + ho + bho)
    cy = f * cx + i * g
    hy = o * jmath.tanh(cy)
    return hy, cy, i, f, g, o


def lstm_cell_backward(dh, dh2, dc, cx, cy, i, f, g, o):
    """(di, df, dg, do, dcx): gradients of the gates' pre-activations and of c, given dh + dh2 (the
    output's gradient and the next step's) and dc for the new h and c."""
    one = like(cy, 1.0)
    gh = dh + dh2
    tc = jmath.tanh(cy)
    dct = dc + gh * o * (one - tc * tc)
    do = gh * tc * o * (one - o)
    di = dct * g * i * (one - i)
    dg = dct * i * (one - g * g)
    df = dct * cx * f * (one - f)
    return di, df, dg, do, dct * f


def gru_cell(ir, iz, in_, hr, hz, hn, bir, biz, bin_, bhr, bhz, bhn, hx):
    """(hy, r, z, n, hx, hn): the GRU step; (r, z, n, hx, hn) is torch's fused cell's workspace."""
    r = jmath.sigmoid(ir + bir + hr + bhr)
    z = jmath.sigmoid(iz + biz + hz + bhz)
    hnb = hn + bhn
    n = jmath.tanh(in_ + bin_ + r * hnb)
    return (hx - n) * z + n, r, z, n, hx, hnb


def gru_cell_backward(dh, dh2, r, z, n, hx, hn):
    """(dr, dz, dn, dhn, dhx): gradients of the input gates (r, z, n), of the hidden n gate (the
    hidden r and z gates share the input's) and the direct part of hx's, given dh + dh2."""
    one = like(n, 1.0)
    gh = dh + dh2
    dnp = gh * (one - z) * (one - n * n)
    dz = gh * (hx - n) * z * (one - z)
    dr = dnp * hn * r * (one - r)
    return dr, dz, dnp, dnp * r, gh * z


def rnn_tanh_cell(i, h, bi, bh):
    """(hy,): tanh of the summed pre-activation."""
    return (jmath.tanh(i + bi + h + bh),)


def rnn_relu_cell(i, h, bi, bh):
    """(hy,): relu of the summed pre-activation (NaN stays NaN)."""
    s = i + bi + h + bh
    zero = like(s, 0.0)
    return (zero if s < zero else s,)


def rnn_tanh_cell_backward(dh, dh2, hy):
    """(dpre,): the pre-activation's gradient from the new h."""
    return ((dh + dh2) * (like(hy, 1.0) - hy * hy),)


def rnn_relu_cell_backward(dh, dh2, hy):
    """(dpre,): relu's gradient (0 where the output is 0, as threshold_backward)."""
    zero = like(hy, 0.0)
    return (dh + dh2 if hy > zero else zero,)


def add_pair(a, b):
    """(a + b,): a step's total hidden gradient (the output's plus the next step's)."""
    return (a + b,)


# ---- a layer's steps: the same cells, each new state written twice (the step's own row and the next
# step's h_prev / c_prev), and the GRU's hidden-gate gradients written beside the input gates' ----

def lstm_layer_cell(ii, if_, ig, io, hi, hf, hg, ho, bii, bif, big, bio, bhi, bhf, bhg, bho, cx):
    hy, cy, i, f, g, o = lstm_cell(ii, if_, ig, io, hi, hf, hg, ho, bii, bif, big, bio, bhi, bhf, bhg, bho, cx)
    return hy, hy, cy, cy, i, f, g, o


def gru_layer_cell(ir, iz, in_, hr, hz, hn, bir, biz, bin_, bhr, bhz, bhn, hx):
    hy, r, z, n, h, hnb = gru_cell(ir, iz, in_, hr, hz, hn, bir, biz, bin_, bhr, bhz, bhn, hx)
    return hy, hy, r, z, n, hnb


def gru_layer_cell_backward(dh, dh2, r, z, n, hx, hn):
    dr, dz, dnp, dhn, dhx = gru_cell_backward(dh, dh2, r, z, n, hx, hn)
    return dr, dz, dnp, dr, dz, dhn, dhx


def rnn_tanh_layer_cell(i, h, bi, bh):
    (hy,) = rnn_tanh_cell(i, h, bi, bh)
    return hy, hy, hy


def rnn_relu_layer_cell(i, h, bi, bh):
    (hy,) = rnn_relu_cell(i, h, bi, bh)
    return hy, hy, hy
