"""`jtorch._C`: the names torch exposes from its C extension for the dispatcher, same spellings."""
from __future__ import annotations

from typing import Any

from .dispatcher import singleton
from .keyset import DispatchKey, DispatchKeySet, after_ADInplaceOrView_keyset, after_autograd_keyset, parse_dispatch_key
from .tls import (
    AutoDispatchBelowADInplaceOrView as _AutoDispatchBelowADInplaceOrView,
)
from .tls import (
    AutoDispatchBelowAutograd as _AutoDispatchBelowAutograd,
)
from .tls import (
    ExcludeDispatchKeyGuard as _ExcludeDispatchKeyGuard,
)
from .tls import (
    IncludeDispatchKeyGuard as _IncludeDispatchKeyGuard,
)
from .tls import (
    tls_is_dispatch_key_excluded as _dispatch_tls_is_dispatch_key_excluded,
)
from .tls import (
    tls_is_dispatch_key_included as _dispatch_tls_is_dispatch_key_included,
)
from .tls import (
    tls_local_exclude_set as _dispatch_tls_local_exclude_set,
)
from .tls import (
    tls_local_include_set as _dispatch_tls_local_include_set,
)

_after_autograd_keyset = after_autograd_keyset
_after_ADInplaceOrView_keyset = after_ADInplaceOrView_keyset

__all__ = [
    "DispatchKey", "DispatchKeySet", "_after_autograd_keyset", "_after_ADInplaceOrView_keyset",
    "_IncludeDispatchKeyGuard", "_ExcludeDispatchKeyGuard", "_AutoDispatchBelowAutograd",
    "_AutoDispatchBelowADInplaceOrView", "_dispatch_tls_local_include_set", "_dispatch_tls_local_exclude_set",
    "_dispatch_tls_is_dispatch_key_included", "_dispatch_tls_is_dispatch_key_excluded", "_dispatch_dump",
    "_dispatch_dump_table", "_dispatch_keys", "_dispatch_has_kernel_for_dispatch_key", "_dispatch_has_kernel",
    "_dispatch_key_for_device",
]


def _dispatch_dump(name: str) -> str:
    """OperatorEntry::dumpState: the schema and every registered kernel ('' for an unknown operator)."""
    e = singleton.operators.get(name)
    return e.dump_state() if e is not None else ""


def _dispatch_dump_table(name: str) -> str:
    """OperatorEntry::dumpComputedTable: '<Key>: <debug> [<label>]' for every key with a kernel."""
    e = singleton.operators.get(name)
    return e.dump_computed_table() if e is not None else ""


def _dispatch_keys(t: Any) -> DispatchKeySet:
    return DispatchKeySet(raw=t._key_set)


def _dispatch_has_kernel_for_dispatch_key(name: str, key: str | DispatchKey) -> bool:
    """True if a kernel was registered directly at `key` (alias keys count as themselves)."""
    e = singleton.operators.get(name)
    if e is None:
        raise RuntimeError(f"operator {name} does not exist")
    k = parse_dispatch_key(key) if isinstance(key, str) else key
    return bool(e.kernels.get(k))


def _dispatch_has_kernel(name: str) -> bool:
    return singleton.find_op(name) is not None


def _dispatch_key_for_device(device_type: str) -> str:
    return {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "privateuseone": "PrivateUse1"}[device_type]
