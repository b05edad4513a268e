"""nn.functional: 3-d pooling, adaptive max pooling over 1 and 3 dims, max unpooling and power-average
(LP) pooling (torch/nn/functional.py's front ends): argument normalisation and the choice of
operator, as torch's; kernels, checks and gradients live with the operators
(jtorch/native/pooling_3d.py, pooling.py, unpooling.py, fractional_pooling.py). lp_pool* are torch's Python composites.
"""
from __future__ import annotations

from typing import Any

import jtorch

from ...tensor import Tensor
from ._conv import _adaptive_size, _list, _stride, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = ["max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]

_IntOrTuple = Any  # int or a tuple of ints


def _aten() -> Any:
    return jtorch.ops.aten


def max_pool3d_with_indices(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                            padding: _IntOrTuple = 0, dilation: _IntOrTuple = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    return _aten().max_pool3d_with_indices.default(input, _list(kernel_size, 3), _stride(stride, 3),
                                                   _list(padding, 3), _list(dilation, 3), ceil_mode)


def max_pool3d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               dilation: _IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _aten().max_pool3d.default(input, _list(kernel_size, 3), _stride(stride, 3), _list(padding, 3),
                                      _list(dilation, 3), ceil_mode)


def avg_pool3d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _aten().avg_pool3d.default(input, _list(kernel_size, 3), _stride(stride, 3), _list(padding, 3), ceil_mode,
                                      count_include_pad, divisor_override)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    return _aten().adaptive_avg_pool3d.default(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _aten().adaptive_max_pool1d.default(input, _list(output_size, 1))


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _aten().adaptive_max_pool3d.default(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


# ---- max unpooling --------------------------------------------------------------------------------
def _unpool_output_size(input: Tensor, kernel_size: list, stride: list, padding: list,
                        output_size: Any) -> list:
    """torch's _unpool_output_size: the default size, or the requested one when it is within a stride."""
    n = len(kernel_size)
    default = [(input.size(-n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        output_size = list(output_size)
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return list(ret)


def _unpool_args(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None, padding: _IntOrTuple,
                 output_size: Any, n: int) -> tuple:
    k = _list(kernel_size, n)
    s = k if stride is None else _list(stride, n)
    p = _list(padding, n)
    return s, p, _unpool_output_size(input, k, s, p, output_size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, output_size: Any = None) -> Tensor:
    _, _, size = _unpool_args(input, kernel_size, stride, padding, output_size, 1)
    return _aten().max_unpool2d.default(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, output_size: Any = None) -> Tensor:
    _, _, size = _unpool_args(input, kernel_size, stride, padding, output_size, 2)
    return _aten().max_unpool2d.default(input, indices, size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, output_size: Any = None) -> Tensor:
    s, p, size = _unpool_args(input, kernel_size, stride, padding, output_size, 3)
    return _aten().max_unpool3d.default(input, indices, size, s, p)


# ---- power-average pooling ------------------------------------------------------------------------
def _lp(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, n: int, max_pool: Any,
        avg_pool: Any) -> Tensor:
    volume = 1
    for v in _list(kernel_size, n):
        volume *= v
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (jtorch.sign(out) * jtorch.relu(jtorch.abs(out))).mul(volume).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 1, max_pool1d, avg_pool1d)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 2, max_pool2d, avg_pool2d)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 3, max_pool3d, avg_pool3d)


# ---- fractional max pooling -----------------------------------------------------------------------
def _fractional(input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any, samples: Tensor | None,
                nd: int) -> tuple:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:  # torch's: a bare float ratio is a TypeError here
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = [output_ratio] * nd if isinstance(output_ratio, (int, float)) else list(output_ratio)
        output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
    if samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        samples = jtorch.rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    op = getattr(_aten(), name).default
    return op(input, _list(kernel_size, nd), _list(output_size, nd), samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]
