"""Operator declarations: jtorch's native_functions.yaml, written as Python.

`declare(schema, variants=..., ...)` records a NativeFunction; `.impl(key)` registers a kernel for
it. The Python bindings (`jtorch.add`, `Tensor.add`, `Tensor.__add__`, ...) are generated from the
recorded declarations by jtorch.bindings, never written by hand.

Declaring is cheap and registering is lazy: `declare` does not parse the schema or touch the
dispatcher. It hands the dispatcher a callback (`Dispatcher.defer`) that parses the schema, def()s
the operator in the `aten` namespace and registers every kernel declared for it, in declaration
order, the first time anything looks the operator up (`jtorch.ops.aten.add`, a binding, `_C`'s
dump functions, a library registering for it). Start-up thus does not grow with the number of
operators; what the dispatcher shows once an operator is registered is what an eager registration
shows, `registered at` lines included (the declaration site is recorded when it is declared).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..dispatcher import registration_site, singleton
from ..library import Library
from ..schema import FunctionSchema, SchemaKind
from .bfloat16_support import CUDA_VIA_FLOAT32, VIA_FLOAT32, via_float32
from .unsigned_support import refusing_kernel

aten_lib = Library("aten", "DEF")
_impl_libs: dict[str, Library] = {}

VARIANTS = frozenset({"function", "method"})
_SELF = re.compile(r"[ )]self\b")

# make(dispatch_key, backend or None for Meta) -> kernel: a kernel generated per backend
KernelFactory = Callable[[str, Any], Callable]
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


@dataclass(eq=False)
class NativeFunction:
    """One overload: its schema and how it is exposed to Python. `func` (the parsed schema) is
    parsed on first use."""

    schema: str
    variants: frozenset[str]
    python_name: str | None = None       # the binding's name when it differs from the operator's
    allow_numbers_as_tensors: bool = False  # Tensor arguments after `self` accept Python numbers
    structured: bool = False
    structured_delegate: str | None = None
    kernels: dict = field(default_factory=dict)  # dispatch key -> kernel (for reading)
    site: str = ""                       # 'registered at <file>:<line>' of the declaration
    # (key, kernel, site) or (None, factory, site) registrations waiting for the operator's def;
    # None once the operator is registered with the dispatcher.
    _deferred: list | None = field(default_factory=list, repr=False)
    _func: FunctionSchema | None = field(default=None, repr=False)
    name: str = field(init=False)  # the overload name as in jtorch.ops: 'add.Tensor', 'neg'

    def __post_init__(self) -> None:
        if isinstance(self.schema, FunctionSchema):  # a parsed schema is taken as is
            self._func, self.schema = self.schema, str(self.schema)
        n = self.schema[: self.schema.find("(")]
        self.name = n.split("::", 1)[1] if "::" in n else n
        bad = self.variants - VARIANTS
        if bad:
            raise ValueError(f"{self.name}: unknown variants {sorted(bad)}")
        if "method" in self.variants and not _SELF.search(self.schema[: self.schema.rfind(" -> ")]):
            raise ValueError(f"{self.name}: a method variant needs a 'self' argument")

    @property
    def func(self) -> FunctionSchema:
        f = self._func
        if f is None:
            f = self._func = FunctionSchema.parse(self.schema)
        return f

    @property
    def base_name(self) -> str:
        """The operator name without overload: 'add', 'add_'."""
        return self.name.partition(".")[0]

    @property
    def binding_name(self) -> str:
        """The Python name of its bindings: python_name, else the operator name."""
        return self.python_name or self.base_name

    @property
    def qualified_name(self) -> str:
        return "aten::" + self.name

    @property
    def op(self) -> Any:
        """The OpOverload (jtorch.ops.aten.<name>.<overload>), looked up once."""
        op = _op_cache.get(self.name)
        if op is None:
            from .._ops import ops

            base, _, overload = self.name.partition(".")
            op = _op_cache[self.name] = getattr(getattr(ops.aten, base), overload or "default")
        return op

    @property
    def registered(self) -> bool:
        """Whether the dispatcher knows the operator yet (declarations register on first use)."""
        return self._deferred is None

    def impl(self, *keys: str) -> Callable[[Callable], Callable]:
        """Decorator: register the function as this operator's kernel for each dispatch key."""

        def register(fn: Callable) -> Callable:
            site = registration_site()
            for key in keys:
                self.kernels[key] = fn
                if self._deferred is not None:
                    self._deferred.append((key, fn, site))
                else:
                    _register_impl(self, key, fn, site)
            return fn

        return register

    def impl_backends(self, fn: Callable) -> Callable:
        """Decorator: register a backend-neutral kernel (one that reaches data only through the
        backends' stubs) for Meta and for every backend, including those registered later."""
        self.impl_per_backend(lambda key, backend: fn, _site=registration_site())
        return fn

    def impl_per_backend(self, make: KernelFactory, *, _site: str | None = None) -> None:
        """Register `make(key, backend)` for Meta (backend None) and for every backend, including
        those registered later. Kernels are made when the operator is registered (first use)."""
        site = _site or registration_site()
        if self._deferred is not None:
            self._deferred.append((None, make, site))
        else:
            _register_per_backend(self, make, site)

    def kind(self) -> SchemaKind:
        return self.func.kind()


_op_cache: dict[str, Any] = {}
declarations: list[NativeFunction] = []
by_name: dict[str, NativeFunction] = {}
by_binding_name: dict[str, list[NativeFunction]] = {}  # python name -> its overloads, in declaration order
dunders: dict[str, str] = {}  # Tensor.__add__ -> the method binding it uses ("add")
# Tensor.__rsub__ -> the function binding it calls with the operands swapped ("sub"): `2 - t`
reflected_dunders: dict[str, str] = {}


def op(name: str) -> Any:
    """The OpOverload of a declared overload by its name ('sum.dim_IntList', 'select.int'), for
    kernels that call an operator (looked up once)."""
    o = _op_cache.get(name)
    return o if o is not None else by_name[name].op


def _variants(spec: str) -> frozenset[str]:
    v = _variant_sets.get(spec)
    if v is None:
        v = _variant_sets[spec] = frozenset(v.strip() for v in spec.split(",") if v.strip())
    return v


_variant_sets: dict[str, frozenset[str]] = {}


def declare(
    schema: str,
    *,
    variants: str = "function",
    python_name: str | None = None,
    numbers_as_tensors: bool = False,
    structured: bool = False,
    structured_delegate: str | None = None,
    dunder: str = "",
) -> NativeFunction:
    """Declare one operator overload (one `func:` entry of native_functions.yaml).

    `dunder` names Tensor dunder methods that use this overload's method binding (for example
    "__add__ __radd__"); they return NotImplemented where the method would raise TypeError.
    The operator is registered with the dispatcher on first use (see the module doc).
    """
    nf = NativeFunction(schema, _variants(variants), python_name, numbers_as_tensors, structured,
                        structured_delegate, site=registration_site())
    name = nf.name
    prev = by_name.get(name)
    if prev is not None:  # report the duplicate def now, as an eager registration would
        materialize(prev)
        _materialize(nf)
    declarations.append(nf)
    by_name[name] = nf
    binding = python_name or name.partition(".")[0]
    by_binding_name.setdefault(binding, []).append(nf)
    for d in dunder.split():
        dunders[d] = binding
    singleton.defer("aten::" + name, lambda: _materialize(nf))
    return nf


# Declaration helpers, one per kind of kernel an overload can have; each returns the function, so a
# decorated kernel stays callable under its own name.
def composite_implicit_autograd(schema: str, variants: str = "function") -> Callable[[_Fn], _Fn]:
    """Declare an overload whose kernel, at CompositeImplicitAutograd, calls other operators above
    autograd: it differentiates through them, and its nodes are theirs."""
    def register(fn: _Fn) -> _Fn:
        declare(schema, variants=variants).impl("CompositeImplicitAutograd")(fn)
        return fn

    return register


def composite_explicit_autograd(schema: str, variants: str = "function", *, numbers_as_tensors: bool = False
                                ) -> Callable[[_Fn], _Fn]:
    """Declare an overload whose kernel, at CompositeExplicitAutograd (below autograd, for every
    backend), calls other operators; its gradient is the derivatives table's."""
    def register(fn: _Fn) -> _Fn:
        declare(schema, variants=variants, numbers_as_tensors=numbers_as_tensors).impl("CompositeExplicitAutograd")(fn)
        return fn

    return register


def backend_kernel(schema: str, variants: str = "function", *, python_name: str | None = None
                   ) -> Callable[[_Fn], _Fn]:
    """Declare an overload with one backend-neutral kernel, registered for Meta and for each
    backend's key (CPU, CUDA, ...; `NativeFunction.impl_backends`)."""
    def register(fn: _Fn) -> _Fn:
        declare(schema, variants=variants, python_name=python_name).impl_backends(fn)
        return fn

    return register

def reflect_dunder(dunder: str, python_name: str) -> None:
    """Bind Tensor.<dunder>(self, other), a reflected operator such as __rsub__ or __rpow__, to the
    function binding `python_name(other, self)`, a Python number `other` taken as a wrapped number
    (torch's Tensor.__rsub__ / __rpow__ / __rmod__ ... in torch/_tensor.py)."""
    reflected_dunders[dunder] = python_name


def materialize(nf: NativeFunction) -> None:
    """Register a declared operator with the dispatcher now (a no-op once it is)."""
    if nf._deferred is not None:
        singleton.resolve(nf.qualified_name)


def materialize_all() -> None:
    """Register every declared operator now (tests, and tools that walk the dispatcher)."""
    for nf in list(declarations):
        materialize(nf)


def _materialize(nf: NativeFunction) -> None:
    """The deferred registration: def, the generated BackendSelect / ADInplaceOrView kernels, then
    the kernels declared for it, in the order they were declared."""
    deferred, parsed = nf._deferred, nf.func
    if deferred is None:
        return
    nf._deferred = None
    aten_lib._define_parsed(parsed, nf.site)
    if _needs_backend_select(parsed):
        _register_impl(nf, "BackendSelect", _backend_select_kernel(nf), nf.site)
    _register_autograd(nf, parsed, deferred)
    for key, fn, site in deferred:
        if key is None:
            _register_per_backend(nf, fn, site)
        else:
            _register_impl(nf, key, fn, site)


def _impl_lib(key: str) -> Library:
    lib = _impl_libs.get(key)
    if lib is None:
        lib = _impl_libs[key] = Library("aten", "IMPL", key)
    return lib


def _register_impl(nf: NativeFunction, key: str, fn: Callable, site: str | None, raw_keyset: bool = False) -> None:
    # torch's CPU kernels refuse uint16..64 in most operators, its CUDA kernels in fewer, under their own names;
    # structured kernels refuse inside, behind their fast paths (jtorch.native.structured)
    inside = getattr(fn, "refuses_dtypes", False)
    if key == "CPU":  # bfloat16 via float32 where Numba has none
        fn = fn if inside else refusing_kernel(nf.name, fn)
        if nf.base_name in VIA_FLOAT32:
            fn = via_float32(nf.name, fn, _written(nf))
    elif key == "CUDA":
        fn = fn if inside else refusing_kernel(nf.name, fn, "cuda")
        if nf.base_name in CUDA_VIA_FLOAT32:
            fn = via_float32(nf.name, fn, _written(nf))
        fn = _device_checked(nf, fn, False)  # the generated wrapper's check runs first
    elif key == "CompositeExplicitAutograd":  # where it stands in for torch's CUDA kernel
        fn = _device_checked(nf, fn, True)
    _impl_lib(key).impl(nf.name, fn, key, _raw_keyset=raw_keyset, _site=site)


def _device_checked(nf: NativeFunction, fn: Callable, composite: bool) -> Callable:
    """fn behind torch's generated CUDA wrapper's device check, for the operators that have one (the
    table loads on the first registration, not at import)."""
    from .cuda_device_check import CHECKED, UNCHECKED, device_checked

    if nf.name not in CHECKED or nf.name in UNCHECKED:
        return fn
    return device_checked(nf.name, nf.func.arguments, fn, composite=composite)


def _written(nf: NativeFunction) -> tuple[str, ...]:
    """The names (and, as strings, the positions) of the arguments an operator writes."""
    out: list[str] = []
    for i, a in enumerate(nf.func.arguments):
        if a.is_write:
            out += [a.name] if a.kwarg_only else [a.name, str(i)]
    return tuple(out)


def _register_per_backend(nf: NativeFunction, make: KernelFactory, site: str) -> None:
    from ..backends import on_backend

    fn = make("Meta", None)
    nf.kernels["Meta"] = fn
    _register_impl(nf, "Meta", fn, site)
    now = [True]  # backends registered already take the declaration's site, later ones their own

    def register(b: Any) -> None:
        k = make(b.dispatch_key, b)
        undo: list[Callable[[], None]] = []
        if b.missing():  # a partial backend: an operator whose kernel needs a missing method has none
            k = _missing_reported(nf, b.dispatch_key, k, undo)
        nf.kernels[b.dispatch_key] = k
        _register_impl(nf, b.dispatch_key, k, site if now[0] else None)
        undo.append(_impl_lib(b.dispatch_key)._undos[-1])

    on_backend(register)
    now[0] = False


def _missing_reported(nf: NativeFunction, key: str, kernel: Callable, undo: list[Callable[[], None]]) -> Callable:
    """`kernel` for a backend that leaves some methods of the contract out. When the kernel reaches
    one (the contract's MissingKernel), the backend has no kernel for this operator, as in torch: the
    registration is withdrawn and the dispatcher reports its own "Could not run ..." error. Backends
    implementing the whole contract (CPU, CUDA) register their kernels unwrapped."""
    from ..backends import MissingKernel
    from ..dispatcher.table import report_error
    from ..keyset import DispatchKeySet, parse_dispatch_key

    def kernel_or_missing(*args: Any, **kwargs: Any) -> Any:
        try:
            return kernel(*args, **kwargs)
        except MissingKernel as e:
            if e.dispatch_key != key:
                raise
            entry = singleton.find_op(nf.qualified_name)
            if entry is None:
                raise
            while undo:
                undo.pop()()
            report_error(entry, int(DispatchKeySet([parse_dispatch_key(key)])))
            raise  # pragma: no cover - report_error raises

    return kernel_or_missing


def _needs_backend_select(schema: FunctionSchema) -> bool:
    """Factories (a `device` argument and no tensor to dispatch on) pick their backend in BackendSelect."""
    has_device = any(a.name == "device" and a.type.base_name == "Device" for a in schema.arguments)
    has_tensor = any(a.type.is_tensor_like() and not a.is_out for a in schema.arguments)
    return has_device and not has_tensor


def _backend_select_kernel(nf: NativeFunction) -> Callable:
    """The generated BackendSelect kernel: redispatch to the backend named by `device=`."""
    from ..device import _default, as_device, device

    op = None

    def backend_select(*args: Any, **kwargs: Any) -> Any:
        nonlocal op
        if op is None:
            op = nf.op
        d = kwargs.get("device") if kwargs else None
        if d is None and _default.device is not None:  # set_default_device / `with device(...)`
            d = kwargs["device"] = _default.device
        dev = d if type(d) is device else as_device(d)
        return op.redispatch(dev._key_set & _FULL_BACKEND_DENSE, *args, **kwargs)

    return backend_select


def _dense_only() -> int:
    from ..keyset import DispatchKey, DispatchKeySet

    return int(DispatchKeySet([DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.PrivateUse1, DispatchKey.Meta]))


_FULL_BACKEND_DENSE = _dense_only()


def _register_autograd(nf: NativeFunction, parsed: FunctionSchema, deferred: list) -> None:
    """The generated ADInplaceOrView kernel (mutating and view operators) and Autograd kernel (every
    operator that does not differentiate through a CompositeImplicitAutograd decomposition)."""
    from ..autograd import inplace_or_view, load, variable_type

    if "aten" not in load.provided:
        from .._ops import ops

        load.provided["aten"] = ops.aten
    get_op = lambda: nf.op  # noqa: E731 - looked up on first call: the handle exists after the def
    if inplace_or_view.needs_kernel(parsed):
        _register_impl(nf, "ADInplaceOrView", inplace_or_view.inplace_or_view_kernel(parsed, get_op), nf.site,
                       raw_keyset=True)
    if any(key == "CompositeImplicitAutograd" for key, _, _ in deferred):
        return
    info = load.info_for(nf.name, parsed)
    not_impl = info is None and not load.is_non_differentiable(nf.name)
    _register_impl(nf, "Autograd", variable_type.autograd_kernel(parsed, get_op, info, not_impl), nf.site,
                   raw_keyset=True)
