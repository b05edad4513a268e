"""Unary elementwise operators: each family is its schemas, its TensorIterator configuration and
its scalar function (jtorch/kernels/scalar_unary.py).

The TensorIterator flavour decides the result dtype, as in PyTorch:
  UNARY_FLOAT_OP       exp, sin, sqrt, sigmoid, ... : integer and bool inputs compute in the
                       default float dtype; out= must be a safe cast of it.
  UNARY_OP             neg, floor, sign, bitwise_not, gelu, ... : the input's dtype; out= must
                       have it ("Found dtype Long but expected Float").
  UNARY_FORCE_BOOL_OP  logical_not, isnan, ... : bool results (logical_not's out= and in-place
                       variants write 0/1 in the output's own dtype).

abs keeps its complex-to-float result (unary_op_impl_with_complex_to_float): its `prepare`
picks the build from the input. Operators that PyTorch does not build as TensorIterator
families and that have no out= overload (relu = clamp_min(self, 0), isnan = self != self, isinf,
isfinite) and nan_to_num (defaults that depend on the dtype) keep PyTorch's schemas and Python
API; their kernels run the same TensorIterator build and loops by hand (`_iterate`).

Checks PyTorch makes in a meta function (neg of bool, gelu's `approximate`) are `check`s; those of
the dtype dispatch in its CPU kernels ('"frac_cpu" not implemented for 'Long'') are
`dispatch_check`s, which meta tensors skip, as in PyTorch.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import backend
from ..kernels import scalar_unary as s
from ..promotion import can_cast
from ..scalar import not_implemented
from ..structured.elementwise import contiguous_runner
from ..structured.fast_path import FAST_DTYPES, FAST_PATHS
from ..structured.tensor_iterator import (
    FUNCTIONAL,
    INPLACE,
    OUT,
    SCALAR_TYPE_NAME,
    UNARY_FLOAT_OP,
    UNARY_FORCE_BOOL_OP,
    UNARY_OP,
    TensorIterator,
    TensorIteratorConfig,
    _contiguous,
)
from ..tensor import Tensor, new_storage
from .binary import _alias
from .elementwise import elementwise
from .registry import NativeFunction, by_name, composite_implicit_autograd, declare
from .structured import StructuredFamily
from .unsigned_support import refusal, refuses_inside


# ---- checks (PyTorch's texts) -----------------------------------------------------------------
def _floating_only(kernel: str, complex_ok: bool = False) -> Callable[[_dt.dtype, dict], None]:
    def check(dtype: _dt.dtype, extras: dict) -> None:
        if not (dtype.is_floating_point or (complex_ok and dtype.is_complex)):
            raise not_implemented(kernel, dtype)

    return check


def _no_complex(kernel: str) -> Callable[[_dt.dtype, dict], None]:
    def check(dtype: _dt.dtype, extras: dict) -> None:
        if dtype.is_complex:
            raise not_implemented(kernel, dtype)

    return check


def _neg_check(dtype: _dt.dtype, extras: dict) -> None:
    if dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


def _sign_check(dtype: _dt.dtype, extras: dict) -> None:
    if dtype.is_complex:
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                  "Please use torch.sgn instead.")


def _rounding_check(name: str) -> Callable[[_dt.dtype, dict], None]:
    """floor / ceil / trunc: integers are copied, bool has no kernel, complex is refused."""
    def check(dtype: _dt.dtype, extras: dict) -> None:
        if dtype is _dt.bool:
            raise not_implemented(f"{name}_vml_cpu", dtype)
        if dtype.is_complex:
            raise NotImplementedError(f"{name} is not supported for complex inputs")

    return check


def _round_check(dtype: _dt.dtype, extras: dict) -> None:
    if dtype is _dt.bool or dtype.is_complex:
        raise not_implemented("round_vml_cpu", dtype)


def _round_decimals_check(dtype: _dt.dtype, extras: dict) -> None:
    # round.decimals has no integer shortcut: decimals=0 runs round's kernel, others round_decimals'
    if not dtype.is_floating_point:
        raise not_implemented("round_cpu" if extras["decimals"] != 0 else "round_vml_cpu", dtype)


def _bitwise_not_check(dtype: _dt.dtype, extras: dict) -> None:
    if dtype.is_floating_point or dtype.is_complex:
        raise not_implemented("bitwise_not_cpu", dtype)


def _gelu_check(dtype: _dt.dtype, extras: dict) -> None:
    if extras["approximate"] not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


# ---- selections by a non-numeric argument -----------------------------------------------------
_GELU = {"none": (s.gelu, ()), "tanh": (s.gelu_tanh, ())}


def _gelu_select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
    return _GELU[extras["approximate"]]


def _logit_select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
    eps = extras["eps"]
    # eps=None means -1 in torch; any eps < 0 (or NaN) leaves the input unclamped
    if eps is None or not eps >= 0:
        return s.logit, ()
    return s.logit_eps, ("eps",)


def _round_decimals_select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
    d = extras["decimals"]
    if d == 0:
        return s.round, ()
    return (s.round_decimals if d > 0 else s.round_decimals_neg), ("decimals",)


# ---- declarations -----------------------------------------------------------------------------
def unary(name: str, config: TensorIteratorConfig | Callable[[dict], TensorIteratorConfig],
          scalar: Callable | None = None, *, inplace_variants: str = "function, method", **kw: Any) -> StructuredFamily:
    """The three overloads of a plain unary operator, `name`, `name_` and `name.out`, verbatim
    from native_functions.yaml."""
    fam = elementwise(f"{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                      functional=f"{name}(Tensor self) -> Tensor",
                      inplace=f"{name}_(Tensor(a!) self) -> Tensor(a!)",
                      config=config, scalar=scalar, inplace_variants=inplace_variants, **kw)
    return fam


# abs: complex inputs give their real dtype (unary_op_impl_with_complex_to_float); torch builds it
# by hand, here it is a family whose build depends on the input (prepare picks the config).
_TO_REAL = {d: TensorIteratorConfig(check_all_same_dtype=False, static_dtype=d.to_real())
            for d in (_dt.complex64, _dt.complex128)}


def _abs_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    self = tensors[0]
    if self.dtype.is_complex:
        if mode == INPLACE:
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        if mode == FUNCTIONAL or not provided.dtype.is_complex:  # type: ignore[union-attr]  # OUT mode: provided
            real = self.dtype.to_real()
            if mode == OUT and not can_cast(real, provided.dtype):  # type: ignore[union-attr]  # OUT mode: provided
                raise RuntimeError(f"result type {SCALAR_TYPE_NAME[real]} can't be cast to the desired output "
                                   f"type {SCALAR_TYPE_NAME[provided.dtype]}")  # type: ignore[union-attr]  # OUT
            extras["config"] = _TO_REAL[self.dtype]
    return tensors


def _abs_check(dtype: _dt.dtype, extras: dict) -> None:
    if dtype is _dt.bool:
        raise not_implemented("abs_cpu", dtype)


abs = unary("abs", lambda extras: extras.get("config", UNARY_OP), s.absolute,
            prepare=_abs_prepare, dispatch_check=_abs_check, dunder="__abs__")


# UNARY_OP: the result keeps the input's dtype
neg = unary("neg", UNARY_OP, s.neg, check=_neg_check, dunder="__neg__")
sign = unary("sign", UNARY_OP, s.sign, dispatch_check=_sign_check, inplace_variants="method")
floor = unary("floor", UNARY_OP, s.floor, dispatch_check=_rounding_check("floor"))
ceil = unary("ceil", UNARY_OP, s.ceil, dispatch_check=_rounding_check("ceil"))
trunc = unary("trunc", UNARY_OP, s.trunc, dispatch_check=_rounding_check("trunc"))
round = unary("round", UNARY_OP, s.round, dispatch_check=_round_check)
round_decimals = elementwise(
    "round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> Tensor(a!)",
    functional="round.decimals(Tensor self, *, int decimals) -> Tensor",
    inplace="round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)",
    config=UNARY_OP, select=_round_decimals_select, dispatch_check=_round_decimals_check,
    inplace_variants="function, method")
frac = unary("frac", UNARY_OP, s.frac, dispatch_check=_floating_only("frac_cpu"))
bitwise_not = unary("bitwise_not", UNARY_OP, s.bitwise_not, dispatch_check=_bitwise_not_check,
                    inplace_variants="method", dunder="__invert__")
# gelu and silu live in torch._C._nn (torch.nn.functional); jtorch has no python_module yet, so
# they are bound as jtorch.gelu / jtorch.silu functions (not methods, like torch).
gelu = elementwise("gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)",
                   functional="gelu(Tensor self, *, str approximate='none') -> Tensor",
                   inplace="gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)",
                   config=UNARY_OP, select=_gelu_select, check=_gelu_check,
                   dispatch_check=_floating_only("GeluKernelImpl"), variants="function", inplace_variants="function")
silu = unary("silu", UNARY_OP, s.silu, dispatch_check=_floating_only("silu_cpu", complex_ok=True),
             inplace_variants="function", variants="function")

# UNARY_FLOAT_OP: integer and bool inputs give the default float dtype
reciprocal = unary("reciprocal", UNARY_FLOAT_OP, s.reciprocal)
sqrt = unary("sqrt", UNARY_FLOAT_OP, s.sqrt)
rsqrt = unary("rsqrt", UNARY_FLOAT_OP, s.rsqrt)
exp = unary("exp", UNARY_FLOAT_OP, s.exp)
exp2 = unary("exp2", UNARY_FLOAT_OP, s.exp2)
expm1 = unary("expm1", UNARY_FLOAT_OP, s.expm1)
log = unary("log", UNARY_FLOAT_OP, s.log)
log2 = unary("log2", UNARY_FLOAT_OP, s.log2)
log10 = unary("log10", UNARY_FLOAT_OP, s.log10)
log1p = unary("log1p", UNARY_FLOAT_OP, s.log1p)
sin = unary("sin", UNARY_FLOAT_OP, s.sin)
cos = unary("cos", UNARY_FLOAT_OP, s.cos)
tan = unary("tan", UNARY_FLOAT_OP, s.tan)
asin = unary("asin", UNARY_FLOAT_OP, s.asin)
acos = unary("acos", UNARY_FLOAT_OP, s.acos)
atan = unary("atan", UNARY_FLOAT_OP, s.atan)
sinh = unary("sinh", UNARY_FLOAT_OP, s.sinh)
cosh = unary("cosh", UNARY_FLOAT_OP, s.cosh)
tanh = unary("tanh", UNARY_FLOAT_OP, s.tanh)
sigmoid = unary("sigmoid", UNARY_FLOAT_OP, s.sigmoid)
erf = unary("erf", UNARY_FLOAT_OP, s.erf, dispatch_check=_no_complex("erf_vml_cpu"))
logit = elementwise("logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)",
                    functional="logit(Tensor self, float? eps=None) -> Tensor",
                    inplace="logit_(Tensor(a!) self, float? eps=None) -> Tensor(a!)",
                    config=UNARY_FLOAT_OP, select=_logit_select, dispatch_check=_no_complex("logit_cpu"),
                    inplace_variants="function, method")

# UNARY_FORCE_BOOL_OP: bool results; out= and in-place write 0/1 in the output's dtype
logical_not = unary("logical_not", UNARY_FORCE_BOOL_OP, s.logical_not, inplace_variants="method")


# ---- operators PyTorch does not build as structured kernels -----------------------------------
_NARROW = _dt.limited_unsigned | _dt.bits_dtypes  # the dtypes a `refusing` kernel may refuse


def _iterate(mode: int, config: TensorIteratorConfig, self: Tensor, scalar_fn: Callable,
             extra: tuple | Callable[[TensorIterator], tuple] = (), provided: Tensor | None = None,
             check: Callable[[_dt.dtype], None] | None = None, refusing: str | None = None) -> Tensor:
    """Build a TensorIterator over `self` (into `provided` for in-place / out=) and run the loop
    of `scalar_fn` on the tensors' backend; on meta tensors only the output's metadata is made.
    `extra` may be computed from the built iterator (defaults that depend on the dtype);
    `check(common_dtype)` is the kernel's dtype dispatch, skipped on meta tensors as in torch; `refusing` names the
    operator whose kernel refuses uint16..64 and the bits type (jtorch.native.unsigned_support.refusal).
    A contiguous `self` under UNARY_OP (relu) takes TensorIterator's fast set-up: the output is
    self's dtype and layout, and the backend's contiguous runner touches the data."""
    if refusing is not None and self.dtype in _NARROW and self._device.type != "meta":
        e = refusal(refusing, self.dtype, self._device.type)
        if e is not None:
            raise e
    if (FAST_PATHS and config is UNARY_OP and mode != OUT and type(extra) is tuple and self._device.type != "meta"
            and self._stride == _contiguous(self._size)):
        runner = contiguous_runner(self._device.type, scalar_fn, 1, len(extra))
        if runner is not None and self.dtype in FAST_DTYPES:
            if check is not None:
                check(self.dtype)
            out = self if mode == INPLACE else Tensor._make(new_storage(self.numel(), self.dtype, self._device),
                                                            self._size, self._stride, 0, self.dtype, self._device)
            if out.numel():
                runner(out, (self,), self.dtype, extra, out.numel())
            return out
    it = TensorIterator(mode, provided)
    it.build_op(config, provided, self)
    if it.device.type != "meta":
        if check is not None:
            check(it.common_dtype)
        if it.numel():
            args = extra(it) if callable(extra) else extra
            backend(it.device.type).elementwise(it, scalar_fn, args)
            it.finish()
    return it.output(0)


def _impl(nf: NativeFunction) -> Callable[[Callable], Callable]:
    """Register a kernel for Meta and every backend (it reaches data through the backend's stub)."""
    return nf.impl_backends


# relu = clamp_min(self, 0); torch has no relu.out
relu = declare("relu(Tensor self) -> Tensor", variants="function, method")
relu_ = declare("relu_(Tensor(a!) self) -> Tensor(a!)", variants="function, method")


def _relu_check(dtype: _dt.dtype) -> None:
    if dtype is _dt.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    if dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


@_impl(relu)
@refuses_inside
def relu_kernel(self: Tensor) -> Tensor:
    return _iterate(FUNCTIONAL, UNARY_OP, self, s.relu, check=_relu_check, refusing="relu")


@_impl(relu_)
@refuses_inside
def relu__kernel(self: Tensor) -> Tensor:
    return _iterate(INPLACE, UNARY_OP, self, s.relu, provided=self, check=_relu_check, refusing="relu_")


# isnan (self != self), isinf, isfinite: bool results for every dtype, functional only
isnan = declare("isnan(Tensor self) -> Tensor", variants="function, method")
isinf = declare("isinf(Tensor self) -> Tensor", variants="function, method")
isfinite = declare("isfinite(Tensor self) -> Tensor", variants="function, method")


@_impl(isnan)
def isnan_kernel(self: Tensor) -> Tensor:
    return _iterate(FUNCTIONAL, UNARY_FORCE_BOOL_OP, self, s.isnan)


@_impl(isinf)
def isinf_kernel(self: Tensor) -> Tensor:
    return _iterate(FUNCTIONAL, UNARY_FORCE_BOOL_OP, self, s.isinf)


@_impl(isfinite)
def isfinite_kernel(self: Tensor) -> Tensor:
    return _iterate(FUNCTIONAL, UNARY_FORCE_BOOL_OP, self, s.isfinite)


# nan_to_num: the defaults are the largest / lowest finite values of the (real) dtype
nan_to_num = declare("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
                     variants="function, method")
nan_to_num_ = declare("nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) "
                      "-> Tensor(a!)", variants="function, method")
nan_to_num_out = declare("nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, "
                         "Tensor(a!) out) -> Tensor(a!)")


def _nan_to_num_values(nan: float | None, posinf: float | None,
                       neginf: float | None) -> Callable[[TensorIterator], tuple]:
    def values(it: TensorIterator) -> tuple:
        dtype = it.common_dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            return (0, 0, 0)  # integers and bool are copied; the values are unused
        real = dtype.to_real()
        info = _dt.finfo(real)
        compute = it.compute_dtype.to_real().numpy.type
        vals = (0.0 if nan is None else nan, float(info.max) if posinf is None else posinf,
                float(info.min) if neginf is None else neginf)
        with np.errstate(over="ignore"):  # 1e300 for float32 is inf, as a C++ cast makes it
            return tuple(compute(v) for v in vals)

    return values


@_impl(nan_to_num)
def nan_to_num_kernel(self: Tensor, nan: float | None = None, posinf: float | None = None,
                      neginf: float | None = None) -> Tensor:
    return _iterate(FUNCTIONAL, UNARY_OP, self, s.nan_to_num, _nan_to_num_values(nan, posinf, neginf))


@_impl(nan_to_num_)
def nan_to_num__kernel(self: Tensor, nan: float | None = None, posinf: float | None = None,
                       neginf: float | None = None) -> Tensor:
    return _iterate(INPLACE, UNARY_OP, self, s.nan_to_num, _nan_to_num_values(nan, posinf, neginf), provided=self)


@_impl(nan_to_num_out)
def nan_to_num_out_kernel(self: Tensor, nan: float | None = None, posinf: float | None = None,
                          neginf: float | None = None, *, out: Tensor) -> Tensor:
    if self.dtype is not out.dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {SCALAR_TYPE_NAME[out.dtype]} should be same as input: "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")
    return _iterate(OUT, UNARY_OP, self, s.nan_to_num, _nan_to_num_values(nan, posinf, neginf), provided=out)



# ---- inverse hyperbolic functions and the aliases of the trigonometric ones -------------------
asinh = unary("asinh", UNARY_FLOAT_OP, s.asinh)
acosh = unary("acosh", UNARY_FLOAT_OP, s.acosh)
atanh = unary("atanh", UNARY_FLOAT_OP, s.atanh)


# aliases: CompositeImplicitAutograd kernels calling the aliased operator (binary.py's helper)
for _fam, _name in ((acos, "arccos"), (asin, "arcsin"), (atan, "arctan"), (acosh, "arccosh"), (asinh, "arcsinh"),
                    (atanh, "arctanh"), (neg, "negative"), (trunc, "fix")):
    _alias(_fam, _name, inplace_variants="function, method")
_alias(abs, "absolute")  # absolute_ is a method only, as in torch

# sgn: z / |z| for complex, sign for real (sgn_ is a method only)
sgn = unary("sgn", UNARY_OP, s.sgn, inplace_variants="method")


# ---- sign bit and infinities: bool results, functional and out= only ---------------------------
def _bool_out_only(name: str, complex_ok: bool = False) -> Callable[[list, dict, int, Any], list]:
    """isposinf / isneginf's meta: no complex inputs, and out= must be bool. signbit refuses complex
    inputs in its kernel (so not on meta tensors), before it looks at out=."""
    def prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
        self = tensors[0]
        if self.dtype.is_complex:
            if not complex_ok:
                raise RuntimeError(f"{name} does not support complex inputs.")
            if self._device.type != "meta":
                _signbit_dispatch(self.dtype, extras)
        if mode == OUT and provided.dtype is not _dt.bool:  # type: ignore[union-attr]  # OUT mode: provided
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
        return tensors

    return prepare


def _signbit_dispatch(dtype: _dt.dtype, extras: dict) -> None:
    if dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")


signbit = elementwise("signbit.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                      functional="signbit(Tensor self) -> Tensor", config=UNARY_FORCE_BOOL_OP, scalar=s.signbit,
                      prepare=_bool_out_only("signbit", complex_ok=True), dispatch_check=_signbit_dispatch)
isposinf = elementwise("isposinf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                       functional="isposinf(Tensor self) -> Tensor", config=UNARY_FORCE_BOOL_OP, scalar=s.isposinf,
                       prepare=_bool_out_only("isposinf"))
isneginf = elementwise("isneginf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                       functional="isneginf(Tensor self) -> Tensor", config=UNARY_FORCE_BOOL_OP, scalar=s.isneginf,
                       prepare=_bool_out_only("isneginf"))


# ---- deg2rad / rad2deg: x * (pi / 180) with integers computed in the default float dtype -------
def _angle_conversion(name: str) -> Callable[[list, dict, int, Any], list]:
    def prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
        if tensors[0].dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return tensors

    return prepare


deg2rad = unary("deg2rad", UNARY_FLOAT_OP, s.deg2rad, prepare=_angle_conversion("deg2rad"))
rad2deg = unary("rad2deg", UNARY_FLOAT_OP, s.rad2deg, prepare=_angle_conversion("rad2deg"))


# ---- angle: arg(z), a real result for complex inputs; 0 or pi (NaN kept) for real ones ---------
_ANGLE_TO_REAL = {d: TensorIteratorConfig(check_all_same_dtype=False, static_dtype=d.to_real())
                  for d in (_dt.complex64, _dt.complex128)}


def _angle_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """unary_op_impl_with_complex_to_float(_out) with integers promoted to float."""
    self = tensors[0]
    if self.dtype.is_complex and (mode == FUNCTIONAL or not provided.dtype.is_complex):  # type: ignore[union-attr]
        real = self.dtype.to_real()
        if mode == OUT and not can_cast(real, provided.dtype):  # type: ignore[union-attr]  # OUT mode: provided
            raise RuntimeError(f"result type {SCALAR_TYPE_NAME[real]} can't be cast to the desired output "
                               f"type {SCALAR_TYPE_NAME[provided.dtype]}")  # type: ignore[union-attr]  # OUT
        extras["config"] = _ANGLE_TO_REAL[self.dtype]
    return tensors


angle = elementwise("angle.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                    functional="angle(Tensor self) -> Tensor",
                    config=lambda extras: extras.get("config", UNARY_FLOAT_OP), scalar=s.angle,
                    prepare=_angle_prepare)


# ---- compositions (CompositeImplicitAutograd, as torch's) --------------------------------------
@declare("positive(Tensor(a) self) -> Tensor(a)", variants="function, method", dunder="__pos__").impl(
    "CompositeImplicitAutograd")
def positive(self: Tensor) -> Tensor:
    if self.dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


@composite_implicit_autograd("square(Tensor self) -> Tensor", variants="function, method")
def square(self: Tensor) -> Tensor:
    return by_name["pow.Tensor_Scalar"].op(self, 2)


@composite_implicit_autograd("square_(Tensor(a!) self) -> Tensor(a!)", variants="function, method")
def square_(self: Tensor) -> Tensor:
    return by_name["pow_.Scalar"].op(self, 2)


@composite_implicit_autograd("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
def square_out(self: Tensor, *, out: Tensor) -> Tensor:
    return by_name["pow.Tensor_Scalar_out"].op(self, 2, out=out)


@composite_implicit_autograd("isreal(Tensor self) -> Tensor", variants="function, method")
def isreal(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        return by_name["ones_like"].op(self, dtype=_dt.bool)
    return by_name["imag"].op(self) == 0
