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
from .tensor_iterator import TensorIterator, TensorIteratorConfig, _as_scalar, _contiguous

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
# dtypes the CPU computes in directly (float16 goes through float32 temporaries in the iterator)
_FAST_DTYPES = frozenset(d for d in _dt.all_dtypes if d is not _dt.float16)


def elementwise(
    out: str,
    *,
    scalar: Callable | None = None,
    select: Select | None = None,
    config: TensorIteratorConfig,
    functional: str | None = None,
    inplace: str | None = None,
    check: Check | None = None,
    variants: str = "function, method",
    dunder: str = "",
    inplace_dunder: str = "",
) -> StructuredFamily:
    """Declare an elementwise operator family from its schemas and its scalar function.

    `select(extras) -> (scalar_fn, names of extras it takes)` picks among scalar functions when a
    non-numeric argument (a rounding mode, say) decides the formula. `check(common_dtype, extras)`
    validates the other arguments once the common dtype is known (alpha_check, say).
    """
    if select is None:
        assert scalar is not None
        names = tuple(list(inspect.signature(scalar).parameters)[_n_tensor_params(out):])
        select = lambda extras, _r=(scalar, names): _r  # noqa: E731

    def meta(it: TensorIterator, tensors: list, extras: dict) -> None:
        it.build_op(config, it.maybe_get_output(0), *tensors)
        if check is not None:
            check(it.common_dtype, extras)

    def make_impl(launcher: Callable) -> Callable:
        def impl(it: TensorIterator, tensors: list, extras: dict) -> None:
            fn, names = select(extras)
            np_type = it.compute_dtype.numpy.type
            launcher(it, fn, tuple(_extra(np_type, extras[n]) for n in names))

        return impl

    def cpu_fast(kind: str, bind: Callable, generic: Callable) -> Callable:
        return _fast_path(kind, bind, generic, config, select, check)

    return structured(out, functional=functional, inplace=inplace, meta=meta,
                      impls={k: make_impl(l) for k, l in LAUNCHERS.items()}, variants=variants,
                      dunder=dunder, inplace_dunder=inplace_dunder, fast_paths={"CPU": cpu_fast})


def _fast_path(kind: str, bind: Callable, generic: Callable, config: TensorIteratorConfig,
               select: Select, check: Check | None) -> Callable:
    """TensorIterator's fast set-up as straight-line code: every tensor on the CPU, contiguous, of
    one shape and one computable dtype, no Python scalars. Anything else takes the full build."""
    needs_float = config.promote_integer_inputs_to_float
    static = config.static_dtype
    runners: dict = {}

    def fits(tensors: list) -> "tuple[_dt.dtype, tuple[bool, ...]] | None":
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
            pattern = tuple(t in arrays for t in tensors)
        else:
            pattern = (True,) * len(tensors)
        if needs_float and not (dt.is_floating_point or dt.is_complex):
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
            args.append(_extra(np_type, extras[n]))
        r(out.numel(), *args)

    if kind == "functional":
        def functional(*args: Any, **kwargs: Any) -> Any:
            tensors, extras = bind(*args, **kwargs)
            f = fits(tensors) if all(type(t) is Tensor for t in tensors) else None
            if f is None:
                return generic(*args, **kwargs)
            dt, pattern = f
            if check is not None:
                check(dt, extras)
            a = tensors[pattern.index(True)] if True in pattern else tensors[0]
            out_dt = static or dt
            n = a.numel()
            out = Tensor._make(CPUStorage(np.empty(n, out_dt.numpy)), a._size, a._stride, 0, out_dt, CPU)
            if n:
                run(tensors, extras, out, dt, pattern)
            return out

        return functional

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(self, *args, **kwargs)
        f = fits(tensors) if all(type(t) is Tensor for t in tensors) and static in (None, self.dtype) else None
        if f is None or not f[1][0] or any(t is not self and t._storage is self._storage for t in tensors[1:]):
            return generic(self, *args, **kwargs)
        dt, pattern = f
        if check is not None:
            check(dt, extras)
        if self.numel():
            run(tensors, extras, self, dt, pattern)
        return self

    return inplace


def _n_tensor_params(out_schema: str) -> int:
    from ..schema import FunctionSchema

    return sum(1 for a in FunctionSchema.parse(out_schema).arguments
               if a.type.base_name == "Tensor" and not a.is_out and not a.type.is_list())


def _extra(np_type: type, v: Any) -> Any:
    """Numeric extras (alpha, clamp bounds) in the compute dtype, so float32 code stays float32."""
    if isinstance(v, (bool, int, float, complex)):
        return np_type(v)
    if isinstance(v, Tensor):  # a tensor bound (clamp.Tensor) read as a scalar
        return np_type(v.item())
    return v
