"""The normalisation operators torch records as one node each: native_layer_norm, native_group_norm and
native_batch_norm (NativeLayerNormBackward0, NativeGroupNormBackward0, NativeBatchNormBackward0).

Each kernel, at CompositeExplicitAutograd (below autograd), is two passes of jtorch operators: the mean,
then the mean of the squared deviations from it (the biased variance), and out = (x - mean) * rstd
followed by the affine part. Their gradients are derivatives.yaml's (formulas_normalization.py).
native_batch_norm in training also moves the running statistics, outside autograd, as torch's kernel:
running = (1 - momentum) running + momentum * batch statistic, with the unbiased variance.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..autograd.grad_mode import no_grad
from ..scalar import not_implemented
from ..tensor import Tensor
from .factories import aten
from .registry import composite_explicit_autograd


def _check_floating(input: Tensor, kernel: str) -> None:
    """The CPU kernels' AT_DISPATCH: floating types only."""
    if not input.dtype.is_floating_point and input._device.type != "meta":
        raise not_implemented(kernel, input.dtype)


def _moments(x: Tensor, dims: list[int], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(x - mean, mean, rstd) over dims, keepdim."""
    mean = x.mean(dims, keepdim=True)
    dev = x - mean
    return dev, mean, ((dev * dev).mean(dims, keepdim=True) + eps).rsqrt()


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def per_channel(t: Tensor, ndim: int) -> Tensor:
    """A (C,) tensor viewed as (1, C, 1, ...) against an ndim-dim input."""
    return aten("view")(t, [1, -1] + [1] * (ndim - 2)) if ndim > 2 else t


@composite_explicit_autograd("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
                             "float eps) -> (Tensor, Tensor, Tensor)")
def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    _check_floating(input, "LayerNormKernelImpl")
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    dev, mean, rstd = _moments(input, dims, eps)
    return _affine(dev * rstd, weight, bias), mean, rstd


@composite_explicit_autograd("native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, "
                             "SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)")
def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    _check_floating(input, "GroupNormKernelImpl")
    x = aten("reshape")(input, [N, group, -1])
    dev, mean, rstd = _moments(x, [2], eps)
    out = aten("reshape")(dev * rstd, list(input.shape))
    ndim = input.dim()
    out = _affine(out, None if weight is None else per_channel(weight, ndim),
                  None if bias is None else per_channel(bias, ndim))
    return out, aten("reshape")(mean, [N, group]), aten("reshape")(rstd, [N, group])


@composite_explicit_autograd("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                             "Tensor? running_var, bool training, float momentum, float eps) "
                             "-> (Tensor, Tensor, Tensor)")
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float, eps: float
                      ) -> tuple[Tensor, Tensor, Tensor]:
    _check_floating(input, "batch_norm")
    ndim = input.dim()
    if training:
        dims = [0] + list(range(2, ndim))
        mean = input.mean(dims)
        dev = input - per_channel(mean, ndim)
        var = (dev * dev).mean(dims)
        invstd = (var + eps).rsqrt()
        if running_mean is not None or running_var is not None:
            n = input.numel() // input.shape[1]
            with no_grad():
                if running_mean is not None:
                    running_mean.copy_(mean * momentum + running_mean * (1 - momentum))
                if running_var is not None:
                    running_var.copy_(var * (momentum * n / (n - 1)) + running_var * (1 - momentum))
        return _transform(input, mean, invstd, weight, bias), mean, invstd
    assert running_mean is not None and running_var is not None  # batch_norm checks them in evaluation mode
    out = _transform(input, running_mean, (running_var + eps).rsqrt(), weight, bias)
    return out, input.new_empty((0,)), input.new_empty((0,))


def _transform(input: Tensor, mean: Tensor, invstd: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """batch_norm_cpu_transform_input: input * alpha + beta with the per-channel alpha = invstd * weight and
    beta = bias - mean * alpha (one pass over the input)."""
    alpha = invstd * weight if weight is not None else invstd
    beta = bias - mean * alpha if bias is not None else -(mean * alpha)
    ndim = input.dim()
    return aten("addcmul")(per_channel(beta, ndim), input, per_channel(alpha, ndim))
