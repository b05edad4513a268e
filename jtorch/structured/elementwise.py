"""Elementwise structured families: the meta is a TensorIterator build, the impl launches the loop
generated from the operator's one scalar function on the iterator's backend.

`elementwise(out=..., functional=..., inplace=..., config=BINARY_OP, scalar=fn)` is the whole
declaration of an operator such as add; the scalar function's parameters are the schema's tensor
arguments followed by the other arguments it needs (by schema name), e.g. `add(self, other, alpha)`.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..device import CPU
from ..kernels.cpu.loops import ArrayOperand, contiguous_launcher, launch
from ..storage import CPUStorage
from ..tensor import Tensor
from .structured import StructuredFamily, structured
from ..promotion import result_type_many
from .tensor_iterator import FUNCTIONAL, INPLACE, TensorIterator, TensorIteratorConfig, _as_scalar, _contiguous

# How each backend runs a scalar function over a built iterator: {"CPU": launcher}.
LAUNCHERS: dict[str, Callable[[TensorIterator, Callable, tuple], None]] = {}


def register_launcher(key: str) -> Callable:
    def register(fn: Callable) -> Callable:
        LAUNCHERS[key] = fn
        return fn

    return register


@register_launcher("CPU")
def cpu_launch(it: TensorIterator, scalar_fn: Callable, extra: tuple) -> None:
    operands = []
    for o in it.operands:
        if o.scalar is not None:
            operands.append(o.scalar)
        else:
            t = o.tensor
            operands.append(ArrayOperand(t._storage.data, t._offset, tuple(o.strides)))
    launch(scalar_fn, it.shape, operands, extra)


Select = Callable[[dict], "tuple[Callable, tuple[str, ...]]"]
Check = Callable[[_dt.dtype, dict], None]
# prepare(tensors, extras, mode, provided) -> the tensors the iterator is built on
Prepare = Callable[[list, dict, int, "Tensor | None"], list]
# dtypes the CPU computes in directly (float16 goes through float32 temporaries in the iterator)
_FAST_DTYPES = frozenset(d for d in _dt.all_dtypes if d is not _dt.float16)


def elementwise(
    out: str,
    *,
    scalar: Callable | None = None,
    select: Select | None = None,
    config: "TensorIteratorConfig | Callable[[dict], TensorIteratorConfig]",
    functional: str | None = None,
    inplace: str | None = None,
    check: Check | None = None,
    prepare: Prepare | None = None,
    dispatch_check: Check | None = None,
    numbers_as_tensors: bool = True,
    variants: str = "function, method",
    dunder: str = "",
    inplace_dunder: str = "",
    inplace_variants: str = "method",
) -> StructuredFamily:
    """Declare an elementwise operator family from its schemas and its scalar function.

    `select(extras) -> (scalar_fn, names of extras it takes)` picks among scalar functions when a
    non-numeric argument (a rounding mode, say) decides the formula. `check(common_dtype, extras)`
    validates the other arguments once the common dtype is known (alpha_check, say).
    `config` may be a function of the extras when an argument decides the build (div's
    rounding_mode). `prepare(tensors, extras, mode, provided)` runs first, in the meta function's
    place before the build: it checks the inputs (sub of bools) and returns the tensors to build
    on (converted to a result type that Python scalars take part in, say; absent optional tensors
    dropped), and may record what it decided in `extras` for `select`. `dispatch_check(common_dtype,
    extras)` is the kernel's dtype dispatch ('"bitwise_and_cpu" not implemented for 'Float''): it
    runs on backends with data only, not on meta tensors, as in PyTorch.
    """
    if select is None:
        assert scalar is not None
        names = tuple(list(inspect.signature(scalar).parameters)[_n_tensor_params(out):])
        select = lambda extras, _r=(scalar, names): _r  # noqa: E731
    config_of = (lambda extras: config) if isinstance(config, TensorIteratorConfig) else config

    def meta(it: TensorIterator, tensors: list, extras: dict) -> None:
        if prepare is not None:
            tensors = prepare(tensors, extras, it.mode, it.provided)
        it.build_op(config_of(extras), it.maybe_get_output(0), *tensors)
        if check is not None:
            check(it.common_dtype, extras)
        if dispatch_check is not None and it.device.type != "meta":
            dispatch_check(it.common_dtype, extras)

    def make_impl(launcher: Callable) -> Callable:
        def impl(it: TensorIterator, tensors: list, extras: dict) -> None:
            fn, names = select(extras)
            dt = it.compute_dtype
            launcher(it, fn, tuple(_extra(dt, extras[n]) for n in names))

        return impl

    def cpu_fast(kind: str, bind: Callable, generic: Callable) -> Callable:
        return _fast_path(kind, bind, generic, config_of, select, check, prepare, dispatch_check)

    return structured(out, functional=functional, inplace=inplace, meta=meta,
                      impls={k: make_impl(l) for k, l in LAUNCHERS.items()}, variants=variants,
                      inplace_variants=inplace_variants,
                      numbers_as_tensors=numbers_as_tensors, dunder=dunder, inplace_dunder=inplace_dunder,
                      fast_paths={"CPU": cpu_fast})


def _fast_path(kind: str, bind: Callable, generic: Callable, config_of: Callable[[dict], TensorIteratorConfig],
               select: Select, check: Check | None, prepare: Prepare | None,
               dispatch_check: Check | None) -> Callable:
    """TensorIterator's fast set-up as straight-line code: every tensor on the CPU, contiguous, of
    one shape and one computable dtype, no Python scalars. Anything else takes the full build."""
    runners: dict = {}

    def fits(tensors: list, config: TensorIteratorConfig) -> "tuple[_dt.dtype, tuple[bool, ...]] | None":
        """(compute dtype, which inputs are arrays) when the fast set-up applies, else None."""
        arrays = [t for t in tensors if t._size or not t._device is CPU]
        a = arrays[0] if arrays else tensors[0]
        size, dt, st = a._size, a.dtype, a._stride
        if a._device is not CPU or dt not in _FAST_DTYPES or st != _contiguous(size):
            return None
        for t in arrays:
            if t._size != size or t.dtype is not dt or t._device is not CPU or t._stride != st:
                return None
        if len(arrays) != len(tensors) or a._is_wrapped_number:
            if not arrays or result_type_many(*tensors) is not dt:
                return None
            pattern = tuple(any(t is a for a in arrays) for t in tensors)  # `in` would call Tensor.__eq__
        else:
            pattern = (True,) * len(tensors)
        if config.promote_integer_inputs_to_float and not (dt.is_floating_point or dt.is_complex):
            return None
        return dt, pattern

    def run(tensors: list, extras: dict, out: Tensor, dt: _dt.dtype, pattern: tuple) -> None:
        fn, names = select(extras)
        r = runners.get((fn, pattern))
        if r is None:
            r = runners[(fn, pattern)] = contiguous_launcher(fn, (True,) + pattern, len(names))
        args = [out._storage.data, out._offset]
        np_type = dt.numpy.type
        for t, is_array in zip(tensors, pattern):
            if is_array:
                args.append(t._storage.data)
                args.append(t._offset)
            else:
                args.append(_as_scalar(np_type, t._storage.data[t._offset]))
        for n in names:
            args.append(_extra(dt, extras[n]))
        r(out.numel(), *args)

    def checks(dt: _dt.dtype, extras: dict) -> None:
        if check is not None:
            check(dt, extras)
        if dispatch_check is not None:
            dispatch_check(dt, extras)

    if kind == "functional":
        def functional(*args: Any, **kwargs: Any) -> Any:
            tensors, extras = bind(*args, **kwargs)
            if prepare is not None:
                tensors = prepare(tensors, extras, FUNCTIONAL, None)
            config = config_of(extras)
            f = fits(tensors, config) if all(type(t) is Tensor for t in tensors) else None
            if f is None:
                return generic(*args, **kwargs)
            dt, pattern = f
            checks(dt, extras)
            a = tensors[pattern.index(True)] if True in pattern else tensors[0]
            out_dt = config.static_dtype or dt
            n = a.numel()
            out = Tensor._make(CPUStorage(np.empty(n, out_dt.numpy)), a._size, a._stride, 0, out_dt, CPU)
            if n:
                run(tensors, extras, out, dt, pattern)
            return out

        return functional

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(self, *args, **kwargs)
        if prepare is not None:
            tensors = prepare(tensors, extras, INPLACE, self)
        config = config_of(extras)
        f = (fits(tensors, config) if all(type(t) is Tensor for t in tensors)
             and config.static_dtype in (None, self.dtype) else None)
        if (f is None or not f[1][0] or f[0] is not self.dtype
                or any(t is not self and t._storage is self._storage for t in tensors[1:])):
            return generic(self, *args, **kwargs)
        dt, pattern = f
        checks(dt, extras)
        if self.numel():
            run(tensors, extras, self, dt, pattern)
        return self

    return inplace


def _n_tensor_params(out_schema: str) -> int:
    from ..schema import FunctionSchema

    return sum(1 for a in FunctionSchema.parse(out_schema).arguments
               if a.type.base_name == "Tensor" and not a.is_out and not a.type.is_list())


def _extra(dtype: _dt.dtype, v: Any) -> Any:
    """Numeric extras (alpha, clamp bounds) in the compute dtype, so float32 code stays float32."""
    if isinstance(v, (bool, int, float, complex)):
        return checked_scalar(dtype, v)
    if isinstance(v, Tensor):  # a tensor bound (clamp.Tensor) read as a scalar
        return checked_scalar(dtype, v.item())
    return v


# The C++ type names in c10::checked_convert's message ("value cannot be converted to type int8_t").
_C_TYPE_NAME = {
    _dt.bool: "bool", _dt.uint8: "uint8_t", _dt.int8: "int8_t", _dt.int16: "int16_t", _dt.int32: "int",
    _dt.int64: "int64_t", _dt.float16: "c10::Half", _dt.float32: "float", _dt.float64: "double",
    _dt.complex64: "c10::complex<float>", _dt.complex128: "c10::complex<double>",
}


def checked_scalar(dtype: _dt.dtype, v: "bool | int | float | complex") -> Any:
    """`Scalar::to<T>()`: v as a NumPy scalar of dtype, raising PyTorch's error where c10::overflows
    says the value does not fit (a negative integer into an unsigned type wraps, as in C++)."""
    np_type = dtype.numpy.type
    lo, hi = _LIMITS[dtype]
    if dtype is _dt.bool:  # c10's conversion to bool is `!= 0`: it never overflows
        return np_type(v != 0)
    if type(v) is complex:
        if not dtype.is_complex:
            if v.imag != 0:
                raise _overflow(dtype)
            v = v.real
    if lo is None:  # floating and complex: finite values beyond the type's range overflow
        if type(v) is complex:
            if (abs(v.real) > hi and v.real - v.real == 0) or (abs(v.imag) > hi and v.imag - v.imag == 0):
                raise _overflow(dtype)
        elif abs(v) > hi and v - v == 0:
            raise _overflow(dtype)
        return np_type(v)
    if type(v) is float:
        if not lo <= v <= hi:  # NaN too
            raise _overflow(dtype)
        return np_type(int(v))
    if v > hi or (v < lo and (lo < 0 or -v > hi)):  # unsigned types take negatives down to -max
        raise _overflow(dtype)
    return np_type(v) if v >= 0 or lo < 0 else np_type(v + hi + 1)


# (lowest, max) for integral types, (None, max) for floating and complex ones (of the real part).
_LIMITS = {d: ((0, 1) if d is _dt.bool else
               (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) if not (d.is_floating_point or d.is_complex)
               else (None, float(np.finfo(d.numpy).max)))
           for d in _dt.all_dtypes}


def _overflow(dtype: _dt.dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {_C_TYPE_NAME[dtype]} without overflow")
