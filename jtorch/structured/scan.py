"""Structured kernels of the scans (cumsum, cumprod, logcumsumexp, cummax, cummin) and of the row
normalisers (_softmax, _log_softmax): backend-neutral meta and impl functions.

Their meta functions are not TensorIterator builds: each output has the input's shape and goes
through MetaBase.set_output_raw_strided (allocated, checked in place, or resized for out=). The
impls reach data only through the backend's `scan` stub, handed a `ScanPlan` whose tensors are
all in the dtype the kernel computes in: the input is converted first (as PyTorch's
`self.to(result.scalar_type())`), and an output of another dtype (float16 on the CPU, which
computes in float32) is written through a temporary. The checks follow PyTorch's functions of
the same names (ReduceOps.cpp, SoftMax.cpp), with their messages.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .. import dtypes as _dt
from .. import memory_overlap as _mo
from ..backends import Backend
from ..geometry import wrap_dim
from ..kernels.scalar_scan import RowNormaliser
from ..scalar import SCALAR_TYPE_NAME, not_implemented
from ..tensor import Tensor
from .meta import FUNCTIONAL, MetaBase, allocate, copy_into, fill
from .tensor_iterator import storage_only

_SOFTMAX_DTYPES = frozenset({_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64})


class ScanPlan(NamedTuple):
    """What a backend's scan stub runs: `outputs` (values, then int64 indices for an indexed
    scan) along `dim` of `input`, all of the input's shape, in the kernel's compute dtype."""
    input: Tensor
    outputs: tuple[Tensor, ...]
    dim: int


def _compute_dtype(dtype: _dt.dtype, device: Any) -> _dt.dtype:
    # float16 is a storage type on the CPU: Numba has no float16 arithmetic
    return _dt.float32 if storage_only(dtype, device.type) else dtype


_copy_into = copy_into


def run(backend: Backend, decl: Any, inp: Tensor, outputs: tuple[Tensor, ...], dim: int, provided: bool) -> None:
    """Run a scan declaration through the backend's stub, converting as the kernel needs;
    `provided`: the outputs are the caller's (out= or in-place), so they may alias the input."""
    out = outputs[0]
    dtype = _compute_dtype(out.dtype, inp._device)
    if inp.dtype is not dtype:
        for step in (out.dtype, dtype):  # the result's dtype first: int64 -> float16 may overflow
            if inp.dtype is not step:
                src = allocate(inp._size, None, step, inp._device)
                _copy_into(src, inp)
                inp = src
    target = out
    if out.dtype is not dtype or (provided and _needs_temporary(out, inp, decl)):
        target = allocate(inp._size, None, dtype, inp._device)
        outputs = (target,) + tuple(outputs[1:])
    backend.scan(ScanPlan(inp, outputs, dim), decl, ())
    if target is not out:
        _copy_into(out, target)


def _needs_temporary(out: Tensor, inp: Tensor, decl: Any) -> bool:
    """Whether `out` must be written through a temporary because it overlaps `inp`. A scan
    reads x[i] before it writes out[i], so an exact alias (cumsum_) is safe; a row normaliser
    reads the input again after writing the row (log_softmax's last pass), so no alias is."""
    status = _mo.get_overlap_status(out, inp)
    if status == _mo._FULL:
        return type(decl) is RowNormaliser
    if status == _mo._TOO_HARD:  # a layout the overlap test does not handle: the same storage?
        return out._storage is inp._storage
    return status != _mo._NO


def _check_written(ctx: MetaBase, inputs: tuple[Tensor, ...] = ()) -> None:
    """The written-to tensors of an out= or in-place call: no element twice (an expanded out=),
    and no partial overlap with an input (PyTorch's assert_no_internal/partial_overlap)."""
    for t in ctx.provided:
        _mo.assert_no_internal_overlap(t)
        for x in inputs:
            _mo.assert_no_partial_overlap(t, x)


# ---- cumsum, cumprod: structured, with dtype= ---------------------------------------------------
def cum_meta(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any]) -> None:
    """cumsum_cumprod_meta: the output's dtype is dtype=, else out='s, else self's (int64 for
    integral and bool inputs)."""
    self = tensors[0]
    if self._device.type == "meta" and self.dtype in _dt.bits_dtypes:
        raise ValueError("Invalid dtype!")  # torch's meta cumsum is a Python reference with no bits type
    wrap_dim(extras["dim"], self.dim())
    dtype = extras["dtype"]
    result = ctx.maybe_get_output(0)
    if dtype is None:
        if result is not None:
            dtype = result.dtype
        elif self.dtype.is_floating_point or self.dtype.is_complex:
            dtype = self.dtype
        else:
            dtype = _dt.int64
    ctx.set_output_raw_strided(0, self._size, None, dtype, self._device)
    _check_written(ctx, (self,))


def cum_impl(decl: Any) -> Callable[..., Any]:
    """impl_func_cum_ops: a 0-dim input is copied; otherwise the scan, in the result's dtype."""
    kernel = f"{decl.name}_out_cpu"

    def impl(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any], backend: Backend) -> None:
        self, result = tensors[0], ctx.output(0)
        if self.dim() == 0:
            _copy_into(result, self)
            return
        if result.dtype is _dt.bool:
            raise not_implemented(kernel, result.dtype)
        run(backend, decl, self, (result,), wrap_dim(extras["dim"], self.dim()), ctx.mode != FUNCTIONAL)

    return impl


# ---- logcumsumexp ------------------------------------------------------------------------------------
def _check_same_dtype(result: Tensor, expected: _dt.dtype, device: Any) -> None:
    """check_scalar_type_device_layout_equal: the out= tensor has the expected dtype and `device`."""
    if result.dtype is not expected:
        raise RuntimeError(f"expected scalar_type {SCALAR_TYPE_NAME[expected]} but found "
                           f"{SCALAR_TYPE_NAME[result.dtype]}")
    if result._device != device:
        raise RuntimeError(f"expected device {device} but found {result._device}")


def logcumsumexp_meta(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any]) -> None:
    self = tensors[0]
    result = ctx.maybe_get_output(0)
    if result is not None:
        _check_same_dtype(result, self.dtype, self._device)
    wrap_dim(extras["dim"], self.dim())
    # the kernel's dtype dispatch comes before anything else, even for empty inputs
    if self._device.type != "meta" and not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise not_implemented("logcumsumexp_out_cpu", self.dtype)
    ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)
    _check_written(ctx, (self,))


def logcumsumexp_impl(decl: Any) -> Callable[..., Any]:
    def impl(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any], backend: Backend) -> None:
        self = tensors[0]
        run(backend, decl, self, (ctx.output(0),), wrap_dim(extras["dim"], self.dim()), ctx.mode != FUNCTIONAL)

    return impl


# ---- cummax, cummin: (values, indices) -------------------------------------------------------------
def cummaxmin_meta(name: str) -> Callable[..., Any]:
    """cummax_out / cummin_out: out= dtypes checked first (values: self's, indices: int64), then
    both resized, then the dim: a 0-dim input takes dims -1 and 0, an empty one any dim."""
    def meta(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any]) -> None:
        self = tensors[0]
        dim = extras["dim"]
        values, indices = ctx.maybe_get_output(0), ctx.maybe_get_output(1)
        if values is not None:
            assert indices is not None  # out= gives both
            _check_same_dtype(values, self.dtype, self._device)
            _check_same_dtype(indices, _dt.int64, self._device)
        ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)
        ctx.set_output_raw_strided(1, self._size, None, _dt.int64, self._device)
        _check_written(ctx)  # (PyTorch checks nothing here, and writes an expanded out= racily)
        if self._device.type == "meta":  # PyTorch's meta function wraps the dim of non-empty inputs only
            if self.numel() and self.dim():
                wrap_dim(dim, self.dim())
            return
        if self.dim() == 0:
            if dim not in (0, -1):
                raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        elif self.numel():
            wrap_dim(dim, self.dim())
            if self.dtype.is_complex:
                raise not_implemented(f"{name}_cpu", self.dtype)

    return meta


def cummaxmin_impl(decl: Any) -> Callable[..., Any]:
    def impl(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any], backend: Backend) -> None:
        self = tensors[0]
        values, indices = ctx.output(0), ctx.output(1)
        if self.dim() == 0:
            _copy_into(values, self)
            fill(indices, 0)
            return
        run(backend, decl, self, (values, indices), wrap_dim(extras["dim"], self.dim()), ctx.mode != FUNCTIONAL)

    return impl


# ---- _softmax, _log_softmax ----------------------------------------------------------------------------
def softmax_meta(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any]) -> None:
    """TORCH_META_FUNC(_softmax): same shape, float32 for half_to_float; on the CPU,
    half_to_float is refused before anything else (even for empty inputs)."""
    self = tensors[0]
    wrap_dim(extras["dim"], self.dim())
    half_to_float = extras["half_to_float"]
    if half_to_float and self._device.type == "cpu":
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    dtype = _dt.float32 if half_to_float else self.dtype
    ctx.set_output_raw_strided(0, self._size, None, dtype, self._device)
    _check_written(ctx)  # an overlapping input is fine: run() goes through a temporary


def softmax_impl(decl: Any) -> Callable[..., Any]:
    """softmax_cpu_out / log_softmax_cpu_out: the kernel's dtype dispatch names the last-dim
    kernel when dim is the last dimension (a 0-dim input counts as one dimension)."""
    def impl(ctx: MetaBase, tensors: list[Any], extras: dict[str, Any], backend: Backend) -> None:
        self = tensors[0]
        ndim = max(self.dim(), 1)
        dim = wrap_dim(extras["dim"], self.dim())
        if self.dtype not in _SOFTMAX_DTYPES:
            where = "lastdim_kernel_impl" if dim == ndim - 1 else "kernel_impl"
            raise not_implemented(f"{decl.name}_{where}", self.dtype)
        run(backend, decl, self, (ctx.output(0),), dim, ctx.mode != FUNCTIONAL)

    return impl
