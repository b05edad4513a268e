"""Activation functions of `torch.nn.functional`, composed from jtorch's differentiable operators.

Each composition is chosen so that its gradient equals torch's backward kernel also at the
edges (x == 0, the clamp boundaries, saturated exponentials): `where` picks a branch whose
derivative is torch's one-sided value there, and exponentials of the branch not taken are
clamped so that they cannot make a NaN gradient (0 * inf) through the masked branch.
In-place variants (`inplace=True`, `relu_`, ...) write the result into the input with `copy_`,
which autograd records, as torch's in-place kernels do.
"""
from __future__ import annotations

import jtorch as torch

from ...native import activations as _act
from ...native.registry import by_name as _ops
from ...scalar import checked_scalar, not_implemented
from ...tensor import Tensor
from ...warn import user_stacklevel

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu", "celu_",
    "gelu", "silu", "mish", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "softplus", "softsign",
    "tanhshrink", "hardshrink", "softshrink", "sigmoid", "tanh", "logsigmoid", "softmax", "log_softmax",
    "softmin", "glu", "threshold", "threshold_", "prelu", "rrelu", "rrelu_",
]

def _opmath_check(input: Tensor, *values: float) -> None:
    """The kernel's `value.to<opmath_t>()`: a Python float that overflows the input's opmath type
    (float for float32/float16/bfloat16) raises torch's overflow error."""
    dt = input.dtype
    if dt.is_floating_point:
        opmath = torch.float64 if dt == torch.float64 else torch.float32
        for v in values:
            checked_scalar(opmath, v)


def _float_only(input: Tensor, kernel: str) -> None:
    # torch's AT_DISPATCH_FLOATING_TYPES error for the kernels that have no integer case
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise not_implemented(kernel, input.dtype)


def _apply(fn, input: Tensor, inplace: bool, *args) -> Tensor:
    """fn(input, *args), or written into input. Under autograd the in-place form computes from a
    clone: the composition saves its input for backward, which copy_ would then invalidate."""
    if not inplace:
        return fn(input, *args)
    src = input.clone() if input.requires_grad and torch.is_grad_enabled() else input
    return input.copy_(fn(src, *args))


# ---- rectifiers -------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch.relu_(input) if inplace else torch.relu(input)


def relu_(input: Tensor) -> Tensor:
    return torch.relu_(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return torch.threshold_(input, threshold, value) if inplace else torch.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return torch.threshold_(input, threshold, value)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return (_act.hardtanh.inplace if inplace else _act.hardtanh.functional).op(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _opmath_check(input, negative_slope)
    return (_act.leaky_relu.inplace if inplace else _act.leaky_relu.functional).op(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    return (torch.rrelu_ if inplace else torch.rrelu)(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return torch.rrelu_(input, lower, upper, training)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    return torch.prelu(input, weight)


# ---- exponential units ------------------------------------------------------------------------
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    _opmath_check(input, alpha)
    return torch.elu_(input, alpha) if inplace else torch.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return torch.elu_(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch.selu_(input) if inplace else torch.selu(input)


def selu_(input: Tensor) -> Tensor:
    return torch.selu_(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha != 0:  # alpha 0: the operator's own ZeroDivisionError text
        _opmath_check(input, alpha, 1.0 / alpha)
    return torch.celu_(input, alpha) if inplace else torch.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return torch.celu_(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return torch.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return torch.silu_(input) if inplace else torch.silu(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    _opmath_check(input, beta, threshold)
    return _act.softplus.functional.op(input, beta, threshold)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return (_act.mish.inplace if inplace else _act.mish.functional).op(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return (_act.hardsigmoid.inplace if inplace else _act.hardsigmoid.functional).op(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return (_act.hardswish.inplace if inplace else _act.hardswish.functional).op(input)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return torch.hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _act.softshrink.functional.op(input, lambd)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    return _ops["log_sigmoid_forward"].op(input)[0]


# ---- softmax family ---------------------------------------------------------------------------
def _get_softmax_dim(name: str, ndim: int) -> int:
    import warnings
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=user_stacklevel())
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: torch.dtype | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim())
    return input.softmax(dim, dtype=dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: torch.dtype | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim())
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: torch.dtype | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim())
    return input.log_softmax(dim, dtype=dtype)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    return _ops["glu"].op(input, dim)
