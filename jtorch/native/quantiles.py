"""quantile and nanquantile, as PyTorch's Sorting.cpp composes them: CompositeImplicitAutograd over
sort, gather and lerp (one sort of the reduced dim, then the ranks of q gathered and interpolated),
so they differentiate through those nodes; the q range is checked on the CPU only, as torch does
(no device synchronisation). nanmedian is in reductions_stats.py beside median."""
from __future__ import annotations

import math

from .. import dtypes as _dt
from ..geometry import wrap_dim
from ..structured.meta import resize_output
from ..tensor import Tensor
from .factories import wrapped_scalar_tensor as _w
from .registry import composite_implicit_autograd, op

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _mode(interpolation: str) -> str:
    if interpolation not in _MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    return interpolation


def _checks(self: Tensor, q: Tensor) -> None:
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if self.dtype is not q.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if self._device != q._device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")


def _out_shape(dim: int | None, self: Tensor, q: Tensor, keepdim: bool, wrapped: int) -> list[int]:
    """q's size first (a 1-D q), then the reduced shape."""
    if dim is not None and self.dim() > 0:
        shape = list(self._size)
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * self.dim()
    else:
        shape = []
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _compute(self: Tensor, q: Tensor, dim: int | None, mode: str, ignore_nan: bool, wrapped: int,
             out_shape: list[int]) -> Tensor:
    if self._device.type == "cpu":  # torch checks only on the CPU (no device synchronisation)
        in_range = op("all")(op("logical_and")(op("ge.Tensor")(q, _w(0)), op("le.Tensor")(q, _w(1))))
        if not bool(in_range.item()):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        sorted_ = op("sort")(op("flatten.using_ints")(self))[0]
    elif wrapped == self.dim() - 1:
        sorted_ = op("sort")(self)[0]
    else:
        sorted_ = op("sort")(op("transpose.int")(op("unsqueeze")(self, -1), wrapped, -1))[0]
    if q.dim() == 0:
        out_shape = [q.numel(), *out_shape]
    sorted_ = op("view")(sorted_, [*out_shape[1:], sorted_._size[-1]])  # the reduced dim last
    if sorted_._size[-1] > 2 ** 24:  # the ranks must be exact in a double
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        count = op("sum.dim_IntList")(op("logical_not")(op("isnan")(sorted_)), [-1], True)
        ranks = op("mul.Tensor")(q, op("sub.Tensor")(count, _w(1)))
        ranks = op("masked_fill.Scalar")(ranks, op("lt.Tensor")(ranks, _w(0)), 0)
    else:
        last = sorted_._size[-1] - 1
        scaled, has_nan = op("broadcast_tensors")([op("mul.Tensor")(q, _w(last)),
                                                   op("any.dim")(op("isnan")(sorted_), -1, True)])
        ranks = op("masked_fill.Scalar")(scaled, has_nan, last)
    if mode == "lower":
        ranks = op("floor")(ranks)
    elif mode == "higher":
        ranks = op("ceil")(ranks)
    elif mode == "nearest":
        ranks = op("round")(ranks)
    below = op("to.dtype")(ranks, _dt.int64)
    values = op("gather")(sorted_, -1, below)
    if mode in ("linear", "midpoint"):
        weights = op("full_like")(ranks, 0.5) if mode == "midpoint" else op("sub.Tensor")(ranks, below)
        above = op("to.dtype")(op("ceil")(ranks), _dt.int64)
        values = op("lerp.Tensor")(values, op("gather")(sorted_, -1, above), weights)
    if q.dim() == 0:
        return op("squeeze.dim")(values, -1)
    return op("squeeze.dim")(op("transpose.int")(op("unsqueeze")(values, 0), 0, -1), -1)


def _quantile(self: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool,
              out: Tensor | None = None) -> Tensor:
    mode = _mode(interpolation)
    _checks(self, q)
    if out is not None:
        if self.dtype is not out.dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        if self._device != out._device:
            raise RuntimeError("quantile() out tensor must be on the same device as the input tensor")
    wrapped = wrap_dim(0 if dim is None else dim, self.dim())
    shape = _out_shape(dim, self, q, keepdim, wrapped)
    if out is not None:
        resize_output(out, tuple(shape))
    result = _compute(self, q, dim, mode, ignore_nan, wrapped, shape)
    if out is None:
        return result
    return op("copy_")(out, result)


def _scalar_q(self: Tensor, q: float) -> Tensor:
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {_double_str(q)}")
    return op("scalar_tensor")(q, dtype=self.dtype, device=self._device)


def _double_str(v: float) -> str:
    """A double as C++'s stream prints it (6 significant digits)."""
    return "nan" if math.isnan(v) else f"{v:g}"


for _name, _nan in (("quantile", False), ("nanquantile", True)):
    composite_implicit_autograd(
        f"{_name}(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
        "function, method")(
        lambda self, q, dim=None, keepdim=False, *, interpolation="linear", _n=_nan:
        _quantile(self, q, dim, keepdim, interpolation, _n))
    composite_implicit_autograd(
        f"{_name}.out(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear', "
        "Tensor(a!) out) -> Tensor(a!)")(
        lambda self, q, dim=None, keepdim=False, *, interpolation="linear", out, _n=_nan:
        _quantile(self, q, dim, keepdim, interpolation, _n, out))
    composite_implicit_autograd(
        f"{_name}.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') "
        "-> Tensor", "function, method")(
        lambda self, q, dim=None, keepdim=False, *, interpolation="linear", _n=_nan:
        _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, _n))
    composite_implicit_autograd(
        f"{_name}.scalar_out(Tensor self, float q, int? dim=None, bool keepdim=False, *, "
        "str interpolation='linear', Tensor(a!) out) -> Tensor(a!)")(
        lambda self, q, dim=None, keepdim=False, *, interpolation="linear", out, _n=_nan:
        _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, _n, out))
