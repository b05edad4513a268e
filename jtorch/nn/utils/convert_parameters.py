"""Parameters <-> one flat vector (torch/nn/utils/convert_parameters.py)."""
from __future__ import annotations

from collections.abc import Iterable

import jtorch

from ...tensor import Tensor
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_param_device: int | None) -> int:
    """torch's check that every parameter lives on one device (-1 stands for the CPU)."""
    index = (param.device.index or 0) if param.device.type != "cpu" else -1
    if old_param_device is None:
        return index
    if index != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return jtorch.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected jtorch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        # the slice of vec, reshaped, becomes the parameter's data (no copy, as in torch)
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
