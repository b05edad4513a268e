"""Formula helpers for the normalisation entries (native_layer_norm_backward, native_group_norm_backward,
batch_norm_backward of PyTorch's FunctionsManual.cpp / its kernels; see formulas.py).

Written with Tensor methods, so each is differentiable again. Under grad mode (double backward) the
statistics are recomputed from the input, so that their own dependence on it is part of the graph;
otherwise the forward's saved mean and rstd are used.
"""
from __future__ import annotations

from typing import Any

from .grad_mode import is_grad_enabled


def _stats(x: Any, dims: list[int], mean: Any, rstd: Any, eps: float) -> tuple[Any, Any]:
    """(mean, rstd) broadcastable against x: the saved ones reshaped, or recomputed under grad mode."""
    if is_grad_enabled():
        mean = x.mean(dims, keepdim=True)
        dev = x - mean
        return mean, ((dev * dev).mean(dims, keepdim=True) + eps).rsqrt()
    shape = [1 if i in dims else s for i, s in enumerate(x.shape)]
    return mean.reshape(shape), rstd.reshape(shape)


def _normalized_backward(g: Any, xhat: Any, rstd: Any, dims: list[int]) -> Any:
    """d/dx of xhat = (x - mean) * rstd over dims, given g = dL/dxhat."""
    return rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))


def _weight_bias(grad: Any, xhat: Any, weight: Any, bias: Any, dims: list[int], needs: Any) -> tuple[Any, Any]:
    gw = (grad * xhat).sum(dims).reshape(weight.shape) if weight is not None and needs[1] else None
    gb = grad.sum(dims).reshape(bias.shape) if bias is not None and needs[2] else None
    return gw, gb


def _channel(t: Any, ndim: int) -> Any:
    return t.view([1, -1] + [1] * (ndim - 2)) if ndim > 2 else t


def native_layer_norm_backward(grad: Any, input: Any, normalized_shape: Any, mean: Any, rstd: Any, weight: Any,
                               bias: Any, eps: float, needs: Any) -> tuple[Any, Any, Any]:
    axis = input.dim() - len(normalized_shape)
    dims = list(range(axis, input.dim()))
    mean, rstd = _stats(input, dims, mean, rstd, eps)
    xhat = (input - mean) * rstd
    gi = None
    if needs[0]:
        gi = _normalized_backward(grad * weight if weight is not None else grad, xhat, rstd, dims)
    return (gi, *_weight_bias(grad, xhat, weight, bias, list(range(axis)), needs))


def native_group_norm_backward(grad: Any, input: Any, mean: Any, rstd: Any, weight: Any, bias: Any, N: int,
                               group: int, eps: float, needs: Any) -> tuple[Any, Any, Any]:
    ndim, shape = input.dim(), list(input.shape)
    x = input.reshape(N, group, -1)
    m, r = _stats(x, [2], mean, rstd, eps)
    xhat = (x - m) * r
    gi = None
    if needs[0]:
        g = grad * _channel(weight, ndim) if weight is not None else grad
        gi = _normalized_backward(g.reshape(N, group, -1), xhat, r, [2]).reshape(shape)
    dims = [0] + list(range(2, ndim))
    return (gi, *_weight_bias(grad, xhat.reshape(shape), weight, bias, dims, needs))


def batch_norm_backward(grad: Any, input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,
                        training: bool, eps: float, save_mean: Any, save_invstd: Any, needs: Any
                        ) -> tuple[Any, Any, Any]:
    ndim = input.dim()
    dims = [0] + list(range(2, ndim))
    if not training:  # per channel: x * (w * invstd) + ..., folded so each gradient is one pass over grad
        invstd = (running_var + eps).rsqrt()
        gi = grad * _channel(weight * invstd if weight is not None else invstd, ndim) if needs[0] else None
        gw = ((grad * (input - _channel(running_mean, ndim))).sum(dims) * invstd
              if weight is not None and needs[1] else None)
        return gi, gw, (grad.sum(dims) if bias is not None and needs[2] else None)
    mean, invstd = _stats(input, dims, save_mean, save_invstd, eps)
    xhat = (input - mean) * invstd
    gi = None
    if needs[0]:
        g = grad * _channel(weight, ndim) if weight is not None else grad
        gi = _normalized_backward(g, xhat, invstd, dims)
    return (gi, *_weight_bias(grad, xhat, weight, bias, dims, needs))
