"""TensorIterator's fast set-up for elementwise structured kernels, as straight-line code, and
the switch that turns every fast path of jtorch off.

A call takes the fast set-up when every array operand is on the backend's device, contiguous and
of one shape and dtype, and TensorIterator would compute in that dtype; the other operands are CPU
scalars (or single elements expanded, which read the same as one). The dtype decisions are
TensorIterator's own functions (compute_common_dtype, promote_integer_to_float, compute_dtype,
is_cpu_scalar), asked once per operand signature and remembered. Anything else takes the full
build, which also gives every error.

JTORCH_NO_FAST_PATHS=1 in the environment (read once, at import) makes every fast path decline:
this one, the small reductions' and mm's, relu's, cat's and masked_fill's, and autograd's
generated records, so that the general machinery is what runs.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from math import prod
from typing import Any

from .. import dtypes as _dt
from ..geometry import contiguous_strides
from ..scalar import to_compute
from ..storage import new_storage
from ..tensor import Tensor
from .meta import FUNCTIONAL, INPLACE, OUT
from .tensor_iterator import (
    TensorIteratorConfig,
    compute_common_dtype,
    compute_dtype,
    is_cpu_scalar,
    promote_integer_to_float,
)

FAST_PATHS: bool = os.environ.get("JTORCH_NO_FAST_PATHS", "") in ("", "0")

Extras = dict[str, Any]
Pattern = tuple[bool, ...]  # per input: True an array, False a value read at its offset
ScalarFn = Callable[..., Any]
# run(out, inputs, compute dtype, extras in the compute dtype, numel)
Runner = Callable[[Tensor, Sequence[Tensor], _dt.dtype, Sequence[Any], int], None]
MakeRunner = Callable[[ScalarFn, Pattern, int], Runner]
Select = Callable[[Extras], tuple[ScalarFn, tuple[str, ...]]]
Check = Callable[[_dt.dtype, Extras], None]
DeviceCheck = Callable[[_dt.dtype, Extras, str], None]  # a kernel's dtype dispatch: (dtype, extras, device type)
# prepare(tensors, extras, mode, provided) -> the tensors the iterator is built on
Prepare = Callable[[list[Any], Extras, int, "Tensor | None"], list[Any]]
ConfigOf = Callable[[Extras], TensorIteratorConfig]
Plan = tuple[Runner, list[Any], _dt.dtype]  # runner, extras in the compute dtype, output dtype
Kernel = Callable[..., Any]

# dtypes that kernels compute in directly on the CPU and CUDA (float16 goes through float32)
FAST_DTYPES = frozenset(d for d in _dt.all_dtypes if compute_dtype(d, "cpu") is d)

_ALL_ARRAYS: list[Pattern] = [(True,) * n for n in range(8)]  # shared objects: `is` tells the pattern
_ARRAY_SCALAR: Pattern = (True, False)


def all_arrays(n: int) -> Pattern:
    return _ALL_ARRAYS[n] if n < 8 else (True,) * n


def _extras_key(extras: Extras) -> tuple[Any, ...] | None:
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


def _expanded_element(t: Tensor) -> bool:
    """One element expanded (every stride 0, as a sum's gradient arrives): it reads as a value."""
    if not t._size or 0 in t._size:
        return False
    for s in t._stride:
        if s:
            return False
    return True


# Every ElementwiseFastPath's decisions per operand signature: wrapped numbers take the default
# dtypes, so a change of default forgets them.
_decision_caches: list[dict[tuple[Any, ...], bool]] = []


def _forget_decisions(_default: object = None) -> None:
    for d in _decision_caches:
        d.clear()


_dt._default_listeners.append(_forget_decisions)


def _computes_in(config: TensorIteratorConfig, tensors: Sequence[Tensor], dt: _dt.dtype, device_type: str) -> bool:
    """TensorIterator's compute_types gives these inputs the common dtype `dt`, computes in it, and
    raises nothing (check_all_same_dtype)."""
    common = compute_common_dtype(config, tensors)
    if common in _dt.bits_dtypes or dt in _dt.bits_dtypes:  # refused, by the full build's checks
        return False
    if config.check_all_same_dtype and not config.promote_inputs_to_common_dtype:
        if any(t.dtype is not common for t in tensors):
            return False
    return promote_integer_to_float(config, common) is dt and compute_dtype(dt, device_type) is dt


class ElementwiseFastPath:
    """The fast set-up of one elementwise family on one backend: `kernel(kind, generic)` wraps the
    generic functional, in-place or out= kernel.

    A call that leaves every non-tensor argument at its default (`a + b`: alpha=1) skips the
    argument binder, and its checks, scalar-function choice and converted extras are made once
    per (dtype, operand pattern): checks and selection are functions of the dtype and the
    extras only."""

    __slots__ = ("device_type", "make_runner", "config_of", "select", "check", "prepare", "dispatch_check", "lead",
                 "defaults", "default_config", "runners", "plans", "keyed_plans", "same_plans", "decisions", "bind")

    def __init__(self, device_type: str, make_runner: MakeRunner, bind: Callable[..., tuple[list[Any], Extras]],
                 config_of: ConfigOf, select: Select, check: Check | None, prepare: Prepare | None,
                 dispatch_check: DeviceCheck | None, lead: int | None, defaults: Extras | None) -> None:
        self.device_type = device_type
        self.bind = bind  # the family's argument binder
        self.make_runner = make_runner
        self.config_of = config_of
        self.select = select
        self.check = check
        self.prepare = prepare
        self.dispatch_check = dispatch_check
        self.lead = lead  # the number of leading tensor arguments of a call with default extras
        self.defaults = defaults
        self.default_config: TensorIteratorConfig | None = None  # config_of(defaults), made on first use
        self.runners: dict[tuple[ScalarFn, Pattern], Runner] = {}
        self.plans: dict[tuple[_dt.dtype, Pattern], Plan] = {}  # default extras
        self.keyed_plans: dict[tuple[Any, ...], Plan] = {}  # (dtype, pattern, _extras_key(extras))
        self.same_plans: dict[_dt.dtype, Plan] = {}  # default extras, operands all arrays alike
        self.decisions: dict[tuple[Any, ...], bool] = {}  # operand signature -> the dtype side fits
        _decision_caches.append(self.decisions)

    # ---- decisions ----
    def fits(self, tensors: list[Any], config: TensorIteratorConfig) -> tuple[_dt.dtype, Pattern] | None:
        """(compute dtype, which inputs are arrays) when the fast set-up applies, else None.
        Raises AttributeError for an operand that is not a tensor (an absent optional one).
        The layout is checked on every call; the dtype side is a function of the operands'
        dtypes, wrapped-ness and having dims, decided once per such signature."""
        a = tensors[0]
        size, dt, st, dev = a._size, a.dtype, a._stride, a._device
        pattern: Pattern | None
        key: tuple[Any, ...]
        if not size:
            pattern = None
        elif len(tensors) == 2 and tensors[1]._is_wrapped_number:  # `x * 2`: an array and a Python number
            pattern, key = _ARRAY_SCALAR, (config, dt, tensors[1].dtype)
        else:  # the common case: are they all arrays alike?
            pattern, key = all_arrays(len(tensors)), (config, dt, len(tensors))
            for t in tensors:
                if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
                    pattern = None
                    break
        if pattern is None:  # some operands read as values: CPU scalars, or one element expanded
            pattern = self._pattern(tensors)
            if pattern is None:
                return None
            a = tensors[pattern.index(True)]
            size, dt, st, dev = a._size, a.dtype, a._stride, a._device
            key = (config, pattern, tuple([(t.dtype, t._is_wrapped_number, not t._size) for t in tensors]))
        if dev.type != self.device_type or st != contiguous_strides(size):
            return None
        ok = self.decisions.get(key)
        if ok is None:
            ok = self.decisions[key] = self._signature_fits(config, tensors, pattern, dt)
        return (dt, pattern) if ok else None

    @staticmethod
    def _pattern(tensors: list[Any]) -> Pattern | None:
        """Which operands are arrays, when those are alike and the others, on the CPU, read as
        values (0-dim, or one element expanded that does not broadcast the result); else None."""
        pattern = tuple(not (t._device.type == "cpu" and (not t._size or _expanded_element(t))) for t in tensors)
        if True not in pattern:
            if tensors[0]._is_wrapped_number:
                return None
            # every operand 0-dim on the CPU (`step += 1`, a scalar loss): the first is a 1-element array
            pattern = (True,) + pattern[1:]
        a = tensors[pattern.index(True)]
        size, dt, st, dev = a._size, a.dtype, a._stride, a._device
        for t, is_array in zip(tensors, pattern):
            if is_array:
                if t._size != size or t.dtype is not dt or t._device is not dev or t._stride != st:
                    return None
            elif t._size and t._size != size:
                return None
        return pattern if False in pattern else all_arrays(len(tensors))

    def _signature_fits(self, config: TensorIteratorConfig, tensors: list[Any], pattern: Pattern,
                        dt: _dt.dtype) -> bool:
        """Every operand read as a value is one TensorIterator reads as a value too (a CPU scalar),
        or sits on the CPU with the arrays (where TensorIterator broadcasts it to the same values);
        the common dtype is the arrays' and kernels compute in it."""
        if self.device_type != "cpu":
            for t, is_array in zip(tensors, pattern):
                if not is_array and not is_cpu_scalar(config, t):
                    return False
        return _computes_in(config, tensors, dt, self.device_type)

    # ---- plans ----
    def plan(self, dt: _dt.dtype, pattern: Pattern, extras: Extras, config: TensorIteratorConfig) -> Plan:
        """Checks, scalar-function choice, its runner and the extras in the compute dtype."""
        if self.check is not None:
            self.check(dt, extras)
        if self.dispatch_check is not None:
            self.dispatch_check(dt, extras, self.device_type)
        fn, names = self.select(extras)
        r = self.runners.get((fn, pattern))
        if r is None:
            r = self.runners[(fn, pattern)] = self.make_runner(fn, pattern, len(names))
        return r, [to_compute(dt, extras[n]) for n in names], config.static_dtype or dt

    def bound(self, args: tuple[Any, ...], kwargs: Extras, mode: int,
              provided: Any) -> tuple[list[Any], Extras | None]:
        """(tensors, extras), extras None for a default call that `prepare` left alone."""
        tensors: list[Any]
        extras: Extras | None
        if self.lead is not None and not kwargs and len(args) == self.lead:
            tensors, extras = list(args), None
        else:
            tensors, extras = self.bind(*args, **kwargs)
        if self.prepare is not None:
            assert self.defaults is not None or extras is not None
            e = dict(self.defaults or {}) if extras is None else extras
            tensors = self.prepare(tensors, e, mode, provided)
            if extras is None and e != self.defaults:
                extras = e
        return tensors, extras

    def setup(self, tensors: list[Any], extras: Extras | None,
              self_: Any = None) -> tuple[_dt.dtype, Pattern, Plan] | None:
        """(dtype, pattern, plan) when the fast set-up applies, else None. An in-place call (self_
        given) also needs the result dtype to be self's, self to be an array, and no other operand
        sharing its storage (the full build checks the overlap, before any check)."""
        if extras is None:
            assert self.defaults is not None
            config = self.default_config
            if config is None:
                config = self.default_config = self.config_of(self.defaults)
        else:
            config = self.config_of(extras)
        try:
            f = self.fits(tensors, config)
        except AttributeError:  # an absent optional tensor
            return None
        if f is None:
            return None
        dt, pattern = f
        if self_ is not None:
            if dt is not self_.dtype or not pattern[0] or config.static_dtype not in (None, dt):
                return None
            for t in tensors:
                if t is not self_ and t._storage is self_._storage:
                    return None
        if extras is None:
            p = self.plans.get((dt, pattern))
            if p is None:
                p = self.plans[(dt, pattern)] = self.plan(dt, pattern, self.defaults or {}, config)
                if pattern is all_arrays(len(tensors)):
                    self.same_plans[dt] = p
            return dt, pattern, p
        key = _extras_key(extras)
        if key is None:
            return dt, pattern, self.plan(dt, pattern, extras, config)
        # checks, selection and conversions are functions of the dtype and the extras: a plan that
        # passed them once holds for the same dtype, pattern and extras (`threshold_backward(g, y, 0)`)
        k = (dt, pattern, key)
        p = self.keyed_plans.get(k)
        if p is None:
            p = self.plan(dt, pattern, extras, config)
            if len(self.keyed_plans) < 1024:
                self.keyed_plans[k] = p
        return dt, pattern, p

    # ---- kernels ----
    def kernel(self, kind: str, generic: Kernel) -> Kernel:
        """The `kind` ("functional", "inplace" or "out") kernel: the fast set-up, else `generic`."""
        if kind == "out":
            return self._out_kernel(generic)
        return self._kernel(kind == "inplace", generic)

    def _kernel(self, inplace: bool, generic: Kernel) -> Kernel:
        device_type, same_plans, lead, bound, setup = (self.device_type, self.same_plans, self.lead, self.bound,
                                                       self.setup)
        direct = lead is not None and self.prepare is None
        mode = INPLACE if inplace else FUNCTIONAL

        def elementwise(*args: Any, **kwargs: Any) -> Any:
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
                        if p is not None and size and dev.type == device_type and st == contiguous_strides(size):
                            runner, cextras, out_dt = p
                            n = prod(size)
                            if not inplace:
                                out = Tensor._make(new_storage(n, out_dt, dev), size, st, 0, out_dt, dev)
                                if n:
                                    runner(out, args, dt, cextras, n)
                                return out
                            if out_dt is dt and not _shares_storage(a, args):
                                if n:
                                    runner(a, args, dt, cextras, n)
                                return a
                except AttributeError:  # an absent optional tensor
                    pass
            self_: Any = (args[0] if args else kwargs.get("self")) if inplace else None
            tensors, extras = bound(args, kwargs, mode, self_)
            f = setup(tensors, extras, self_)
            if f is None:
                return generic(*args, **kwargs)
            dt, pattern, (runner, cextras, out_dt) = f
            a = tensors[pattern.index(True)]
            size = a._size
            n = prod(size)
            result = self_ if inplace else Tensor._make(new_storage(n, out_dt, a._device), size, a._stride, 0,
                                                        out_dt, a._device)
            if n:
                runner(result, tensors, dt, cextras, n)
            return result

        return elementwise

    def _out_kernel(self, generic: Kernel) -> Kernel:
        bound, setup = self.bound, self.setup

        def out_variant(*args: Any, out: Any, **kwargs: Any) -> Any:
            """out= whose tensor already has the result's shape, dtype and contiguous layout and
            overlaps no input partially (being an input itself is fine): no resize, no temporary."""
            tensors, extras = bound(args, kwargs, OUT, out)
            f = setup(tensors, extras)
            if f is not None and isinstance(out, Tensor):
                dt, pattern, (runner, cextras, out_dt) = f
                a = tensors[pattern.index(True)]
                if (out._size == a._size and out.dtype is out_dt and out._device is a._device
                        and out._stride == a._stride):
                    storage, off = out._storage, out._offset
                    for t in tensors:
                        if t._storage is storage and (t._offset != off or t._stride != out._stride
                                                      or t._size != out._size):
                            break
                    else:
                        n = prod(a._size)
                        if n:
                            runner(out, tensors, dt, cextras, n)
                        return out
            return generic(*args, out=out, **kwargs)

        return out_variant


def _shares_storage(self_: Tensor, args: Sequence[Any]) -> bool:
    """Another operand of an in-place call reads self's storage (the full build checks the overlap)."""
    storage = self_._storage
    for t in args:
        if t is not self_ and t._storage is storage:
            return True
    return False
