"""Helpers the derivative formulas call (PyTorch's FunctionsManual.cpp).

Written with Tensor methods only, so that a formula is itself differentiable (create_graph=True)
and this module imports nothing from the layers above it. Every public name here is visible to the
formulas of jtorch.autograd.derivatives.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dtypes import dtype as _dtype
from ..geometry import wrap_dim


def sum_to(grad: Any, shape: Sequence[int]) -> Any:
    """at::sum_to: sum the broadcast dimensions away so the gradient has the input's shape. Sums
    only, no reshape, so that double backward needs only sum's formula."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.dim() - len(shape)
    if lead > 0:
        grad = grad.sum(list(range(lead)))
    dims = [i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1]
    return grad.sum(dims, keepdim=True) if dims else grad


def maybe_multiply(t: Any, s: Any) -> Any:
    return t if _is_one(s) else t * s


def _is_one(s: Any) -> bool:
    return not hasattr(s, "dim") and s == 1


def conj(t: Any) -> Any:
    return t.conj() if t.is_complex() else t


def grad_dtype(grad: Any, like: Any) -> Any:
    """The gradient in the dtype of `like` (a tensor, or a dtype: a formula that writes
    `self.dtype` saves only self's metadata), as validate_outputs casts it."""
    dt = like if isinstance(like, _dtype) else like.dtype
    return grad if grad.dtype == dt else grad.to(dt)


def unsqueeze_multiple(t: Any, dims: Sequence[int], ndim: int) -> Any:
    for d in sorted(wrap_dim(d, ndim) for d in dims):
        t = t.unsqueeze(d)
    return t


def _dims(dim: Any, ndim: int) -> list[int]:
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        return [wrap_dim(dim, max(ndim, 1))]
    if len(dim) == 0:
        return list(range(ndim))
    return [wrap_dim(d, max(ndim, 1)) for d in dim]


def sum_backward(grad: Any, sizes: Sequence[int], dims: Any, keepdim: bool) -> Any:
    if not keepdim and len(sizes) > 0:
        grad = unsqueeze_multiple(grad, _dims(dims, len(sizes)), len(sizes))
    return grad.expand(tuple(sizes))


def reduced_numel(sizes: Sequence[int], dims: Any) -> int:
    n = 1
    for d in _dims(dims, len(sizes)):
        n *= sizes[d] if len(sizes) else 1
    return n


def mean_backward(grad: Any, sizes: Sequence[int], dims: Any, numel: int, keepdim: bool) -> Any:
    return sum_backward(grad, sizes, dims, keepdim) / numel


def zeros_like(t: Any) -> Any:
    return t.new_zeros(t.shape)


def inverse_permutation(dims: Sequence[int]) -> list[int]:
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[wrap_dim(d, n)] = i
    return inv


def select_backward(grad: Any, sizes: Sequence[int], dim: int, index: int) -> Any:
    out = grad.new_zeros(tuple(sizes))
    out.select(dim, index).copy_(grad)
    return out


def not_implemented(name: str) -> Any:
    """derivatives.yaml's not_implemented(): the output is differentiable, its backward refuses."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
