"""Each operator's own Dispatcher::call (torchgen's `at::_ops::<op>::call`), generated from its
schema: the key extraction written inline, then the cached table lookup. Bindings call it instead
of the handle, which saves the generic call's frames.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..codegen import compile_source
from ..schema import FunctionSchema
from .caches import caching
from .dispatch import _local, bad_arguments, lookup, run
from .extractor import extractor_body
from .kernel import PLAIN, WITH_RAW_KEYSET
from .registry import OperatorEntry

_calls: dict[str, Callable[..., Callable[..., Any]]] = {}


def make_call(e: OperatorEntry) -> Callable[..., Any]:
    """The operator's generated call. While the trace or an observer is on it calls the handle."""
    assert e.schema is not None
    src = _call_source(e.schema)
    make = _calls.get(src)
    if make is None:  # operators with one layout of tensor arguments share the compiled source
        make = _calls[src] = compile_source(src, "<jtorch dispatcher call>", {})["make"]
    fn = make(e, e.handle, _local, e.cache, lookup, bad_arguments, run, PLAIN, WITH_RAW_KEYSET, caching)
    fn.__qualname__ = fn.__name__ = f"call_{e.name.name}_{e.name.overload_name or 'default'}"
    return fn


def op_call(op: Any) -> Callable[..., Any]:
    """The generated call of the operator behind handle `op` (made on first use), for bindings;
    anything that is not a defined operator's handle is returned as it is."""
    e: OperatorEntry | None = getattr(op, "_entry", None)
    if e is None or e.schema is None or e.handle is not op:
        return cast(Callable[..., Any], op)
    if e.call is None:
        e.call = make_call(e)
    return e.call


def _call_source(schema: FunctionSchema) -> str:
    lines = ["def make(e, op, _local, cache, _lookup, _bad, _run, PLAIN, WITH_RAW_KEYSET, _on):",
             "    def call(*args, **kwargs):",
             "        try:"]
    lines += ["            " + ln for ln in extractor_body(schema)]
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
