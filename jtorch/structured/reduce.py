"""Reductions on the structured core: PyTorch's ReduceOpsUtils.h (make_reduction, resize_reduction,
review_reduce_result, zero_numel_check_dims) and the meta/impl glue shared by every reduction.

The path of `x.sum(1)`: the structured meta (`resize_reduction`) decides the output's shape and dtype
and hands it to `set_output_raw_strided` (allocate / check / resize out=); the impl then makes the
reduction iterator with `make_reduction`:

  1. dtype check ("sum: provided dtype must match dtype of result. Got Long and Float.");
  2. `dim_opt.value_or({})`: dim=None and dim=[] both reduce every dim;
  3. make_dim_mask, shape_from_dim_mask, resize_output (a no-op after the meta);
  4. review_reduce_result: each reduced dim put back with size 1 and stride 0;
  5. the input cast to in_dtype when it differs (`self.to(in_dtype)`);
  6. TensorIterator::reduce_op(viewed_result, self): reduced dims first (innermost), coalesced.

and calls the backend's `reduce` stub with the declared Reduction (jtorch.kernels.reduction).
Nothing here looks inside a storage.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..geometry import contiguous_strides, dim_list_to_mask, reduced_shape, wrap_dim
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import Tensor
from .fast_path import FAST_PATHS
from .meta import MetaBase, allocate, resize_output
from .tensor_iterator import TensorIterator, _cast

Dims = "Sequence[int] | int | None"


def dims_tuple(dim: Any) -> tuple[int, ...] | None:
    """An int, a list of ints or None, as PyTorch's OptionalIntArrayRef (None stays None)."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def make_dim_mask(dims: Any, ndim: int, allow_empty_dims: bool = False) -> list[bool]:
    """make_dim_mask: None or [] reduce every dim (all/any take [] as "reduce nothing")."""
    dims = dims_tuple(dims)
    if dims is not None and len(dims) == 0 and allow_empty_dims:
        return [False] * ndim
    return dim_list_to_mask(dims, ndim)


def reduction_shape(self: Tensor, dims: Any, keepdim: bool, allow_empty_dims: bool = False) -> tuple[int, ...]:
    """get_reduction_shape: the result's shape (a 0-dim input reduces to a 0-dim result)."""
    mask = make_dim_mask(dims, self.dim(), allow_empty_dims)
    return reduced_shape(self._size, mask, keepdim)


def resize_reduction(ctx: MetaBase, self: Tensor, dims: Any, keepdim: bool, out_dtype: _dt.dtype,
                     allow_empty_dims: bool = False) -> None:
    """resize_reduction: the structured meta of a one-output reduction."""
    shape = reduction_shape(self, dims, keepdim, allow_empty_dims)
    ctx.set_output_raw_strided(0, shape, None, out_dtype, self._device)


def resize_reduction_with_indices(ctx: MetaBase, self: Tensor, dims: Any, keepdim: bool,
                                  out_dtype: _dt.dtype) -> None:
    """resize_reduction_with_indices: values of `out_dtype` and int64 indices."""
    shape = reduction_shape(self, dims, keepdim)
    ctx.set_output_raw_strided(0, shape, None, out_dtype, self._device)
    ctx.set_output_raw_strided(1, shape, None, _dt.int64, self._device)


def zero_numel_check_dims(self: Tensor, dims: Any, fn_name: str) -> None:
    """zero_numel_check_dims: a reduction without identity refuses to reduce a size-0 dim."""
    if self.numel() != 0:
        return
    dims = dims_tuple(dims)
    if self.dim() == 0:
        if dims:  # a 0-dim tensor with no elements cannot exist; kept for PyTorch's order of checks
            wrap_dim(dims[0], 0)
        return
    for d in dims or ():
        w = wrap_dim(d, self.dim())
        if self._size[w] == 0:
            raise IndexError(f"{fn_name}: Expected reduction dim {d} to have non-zero size.")


def check_dtype_of_result(name: str, result: Tensor, out_dtype: _dt.dtype) -> None:
    if result is not None and result.dtype is not out_dtype:
        raise RuntimeError(f"{name}: provided dtype must match dtype of result. Got "
                           f"{SCALAR_TYPE_NAME[result.dtype]} and {SCALAR_TYPE_NAME[out_dtype]}.")


def review_reduce_result(result: Tensor, ndim: int, mask: Sequence[bool], keepdim: bool) -> Tensor:
    """review_reduce_result: the result with each reduced dim back in place, size 1 and stride 0."""
    if keepdim:
        size = tuple(1 if m else s for s, m in zip(result._size, mask))
        stride = tuple(0 if m else st for st, m in zip(result._stride, mask))
    else:
        sizes: list[int] = []
        strides: list[int] = []
        k = 0
        for d in range(ndim):
            if mask[d]:
                sizes.append(1)
                strides.append(0)
            else:
                sizes.append(result._size[k])
                strides.append(result._stride[k])
                k += 1
        size, stride = tuple(sizes), tuple(strides)
    return Tensor._make(result._storage, size, stride, result._offset, result.dtype, result._device)


def make_reduction(name: str, results: Sequence[Tensor], self: Tensor, dims: Any, keepdim: bool,
                   in_dtype: _dt.dtype, out_dtypes: Sequence[_dt.dtype],
                   allow_empty_dims: bool = False) -> TensorIterator:
    """make_reduction (one output, or values + indices): the iterator a reduce stub runs."""
    for r, dt in zip(results, out_dtypes):
        check_dtype_of_result(name, r, dt)
    ndim = self.dim()
    mask = make_dim_mask(dims, ndim, allow_empty_dims)
    shape = reduced_shape(self._size, mask, keepdim)
    for r in results:
        resize_output(r, shape)
    viewed = tuple(review_reduce_result(r, ndim, mask, keepdim) for r in results)
    if self.dtype is not in_dtype:
        self = _cast(self, in_dtype)
    it = TensorIterator()
    it.build_reduce_op(viewed, self)
    it.reduced_numel = _reduced_numel(self._size, mask)
    return it


def _reduces_all(self: Tensor, dims: Any, allow_empty_dims: bool) -> bool:
    """Every dim reduced (the results have one element each), without building a mask."""
    if dims is None:
        return True
    dims = dims_tuple(dims)
    if not dims:
        return not allow_empty_dims
    return all(make_dim_mask(dims, self.dim()))


def _reduced_numel(size: tuple[int, ...], mask: Sequence[bool]) -> int:
    n = 1
    for s, m in zip(size, mask):
        if m:
            n *= s
    return n


def run_reduction(name: str, results: Sequence[Tensor], self: Tensor, dims: Any, keepdim: bool,
                  in_dtype: _dt.dtype, reduction: Any, backend: Any, extras: tuple[Any, ...] = (),
                  allow_empty_dims: bool = False) -> None:
    """The impl of a structured reduction: build the iterator, run the backend's reduce stub,
    copy float16 temporaries back."""
    fast = backend.reduce_contiguous  # a backend without one returns False
    # JTORCH_NO_FAST_PATHS: always the iterator
    if FAST_PATHS and self.dtype is in_dtype and self._stride == contiguous_strides(self._size):
        if _reduces_all(self, dims, allow_empty_dims):
            if fast(reduction, self, results, extras):
                return
        elif fast(reduction, self, results, extras, make_dim_mask(dims, self.dim(), allow_empty_dims)):
            return
    it = make_reduction(name, results, self, dims, keepdim, in_dtype, [r.dtype for r in results],
                        allow_empty_dims)
    backend.reduce(it, reduction, extras)
    it.finish()


# ---- the fast path of small whole reductions ----------------------------------------------------
def small_reduction_fast_path(reduction: Any, out_dtype: Any) -> Any:
    """A structured family's fast path (jtorch.native.structured.structured(fast_path=...)): a
    contiguous input reduced over every dim or some dims, whose result dtype `out_dtype(self, extras)` decides
    without any check that could fail (None otherwise), skips the meta context and the iterator
    and goes to the backend's `reduce_contiguous` stub. Everything else takes the generic kernel."""
    def fast(kind: str, bind: Any, generic: Any, backend: Any) -> Any:
        if not FAST_PATHS:
            return None
        if kind != "functional" or not backend.implements("reduce_contiguous"):
            return None
        device_type = backend.device_type

        def functional(*args: Any, **kwargs: Any) -> Any:
            tensors, extras = bind(*args, **kwargs)
            self = tensors[0]
            if (type(self) is Tensor and self._device.type == device_type
                    and self._stride == contiguous_strides(self._size)):
                dt = out_dtype(self, extras)
                dims = extras.get("dim")
                if dt is not None:
                    if dims is None or _reduces_all(self, dims, False):
                        shape, mask = (1,) * len(self._size) if extras.get("keepdim") else (), None
                    else:  # some dims (a bias gradient's sum(0)); a bad dim raises the meta's error
                        mask = make_dim_mask(dims, self.dim())
                        shape = reduced_shape(self._size, mask, extras.get("keepdim", False))
                    out = allocate(shape, None, dt, self._device)
                    if backend.reduce_contiguous(reduction, self, [out], (), mask):
                        return out
            return generic(*args, **kwargs)

        return functional

    return fast
