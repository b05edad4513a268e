"""Normalisation functions of `torch.nn.functional`: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm.

batch_norm, layer_norm and group_norm check their arguments with torch's texts and run one aten
operator each (native_batch_norm, native_layer_norm, native_group_norm: jtorch/native/normalization.py),
so the graph has torch's one node; instance_norm is batch_norm over the (1, N*C, ...) view, as ATen's.
"""
from __future__ import annotations

from collections.abc import Sequence

import jtorch as torch

from ...native.registry import by_name as _ops
from ...tensor import Tensor

__all__ = ["batch_norm", "layer_norm", "group_norm", "rms_norm", "instance_norm"]


def _verify_batch_size(size: Sequence[int]) -> None:
    size_prods = size[0]
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if training:
        _verify_batch_size(input.size())
    return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps)


def batch_norm_impl(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
                    bias: Tensor | None, training: bool, momentum: float, eps: float) -> Tensor:
    """aten::batch_norm (torch.batch_norm): nn.functional's batch_norm less its Python-level check."""
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    num_features = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            if t.numel() != num_features:
                raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != num_features:
            raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")
    return _ops["native_batch_norm"].op(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def _check_normalized_shape(input: Tensor, normalized_shape: int | Sequence[int],
                            affine: tuple, star: str = "*, ") -> list:
    """torch's _check_layer_norm_inputs (and rms_norm's, whose text has "[*4]" where layer_norm's has
    "[*, 4]"): the shape, each affine tensor, the input."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if len(shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {shape}")
    for name, t in affine:
        if t is not None and list(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {shape}")
    if input.dim() < len(shape) or list(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [{star}"
                           f"{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}")
    return shape


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = _check_normalized_shape(input, normalized_shape, (("weight", weight), ("bias", bias)))
    return _ops["native_layer_norm"].op(input, shape, weight, bias, eps)[0]


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:]))
    return group_norm_impl(input, num_groups, weight, bias, eps)


def group_norm_impl(input: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None,
                    eps: float) -> Tensor:
    """aten::group_norm (torch.group_norm): nn.functional's group_norm less its Python-level checks."""
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    hxw = 1
    for d in input.shape[2:]:
        hxw *= d
    return _ops["native_group_norm"].op(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    shape = _check_normalized_shape(input, normalized_shape, (("weight", weight),), star="*")
    if eps is None:
        eps = torch.finfo(input.dtype).eps
    dims = list(range(-len(shape), 0))
    # ATen's rsqrt(pow(x, 2).mean(dims, keepdim).add_(eps)): PowBackward0, AddBackward1 (add.Scalar)
    out = input * torch.rsqrt(torch.ops.aten.add.Scalar(input.pow(2).mean(dims, keepdim=True), eps))
    return out * weight if weight is not None else out


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Each (sample, channel) normalised over its spatial elements; running statistics (when given)
    move towards the batch average of the per-instance ones, as torch's batch-norm-on-(1, N*C) does."""
    if use_input_stats:
        size = list(input.shape)
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    return instance_norm_impl(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def instance_norm_impl(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                       weight: Tensor | None, bias: Tensor | None, use_input_stats: bool, momentum: float,
                       eps: float) -> Tensor:
    """aten::instance_norm (torch.instance_norm): nn.functional's instance_norm less its Python-level check."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    shape = [1, b * c] + list(input.shape[2:])

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(b)

    running_mean_, running_var_ = repeated(running_mean), repeated(running_var)
    out = batch_norm_impl(input.contiguous().view(shape), running_mean_, running_var_, repeated(weight),
                          repeated(bias), use_input_stats, momentum, eps)
    with torch.no_grad():  # ATen's at::alias(running_mean).copy_(...): the batch average of the per-instance ones
        if running_mean is not None:
            running_mean.copy_(running_mean_.view(b, c).mean(0))  # type: ignore[union-attr]  # given with it
        if running_var is not None:
            running_var.copy_(running_var_.view(b, c).mean(0))  # type: ignore[union-attr]  # given with it
    return out.view(list(input.shape))
