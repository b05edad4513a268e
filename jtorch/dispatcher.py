"""The dispatcher: one OperatorEntry per operator, its dispatch table, backend fallbacks, call and redispatch.

Mirrors c10/core/dispatch/{Dispatcher,OperatorEntry,DispatchKeyExtractor}.cpp. A table is a list
indexed by the runtime index of keyset.table_index(); each slot is a tuple
`(fn, mode, kernel, label)`: the hot path reads the first two, introspection reads all four.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import tls
from .keyset import (
    ALIAS_KEYS,
    FULL,
    FULL_BACKEND_MASK,
    NUM_BACKENDS,
    NUM_RUNTIME_ENTRIES,
    OFFSETS_AND_MASKS,
    RUNTIME_KEYS,
    DispatchKey,
    DispatchKeySet,
    autogradother_backends,
    get_autograd_key_from_backend,
    get_backend_key_set_from_autograd,
    get_runtime_dispatch_key_set,
    is_included_in_alias,
    is_per_backend_functionality,
    key_repr,
    table_index_for_key,
    to_backend_component,
    to_functionality_key,
)
from .schema import FunctionSchema, OperatorName

DK = DispatchKey

# How a table slot's function is called (the hot path branches on this small int).
PLAIN, WITH_KEYSET, BOXED, BOXED_WITH_KEYSET, FALLTHROUGH, MISSING, WITH_RAW_KEYSET = range(7)


class _FallthroughKernel:
    """The sentinel `jtorch.library.fallthrough_kernel`: a kernel that means 'skip this key'."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - never called
        raise RuntimeError("fallthrough_kernel should never be called directly")

    def __repr__(self) -> str:
        return "fallthrough_kernel"


fallthrough_kernel = _FallthroughKernel()


@dataclass(eq=False)
class AnnotatedKernel:
    """A registered kernel with how to call it and where it was registered."""

    fn: Callable
    mode: int
    debug: str

    @property
    def is_fallthrough(self) -> bool:
        return self.mode == FALLTHROUGH


def make_kernel(fn: Callable, debug: str, *, with_keyset: bool = False, boxed: bool = False,
                raw_keyset: bool = False) -> AnnotatedKernel:
    """raw_keyset: jtorch's own generated kernels take the key set as a plain int (no boxing)."""
    if fn is fallthrough_kernel:
        return AnnotatedKernel(fn, FALLTHROUGH, debug)
    if raw_keyset:
        return AnnotatedKernel(fn, WITH_RAW_KEYSET, debug)
    mode = (BOXED_WITH_KEYSET if with_keyset else BOXED) if boxed else (WITH_KEYSET if with_keyset else PLAIN)
    return AnnotatedKernel(fn, mode, debug)


_HERE = os.path.dirname(os.path.abspath(__file__))
# Files that register on someone else's behalf: the debug string names their caller instead.
_MACHINERY = frozenset(os.path.join(_HERE, *p.split("/")) for p in (
    "dispatcher.py", "library.py", "backends.py", "native/registry.py", "native/structured.py",
    "native/elementwise.py", "structured/structured.py", "structured/elementwise.py",
))


_is_machinery: dict[str, bool] = {}


def registration_site(depth_hint: int = 2) -> str:
    """'registered at <file>:<line>' of the first caller outside jtorch's registration machinery."""
    f = sys._getframe(depth_hint)
    while f is not None:
        name = f.f_code.co_filename
        machinery = _is_machinery.get(name)
        if machinery is None:  # every declaration asks: remember each file's answer
            machinery = _is_machinery[name] = os.path.abspath(name) in _MACHINERY
        if not machinery:
            break
        f = f.f_back
    if f is None:  # pragma: no cover
        return "registered at <unknown>"
    return f"registered at {f.f_code.co_filename}:{f.f_lineno}"


# ---- key extraction (DispatchKeyExtractor) ---------------------------------------------------------
def _dispatch_arguments(schema: FunctionSchema) -> list[tuple[int | None, str, str]]:
    """(positional index or None, name, kind) of each argument that contributes to the key set."""
    out = []
    pos = 0
    for a in schema.arguments:
        base = a.type.base_name
        kind = None
        if base == "Tensor":
            if a.type.is_optional() and a.type.elem.is_list():  # Tensor[]?: None or a list
                kind = "listopt"
            elif a.type.is_list():
                kind = "optlist" if a.type.elem.is_optional() else "list"
            else:
                kind = "opt" if a.type.is_optional() else "tensor"
        elif base == "Generator":
            kind = "opt"
        if kind is not None:
            out.append((None if a.kwarg_only else pos, a.name, kind))
        if not a.kwarg_only:
            pos += 1
    return out


def make_extractor(schema: FunctionSchema) -> Callable[[tuple, dict], int]:
    """Generate the per-schema key extractor: positional arguments read without any loop.

    A wrong argument type surfaces as AttributeError/IndexError/KeyError, which the caller turns
    into PyTorch's 'Expected a value of type ...' error.
    """
    src = "\n".join(["def extract(args, kwargs):"] + ["    " + ln for ln in _extractor_body(schema)]
                    + ["    return ks"])
    fn = _extractors.get(src)
    if fn is None:  # many operators share a layout of tensor arguments: compile each layout once
        ns: dict[str, Any] = {}
        exec(compile(src, "<extractor>", "exec"), ns)
        fn = _extractors[src] = ns["extract"]
    return fn


def _extractor_body(schema: FunctionSchema) -> list[str]:
    """Statements that OR the key sets of `args`/`kwargs`' tensors into `ks` (shared by the
    extractor and the generated per-operator call)."""
    npos = sum(1 for a in schema.arguments if not a.kwarg_only)
    # Too many positional arguments would reach the kernel: one comparison sends them to the error path.
    lines = ["n = len(args)", f"if n > {npos}: raise IndexError", "ks = 0"]
    for pos, name, kind in _dispatch_arguments(schema):
        get = f"(args[{pos}] if n > {pos} else kwargs[{name!r}])" if pos is not None else f"kwargs.get({name!r})"
        if kind == "tensor":  # required: a missing one raises KeyError -> PyTorch's 'missing value' error
            get = get if pos is not None else f"kwargs[{name!r}]"
            lines.append(f"ks |= {get}._key_set")
        elif kind == "listopt":
            if pos is not None:
                get = f"(args[{pos}] if n > {pos} else kwargs.get({name!r}))"
            lines += [f"xs = {get}", "if xs is not None:", "    for x in xs:", "        ks |= x._key_set"]
        elif kind == "opt":
            if pos is not None:
                get = f"(args[{pos}] if n > {pos} else kwargs.get({name!r}))"
            lines += [f"x = {get}", "if x is not None:", "    ks |= x._key_set"]
        else:
            guard = "if x is not None: " if kind == "optlist" else ""
            lines += [f"for x in {get}:", f"    {guard}ks |= x._key_set"]
    return lines


_extractors: dict[str, Callable[[tuple, dict], int]] = {}


def _no_schema_extractor(args: tuple, kwargs: dict) -> int:
    ks = 0
    for a in list(args) + list(kwargs.values()):
        ks |= getattr(a, "_key_set", 0)
        if isinstance(a, (list, tuple)):
            for x in a:
                ks |= getattr(x, "_key_set", 0)
    return ks


# ---- OperatorEntry ---------------------------------------------------------------------------
class OperatorEntry:
    """Everything the dispatcher knows about one operator overload."""

    def __init__(self, name: OperatorName) -> None:
        self.name = name
        self.schema: FunctionSchema | None = None
        self.schema_debug = ""
        self.kernels: dict[DispatchKey, list[AnnotatedKernel]] = {}
        self.table: list[tuple] = [None] * NUM_RUNTIME_ENTRIES  # type: ignore[list-item]
        self.extract: Callable[[tuple, dict], int] = _no_schema_extractor
        # nft_mask: keys without a fallthrough (all backend bits kept); None -> use nft_per_backend.
        self.nft_mask: int | None = FULL
        self.nft_per_backend: list[int] = [FULL] * NUM_BACKENDS
        self.handle: Any = None  # the OpOverload, passed to boxed fallbacks
        # key set (after TLS) -> (fn, mode, key set after the fallthrough mask): the table lookup
        # done once per key set; emptied by any registration (see `_invalidate`)
        self.cache: dict[int, tuple] = {}
        self.call: Callable | None = None  # this operator's generated call (make_call), once def()ed

    def __repr__(self) -> str:
        return f"OperatorEntry({self.name})"

    # -- computeDispatchTableEntryWithDebug --
    def _has_kernel_for_any(self, ks: int) -> bool:
        s = DispatchKeySet(raw=int(ks))
        return any(k not in ALIAS_KEYS and self.kernels[k] and s.has(k) for k in self.kernels)

    def _kernel_at(self, k: DispatchKey) -> AnnotatedKernel | None:
        lst = self.kernels.get(k)
        return lst[0] if lst else None

    def compute_entry(self, dispatcher: Dispatcher, k: DispatchKey) -> tuple[AnnotatedKernel | None, str]:
        # 1. a kernel registered directly at k
        kern = self._kernel_at(k)
        if kern is not None:
            return kern, "kernel"
        # 2. CompositeExplicitAutograd covers the backend keys
        cea = self._kernel_at(DK.CompositeExplicitAutograd)
        if cea is not None and (k == DK.Undefined or is_included_in_alias(k, DK.CompositeExplicitAutograd)):
            return cea, "default backend kernel"
        # 3. CompositeImplicitAutograd, only where the backend behind k has no kernel of its own
        has_backend_kernel = self._has_kernel_for_any(get_backend_key_set_from_autograd(k)) or cea is not None
        cia = self._kernel_at(DK.CompositeImplicitAutograd)
        if cia is not None and (k == DK.Undefined or is_included_in_alias(k, DK.CompositeImplicitAutograd)):
            if k == DK.AutogradOther and self._has_kernel_for_any(autogradother_backends):
                return AnnotatedKernel(_ambiguous_autogradother(self), PLAIN, "ambiguous_autogradother"), (
                    "ambiguous autogradother"
                )
            if not has_backend_kernel:
                return cia, "math kernel"
        # 4. the Autograd alias
        ag = self._kernel_at(DK.Autograd)
        if ag is not None and is_included_in_alias(k, DK.Autograd):
            return ag, "autograd kernel"
        # 5. a backend fallback shared by all operators
        idx = table_index_for_key(k)
        fb = dispatcher.backend_fallbacks[idx]
        if fb is not None:
            return fb, "backend fallback"
        return None, "missing"

    def update_entry(self, dispatcher: Dispatcher, k: DispatchKey) -> None:
        idx = table_index_for_key(k)
        kern, label = self.compute_entry(dispatcher, k)
        if kern is None:
            self.table[idx] = (self._missing, MISSING, None, label)
        else:
            self.table[idx] = (kern.fn, kern.mode, kern, label)
        self._set_fallthrough(k, kern is not None and kern.is_fallthrough)
        _invalidate()

    def _set_fallthrough(self, k: DispatchKey, has_fallthrough: bool) -> None:
        # DispatchKeyExtractor::setOperatorHasFallthroughForKey
        r = key_repr(k) & ~FULL_BACKEND_MASK  # only the functionality bit
        if r == 0:
            return
        base = self.nft_per_backend
        if is_per_backend_functionality(to_functionality_key(k)):
            b = to_backend_component(k) - 1
            base[b] = (base[b] & ~r) if has_fallthrough else (base[b] | r)
        else:
            for b in range(NUM_BACKENDS):
                base[b] = (base[b] & ~r) if has_fallthrough else (base[b] | r)
        self.nft_mask = base[0] if all(m == base[0] for m in base) else None

    def update_table(self, dispatcher: Dispatcher, k: DispatchKey) -> None:
        """Recompute only the table entries a registration at k can change (updateDispatchTable_)."""
        if k == DK.Undefined:
            self.update_entry(dispatcher, k)
            return
        for rk in DispatchKeySet(raw=int(get_runtime_dispatch_key_set(k))):
            self.update_entry(dispatcher, rk)
        if k in (DK.CompositeImplicitAutograd, DK.CompositeExplicitAutograd):
            self.update_entry(dispatcher, DK.Undefined)
        fk = to_functionality_key(k)
        if fk == DK.Dense:  # a backend kernel changes what its Autograd key computes
            self.update_entry(dispatcher, get_autograd_key_from_backend(to_backend_component(k)))

    def update_all(self, dispatcher: Dispatcher) -> None:
        for k in [DK.Undefined] + RUNTIME_KEYS[1:]:
            self.update_entry(dispatcher, k)

    # -- errors and introspection --
    def _missing(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - replaced by report_error
        raise AssertionError("missing kernel called without a key set")

    def list_all_dispatch_keys(self) -> str:
        keys = [k for k in RUNTIME_KEYS[1:] if self.table[table_index_for_key(k)][1] != MISSING]
        return "[" + ", ".join(k.name for k in _full_order(keys)) + "]"

    def report_error(self, ks: int) -> None:
        k = DispatchKeySet(raw=ks).highest_priority_type_id()
        name = str(self.name)
        if k == DK.Undefined:
            raise NotImplementedError(
                "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
                f"but no fallback function is registered for schema {name}.  This usually means that this "
                "function requires a non-empty list of Tensors, or that you (the operator writer) forgot to "
                f"register a fallback function.  Available functions are {self.list_all_dispatch_keys()}."
                f"\n\n{self.dump_computed_table()}"
            )
        raise NotImplementedError(
            f"Could not run '{name}' with arguments from the '{k.name}' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            "(if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
            f"https://fburl.com/ptmfixes for possible resolutions. '{name}' is only available for these backends: "
            f"{self.list_all_dispatch_keys()}.\n\n{self.dump_computed_table()}"
        )

    def dump_computed_table(self) -> str:
        lines = []
        for k in [DK.Undefined] + _full_order(RUNTIME_KEYS[1:]):
            _, _, kern, label = self.table[table_index_for_key(k)]
            if kern is None:
                continue
            ft = "fallthrough " if kern.is_fallthrough else ""
            lines.append(f"{k.name}: {ft}{kern.debug} [{label}]\n")
        return "".join(lines)

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


def _full_order(keys: Iterable[DispatchKey]) -> list[DispatchKey]:
    """Keys in the order PyTorch iterates DispatchKeySet(FULL): by functionality, then backend."""
    return sorted(keys, key=lambda k: (to_functionality_key(k), to_backend_component(k)))


def _ambiguous_autogradother(entry: OperatorEntry) -> Callable:
    def ambiguous(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{entry.name} has kernels registered to both CompositeImplicitAutograd and a backend mapped to "
            "AutogradOther. This makes the backend kernel unreachable; the dispatcher will always prefer the "
            "CompositeImplicitAutograd lowering (see Note: [Ambiguity in AutogradOther kernel]). If you want "
            "to override CompositeImplicitAutograd, please open an issue to request a dedicated Autograd "
            "dispatch key for the backend."
        )

    return ambiguous


# ---- the Dispatcher singleton --------------------------------------------------------------------
class _Operators(dict):
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

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key in self._pending:
            self._resolve(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if key in self._pending:
            self._resolve(key)  # type: ignore[arg-type]
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
        self.lock = threading.RLock()

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
            e.update_all(self)
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
            e.call = None  # made on first use (make_call): needs the handle
            packet = self.packets.setdefault(f"{schema.name.namespace}::{schema.name.name}", {})
            packet[schema.name.overload_name] = None

        def undo() -> None:
            with self.lock:
                e.schema, e.schema_debug = None, ""
                e.extract = _no_schema_extractor
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
            e.update_table(self, key)

        def undo() -> None:
            with self.lock:
                lst = e.kernels.get(key, [])
                if kernel in lst:
                    lst.remove(kernel)
                if not lst:
                    e.kernels.pop(key, None)
                e.update_table(self, key)
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
                    e.update_table(self, k)

        def undo() -> None:
            with self.lock:
                for k in keys:
                    self.backend_fallbacks[table_index_for_key(k)] = None
                    for e in self.operators.values():
                        e.update_table(self, k)

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


# ---- call / redispatch: the hot path ------------------------------------------------------------
_local = tls.local
_OM = OFFSETS_AND_MASKS
_NB = NUM_BACKENDS


def _bad_arguments(entry: OperatorEntry, args: tuple, kwargs: dict) -> None:
    """Raise PyTorch's error for arguments that do not fit the schema (slow path only)."""
    from .schema_check import check_arguments  # late: only ever needed for an error

    check_arguments(entry, args, kwargs)
    raise  # pragma: no cover - check_arguments always raises when the extractor failed


def _run(op: Any, fn: Callable, mode: int, ks: int, args: tuple, kwargs: dict) -> Any:
    """The less common calling conventions (everything but PLAIN)."""
    if mode == WITH_RAW_KEYSET:
        return fn(ks, *args, **kwargs)
    if mode == WITH_KEYSET:
        return fn(DispatchKeySet(raw=ks), *args, **kwargs)
    if mode == BOXED:
        return fn(op, *args, **kwargs)
    if mode == BOXED_WITH_KEYSET:
        return fn(DispatchKeySet(raw=ks), op, *args, **kwargs)
    if mode == MISSING:
        op._entry.report_error(ks)
    # FALLTHROUGH slots are normally masked out; if one is reached anyway, skip its functionality.
    fk = DispatchKeySet(raw=ks).highest_functionality_key()
    return redispatch(op, DispatchKeySet(raw=ks).remove(fk), *args, **kwargs)


def call(op: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Dispatcher::call: extract the key set, apply TLS and fallthrough masks, look up, call."""
    e = op._entry
    try:
        ks = e.extract(args, kwargs)
    except (AttributeError, IndexError, KeyError, TypeError):
        _bad_arguments(e, args, kwargs)
    ks = (ks | _local.included) & _local.exclude_mask
    hit = e.cache.get(ks)
    if hit is None:
        hit = _lookup(e, ks)
    fn, mode, ks = hit
    if mode == PLAIN:
        return fn(*args, **kwargs)
    if mode == WITH_RAW_KEYSET:  # the generated Autograd / ADInplaceOrView kernels
        return fn(ks, *args, **kwargs)
    return _run(op, fn, mode, ks, args, kwargs)


# ---- dispatch caches ------------------------------------------------------------------------------
# A table lookup depends only on the key set (TLS already folded in) and on the tables, masks and
# fallbacks, which change only by registration. So each lookup's result is kept per key set, and
# every registration (update_entry), and turning the trace or observers on or off, empties every
# cache that holds something. While the trace or an observer is on, nothing is cached: the
# instrumented call and redispatch then see every step. A lookup that raced a registration is not
# kept: each invalidation starts a new generation, and only a lookup made within the current one
# is stored (under the dispatcher's lock, which registration holds).
_filled: list[dict] = []  # the caches that hold entries since the last _invalidate
_caching = [True]         # False while the trace or an observer is on
_generation = [0]


def _invalidate() -> None:
    """Forget every cached lookup (the caller holds the dispatcher's lock)."""
    _generation[0] += 1
    if _filled:
        for d in _filled:
            d.clear()
        _filled.clear()


def _keep(cache: dict, key: int, value: Any, generation: int) -> None:
    with singleton.lock:
        if _caching[0] and generation == _generation[0]:
            if not cache:
                _filled.append(cache)
            cache[key] = value


def _slot(e: OperatorEntry, ks: int) -> tuple:
    """(fn, mode, key set after the fallthrough mask): the table lookup of call and redispatch."""
    m = e.nft_mask
    ks &= m if m is not None else e.nft_per_backend[(ks & FULL_BACKEND_MASK).bit_length() - 1]
    off, mask = _OM[(ks >> _NB).bit_length()]
    fn, mode, _, _ = e.table[off + ((ks & mask) >> 1).bit_length()]
    return fn, mode, ks


def _lookup(e: OperatorEntry, ks: int) -> tuple:
    """_slot for a key set with TLS applied, kept in the operator's cache."""
    generation = _generation[0]
    hit = _slot(e, ks)
    _keep(e.cache, ks, hit, generation)
    return hit


def redispatch_function(op: Any, keyset: int, cache: dict, key: int) -> Callable:
    """What `op.redispatch(keyset, *args, **kwargs)` would call, as one callable of (*args,
    **kwargs), kept in the caller's `cache` under `key` (a kernel's own key set): the generated
    kernels that redispatch below their key (Autograd, ADInplaceOrView) find it there next time
    with one dict lookup instead of a redispatch. Not kept while the trace or an observer is on."""
    if not _caching[0]:
        return functools.partial(op.redispatch, keyset)
    generation = _generation[0]
    fn, mode, ks = _slot(op._entry, int(keyset))
    if mode == PLAIN:
        f = fn
    elif mode == WITH_RAW_KEYSET:
        f = functools.partial(fn, ks)
    else:
        f = functools.partial(_run_star, op, fn, mode, ks)
    _keep(cache, key, f, generation)
    return f


def _run_star(op: Any, fn: Callable, mode: int, ks: int, *args: Any, **kwargs: Any) -> Any:
    return _run(op, fn, mode, ks, args, kwargs)


def make_call(e: OperatorEntry) -> Callable:
    """The operator's own Dispatcher::call (torchgen's `at::_ops::<op>::call`): its key extraction
    written inline, then the cached table lookup. Bindings call it instead of the handle, which
    saves the generic call's frames. While the trace or an observer is on it calls the handle."""
    src = _call_source(e.schema)
    make = _calls.get(src)
    if make is None:  # operators with one layout of tensor arguments share the compiled source
        ns: dict[str, Any] = {}
        exec(compile(src, "<jtorch dispatcher call>", "exec"), ns)
        make = _calls[src] = ns["make"]
    fn = make(e, e.handle, _local, e.cache, _lookup, _bad_arguments, _run, PLAIN, WITH_RAW_KEYSET, _caching)
    fn.__qualname__ = fn.__name__ = f"call_{e.name.name}_{e.name.overload_name or 'default'}"
    return fn


_calls: dict[str, Callable] = {}


def op_call(op: Any) -> Callable:
    """The generated call of the operator behind handle `op` (made on first use), for bindings;
    anything that is not a defined operator's handle is returned as it is."""
    e = getattr(op, "_entry", None)
    if e is None or e.schema is None or e.handle is not op:
        return op
    if e.call is None:
        e.call = make_call(e)
    return e.call


def _call_source(schema: FunctionSchema) -> str:
    body = _extractor_body(schema)
    lines = ["def make(e, op, _local, cache, _lookup, _bad, _run, PLAIN, WITH_RAW_KEYSET, _on):",
             "    def call(*args, **kwargs):",
             "        try:"]
    lines += ["            " + ln for ln in body]
    lines += ["        except (AttributeError, IndexError, KeyError, TypeError):",
              "            _bad(e, args, kwargs)",
              "        ks = (ks | _local.included) & _local.exclude_mask",
              "        hit = cache.get(ks)",
              "        if hit is None:",
              "            if not _on[0]:",  # trace or observers on: the instrumented handle
              "                return op(*args, **kwargs)",
              "            hit = _lookup(e, ks)",
              "        fn, mode, ks = hit",
              "        if mode == PLAIN:",
              "            return fn(*args, **kwargs)",
              "        if mode == WITH_RAW_KEYSET:",
              "            return fn(ks, *args, **kwargs)",
              "        return _run(op, fn, mode, ks, args, kwargs)",
              "    return call"]
    return "\n".join(lines)


def redispatch(op: Any, keyset: int, /, *args: Any, **kwargs: Any) -> Any:
    """Dispatcher::redispatch: the caller supplies the key set (usually masked below its own key)."""
    e = op._entry
    ks = int(keyset)
    m = e.nft_mask
    ks &= m if m is not None else e.nft_per_backend[(ks & FULL_BACKEND_MASK).bit_length() - 1]
    off, mask = _OM[(ks >> _NB).bit_length()]
    fn, mode, _, _ = e.table[off + ((ks & mask) >> 1).bit_length()]
    if mode == PLAIN:
        return fn(*args, **kwargs)
    if mode == WITH_RAW_KEYSET:  # the generated Autograd / ADInplaceOrView kernels
        return fn(ks, *args, **kwargs)
    return _run(op, fn, mode, ks, args, kwargs)


def _masked(e: OperatorEntry, extracted: int) -> int:
    ks = (extracted | _local.included) & _local.exclude_mask
    m = e.nft_mask
    return ks & (m if m is not None else e.nft_per_backend[(ks & FULL_BACKEND_MASK).bit_length() - 1])


def compute_keyset(op: Any, args: tuple, kwargs: dict) -> DispatchKeySet:
    """The key set `call` would dispatch on (for tests and introspection)."""
    return DispatchKeySet(raw=_masked(op._entry, op._entry.extract(args, kwargs)))


# ---- instrumentation: dispatch trace and per-call observers (RecordFunction) -----------------------
class _Depth(threading.local):
    value = 0


_depth = _Depth()
_observers: list[ObserverHandle] = []
_trace = os.environ.get("JTORCH_SHOW_DISPATCH_TRACE", "") not in ("", "0")
_handle_classes: list[type] = []


def _print_trace(label: str, op: Any, ks: int) -> None:
    key = DispatchKeySet(raw=ks).highest_priority_type_id()
    sys.stderr.write(" " * _depth.value + f"{label} op=[{op._entry.name}], key=[{key.name}]\n")


def _traced_call(op: Any, /, *args: Any, **kwargs: Any) -> Any:
    e = op._entry
    try:
        ks = e.extract(args, kwargs)
    except (AttributeError, IndexError, KeyError, TypeError):
        _bad_arguments(e, args, kwargs)
    ks = _masked(e, ks)
    if _trace:
        _print_trace("[call]", op, ks)
    observers = list(_observers)
    name = str(e.name)
    keyset = DispatchKeySet(raw=ks)
    for o in observers:
        o.start(name, keyset, args, kwargs)
    _depth.value += 1
    try:
        off, mask = _OM[(ks >> _NB).bit_length()]
        fn, mode, _, _ = e.table[off + ((ks & mask) >> 1).bit_length()]
        return fn(*args, **kwargs) if mode == PLAIN else _run(op, fn, mode, ks, args, kwargs)
    finally:
        _depth.value -= 1
        for o in observers:
            if o.end is not None:
                o.end(name, keyset, args, kwargs)


def _traced_redispatch(op: Any, keyset: int, /, *args: Any, **kwargs: Any) -> Any:
    if _trace:
        e = op._entry
        m = e.nft_mask
        ks = int(keyset)
        ks &= m if m is not None else e.nft_per_backend[(ks & FULL_BACKEND_MASK).bit_length() - 1]
        _print_trace("[redispatch]", op, ks)
    _depth.value += 1
    try:
        return redispatch(op, keyset, *args, **kwargs)
    finally:
        _depth.value -= 1


def register_handle_class(cls: type) -> None:
    """The operator-handle class (OpOverload) whose __call__/redispatch the dispatcher installs."""
    _handle_classes.append(cls)
    _install()


def _install() -> None:
    slow = _trace or bool(_observers)
    with singleton.lock:
        _caching[0] = not slow
        _invalidate()  # cached lookups would skip the instrumented steps
    for cls in _handle_classes:
        cls.__call__ = _traced_call if slow else call
        cls.redispatch = _traced_redispatch if slow else redispatch
        cls.redispatch_function = redispatch_function


def set_dispatch_trace(enabled: bool) -> None:
    """Turn the dispatch trace on or off (JTORCH_SHOW_DISPATCH_TRACE=1 turns it on at import)."""
    global _trace
    _trace = bool(enabled)
    _install()


@dataclass(eq=False)
class ObserverHandle:
    start: Callable[[str, DispatchKeySet, tuple, dict], Any]
    end: Callable[[str, DispatchKeySet, tuple, dict], Any] | None = None
    removed: bool = field(default=False)

    def remove(self) -> None:
        if not self.removed:
            self.removed = True
            _observers.remove(self)
            _install()

    def __enter__(self) -> ObserverHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def add_observer(
    start: Callable[[str, DispatchKeySet, tuple, dict], Any],
    end: Callable[[str, DispatchKeySet, tuple, dict], Any] | None = None,
) -> ObserverHandle:
    """Call `start(op_name, keyset, args, kwargs)` before and `end(...)` after every dispatcher call.

    With no observer registered the dispatcher runs its uninstrumented path: zero cost.
    """
    h = ObserverHandle(start, end)
    _observers.append(h)
    _install()
    return h
