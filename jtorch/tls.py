"""Thread-local included/excluded dispatch key sets and the guards that change them
(c10/core/impl/LocalDispatchKeySet.h).

Each thread starts from PyTorch's defaults. The dispatcher's hot path reads `local.included` and
`local.exclude_mask` (the excluded set folded into a mask that keeps backend bits, so that applying
it is one `&`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from .keyset import (
    FULL_BACKEND_MASK,
    DispatchKey,
    DispatchKeySet,
    autograd_dispatch_keyset,
    autograd_dispatch_keyset_with_ADInplaceOrView,
    default_excluded_set,
    default_included_set,
    key_repr,
)


class _LocalDispatchKeySet(threading.local):
    # Class attributes are each thread's defaults: a new thread sees them until it assigns.
    included: int = int(default_included_set)
    excluded: int = int(default_excluded_set)
    exclude_mask: int = FULL_BACKEND_MASK | ~int(default_excluded_set)
    grad_enabled: bool = True  # c10's GradMode (AutogradState), per thread as in PyTorch
    inference: bool = False    # c10::InferenceMode: tensors made now are inference tensors


local = _LocalDispatchKeySet()


def is_grad_enabled() -> bool:
    """GradMode::is_enabled (the autograd front end adds no_grad and friends on top of it)."""
    return local.grad_enabled


def set_grad_enabled(mode: bool) -> None:
    local.grad_enabled = bool(mode)


def set_included(raw: int) -> None:
    local.included = raw


def set_excluded(raw: int) -> None:
    local.excluded = raw
    local.exclude_mask = FULL_BACKEND_MASK | ~raw


def tls_local_include_set() -> DispatchKeySet:
    return DispatchKeySet(raw=local.included)


def tls_local_exclude_set() -> DispatchKeySet:
    return DispatchKeySet(raw=local.excluded)


def tls_is_dispatch_key_excluded(k: DispatchKey) -> bool:
    return DispatchKeySet(raw=local.excluded).has(k)


def tls_is_dispatch_key_included(k: DispatchKey) -> bool:
    return DispatchKeySet(raw=local.included).has(k)


def _as_raw(keys: DispatchKey | DispatchKeySet | int) -> int:
    return key_repr(keys) if isinstance(keys, DispatchKey) else int(keys)


class _DispatchKeyGuard:
    """Adds keys to one of this thread's key sets inside a `with` block; `_get`/`_set` say which."""

    _get: Callable[[], int]
    _set: Callable[[int], None]

    def __init__(self, keys: DispatchKey | DispatchKeySet | int) -> None:
        self._raw = _as_raw(keys)
        self._saved: int | None = None

    def __enter__(self) -> _DispatchKeyGuard:
        if self._saved is None:
            self._saved = self._get()
            self._set(self._saved | self._raw)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            self._set(self._saved)
            self._saved = None


class IncludeDispatchKeyGuard(_DispatchKeyGuard):
    """Adds keys to this thread's included set inside a `with` block (torch._C._IncludeDispatchKeyGuard)."""

    _get = staticmethod(lambda: local.included)
    _set = staticmethod(set_included)


class ExcludeDispatchKeyGuard(_DispatchKeyGuard):
    """Adds keys to this thread's excluded set inside a `with` block (torch._C._ExcludeDispatchKeyGuard)."""

    _get = staticmethod(lambda: local.excluded)
    _set = staticmethod(set_excluded)


class AutoDispatchBelowAutograd(ExcludeDispatchKeyGuard):
    """Skip the Autograd keys: what an autograd kernel does around its redispatch."""

    def __init__(self) -> None:
        super().__init__(autograd_dispatch_keyset)


class AutoDispatchBelowADInplaceOrView(ExcludeDispatchKeyGuard):
    """Skip Autograd and ADInplaceOrView: what a functional autograd kernel does around its redispatch."""

    def __init__(self) -> None:
        super().__init__(autograd_dispatch_keyset_with_ADInplaceOrView)
