"""Elementwise structured kernels: the meta is a TensorIterator build, the impl runs the loop
generated from the operator's one scalar function through the backend's `elementwise` stub.

`jtorch.native.elementwise.elementwise(out=..., functional=..., inplace=..., config=BINARY_OP,
scalar=fn)` is the whole declaration of an operator such as add; the scalar function's parameters are the schema's tensor
arguments followed by the other arguments it needs (by schema name), e.g. `add(self, other, alpha)`.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from .. import dtypes as _dt
from ..backends import Backend
from ..promotion import result_type_many
from ..scalar import checked_scalar, to_compute  # noqa: F401  (checked_scalar: re-exported for families)
from ..schema import FunctionSchema
from ..tensor import Tensor, new_storage
from .tensor_iterator import FUNCTIONAL, INPLACE, TensorIterator, TensorIteratorConfig, _contiguous

Select = Callable[[dict], "tuple[Callable, tuple[str, ...]]"]
Check = Callable[[_dt.dtype, dict], None]
# prepare(tensors, extras, mode, provided) -> the tensors the iterator is built on
Prepare = Callable[[list, dict, int, "Tensor | None"], list]
# dtypes the CPU computes in directly (float16 goes through float32 temporaries in the iterator)
_FAST_DTYPES = frozenset(d for d in _dt.all_dtypes if d is not _dt.float16)


def elementwise_kernels(
    out: str,
    *,
    scalar: Callable | None = None,
    select: Select | None = None,
    config: "TensorIteratorConfig | Callable[[dict], TensorIteratorConfig]",
    check: Check | None = None,
    prepare: Prepare | None = None,
    dispatch_check: Check | None = None,
) -> "tuple[Callable, Callable, Callable]":
    """(meta, impl, fast_path) of an elementwise operator family, from its out= schema and its
    scalar function (jtorch.native.elementwise.elementwise declares the family with them).

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
            tensors = prepare(tensors, extras, it.mode, it.maybe_get_output(0))
        it.build_op(config_of(extras), it.maybe_get_output(0), *tensors)
        if check is not None:
            check(it.common_dtype, extras)
        if dispatch_check is not None and it.device.type != "meta":
            dispatch_check(it.common_dtype, extras)

    def impl(it: TensorIterator, tensors: list, extras: dict, backend: Backend) -> None:
        fn, names = select(extras)
        dt = it.compute_dtype
        backend.stub("elementwise")(it, fn, tuple(to_compute(dt, extras[n]) for n in names))

    def fast(kind: str, bind: Callable, generic: Callable, backend: Backend) -> "Callable | None":
        runner = backend.stubs.get("elementwise_contiguous")
        if runner is None:
            return None
        return _fast_path(kind, bind, generic, backend.device_type, runner, config_of, select, check, prepare,
                          dispatch_check)

    return meta, impl, fast


def _fast_path(kind: str, bind: Callable, generic: Callable, device_type: str, make_runner: Callable,
               config_of: Callable[[dict], TensorIteratorConfig], select: Select, check: Check | None,
               prepare: Prepare | None, dispatch_check: Check | None) -> Callable:
    """TensorIterator's fast set-up as straight-line code: every tensor on this backend's device,
    contiguous, of one shape and one computable dtype; CPU scalars only where the result type is
    the arrays' dtype. Anything else takes the full build. The backend's `elementwise_contiguous`
    stub makes the runner that touches the data."""
    runners: dict = {}

    def fits(tensors: list, config: TensorIteratorConfig) -> "tuple[_dt.dtype, tuple[bool, ...]] | None":
        """(compute dtype, which inputs are arrays) when the fast set-up applies, else None."""
        arrays = [t for t in tensors if t._size or t._device.type != "cpu"]
        a = arrays[0] if arrays else tensors[0]
        size, dt, st, dev = a._size, a.dtype, a._stride, a._device
        if dev.type != device_type or dt not in _FAST_DTYPES or st != _contiguous(size):
            return None
        for t in arrays:
            if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
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
            r = runners[(fn, pattern)] = make_runner(fn, pattern, len(names))
        r(out, tensors, dt, [to_compute(dt, extras[n]) for n in names])

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
            out = Tensor._make(new_storage(n, out_dt, a._device), a._size, a._stride, 0, out_dt, a._device)
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
    return sum(1 for a in FunctionSchema.parse(out_schema).arguments
               if a.type.base_name == "Tensor" and not a.is_out and not a.type.is_list())
