"""gather, scatter (src, value, the legacy reduce=), scatter_add and scatter_reduce
(TensorAdvancedIndexing.cpp, ScatterGatherChecks.h), and the helpers the index_* operators share.

Each is structured: a meta (PyTorch's TORCH_META_FUNC: dtype and shape checks, the output) and an
impl that checks the index values first, so that nothing is written when one is out of range
(PyTorch's CPU kernel checks as it writes), then runs a declared index map
(jtorch/kernels/scalar_index.py) through the backend's `index_map` method. The iteration is PyTorch's:
over `index`'s shape, the operand the index applies to restrided to stride 0 along `dim`, the index
value times that operand's stride along `dim` added (restride_dim).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str, wrap_dim
from ..kernels import scalar_index as M
from ..memory_overlap import _FULL, _PARTIAL, assert_no_internal_overlap, assert_no_partial_overlap, get_overlap_status
from ..scalar import checked_scalar, not_implemented
from ..structured.meta import MetaBase, check_same_device, copy_into
from ..tensor import Tensor
from ..warn import user_stacklevel
from .registry import by_name
from .structured import structured

_LONG_OR_INT = (_dt.int64, _dt.int32)


# ---- shared by the index-map operators -------------------------------------------------------------
def nsize(t: Tensor, d: int) -> int:
    """ensure_nonempty_size: a 0-dim tensor has one dim of size 1."""
    return t._size[d] if t._size else 1


def nstrides(t: Tensor) -> tuple:
    """The strides over ensure_nonempty dims."""
    return t._stride if t._size else (1,)


def nshape(t: Tensor) -> tuple:
    return t._size if t._size else (1,)


def restrided(strides: tuple, dim: int) -> tuple:
    """restride_dim's strides: 0 along `dim`."""
    return tuple(0 if d == dim else s for d, s in enumerate(strides))


def assert_no_overlap(a: Tensor, b: Tensor) -> None:
    if get_overlap_status(a, b) in (_FULL, _PARTIAL):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def check_index_values(index: Tensor, lo: int, hi: int, error: Callable[[int], Exception]) -> None:
    """Refuse an index value outside [lo, hi) before anything is written (error(value) is raised)."""
    if index._device.type == "meta" or index.numel() == 0:
        return
    bad = backend(index._device.type).index_bounds(index, lo, hi)
    if bad is not None:
        raise error(bad)


def run_map(m: M.IndexMap, shape: tuple, dst: Tensor, dst_strides: tuple, src: Any, src_strides: tuple,
            index: Tensor, index_strides: tuple, index_stride: int, index_size: int, extras: tuple = ()) -> None:
    """Run index map `m` over `shape` (see jtorch/kernels/scalar_index.py); src may be a value of
    dst's dtype (a fill)."""
    if dst._device.type == "meta":
        return
    if not isinstance(src, Tensor):
        src = checked_scalar(dst.dtype, src)
    backend(dst._device.type).index_map(m, tuple(shape), dst, tuple(dst_strides), src, tuple(src_strides), index,
                                        tuple(index_strides), index_stride, index_size, extras)


def out_of_bounds(dim: int, size: int) -> Callable[[int], RuntimeError]:
    return lambda v: RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")


def reduce_identity(reduce: str, dtype: _dt.dtype) -> Any:
    """scatter_reduce's include_self=False start value: the reduction's identity."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    low = reduce == "amax"
    if dtype is _dt.bool:
        return not low
    if dtype.is_floating_point:
        return -np.inf if low else np.inf
    info = np.iinfo(dtype.numpy)
    return int(info.min if low else info.max)


def mean_divide(out: Tensor, count: Tensor) -> None:
    """scatter_reduce / index_reduce 'mean': out /= count (positions nothing was scattered to have
    count 1), floor division for integers."""
    if out.dtype.is_floating_point or out.dtype.is_complex:
        by_name["div_.Tensor"].op(out, count)
    else:
        by_name["div_.Tensor_mode"].op(out, count, rounding_mode="floor")


# ---- gather ------------------------------------------------------------------------------------------
def _gather_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    result = ctx.maybe_get_output(0)
    check_same_device((result, self, index))  # the dispatcher's check, out= first as torch's wrapper
    if result is not None:
        assert_no_internal_overlap(result)
        assert_no_overlap(result, self)
        assert_no_partial_overlap(result, index)
    if index.numel() != 0 and index.dtype not in _LONG_OR_INT:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    ctx.set_output_raw_strided(0, index._size, None, self.dtype, self._device)
    if index.numel() == 0:
        return
    nd = max(len(self._size), 1)
    if nd != max(len(index._size), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(nd):
        if d != dim and nsize(index, d) > nsize(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {shape_str(index._size)} to be "
                               f"no larger than self {shape_str(self._size)} apart from dimension {dim}")


def _gather_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    out = ctx.output(0)
    size = nsize(self, dim)
    check_index_values(index, 0, size, out_of_bounds(dim, size))
    run_map(M.GATHER, nshape(index), out, nstrides(out), self, restrided(nstrides(self), dim), index,
            nstrides(index), nstrides(self)[dim], size)


structured("gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) -> Tensor(a!)",
           functional="gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
           meta=_gather_meta, impl=_gather_impl)


# ---- scatter family ----------------------------------------------------------------------------------
_LEGACY = ("add", "multiply")
_NEW = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "max": "amax", "amin": "amin", "min": "amin"}


def scatter_checks(ctx: MetaBase, self: Tensor, dim: int, index: Tensor, src: Tensor | None,
                   reduce: str | None = None, new_options: bool = False) -> None:
    """scatter_meta_impl: dtype and shape checks, overlap checks, the output, the reduce name."""
    check_same_device((ctx.maybe_get_output(0), self, index, src))  # the dispatcher's check, out= first
    if index.numel() != 0 and index.dtype not in _LONG_OR_INT:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() != 0:
        nd = max(len(self._size), 1)
        if nd != max(len(index._size), 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
        if src is not None and max(len(src._size), 1) != max(len(index._size), 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        wrong = any(d != dim and nsize(index, d) > nsize(self, d) for d in range(nd))
        if not wrong and src is not None:
            wrong = any(nsize(index, d) > nsize(src, d) for d in range(nd))
        if wrong:
            msg = (f"Expected index {shape_str(index._size)} to be no larger than self {shape_str(self._size)} apart "
                   f"from dimension {dim}")
            if src is not None:
                msg += f" and to be no larger size than src {shape_str(src._size)}"
            raise RuntimeError(msg)
    out = ctx.maybe_get_output(0)
    if out is not None:
        assert_no_internal_overlap(out)
        assert_no_overlap(out, index)
        if src is not None:
            assert_no_overlap(out, src)
    ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)
    if reduce is not None:
        if new_options:
            if reduce not in _NEW:
                raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
        elif reduce not in _LEGACY:
            raise RuntimeError("reduce argument must be either add or multiply.")


def check_empty_self(self: Tensor, dim: int, index: Tensor) -> None:
    """An empty self with a non-empty index: every value is out of range. The wrapper skips the
    impl of an empty output, so the meta raises the kernel's text here (torch's kernel still runs)."""
    if self.numel() == 0 and index.numel() and self._device.type != "meta":
        size = nsize(self, dim)
        check_index_values(index, 0, size, out_of_bounds(dim, size))


def scatter_into(out: Tensor, dim: int, index: Tensor, src: Any, m: M.IndexMap, extras: tuple = ()) -> None:
    """out's elements at index along dim combined with src's (a tensor, or a value)."""
    shape = nshape(index)
    src_strides = nstrides(src) if isinstance(src, Tensor) else (0,) * len(shape)
    run_map(m, shape, out, restrided(nstrides(out), dim), src, src_strides, index, nstrides(index),
            nstrides(out)[dim], nsize(out, dim), extras)


def _scatter_begin(ctx: MetaBase, self: Tensor, dim: int, index: Tensor) -> Tensor:
    """Check the values, then copy self into a separate output (torch: result.copy_(self))."""
    out = ctx.output(0)
    size = nsize(self, dim)
    check_index_values(index, 0, size, out_of_bounds(dim, size))
    if out is not self:
        copy_into(out, self)
    return out


def _dtype_dispatch(kind: str, dtype: _dt.dtype, reduce: str) -> None:
    if reduce in ("amax", "amin") and dtype.is_complex:
        raise not_implemented(f"scatter_gather_{kind}_cpu_reduce_{reduce}", dtype)
    if reduce == "mean" and dtype is _dt.bool:
        raise not_implemented(f"scatter_gather_{kind}_cpu_reduce_mean", dtype)


def _legacy_map(reduce: str | None) -> tuple:
    if reduce is None:
        return M.SCATTER, ()
    return (M.SCATTER_ADD, (1,)) if reduce == "add" else (M.SCATTER_MUL, ())


def _scalar_extras(out: Tensor, extras: tuple) -> tuple:
    return tuple(checked_scalar(out.dtype, e) for e in extras)


def _scatter_family(src_is_tensor: bool, legacy_reduce: bool) -> None:
    arg = "Tensor src" if src_is_tensor else "Scalar value"
    red = ", *, str reduce" if legacy_reduce else ""
    overload = ("src" if src_is_tensor else "value") if not legacy_reduce else ("reduce" if src_is_tensor
                                                                                 else "value_reduce")

    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        self, index = tensors[0], tensors[1]
        dim = wrap_dim(extras["dim"], len(self._size))
        scatter_checks(ctx, self, dim, index, tensors[2] if src_is_tensor else None, extras.get("reduce"))
        check_empty_self(self, dim, index)

    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        global _warned_legacy
        self, index = tensors[0], tensors[1]
        dim = wrap_dim(extras["dim"], len(self._size))
        reduce = extras.get("reduce")
        if reduce is not None and src_is_tensor and not _warned_legacy:  # TORCH_WARN_ONCE
            _warned_legacy = True
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=user_stacklevel())
        out = _scatter_begin(ctx, self, dim, index)
        if index.numel() == 0:
            return
        m, ex = _legacy_map(reduce)
        scatter_into(out, dim, index, tensors[2] if src_is_tensor else extras["value"], m, _scalar_extras(out, ex))

    out_args = f"{arg}, *, str reduce, Tensor(a!) out" if legacy_reduce else f"{arg}, *, Tensor(a!) out"
    structured(f"scatter.{overload}_out(Tensor self, int dim, Tensor index, {out_args}) -> Tensor(a!)",
               functional=f"scatter.{overload}(Tensor self, int dim, Tensor index, {arg}{red}) -> Tensor",
               inplace=f"scatter_.{overload}(Tensor(a!) self, int dim, Tensor index, {arg}{red}) -> Tensor(a!)",
               meta=meta, impl=impl)


_warned_legacy = False
for _src in (True, False):
    for _legacy in (False, True):
        _scatter_family(_src, _legacy)


def _scatter_add_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index, src = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    scatter_checks(ctx, self, dim, index, src)
    check_empty_self(self, dim, index)


def _scatter_add_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index, src = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    out = _scatter_begin(ctx, self, dim, index)
    if index.numel():
        scatter_into(out, dim, index, src, M.SCATTER_ADD, _scalar_extras(out, (1,)))


structured("scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)",
           functional="scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
           inplace="scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
           meta=_scatter_add_meta, impl=_scatter_add_impl)


def _scatter_reduce_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    self, index, src = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    scatter_checks(ctx, self, dim, index, src, extras["reduce"], True)
    if self.numel() == 0 and index.numel():
        _dtype_dispatch("tensor", self.dtype, _NEW[extras["reduce"]])
    check_empty_self(self, dim, index)


def _scatter_reduce_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, index, src = tensors
    dim = wrap_dim(extras["dim"], len(self._size))
    reduce = _NEW[extras["reduce"]]
    include_self = extras["include_self"]
    if index.numel():
        _dtype_dispatch("tensor", self.dtype, reduce)
    out = _scatter_begin(ctx, self, dim, index)
    if index.numel() == 0:
        return
    if not include_self:
        scatter_into(out, dim, index, reduce_identity(reduce, out.dtype), M.SCATTER)
    m = M.BY_REDUCE[reduce]
    scatter_into(out, dim, index, src, m, _scalar_extras(out, (1,) if m is M.SCATTER_ADD else ()))
    if reduce == "mean":
        from .factories import ones_like

        count = ones_like.op(out)
        if not include_self:  # torch: zeros, then count == 0 -> 1; the same, without the masked_fill
            scatter_into(count, dim, index, 0, M.SCATTER)
        scatter_into(count, dim, index, 1, M.SCATTER_ADD, _scalar_extras(count, (1,)))
        mean_divide(out, count)


structured("scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
           "bool include_self=True, Tensor(a!) out) -> Tensor(a!)",
           functional="scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                      "bool include_self=True) -> Tensor",
           inplace="scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
                   "bool include_self=True) -> Tensor(a!)",
           meta=_scatter_reduce_meta, impl=_scatter_reduce_impl)
