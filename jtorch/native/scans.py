"""Scans and row normalisers: cumsum, cumprod, logcumsumexp, cummax, cummin, softmax and
log_softmax (native_functions.yaml's schemas; kernels from jtorch/structured/scan.py and the
scalar pieces in jtorch/kernels/scalar_scan.py).

cumsum, cumprod, _softmax and _log_softmax are structured in PyTorch too. cummax, cummin and
logcumsumexp are CompositeExplicitAutograd there (out= checks, resize, then a helper kernel);
here they are structured families whose meta functions make the same checks in the same order.
softmax.int and log_softmax.int are CompositeImplicitAutograd over _softmax / _log_softmax (dtype=
converts the input first); their .int_out overloads call the structured out= kernels.
_softmax_backward_data and _log_softmax_backward_data (the gradients) run the backend's
`softmax_backward` stub along the last dim, moving `dim` there when it is another.
"""
from __future__ import annotations

from typing import Any

from ..backends import backend
from ..geometry import shape_str, wrap_dim
from ..kernels import scalar_scan as pieces
from ..structured import scan as sc
from ..structured.meta import allocate
from ..tensor import Tensor
from .registry import declare
from .structured import structured

cumsum = structured(
    "cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    functional="cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    inplace="cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    meta=sc.cum_meta, impl=sc.cum_impl(pieces.CUMSUM))

cumprod = structured(
    "cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    functional="cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    inplace="cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    meta=sc.cum_meta, impl=sc.cum_impl(pieces.CUMPROD))

logcumsumexp = structured(
    "logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)",
    functional="logcumsumexp(Tensor self, int dim) -> Tensor",
    meta=sc.logcumsumexp_meta, impl=sc.logcumsumexp_impl(pieces.LOGCUMSUMEXP))

cummax = structured(
    "cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
    "-> (Tensor(a!) values, Tensor(b!) indices)",
    functional="cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    meta=sc.cummaxmin_meta("cummax"), impl=sc.cummaxmin_impl(pieces.CUMMAX))

cummin = structured(
    "cummin.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
    "-> (Tensor(a!) values, Tensor(b!) indices)",
    functional="cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    meta=sc.cummaxmin_meta("cummin"), impl=sc.cummaxmin_impl(pieces.CUMMIN))

_softmax = structured(
    "_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    functional="_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", variants="function",
    meta=sc.softmax_meta, impl=sc.softmax_impl(pieces.SOFTMAX))

_log_softmax = structured(
    "_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    functional="_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", variants="function",
    meta=sc.softmax_meta, impl=sc.softmax_impl(pieces.LOG_SOFTMAX))

softmax_int = declare("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
                      variants="function, method")
softmax_int_out = declare("softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
                          "-> Tensor(a!)")
log_softmax_int = declare("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
                          variants="function, method")
log_softmax_int_out = declare("log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                              "Tensor(a!) out) -> Tensor(a!)")


def _converted(self: Tensor, dtype: Any) -> Tensor:
    return self if dtype is None else self.to(dtype)


@softmax_int.impl("CompositeImplicitAutograd")
def softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _softmax.functional.op(_converted(self, dtype), dim, False)


@softmax_int_out.impl("CompositeExplicitAutograd")
def softmax_out(self: Tensor, dim: int, dtype: Any = None, *, out: Tensor) -> Tensor:
    return _softmax.out.op(_converted(self, dtype), dim, False, out=out)


@log_softmax_int.impl("CompositeImplicitAutograd")
def log_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _log_softmax.functional.op(_converted(self, dtype), dim, False)


@log_softmax_int_out.impl("CompositeExplicitAutograd")
def log_softmax_out(self: Tensor, dim: int, dtype: Any = None, *, out: Tensor) -> Tensor:
    return _log_softmax.out.op(_converted(self, dtype), dim, False, out=out)


# ---- the softmax gradients (torch's structured _softmax_backward_data / _log_softmax_backward_data) ----
def _softmax_backward(log: bool) -> Any:
    def kernel(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
        dim = wrap_dim(dim, output.dim())
        if grad_output._size != output._size:
            raise RuntimeError(f"grad_output and output must have the same shape, got {shape_str(grad_output._size)} "
                               f"and {shape_str(output._size)}")
        result = allocate(output._size, None, input_dtype, output._device)
        if output._device.type == "meta" or not result.numel():
            return result
        last = dim == output.dim() - 1 or output.dim() == 0
        g, o = grad_output.to(output.dtype), output
        if not last:  # rows along `dim`: move it last (copies), and the result back
            g, o = g.movedim(dim, -1), o.movedim(dim, -1)
        g = g if g.is_contiguous() else g.contiguous()
        o = o if o.is_contiguous() else o.contiguous()
        r = result if last and input_dtype is output.dtype else allocate(o._size, None, output.dtype, output._device)
        n = output._size[dim] if output.dim() else 1
        backend(output._device.type).softmax_backward(log, g, o, r, n)
        if r is not result:
            result.copy_(r if last else r.movedim(-1, dim))
        return result
    return kernel


declare("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
        variants="function").impl_backends(_softmax_backward(False))
declare("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
        variants="function").impl_backends(_softmax_backward(True))
