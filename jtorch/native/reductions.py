"""Reductions: sum, mean, prod, amax, amin, max, min, argmax, argmin, all, any. Each structured
family is its schemas (PyTorch's, verbatim), a meta (PyTorch's TORCH_META_FUNC: checks, output
shape and dtype) and an impl that runs a declared Reduction (jtorch/kernels/scalar_reduce.py)
through the backend's `reduce` stub (jtorch/structured/reduce.py: make_reduction). Overloads that
PyTorch implements as composites (sum(), mean(), max(), ...) call the structured ones.

var/std, norms, logsumexp, median, aminmax, count_nonzero, nansum and nanmean are in
reductions_stats.py.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from ..geometry import wrap_dim
from ..kernels import scalar_reduce as R
from ..promotion import is_integral as is_integral_type
from ..scalar import SCALAR_TYPE_NAME, not_implemented
from ..structured.meta import MetaBase
from ..structured.reduce import (
    resize_reduction,
    resize_reduction_with_indices,
    run_reduction,
    small_reduction_fast_path,
    zero_numel_check_dims,
)
from ..tensor import Tensor
from .registry import backend_kernel, composite_implicit_autograd, op
from .structured import StructuredFamily, structured


def reduction(out: str, functional: str, meta: Callable, impl: Callable, variants: str = "function, method",
              python_name: str | None = None, fast: Any = None) -> StructuredFamily:
    """A structured reduction family: outputs through MetaBase.set_output_raw_strided. `fast` is
    (Reduction, out_dtype(self, extras) -> dtype | None) for small whole reductions of contiguous
    inputs (jtorch.structured.reduce.small_reduction_fast_path)."""
    return structured(out, functional=functional, meta=meta, impl=impl, context=MetaBase, variants=variants,
                      python_name=python_name, fast_path=small_reduction_fast_path(*fast) if fast else None)


# dtypes the CPU reduces without converting the input first
_DIRECT = frozenset({_dt.float32, _dt.float64, _dt.int64, _dt.complex64, _dt.complex128})


def _same_dtype(self: Tensor, extras: dict) -> _dt.dtype | None:
    """sum/prod/mean: the input's dtype when no dtype= is given and it needs no conversion."""
    if extras.get("dtype") is None and self.dtype in _DIRECT:
        return self.dtype
    return None


def _real_nonempty(self: Tensor, extras: dict) -> _dt.dtype | None:
    """amax/amin: non-empty, not complex (those raise in the meta)."""
    return self.dtype if self.dtype in _DIRECT and not self.dtype.is_complex and self._size and self.numel() else None


def _index_nonempty(self: Tensor, extras: dict) -> _dt.dtype | None:
    return _dt.int64 if _real_nonempty(self, extras) is not None else None


def _float_mean(self: Tensor, extras: dict) -> _dt.dtype | None:
    return _same_dtype(self, extras) if self.dtype is not _dt.int64 else None




# ---- dtype helpers (ReduceOpsUtils.h) -----------------------------------------------------------
def is_integral(dtype: _dt.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex)


def get_dtype_from_self(self: Tensor, dtype: _dt.dtype | None, promote_integers: bool) -> _dt.dtype:
    if dtype is not None:
        return dtype
    if promote_integers and is_integral_type(self.dtype, True):  # c10::isIntegralType: bits stay bits
        return _dt.int64
    return self.dtype


def infer_dtype_from_optional(self: Tensor, dtype: _dt.dtype | None, result: Tensor | None) -> _dt.dtype:
    if result is not None:
        return dtype if dtype is not None else result.dtype
    return get_dtype_from_self(self, dtype, True)


def selecting_dtype(dtype: _dt.dtype) -> _dt.dtype:
    """The dtype max/min/argmax read their input in: integers and bools as int64 (the same results,
    one compiled kernel for all of them)."""
    return _dt.int64 if is_integral(dtype) else dtype


# ---- sum, prod, mean ----------------------------------------------------------------------------
def _sum_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    """sum's and prod's meta: the output dtype from dtype=, out= or the input (integers as int64)."""
    (self,) = tensors
    out_dtype = infer_dtype_from_optional(self, extras["dtype"], ctx.maybe_get_output())
    resize_reduction(ctx, self, extras.get("dim"), extras.get("keepdim", False), out_dtype)


def _result_dtype_impl(name: str, r: Any) -> Callable:
    """sum's, prod's and mean's impl (make_reduction_from_out_ty): the input computes in the result's dtype."""
    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        result = ctx.output(0)
        run_reduction(name, [result], tensors[0], extras.get("dim"), extras.get("keepdim", False), result.dtype, r,
                      backend)

    return impl


_sum_impl = _result_dtype_impl("sum", R.SUM)


reduction("sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
          "Tensor(a!) out) -> Tensor(a!)",
          "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          _sum_meta, _sum_impl, fast=(R.SUM, _same_dtype))


# sum() of the whole tensor: the same family over every dim (one dispatch, the fast path included)
reduction("sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
          "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", _sum_meta, _sum_impl, fast=(R.SUM, _same_dtype))


_prod_impl = _result_dtype_impl("prod", R.PROD)


reduction("prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
          "-> Tensor(a!)",
          "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          _sum_meta, _prod_impl)
# prod() of the whole tensor is a CPU kernel of its own in PyTorch: the same family, all dims
reduction("prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
          "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", _sum_meta, _prod_impl, fast=(R.PROD, _same_dtype))


def _mean_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    dtype = extras["dtype"]
    in_dtype = get_dtype_from_self(self, dtype, True)
    if is_integral(in_dtype):
        what, got = ("Optional", dtype) if dtype is not None else ("Input", self.dtype)
        # the meta kernel is torch's Python reference, which prints the dtype's Python name
        name = f"torch.{got.name}" if self._device.type == "meta" else SCALAR_TYPE_NAME[got]
        raise RuntimeError(f"mean(): could not infer output dtype. {what} dtype must be either a floating point or "
                           f"complex dtype. Got: {name}")
    out_dtype = infer_dtype_from_optional(self, dtype, ctx.maybe_get_output())
    if is_integral(out_dtype):  # PyTorch's sum_out(...).div_(n) refuses an integer result
        raise RuntimeError(f"result type {SCALAR_TYPE_NAME[in_dtype if in_dtype.is_floating_point else _dt.float32]} "
                           f"can't be cast to the desired output type {SCALAR_TYPE_NAME[out_dtype]}")
    resize_reduction(ctx, self, extras.get("dim"), extras.get("keepdim", False), out_dtype)


_mean_impl = _result_dtype_impl("mean", R.MEAN)


reduction("mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
          "-> Tensor(a!)",
          "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          _mean_meta, _mean_impl, fast=(R.MEAN, _float_mean))


reduction("mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
          "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", _mean_meta, _mean_impl, fast=(R.MEAN, _float_mean))


# ---- amax, amin ---------------------------------------------------------------------------------
def _minmax_meta(name: str, kernel: str) -> Callable:
    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        (self,) = tensors
        result = ctx.maybe_get_output()
        if result is not None and result.dtype is not self.dtype:
            raise RuntimeError(f"Expected the dtype for input and out to match, but got {SCALAR_TYPE_NAME[self.dtype]} "
                               f"for input's dtype and {SCALAR_TYPE_NAME[result.dtype]} for out's dtype.")
        dim = extras["dim"]
        if self.numel() == 0:
            if not dim:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            zero_numel_check_dims(self, dim, f"{name}()")
        if self.dtype.is_complex and self._device.type != "meta":
            raise not_implemented(kernel, self.dtype)
        resize_reduction(ctx, self, dim, extras["keepdim"], self.dtype)

    return meta


def _minmax_impl(name: str, r: Any) -> Callable:
    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        self = tensors[0]
        run_reduction(name, [ctx.output(0)], self, extras["dim"], extras["keepdim"], selecting_dtype(self.dtype), r,
                      backend)

    return impl


reduction("amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
          "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
          _minmax_meta("amax", "max_values_cpu"), _minmax_impl("amax", R.MAX), fast=(R.MAX, _real_nonempty))
reduction("amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
          "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
          _minmax_meta("amin", "min_values_cpu"), _minmax_impl("amin", R.MIN), fast=(R.MIN, _real_nonempty))


# ---- max, min: the whole tensor, or (values, indices) along a dim --------------------------------
def _all_minmax(name: str, reducer: str) -> Callable:
    def kernel(self: Tensor) -> Tensor:
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        if self.dtype.is_complex:
            raise not_implemented(f"{name}_all", self.dtype)
        return op(reducer)(self)

    return kernel


def _all_minmax_out(name: str, reducer: str) -> Callable:
    def kernel(self: Tensor, *, out: Tensor) -> Tensor:
        if self._device != out._device and "meta" not in (self._device.type, out._device.type):
            raise RuntimeError("Expected self.device() == out.device() to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        if self.dtype.is_complex:
            raise not_implemented(f"{name}_all", self.dtype)
        return op(reducer + ".out")(self, out=out)

    return kernel


for _n in ("max", "min"):
    backend_kernel(f"{_n}(Tensor self) -> Tensor", "function, method")(_all_minmax(_n, f"a{_n}"))
    backend_kernel(f"{_n}.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", variants="function")(
        _all_minmax_out(_n, f"a{_n}"))


def _minmax_dim_meta(name: str) -> Callable:
    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        (self,) = tensors
        dim = wrap_dim(extras["dim"], self.dim())
        zero_numel_check_dims(self, dim, f"{name}()")
        if self.dtype.is_complex:
            raise RuntimeError(f"{name}(): does not support complex input")
        resize_reduction_with_indices(ctx, self, dim, extras["keepdim"], self.dtype)

    return meta


def _minmax_dim_impl(name: str, r: Any) -> Callable:
    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        self = tensors[0]
        run_reduction(name, [ctx.output(0), ctx.output(1)], self, extras["dim"], extras["keepdim"],
                      selecting_dtype(self.dtype), r, backend)

    return impl


reduction("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
          "-> (Tensor(a!) values, Tensor(b!) indices)",
          "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          _minmax_dim_meta("max"), _minmax_dim_impl("max", R.MAX_DIM))
reduction("min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, Tensor(b!) min_indices) "
          "-> (Tensor(a!) values, Tensor(b!) indices)",
          "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          _minmax_dim_meta("min"), _minmax_dim_impl("min", R.MIN_DIM))


# max(a, b) / min(a, b) are maximum / minimum (PyTorch's max.other, max.out)
for _n, _m in (("max", "maximum"), ("min", "minimum")):
    composite_implicit_autograd(f"{_n}.other(Tensor self, Tensor other) -> Tensor", "function, method")(
        lambda self, other, _m=_m: op(_m)(self, other))
    backend_kernel(f"{_n}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", variants="function")(
        lambda self, other, *, out, _m=_m: op(f"{_m}.out")(self, other, out=out))


# ---- argmax, argmin -----------------------------------------------------------------------------
def _arg_meta(name: str) -> Callable:
    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        (self,) = tensors
        dim = extras["dim"]
        if dim is not None:
            dim = wrap_dim(dim, self.dim())
            zero_numel_check_dims(self, dim, f"{name}()")
        elif self.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if self.dtype.is_complex:
            raise RuntimeError(f"{name}(): does not support complex input")
        if self.dtype is _dt.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        resize_reduction(ctx, self, dim, extras["keepdim"], _dt.int64)

    return meta


def _arg_impl(name: str, r: Any) -> Callable:
    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        self, result, dim = tensors[0], ctx.output(0), extras["dim"]
        keepdim = extras["keepdim"]
        if dim is None:  # over the flattened tensor, into a 0-dim view of the result
            self = op("reshape")(self, [-1])
            result = Tensor._make(result._storage, (), (), result._offset, result.dtype, result._device)
            dim, keepdim = 0, False
        run_reduction(name, [result], self, dim, keepdim, selecting_dtype(self.dtype), r, backend)

    return impl


reduction("argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
          "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
          _arg_meta("argmax"), _arg_impl("argmax", R.ARGMAX))
reduction("argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
          "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
          _arg_meta("argmin"), _arg_impl("argmin", R.ARGMIN))


# ---- all, any -----------------------------------------------------------------------------------
def _allany_meta(name: str) -> Callable:
    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        (self,) = tensors
        result = ctx.maybe_get_output()
        if result is not None and result.dtype not in (_dt.bool, _dt.uint8):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {SCALAR_TYPE_NAME[result.dtype]}")
        # [all, any : uint8 compatibility]: a uint8 input gives a uint8 result
        out_dtype = result.dtype if result is not None else (_dt.uint8 if self.dtype is _dt.uint8 else _dt.bool)
        resize_reduction(ctx, self, extras.get("dim"), extras.get("keepdim", False), out_dtype,
                         allow_empty_dims=True)

    return meta


def _allany_impl(name: str, r: Any) -> Callable:
    def impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
        # the input is read as bool (x != 0): one kernel serves every input dtype
        run_reduction(name, [ctx.output(0)], tensors[0], extras.get("dim"), extras.get("keepdim", False), _dt.bool,
                      r, backend, allow_empty_dims=True)

    return impl


for _n, _r in (("all", R.ALL), ("any", R.ANY)):
    reduction(f"{_n}.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", f"{_n}(Tensor self) -> Tensor",
              _allany_meta(_n), _allany_impl(_n, _r))
    reduction(f"{_n}.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
              f"{_n}.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", _allany_meta(_n), _allany_impl(_n, _r))
    reduction(f"{_n}.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
              f"{_n}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", _allany_meta(_n),
              _allany_impl(_n, _r))
