"""Binary, ternary and comparison elementwise operators: each family is its schemas, its
TensorIterator configuration and its scalar function (jtorch/kernels/scalar_binary.py).

Schemas are PyTorch's, verbatim. Python numbers reach Tensor arguments after `self` as wrapped
numbers (0-dim tensors that type promotion treats as Python scalars) where PyTorch's binding does
so (add, sub, mul, div, floor_divide); their Scalar overloads have no binding and serve the
composites (AddBackward1, as a C++ `t + 2` records). Operators whose PyTorch binding takes no
numbers for a Tensor argument (rsub, remainder, fmod, atan2, maximum, logical_and, ...) take a
number through their Scalar overload where torch has one, and refuse it otherwise.

Reflected operators call what torch/_tensor.py calls (registry.reflect_dunder): `2 - t` is
rsub(t, 2), `2 / t` is t.reciprocal() * 2, `2 ** t` pow(2, t), `2 % t` remainder(2, t).

Checks PyTorch makes in a meta function are `prepare` (they see the input tensors) or `check`
(they see the common dtype); the dtype dispatch of PyTorch's CPU kernels ('"bitwise_and_cpu" not
implemented for 'Float'') is `dispatch_check`, which skips meta tensors as PyTorch does.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backends import by_device_type
from ..device import CPU
from ..kernels import scalar_binary as s
from ..promotion import result_type, result_type_many
from ..scalar import (
    TYPE_META_NAME,
    DoubleScalar,
    as_scalar,
    checked_scalar,
    float32_to_bfloat16_bits,
    not_implemented,
)
from ..structured.tensor_iterator import (
    BINARY_FLOAT_OP,
    BINARY_FLOAT_OP_EXACT_SCALARS,
    BINARY_OP,
    BINARY_OP_EXACT_SCALARS,
    COMPARISON_OP,
    OUT,
    SCALAR_TYPE_NAME,
    UNARY_OP,
    TensorIteratorConfig,
    _cast,
)
from ..tensor import Tensor
from ..warn import user_stacklevel
from .elementwise import alpha_check, elementwise
from .factories import wrapped_scalar_tensor
from .registry import NativeFunction, composite_explicit_autograd, declare, reflect_dunder
from .structured import StructuredFamily


# ---- helpers ----------------------------------------------------------------------------------------
def _dispatch(kernel: str, supported: Callable[[_dt.dtype], bool]) -> Callable[[_dt.dtype, dict], None]:
    """The AT_DISPATCH of a CPU kernel: NotImplementedError for a dtype it has no case for."""
    def dispatch_check(dtype: _dt.dtype, extras: dict) -> None:
        if not supported(dtype):
            raise not_implemented(kernel, dtype)

    return dispatch_check


def _not_complex(d: _dt.dtype) -> bool:
    return not d.is_complex


def _not_bool(d: _dt.dtype) -> bool:
    return d is not _dt.bool


def _real_not_bool(d: _dt.dtype) -> bool:
    return d is not _dt.bool and not d.is_complex


def _floating(d: _dt.dtype) -> bool:
    return d.is_floating_point


def _floating_or_complex(d: _dt.dtype) -> bool:
    return d.is_floating_point or d.is_complex


def _integral(d: _dt.dtype) -> bool:
    return not (d.is_floating_point or d.is_complex)


def _to_dtype(t: Tensor, dtype: _dt.dtype) -> Tensor:
    """`t.to(dtype)` for an operand: a CPU scalar is converted on the host, a tensor is copied."""
    if t.dtype is dtype:
        return t
    if not t._size and t._device is CPU:
        v = t._storage.read(t._offset)
        if dtype is _dt.bfloat16:  # through float, stored as its bit pattern
            arr = float32_to_bfloat16_bits(np.array([v], np.float32)).view(dtype.numpy)
        else:
            arr = np.array([as_scalar(dtype.numpy.type, v)], dtype.numpy)
        r = Tensor._make(by_device_type["cpu"].storage_from_numpy(arr), (), (), 0, dtype, CPU)
        r._is_wrapped_number = t._is_wrapped_number
        return r
    return _cast(t, dtype)


def _alias(family: StructuredFamily, name: str, *, inplace_variants: str = "method") -> None:
    """PyTorch's aliases (subtract, multiply, greater, arctan2, clip, ...): the same schemas under
    another name, CompositeImplicitAutograd kernels that call the aliased operator."""
    for nf, variants in ((family.out, "function"), (family.functional, None), (family.inplace, inplace_variants)):
        if nf is None:
            continue
        schema = str(nf.func)
        old = nf.func.name.name
        new_name = name + "_" if old.endswith("_") else name
        schema = new_name + schema[len(old):]
        v = ",".join(sorted(nf.variants)) if variants is None else variants
        alias = declare(schema, variants=v, numbers_as_tensors=nf.allow_numbers_as_tensors)
        alias.impl("CompositeImplicitAutograd")(_call(nf))


def _call(nf: NativeFunction) -> Callable:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return nf.op(*args, **kwargs)

    kernel.__name__ = nf.name.replace(".", "_")
    return kernel


def _binary(name: str, scalar: Callable, config: TensorIteratorConfig = BINARY_OP, *, inplace: bool = True,
            out_overload: str = "out", overload: str = "", inplace_overload: str = "", **kw: Any) -> StructuredFamily:
    """`name.<out_overload>`, `name[.<overload>]` and `name_[.<inplace_overload>]` over (self, other)."""
    f = f"{name}.{overload}" if overload else name
    i = f"{name}_.{inplace_overload}" if inplace_overload else f"{name}_"
    return elementwise(
        f"{name}.{out_overload}(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
        functional=f"{f}(Tensor self, Tensor other) -> Tensor",
        inplace=f"{i}(Tensor(a!) self, Tensor other) -> Tensor(a!)" if inplace else None,
        config=config, scalar=scalar, **kw)


# ---- add, sub, rsub, mul ------------------------------------------------------------------------------
def _sub_check(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """at::native::sub_check."""
    a, b = tensors
    if a.dtype is _dt.bool and b.dtype is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a.dtype is _dt.bool or b.dtype is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return tensors


def _add_alpha_check(dtype: _dt.dtype, extras: dict) -> None:
    """alpha_check; a float16/bfloat16 add reads alpha as its own dtype (the ufunc's alpha.to<scalar_t>())."""
    alpha_check(dtype, extras)
    alpha = extras["alpha"]
    if dtype in _dt.reduced_floats and isinstance(alpha, float):
        extras["alpha"] = float(checked_scalar(dtype, alpha))


add = elementwise("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                  functional="add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                  inplace="add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                  config=BINARY_OP, scalar=s.add, check=_add_alpha_check, dunder="__add__ __radd__",
                  inplace_dunder="__iadd__")
sub = elementwise("sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                  functional="sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                  inplace="sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                  config=BINARY_OP, scalar=s.sub, prepare=_sub_check, check=_add_alpha_check, dunder="__sub__",
                  inplace_dunder="__isub__")
reflect_dunder("__rsub__", "rsub")
_alias(sub, "subtract")


@composite_explicit_autograd("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
def rsub(self: Tensor, other: Tensor, *, alpha: Any = 1) -> Tensor:
    return sub.functional.op(other, self, alpha=alpha)


# `1 - x` calls rsub(x, 1): this overload (RsubBackward1), as torch's Tensor.__rsub__
@composite_explicit_autograd("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor")
def rsub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return sub.functional.op(wrapped_scalar_tensor(other), self, alpha=alpha)


mul = elementwise("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                  functional="mul.Tensor(Tensor self, Tensor other) -> Tensor",
                  inplace="mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
                  config=BINARY_OP_EXACT_SCALARS, scalar=s.mul, dunder="__mul__ __rmul__", inplace_dunder="__imul__")
_alias(mul, "multiply")


# ---- division -----------------------------------------------------------------------------------------
def _div_mode_config(extras: dict) -> TensorIteratorConfig:
    """div.Tensor_mode's meta: true division promotes integers to float, trunc and floor don't."""
    mode = extras["rounding_mode"]
    if mode is None:
        return BINARY_FLOAT_OP_EXACT_SCALARS
    if mode in ("trunc", "floor"):
        return BINARY_OP_EXACT_SCALARS
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


_DIV_MODES = {None: (s.div, ()), "trunc": (s.div_trunc, ()), "floor": (s.div_floor, ())}
_div_trunc_dispatch = _dispatch("div_trunc_cpu", _real_not_bool)
_div_floor_dispatch = _dispatch("div_floor_cpu", _real_not_bool)


def _div_mode_dispatch(dtype: _dt.dtype, extras: dict) -> None:
    mode = extras["rounding_mode"]
    if mode is not None:
        (_div_trunc_dispatch if mode == "trunc" else _div_floor_dispatch)(dtype, extras)


div = _binary("div", s.div, BINARY_FLOAT_OP_EXACT_SCALARS, overload="Tensor", inplace_overload="Tensor",
              dunder="__truediv__ __div__", inplace_dunder="__itruediv__ __idiv__")
div_mode = elementwise(
    "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)",
    functional="div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    inplace="div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
    config=_div_mode_config, select=lambda extras: _DIV_MODES[extras["rounding_mode"]],
    dispatch_check=_div_mode_dispatch)
# add/sub/mul/div.Scalar: no Python binding (torch's binding skips them: a number goes to the Tensor
# overload as a wrapped number); what a composite calls for `t + 2` in C++ (AddBackward1, one edge)
@composite_explicit_autograd("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "")
def add_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return add.functional.op(self, wrapped_scalar_tensor(other), alpha=alpha)


@composite_explicit_autograd("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "")
def sub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return sub.functional.op(self, wrapped_scalar_tensor(other), alpha=alpha)


@composite_explicit_autograd("mul.Scalar(Tensor self, Scalar other) -> Tensor", "")
def mul_scalar(self: Tensor, other: Any) -> Tensor:
    return mul.functional.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("div.Scalar(Tensor self, Scalar other) -> Tensor", "")
def div_scalar(self: Tensor, other: Any) -> Tensor:
    return div.functional.op(self, wrapped_scalar_tensor(other))


reflect_dunder("__rtruediv__", "div")
reflect_dunder("__rdiv__", "div")
_alias(div, "divide")
_alias(div_mode, "divide")
_alias(div, "true_divide")
floor_divide = _binary("floor_divide", s.div_floor, inplace_overload="Tensor",
                       dispatch_check=_div_floor_dispatch, dunder="__floordiv__", inplace_dunder="__ifloordiv__")
reflect_dunder("__rfloordiv__", "floor_divide")
remainder = _binary("remainder", s.remainder, out_overload="Tensor_out", overload="Tensor", inplace_overload="Tensor",
                    dispatch_check=_dispatch("remainder_cpu", _real_not_bool), dunder="__mod__",
                    inplace_dunder="__imod__", numbers_as_tensors=False)
reflect_dunder("__rmod__", "remainder")


# A Python number `other` takes the Scalar overloads (RemainderBackward0, FmodBackward0), as torch's
# binding does: remainder and fmod do not take numbers as tensors
@composite_explicit_autograd("remainder.Scalar(Tensor self, Scalar other) -> Tensor", "function, method")
def remainder_scalar(self: Tensor, other: Any) -> Tensor:
    return remainder.functional.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", "method")
def remainder_scalar_(self: Tensor, other: Any) -> Tensor:
    return remainder.inplace.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
def remainder_scalar_out(self: Tensor, other: Any, *, out: Tensor) -> Tensor:
    return remainder.out.op(self, wrapped_scalar_tensor(other), out=out)


@composite_explicit_autograd("remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")
def remainder_scalar_tensor(self: Any, other: Tensor) -> Tensor:
    return remainder.functional.op(wrapped_scalar_tensor(self), other)


fmod = _binary("fmod", s.fmod, out_overload="Tensor_out", overload="Tensor", inplace_overload="Tensor",
               dispatch_check=_dispatch("fmod_cpu", _real_not_bool), numbers_as_tensors=False)


@composite_explicit_autograd("fmod.Scalar(Tensor self, Scalar other) -> Tensor", "function, method")
def fmod_scalar(self: Tensor, other: Any) -> Tensor:
    return fmod.functional.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", "method")
def fmod_scalar_(self: Tensor, other: Any) -> Tensor:
    return fmod.inplace.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
def fmod_scalar_out(self: Tensor, other: Any, *, out: Tensor) -> Tensor:
    return fmod.out.op(self, wrapped_scalar_tensor(other), out=out)


# ---- pow ----------------------------------------------------------------------------------------------
# float types whose kernels compute in float: a Scalar still converts to the type itself (c10::Half's overflow)
_REDUCED_FLOATS = tuple(d for d in (_dt.float16, getattr(_dt, "bfloat16", None)) if d is not None)


def _pow_scalar_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """pow.Tensor_Scalar's meta: NumPy's rule for integer powers, then the base in the result type
    of (base, exponent)."""
    (base,) = tensors
    exp = extras["exponent"]
    if not (base.dtype.is_floating_point or base.dtype.is_complex) and isinstance(exp, int) and exp < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    dtype = result_type(base, exp)
    if dtype in _REDUCED_FLOATS:  # exp_scalar.to<scalar_t>() (computed in float here)
        checked_scalar(dtype, exp)
    if dtype in (_dt.float32, _dt.float64) and type(exp) is float and exp not in _POW_SPECIAL:
        # pow_tensor_scalar_optimized_kernel<scalar_t, double>: the exponent stays a double (x ** 2.4e-280 is
        # 0 at 0, not 0 ** 0)
        extras["exponent"] = DoubleScalar(exp)
    return [_to_dtype(base, dtype)]


def _pow_scalar_select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
    """pow_tensor_scalar_optimized_kernel's special exponents; std::pow otherwise."""
    exp = extras["exponent"]
    special = _POW_SPECIAL.get(exp) if not isinstance(exp, complex) or exp.imag == 0 else None
    return special if special is not None else (s.pow, ("exponent",))


_POW_SPECIAL: dict[float, tuple[Callable[..., Any], tuple[str, ...]]] = {
    0: (s.pow_zero, ()), 1: (s.pow_one, ()), 2: (s.pow_two, ()), 3: (s.pow_three, ()), 0.5: (s.pow_sqrt, ()),
    -1: (s.pow_reciprocal, ())}

pow_tensor = elementwise(
    "pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    functional="pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    inplace="pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    config=BINARY_OP, scalar=s.pow, numbers_as_tensors=False, dispatch_check=_dispatch("pow", _not_bool),
    dunder="__pow__", inplace_dunder="__ipow__")
pow_scalar = elementwise(
    "pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)",
    functional="pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    inplace="pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
    config=BINARY_OP, prepare=_pow_scalar_prepare, select=_pow_scalar_select)
reflect_dunder("__rpow__", "pow")


@composite_explicit_autograd("pow.Scalar(Scalar self, Tensor exponent) -> Tensor")
def pow_scalar_self(self: Any, exponent: Tensor) -> Tensor:
    return pow_tensor.functional.op(wrapped_scalar_tensor(self), exponent)


@composite_explicit_autograd("pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)")
def pow_scalar_self_out(self: Any, exponent: Tensor, *, out: Tensor) -> Tensor:
    return pow_tensor.out.op(wrapped_scalar_tensor(self), exponent, out=out)


# ---- atan2, hypot, maximum, minimum, fmax, fmin --------------------------------------------------------
atan2 = _binary("atan2", s.atan2, BINARY_FLOAT_OP, numbers_as_tensors=False,
                dispatch_check=_dispatch("atan2_cpu", _not_complex))
_alias(atan2, "arctan2")
hypot = _binary("hypot", s.hypot, numbers_as_tensors=False, dispatch_check=_dispatch("hypot_cpu", _floating))

# ---- xlogy: x * log(y), 0 where x is 0 (kl_div's kernel) -------------------------------------------------
xlogy = _binary("xlogy", s.xlogy, BINARY_FLOAT_OP, overload="Tensor", inplace_overload="Tensor",
                out_overload="OutTensor", numbers_as_tensors=False, dispatch_check=_dispatch("xlogy_cpu", _floating),
                inplace_variants="function, method")


@composite_explicit_autograd("xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor")
def xlogy_scalar_self(self: Any, other: Tensor) -> Tensor:
    return xlogy.functional.op(wrapped_scalar_tensor(self), other)


@composite_explicit_autograd("xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor", "function, method")
def xlogy_scalar_other(self: Tensor, other: Any) -> Tensor:
    return xlogy.functional.op(self, wrapped_scalar_tensor(other))


@composite_explicit_autograd("xlogy_.Scalar_Other(Tensor(a!) self, Scalar other) -> Tensor(a!)", "function, method")
def xlogy_scalar_other_(self: Tensor, other: Any) -> Tensor:
    return xlogy.inplace.op(self, wrapped_scalar_tensor(other))


def _no_complex_inputs(name: str) -> Callable[[list, dict, int, Any], list]:
    def prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
        if any(t.dtype.is_complex for t in tensors):
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return tensors

    return prepare


maximum = _binary("maximum", s.maximum, inplace=False, numbers_as_tensors=False,
                  prepare=_no_complex_inputs("maximum"))
minimum = _binary("minimum", s.minimum, inplace=False, numbers_as_tensors=False,
                  prepare=_no_complex_inputs("minimum"))
fmax = _binary("fmax", s.fmax, inplace=False, numbers_as_tensors=False, prepare=_no_complex_inputs("fmax"))
fmin = _binary("fmin", s.fmin, inplace=False, numbers_as_tensors=False, prepare=_no_complex_inputs("fmin"))


# ---- threshold_backward: relu's backward as one loop (torch's aten::threshold_backward) -----------------
threshold_backward = elementwise(
    "threshold_backward.grad_input(Tensor grad_output, Tensor self, Scalar threshold, *, Tensor(a!) grad_input) "
    "-> Tensor(a!)",
    functional="threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    config=BINARY_OP, scalar=s.threshold_backward, numbers_as_tensors=False, variants="function")


# ---- lerp ---------------------------------------------------------------------------------------------
def _lerp_check(*names: str) -> Callable[[list, dict, int, Any], list]:
    """lerp's meta: `end` (and a tensor `weight`) must have self's dtype."""
    def prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
        self = tensors[0]
        for name, t in zip(names, tensors[1:]):
            if t.dtype is not self.dtype:
                raise RuntimeError(f"expected dtype {TYPE_META_NAME[self.dtype]} for `{name}` but got dtype "
                                   f"{TYPE_META_NAME[t.dtype]}")
        return tensors

    return prepare


# lerp.Tensor first: PyTorch's binding tries Tensor overloads before Scalar ones; numbers go to lerp.Scalar
_LERP_PROMOTE = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                     cast_common_dtype_to_outputs=True, enforce_safe_casting_to_output=True)
_LERP_SAME = TensorIteratorConfig()
_LERP_END, _LERP_END_WEIGHT = _lerp_check("end"), _lerp_check("end", "weight")


def _lerp_tensor_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """lerp.Tensor's meta: a 0-dim weight takes part in type promotion, any other must have self's dtype."""
    promote = not tensors[2]._size
    extras["_promote_weight"] = promote
    return (_LERP_END if promote else _LERP_END_WEIGHT)(tensors, extras, mode, provided)


lerp_tensor = elementwise(
    "lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)",
    functional="lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    inplace="lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)",
    config=lambda extras: _LERP_PROMOTE if extras["_promote_weight"] else _LERP_SAME, scalar=s.lerp,
    prepare=_lerp_tensor_prepare, numbers_as_tensors=False,
    dispatch_check=_dispatch("lerp_kernel_tensor", _floating_or_complex))
lerp_scalar = elementwise(
    "lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) -> Tensor(a!)",
    functional="lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    inplace="lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)",
    config=BINARY_OP, scalar=s.lerp, prepare=_lerp_check("end"),
    dispatch_check=_dispatch("lerp_kernel_scalar", _floating_or_complex))


# ---- comparison ---------------------------------------------------------------------------------------
def _comparison(name: str, scalar: Callable, alias: str, dunder: str, complex_ok: bool) -> StructuredFamily:
    fam = _binary(name, scalar, COMPARISON_OP, out_overload="Tensor_out", overload="Tensor",
                  inplace_overload="Tensor", dunder=dunder,
                  dispatch_check=None if complex_ok else _dispatch(f"{name}_cpu", _not_complex))
    if alias:
        _alias(fam, alias)
    return fam


eq = _comparison("eq", s.eq, "", "__eq__", True)
ne = _comparison("ne", s.ne, "not_equal", "__ne__", True)
lt = _comparison("lt", s.lt, "less", "__lt__", False)
le = _comparison("le", s.le, "less_equal", "__le__", False)
gt = _comparison("gt", s.gt, "greater", "__gt__", False)
ge = _comparison("ge", s.ge, "greater_equal", "__ge__", False)

logical_and = _binary("logical_and", s.logical_and, COMPARISON_OP, numbers_as_tensors=False)
logical_or = _binary("logical_or", s.logical_or, COMPARISON_OP, numbers_as_tensors=False)
logical_xor = _binary("logical_xor", s.logical_xor, COMPARISON_OP, numbers_as_tensors=False)


# ---- bitwise ------------------------------------------------------------------------------------------
def _bitwise(name: str, scalar: Callable, op: str) -> StructuredFamily:
    fam = _binary(name, scalar, out_overload="Tensor_out", overload="Tensor", inplace_overload="Tensor",
                  dispatch_check=_dispatch(f"{name}_cpu", _integral),
                  dunder=f"__{op}__ __r{op}__", inplace_dunder=f"__i{op}__")

    @composite_explicit_autograd(f"{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")
    def scalar_tensor(self: Any, other: Tensor) -> Tensor:
        return fam.functional.op(wrapped_scalar_tensor(self), other)

    return fam


bitwise_and = _bitwise("bitwise_and", s.bitwise_and, "and")
bitwise_or = _bitwise("bitwise_or", s.bitwise_or, "or")
bitwise_xor = _bitwise("bitwise_xor", s.bitwise_xor, "xor")


# ---- where --------------------------------------------------------------------------------------------
_WHERE = TensorIteratorConfig(check_all_same_dtype=False)
_warned_uint8_condition = False


def _where_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """where_self_out: self and other in their result type, a bool condition. The iterator is built
    on (self, other, condition), so that its first input carries the result dtype."""
    global _warned_uint8_condition
    condition, self, other = tensors
    rt = result_type(self, other)
    if mode == OUT and provided.dtype is not rt:  # type: ignore[union-attr]  # OUT mode: provided
        raise RuntimeError(f"Expected out type to be {SCALAR_TYPE_NAME[rt]} but got "
                           f"{SCALAR_TYPE_NAME[provided.dtype]}")  # type: ignore[union-attr]  # as above
    if condition.dtype is _dt.uint8:
        if not _warned_uint8_condition:  # TORCH_WARN_ONCE
            _warned_uint8_condition = True
            warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be "
                          "removed in a future version of PyTorch. Use a boolean condition instead.", UserWarning,
                          stacklevel=user_stacklevel())
        condition = _to_dtype(condition, _dt.bool)
    elif condition.dtype is not _dt.bool:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{SCALAR_TYPE_NAME[condition.dtype]}")
    bits = _dt.bits_dtypes
    for t in (self, other):  # to or from the bits type: a number goes through fill, a tensor through copy_
        if t.dtype is not rt and (rt in bits or t.dtype in bits):
            raise not_implemented("fill_out" if t._is_wrapped_number and rt in bits else "copy_", _dt.uint1)
    return [_to_dtype(self, rt), _to_dtype(other, rt), condition]


where = elementwise("where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                    functional="where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
                    config=_WHERE, scalar=s.where, prepare=_where_prepare)


# ---- clamp --------------------------------------------------------------------------------------------
def _clamp_operand(self: Tensor, provided: Tensor | None, bounds: tuple) -> Tensor:
    """clamp's meta with Scalar bounds: the bounds take part in type promotion (up to floating)."""
    rt = self.dtype
    if rt.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if not rt.is_floating_point:
        rt = result_type_many(self, *(b for b in bounds if b is not None))
        if rt is not self.dtype and provided is self:
            raise RuntimeError(f"result type {SCALAR_TYPE_NAME[rt]} can't be cast to the desired output type "
                               f"{TYPE_META_NAME[self.dtype]}")
        if rt.is_complex:
            raise NotImplementedError("clamp is not supported for complex types")
    return _to_dtype(self, rt)


def _clamp_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    lo, hi = extras["min"], extras["max"]
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return [_clamp_operand(tensors[0], provided, (lo, hi))]


def _clamp_select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
    if extras["min"] is None:
        return s.clamp_max, ("max",)
    if extras["max"] is None:
        return s.clamp_min, ("min",)
    return s.clamp, ("min", "max")


_clamp_dispatch = {name: _dispatch(f"{name}_scalar_cpu", _not_bool) for name in ("clamp", "clamp_min", "clamp_max")}


def _clamp_scalar_dispatch(dtype: _dt.dtype, extras: dict) -> None:
    which = "clamp_max" if extras["min"] is None else "clamp_min" if extras["max"] is None else "clamp"
    _clamp_dispatch[which](dtype, extras)
    if dtype in _REDUCED_FLOATS:  # the kernel's min_.to<scalar_t>() (computed in float here)
        for bound in (extras["min"], extras["max"]):
            if bound is not None:
                checked_scalar(dtype, bound)


def _clamp_tensor_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    self, lo, hi = tensors
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if self.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    extras["_bounds"] = "max" if lo is None else "min" if hi is None else "both"
    return [t for t in tensors if t is not None]


_CLAMP_TENSOR = {"both": (s.clamp, ()), "min": (s.clamp_min, ()), "max": (s.clamp_max, ())}
# clamp_Tensor_out runs clamp_stub, or maximum_stub / minimum_stub for one bound (those take bools)
_CLAMP_TENSOR_DISPATCH = {"both": _dispatch("clamp_cpu", _real_not_bool), "min": _dispatch("maximum_cpu", _not_complex),
                          "max": _dispatch("minimum_cpu", _not_complex)}


def _clamp_tensor_dispatch(dtype: _dt.dtype, extras: dict) -> None:
    _CLAMP_TENSOR_DISPATCH[extras["_bounds"]](dtype, extras)


# clamp.Tensor first: PyTorch's binding tries Tensor overloads before Scalar ones (a 0-dim tensor
# bound keeps its dtype), numbers go to clamp.Scalar
clamp_tensor = elementwise(
    "clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    functional="clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    inplace="clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
    config=BINARY_OP, prepare=_clamp_tensor_prepare, select=lambda extras: _CLAMP_TENSOR[extras["_bounds"]],
    dispatch_check=_clamp_tensor_dispatch, numbers_as_tensors=False, inplace_variants="function, method")


clamp = elementwise(
    "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    functional="clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    inplace="clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    config=UNARY_OP, prepare=_clamp_prepare, select=_clamp_select, dispatch_check=_clamp_scalar_dispatch,
    inplace_variants="function, method")


def _clamp_bound_prepare(name: str) -> Callable[[list, dict, int, Any], list]:
    def prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
        if isinstance(extras[name], complex):
            raise RuntimeError("clamp is not supported for complex types")
        return [_clamp_operand(tensors[0], provided, (extras[name],))]

    return prepare


def _clamp_bound(name: str, scalar: Callable, stub: str) -> tuple[StructuredFamily, StructuredFamily]:
    arg = name[len("clamp_"):]
    fam_tensor = elementwise(
        f"{name}.Tensor_out(Tensor self, Tensor {arg}, *, Tensor(a!) out) -> Tensor(a!)",
        functional=f"{name}.Tensor(Tensor self, Tensor {arg}) -> Tensor",
        inplace=f"{name}_.Tensor(Tensor(a!) self, Tensor {arg}) -> Tensor(a!)",
        config=BINARY_OP, scalar=scalar, numbers_as_tensors=False, dispatch_check=_dispatch(stub, _not_complex),
        inplace_variants="function, method")
    fam = elementwise(
        f"{name}.out(Tensor self, Scalar {arg}, *, Tensor(a!) out) -> Tensor(a!)",
        functional=f"{name}(Tensor self, Scalar {arg}) -> Tensor",
        inplace=f"{name}_(Tensor(a!) self, Scalar {arg}) -> Tensor(a!)",
        config=UNARY_OP, scalar=scalar, prepare=_clamp_bound_prepare(arg), dispatch_check=_clamp_dispatch[name],
        inplace_variants="function, method")
    return fam, fam_tensor


clamp_min, clamp_min_tensor = _clamp_bound("clamp_min", s.clamp_min, "maximum_cpu")
clamp_max, clamp_max_tensor = _clamp_bound("clamp_max", s.clamp_max, "minimum_cpu")
_alias(clamp, "clip", inplace_variants="function, method")
_alias(clamp_tensor, "clip", inplace_variants="function, method")


# ---- addcmul, addcdiv ---------------------------------------------------------------------------------
def _addcdiv_check(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    _, t1, t2 = tensors
    if _integral(t1.dtype) and _integral(t2.dtype):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return tensors


addcmul = elementwise(
    "addcmul.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)",
    functional="addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    inplace="addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    config=BINARY_OP, scalar=s.addcmul, numbers_as_tensors=False,
    dispatch_check=_dispatch("addcmul_cpu_out", _not_bool))
addcdiv = elementwise(
    "addcdiv.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)",
    functional="addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    inplace="addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    config=BINARY_OP, scalar=s.addcdiv, prepare=_addcdiv_check, numbers_as_tensors=False,
    dispatch_check=_dispatch("addcdiv_cpu", _not_bool))


# ---- shifts ---------------------------------------------------------------------------------------------
# The Tensor_Scalar overloads are the Tensor ones with a wrapped number (numbers_as_tensors), as torch's
# CompositeExplicitAutograd kernels of them are; torch's __lshift__ / __rshift__ (which also shift floats)
# are other operators.
def _shift(name: str, scalar: Callable, stub: str) -> StructuredFamily:
    fam = _binary(name, scalar, out_overload="Tensor_out", overload="Tensor", inplace_overload="Tensor",
                  dispatch_check=_dispatch(stub, lambda d: _integral(d) and d is not _dt.bool))

    @composite_explicit_autograd(f"{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")
    def scalar_tensor(self: Any, other: Tensor) -> Tensor:
        return fam.functional.op(wrapped_scalar_tensor(self), other)

    return fam


bitwise_left_shift = _shift("bitwise_left_shift", s.bitwise_left_shift, "lshift_cpu")
bitwise_right_shift = _shift("bitwise_right_shift", s.bitwise_right_shift, "rshift_cpu")
