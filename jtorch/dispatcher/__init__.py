"""The dispatcher: a faithful re-implementation of c10's Dispatcher, one job per file.

Read in the order a call takes (`a + b`: the binding calls the operator's generated call):

- `generated_call.py`: each operator's own call, generated from its schema, which bindings call
  (torchgen's `at::_ops::<op>::call`);
- `dispatch.py`: the generic call and redispatch: key set, TLS, the cached lookup, the calling
  conventions (`Dispatcher::call`, `Dispatcher::redispatch`);
- `extractor.py`: which arguments carry keys, and the code generated to OR their key sets
  (`DispatchKeyExtractor`);
- `table.py`: an operator's dispatch table: computing its entries, the fallthrough masks, the
  lookup of a key set's slot, the error and dump texts (`OperatorEntry::
  computeDispatchTableEntryWithDebug`, `updateDispatchTable_`, `reportError`);
- `caches.py`: the lookups kept per key set, emptied by generation, and the lock registration holds;
- `registry.py`: OperatorEntry, the Dispatcher singleton, lazy declaration, every registration
  (`Dispatcher`, `OperatorEntry`);
- `kernel.py`: a registered kernel: its function, calling convention and registration site
  (`KernelFunction`);
- `instrumentation.py`: the dispatch trace, observers, and the installing of the handle's
  `__call__`/`redispatch` (`TORCH_SHOW_DISPATCH_TRACE`, `RecordFunction`).

Key sets are ints with PyTorch's bit layout (keyset.py); the thread-local include/exclude sets
live in tls.py. This module re-exports the public API, so `from jtorch.dispatcher import X` names
one home for each X.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import instrumentation as _instrumentation
from . import registry as _registry
from .caches import caching as _caching
from .caches import generation as _generation
from .caches import invalidate as _invalidate
from .caches import keep as _keep
from .dispatch import call, compute_keyset, redispatch, redispatch_function
from .extractor import make_extractor
from .generated_call import make_call, op_call
from .instrumentation import (
    ObserverHandle,
    _observers,
    add_observer,
    register_handle_class,
    set_dispatch_trace,
    trace_enabled,
)
from .kernel import (
    BOXED,
    BOXED_WITH_KEYSET,
    FALLTHROUGH,
    MISSING,
    PLAIN,
    WITH_KEYSET,
    WITH_RAW_KEYSET,
    AnnotatedKernel,
    fallthrough_kernel,
    make_kernel,
    registration_site,
)
from .registry import Dispatcher, OperatorEntry, is_alias_key, singleton

__all__ = [
    "BOXED", "BOXED_WITH_KEYSET", "FALLTHROUGH", "MISSING", "PLAIN", "WITH_KEYSET", "WITH_RAW_KEYSET",
    "AnnotatedKernel", "Dispatcher", "ObserverHandle", "OperatorEntry", "add_observer", "call", "compute_keyset",
    "fallthrough_kernel", "is_alias_key", "make_call", "make_extractor", "make_kernel", "op_call", "redispatch",
    "redispatch_function", "register_handle_class", "registration_site", "set_dispatch_trace", "singleton",
    "trace_enabled",
    # state that tests and benches read as `dispatcher.<name>`
    "_caching", "_generation", "_invalidate", "_keep", "_observers",
]

# State read as `dispatcher.<name>` by tests and benches: the shared objects are re-exported above
# (_observers, _generation, _keep, _caching, _invalidate); these two flags are rebound where they
# live (instrumentation.set_dispatch_trace, registry's once-per-process override warning), so a
# read goes there. Set them there too (monkeypatch.setattr(dispatcher.registry, ...)).
if TYPE_CHECKING:
    _trace: bool
    _warned_override: bool
else:
    _REBOUND = {"_trace": _instrumentation, "_warned_override": _registry}

    def __getattr__(name: str) -> Any:
        home = _REBOUND.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return getattr(home, name)
