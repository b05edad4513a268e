"""The generation-counted dispatch caches, and the dispatcher's lock that guards them.

A table lookup depends only on the key set (TLS already folded in) and on the tables, masks and
fallbacks, which change only by registration. So each lookup's result is kept per key set (an
operator's `cache`, a generated kernel's redispatch cache), and every registration (a table
entry's update), and turning the trace or observers on or off, empties every cache that holds
something. While the trace or an observer is on, nothing is cached: the instrumented call and
redispatch then see every step. A lookup that raced a registration is not kept: each invalidation
starts a new generation, and only a lookup made within the current one is stored (under the
dispatcher's lock, which registration holds).
"""
from __future__ import annotations

import threading
from typing import Any

# The dispatcher's lock (Dispatcher.lock): registration holds it while it changes tables.
lock = threading.RLock()

_filled: list[dict[Any, Any]] = []  # the caches that hold entries since the last invalidate
caching = [True]                    # False while the trace or an observer is on
generation = [0]


def invalidate() -> None:
    """Forget every cached lookup (the caller holds the dispatcher's lock)."""
    generation[0] += 1
    if _filled:
        for d in _filled:
            d.clear()
        _filled.clear()


def keep(cache: dict[Any, Any], key: Any, value: Any, made_in: int) -> None:
    """Store a lookup made in generation `made_in`, unless a registration has happened since."""
    with lock:
        if caching[0] and made_in == generation[0]:
            if not cache:
                _filled.append(cache)
            cache[key] = value
