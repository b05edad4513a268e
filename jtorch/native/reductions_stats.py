"""Reductions built on the same iterator and stub as reductions.py: nansum, nanmean, count_nonzero,
aminmax, var/std (and var_mean/std_mean), linalg.vector_norm (and the aten norm overloads),
logsumexp and median. Schemas are PyTorch's; kernels follow PyTorch's ReduceOps.cpp, composites
where PyTorch composes (nanmean, logsumexp); var/std and var_mean/std_mean as torch's std_var_out
computes them: Welford's update in double (the backends' welford kernel) and, for a float/double
all-reduce var/std on the CPU, the mean in the input's dtype and the squared deviations summed in
double (std_var_all_cpu). Complex inputs take two passes (mean, then |x - mean|**2 summed).
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import backends as _backends
from .. import dtypes as _dt
from ..geometry import wrap_dim
from ..kernels import reduction as _reduction
from ..kernels import scalar_reduce as R
from ..promotion import promote_types
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import MetaBase, allocate, fill, resize_output
from ..structured.reduce import (
    make_dim_mask,
    make_reduction,
    reduction_shape,
    resize_reduction,
    run_reduction,
    zero_numel_check_dims,
)
from ..tensor import Tensor
from ..warn import user_stacklevel
from .factories import wrapped_scalar_tensor as _w
from .reductions import (
    infer_dtype_from_optional,
    is_integral,
    not_implemented,
    op,
    reduction,
    selecting_dtype,
)
from .registry import backend_kernel, composite_implicit_autograd

# ---- nansum, nanmean ----------------------------------------------------------------------------


def _nansum_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    if self.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    out_dtype = infer_dtype_from_optional(self, extras["dtype"], ctx.maybe_get_output())
    if out_dtype in _dt.bits_dtypes:
        out_dtype = _dt.int64  # torch's nansum promotes every non-floating type, the bits type too
    if not is_integral(self.dtype) and is_integral(out_dtype) and self._device.type != "meta":
        raise not_implemented("nansum_cpu", out_dtype)
    resize_reduction(ctx, self, extras["dim"], extras["keepdim"], out_dtype)


def _nansum_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, result = tensors[0], ctx.output(0)
    r = R.SUM if is_integral(self.dtype) else R.NANSUM  # integers have no NaN: nansum is sum
    run_reduction("nansum", [result], self, extras["dim"], extras["keepdim"], result.dtype, r, backend)


reduction("nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
          "Tensor(a!) out) -> Tensor(a!)",
          "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          _nansum_meta, _nansum_impl)


def _nanmean_check(self: Tensor) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")


def _not_nan_count(self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    return op("sum.dim_IntList")(op("logical_not")(op("isnan")(self)), dim, keepdim)


@composite_implicit_autograd("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) "
                             "-> Tensor", "function, method")
def nanmean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    _nanmean_check(self)
    factor = _not_nan_count(self, dim, keepdim)
    return op("div.Tensor")(op("nansum")(self, dim, keepdim, dtype=dtype), factor)


@backend_kernel("nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
                "Tensor(a!) out) -> Tensor(a!)", variants="function")
def nanmean_out(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Tensor) -> Tensor:
    _nanmean_check(self)
    factor = _not_nan_count(self, dim, keepdim)
    if self._device != out._device:  # at::native::nansum_out, called past the wrapper: its TensorIterator's check
        common, other = (out._device, self._device) if out._device.type != "cpu" else (self._device, out._device)
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, {common} "
                           f"and {other}!")
    op("nansum.out")(self, dim, keepdim, dtype=dtype, out=out)
    return op("div.out")(out, factor, out=out)


# ---- count_nonzero ------------------------------------------------------------------------------
def _count_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    resize_reduction(ctx, tensors[0], extras["dim"], False, _dt.int64)


def _count_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    run_reduction("count_nonzero", [ctx.output(0)], tensors[0], extras["dim"], False, _dt.bool, R.COUNT_NONZERO,
                  backend)


reduction("count_nonzero.dim_IntList_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)",
          "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", _count_meta, _count_impl)


@backend_kernel("count_nonzero(Tensor self, int? dim=None) -> Tensor", "function, method")
def count_nonzero(self: Tensor, dim: int | None = None) -> Tensor:
    return op("count_nonzero.dim_IntList")(self, [] if dim is None else [dim])


@backend_kernel("count_nonzero.out(Tensor self, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)", variants="function")
def count_nonzero_out(self: Tensor, dim: int | None = None, *, out: Tensor) -> Tensor:
    return op("count_nonzero.dim_IntList_out")(self, [] if dim is None else [dim], out=out)


# ---- aminmax ------------------------------------------------------------------------------------
def _aminmax_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    dim = extras["dim"]
    if dim is not None:
        dim = wrap_dim(dim, self.dim())
        zero_numel_check_dims(self, dim, "aminmax")
    elif self.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if self.dtype.is_complex and self._device.type != "meta":
        raise not_implemented("aminmax_cpu", self.dtype)
    shape = reduction_shape(self, dim, extras["keepdim"])
    ctx.set_output_raw_strided(0, shape, None, self.dtype, self._device)
    ctx.set_output_raw_strided(1, shape, None, self.dtype, self._device)


def _aminmax_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self = tensors[0]
    for i, r in ((0, R.MIN), (1, R.MAX)):
        run_reduction("aminmax", [ctx.output(i)], self, extras["dim"], extras["keepdim"], selecting_dtype(self.dtype),
                      r, backend)


reduction("aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, Tensor(b!) max) "
          "-> (Tensor(a!) min, Tensor(b!) max)",
          "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
          _aminmax_meta, _aminmax_impl)


# ---- var, std, var_mean, std_mean ---------------------------------------------------------------
def _std_var(fname: str, self: Tensor, dim: Any, correction: Any, keepdim: bool, take_sqrt: bool,
             result: Tensor | None = None, mean_result: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
    """std_var_out / std_var_mean_out: torch's checks, warning and outputs, then its algorithm for
    the case (see the module's docstring)."""
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        what = "std and var" if mean_result is None else f"{fname}_mean"
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    real = self.dtype.to_real()
    if result is not None and not result.dtype.is_floating_point and not result.dtype.is_complex:
        raise RuntimeError(f"result type {SCALAR_TYPE_NAME[real]} can't be cast to the desired output type "
                           f"{SCALAR_TYPE_NAME[result.dtype]}")
    correction = 1 if correction is None else correction
    shape = reduction_shape(self, dim, keepdim)
    out_numel = math.prod(shape)
    n = self.numel() // out_numel if out_numel else 0
    dof = max(0.0, n - correction)
    if dof <= 0:
        warnings.warn(f"{fname}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=user_stacklevel())
    out_dtype = result.dtype if result is not None else real
    if result is None:
        result = allocate(shape, None, out_dtype, self._device)
    else:
        resize_output(result, shape)
    if mean_result is not None:
        resize_output(mean_result, shape)
    if self._device.type == "meta":
        return result, mean_result
    if self.dtype.is_complex:
        _complex_two_pass(fname, self, dim, keepdim, shape, dof, take_sqrt, result, mean_result)
    elif self.numel() == 0:  # torch's trivial reduction
        op("fill_.Scalar")(result, math.nan)
        if mean_result is not None:
            op("fill_.Scalar")(mean_result, math.nan)
    elif not _two_pass(fname, self, dim, keepdim, shape, dof, take_sqrt, result, mean_result):
        # A non-finite result (an input holding inf or nan, or sums past the dtype's range): torch's own
        # algorithm decides what it is. Finite data takes the vectorised two passes above, which agree
        # with Welford's update to rounding and run many times faster.
        if (mean_result is None and self._device.type == "cpu" and out_numel == 1
                and self.dtype in (_dt.float32, _dt.float64)):
            op("fill_.Scalar")(result, _std_var_all_cpu(self, correction, take_sqrt))
        else:
            _welford(self, dim, correction, take_sqrt, result, mean_result)
    return result, mean_result


def _two_pass(fname: str, self: Tensor, dim: Any, keepdim: bool, shape: tuple, dof: float, take_sqrt: bool,
              result: Tensor, mean_result: Tensor | None) -> bool:
    """The mean, then the sum of squared deviations from it (float16/bfloat16 in float32); whether
    every variance is finite (only then are the outputs written)."""
    x = self
    if x.dtype not in (_dt.float32, _dt.float64):
        x = op("to.dtype")(x, _dt.float32)
    mean = op("mean.dim")(x, dim, True)
    dev = op("sub.Tensor")(x, mean)
    backend = _backends.backend(self._device.type)
    target = result if result.dtype is x.dtype else allocate(shape, None, x.dtype, self._device)
    run_reduction(fname, [target], dev, dim, keepdim, dev.dtype, R.VAR_STD, backend, (dof, take_sqrt))
    # a non-finite mean makes every deviation, and so the variance, non-finite: one check covers both
    if backend.implements("numpy_view"):  # the host: read in place, no operator calls on the small-tensor path
        finite = bool(np.isfinite(backend.numpy_view(target)).all())
    else:
        finite = bool(op("all")(op("isfinite")(target)).item())
    if finite:
        if target is not result:
            op("copy_")(result, target)
        if mean_result is not None:
            op("copy_")(mean_result, mean if keepdim else op("reshape")(mean, list(shape)))
    return finite


def _std_var_all_cpu(self: Tensor, correction: float, take_sqrt: bool) -> float:
    """std_var_all_cpu: the mean in self's dtype, then the squared deviations summed in double."""
    mean = op("mean")(self)
    dev = op("sub.Tensor")(op("to.dtype")(self, _dt.float64), op("to.dtype")(mean, _dt.float64))
    total = float(op("sum")(op("mul.Tensor")(dev, dev)).item())
    divisor = max(0.0, self.numel() - correction)
    var = total / divisor if divisor else (math.nan if total == 0 or math.isnan(total) else math.inf)
    var = math.sqrt(var) if take_sqrt else var
    if self.dtype is _dt.float32:
        with np.errstate(over="ignore"):  # static_cast<float>: out of range is inf
            return float(np.float32(var))
    return var


def _welford(self: Tensor, dim: Any, correction: float, take_sqrt: bool, result: Tensor,
             mean_result: Tensor | None) -> None:
    """std_var_stub: Welford's mean and variance of each output's elements (the backend's kernel),
    the reduced dims moved last and flattened into rows."""
    mask = make_dim_mask(dim, self.dim())
    keep = [d for d in range(self.dim()) if not mask[d]]
    red = [d for d in range(self.dim()) if mask[d]]
    rows = math.prod(self._size[d] for d in keep)
    n = math.prod(self._size[d] for d in red)
    x = op("permute")(self, keep + red) if self.dim() else self
    x = op("contiguous")(op("reshape")(x, [rows, n]))
    if x.dtype not in (_dt.float32, _dt.float64):  # float16 / bfloat16: the accumulator is double anyway
        x = op("to.dtype")(x, _dt.float32)
    var = allocate((rows,), None, x.dtype, self._device)
    mean = allocate((rows,), None, x.dtype, self._device)
    _backends.backend(self._device.type).welford(x, correction, take_sqrt, var, mean)
    op("copy_")(result, op("reshape")(var, list(result._size)))
    if mean_result is not None:
        op("copy_")(mean_result, op("reshape")(mean, list(mean_result._size)))


def _complex_two_pass(fname: str, self: Tensor, dim: Any, keepdim: bool, shape: tuple, dof: float, take_sqrt: bool,
                      result: Tensor, mean_result: Tensor | None) -> None:
    """A complex input: the mean, then the sum of squared deviations |x - mean|**2 from it."""
    x = self
    mean = op("mean.dim")(x, dim, True)
    dev = op("sub.Tensor")(x, mean)
    backend = _backends.backend(self._device.type)
    target = result if result.dtype is (x.dtype.to_real()) else allocate(shape, None, x.dtype.to_real(), self._device)
    run_reduction(fname, [target], dev, dim, keepdim, dev.dtype, R.VAR_STD, backend, (dof, take_sqrt))
    if target is not result:
        op("copy_")(result, target)
    if mean_result is not None:
        op("copy_")(mean_result, mean if keepdim else op("reshape")(mean, list(shape)))


def _with_mean(self: Tensor, dim: Any, correction: Any, keepdim: bool, name: str, sqrt: bool,
               out0: Tensor | None = None, out1: Tensor | None = None) -> tuple:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"{name}_mean only support floating point and complex dtypes")
    if out1 is None:
        out1 = allocate(reduction_shape(self, dim, keepdim), None, self.dtype, self._device)
    return _std_var(name, self, dim, correction, keepdim, sqrt, out0, out1)


def _correction(unbiased: bool) -> int:
    return 1 if unbiased else 0


# var, var.dim, std_mean, std_mean.dim, ... are CompositeImplicitAutograd as in PyTorch: they call the
# .correction overload, whose entry is the derivative (VarBackward0 for all of them).
for _name, _sqrt in (("var", False), ("std", True)):
    composite_implicit_autograd(f"{_name}(Tensor self, bool unbiased=True) -> Tensor", "function, method")(
        lambda self, unbiased=True, _n=_name: op(f"{_n}.correction")(self, None, correction=_correction(unbiased)))
    composite_implicit_autograd(f"{_name}.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
                                "-> Tensor", "function, method")(
        lambda self, dim, unbiased=True, keepdim=False, _n=_name:
        op(f"{_n}.correction")(self, dim, correction=_correction(unbiased), keepdim=keepdim))
    backend_kernel(f"{_name}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) "
                   "-> Tensor", "function, method")(
        lambda self, dim=None, *, correction=None, keepdim=False, _n=_name, _s=_sqrt:
        _std_var(_n, self, dim, correction, keepdim, _s)[0])
    backend_kernel(f"{_name}.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out) "
                   "-> Tensor(a!)", variants="function")(
        lambda self, dim, unbiased=True, keepdim=False, *, out, _n=_name, _s=_sqrt:
        _std_var(_n, self, dim, _correction(unbiased), keepdim, _s, out)[0])
    backend_kernel(f"{_name}.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                   "bool keepdim=False, Tensor(a!) out) -> Tensor(a!)", variants="function")(
        lambda self, dim=None, *, correction=None, keepdim=False, out, _n=_name, _s=_sqrt:
        _std_var(_n, self, dim, correction, keepdim, _s, out)[0])

    composite_implicit_autograd(f"{_name}_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)",
                                variants="function")(
        lambda self, unbiased=True, _n=_name: op(f"{_n}_mean.correction")(self, None, correction=_correction(unbiased)))
    composite_implicit_autograd(f"{_name}_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
                                "-> (Tensor, Tensor)", variants="function")(
        lambda self, dim, unbiased=True, keepdim=False, _n=_name:
        op(f"{_n}_mean.correction")(self, dim, correction=_correction(unbiased), keepdim=keepdim))
    backend_kernel(f"{_name}_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                   "bool keepdim=False) -> (Tensor, Tensor)", variants="function")(
        lambda self, dim=None, *, correction=None, keepdim=False, _n=_name, _s=_sqrt:
        _with_mean(self, dim, correction, keepdim, _n, _s))
    backend_kernel(f"{_name}_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                   "bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))",
                   variants="")(  # autogen in torch: no Python binding, so torch.var_mean takes no out=
        lambda self, dim=None, *, correction=None, keepdim=False, out0, out1, _n=_name, _s=_sqrt:
        _with_mean(self, dim, correction, keepdim, _n, _s, out0, out1))


# ---- linalg.vector_norm and the aten norm overloads ----------------------------------------------
def _scalar_str(v: Any) -> str:
    """c10::Scalar's printing: a double as C++'s stream does (inf, -inf, 2, 0.5)."""
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:g}"
    return str(v)


def check_floating_or_complex(self: Tensor, name: str) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")


def check_linalg_norm_dtype(dtype: _dt.dtype | None, self_dtype: _dt.dtype, name: str) -> None:
    if dtype is None:
        return
    if is_integral(dtype):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {SCALAR_TYPE_NAME[dtype]}")
    if self_dtype.is_complex != dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {SCALAR_TYPE_NAME[dtype]}")
    if promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({SCALAR_TYPE_NAME[self_dtype]}) should be convertible "
                           f"without narrowing to the specified dtype ({SCALAR_TYPE_NAME[dtype]})")


def _vector_norm_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    check_floating_or_complex(self, "linalg.vector_norm")
    scalar_ord, dim, dtype = extras["ord"], extras["dim"], extras["dtype"]
    ord_ = float(scalar_ord.real if isinstance(scalar_ord, complex) else scalar_ord)
    if self.numel() == 0 and (ord_ < 0.0 or ord_ == math.inf):
        if not dim:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_str(scalar_ord)} norm on an empty "
                               "tensor because the operation does not have an identity")
        for d in (dim if not isinstance(dim, int) else (dim,)):
            if self._size[wrap_dim(d, self.dim())] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_str(scalar_ord)} norm on the "
                                   f"dimension {d}because this dimension is empty and the operation does not have "
                                   "an identity")
    check_linalg_norm_dtype(dtype, self.dtype, "linalg.vector_norm")
    out_dtype = (dtype if dtype is not None else self.dtype).to_real()
    resize_reduction(ctx, self, dim, extras["keepdim"], out_dtype)


def _over_size_one_dims(self: Tensor, dim: Any) -> bool:
    """Whether every reduced dim has size 1: a 0-dim input reduced over all dims too, but not one
    given dims (torch reads its size past the end there and takes the p-norm)."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return all(s == 1 for s in self._size)
    if not self._size:
        return False
    dims = (dim,) if isinstance(dim, int) else dim
    return all(self._size[wrap_dim(d, self.dim())] == 1 for d in dims)


def _acc_ord(ord_: float, in_dtype: _dt.dtype) -> float:
    """ord as norm's kernels hold it: chosen among 0, 1, 2, ±inf as a double, then narrowed to the
    accumulate type (float for float32, float16 and bfloat16 inputs) for the general p-norm."""
    if in_dtype in (_dt.float64, _dt.complex128):
        return ord_
    with np.errstate(over="ignore"):
        return float(np.float32(ord_))


def _fill_vanishing_ord(self: Tensor, result: Tensor, ord_: float) -> None:
    """A nonzero ord that narrows to ±0 (2.4e-280 in float): torch's general p-norm then sums
    |x|^0 = 1 over the n reduced elements (NaN and 0 included) and projects n^(1/±0): inf or 0, 1
    for n == 1, as C's pow gives."""
    n = self.numel() // max(result.numel(), 1) if result.numel() else 0
    value = 1.0 if n == 1 else (math.inf if (n > 1) == (ord_ > 0) else 0.0)
    fill(result, value)


def _vector_norm_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self, result = tensors[0], ctx.output(0)
    scalar_ord = extras["ord"]
    ord_ = float(scalar_ord.real if isinstance(scalar_ord, complex) else scalar_ord)
    in_dtype = result.dtype.to_complex() if self.dtype.is_complex else result.dtype
    if _over_size_one_dims(self, extras["dim"]):  # torch's fast path: |x| (x != 0 for ord 0), nothing summed
        x = self if extras["dtype"] is None else op("to.dtype")(self, extras["dtype"])
        value = op("abs")(x) if ord_ != 0.0 else op("ne.Tensor")(x, _w(0))
        op("copy_")(result, op("reshape")(value, list(result._size)))
        return
    if math.isinf(ord_):  # the largest / smallest |x|: amax / amin of abs(x), as PyTorch computes them
        x = op("abs")(self if self.dtype is in_dtype else op("to.dtype")(self, in_dtype))
        run_reduction("vector_norm", [result], x, extras["dim"], extras["keepdim"], x.dtype,
                      R.MAX if ord_ > 0 else R.MIN, backend)
        return
    if ord_ != 0.0 and _acc_ord(ord_, in_dtype) == 0.0:
        _fill_vanishing_ord(self, result, ord_)
        return
    run_reduction("vector_norm", [result], self, extras["dim"], extras["keepdim"], in_dtype, R.NORM, backend,
                  (ord_,))


reduction("linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
          "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
          "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
          "ScalarType? dtype=None) -> Tensor", _vector_norm_meta, _vector_norm_impl, variants="function")


def _norm_check(self: Tensor) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{SCALAR_TYPE_NAME[self.dtype]} instead.")


def _aten_norm(self: Tensor, p: Any, dim: Any, keepdim: bool, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    _norm_check(self)
    p = 2 if p is None else p
    if out is None:
        return op("linalg_vector_norm")(self, p, dim, keepdim, dtype=dtype)
    return op("linalg_vector_norm.out")(self, p, dim, keepdim, dtype=dtype, out=out)


# PyTorch's aten::norm overloads; torch.norm / Tensor.norm are the Python function in jtorch/functional.py
backend_kernel("norm.Scalar(Tensor self, Scalar p=2) -> Tensor", variants="")(
    lambda self, p=2: _aten_norm(self, p, None, False))
backend_kernel("norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor", variants="")(
    lambda self, p, dim, keepdim=False: _aten_norm(self, p, dim, keepdim))
backend_kernel("norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype) "
               "-> Tensor", variants="")(
    lambda self, p, dim, keepdim, *, dtype: _aten_norm(self, p, dim, keepdim, dtype))
backend_kernel("norm.ScalarOpt_dtype(Tensor self, Scalar? p, *, ScalarType dtype) -> Tensor", variants="")(
    lambda self, p, *, dtype: _aten_norm(self, p, None, False, dtype))
backend_kernel("norm.out(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
               variants="")(lambda self, p, dim, keepdim=False, *, out: _aten_norm(self, p, dim, keepdim, None, out))
backend_kernel("norm.dtype_out(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype, Tensor(a!) out) "
               "-> Tensor(a!)", variants="")(
    lambda self, p, dim, keepdim, *, dtype, out: _aten_norm(self, p, dim, keepdim, dtype, out))


# ---- logsumexp ----------------------------------------------------------------------------------
def _logsumexp_into(result: Tensor | None, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """logsumexp_out_impl: max-shifted, the shift of an infinite max taken as 0."""
    if result is not None and is_integral(result.dtype):
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: "
                           f"{SCALAR_TYPE_NAME[result.dtype]}")
    if is_integral(self.dtype):
        self = op("to.dtype")(self, _dt.get_default_dtype())
    dims = tuple(dim) if not isinstance(dim, int) else (dim,)
    if not dims and self.dim() > 0:
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join('1' for _ in range(self.dim()))}]")
    if result is not None and result._device != self._device:  # sum_out's resize_out
        raise RuntimeError(f"Expected out tensor to have device {self._device}, but got {result._device} instead")
    if self.numel() != 0:
        maxes = op("amax")(self, dims, True) if not self.dtype.is_complex else _real_amax(self, dims)
        maxes = op("where.self")(op("isinf")(maxes), op("zeros_like")(maxes), maxes)
        value = op("sum.dim_IntList")(op("exp")(op("sub.Tensor")(self, maxes)), dims, keepdim)
        value = op("add.Tensor")(op("log")(value), maxes if keepdim else op("reshape")(maxes, list(value.shape)))
    else:
        value = op("log")(op("sum.dim_IntList")(op("exp")(self), dims, keepdim))
    if result is None:
        return value
    resize_output(result, value._size)
    return op("copy_")(result, value)


def _real_amax(self: Tensor, dims: tuple) -> Tensor:
    """amax(real(self), dims, keepdim=True): a complex input is shifted by its largest real part."""
    maxes = allocate(reduction_shape(self, dims, True), None, self.dtype.to_real(), self._device)
    if self._device.type != "meta":
        run_reduction("logsumexp", [maxes], self, dims, True, self.dtype, R.MAX_REAL,
                      _backends.backend(self._device.type))
    return maxes


@backend_kernel("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", "function, method")
def logsumexp(self: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return _logsumexp_into(None, self, dim, keepdim)


@backend_kernel("logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
                variants="function")
def logsumexp_out(self: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor) -> Tensor:
    return _logsumexp_into(out, self, dim, keepdim)


# ---- median -------------------------------------------------------------------------------------
MEDIAN = _reduction.OrderStatistic("median")


def _median_dtype_check(self: Tensor) -> None:
    if self.dtype is _dt.bool or self.dtype.is_complex:
        raise not_implemented("median_out", self.dtype)


def _median_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (self,) = tensors
    dim = wrap_dim(extras["dim"], self.dim())
    for i, (name, want) in enumerate((("values", self.dtype), ("indices", _dt.int64))):
        out = ctx.maybe_get_output(i)
        if out is not None and out.dtype is not want:
            raise RuntimeError(f"Expected tensor for '{name}' to have the same type as tensor for argument #"
                               f"{2 if i == 0 else 3} '{'self' if i == 0 else 'indices'}'; but type "
                               f"{_legacy_type(out.dtype)} does not equal {_legacy_type(want)} (while checking "
                               "arguments for median)")
    zero_numel_check_dims(self, dim, "median()")
    if self._device.type != "meta":
        _median_dtype_check(self)
    shape = reduction_shape(self, dim, extras["keepdim"])
    ctx.set_output_raw_strided(0, shape, None, self.dtype, self._device)
    ctx.set_output_raw_strided(1, shape, None, _dt.int64, self._device)


def _legacy_type(dtype: _dt.dtype) -> str:
    return f"torch.{SCALAR_TYPE_NAME[dtype]}Tensor"


def _median_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    self = tensors[0]
    it = make_reduction("median", [ctx.output(0), ctx.output(1)], self, extras["dim"], extras["keepdim"],
                        self.dtype, [self.dtype, _dt.int64])
    backend.reduce(it, MEDIAN, ())
    it.finish()


reduction("median.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
          "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
          "median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          _median_meta, _median_impl)


def _median_all(self: Tensor) -> Tensor:
    """median_impl: the lower median of every element (NaN for an empty tensor)."""
    if self.numel() and (self.dtype is _dt.bool or self.dtype.is_complex) and self._device.type != "meta":
        raise not_implemented("median_cpu", self.dtype)
    if self.numel() == 0:
        return op("full")([], math.nan, dtype=self.dtype, device=self._device) if not is_integral(self.dtype) \
            else op("full")([], -(2 ** 63) if self.dtype is _dt.int64 else 0, dtype=self.dtype, device=self._device)
    values, _ = op("median.dim")(op("reshape")(self, [-1]), 0)
    return op("reshape")(values, [])


backend_kernel("median(Tensor self) -> Tensor", "function, method")(_median_all)


@backend_kernel("median.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", variants="")  # torch binds no out= here
def median_out(self: Tensor, *, out: Tensor) -> Tensor:
    value = _median_all(self)
    if out.dtype is not value.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {value.dtype}, but got {out.dtype} instead")
    resize_output(out, ())
    return op("copy_")(out, value)


# ---- nanmedian ----------------------------------------------------------------------------------
def _nanmedian_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    """The lower median of each row's non-NaN elements (NaN where there are none): a stable sort of
    the row (NaN last), then the element of rank (count - 1) // 2 and its index, the one torch's
    kernel reports."""
    self = tensors[0]
    dim = wrap_dim(extras["dim"], self.dim())
    if self.dim() == 0:
        op("copy_")(ctx.output(0), self)
        op("fill_.Scalar")(ctx.output(1), 0)
        return
    values, indices = op("sort.stable")(self, stable=True, dim=dim)
    count = op("sum.dim_IntList")(op("logical_not")(op("isnan")(self)), [dim], True)
    k = op("clamp_min")(op("div.Tensor_mode")(op("sub.Tensor")(count, _w(1)), _w(2), rounding_mode="floor"), 0)
    v, i = op("gather")(values, dim, k), op("gather")(indices, dim, k)
    n = self._size[dim]
    all_nan = op("eq.Tensor")(count, _w(0))
    i = op("where.self")(all_nan, op("full_like")(i, _all_nan_index(n)), i)
    if not extras["keepdim"]:
        v, i = op("squeeze.dim")(v, dim), op("squeeze.dim")(i, dim)
    op("copy_")(ctx.output(0), v)
    op("copy_")(ctx.output(1), i)


def _all_nan_index(n: int) -> int:
    """The index torch reports for a row of n NaNs: its kernel runs libstdc++'s std::nth_element for
    rank (0 - 1) / 2 == 0 over elements that all compare equal, so only the introselect's swaps move
    them: each round puts the middle element first and reverses the rest of the range (the
    unguarded partition), until 3 or fewer remain or the depth limit takes heap_select's swap."""
    a = np.arange(n)
    last, depth = n, 2 * (n.bit_length() - 1) if n else 0
    while last > 3:
        if depth == 0:
            return int(a[0])
        depth -= 1
        mid = last // 2
        a[0], a[mid] = a[mid], a[0]
        a[1:last] = a[1:last][::-1].copy()
        last = 1 + (last - 1) // 2  # the cut: rank 0 stays left of it
    return int(a[0])


reduction("nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
          "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
          "nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          _median_meta, _nanmedian_impl)


def _nanmedian_all(self: Tensor) -> Tensor:
    """nanmedian_impl: the lower median of the non-NaN elements (NaN for none, or an empty tensor)."""
    if self.numel() and (self.dtype is _dt.bool or self.dtype.is_complex) and self._device.type != "meta":
        raise not_implemented("median_cpu", self.dtype)
    if self.numel() == 0:
        return op("full")([], math.nan, dtype=self.dtype, device=self._device) if not is_integral(self.dtype) \
            else op("full")([], -(2 ** 63) if self.dtype is _dt.int64 else 0, dtype=self.dtype, device=self._device)
    values, _ = op("nanmedian.dim")(op("reshape")(self, [-1]), 0)
    return op("reshape")(values, [])


backend_kernel("nanmedian(Tensor self) -> Tensor", "function, method")(_nanmedian_all)


@backend_kernel("nanmedian.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", variants="")  # torch binds no out= here
def nanmedian_out(self: Tensor, *, out: Tensor) -> Tensor:
    value = _nanmedian_all(self)
    if out.dtype is not value.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {value.dtype}, but got {out.dtype} instead")
    resize_output(out, ())
    return op("copy_")(out, value)
