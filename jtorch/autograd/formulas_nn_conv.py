"""Formula helpers for convolution and pooling (PyTorch's convolution_backward and
FunctionsManual.cpp's max_pool_double_backward), written with operators that are themselves
differentiable (im2col, col2im, matmul, sum, views), so that double backward works.

`aten` (jtorch.ops.aten) comes in as an argument: this layer does not import the operators.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _expand(v: Sequence[int], n: int) -> list:
    v = list(v)
    return v * n if len(v) == 1 else v


def _blocks(size: Sequence[int], k: Sequence[int], d: Sequence[int], p: Sequence[int], s: Sequence[int]) -> tuple:
    return tuple((size[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2))


def convolution_backward(aten: Any, grad: Any, input: Any, weight: Any, stride: Sequence[int],
                         padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                         output_padding: Sequence[int], groups: int, needs: Sequence[bool]) -> tuple:
    """(grad_input, grad_weight, grad_bias) of aten::convolution for the inputs in `needs`.

    Convolution: out[n, g] = W[g] @ im2col(x)[n, g], so grad_x = col2im(W[g]^T @ grad[n, g]) and
    grad_W[g] = sum_n grad[n, g] @ im2col(x)[n, g]^T. A transposed convolution is the adjoint:
    out = col2im(W^T @ x), so grad_x = W @ im2col(grad) and grad_W = sum_n x @ im2col(grad)^T."""
    dim = weight.dim() - 2
    s, p, d = _expand(stride, dim), _expand(padding, dim), _expand(dilation, dim)
    if dim == 3:
        return _convolution_backward_by_convolutions(aten, grad, input, weight, s, p, d, transposed,
                                                     _expand(output_padding, dim), groups, needs)
    if dim == 1:  # a 1-d convolution is a 2-d one over a height of 1
        grad, input, weight = grad.unsqueeze(2), input.unsqueeze(2), weight.unsqueeze(2)
        s, p, d = [1] + s, [0] + p, [1] + d
    g, n = groups, input.shape[0]
    k = [weight.shape[2], weight.shape[3]]
    kk = k[0] * k[1]
    h, w = input.shape[2], input.shape[3]  # explicit sizes below, no -1: the batch may be empty
    gi = gw = gb = None
    if needs[2]:
        gb = grad.sum([0, 2, 3])
    if not transposed:
        o = weight.shape[0]
        L = grad.shape[2] * grad.shape[3]
        g4 = grad.reshape(n, g, o // g, L)
        if needs[0]:
            cols = weight.reshape(g, o // g, -1).transpose(1, 2).matmul(g4)  # (N, G, Cg*K, L)
            gi = aten.col2im.default(cols.reshape(n, input.shape[1] * kk, L), [h, w], k, d, p, s)
        if needs[1]:
            cols = aten.im2col.default(input, k, d, p, s).reshape(n, g, input.shape[1] // g * kk, L)
            gw = g4.matmul(cols.transpose(-1, -2)).sum(0).reshape(weight.shape)
    elif needs[0] or needs[1]:
        cin = weight.shape[0]
        gcols = aten.im2col.default(grad, k, d, p, s)  # (N, Cout*K, blocks)
        bh, bw = _blocks((grad.shape[2], grad.shape[3]), k, d, p, s)
        if (bh, bw) != (h, w):  # output_padding >= stride (with dilation): blocks past the input are unused
            gcols = gcols.reshape(n, weight.shape[1] * g * kk, bh, bw)[:, :, :h, :w]
        gcols = gcols.reshape(n, g, weight.shape[1] * kk, h * w)
        if needs[0]:
            gi = weight.reshape(g, cin // g, -1).matmul(gcols).reshape(input.shape)
        if needs[1]:
            gw = input.reshape(n, g, cin // g, h * w).matmul(gcols.transpose(-1, -2)).sum(0).reshape(weight.shape)
    if dim == 1:
        gi = gi.squeeze(2) if gi is not None else None
        gw = gw.squeeze(2) if gw is not None else None
    return gi, gw, gb


def _convolution_backward_by_convolutions(aten: Any, grad: Any, input: Any, weight: Any, s: list, p: list,
                                           d: list, transposed: bool, op: list, groups: int,
                                           needs: Sequence[bool]) -> tuple:
    """convolution_backward as convolutions (the 3-d case, whose columns have no operator):
    the input's gradient is the adjoint convolution (transposed for a direct one and the other
    way round); the weight's is a convolution of the input's and the gradient's planes with the
    batch as the reduced channel and stride and dilation exchanged, cropped to the kernel."""
    g, n, nd = groups, input.shape[0], weight.dim() - 2
    sp, gsp, k = list(input.shape[2:]), list(grad.shape[2:]), list(weight.shape[2:])
    gi = gw = gb = None
    if needs[2]:
        gb = grad.sum([0] + list(range(2, 2 + nd)))
    if needs[0]:
        if not transposed:
            # output_padding in [0, stride): what the forward's floor dropped
            opad = [sp[i] - ((gsp[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1) for i in range(nd)]
            gi = aten.convolution.default(grad, weight, None, s, p, d, True, opad, g)
        else:
            gi = aten.convolution.default(grad, weight, None, s, p, d, False, [0] * nd, g)
            gi = gi[(slice(None), slice(None)) + tuple(slice(0, v) for v in sp)]
    if needs[1]:
        # a (B, G*R, *S) "input" (R reduced over, the batch) against a (G*Q, R, *T) "weight"
        a, b = (input, grad) if not transposed else (grad, input)
        ca, cb = a.shape[1] // g, b.shape[1] // g
        a2 = a.reshape(n, g, ca, *a.shape[2:]).permute(2, 1, 0, *range(3, 3 + nd)).reshape(ca, g * n, *a.shape[2:])
        b2 = b.reshape(n, g, cb, *b.shape[2:]).permute(1, 2, 0, *range(3, 3 + nd)).reshape(g * cb, n, *b.shape[2:])
        r = aten.convolution.default(a2, b2, None, d, p, s, False, [0] * nd, g)  # (ca, G*cb, *>=K)
        r = r[(slice(None), slice(None)) + tuple(slice(0, v) for v in k)]
        # (G, cb, ca, *K): a direct weight's (G*Og, Cg, *K), a transposed one's (G*Cg, Og, *K)
        gw = r.reshape(ca, g, cb, *k).permute(1, 2, 0, *range(3, 3 + nd)).reshape(weight.shape)
    return gi, gw, gb


def max_pool_double_backward(grad: Any, indices: Any, dim: int) -> Any:
    """The gradient of max pooling's backward with respect to grad_output: grad at the saved
    indices (torch's max_pool_double_backward)."""
    n = indices.dim() - dim
    flat = grad.flatten(n)
    return flat.gather(-1, indices.flatten(n)).reshape(indices.shape)
