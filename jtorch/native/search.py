"""Search and counting: isin, bucketize, searchsorted, bincount, histc, unique (_unique2,
unique_dim, unique_consecutive, unique_dim_consecutive, _unique) and Tensor.__contains__, with
PyTorch's schemas, checks and messages (Bucketization.cpp, Unique.cpp, SummaryOps.cpp,
Histogram.cpp, TensorCompare.cpp). torch.unique / torch.unique_consecutive, Python functions in
torch/functional.py, are `unique` / `unique_consecutive` here. Data is reached only through the
backend's methods of the same names.
"""
from __future__ import annotations

import math
from typing import Any

from .. import dtypes as _dt
from ..geometry import contiguous_strides, shape_str, wrap_dim
from ..promotion import result_type
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, not_implemented
from ..structured.meta import MetaBase, allocate, check_same_device, copy_into, resize_output
from ..tensor import Tensor
from .registry import declare, op
from .sorting import _backend_of
from .structured import structured


def _as(t: Tensor, dtype: _dt.dtype) -> Tensor:
    """t in `dtype` (t itself when it already is)."""
    if t.dtype is dtype:
        return t
    tmp = allocate(t._size, None, dtype, t._device)
    copy_into(tmp, t)
    return tmp


def _scalar_tensor(value: Any, device: Any) -> Tensor:
    """scalar_to_tensor: a 0-dim tensor of the scalar's own type (int64, float64, bool)."""
    return op("scalar_tensor")(value, dtype=_dt.bool if isinstance(value, bool) else _dt.int64
                               if isinstance(value, int) else _dt.float64, device=device)


# ---- isin ---------------------------------------------------------------------------------------
def _check_isin_dtype(dtype: _dt.dtype) -> None:
    if dtype is _dt.bool or dtype.is_complex:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {SCALAR_TYPE_NAME[dtype]}")


def _scalar_type(value: Any) -> _dt.dtype:
    """Scalar::type(): a Python bool is Bool, an int Long, a float Double, a complex ComplexDouble."""
    return (_dt.bool if isinstance(value, bool) else _dt.int64 if isinstance(value, int) else
            _dt.complex128 if isinstance(value, complex) else _dt.float64)


def _isin_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    elements = tensors[0]
    test = tensors[1] if len(tensors) > 1 else None
    _check_isin_dtype(elements.dtype)
    if test is not None:
        _check_isin_dtype(test.dtype)
    else:  # isin.Tensor_Scalar: the scalar's own type is checked too
        _check_isin_dtype(_scalar_type(extras["test_element"]))
    ctx.set_output_raw_strided(0, elements._size, None, _dt.bool, elements._device)


def _isin_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    elements, test = tensors
    common = result_type(elements, test)
    backend.isin(_as(elements, common), _as(test, common), extras["assume_unique"], extras["invert"], ctx.output(0))


isin = structured(
    "isin.Tensor_Tensor_out(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False, "
    "Tensor(a!) out) -> Tensor(a!)",
    functional="isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
               "bool invert=False) -> Tensor",
    variants="function", meta=_isin_meta, impl=_isin_impl)


def _isin_tensor_scalar_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    # isin_Tensor_Scalar_out: elements == test_element (invert: !=), with the scalar's promotion
    (elements,) = tensors
    test = _scalar_tensor(extras["test_element"], elements._device)
    common = result_type(elements, extras["test_element"])
    backend.isin(_as(elements, common), _as(test, common), False, extras["invert"], ctx.output(0))


isin_ts = structured(
    "isin.Tensor_Scalar_out(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False, "
    "Tensor(a!) out) -> Tensor(a!)",
    functional="isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
               "bool invert=False) -> Tensor",
    variants="function", meta=_isin_meta, impl=_isin_tensor_scalar_impl)


def _isin_st_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    (test,) = tensors
    _check_isin_dtype(_scalar_type(extras["element"]))
    _check_isin_dtype(test.dtype)
    ctx.set_output_raw_strided(0, (), None, _dt.bool, test._device)


def _isin_st_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    (test,) = tensors
    element = _scalar_tensor(extras["element"], test._device)
    common = result_type(element, test)
    backend.isin(_as(element, common), _as(test, common), False, extras["invert"], ctx.output(0))


isin_st = structured(
    "isin.Scalar_Tensor_out(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False, "
    "Tensor(a!) out) -> Tensor(a!)",
    functional="isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
               "bool invert=False) -> Tensor",
    variants="function", meta=_isin_st_meta, impl=_isin_st_impl)


# ---- searchsorted, bucketize --------------------------------------------------------------------
def _pre_check(boundaries: Tensor, input: Tensor, output: Tensor | None, out_int32: bool, right: bool,
               side: str | None, sorter: Tensor | None) -> None:
    """searchsorted_pre_check, in PyTorch's order."""
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left while "
                           "right was True")
    if sorter is not None:
        if sorter._size != boundaries._size:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {shape_str(boundaries._size)}and got sorter tensor {shape_str(sorter._size)}")
        if sorter.dtype is not _dt.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{SCALAR_TYPE_NAME[sorter.dtype]}")
        if sorter.numel() and sorter._device.type != "meta":
            lo, hi = (int(v.item()) for v in op("aminmax")(sorter))
            if lo < 0 or hi >= sorter._size[-1]:
                raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if not (input.dim() > 0 or (input.numel() == 1 and boundaries.dim() == 1)):
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({boundaries.dim()}) and input value's "
                           f"dim({input.dim()}) numel({input.numel()})")
    if boundaries.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if boundaries.dim() != 1 and (boundaries.dim() != input.dim() or boundaries._size[:-1] != input._size[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{shape_str(boundaries._size)} and input value tensor {shape_str(input._size)}")
    if output is not None and not ((output.dtype is _dt.int64 and not out_int32)
                                   or (output.dtype is _dt.int32 and out_int32)):
        raise RuntimeError(f"torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           f"Long(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype "
                           f"{SCALAR_TYPE_NAME[output.dtype]} and out_int32 flag is {out_int32}")


def _searchsorted(boundaries: Tensor, self: Tensor, out_int32: bool, right: bool, side: str | None,
                  sorter: Tensor | None, out: Tensor | None) -> Tensor:
    _pre_check(boundaries, self, out, out_int32, right, side, sorter)
    if out is None:
        out = allocate(self._size, None, _dt.int32 if out_int32 else _dt.int64, self._device)
    else:
        resize_output(out, self._size)
    if self.numel() == 0 or self._device.type == "meta":
        return out
    common = result_type(boundaries, self)
    if common is _dt.bool or common.is_complex:
        raise not_implemented("searchsorted_out_cpu", common)
    is_right = side == "right" if side is not None else right
    _backend_of(self).searchsorted(_as(boundaries, common), _as(self, common), is_right, sorter, out)
    return out


_ss = declare("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, "
              "str? side=None, Tensor? sorter=None) -> Tensor")
_ss_out = declare("searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
                  "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)")
_ss_s = declare("searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, "
                "str? side=None, Tensor? sorter=None) -> Tensor")
_ss_s_out = declare("searchsorted.Scalar_out(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
                    "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)")


@_ss.impl_backends
def searchsorted(sorted_sequence: Tensor, self: Tensor, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    check_same_device((sorted_sequence, self, sorter))  # the dispatcher's check
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, None)


@_ss_out.impl_backends
def searchsorted_out(sorted_sequence: Tensor, self: Tensor, *, out_int32: bool = False, right: bool = False,
                     side: str | None = None, sorter: Tensor | None = None, out: Tensor) -> Tensor:
    check_same_device((out, sorted_sequence, self, sorter))  # the dispatcher's check, out= first
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, out)


@_ss_s.impl_backends
def searchsorted_scalar(sorted_sequence: Tensor, self: Any, *, out_int32: bool = False, right: bool = False,
                        side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    check_same_device((sorted_sequence, sorter))  # the dispatcher's check
    return _searchsorted(sorted_sequence, _scalar_tensor(self, sorted_sequence._device), out_int32, right, side,
                         sorter, None)


@_ss_s_out.impl_backends
def searchsorted_scalar_out(sorted_sequence: Tensor, self: Any, *, out_int32: bool = False, right: bool = False,
                            side: str | None = None, sorter: Tensor | None = None, out: Tensor) -> Tensor:
    check_same_device((out, sorted_sequence, sorter))  # the dispatcher's check, out= first
    return _searchsorted(sorted_sequence, _scalar_tensor(self, sorted_sequence._device), out_int32, right, side,
                         sorter, out)


def _bucketize(self: Tensor, boundaries: Tensor, out_int32: bool, right: bool, out: Tensor | None,
               operands: tuple = ()) -> Tensor:
    check_same_device(operands)  # the dispatcher's check, in the schema's order (out= first)
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return _searchsorted(boundaries, self, out_int32, right, None, None, out)


_bk = declare("bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor")
_bk_out = declare("bucketize.Tensor_out(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False, "
                  "Tensor(a!) out) -> Tensor(a!)")
_bk_s = declare("bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor")
_bk_s_out = declare("bucketize.Scalar_out(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False, "
                    "Tensor(a!) out) -> Tensor(a!)")
_bk.impl_backends(lambda self, boundaries, *, out_int32=False, right=False:
                  _bucketize(self, boundaries, out_int32, right, None, (self, boundaries)))
_bk_out.impl_backends(lambda self, boundaries, *, out_int32=False, right=False, out:
                      _bucketize(self, boundaries, out_int32, right, out, (out, self, boundaries)))
_bk_s.impl_backends(lambda self, boundaries, *, out_int32=False, right=False:
                    _bucketize(_scalar_tensor(self, boundaries._device), boundaries, out_int32, right, None))
_bk_s_out.impl_backends(lambda self, boundaries, *, out_int32=False, right=False, out:
                        _bucketize(_scalar_tensor(self, boundaries._device), boundaries, out_int32, right, out))


# ---- bincount, histc ----------------------------------------------------------------------------
_bincount_decl = declare("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
                         variants="function, method")


@_bincount_decl.impl_backends
def bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """_bincount_cpu: int64 counts, or sums of the weights (float32 weights: float32, else float64)."""
    check_same_device((self, weights))  # the dispatcher's check
    if self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is _dt.bool:
        raise not_implemented("bincount_cpu", self.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.dim() == 1 and self.numel() == 0:
        return op("zeros")([minlength], dtype=_dt.int64, device=self._device)
    meta = self._device.type == "meta"
    if self.dim() != 1 or (not meta and int(op("min")(self).item()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights._size[0] != self._size[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if meta:
        raise NotImplementedError("bincount: the output's size depends on the data, which meta tensors do not have")
    nbins = max(int(op("max")(self).item()) + 1, minlength)
    dtype = _dt.int64 if weights is None else _dt.float32 if weights.dtype is _dt.float32 else _dt.float64
    out = allocate((nbins,), None, dtype, self._device)
    _backend_of(self).bincount(self, None if weights is None else _as(weights, dtype), out)
    return out


def _fmt(v: float) -> str:
    """A double as C++'s ostream prints it (%g)."""
    return "-nan" if math.isnan(v) else f"{v:g}"


def _histc(self: Tensor, bins: int, min: Any, max: Any, out: Tensor | None) -> Tensor:
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError(f"torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                           f"{TYPE_META_NAME[self.dtype]} and hist {TYPE_META_NAME[out.dtype]}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if out is None:
        out = allocate((bins,), None, self.dtype, self._device)
    else:  # histogramdd_prepare_out: at::native::resize_output, so torch's deprecation warning
        resize_output(out, (bins,))
    if self._device.type == "meta":
        return out
    lo, hi = float(min), float(max)
    if lo == hi and self.numel() > 0:
        lo, hi = (float(v.item()) for v in op("aminmax")(self))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if math.isinf(lo) or math.isinf(hi) or math.isnan(lo) or math.isnan(hi):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not self.dtype.is_floating_point:  # a bool input fails earlier, at the bin edges' linspace
        raise not_implemented("linspace_cpu" if self.dtype is _dt.bool else "histogram_cpu", self.dtype)
    _backend_of(self).histc(self, lo, hi, out)
    return out


_histc_decl = declare("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
                      variants="function, method")
_histc_out = declare("histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, Tensor(a!) out) "
                     "-> Tensor(a!)")
_histc_decl.impl_backends(lambda self, bins=100, min=0, max=0: _histc(self, bins, min, max, None))
_histc_out.impl_backends(lambda self, bins=100, min=0, max=0, *, out: _histc(self, bins, min, max, out))


# ---- unique -------------------------------------------------------------------------------------
def _unique_impl(self: Tensor, sorted: bool, return_inverse: bool, return_counts: bool, dim: int | None,
                 consecutive: bool) -> tuple:
    """The three results of _unique2 / unique_dim / unique_consecutive: values, inverse and
    counts (empty when not asked for)."""
    # unique_consecutive runs the flat kernel ("unique") only without dim or with dim 0 of a 1-D tensor
    flat = dim is None or (consecutive and dim == 0 and self.dim() == 1)
    if self.dtype.is_complex:
        raise not_implemented("unique" if flat else "unique_dim", self.dtype)
    dev = self._device
    if dim is not None:
        dim = wrap_dim(dim, self.dim(), wrap_scalar=False)  # self.size(dim): a 0-dim tensor has none
        if self.numel() == 0:
            if self._size[dim] != 0 if self.dim() else True:
                raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                                   "applied")
            if self._size.count(0) > 1:  # _unique_dim_cpu_template's check on the selected empty dim
                raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
            return (allocate(self._size, None, self.dtype, dev), allocate((0,), None, _dt.int64, dev),
                    allocate((0,), None, _dt.int64, dev))
    if dev.type == "meta":
        raise NotImplementedError("unique: the output's size depends on the data, which meta tensors do not have")
    outs = [None, allocate((0,), None, _dt.int64, dev), allocate((0,), None, _dt.int64, dev)]

    def alloc(i: int, shape: tuple) -> Tensor:
        shape = tuple(shape)
        stride = None
        if i == 0 and dim is not None and not flat:  # unique_dim: the slices' rows, then moveaxis(0, dim)
            moved = contiguous_strides((shape[dim],) + shape[:dim] + shape[dim + 1:])
            stride = moved[1:dim + 1] + (moved[0],) + moved[dim + 1:]
        t = outs[i] = allocate(shape, stride, self.dtype if i == 0 else _dt.int64, dev)
        return t

    _backend_of(self).unique(self, sorted, return_inverse, return_counts, dim, consecutive, alloc)
    return tuple(outs)


_unique2 = declare("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) "
                   "-> (Tensor, Tensor, Tensor)")
_unique2.impl_backends(lambda self, sorted=True, return_inverse=False, return_counts=False:
                       _unique_impl(self, sorted, return_inverse, return_counts, None, False))
_unique1 = declare("_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)")
_unique1.impl_backends(lambda self, sorted=True, return_inverse=False:
                       _unique_impl(self, sorted, return_inverse, False, None, False)[:2])
_unique_dim = declare("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
                      "bool return_counts=False) -> (Tensor, Tensor, Tensor)")
_unique_dim.impl_backends(lambda self, dim, sorted=True, return_inverse=False, return_counts=False:
                          _unique_impl(self, sorted, return_inverse, return_counts, dim, False))
_unique_cons = declare("unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
                       "int? dim=None) -> (Tensor, Tensor, Tensor)")
_unique_cons.impl_backends(lambda self, return_inverse=False, return_counts=False, dim=None:
                           _unique_impl(self, True, return_inverse, return_counts, dim, True))
_unique_dim_cons = declare("unique_dim_consecutive(Tensor self, int dim, bool return_inverse=False, "
                           "bool return_counts=False) -> (Tensor, Tensor, Tensor)")
_unique_dim_cons.impl_backends(lambda self, dim, return_inverse=False, return_counts=False:
                               _unique_impl(self, True, return_inverse, return_counts, dim, True))


def _pick(results: tuple, return_inverse: bool, return_counts: bool) -> Any:
    output, inverse, counts = results
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """torch.unique (torch/functional.py): the unique elements (or slices along `dim`), sorted,
    with the inverse indices and the counts when asked for."""
    if dim is not None:
        r = _unique_dim.op(input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    else:
        r = _unique2.op(input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    return _pick(r, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """torch.unique_consecutive (torch/functional.py): one element of each run of equal ones."""
    r = _unique_cons.op(input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    return _pick(r, return_inverse, return_counts)


# ---- Tensor.__contains__ (torch/_tensor.py) ---------------------------------------------------------
def _contains(self: Tensor, element: Any) -> bool:
    import numbers

    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any().item())  # type: ignore[union-attr]  # a Tensor (reflected __eq__)
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


Tensor.__contains__ = _contains  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
Tensor.unique = unique  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
Tensor.unique_consecutive = unique_consecutive  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
