"""The hot path (c10's Dispatcher::call and Dispatcher::redispatch): extract the key set, fold in
the thread-local include/exclude sets, look the slot up (through the operator's cache), call the
kernel in its calling convention. An operator's generated call (generated_call.py) is this, with
the key extraction written inline.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn

from .. import tls
from ..keyset import DispatchKeySet
from .caches import caching, generation, keep
from .kernel import BOXED, BOXED_WITH_KEYSET, MISSING, PLAIN, WITH_KEYSET, WITH_RAW_KEYSET
from .registry import OperatorEntry
from .table import Hit, report_error, slot

_local = tls.local


def lookup(e: OperatorEntry, ks: int) -> Hit:
    """The slot of key set `ks` (TLS applied), kept in the operator's cache."""
    made_in = generation[0]
    hit = slot(e, ks)
    keep(e.cache, ks, hit, made_in)
    return hit


def bad_arguments(entry: OperatorEntry, args: tuple[Any, ...], kwargs: dict[str, Any]) -> NoReturn:
    """Raise PyTorch's error for arguments that do not fit the schema (slow path only)."""
    from ..schema_check import check_arguments  # late: only ever needed for an error

    check_arguments(entry, args, kwargs)
    raise  # pragma: no cover - check_arguments always raises when the extractor failed


def run(op: Any, fn: Callable[..., Any], mode: int, ks: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
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
        report_error(op._entry, ks)
    # FALLTHROUGH slots are normally masked out; if one is reached anyway, skip its functionality.
    fk = DispatchKeySet(raw=ks).highest_functionality_key()
    return redispatch(op, DispatchKeySet(raw=ks).remove(fk), *args, **kwargs)


def call(op: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Dispatcher::call: extract the key set, apply TLS and fallthrough masks, look up, call."""
    e = op._entry
    try:
        ks = e.extract(args, kwargs)
    except (AttributeError, IndexError, KeyError, TypeError):
        bad_arguments(e, args, kwargs)
    ks = (ks | _local.included) & _local.exclude_mask
    hit = e.cache.get(ks)
    if hit is None:
        hit = lookup(e, ks)
    fn, mode, ks = hit
    if mode == PLAIN:
        return fn(*args, **kwargs)
    if mode == WITH_RAW_KEYSET:  # the generated Autograd / ADInplaceOrView kernels
        return fn(ks, *args, **kwargs)
    return run(op, fn, mode, ks, args, kwargs)


def redispatch(op: Any, keyset: int, /, *args: Any, **kwargs: Any) -> Any:
    """Dispatcher::redispatch: the caller supplies the key set (usually masked below its own key).
    A slot depends on the key set alone, so redispatch shares call's cache."""
    e = op._entry
    ks = int(keyset)
    hit = e.cache.get(ks)
    if hit is None:
        hit = lookup(e, ks)
    fn, mode, ks = hit
    if mode == PLAIN:
        return fn(*args, **kwargs)
    if mode == WITH_RAW_KEYSET:  # the generated Autograd / ADInplaceOrView kernels
        return fn(ks, *args, **kwargs)
    return run(op, fn, mode, ks, args, kwargs)


def redispatch_function(op: Any, keyset: int, cache: dict[Any, Any], key: Any) -> Callable[..., Any]:
    """What `op.redispatch(keyset, *args, **kwargs)` would call, as one callable of (*args,
    **kwargs), kept in the caller's `cache` under `key` (a kernel's own key set): the generated
    kernels that redispatch below their key (Autograd, ADInplaceOrView) find it there next time
    with one dict lookup instead of a redispatch. Not kept while the trace or an observer is on."""
    if not caching[0]:
        return functools.partial(op.redispatch, keyset)
    made_in = generation[0]
    fn, mode, ks = slot(op._entry, int(keyset))
    f: Callable[..., Any]
    if mode == PLAIN:
        f = fn
    elif mode == WITH_RAW_KEYSET:
        f = functools.partial(fn, ks)
    else:
        f = functools.partial(_run_star, op, fn, mode, ks)
    keep(cache, key, f, made_in)
    return f


def _run_star(op: Any, fn: Callable[..., Any], mode: int, ks: int, *args: Any, **kwargs: Any) -> Any:
    return run(op, fn, mode, ks, args, kwargs)


def compute_keyset(op: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> DispatchKeySet:
    """The key set `call` would dispatch on (for tests and introspection)."""
    e = op._entry
    return DispatchKeySet(raw=slot(e, (e.extract(args, kwargs) | _local.included) & _local.exclude_mask)[2])
