"""`jtorch.library`: TORCH_LIBRARY / TORCH_LIBRARY_IMPL / TORCH_LIBRARY_FRAGMENT from Python.

A Library remembers every registration it made (as undo callables, like C++'s
RegistrationHandleRAII) so `_destroy()` restores the dispatcher exactly.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from .dispatcher import fallthrough_kernel, make_kernel, registration_site, singleton
from .keyset import DispatchKey, parse_dispatch_key
from .schema import FunctionSchema, OperatorName

__all__ = ["Library", "fallthrough_kernel", "impl", "define"]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
# The dispatcher's own (reentrant) lock: a lookup may register a lazily declared operator
# (Dispatcher.defer) while holding it, and that registration comes back through a Library.
_lock = singleton.lock


def _run_undos(undos: list[Callable[[], None]]) -> None:
    while undos:
        undos.pop()()


class Library:
    """A set of registrations for one namespace (torch.library.Library).

    kind "DEF" may define operators and is unique per namespace, "FRAGMENT" may define operators
    alongside other fragments, "IMPL" only registers kernels (and, in namespace "_", fallbacks).
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns == "_" and kind != "IMPL":  # torch: the global namespace only takes fallbacks
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._debug = registration_site()
        self._undos: list[Callable[[], None]] = []
        self._op_defs: set[str] = set()
        self._destroyed = False
        if kind == "DEF":
            self._undos.append(singleton.register_library(ns, self._debug))
        # Undo on garbage collection too, like torch's finalizer, without keeping self alive.
        self._finalizer = weakref.finalize(self, _cleanup, self._undos, self._op_defs)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _check_alive(self) -> None:
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")

    def define(self, schema: str, alias_analysis: str = "", *, tags: tuple = ()) -> str:
        """Define an operator from its schema string; returns the operator's name (without overload)."""
        self._check_alive()
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        return self._define_parsed(FunctionSchema.parse(schema), registration_site())

    def _define_parsed(self, parsed: FunctionSchema, site: str) -> str:
        """define() of a parsed schema, with the registration site already known (jtorch's lazily
        registered declarations record where they were declared)."""
        self._check_alive()
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{parsed.name.name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  '
                "All def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  "
                f"(Error occurred while processing TORCH_LIBRARY_IMPL block at {self._debug})"
            )
        if parsed.name.namespace is None:
            parsed = parsed.with_namespace(self.ns)
        elif parsed.name.namespace != self.ns:
            block = "TORCH_LIBRARY_FRAGMENT" if self.kind == "FRAGMENT" else "TORCH_LIBRARY"
            raise RuntimeError(
                f"Explicitly provided namespace ({parsed.name.namespace}) in schema string does not match "
                f"namespace of enclosing {block} block ({self.ns}).  Move this definition to the "
                f"(unique) TORCH_LIBRARY block corresponding to this namespace (and consider deleting the "
                f"namespace from your schema string.)  (Error occurred while processing {block} block "
                f"at {self._debug})"
            )
        with _lock:
            self._undos.append(singleton.register_def(parsed, site))
        self._op_defs.add(f"{self.ns}::{parsed.name.name}")
        _refresh_ops(self.ns, parsed.name.name)
        return parsed.name.name

    def _resolve(self, op_name: Any) -> OperatorName:
        if hasattr(op_name, "_entry"):  # an OpOverload
            return op_name._entry.name
        name = str(op_name)
        if "::" not in name:
            name = f"{self.ns}::{name}"
        ns, rest = name.split("::", 1)
        base, _, overload = rest.partition(".")
        return OperatorName(ns, base, overload)

    def impl(self, op_name: Any, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False,
             _raw_keyset: bool = False, _site: str | None = None) -> None:
        """Register `fn` for `op_name` at `dispatch_key` (default: the library's key, else
        CompositeImplicitAutograd). `with_keyset=True` passes the current DispatchKeySet first."""
        self._check_alive()
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        key = _key(dispatch_key or self.dispatch_key or "CompositeImplicitAutograd")
        name = self._resolve(op_name)
        kernel = make_kernel(fn, _site or registration_site(), with_keyset=with_keyset, raw_keyset=_raw_keyset)
        with _lock:
            self._undos.append(singleton.register_impl(name, key, kernel))

    def fallback(self, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Register a boxed fallback for every operator at a key: `fn(op, *args, **kwargs)`
        (`fn(keyset, op, ...)` with `with_keyset=True`). Only in the global namespace "_"."""
        self._check_alive()
        if self.ns != "_":
            raise RuntimeError(
                'Fallback can only be registered using library fragment on the global namespace "_" but it is '
                f'{self.ns}'
            )
        key = _key(dispatch_key or self.dispatch_key)
        kernel = make_kernel(fn, registration_site(), with_keyset=with_keyset, boxed=True)
        with _lock:
            self._undos.append(singleton.register_fallback(key, kernel))

    def _destroy(self) -> None:
        """Remove everything this library registered; tables return to what they were before it."""
        if self._destroyed:
            return
        self._destroyed = True
        self._finalizer.detach()
        with _lock:
            _run_undos(self._undos)
        _forget_ops(self._op_defs)


def _forget_ops(op_defs: set[str]) -> None:
    for qualname in list(op_defs):
        ns, name = qualname.split("::")
        _refresh_ops(ns, name)


def _cleanup(undos: list[Callable[[], None]], op_defs: set[str]) -> None:
    # The garbage-collection path of _destroy (no _lock: a collection may run while this thread holds it).
    _run_undos(undos)
    _forget_ops(op_defs)


def _key(name: str | DispatchKey) -> DispatchKey:
    return name if isinstance(name, DispatchKey) else parse_dispatch_key(name)


def _refresh_ops(ns: str, name: str) -> None:
    # jtorch.ops caches packets; a (re)definition or removal must be seen by the next lookup.
    from . import _ops

    _ops.invalidate(ns, name)


def impl(lib: Library, name: str, dispatch_key: str = "") -> Callable[[Callable], Callable]:
    """Decorator form: `@jtorch.library.impl(lib, "foo", "CPU")`."""

    def wrap(fn: Callable) -> Callable:
        lib.impl(name, fn, dispatch_key)
        return fn

    return wrap


def define(qualname: str, schema: str, *, lib: Library | None = None) -> None:
    """`jtorch.library.define("ns::name", "(Tensor x) -> Tensor")`: define with a fragment library kept alive."""
    ns, name = qualname.split("::")
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _keep_alive.append(lib)
    lib.define(name + schema)


_keep_alive: list[Library] = []
