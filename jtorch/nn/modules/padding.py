"""The padding modules (torch/nn/modules/padding.py): each calls F.pad with its mode."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


def _ntuple(v: Any, n: int) -> tuple:
    """torch.nn.modules.utils._ntuple: an iterable as a tuple, anything else repeated n times."""
    return tuple(v) if isinstance(v, Iterable) else (v,) * n


class _CircularPadNd(Module):
    padding: Sequence[int]
    _nd = 1

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._nd)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    _nd = 1


class CircularPad2d(_CircularPadNd):
    _nd = 2


class CircularPad3d(_CircularPadNd):
    _nd = 3


class _ConstantPadNd(Module):
    padding: Sequence[int]
    _nd = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _ntuple(padding, 2 * self._nd)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    _nd = 3


class _ModePadNd(Module):
    padding: Sequence[int]
    _nd = 1
    _mode = ""

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._nd)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_ModePadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    _nd = 1


class ReflectionPad2d(_ReflectionPadNd):
    _nd = 2


class ReflectionPad3d(_ReflectionPadNd):
    _nd = 3


class _ReplicationPadNd(_ModePadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    _nd = 1


class ReplicationPad2d(_ReplicationPadNd):
    _nd = 2


class ReplicationPad3d(_ReplicationPadNd):
    _nd = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
