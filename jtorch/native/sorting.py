"""Sorting and selection: sort, argsort, msort, topk, kthvalue, mode (native_functions.yaml's
schemas). sort.values_stable and topk.values are structured, as in PyTorch (their meta functions
are TORCH_META_FUNC2(sort, stable) and TORCH_META_FUNC(topk)); the other overloads are the
composites PyTorch has over them. kthvalue and mode check and allocate as PyTorch's
kthvalue_out_impl_cpu / mode_out do. Data is reached only through the backend's sort methods
(jtorch/kernels/cpu/sort.py on the CPU): the order is torch's stable order everywhere, NaN the
largest value (last ascending, first descending), equal elements in their original order in
both directions.
"""
from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from ..geometry import infer_dense_strides, wrap_dim
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, not_implemented
from ..structured.meta import MetaBase, allocate, copy_into, resize_output
from ..structured.reduce import reduction_shape, zero_numel_check_dims
from ..tensor import Tensor
from .registry import declare, op
from .structured import structured


def _readable(self: Tensor, *outs: Tensor) -> Tensor:
    """The input, copied first when an output shares its memory (the kernels gather from the
    input while they write)."""
    if any(o is not None and o._storage is self._storage for o in outs):
        tmp = allocate(self._size, None, self.dtype, self._device)
        copy_into(tmp, self)
        return tmp
    return self


# ---- sort ---------------------------------------------------------------------------------------
def _sort_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    wrap_dim(extras["dim"], self.dim())
    strides = infer_dense_strides(self._size, self._stride)  # dense, in the input's layout
    ctx.set_output_raw_strided(0, self._size, strides, self.dtype, self._device)
    ctx.set_output_raw_strided(1, self._size, strides, _dt.int64, self._device)


def _sort_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self = tensors[0]
    if self.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    values, indices = ctx.output(0), ctx.output(1)
    dim = wrap_dim(extras["dim"], self.dim())
    backend.sort(_readable(self, values, indices), dim, extras["descending"], values, indices)


sort_stable = structured(
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    functional="sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) "
               "-> (Tensor values, Tensor indices)",
    meta=_sort_meta, impl=_sort_impl)

_sort = declare("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
                variants="function, method")
_sort_out = declare("sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
                    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")


@_sort.impl("CompositeExplicitAutograd")
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple:
    return sort_stable.functional.op(self, stable=False, dim=dim, descending=descending)


@_sort_out.impl("CompositeExplicitAutograd")
def sort_out(self: Tensor, dim: int = -1, descending: bool = False, *, values: Tensor, indices: Tensor) -> tuple:
    return sort_stable.out.op(self, stable=False, dim=dim, descending=descending, values=values, indices=indices)


# ---- argsort, msort -----------------------------------------------------------------------------
_argsort = declare("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor", variants="function, method")
_argsort_stable = declare("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
                          variants="function, method")
_argsort_out = declare("argsort.stable_out(Tensor self, *, bool stable, int dim=-1, bool descending=False, "
                       "Tensor(a!) out) -> Tensor(a!)")


@_argsort.impl("CompositeImplicitAutograd")
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    return sort_stable.functional.op(self, stable=False, dim=dim, descending=descending)[1]


@_argsort_stable.impl("CompositeImplicitAutograd")
def argsort_stable(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    return sort_stable.functional.op(self, stable=stable, dim=dim, descending=descending)[1]


@_argsort_out.impl("CompositeExplicitAutograd")
def argsort_out(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False, out: Tensor) -> Tensor:
    if out.dtype is not _dt.int64:
        raise RuntimeError(f"Expected out tensor to have dtype long int, but got {TYPE_META_NAME[out.dtype]} instead")
    indices = sort_stable.functional.op(self, stable=stable, dim=dim, descending=descending)[1]
    resize_output(out, indices._size)
    return op("copy_")(out, indices)




_msort = declare("msort(Tensor self) -> Tensor", variants="function, method")
_msort_out = declare("msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@_msort.impl("CompositeImplicitAutograd")
def msort(self: Tensor) -> Tensor:
    return _sort.op(self, 0)[0]  # at::sort(self, 0), as torch's (its node: SortBackward0)


@_msort_out.impl("CompositeImplicitAutograd")
def msort_out(self: Tensor, *, out: Tensor) -> Tensor:
    indices = op("empty.memory_format")([0], dtype=_dt.int64, device=self._device)
    op("sort.values_stable")(self, stable=False, dim=0, descending=False, values=out, indices=indices)
    return out


# ---- topk ---------------------------------------------------------------------------------------
def _topk_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    k = extras["k"]
    dim = wrap_dim(extras["dim"], self.dim())
    slice_size = self._size[dim] if self.dim() else 1
    if not 0 <= k <= slice_size:
        raise RuntimeError("selected index k out of range")
    size = list(self._size)
    if size:
        size[dim] = k
    ctx.set_output_raw_strided(0, size, None, self.dtype, self._device)
    ctx.set_output_raw_strided(1, size, None, _dt.int64, self._device)


def _topk_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self = tensors[0]
    if self.dtype.is_complex:
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if self.dtype is _dt.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    values, indices = ctx.output(0), ctx.output(1)
    dim = wrap_dim(extras["dim"], self.dim())
    backend.topk(_readable(self, values, indices), extras["k"], dim, extras["largest"], values, indices)


topk = structured(
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    functional="topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) "
               "-> (Tensor values, Tensor indices)",
    meta=_topk_meta, impl=_topk_impl)


# ---- kthvalue, mode: (values, indices) reduced along one dim -----------------------------------
def _reduced_outputs(self: Tensor, dim: int, keepdim: bool, values: Tensor | None, indices: Tensor | None,
                     resize: str = "kthvalue") -> tuple:
    """Allocate the (values, indices) results, or resize the given ones the way `resize` names:
    "kthvalue" (_reduction_with_indices_allocate_or_resize_output), "mode" (the CPU kernel's
    compare_base_kernel_core and mode_out's special cases) or "plain" (resize_output to the result's
    shape: the meta registration's out_wrapper)."""
    shape = reduction_shape(self, dim, keepdim)
    if values is None:
        values = allocate(shape, None, self.dtype, self._device)
    else:
        _resize_reduced(values, self, dim, keepdim, shape, resize)
    if indices is None:
        indices = allocate(shape, None, _dt.int64, self._device)
    else:
        _resize_reduced(indices, self, dim, keepdim, shape, resize)
    return values, indices


def _resize_reduced(out: Tensor, self: Tensor, dim: int, keepdim: bool, shape: tuple, resize: str) -> None:
    """Without keepdim, PyTorch unsqueezes a passed out at dim (kthvalue: when it has one dim fewer
    than self; mode: when it has at least dim dims), resizes it to the shape with dim kept (so the
    deprecation warning names those shapes, and an out of that shape is not resized) and squeezes dim
    at the end. mode resizes a 0-dim self's outs with resize_ (no warning) and an empty self's to the
    result's shape."""
    if resize == "mode" and not self._size:
        with warnings.catch_warnings():  # _dimreduce_return_trivial_no_ident: result.resize_({})
            warnings.simplefilter("ignore")
            resize_output(out, ())
        return
    if resize == "plain" or (resize == "mode" and self.numel() == 0) or keepdim or not self._size:
        resize_output(out, shape)
        return
    if len(out._size) == len(self._size) - 1 if resize == "kthvalue" else len(out._size) >= dim:
        st = out._stride[dim] * out._size[dim] if dim < len(out._size) else 1  # unsqueeze_(dim)
        out._size, out._stride = out._size[:dim] + (1,) + out._size[dim:], out._stride[:dim] + (st,) + out._stride[dim:]
    resize_output(out, shape[:dim] + (1,) + shape[dim:])
    out._size, out._stride = shape, out._stride[:dim] + out._stride[dim + 1:]  # squeeze_(dim)


def _kthvalue(self: Tensor, k: int, dim: int, keepdim: bool, values: Tensor | None,
              indices: Tensor | None) -> tuple:
    d = wrap_dim(dim, self.dim())
    slice_size = self._size[d] if self.dim() else 1
    zero_numel_check_dims(self, d, "kthvalue()")
    if not 1 <= k <= slice_size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if values is not None and values.dtype is not self.dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices is not None and indices.dtype is not _dt.int64:
        raise RuntimeError("output indices must be of scalar type Long")
    values, indices = _reduced_outputs(self, d, keepdim, values, indices)
    if self._device.type != "meta":
        if self.dtype is _dt.bool or self.dtype.is_complex:
            raise not_implemented("kthvalue_cpu", self.dtype)
        if values.numel():
            _backend_of(self).kthvalue(_readable(self, values, indices), k, d, keepdim or self.dim() == 0, values,
                                       indices)
    return values, indices


def _backend_of(t: Tensor) -> Any:
    from ..backends import backend

    return backend(t._device.type)


_kth = declare("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
               variants="function, method")
_kth_out = declare("kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
                   "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")


@_kth.impl_backends
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple:
    return _kthvalue(self, k, dim, keepdim, None, None)


@_kth_out.impl_backends
def kthvalue_out(self: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, values: Tensor,
                 indices: Tensor) -> tuple:
    return _kthvalue(self, k, dim, keepdim, values, indices)


def _mode(self: Tensor, dim: int, keepdim: bool, values: Tensor | None, indices: Tensor | None) -> tuple:
    if self._device.type == "meta":  # torch's meta registration (meta_median_mode_dim): shapes only
        return _reduced_outputs(self, wrap_dim(dim, self.dim()), keepdim, values, indices, "plain")
    if self._device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"mode only supports CPU AND CUDA device type, got: {self._device.type}")
    for out, name in ((values, "values"), (indices, "indices")):
        if out is not None and out._device != self._device:
            raise RuntimeError(f"expected device '{self._device}' but got '{out._device}' for {name} output")
    d = wrap_dim(dim, self.dim())
    if values is not None and values.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar type '{SCALAR_TYPE_NAME[self.dtype]}' but got "
                           f"'{SCALAR_TYPE_NAME[values.dtype]}' for values output")
    if indices is not None and indices.dtype is not _dt.int64:
        raise RuntimeError(f"expected scalar type 'Long' but got '{SCALAR_TYPE_NAME[indices.dtype]}' for indices "
                           "output")
    zero_numel_check_dims(self, d, "mode()")
    values, indices = _reduced_outputs(self, d, keepdim, values, indices, "mode")
    if self.dtype.is_complex:
        raise not_implemented("mode_cpu", self.dtype)
    if values.numel():
        _backend_of(self).mode(_readable(self, values, indices), d, keepdim or self.dim() == 0, values, indices)
    return values, indices


_mode_decl = declare("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
                     variants="function, method")
_mode_out = declare("mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
                    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")


@_mode_decl.impl_backends
def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> tuple:
    return _mode(self, dim, keepdim, None, None)


@_mode_out.impl_backends
def mode_out(self: Tensor, dim: int = -1, keepdim: bool = False, *, values: Tensor, indices: Tensor) -> tuple:
    return _mode(self, dim, keepdim, values, indices)
