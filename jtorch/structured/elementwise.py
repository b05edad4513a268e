"""Elementwise structured kernels: the meta is a TensorIterator build, the impl runs the loop
generated from the operator's one scalar function through the backend's `elementwise` stub.

`jtorch.native.elementwise.elementwise(out=..., functional=..., inplace=..., config=BINARY_OP,
scalar=fn)` is the whole declaration of an operator such as add; the scalar function's parameters
are the schema's tensor arguments followed by the other arguments it needs (by schema name), e.g.
`add(self, other, alpha)`. The fast set-up of common calls is jtorch/structured/fast_path.py.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

from ..backends import Backend, backend
from ..scalar import checked_scalar, to_compute  # noqa: F401  (checked_scalar: re-exported for families)
from ..schema import FunctionSchema
from .fast_path import FAST_PATHS, Check, DeviceCheck, ElementwiseFastPath, MakeRunner, Prepare, Select, all_arrays
from .tensor_iterator import TensorIterator, TensorIteratorConfig


def elementwise_kernels(
    out: str,
    *,
    scalar: Callable[..., Any] | None = None,
    select: Select | None = None,
    config: TensorIteratorConfig | Callable[[dict[str, Any]], TensorIteratorConfig],
    check: Check | None = None,
    prepare: Prepare | None = None,
    dispatch_check: DeviceCheck | None = None,
) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
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
    extras, device_type)` is the device's kernel's dtype dispatch ('"bitwise_and_cpu" not implemented for
    'Float''): meta tensors check nothing, as in PyTorch.
    """
    if select is None:
        assert scalar is not None
        fixed: list[tuple[Callable[..., Any], tuple[str, ...]]] = []

        def select(extras: dict[str, Any]) -> tuple[Callable[..., Any], tuple[str, ...]]:
            # the names are read off the schema and the scalar function on first use (start-up)
            if not fixed:
                fixed.append((scalar, tuple(list(inspect.signature(scalar).parameters)[_n_tensor_params(out):])))
            return fixed[0]
    config_of: Callable[[dict[str, Any]], TensorIteratorConfig] = (
        (lambda extras: config) if isinstance(config, TensorIteratorConfig) else config)

    def meta(it: TensorIterator, tensors: list[Any], extras: dict[str, Any]) -> None:
        if prepare is not None:
            tensors = prepare(tensors, extras, it.mode, it.maybe_get_output(0))
        it.build_op(config_of(extras), it.maybe_get_output(0), *tensors)
        if check is not None:
            check(it.common_dtype, extras)
        if dispatch_check is not None:
            dispatch_check(it.common_dtype, extras, it.device.type)

    def impl(it: TensorIterator, tensors: list[Any], extras: dict[str, Any], backend: Backend) -> None:
        fn, names = select(extras)
        dt = it.compute_dtype
        backend.elementwise(it, fn, tuple(to_compute(dt, extras[n]) for n in names))

    fast_paths: dict[str, ElementwiseFastPath] = {}  # per device type, shared by the three kernels

    def fast(kind: str, bind: Callable[..., Any], generic: Callable[..., Any], backend: Backend
             ) -> Callable[..., Any] | None:
        if not FAST_PATHS:
            return None
        fp = fast_paths.get(backend.device_type)
        if fp is None:
            if not backend.implements("elementwise_contiguous"):
                return None
            lead, defaults = _default_call(out)
            # implements() said so: this backend's maker returns a runner, never None
            make_runner = cast(MakeRunner, backend.elementwise_contiguous)
            fp = fast_paths[backend.device_type] = ElementwiseFastPath(
                backend.device_type, make_runner, bind, config_of, select, check, prepare,
                dispatch_check, lead, defaults)
        return fp.kernel(kind, generic)

    return meta, impl, fast


def _default_call(out_schema: str) -> tuple[int | None, dict[str, Any] | None]:
    """(n, extras) when a call with just the n leading tensor arguments, positionally, leaves every
    other argument at its default (`add(a, b)`: alpha=1), else (None, None)."""
    args = [a for a in FunctionSchema.parse(out_schema).arguments if not a.is_out]
    tensors = [a for a in args if a.type.base_name == "Tensor" and not a.type.is_list()]
    n = len(tensors)
    if args[:n] != tensors or any(a.kwarg_only for a in tensors) or any(a.default is None for a in args[n:]):
        return None, None
    return n, {a.name: a.default_value for a in args[n:]}


# (device type, scalar function, inputs, extras) -> runner
_contiguous_runners: dict[tuple[str, Callable[..., Any], int, int], Callable[..., None]] = {}


def contiguous_runner(device_type: str, fn: Callable[..., Any], ninputs: int, nextra: int
                      ) -> Callable[..., None] | None:
    """The backend's `elementwise_contiguous` runner of `fn` over `ninputs` contiguous arrays,
    made once per device type (None where the backend has no such stub): for kernels outside an
    elementwise family that take TensorIterator's fast set-up themselves (relu, the fused optimizers)."""
    key = (device_type, fn, ninputs, nextra)
    r = _contiguous_runners.get(key)
    if r is None:
        b = backend(device_type)
        if not b.implements("elementwise_contiguous"):
            return None
        made = b.elementwise_contiguous(fn, all_arrays(ninputs), nextra)
        if made is None:
            return None
        r = _contiguous_runners[key] = made
    return r


def _n_tensor_params(out_schema: str) -> int:
    return sum(1 for a in FunctionSchema.parse(out_schema).arguments
               if a.type.base_name == "Tensor" and not a.is_out and not a.type.is_list())
