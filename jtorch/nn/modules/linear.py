"""Identity, Linear and Bilinear (torch/nn/modules/linear.py), with torch's default initialisation."""
from __future__ import annotations

import math
from typing import Any

import jtorch

from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


def weight_and_bias(m: Module, weight_shape: tuple, out_features: int, bias: bool, device: Any, dtype: Any) -> None:
    """Register `weight` (uninitialised) and `bias` (or None), as Linear, Bilinear and Conv do."""
    m.weight = Parameter(jtorch.empty(weight_shape, device=device, dtype=dtype))
    m.register_parameter("bias", Parameter(jtorch.empty(out_features, device=device, dtype=dtype)) if bias else None)


def reset_weight_and_bias(m: Module) -> None:
    """torch's default for Linear and Conv: kaiming_uniform_(a=sqrt(5)) for the weight, which is
    uniform(+-1/sqrt(fan_in)), and uniform(+-1/sqrt(fan_in)) for the bias (torch issue 15314)."""
    init.kaiming_uniform_(m.weight, a=math.sqrt(5))
    if m.bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(m.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(m.bias, -bound, bound)


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x W^T + b. Initialisation: kaiming_uniform_(a=sqrt(5)) for W (uniform in ±1/sqrt(fan_in)),
    uniform(±1/sqrt(fan_in)) for b."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        weight_and_bias(self, (out_features, in_features), out_features, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y = x1^T A x2 + b; A and b uniform in ±1/sqrt(in1_features), as torch."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        weight_and_bias(self, (out_features, in1_features, in2_features), out_features, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
