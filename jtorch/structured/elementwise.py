"""Elementwise structured kernels: the meta is a TensorIterator build, the impl runs the loop
generated from the operator's one scalar function through the backend's `elementwise` stub.

`jtorch.native.elementwise.elementwise(out=..., functional=..., inplace=..., config=BINARY_OP,
scalar=fn)` is the whole declaration of an operator such as add; the scalar function's parameters are the schema's tensor
arguments followed by the other arguments it needs (by schema name), e.g. `add(self, other, alpha)`.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from math import prod as _prod
from typing import Any

from .. import dtypes as _dt
from ..backends import Backend, backend
from ..promotion import result_type_many
from ..scalar import checked_scalar, to_compute  # noqa: F401  (checked_scalar: re-exported for families)
from ..schema import FunctionSchema
from ..tensor import Tensor, new_storage
from .meta import OUT
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
    config: TensorIteratorConfig | Callable[[dict], TensorIteratorConfig],
    check: Check | None = None,
    prepare: Prepare | None = None,
    dispatch_check: Check | None = None,
) -> tuple[Callable, Callable, Callable]:
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
        fixed: list = []

        def select(extras: dict) -> tuple[Callable, tuple[str, ...]]:
            # the names are read off the schema and the scalar function on first use (start-up)
            if not fixed:
                fixed.append((scalar, tuple(list(inspect.signature(scalar).parameters)[_n_tensor_params(out):])))
            return fixed[0]
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
        backend.elementwise(it, fn, tuple(to_compute(dt, extras[n]) for n in names))

    def fast(kind: str, bind: Callable, generic: Callable, backend: Backend) -> Callable | None:
        if not backend.implements("elementwise_contiguous"):
            return None
        runner = backend.elementwise_contiguous
        lead, defaults = _default_call(out)
        return _fast_path(kind, bind, generic, backend.device_type, runner, config_of, select, check, prepare,
                          dispatch_check, lead, defaults)

    return meta, impl, fast


def _default_call(out_schema: str) -> tuple[int | None, dict | None]:
    """(n, extras) when a call with just the n leading tensor arguments, positionally, leaves every
    other argument at its default (`add(a, b)`: alpha=1), else (None, None)."""
    args = [a for a in FunctionSchema.parse(out_schema).arguments if not a.is_out]
    tensors = [a for a in args if a.type.base_name == "Tensor" and not a.type.is_list()]
    n = len(tensors)
    if args[:n] != tensors or any(a.kwarg_only for a in tensors) or any(a.default is None for a in args[n:]):
        return None, None
    return n, {a.name: a.default_value for a in args[n:]}


_ALL_ARRAYS = [(True,) * n for n in range(8)]  # shared objects: `is` tells the all-arrays pattern


_ARRAY_SCALAR = (True, False)


def _extras_key(extras: dict) -> tuple | None:
    """A hashable key that tells apart every set of extras a plan could differ for: each value's
    type with it (1, 1.0 and True are equal in Python, not for alpha_check), floats by their bits
    (-0.0 is not 0.0; NaN is one key). None for any other kind of value: no cached plan."""
    key = []
    for name, v in extras.items():
        t = type(v)
        if t is float:
            key.append((name, t, v.hex()))
        elif t is int or t is bool or t is str or v is None:
            key.append((name, t, v))
        else:
            return None
    return tuple(key)


def _all_arrays(n: int) -> tuple[bool, ...]:
    return _ALL_ARRAYS[n] if n < 8 else (True,) * n


def _cpu_scalar(t: Tensor) -> bool:
    """A CPU operand the loop reads as one value: 0-dim, or a single element expanded (every stride
    0, as a sum's or mean's gradient arrives); read at its offset like a CPU scalar."""
    if t._device.type != "cpu":
        return False
    if not t._size:
        return True
    for s in t._stride:
        if s:
            return False
    return 0 not in t._size


def _fast_path(kind: str, bind: Callable, generic: Callable, device_type: str, make_runner: Callable,
               config_of: Callable[[dict], TensorIteratorConfig], select: Select, check: Check | None,
               prepare: Prepare | None, dispatch_check: Check | None, lead: int | None,
               defaults: dict | None) -> Callable:
    """TensorIterator's fast set-up as straight-line code: every tensor on this backend's device,
    contiguous, of one shape and one computable dtype; CPU scalars only where the result type is
    the arrays' dtype. Anything else takes the full build. The backend's `elementwise_contiguous`
    stub makes the runner that touches the data.

    A call that leaves every non-tensor argument at its default (`a + b`: alpha=1) skips the
    argument binder, and its checks, scalar-function choice and converted extras are made once
    per (dtype, operand pattern): checks and selection are functions of the dtype and the
    extras only."""
    runners: dict = {}
    plans: dict = {}  # (dtype, pattern) -> (runner, extras in the compute dtype, output dtype): default calls
    keyed_plans: dict = {}  # (dtype, pattern, _extras_key(extras)) -> the same, for other plain extras
    same_plans: dict = {}  # dtype -> plan, default calls whose operands are all arrays alike
    result_types: dict = {}  # operands' (dtype, wrapped, array) -> result dtype, when some are CPU scalars
    wrapped_types: dict = {}  # (array dtype, Python number's dtype) -> result dtype
    default_config: list = []  # config_of(defaults), made on first use

    def fits(tensors: list, config: TensorIteratorConfig) -> tuple[_dt.dtype, tuple[bool, ...]] | None:
        """(compute dtype, which inputs are arrays) when the fast set-up applies, else None.
        Raises AttributeError for an operand that is not a tensor (an absent optional one)."""
        a = tensors[0]
        size, dt, st, dev = a._size, a.dtype, a._stride, a._device
        if size:  # the common case: the first operand is an array; are they all arrays alike?
            if len(tensors) == 2 and tensors[1]._is_wrapped_number:  # or `x * 2`: it and a Python number
                if dev.type != device_type or dt not in _FAST_DTYPES or st != _contiguous(size):
                    return None
                b = tensors[1].dtype
                rt = wrapped_types.get((dt, b))
                if rt is None:
                    rt = wrapped_types[(dt, b)] = result_type_many(a, tensors[1])
                if rt is not dt or (config.promote_integer_inputs_to_float
                                    and not (dt.is_floating_point or dt.is_complex)):
                    return None
                return dt, _ARRAY_SCALAR
            for t in tensors:
                if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
                    break
            else:
                if (dev.type != device_type or dt not in _FAST_DTYPES or st != _contiguous(size)
                        or (config.promote_integer_inputs_to_float and not (dt.is_floating_point or dt.is_complex))):
                    return None
                return dt, _all_arrays(len(tensors))
        # arrays; the rest are CPU scalars: 0-dim, or one element expanded (a sum's gradient)
        pattern = tuple(not _cpu_scalar(t) for t in tensors)
        if True not in pattern and not a._is_wrapped_number:
            # every operand 0-dim on the CPU (`step += 1`, a scalar loss): the first is a 1-element array
            pattern = (True,) + pattern[1:]
        a = tensors[pattern.index(True)] if True in pattern else tensors[0]
        size, dt, st, dev = a._size, a.dtype, a._stride, a._device
        if dev.type != device_type or dt not in _FAST_DTYPES or st != _contiguous(size):
            return None
        for t, is_array in zip(tensors, pattern):
            if is_array:
                if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
                    return None
            elif t._size and t._size != size:  # an expanded element must not broadcast the result
                return None
        if False in pattern or a._is_wrapped_number:
            if True not in pattern:
                return None
            # the result type depends only on each operand's dtype, wrapped-ness, being an array
            # and having dims (an expanded element promotes as a tensor, a 0-dim one does not)
            key = tuple((t.dtype, t._is_wrapped_number, p, not t._size) for t, p in zip(tensors, pattern))
            rt = result_types.get(key)
            if rt is None:
                rt = result_types[key] = result_type_many(*tensors)
            if rt is not dt:
                return None
        else:
            pattern = _all_arrays(len(tensors))
        if config.promote_integer_inputs_to_float and not (dt.is_floating_point or dt.is_complex):
            return None
        return dt, pattern

    def plan(dt: _dt.dtype, pattern: tuple, extras: dict, config: TensorIteratorConfig) -> tuple:
        if check is not None:
            check(dt, extras)
        if dispatch_check is not None:
            dispatch_check(dt, extras)
        fn, names = select(extras)
        r = runners.get((fn, pattern))
        if r is None:
            r = runners[(fn, pattern)] = make_runner(fn, pattern, len(names))
        return r, [to_compute(dt, extras[n]) for n in names], config.static_dtype or dt

    def bound(args: tuple, kwargs: dict, mode: int, provided: Any) -> tuple[list, dict | None]:
        """(tensors, extras), extras None for a default call that `prepare` left alone."""
        if lead is not None and not kwargs and len(args) == lead:
            tensors, extras = list(args), None
        else:
            tensors, extras = bind(*args, **kwargs)
        if prepare is not None:
            e = dict(defaults) if extras is None else extras  # type: ignore[arg-type]
            tensors = prepare(tensors, e, mode, provided)
            if extras is None and e != defaults:
                extras = e
        return tensors, extras

    def setup(tensors: list, extras: dict | None, self: Any = None) -> tuple | None:
        """(dtype, pattern, plan) when the fast set-up applies, else None. An in-place call (self
        given) also needs the result dtype to be self's, self to be an array, and no other
        operand sharing its storage (the full build checks the overlap, before any check)."""
        if extras is None:
            if not default_config:
                default_config.append(config_of(defaults))  # type: ignore[arg-type]
            config = default_config[0]
        else:
            config = config_of(extras)
        try:
            f = fits(tensors, config)
        except AttributeError:  # an absent optional tensor
            return None
        if f is None:
            return None
        dt, pattern = f
        if self is not None:
            if dt is not self.dtype or not pattern[0] or config.static_dtype not in (None, dt):
                return None
            for t in tensors:
                if t is not self and t._storage is self._storage:
                    return None
        if extras is None:
            p = plans.get((dt, pattern))
            if p is None:
                p = plans[(dt, pattern)] = plan(dt, pattern, defaults, config)  # type: ignore[arg-type]
                if pattern is _all_arrays(len(tensors)):
                    same_plans[dt] = p
            return dt, pattern, p
        key = _extras_key(extras)
        if key is None:
            return dt, pattern, plan(dt, pattern, extras, config)
        # checks, selection and conversions are functions of the dtype and the extras: a plan that
        # passed them once holds for the same dtype, pattern and extras (`threshold_backward(g, y, 0)`)
        k = (dt, pattern, key)
        p = keyed_plans.get(k)
        if p is None:
            p = plan(dt, pattern, extras, config)
            if len(keyed_plans) < 1024:
                keyed_plans[k] = p
        return dt, pattern, p

    direct = lead is not None and prepare is None
    if kind == "functional":
        def functional(*args: Any, **kwargs: Any) -> Any:
            if direct and not kwargs and len(args) == lead:
                # the commonest call, straight: default extras, operands all arrays alike
                try:
                    a = args[0]
                    size, dt, st, dev = a._size, a.dtype, a._stride, a._device
                    for t in args:
                        if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
                            break
                    else:
                        p = same_plans.get(dt)
                        if p is not None and size and dev.type == device_type and st == _contiguous(size):
                            runner, cextras, out_dt = p
                            n = _prod(size)
                            out = Tensor._make(new_storage(n, out_dt, dev), size, st, 0, out_dt, dev)
                            if n:
                                runner(out, args, dt, cextras, n)
                            return out
                except AttributeError:  # an absent optional tensor
                    pass
            tensors, extras = bound(args, kwargs, FUNCTIONAL, None)
            f = setup(tensors, extras)
            if f is None:
                return generic(*args, **kwargs)
            dt, pattern, (runner, cextras, out_dt) = f
            a = tensors[pattern.index(True)] if pattern[0] is not True and True in pattern else tensors[0]
            dev, size = a._device, a._size
            n = _prod(size)
            out = Tensor._make(new_storage(n, out_dt, dev), size, a._stride, 0, out_dt, dev)
            if n:
                runner(out, tensors, dt, cextras, n)
            return out

        return functional

    if kind == "out":
        def out_variant(*args: Any, out: Any, **kwargs: Any) -> Any:
            """out= whose tensor already has the result's shape, dtype and contiguous layout and
            overlaps no input partially (being an input itself is fine): no resize, no temporary."""
            tensors, extras = bound(args, kwargs, OUT, out)
            f = setup(tensors, extras)
            if f is not None and isinstance(out, Tensor):
                dt, pattern, (runner, cextras, out_dt) = f
                a = tensors[pattern.index(True)]
                if out._size == a._size and out.dtype is out_dt and out._device is a._device and out._stride == a._stride:
                    storage, off = out._storage, out._offset
                    for t in tensors:
                        if t._storage is storage and (t._offset != off or t._stride != out._stride
                                                      or t._size != out._size):
                            break
                    else:
                        n = out.numel()
                        if n:
                            runner(out, tensors, dt, cextras, n)
                        return out
            return generic(*args, out=out, **kwargs)

        return out_variant

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        if direct and not kwargs and len(args) + 1 == lead:
            # the commonest call, straight: default extras, operands all arrays alike, no aliasing
            try:
                size, dt, st, dev, storage = self._size, self.dtype, self._stride, self._device, self._storage
                for t in args:
                    if (t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st
                            or t._storage is storage):
                        break
                else:
                    p = same_plans.get(dt)
                    if (p is not None and p[2] is dt and size and dev.type == device_type
                            and st == _contiguous(size)):
                        n = _prod(size)
                        if n:
                            p[0](self, (self,) + args, dt, p[1], n)
                        return self
            except AttributeError:  # an absent optional tensor
                pass
        tensors, extras = bound((self,) + args, kwargs, INPLACE, self)
        f = setup(tensors, extras, self)
        if f is None:
            return generic(self, *args, **kwargs)
        dt, pattern, (runner, cextras, _) = f
        n = self.numel()
        if n:
            runner(self, tensors, dt, cextras, n)
        return self

    return inplace


_contiguous_runners: dict = {}  # (device type, scalar function, inputs, extras) -> runner


def contiguous_runner(device_type: str, fn: Callable, ninputs: int, nextra: int) -> Callable | None:
    """The backend's `elementwise_contiguous` runner of `fn` over `ninputs` contiguous arrays,
    made once per device type (None where the backend has no such stub): for kernels outside an
    elementwise family that take TensorIterator's fast set-up themselves (relu, the fused optimizers)."""
    key = (device_type, fn, ninputs, nextra)
    r = _contiguous_runners.get(key)
    if r is None:
        b = backend(device_type)
        if not b.implements("elementwise_contiguous"):
            return None
        make = b.elementwise_contiguous
        r = _contiguous_runners[key] = make(fn, _all_arrays(ninputs), nextra)
    return r


def _n_tensor_params(out_schema: str) -> int:
    return sum(1 for a in FunctionSchema.parse(out_schema).arguments
               if a.type.base_name == "Tensor" and not a.is_out and not a.type.is_list())
