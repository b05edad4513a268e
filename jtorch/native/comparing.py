"""Comparing whole tensors: isclose, allclose, equal (TensorCompare.cpp, ReduceOps.cpp).

PyTorch implements all three as composites, and so does jtorch: isclose is
CompositeImplicitAutograd (eq, isnan, mul, sub, abs, isfinite, le: every loop is the one
generated from those operators' scalar functions, and meta tensors work), allclose is
CompositeExplicitAutograd (`isclose(...).all().item()`), and equal is `cpu_equal`'s rule (same
size, then every element equal after promotion to the common dtype; NaN is never equal), computed
as eq + all. Schemas are PyTorch's, verbatim.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import Tensor
from .factories import wrapped_scalar_tensor
from .registry import declare
from .registry import op as _op

isclose = declare("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                  "-> Tensor", variants="function, method")
allclose = declare("allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                   "-> bool", variants="function, method")
equal = declare("equal(Tensor self, Tensor other) -> bool", variants="function, method")


def _number(x: float) -> Tensor:
    return wrapped_scalar_tensor(float(x))


@isclose.impl("CompositeImplicitAutograd")
def isclose_kernel(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                   equal_nan: bool = False) -> Tensor:
    """at::native::isclose: equal (NaNs equal with equal_nan), or |self - other| finite and within
    atol + |rtol * other|, computed in self's dtype (integers and bools in the default dtype, so
    that an unsigned difference does not wrap)."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{SCALAR_TYPE_NAME[self.dtype]} did not match {SCALAR_TYPE_NAME[other.dtype]}")
    # `not x >= 0` also refuses NaN, as TORCH_CHECK(rtol >= 0) does
    if not rtol >= 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_c_double(rtol)}")
    if not atol >= 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_c_double(atol)}")
    inexact = self.dtype.is_floating_point or self.dtype.is_complex
    close = _op("eq.Tensor")(self, other)
    if equal_nan and inexact:
        both_nan = _op("bitwise_and.Tensor")(_op("isnan")(self), _op("isnan")(other))
        close = _op("bitwise_or.Tensor")(close, both_nan)
    if rtol == 0 and atol == 0:  # the inequality degenerates to equality
        return close
    if not inexact:
        default = _dt.get_default_dtype()
        self, other = (_op("_to_copy")(t, dtype=default) for t in (self, other))
    allowed = _op("add.Tensor")(_op("abs")(_op("mul.Tensor")(other, _number(rtol))), _number(atol))
    actual = _op("abs")(_op("sub.Tensor")(self, other))
    finite_close = _op("bitwise_and.Tensor")(_op("isfinite")(actual), _op("le.Tensor")(actual, allowed))
    return _op("bitwise_or.Tensor")(close, finite_close)


@allclose.impl("CompositeExplicitAutograd")
def allclose_kernel(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                    equal_nan: bool = False) -> bool:
    """at::native::allclose: isclose(...).all().item()."""
    return bool(_op("item")(_op("all")(isclose.op(self, other, rtol, atol, equal_nan))))


@equal.impl_backends
def equal_kernel(self: Tensor, other: Tensor) -> bool:
    """cpu_equal: False for different sizes; else every element equal in the common dtype."""
    if self.is_meta or other.is_meta:
        # torch has no Meta kernel for equal (its answer depends on the data)
        raise NotImplementedError(_NO_META)
    if self._device != other._device:
        raise RuntimeError(f"Cannot compare two tensors on different devices. Got: {self._device} and "
                           f"{other._device}")
    if self._size != other._size:
        return False
    if not self.numel():
        return True
    return bool(_op("item")(_op("all")(_op("eq.Tensor")(self, other))))


_NO_META = ("aten::equal: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
            "kernel registered.")


def _c_double(x: float) -> str:
    """A double as c10's `<<` prints it (%g-like: 6 significant digits, 'nan', 'inf')."""
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"
