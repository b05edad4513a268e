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

from ...scalar import SCALAR_TYPE_NAME, checked_scalar, not_implemented
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
    return _apply(_hardtanh, input, inplace, min_val, max_val)


def _hardtanh(input: Tensor, min_val: float, max_val: float) -> Tensor:
    if not input.is_floating_point():
        min_val, max_val = int(min_val), int(max_val)  # integer inputs keep their dtype
    # nested where rather than clamp: torch's hardtanh_backward is 0 at the boundaries, clamp's is 1
    return torch.where(input <= min_val, min_val, torch.where(input >= max_val, max_val, input))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _float_only(input, "leaky_relu_cpu")
    _opmath_check(input, negative_slope)
    return _apply(lambda x: torch.where(x > 0, x, x * negative_slope), input, inplace)


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
    _float_only(input, "softplus_cpu")
    _opmath_check(input, beta, threshold)
    scaled = input * beta if beta != 1.0 else input
    # above the threshold torch returns x itself; below it log1p(exp(beta x)) / beta, with the
    # exponent clamped so that the branch not taken cannot overflow into a NaN gradient
    soft = torch.log1p(torch.exp(scaled.clamp_max(threshold)))
    if beta != 1.0:
        soft = soft / beta
    return torch.where(scaled > threshold, input, soft)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    _float_only(input, "mish_cpu")
    return _apply(lambda x: x * torch.tanh(softplus(x)), input, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    _float_only(input, "hardsigmoid_cpu")
    return _apply(lambda x: _hardtanh(x + 3.0, 0.0, 6.0) / 6.0, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    _float_only(input, "hardswish_cpu")
    return _apply(_hardswish, input, inplace)


def _hardswish(input: Tensor) -> Tensor:
    # the branches of torch's hardswish_backward: 0 up to -3, x/3 + 1/2 inside, 1 from 3 on
    mid = input * (input + 3.0) / 6.0
    return torch.where(input <= -3.0, 0.0, torch.where(input < 3.0, mid, input))


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return torch.hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {torch.finfo(input.dtype).max:g}] for input dtype "
                           f"{SCALAR_TYPE_NAME[input.dtype]}, but found {lambd:g}")
    return torch.where(input > lambd, input - lambd, torch.where(input < -lambd, input + lambd, 0.0))


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """min(x, 0) - log1p(exp(-|x|)), with -|x| written as a where so that its derivative at 0
    is -1 (torch's log_sigmoid_backward gives 1/2 there)."""
    _float_only(input, "log_sigmoid_cpu")
    neg = input < 0
    neg_abs = torch.where(neg, input, -input)
    return torch.where(neg, input, 0.0) - torch.log1p(torch.exp(neg_abs))


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
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()
