"""Activation operators of the torch namespace (hardshrink, threshold, celu, selu, rrelu, prelu) and the
aten operators behind them (elu, rrelu_with_noise, _prelu_kernel). torch.nn.functional's forms call
these, so both names run one operator and record torch's nodes (HardshrinkBackward0, EluBackward0, ...).

elu has no Python name in torch's namespace (it is torch._C._nn.elu); as for gelu, jtorch binds it as
`jtorch.elu` until bindings have torch's python modules.
"""
from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..kernels import scalar_unary as s
from ..scalar import SCALAR_TYPE_NAME, not_implemented
from ..structured.meta import check_same_device
from ..structured.tensor_iterator import UNARY_OP
from ..tensor import Tensor
from .elementwise import elementwise
from .factories import wrapped_scalar_tensor
from .registry import by_name, composite_explicit_autograd, composite_implicit_autograd


def _dispatch(kernel: str, floating_only: bool) -> Any:
    """The AT_DISPATCH of torch's CPU kernel: floating types only, or every real type but bool."""
    def check(dtype: _dt.dtype, extras: dict) -> None:
        ok = dtype.is_floating_point if floating_only else not (dtype is _dt.bool or dtype.is_complex)
        if not ok:
            raise not_implemented(kernel, dtype)

    return check


hardshrink = elementwise("hardshrink.out(Tensor self, Scalar lambd=0.5, *, Tensor(a!) out) -> Tensor(a!)",
                         functional="hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
                         config=UNARY_OP, scalar=s.hardshrink, dispatch_check=_dispatch("hardshrink_cpu", True))
threshold = elementwise("threshold.out(Tensor self, Scalar threshold, Scalar value, *, Tensor(a!) out) -> Tensor(a!)",
                        functional="threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
                        inplace="threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)",
                        config=UNARY_OP, scalar=s.threshold, dispatch_check=_dispatch("threshold_cpu", False),
                        variants="function", inplace_variants="function")
elu = elementwise(
    "elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out) -> Tensor(a!)",
    functional="elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    inplace="elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)",
    config=UNARY_OP, scalar=s.elu, dispatch_check=_dispatch("elu_cpu", True), variants="function",
    inplace_variants="function")

def _hardtanh_check(dtype: _dt.dtype, extras: dict) -> None:
    # hardtanh is torch's clamp: every type but bool and complex
    if dtype is _dt.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


def _softshrink_check(dtype: _dt.dtype, extras: dict) -> None:
    """softshrink's meta check: floating types, and a lambda in [0, the dtype's max]."""
    if not dtype.is_floating_point:
        raise not_implemented("softshrink_check", dtype)
    lambd, top = extras["lambd"], _dt.finfo(dtype).max
    if not 0 <= float(lambd) <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{SCALAR_TYPE_NAME[dtype]}, but found {float(lambd):g}")


# torch._C._nn's activations (python_module: nn): declared without a torch-namespace binding;
# torch.nn.functional calls their operators
leaky_relu = elementwise(
    "leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)",
    functional="leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    inplace="leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)",
    config=UNARY_OP, scalar=s.leaky_relu, dispatch_check=_dispatch("leaky_relu_cpu", True), variants="",
    inplace_variants="")
hardtanh = elementwise(
    "hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)",
    functional="hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    inplace="hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)",
    config=UNARY_OP, scalar=s.hardtanh, dispatch_check=_hardtanh_check, variants="", inplace_variants="")
softplus = elementwise(
    "softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out) -> Tensor(a!)",
    functional="softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    config=UNARY_OP, scalar=s.softplus, dispatch_check=_dispatch("softplus_cpu", True), variants="")
mish = elementwise("mish.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                   functional="mish(Tensor self) -> Tensor", inplace="mish_(Tensor(a!) self) -> Tensor(a!)",
                   config=UNARY_OP, scalar=s.mish, dispatch_check=_dispatch("mish_cpu", True), variants="",
                   inplace_variants="")
hardsigmoid = elementwise("hardsigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                          functional="hardsigmoid(Tensor self) -> Tensor",
                          inplace="hardsigmoid_(Tensor(a!) self) -> Tensor(a!)", config=UNARY_OP,
                          scalar=s.hardsigmoid, dispatch_check=_dispatch("hardsigmoid_cpu", True), variants="",
                          inplace_variants="")
hardswish = elementwise("hardswish.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                        functional="hardswish(Tensor self) -> Tensor",
                        inplace="hardswish_(Tensor(a!) self) -> Tensor(a!)", config=UNARY_OP,
                        scalar=s.hardswish, dispatch_check=_dispatch("hardswish_cpu", True), variants="",
                        inplace_variants="")
softshrink = elementwise("softshrink.out(Tensor self, Scalar lambd=0.5, *, Tensor(a!) out) -> Tensor(a!)",
                         functional="softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", config=UNARY_OP,
                         scalar=s.softshrink, dispatch_check=_softshrink_check, variants="")


# selu's constants, as torch's Activation.h
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


@composite_implicit_autograd("selu(Tensor self) -> Tensor")
def selu(self: Tensor) -> Tensor:
    return elu.functional.op(self, SELU_ALPHA, SELU_SCALE)


@composite_implicit_autograd("selu_(Tensor(a!) self) -> Tensor(a!)")
def selu_(self: Tensor) -> Tensor:
    return elu.inplace.op(self, SELU_ALPHA, SELU_SCALE)


def _celu_check(alpha: Any) -> float:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


@composite_explicit_autograd("celu(Tensor self, Scalar alpha=1.0) -> Tensor")
def celu(self: Tensor, alpha: Any = 1.0) -> Tensor:
    return elu.functional.op(self, alpha, 1.0, _celu_check(alpha))


@composite_explicit_autograd("celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)")
def celu_(self: Tensor, alpha: Any = 1.0) -> Tensor:
    return elu.inplace.op(self, alpha, 1.0, _celu_check(alpha))


# ---- rrelu: a random slope in [lower, upper] per non-positive element while training, their mean else ---
def _rrelu_check(self: Tensor, lower: Any, upper: Any) -> None:
    if not self.dtype.is_floating_point:
        raise not_implemented("leaky_relu_cpu", self.dtype)
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def _rrelu_values(self: Tensor, noise: Tensor, lower: Any, upper: Any, training: bool, generator: Any) -> Tensor:
    """rrelu_with_noise's kernel: fills `noise` (the slope used per element) while training."""
    where = by_name["where.self"].op
    positive = by_name["gt.Tensor"].op(self, wrapped_scalar_tensor(0))
    if training:
        slope = by_name["uniform_"].op(by_name["empty_like"].op(self), float(lower), float(upper),
                                       generator=generator)
        # written as torch's kernel writes it (no version bump: autograd saves `noise` for the backward)
        backend(noise.device.type).copy(noise, by_name["masked_fill.Scalar"].op(slope, positive, 1.0))
        return where(positive, self, by_name["mul.Tensor"].op(self, slope))
    mean = wrapped_scalar_tensor((float(lower) + float(upper)) / 2)
    return where(positive, self, by_name["mul.Tensor"].op(self, mean))


# torch's schemas mark `noise` as written (Tensor(b!)); here it is declared plain because the backward
# reads the noise the forward writes: a version bump would invalidate the saved tensor.
@composite_explicit_autograd("rrelu_with_noise(Tensor self, Tensor noise, Scalar lower=0.125, "
                             "Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None) "
                             "-> Tensor", variants="")
def rrelu_with_noise(self: Tensor, noise: Tensor, lower: Any = 0.125, upper: Any = 0.3333333333333333,
                     training: bool = False, generator: Any = None) -> Tensor:
    _rrelu_check(self, lower, upper)
    return _rrelu_values(self, noise, lower, upper, training, generator)


@composite_explicit_autograd("rrelu_with_noise_(Tensor(a!) self, Tensor noise, Scalar lower=0.125, "
                             "Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None) "
                             "-> Tensor(a!)", variants="")
def rrelu_with_noise_(self: Tensor, noise: Tensor, lower: Any = 0.125, upper: Any = 0.3333333333333333,
                      training: bool = False, generator: Any = None) -> Tensor:
    _rrelu_check(self, lower, upper)
    return by_name["copy_"].op(self, _rrelu_values(self, noise, lower, upper, training, generator))


@composite_implicit_autograd("rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
                             "bool training=False, Generator? generator=None) -> Tensor")
def rrelu(self: Tensor, lower: Any = 0.125, upper: Any = 0.3333333333333333, training: bool = False,
          generator: Any = None) -> Tensor:
    noise = by_name["empty_like"].op(self)
    return by_name["rrelu_with_noise"].op(self, noise, lower, upper, training, generator)


@composite_implicit_autograd("rrelu_(Tensor(a!) self, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
                             "bool training=False, Generator? generator=None) -> Tensor(a!)")
def rrelu_(self: Tensor, lower: Any = 0.125, upper: Any = 0.3333333333333333, training: bool = False,
           generator: Any = None) -> Tensor:
    noise = by_name["empty_like"].op(self)
    return by_name["rrelu_with_noise_"].op(self, noise, lower, upper, training, generator)


# ---- prelu: one slope, or one per channel (dim 1) -------------------------------------------------------
@composite_explicit_autograd("_prelu_kernel(Tensor self, Tensor weight) -> Tensor")
def _prelu_kernel(self: Tensor, weight: Tensor) -> Tensor:
    check_same_device((self, weight))  # torch's CPU/CUDA kernel: the dispatcher's check
    if not self.dtype.is_floating_point and self._device.type != "meta":
        raise not_implemented("prelu_cpu", self.dtype)
    positive = by_name["gt.Tensor"].op(self, wrapped_scalar_tensor(0))
    return by_name["where.self"].op(positive, self, by_name["mul.Tensor"].op(weight, self))


@composite_implicit_autograd("prelu(Tensor self, Tensor weight) -> Tensor", variants="function, method")
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    if self.dtype is not weight.dtype:
        raise RuntimeError("prelu: Type promoting not supported. Got "
                           f"{SCALAR_TYPE_NAME[self.dtype]} and {SCALAR_TYPE_NAME[weight.dtype]}")
    n, ndim = weight.numel(), self.dim()
    if n != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self.shape[1] if ndim > 1 else 1
        if n != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. "
                               f"Found parameter numbers = {n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if ndim != weight.dim():  # weight broadcast over self, with ndim equal to self's
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = n
        weight = by_name["reshape"].op(weight, shape)
    return by_name["_prelu_kernel"].op(self, weight)


# ---- log_sigmoid: the forward keeps exp(-|x|) as a buffer for the backward, as torch's kernel --------------
@composite_explicit_autograd("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)", variants="")
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    if not self.dtype.is_floating_point and self._device.type != "meta":
        raise not_implemented("log_sigmoid_cpu", self.dtype)
    buffer = by_name["exp"].op(by_name["neg"].op(by_name["abs"].op(self)))
    low = by_name["clamp_max"].op(self, 0)
    return by_name["sub.Tensor"].op(low, by_name["log1p"].op(buffer)), buffer


@composite_implicit_autograd("log_sigmoid(Tensor self) -> Tensor", variants="")
def log_sigmoid(self: Tensor) -> Tensor:
    return by_name["log_sigmoid_forward"].op(self)[0]


# ---- glu: the first half of `dim` gated by the sigmoid of the second -------------------------------------
@composite_explicit_autograd("glu(Tensor self, int dim=-1) -> Tensor", variants="")
def glu(self: Tensor, dim: int = -1) -> Tensor:
    if not self.dtype.is_floating_point and self._device.type != "meta":
        raise not_implemented("glu_cpu", self.dtype)
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + self.dim() if dim < 0 else dim
    size = self.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a = by_name["narrow"].op(self, d, 0, size // 2)
    b = by_name["narrow"].op(self, d, size // 2, size // 2)
    return by_name["mul.Tensor"].op(a, by_name["sigmoid"].op(b))
