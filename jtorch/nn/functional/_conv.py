"""nn.functional: convolutions, pooling, unfold/fold (torch/nn/functional.py's front ends).

Each is a thin front end over an aten operator (jtorch/native/convolution.py, pooling.py), as in
torch: argument normalisation (ints to lists, stride=None, None in an adaptive output size) and
the choice of overload; kernels, checks and gradients live with the operators.
"""
from __future__ import annotations

from typing import Any

import jtorch

from ...tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold",
           "fold", "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d",
           "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices"]

_IntOrTuple = Any  # int or a tuple of ints


def _aten() -> Any:
    return jtorch.ops.aten


def _list(v: _IntOrTuple, n: int) -> list:
    return [v] * n if isinstance(v, int) else list(v)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
           padding: _IntOrTuple | str = 0, dilation: _IntOrTuple = 1, groups: int = 1) -> Tensor:
    if isinstance(padding, str):
        return _aten().conv1d.padding(input, weight, bias, _list(stride, 1), padding, _list(dilation, 1), groups)
    return _aten().conv1d.default(input, weight, bias, _list(stride, 1), _list(padding, 1), _list(dilation, 1),
                                  groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
           padding: _IntOrTuple | str = 0, dilation: _IntOrTuple = 1, groups: int = 1) -> Tensor:
    if isinstance(padding, str):
        return _aten().conv2d.padding(input, weight, bias, _list(stride, 2), padding, _list(dilation, 2), groups)
    return _aten().conv2d.default(input, weight, bias, _list(stride, 2), _list(padding, 2), _list(dilation, 2),
                                  groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
           padding: _IntOrTuple | str = 0, dilation: _IntOrTuple = 1, groups: int = 1) -> Tensor:
    if isinstance(padding, str):
        return _aten().conv3d.padding(input, weight, bias, _list(stride, 3), padding, _list(dilation, 3), groups)
    return _aten().conv3d.default(input, weight, bias, _list(stride, 3), _list(padding, 3), _list(dilation, 3),
                                  groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
                     padding: _IntOrTuple = 0, output_padding: _IntOrTuple = 0, groups: int = 1,
                     dilation: _IntOrTuple = 1) -> Tensor:
    return _aten().conv_transpose1d.default(input, weight, bias, _list(stride, 1), _list(padding, 1),
                                            _list(output_padding, 1), groups, _list(dilation, 1))


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
                     padding: _IntOrTuple = 0, output_padding: _IntOrTuple = 0, groups: int = 1,
                     dilation: _IntOrTuple = 1) -> Tensor:
    return _aten().conv_transpose2d.input(input, weight, bias, _list(stride, 2), _list(padding, 2),
                                          _list(output_padding, 2), groups, _list(dilation, 2))


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrTuple = 1,
                     padding: _IntOrTuple = 0, output_padding: _IntOrTuple = 0, groups: int = 1,
                     dilation: _IntOrTuple = 1) -> Tensor:
    return _aten().conv_transpose3d.input(input, weight, bias, _list(stride, 3), _list(padding, 3),
                                          _list(output_padding, 3), groups, _list(dilation, 3))


def unfold(input: Tensor, kernel_size: _IntOrTuple, dilation: _IntOrTuple = 1, padding: _IntOrTuple = 0,
           stride: _IntOrTuple = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), one column per sliding block."""
    return _aten().im2col.default(input, _list(kernel_size, 2), _list(dilation, 2), _list(padding, 2),
                                  _list(stride, 2))


def fold(input: Tensor, output_size: _IntOrTuple, kernel_size: _IntOrTuple, dilation: _IntOrTuple = 1,
         padding: _IntOrTuple = 0, stride: _IntOrTuple = 1) -> Tensor:
    """col2im: the columns summed back into an (N, C, *output_size) image."""
    return _aten().col2im.default(input, _list(output_size, 2), _list(kernel_size, 2), _list(dilation, 2),
                                  _list(padding, 2), _list(stride, 2))


def _stride(stride: _IntOrTuple | None, n: int) -> list:
    return [] if stride is None else _list(stride, n)


def max_pool1d_with_indices(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                            padding: _IntOrTuple = 0, dilation: _IntOrTuple = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    return _aten().max_pool1d_with_indices.default(input, _list(kernel_size, 1), _stride(stride, 1),
                                                   _list(padding, 1), _list(dilation, 1), ceil_mode)


def max_pool1d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               dilation: _IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _aten().max_pool1d.default(input, _list(kernel_size, 1), _stride(stride, 1), _list(padding, 1),
                                      _list(dilation, 1), ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                            padding: _IntOrTuple = 0, dilation: _IntOrTuple = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    return _aten().max_pool2d_with_indices.default(input, _list(kernel_size, 2), _stride(stride, 2),
                                                   _list(padding, 2), _list(dilation, 2), ceil_mode)


def max_pool2d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               dilation: _IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _aten().max_pool2d.default(input, _list(kernel_size, 2), _stride(stride, 2), _list(padding, 2),
                                      _list(dilation, 2), ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return _aten().avg_pool1d.default(input, _list(kernel_size, 1), _stride(stride, 1), _list(padding, 1),
                                      ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None, padding: _IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _aten().avg_pool2d.default(input, _list(kernel_size, 2), _stride(stride, 2), _list(padding, 2), ceil_mode,
                                      count_include_pad, divisor_override)


def _adaptive_size(input: Tensor, output_size: Any, n: int) -> list:
    """torch's _list_with_default: None keeps the input's size along that dim."""
    if isinstance(output_size, int):
        return [output_size] * n
    sizes = list(output_size)
    if len(sizes) != n:
        return sizes  # the operator reports the wrong length
    return [input.size(-n + i) if v is None else v for i, v in enumerate(sizes)]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    return _aten().adaptive_avg_pool1d.default(input, _adaptive_size(input, output_size, 1))


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    return _aten().adaptive_avg_pool2d.default(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _aten().adaptive_max_pool2d.default(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]
