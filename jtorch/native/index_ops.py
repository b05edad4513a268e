"""index_select, index_add, index_copy, index_fill, index_reduce, take, put_, take_along_dim
(TensorAdvancedIndexing.cpp, TensorIndexing's take/put). Each checks its arguments with PyTorch's
texts, then every index value (nothing is written when one is out of range), then runs an index
map (jtorch/kernels/scalar_index.py) with the 1-D index along `dim`: the index operand has stride 0
on every other dim (scatter_gather.py has the shared pieces).
"""
from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from ..geometry import infer_size, is_contiguous, shape_str, wrap_dim
from ..global_context import alert_not_deterministic
from ..kernels import scalar_index as M
from ..memory_overlap import _YES, assert_no_internal_overlap, has_internal_overlap
from ..scalar import SCALAR_TYPE_NAME, checked_scalar
from ..structured.meta import MetaBase, allocate, check_same_device, copy_into, resize_output
from ..tensor import Tensor
from ..warn import user_stacklevel
from .registry import declare
from .registry import op as _op
from .scatter_gather import (
    assert_no_overlap,
    check_index_values,
    mean_divide,
    nshape,
    nsize,
    nstrides,
    reduce_identity,
    restrided,
    run_map,
)
from .structured import structured

_LONG_OR_INT = (_dt.int64, _dt.int32)


def _name(d: _dt.dtype) -> str:
    return SCALAR_TYPE_NAME[d]


def _along(index: Tensor, nd: int, dim: int) -> tuple:
    """A 1-D (or 0-dim) index's strides over nd dims: its own along dim, 0 elsewhere."""
    st = index._stride[0] if index._size else 0
    return tuple(st if d == dim else 0 for d in range(nd))


def _index_range_error(v: int) -> IndexError:
    return IndexError("index out of range in self")


def _shape_vec(size: tuple) -> str:
    """c10's printing of a std::vector<int64_t>: the sizes separated by spaces."""
    return " ".join(str(s) for s in size)


def _empty_with_index(self: Tensor, index: Tensor) -> bool:
    return self.numel() == 0 and index.numel() != 0 and self._device.type != "meta"


def _restrided_numel(t: Tensor, dim: int, num: int) -> int:
    """t viewed with index.numel() elements of stride 0 along dim, as index_fill / index_copy build
    their iterator's operand: as_strided's storage check (torch's setStorage text when t is empty
    and its storage too small), then the number of elements the kernel visits."""
    size, stride = list(t._size) or [1], list(t._stride) or [1]
    size[dim], stride[dim] = num, 0
    if t._device.type != "meta":
        _op("as_strided")(t, size, stride, t._offset)
    count = 1
    for s in size:
        count *= s
    return count


def _index_fill_checks(self: Tensor, dim: int, index: Tensor) -> None:
    n = nsize(self, dim)
    if _restrided_numel(self, dim, index.numel()):
        check_index_values(index, -n, n, lambda i: IndexError(
            f"index {i} is out of bounds for dimension {dim} with size {n}"))


# ---- index_select ---------------------------------------------------------------------------------
def _select_range_error(self: Tensor, dim: int, n: int, size: tuple, out: Tensor | None) -> Any:
    """index_select_out_cpu_'s text for a bad index depends on its path: an empty self of 2+ dims and
    the dim-1 fast path (a contiguous result; a resized out is contiguous) run caffe2's range check
    (RuntimeError), every other path TORCH_CHECK_INDEX (IndexError)."""
    if len(self._size) > 1 and (self.numel() == 0 or (dim == 1 and (
            out is None or out._size != size or is_contiguous(out._size, out._stride)))):
        return lambda v: RuntimeError(f"INDICES element is out of DATA bounds, id={v} axis_dim={n}")
    return _index_range_error


index_select = declare("index_select(Tensor self, int dim, Tensor index) -> Tensor", variants="function, method")
index_select_out = declare("index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)")


def _index_select(self: Tensor, dim: int, index: Tensor, out: Tensor | None) -> Tensor:
    check_same_device((out, self, index))  # the dispatcher's check, out= first
    dim = wrap_dim(dim, len(self._size))
    numel = index.numel()
    if len(index._size) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not self._size and numel != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {numel} value(s)")
    if index.dtype not in _LONG_OR_INT:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if out is not None:
        if out.dtype is not self.dtype:
            raise RuntimeError("index_select(): self and result must have the same scalar type")
        assert_no_internal_overlap(out)
        assert_no_overlap(out, self)
        assert_no_overlap(out, index)
    sizes = list(self._size)
    if sizes:
        sizes[dim] = numel
    size = tuple(sizes)
    n = nsize(self, dim)
    if len(self._size) > 1 and numel and self.numel() == 0 and n <= 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    check_index_values(index, 0, n, _select_range_error(self, dim, n, size, out))
    if out is None:
        out = allocate(size, None, self.dtype, self._device)
    else:
        resize_output(out, size)
    nd = max(len(size), 1)
    run_map(M.GATHER, nshape(out), out, nstrides(out), self, restrided(nstrides(self), dim), index,
            _along(index, nd, dim), nstrides(self)[dim], n)
    return out


@index_select.impl_backends
def index_select_kernel(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return _index_select(self, dim, index, None)


@index_select_out.impl_backends
def index_select_out_kernel(self: Tensor, dim: int, index: Tensor, *, out: Tensor) -> Tensor:
    return _index_select(self, dim, index, out)


# ---- embedding (Embedding.cpp): index_select of rows, CompositeExplicitAutograd as in torch ---------
# (its node, EmbeddingBackward0, takes the gradient to the weight only)
embedding = declare("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
                    "bool sparse=False) -> Tensor")


@embedding.impl("CompositeExplicitAutograd")
def embedding_kernel(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
                     sparse: bool = False) -> Tensor:
    if len(weight._size) != 2:
        raise RuntimeError("'weight' must be 2-D")
    if len(indices._size) == 1:
        return index_select.op(weight, 0, indices)
    rows = index_select.op(weight, 0, _op("reshape")(indices, (-1,)))
    return _op("view")(rows, indices._size + weight._size[1:])


# ---- index_add / index_reduce (index_func_meta_impl) ----------------------------------------------
def _index_func_meta(ctx: MetaBase, self: Tensor, dim: int, index: Tensor, source: Tensor, func: str) -> None:
    check_same_device((ctx.maybe_get_output(0), self, index, source))  # the dispatcher's check, out= first
    numel = index.numel()
    if len(index._size) > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {len(index._size)} with type: "
                         f"{_name(index.dtype)} and size: {shape_str(index._size)}")
    if index.dtype not in _LONG_OR_INT:
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {_name(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"{func}_(): self ({_name(self.dtype)}) and source ({_name(source.dtype)}) must have the "
                           "same scalar type")
    if not (dim == 0 or dim < len(source._size)):
        raise RuntimeError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{len(source._size)}")
    src_n = nsize(source, dim) if source._size else 1
    if numel != src_n:
        raise RuntimeError(f"{func}_(): Number of indices ({numel}) should be equal to source.size(dim): ({src_n}), "
                           f"for dim: {dim}")
    ss, cs = list(self._size), list(source._size)
    if ss and cs:
        del ss[dim], cs[dim]
    if ss != cs:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {shape_str(self._size)} source.shape = {shape_str(source._size)}")
    result = ctx.maybe_get_output(0)
    ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)
    if result is not None:
        assert_no_internal_overlap(result)
        assert_no_overlap(result, index)
        assert_no_overlap(result, source)


def _index_scatter(out: Tensor, dim: int, index: Tensor, source: Any, m: M.IndexMap, extras: tuple = ()) -> None:
    """out's slices at index along dim combined with source's (a tensor of the index's length along
    dim, or a value); iterated over source's shape."""
    if isinstance(source, Tensor):
        shape = list(nshape(out))
        shape[dim] = index.numel()
        src_strides = nstrides(source) if source._size else (0,) * len(shape)
    else:
        shape = list(nshape(out))
        shape[dim] = index.numel()
        src_strides = (0,) * len(shape)
    run_map(m, tuple(shape), out, restrided(nstrides(out), dim), source, src_strides, index,
            _along(index, len(shape), dim), nstrides(out)[dim], nsize(out, dim),
            tuple(checked_scalar(out.dtype, e) for e in extras))


def _begin(ctx: MetaBase, self: Tensor, index: Tensor, lo: int, hi: int, error: Any) -> Tensor:
    out = ctx.output(0)
    check_index_values(index, lo, hi, error)
    if out is not self:
        copy_into(out, self)
    return out


def _index_add_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index, source = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    _index_func_meta(ctx, self, dim, index, source, "index_add")
    if _empty_with_index(self, index) and len(self._size) <= 1:  # torch's 1-D loop checks; 2+ dims return
        check_index_values(index, 0, nsize(self, dim), _index_range_error)


def _index_add_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index, source = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    n = nsize(self, dim)
    if len(self._size) > 1 and index.dtype is _dt.int64:  # torch takes its scatter_add path here
        def error(v: int) -> Exception:
            return RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {n}")
    else:
        error = _index_range_error
    out = _begin(ctx, self, index, 0, n, error)
    if index.numel():
        _index_scatter(out, dim, index, source, M.SCATTER_ADD, (extras["alpha"],))


structured("index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1, Tensor(a!) out) -> "
           "Tensor(a!)",
           functional="index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
           inplace="index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)",
           meta=_index_add_meta, impl=_index_add_impl)

_REDUCES = ("prod", "mean", "amax", "amin")
_warned_beta = False


def _index_reduce_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index, source = tensors
    reduce = extras["reduce"]
    if reduce not in _REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = wrap_dim(extras["dim"], len(self._size))
    _index_func_meta(ctx, self, dim, index, source, "index_reduce")
    if self._device.type != "meta":  # the CPU/CUDA kernel's first lines (the impl is skipped when empty)
        _index_reduce_kernel_checks(self.dtype, extras["include_self"])
    if _empty_with_index(self, index):  # what the skipped impl would raise
        out, n = ctx.output(0), nsize(self, dim)
        if not extras["include_self"]:
            _index_fill_checks(out, dim, index)
        if len(self._size) > 1 and n == 0:  # its first result.select(dim, 0)
            raise IndexError(f"select(): index 0 out of range for tensor of size {shape_str(self._size)} at "
                             f"dimension {dim}")
        check_index_values(index, 0, n, _index_range_error)


def _index_reduce_kernel_checks(dtype: _dt.dtype, include_self: bool) -> None:
    """index_reduce_cpu_out's beta warning, then its dtype dispatch (AT_DISPATCH_ALL_TYPES_AND2(Half,
    BFloat16): no bool, no complex), which runs even with nothing to do."""
    global _warned_beta
    if not _warned_beta:  # TORCH_WARN_ONCE
        _warned_beta = True
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning,
                      stacklevel=user_stacklevel())
    if dtype is _dt.bool or dtype.is_complex:
        kernel = "index_func_" if include_self else "index_reduce_func_exclude_input_init"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(dtype)}'")


def _index_reduce_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index, source = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    reduce, include_self = extras["reduce"], extras["include_self"]
    n = nsize(self, dim)
    out = _begin(ctx, self, index, 0, n, _index_range_error)
    if index.numel() == 0:
        return
    if not include_self:
        _index_scatter(out, dim, index, reduce_identity(reduce, out.dtype), M.SCATTER)
    m = M.BY_REDUCE[reduce]
    _index_scatter(out, dim, index, source, m, (1,) if m is M.SCATTER_ADD else ())
    if reduce == "mean":
        count = _op("ones_like")(out)
        if not include_self:
            _index_scatter(count, dim, index, 0, M.SCATTER)
        _index_scatter(count, dim, index, 1, M.SCATTER_ADD, (1,))
        mean_divide(out, count)


structured("index_reduce.out(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True, "
           "Tensor(a!) out) -> Tensor(a!)",
           functional="index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
                      "bool include_self=True) -> Tensor",
           inplace="index_reduce_(Tensor(a!) self, int dim, Tensor index, Tensor source, str reduce, *, "
                   "bool include_self=True) -> Tensor(a!)",
           meta=_index_reduce_meta, impl=_index_reduce_impl)


# ---- index_copy ----------------------------------------------------------------------------------------
def _index_copy_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index, source = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    result = ctx.maybe_get_output(0)
    check_same_device((result, self, index, source))  # the dispatcher's check, out= first
    if result is not None:
        assert_no_internal_overlap(result)
        assert_no_overlap(result, index)
        assert_no_overlap(result, source)
    if len(index._size) >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {len(index._size)})")
    num = index.numel()
    if not source._size and num != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {num})")
    if len(source._size) != len(self._size) and source._size and self._size:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({len(source._size)}), destination dimensionality "
                         f"({len(self._size)})")
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_name(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_name(self.dtype)} and (source) {_name(source.dtype)}")
    ss, cs = list(self._size), list(source._size)
    if ss:
        del ss[dim]
    if cs:
        del cs[dim]
    if ss != cs:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {_shape_vec(tuple(ss))} at dimension {dim} and source slice shape: "
                           f"{_shape_vec(tuple(cs))} at dimension 0.")
    if source._size and num != source._size[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({num}) should be equal to source.size(dim) "
                         f"({source._size[dim]})")
    ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)
    if _empty_with_index(self, index):  # what the skipped impl would raise
        out, n = ctx.output(0), nsize(self, dim)
        if _restrided_numel(out, dim, num):
            check_index_values(index, 0, n, lambda v: IndexError(
                f"index_copy_(): index {v} is out of bounds for dimension {dim} with size {n}"))


def _index_copy_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index, source = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    n = nsize(self, dim)
    out = _begin(ctx, self, index, 0, n, lambda v: IndexError(
        f"index_copy_(): index {v} is out of bounds for dimension {dim} with size {n}"))
    if index.numel():
        _index_scatter(out, dim, index, source, M.SCATTER)


structured("index_copy.out(Tensor self, int dim, Tensor index, Tensor source, *, Tensor(a!) out) -> Tensor(a!)",
           functional="index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
           inplace="index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
           meta=_index_copy_meta, impl=_index_copy_impl)


# ---- index_fill -----------------------------------------------------------------------------------------
index_fill__Tensor = declare("index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> "
                             "Tensor(a!)", variants="method")
index_fill__Scalar = declare("index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> "
                             "Tensor(a!)", variants="method")
index_fill_Tensor = declare("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
                            variants="function, method")
index_fill_Scalar = declare("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
                            variants="function, method")


@index_fill__Scalar.impl_backends
def index_fill__scalar(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if index.dtype is not _dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    check_same_device((self, index))  # its TensorIterator's check (a 0-dim CPU value tensor is taken by item())
    assert_no_overlap(self, index)
    if has_internal_overlap(self) == _YES:
        warnings.warn("Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                      "tensor", UserWarning, stacklevel=user_stacklevel())
    if not self.dtype.is_complex and isinstance(value, complex):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    dim = wrap_dim(dim, max(len(self._size), 1))
    if len(index._size) > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    v = checked_scalar(self.dtype, value)
    _index_fill_checks(self, dim, index)
    if index.numel():
        _index_scatter(self, dim, index, v, M.SCATTER)
    return self


@index_fill__Tensor.impl_backends
def index_fill__tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    if value._size:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{len(value._size)} dimension(s).")
    v = 0 if value._device.type == "meta" else _op("item")(value)
    return index_fill__Scalar.op(self, dim, index, v)


# CompositeExplicitAutograd, as torch's: one IndexFillBackward0 node, no clone recorded
@index_fill_Scalar.impl("CompositeExplicitAutograd")
def index_fill_scalar(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return index_fill__Scalar.op(_op("clone")(self), dim, index, value)


@index_fill_Tensor.impl("CompositeExplicitAutograd")
def index_fill_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    return index_fill__Tensor.op(_op("clone")(self), dim, index, value)


# ---- take / put_ ---------------------------------------------------------------------------------------
take = declare("take(Tensor self, Tensor index) -> Tensor", variants="function, method")
take_out = declare("take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)")
put_ = declare("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
               variants="method")
put = declare("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
              variants="function, method")


def _flat_error(v: int, numel: int) -> IndexError:
    return IndexError(f"out of range: tried to access index {v} on a tensor of {numel} elements.")


def _dense(t: Tensor) -> Tensor:
    """t itself when its elements sit in row-major order at stride 1, else a contiguous copy."""
    if is_contiguous(t._size, t._stride):
        return t
    c = allocate(t._size, None, t.dtype, t._device)
    copy_into(c, t)
    return c


def _take(self: Tensor, index: Tensor, out: Tensor | None) -> Tensor:
    check_same_device((out, self, index))  # the dispatcher's check, out= first
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_name(index.dtype)}")
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError("take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_name(self.dtype)} and out.dtype = {_name(out.dtype)}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if out is not None:
        assert_no_internal_overlap(out)
        assert_no_overlap(out, index)
        assert_no_overlap(out, self)
    n = self.numel()
    check_index_values(index, -n, n, lambda v: _flat_error(v, n))
    if out is None:
        out = allocate(index._size, None, self.dtype, self._device)
    else:
        resize_output(out, index._size)
    if index.numel() and self._device.type != "meta":
        src = _dense(self)
        shape = nshape(index)
        run_map(M.GATHER, shape, out, nstrides(out), src, (0,) * len(shape), index, nstrides(index), 1, n)
    return out


@take.impl_backends
def take_kernel(self: Tensor, index: Tensor) -> Tensor:
    return _take(self, index, None)


@take_out.impl_backends
def take_out_kernel(self: Tensor, index: Tensor, *, out: Tensor) -> Tensor:
    return _take(self, index, out)


@put_.impl_backends
def put__kernel(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    check_same_device((self, index, source))  # the dispatcher's check
    if not accumulate or self._device.type == "cuda":  # duplicates race (CUDA: float atomics)
        alert_not_deterministic("put_")
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_name(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_name(self.dtype)} and source.dtype = {_name(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    assert_no_internal_overlap(self)
    assert_no_overlap(self, index)
    assert_no_overlap(self, source)
    if index.numel() == 0 or self._device.type == "meta":
        return self
    n = self.numel()
    check_index_values(index, -n, n, lambda v: _flat_error(v, n))
    index = _op("reshape")(index, source._size)
    dst = _dense(self)
    shape = nshape(source)
    run_map(M.SCATTER_ADD if accumulate else M.SCATTER, shape, dst, (0,) * len(shape), source, nstrides(source),
            index, nstrides(index), 1, n, (checked_scalar(self.dtype, 1),) if accumulate else ())
    if dst is not self:
        copy_into(self, dst)
    return self


@put.impl("CompositeExplicitAutograd")
def put_kernel(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return put_.op(_op("clone")(self), index, source, accumulate)


# ---- take_along_dim ------------------------------------------------------------------------------------
take_along_dim = declare("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
                         variants="function, method")
take_along_dim_out = declare("take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, Tensor(a!) out) -> "
                             "Tensor(a!)")


def _check_take_along_dim_devices(tensors: tuple, device: Any) -> None:
    """take_along_dim's own checkDevice: every operand on self's device, in its words."""
    c = "torch.take_along_dim():"
    for t in tensors:
        if t is not None and t._device != device and "meta" not in (t._device.type, device.type):
            raise RuntimeError(f"Expected tensor to have {device} Device, but got tensor with {t._device} Device "
                               f"(while checking arguments for {c})")


def _take_along_dim_args(self: Tensor, indices: Tensor, dim: int | None) -> tuple:
    if dim is None:
        return _op("view")(self, (-1,)), 0, _op("view")(indices, (-1,))
    if len(self._size) != len(indices._size):
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {len(self._size)} dimensions for input, and {len(indices._size)} dimensions "
                           "for indices")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_name(indices.dtype)}")
    dim = wrap_dim(dim, len(self._size))
    ss = list(nshape(self))
    ss[dim] = nsize(indices, dim)
    ib = _op("broadcast_to")(indices, infer_size(tuple(ss), indices._size)) if self._size else indices
    ids = list(nshape(indices))
    ids[dim] = nsize(self, dim)
    sb = _op("broadcast_to")(self, infer_size(tuple(ids), self._size)) if self._size else self
    n = nsize(self, dim)
    if indices._device.type != "meta":  # torch 2.13 wraps every value into [0, size) (size 0: ZeroDivisionError)
        from .factories import wrapped_scalar_tensor

        ib = _op("remainder.Tensor")(ib, wrapped_scalar_tensor(n))
    return sb, dim, ib


@take_along_dim.impl("CompositeImplicitAutograd")
def take_along_dim_kernel(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    _check_take_along_dim_devices((self, indices), self._device)
    s, d, i = _take_along_dim_args(self, indices, dim)
    return _op("gather")(s, d, i)


@take_along_dim_out.impl("CompositeImplicitAutograd")
def take_along_dim_out_kernel(self: Tensor, indices: Tensor, dim: int | None = None, *, out: Tensor) -> Tensor:
    _check_take_along_dim_devices((self, indices, out), self._device)
    s, d, i = _take_along_dim_args(self, indices, dim)
    return _op("gather.out")(s, d, i, out=out)


