"""The registry (c10's Dispatcher and OperatorEntry): one OperatorEntry per operator overload with
its schema, kernels by key, key extractor, table and handle; the Dispatcher singleton that holds
them, the backend fallbacks and the libraries, registers lazily declared operators on first
lookup, and does every registration (each returns an undo callable, like RegistrationHandleRAII).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..keyset import (
    ALIAS_KEYS,
    FULL,
    NUM_BACKENDS,
    NUM_RUNTIME_ENTRIES,
    DispatchKey,
    DispatchKeySet,
    get_runtime_dispatch_key_set,
    table_index_for_key,
)
from ..schema import FunctionSchema, OperatorName
from . import caches
from .extractor import Extractor, make_extractor, no_schema_extractor
from .kernel import AnnotatedKernel
from .table import (
    Hit,
    Slot,
    compute_dispatch_table_entry,
    dump_computed_table,
    update_dispatch_table,
    update_dispatch_table_full,
)


class OperatorEntry:
    """Everything the dispatcher knows about one operator overload."""

    def __init__(self, name: OperatorName) -> None:
        self.name = name
        self.schema: FunctionSchema | None = None
        self.schema_debug = ""
        self.kernels: dict[DispatchKey, list[AnnotatedKernel]] = {}
        self.table: list[Slot] = [None] * NUM_RUNTIME_ENTRIES  # type: ignore[list-item]  # filled next
        self.extract: Extractor = no_schema_extractor
        # nft_mask: keys without a fallthrough (all backend bits kept); None -> use nft_per_backend.
        self.nft_mask: int | None = FULL
        self.nft_per_backend: list[int] = [FULL] * NUM_BACKENDS
        self.handle: Any = None  # the OpOverload, passed to boxed fallbacks
        # key set (after TLS) -> (fn, mode, key set after the fallthrough mask): the table lookup
        # done once per key set; emptied by any registration (see caches.py)
        self.cache: dict[int, Hit] = {}
        self.call: Callable[..., Any] | None = None  # this operator's generated call, once def()ed

    def __repr__(self) -> str:
        return f"OperatorEntry({self.name})"

    def compute_entry(self, dispatcher: Dispatcher, k: DispatchKey) -> tuple[AnnotatedKernel | None, str]:
        """computeDispatchTableEntryWithDebug (see table.py)."""
        return compute_dispatch_table_entry(self, dispatcher, k)

    def dump_computed_table(self) -> str:
        return dump_computed_table(self)

    def dump_state(self) -> str:
        out = [f"name: {self.name}\n"]
        if self.schema is not None:
            out += [f"schema: {self.schema}\n", f"debug: {self.schema_debug}\n", "alias analysis kind: FROM_SCHEMA\n"]
        else:
            out.append("schema: (none)\n")
        # PyTorch iterates DispatchKey values in enum order (functionality keys, runtime per-backend
        # keys, aliases); KernelFunction::dumpState marks a fallthrough inside the brackets.
        for k in sorted(self.kernels):
            for i, kern in enumerate(self.kernels[k]):
                label = k.name + ("[alias]" if is_alias_key(k) else "") + (" (inactive)" if i else "")
                state = "fallthrough boxed " if kern.is_fallthrough else "boxed "
                out.append(f"{label}: {kern.debug} :: (none) [ {state}]\n")
        return "".join(out)


def is_alias_key(k: DispatchKey) -> bool:
    return k in ALIAS_KEYS


class _Operators(dict[str, OperatorEntry]):
    """'ns::name.overload' -> OperatorEntry; looking up an operator that was declared lazily
    (Dispatcher.defer) registers it first, so lookups cannot tell the difference."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        super().__init__()
        self._pending = dispatcher._pending
        self._resolve = dispatcher.resolve

    def __missing__(self, key: str) -> OperatorEntry:
        if key in self._pending:
            self._resolve(key)
            e = dict.get(self, key)
            if e is not None:
                return e
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:  # resolves a lazily declared operator first
        if key in self._pending:
            self._resolve(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and key in self._pending:
            self._resolve(key)
        return dict.__contains__(self, key)


class Dispatcher:
    def __init__(self) -> None:
        # Lazy registration: 'ns::name.overload' -> a callback that def()s and impl()s it. The
        # first lookup of the name runs it (a name stays pending until its callback has returned,
        # so another thread looking it up meanwhile waits on the lock instead of seeing half of it).
        self._pending: dict[str, Callable[[], None]] = {}
        self._resolving: set[str] = set()
        self._declared_order: dict[str, dict[str, int]] = {}  # 'ns::name' -> overload -> position
        self.operators: dict[str, OperatorEntry] = _Operators(self)
        self.backend_fallbacks: list[AnnotatedKernel | None] = [None] * NUM_RUNTIME_ENTRIES
        self.libraries: dict[str, str] = {}  # namespace -> debug of its DEF library
        self.packets: dict[str, dict[str, None]] = {}  # 'ns::name' -> its defined overload names
        self.lock = caches.lock  # the caches are invalidated under the lock registration holds

    # -- lazy registration --
    def defer(self, name: str, register: Callable[[], None]) -> None:
        """Register operator `name` ('ns::name.overload') on its first lookup by calling
        `register()`, which must def() it (and may impl() kernels for it)."""
        with self.lock:
            self._pending[name] = register
            packet, _, overload = name.partition(".")
            order = self._declared_order.setdefault(packet, {})
            order.setdefault(overload, len(order))

    def resolve(self, name: str) -> None:
        """Run the deferred registration of `name` now, if it has one."""
        with self.lock:
            register = self._pending.get(name)
            if register is None or name in self._resolving:
                return
            self._resolving.add(name)
            try:
                register()
            finally:
                self._resolving.discard(name)
                self._pending.pop(name, None)

    def resolve_packet(self, packet: str) -> None:
        """Register every deferred overload of 'ns::name'."""
        order = self._declared_order.get(packet)
        if order:
            for overload in list(order):
                self.resolve(f"{packet}.{overload}" if overload else packet)

    def resolve_all(self) -> None:
        for name in list(self._pending):
            self.resolve(name)

    # -- lookup --
    def find_op(self, name: str) -> OperatorEntry | None:
        e = self.operators.get(_canonical(name))
        return e if e is not None and e.schema is not None else None

    def find_schema_or_throw(self, name: str, overload: str = "") -> OperatorEntry:
        full = f"{name}.{overload}" if overload else name
        e = self.operators.get(_canonical(full))
        if e is None or e.schema is None:
            extra = " but we found an implementation; did you forget to def() the operator?" if e is not None else ""
            raise RuntimeError(f"Could not find schema for {name}.{overload}{extra}")
        return e

    def _entry(self, name: OperatorName) -> OperatorEntry:
        key = str(name)
        e = self.operators.get(key)  # a lazily declared operator is registered first
        if e is None:
            e = OperatorEntry(name)
            update_dispatch_table_full(e, self)
            self.operators[key] = e
        return e

    def overload_names(self, packet: str) -> list[str]:
        """Defined overloads of 'ns::name' ('' for the default overload), in definition order
        (declaration order for lazily declared ones, whichever was registered first)."""
        self.resolve_packet(packet)
        with self.lock:
            names = list(self.packets.get(packet, ()))
            order = self._declared_order.get(packet)
        if order:
            names.sort(key=lambda n: order.get(n, len(order)))
        return names

    def all_op_names(self) -> list[str]:
        """Every defined operator, those declared lazily and not registered yet included."""
        with self.lock:  # other threads may be registering operators right now
            names = [n for n, e in dict.items(self.operators) if e.schema is not None]
            known = set(names)
            return names + [n for n in self._pending if n not in known]

    # -- registration (each returns an undo callable, like RegistrationHandleRAII) --
    def register_library(self, ns: str, debug: str) -> Callable[[], None]:
        with self.lock:
            if ns in self.libraries:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of "
                    "your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                    "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really "
                    "intended to define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY "
                    f"was {self.libraries[ns]}; latest registration was {debug}"
                )
            self.libraries[ns] = debug

        def undo() -> None:
            with self.lock:
                self.libraries.pop(ns, None)

        return undo

    def register_def(self, schema: FunctionSchema, debug: str) -> Callable[[], None]:
        with self.lock:
            e = self._entry(schema.name)
            if e.schema is not None:
                raise RuntimeError(
                    f"Tried to register an operator ({e.schema}) with the same name and overload name multiple "
                    "times. Each overload's schema should only be registered with a single call to def(). "
                    f"Duplicate registration: {debug}. Original registration: {e.schema_debug}"
                )
            e.schema, e.schema_debug = schema, debug
            e.extract = make_extractor(schema)
            e.call = None  # made on first use (generated_call.op_call): needs the handle
            packet = self.packets.setdefault(f"{schema.name.namespace}::{schema.name.name}", {})
            packet[schema.name.overload_name] = None

        def undo() -> None:
            with self.lock:
                e.schema, e.schema_debug = None, ""
                e.extract = no_schema_extractor
                e.call = None
                key = f"{schema.name.namespace}::{schema.name.name}"
                self.packets.get(key, {}).pop(schema.name.overload_name, None)
                if not self.packets.get(key, True):
                    del self.packets[key]
                self._forget_if_unused(e)

        return undo

    def register_impl(self, name: OperatorName, key: DispatchKey, kernel: AnnotatedKernel) -> Callable[[], None]:
        with self.lock:
            e = self._entry(name)
            lst = e.kernels.setdefault(key, [])
            if lst:
                _warn_override(e, key, lst[0], kernel)
            lst.insert(0, kernel)  # newest wins
            update_dispatch_table(e, self, key)

        def undo() -> None:
            with self.lock:
                lst = e.kernels.get(key, [])
                if kernel in lst:
                    lst.remove(kernel)
                if not lst:
                    e.kernels.pop(key, None)
                update_dispatch_table(e, self, key)
                self._forget_if_unused(e)

        return undo

    def register_fallback(self, key: DispatchKey, kernel: AnnotatedKernel) -> Callable[[], None]:
        keys = list(DispatchKeySet(raw=int(get_runtime_dispatch_key_set(key)))) if key in ALIAS_KEYS else [key]
        with self.lock:
            for k in keys:
                prev = self.backend_fallbacks[table_index_for_key(k)]
                if prev is not None:
                    raise RuntimeError(
                        f"Tried to register multiple backend fallbacks for the same dispatch key {k.name}; "
                        f"previous registration {prev.debug}, new registration {kernel.debug}"
                    )
            for k in keys:
                self.backend_fallbacks[table_index_for_key(k)] = kernel
                for e in self.operators.values():
                    update_dispatch_table(e, self, k)

        def undo() -> None:
            with self.lock:
                for k in keys:
                    self.backend_fallbacks[table_index_for_key(k)] = None
                    for e in self.operators.values():
                        update_dispatch_table(e, self, k)

        return undo

    def _forget_if_unused(self, e: OperatorEntry) -> None:
        if e.schema is None and not e.kernels:
            self.operators.pop(str(e.name), None)


def _canonical(name: str) -> str:
    return name[:-1] if name.endswith(".") else name


_warned_override = False


def _warn_override(e: OperatorEntry, key: DispatchKey, prev: AnnotatedKernel, new: AnnotatedKernel) -> None:
    global _warned_override
    if _warned_override:
        return
    _warned_override = True
    schema = f"{e.schema}\n    {e.schema_debug}" if e.schema is not None else f"{e.name}\n    (none)"
    warnings.warn(
        "Warning only once for all operators,  other operators may also be overridden.\n"
        "  Overriding a previously registered kernel for the same operator and the same dispatch key\n"
        f"  operator: {schema}\n"
        f"  dispatch key: {key.name}\n"
        f"  previous kernel: {prev.debug}\n"
        f"       new kernel: {new.debug}",
        UserWarning,
        stacklevel=4,
    )


singleton = Dispatcher()
