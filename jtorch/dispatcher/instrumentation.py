"""Instrumentation: the dispatch trace (JTORCH_SHOW_DISPATCH_TRACE=1, PyTorch's
TORCH_SHOW_DISPATCH_TRACE) and per-call observers (RecordFunction), and the installing of the
operator handle's `__call__`/`redispatch`: the plain hot path (dispatch.py) while neither is on, the
instrumented one below while either is, so that instrumentation off costs nothing.
"""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..keyset import DispatchKeySet
from . import caches
from .dispatch import _local, bad_arguments, call, redispatch, redispatch_function, run
from .kernel import PLAIN
from .table import slot

Observer = Callable[[str, DispatchKeySet, tuple[Any, ...], dict[str, Any]], Any]


class _Depth(threading.local):
    value = 0


_depth = _Depth()
_observers: list[ObserverHandle] = []
_trace = os.environ.get("JTORCH_SHOW_DISPATCH_TRACE", "") not in ("", "0")
_handle_classes: list[type] = []


def trace_enabled() -> bool:
    return _trace


def _print_trace(label: str, op: Any, ks: int) -> None:
    key = DispatchKeySet(raw=ks).highest_priority_type_id()
    sys.stderr.write(" " * _depth.value + f"{label} op=[{op._entry.name}], key=[{key.name}]\n")


def _traced_call(op: Any, /, *args: Any, **kwargs: Any) -> Any:
    e = op._entry
    try:
        ks = e.extract(args, kwargs)
    except (AttributeError, IndexError, KeyError, TypeError):
        bad_arguments(e, args, kwargs)
    fn, mode, ks = slot(e, (ks | _local.included) & _local.exclude_mask)
    if _trace:
        _print_trace("[call]", op, ks)
    observers = list(_observers)
    name = str(e.name)
    keyset = DispatchKeySet(raw=ks)
    for o in observers:
        o.start(name, keyset, args, kwargs)
    _depth.value += 1
    try:
        return fn(*args, **kwargs) if mode == PLAIN else run(op, fn, mode, ks, args, kwargs)
    finally:
        _depth.value -= 1
        for o in observers:
            if o.end is not None:
                o.end(name, keyset, args, kwargs)


def _traced_redispatch(op: Any, keyset: int, /, *args: Any, **kwargs: Any) -> Any:
    if _trace:
        _print_trace("[redispatch]", op, slot(op._entry, int(keyset))[2])
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
    with caches.lock:
        caches.caching[0] = not slow
        caches.invalidate()  # cached lookups would skip the instrumented steps
    methods = {"__call__": _traced_call if slow else call, "redispatch": _traced_redispatch if slow else redispatch,
               "redispatch_function": redispatch_function}
    for cls in _handle_classes:
        for name, fn in methods.items():
            setattr(cls, name, fn)


def set_dispatch_trace(enabled: bool) -> None:
    """Turn the dispatch trace on or off (JTORCH_SHOW_DISPATCH_TRACE=1 turns it on at import)."""
    global _trace
    _trace = bool(enabled)
    _install()


@dataclass(eq=False)
class ObserverHandle:
    start: Observer
    end: Observer | None = None
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


def add_observer(start: Observer, end: Observer | None = None) -> ObserverHandle:
    """Call `start(op_name, keyset, args, kwargs)` before and `end(...)` after every dispatcher call.

    With no observer registered the dispatcher runs its uninstrumented path: zero cost.
    """
    h = ObserverHandle(start, end)
    _observers.append(h)
    _install()
    return h
