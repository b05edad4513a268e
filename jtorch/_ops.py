"""Operator handles: `jtorch.ops.<ns>.<name>` (OpOverloadPacket) and `.<overload>` (OpOverload).

An OpOverload is PyTorch's TypedOperatorHandle: calling it is `Dispatcher::call`; its `__call__`
and `redispatch` are installed by the dispatcher (plain or instrumented), so the hot path has no
extra Python frame.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import dispatcher as _dispatcher
from .dispatcher import OperatorEntry, singleton


class OpOverload:
    """One operator overload, e.g. `jtorch.ops.aten.add.Tensor`."""

    __slots__ = ("_entry", "_packet", "__name__", "_overloadname", "__weakref__")

    def __init__(self, entry: OperatorEntry, packet: OpOverloadPacket) -> None:
        self._entry = entry
        self._packet = packet
        self._overloadname = entry.name.overload_name or "default"
        self.__name__ = f"{entry.name.name}.{self._overloadname}"
        entry.handle = self

    # __call__(self, *args, **kwargs), redispatch(self, keyset, *args, **kwargs) and
    # redispatch_function(self, keyset, cache, key) come from the dispatcher; their types, for the type
    # checker (what a call returns depends on the operator's schema):
    if TYPE_CHECKING:
        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
        def redispatch(self, keyset: int, /, *args: Any, **kwargs: Any) -> Any: ...
        def redispatch_function(self, keyset: int, cache: dict[int, Any], key: int) -> Callable[..., Any]: ...

    @property
    def _schema(self) -> Any:
        return self._entry.schema

    @property
    def namespace(self) -> str | None:
        return self._entry.name.namespace

    def name(self) -> str:
        return str(self._entry.name)

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._packet

    def _qualified(self) -> str:
        return f"{self._entry.name.namespace}.{self._entry.name.name}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._qualified()}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self._qualified()}.{self._overloadname}"

    def __hash__(self) -> int:
        return id(self)


_dispatcher.register_handle_class(OpOverload)


class OpOverloadPacket:
    """All overloads of one operator name; calling it picks the overload that the arguments fit."""

    def __init__(self, ns: str, name: str) -> None:
        self._ns = ns
        self._name = name
        self._overloads: dict[str, OpOverload] = {}
        self.__name__ = name

    def overloads(self) -> list[str]:
        return [ov or "default" for ov in singleton.overload_names(f"{self._ns}::{self._name}")]

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        op = self._overloads.get(overload)
        if op is not None and op._entry.schema is not None:
            return op
        full = f"{self._ns}::{self._name}" + ("" if overload == "default" else f".{overload}")
        entry = singleton.find_op(full)
        if entry is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload name '{overload}'")
        op = entry.handle if isinstance(entry.handle, OpOverload) else OpOverload(entry, self)
        self._overloads[overload] = op
        if overload not in _PACKET_NAMES:  # later lookups are plain attribute reads, until invalidate()
            setattr(self, overload, op)
        return op

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .schema_check import fits, no_overload_error

        ops = [getattr(self, ov) for ov in self.overloads()]
        for op in ops:
            if fits(op._entry, args, kwargs, explain=False) is None:
                return op(*args, **kwargs)
        errors = [fits(op._entry, args, kwargs) for op in ops]
        if len(errors) == 1:  # a single overload reports its own error, as torch does
            raise RuntimeError(errors[0])
        raise no_overload_error(errors)  # type: ignore[arg-type]  # explained: each is a text

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self) -> str:
        return f"{self._ns}.{self._name}"


class _OpNamespace:
    """`jtorch.ops.<ns>`: packets by name, created on first access and cached."""

    def __init__(self, ns: str) -> None:
        self.name = ns
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        p = self._packets.get(name)
        if p is not None:
            return p
        if not singleton.overload_names(f"{self.name}::{name}"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{name}'")
        p = self._packets[name] = OpOverloadPacket(self.name, name)
        if name not in _NAMESPACE_NAMES:  # later lookups are plain attribute reads, until invalidate()
            setattr(self, name, p)
        return p

    def __dir__(self) -> list[str]:
        prefix = self.name + "::"
        return sorted({n[len(prefix):].split(".")[0] for n in singleton.all_op_names() if n.startswith(prefix)})


class _Ops:
    """`jtorch.ops`: namespaces by name."""

    def __init__(self) -> None:
        self._namespaces: dict[str, _OpNamespace] = {}

    def __getattr__(self, ns: str) -> _OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        n = self._namespaces.get(ns)
        if n is None:
            n = self._namespaces[ns] = _OpNamespace(ns)
        return n


ops = _Ops()

# Resolved packets and overloads are cached as instance attributes (`aten.mm.default` in a
# derivative formula is then two plain attribute reads, not two __getattr__ calls); a name that
# the class or instance already uses is left to __getattr__.
_PACKET_NAMES = frozenset(dir(OpOverloadPacket)) | {"_ns", "_name", "_overloads", "__name__"}
_NAMESPACE_NAMES = frozenset(dir(_OpNamespace)) | {"name", "_packets"}


def invalidate(ns: str, name: str) -> None:
    """Forget cached handles for ns::name after its definitions changed."""
    n = ops._namespaces.get(ns)
    if n is not None:
        p = n._packets.pop(name, None)
        n.__dict__.pop(name, None)
        if p is not None:
            for ov in p._overloads:
                p.__dict__.pop(ov, None)
            p._overloads.clear()
