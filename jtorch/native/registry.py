"""Operator declarations: jtorch's native_functions.yaml, written as Python.

`declare(schema, variants=..., ...)` parses the schema, defines the operator in the `aten`
namespace, and records a NativeFunction; `.impl(key)` registers a kernel for it. The Python
bindings (`jtorch.add`, `Tensor.add`, `Tensor.__add__`, ...) are generated from the recorded
declarations by jtorch.bindings, never written by hand.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..library import Library
from ..schema import FunctionSchema, SchemaKind

aten_lib = Library("aten", "DEF")
_impl_libs: dict[str, Library] = {}

VARIANTS = frozenset({"function", "method"})


@dataclass(frozen=True)
class NativeFunction:
    """One overload: its schema and how it is exposed to Python."""

    func: FunctionSchema
    variants: frozenset[str]
    python_name: str | None = None       # the binding's name when it differs from the operator's
    allow_numbers_as_tensors: bool = False  # Tensor arguments after `self` accept Python numbers
    structured: bool = False
    structured_delegate: str | None = None
    kernels: dict = field(default_factory=dict, compare=False)  # dispatch key -> kernel (for reading)

    def __post_init__(self) -> None:
        bad = self.variants - VARIANTS
        if bad:
            raise ValueError(f"{self.func.name}: unknown variants {sorted(bad)}")
        if "method" in self.variants and not any(a.name == "self" for a in self.func.arguments):
            raise ValueError(f"{self.func.name}: a method variant needs a 'self' argument")

    @property
    def name(self) -> str:
        """The overload name as in jtorch.ops: 'add.Tensor', 'empty.memory_format', 'neg'."""
        n = self.func.name
        return f"{n.name}.{n.overload_name}" if n.overload_name else n.name

    @property
    def op(self) -> Any:
        """The OpOverload (jtorch.ops.aten.<name>.<overload>), looked up once."""
        op = _op_cache.get(self.name)
        if op is None:
            from .._ops import ops

            n = self.func.name
            op = _op_cache[self.name] = getattr(getattr(ops.aten, n.name), n.overload_name or "default")
        return op

    def impl(self, *keys: str) -> Callable[[Callable], Callable]:
        """Decorator: register the function as this operator's kernel for each dispatch key."""

        def register(fn: Callable) -> Callable:
            for key in keys:
                lib = _impl_libs.get(key)
                if lib is None:
                    lib = _impl_libs[key] = Library("aten", "IMPL", key)
                lib.impl(self.name, fn, key)
                self.kernels[key] = fn
            return fn

        return register

    def impl_backends(self, fn: Callable) -> Callable:
        """Decorator: register a backend-neutral kernel (one that reaches data only through the
        backends' stubs) for Meta and for every backend, including those registered later."""
        from ..backends import on_backend

        self.impl("Meta")(fn)
        on_backend(lambda b: self.impl(b.dispatch_key)(fn))
        return fn

    def kind(self) -> SchemaKind:
        return self.func.kind()


_op_cache: dict[str, Any] = {}
declarations: list[NativeFunction] = []
by_name: dict[str, NativeFunction] = {}
dunders: dict[str, str] = {}  # Tensor.__add__ -> the method binding it uses ("add")
# Tensor.__rsub__ -> the function binding it calls with the operands swapped ("sub"): `2 - t`
reflected_dunders: dict[str, str] = {}


def _variants(spec: str) -> frozenset[str]:
    return frozenset(v.strip() for v in spec.split(",") if v.strip())


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
    """
    parsed = FunctionSchema.parse(schema)
    nf = NativeFunction(parsed, _variants(variants), python_name, numbers_as_tensors, structured, structured_delegate)
    aten_lib.define(schema)
    declarations.append(nf)
    by_name[nf.name] = nf
    if _needs_backend_select(parsed):
        nf.impl("BackendSelect")(_backend_select_kernel(nf))
    if any(a.annotation is not None and a.annotation.is_write for a in parsed.arguments):
        _register_inplace_or_view(nf)
    for d in dunder.split():
        dunders[d] = nf.python_name or parsed.name.name
    return nf


def reflect_dunder(dunder: str, python_name: str) -> None:
    """Bind Tensor.<dunder>(self, other), a reflected operator such as __rsub__ or __rpow__, to the
    function binding `python_name(other, self)`, a Python number `other` taken as a wrapped number
    (torch's Tensor.__rsub__ / __rpow__ / __rmod__ ... in torch/_tensor.py)."""
    reflected_dunders[dunder] = python_name


def _needs_backend_select(schema: FunctionSchema) -> bool:
    """Factories (a `device` argument and no tensor to dispatch on) pick their backend in BackendSelect."""
    has_device = any(a.name == "device" and a.type.base_name == "Device" for a in schema.arguments)
    has_tensor = any(a.type.is_tensor_like() and not a.is_out for a in schema.arguments)
    return has_device and not has_tensor


def _backend_select_kernel(nf: NativeFunction) -> Callable:
    """The generated BackendSelect kernel: redispatch to the backend named by `device=`."""
    from ..device import as_device, device

    op = None

    def backend_select(*args: Any, **kwargs: Any) -> Any:
        nonlocal op
        if op is None:
            op = nf.op
        d = kwargs.get("device") if kwargs else None
        dev = d if type(d) is device else as_device(d)
        return op.redispatch(dev._key_set & _FULL_BACKEND_DENSE, *args, **kwargs)

    return backend_select


def _dense_only() -> int:
    from ..keyset import DispatchKey, DispatchKeySet

    return int(DispatchKeySet([DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.PrivateUse1, DispatchKey.Meta]))


_FULL_BACKEND_DENSE = _dense_only()


def _register_inplace_or_view(nf: NativeFunction) -> None:
    """The generated ADInplaceOrView kernel of a mutating operator: run below it, then bump the
    version counter of every argument the schema marks as written (`Tensor(a!)`)."""
    from .. import tls as _tls
    from ..keyset import after_ADInplaceOrView_keyset, autograd_dispatch_keyset_with_ADInplaceOrView

    mask = int(after_ADInplaceOrView_keyset)
    below = int(autograd_dispatch_keyset_with_ADInplaceOrView)
    written = []
    pos = 0
    for a in nf.func.arguments:
        if a.annotation is not None and a.annotation.is_write:
            written.append((None if a.kwarg_only else pos, a.name))
        if not a.kwarg_only:
            pos += 1
    op = None

    def ad_inplace_or_view(ks: int, *args: Any, **kwargs: Any) -> Any:
        nonlocal op
        if op is None:
            op = nf.op
        # As PyTorch's ADInplaceOrView kernels: redispatch under AutoDispatchBelowADInplaceOrView, so
        # operators the kernel calls do not come back through this key (and bump versions twice).
        saved = _tls.local.excluded
        _tls.set_excluded(saved | below)
        try:
            result = op.redispatch(ks & mask, *args, **kwargs)
        finally:
            _tls.set_excluded(saved)
        for p, name in written:
            t = args[p] if p is not None and p < len(args) else kwargs.get(name)
            if t is not None:
                if isinstance(t, (list, tuple)):
                    for x in t:
                        x._vc.value += 1
                else:
                    t._vc.value += 1
        return result

    lib = _impl_libs.get("ADInplaceOrView")
    if lib is None:
        lib = _impl_libs["ADInplaceOrView"] = Library("aten", "IMPL", "ADInplaceOrView")
    lib.impl(nf.name, ad_inplace_or_view, "ADInplaceOrView", _raw_keyset=True)
