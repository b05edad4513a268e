"""Python-level functions torch writes in torch/functional.py over aten operators: atleast_1d/2d/3d
(several tensors or one sequence), unravel_index, and torch.range (its binding warns that it is
deprecated). jtorch/__init__.py imports them over the plain bindings.
"""
from __future__ import annotations

import functools
import itertools
import operator
import warnings
from collections.abc import Sequence
from typing import Any

from . import bindings
from . import dtypes as _dt
from .tensor import Tensor


@functools.cache
def _vf(name: str) -> Any:
    return bindings.function_binding(name)


def atleast_1d(*tensors: Any) -> Any:
    """One tensor: it with at least 1 dimension; several (or one sequence): a tuple of them."""
    if len(tensors) == 1:
        tensors = tensors[0]
    return _vf("atleast_1d")(tensors)


def atleast_2d(*tensors: Any) -> Any:
    if len(tensors) == 1:
        tensors = tensors[0]
    return _vf("atleast_2d")(tensors)


def atleast_3d(*tensors: Any) -> Any:
    if len(tensors) == 1:
        tensors = tensors[0]
    return _vf("atleast_3d")(tensors)


def _unravel_index(indices: Tensor, shape: int | Sequence[int]) -> Tensor:
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is _dt.bool:
        # torch's text names the dtype as torch prints it
        raise TypeError(f"expected 'indices' to be integer dtype, but got torch.{str(indices.dtype).split('.')[-1]}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    dims: tuple[int, ...]
    if isinstance(shape, int):
        dims = (shape,)
    else:
        for dim in shape:
            if not isinstance(dim, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
        dims = tuple(shape)
    if not all(dim >= 0 for dim in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {dims}")
    coefs = list(reversed(list(itertools.accumulate(reversed(dims[1:] + (1,)), func=operator.mul))))
    from .native.tensor_new import tensor
    return indices.unsqueeze(-1).floor_divide(tensor(coefs, device=indices.device, dtype=_dt.int64)) \
        % tensor(dims, device=indices.device, dtype=_dt.int64)


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates, one tensor per dimension of `shape`, of flat indices into a tensor of that shape."""
    return _unravel_index(indices, shape).unbind(-1)


_RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                     "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                     "[start, end).")


def range(start: Any, end: Any, step: Any = 1, *, out: Tensor | None = None, dtype: Any = None, layout: Any = None,
          device: Any = None, requires_grad: bool = False) -> Tensor:
    """torch.range (deprecated): start to end inclusive, in the default dtype unless one is given."""
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=2)
    if out is not None:
        return _vf("range")(start, end, step, out=out)
    t = _vf("range")(start, end, step, dtype=dtype if dtype is not None else _dt.get_default_dtype(),
                     device=device)
    return t.requires_grad_() if requires_grad else t
