"""An operator's dispatch table: computing its entries from the registered kernels and backend
fallbacks (c10's OperatorEntry::computeDispatchTableEntryWithDebug and updateDispatchTable_), the
fallthrough masks, the lookup of a key set's slot, and the table's error and dump texts.

A table is a list indexed by the runtime index of keyset.table_index_for_key(); each slot is a
tuple `(fn, mode, kernel, label)`: the hot path reads the first two, introspection reads all four.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..keyset import (
    ALIAS_KEYS,
    FULL_BACKEND_MASK,
    NUM_BACKENDS,
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
from .caches import invalidate
from .kernel import MISSING, PLAIN, AnnotatedKernel

if TYPE_CHECKING:
    from .registry import Dispatcher, OperatorEntry

# DispatchKey is an enum built from keyset.py's tables at import: a checker cannot see its members
# (DK.Undefined, ...), so the rules below name them through an untyped alias.
DK: Any = DispatchKey

# A table slot: (fn, mode, kernel or None when missing, label of where it came from).
Slot = tuple[Callable[..., Any], int, "AnnotatedKernel | None", str]
# A lookup's result: (fn, mode, the key set after the fallthrough mask).
Hit = tuple[Callable[..., Any], int, int]

_OM = OFFSETS_AND_MASKS
_NB = NUM_BACKENDS


def slot(e: OperatorEntry, ks: int) -> Hit:
    """The table lookup of call and redispatch: mask the key set `ks` (TLS already applied) with
    the operator's fallthrough mask, then read the slot of its highest key."""
    m = e.nft_mask
    ks &= m if m is not None else e.nft_per_backend[(ks & FULL_BACKEND_MASK).bit_length() - 1]
    off, mask = _OM[(ks >> _NB).bit_length()]
    fn, mode, _, _ = e.table[off + ((ks & mask) >> 1).bit_length()]
    return fn, mode, ks


# ---- computeDispatchTableEntryWithDebug -----------------------------------------------------------
def _has_kernel_for_any(e: OperatorEntry, ks: int) -> bool:
    s = DispatchKeySet(raw=int(ks))
    return any(k not in ALIAS_KEYS and e.kernels[k] and s.has(k) for k in e.kernels)


def _kernel_at(e: OperatorEntry, k: DispatchKey) -> AnnotatedKernel | None:
    lst = e.kernels.get(k)
    return lst[0] if lst else None


def compute_dispatch_table_entry(e: OperatorEntry, dispatcher: Dispatcher,
                                 k: DispatchKey) -> tuple[AnnotatedKernel | None, str]:
    """The kernel the table holds at runtime key k, and the label saying where it came from."""
    # 1. a kernel registered directly at k
    kern = _kernel_at(e, k)
    if kern is not None:
        return kern, "kernel"
    # 2. CompositeExplicitAutograd covers the backend keys
    cea = _kernel_at(e, DK.CompositeExplicitAutograd)
    if cea is not None and (k == DK.Undefined or is_included_in_alias(k, DK.CompositeExplicitAutograd)):
        return cea, "default backend kernel"
    # 3. CompositeImplicitAutograd, only where the backend behind k has no kernel of its own
    has_backend_kernel = _has_kernel_for_any(e, get_backend_key_set_from_autograd(k)) or cea is not None
    cia = _kernel_at(e, DK.CompositeImplicitAutograd)
    if cia is not None and (k == DK.Undefined or is_included_in_alias(k, DK.CompositeImplicitAutograd)):
        if k == DK.AutogradOther and _has_kernel_for_any(e, autogradother_backends):
            return AnnotatedKernel(_ambiguous_autogradother(e), PLAIN, "ambiguous_autogradother"), (
                "ambiguous autogradother"
            )
        if not has_backend_kernel:
            return cia, "math kernel"
    # 4. the Autograd alias
    ag = _kernel_at(e, DK.Autograd)
    if ag is not None and is_included_in_alias(k, DK.Autograd):
        return ag, "autograd kernel"
    # 5. a backend fallback shared by all operators
    fb = dispatcher.backend_fallbacks[table_index_for_key(k)]
    if fb is not None:
        return fb, "backend fallback"
    return None, "missing"


def _ambiguous_autogradother(entry: OperatorEntry) -> Callable[..., Any]:
    def ambiguous(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{entry.name} has kernels registered to both CompositeImplicitAutograd and a backend mapped to "
            "AutogradOther. This makes the backend kernel unreachable; the dispatcher will always prefer the "
            "CompositeImplicitAutograd lowering (see Note: [Ambiguity in AutogradOther kernel]). If you want "
            "to override CompositeImplicitAutograd, please open an issue to request a dedicated Autograd "
            "dispatch key for the backend."
        )

    return ambiguous


# ---- updateDispatchTable_ -------------------------------------------------------------------------
def update_dispatch_table_entry(e: OperatorEntry, dispatcher: Dispatcher, k: DispatchKey) -> None:
    idx = table_index_for_key(k)
    kern, label = compute_dispatch_table_entry(e, dispatcher, k)
    if kern is None:
        e.table[idx] = (_missing, MISSING, None, label)
    else:
        e.table[idx] = (kern.fn, kern.mode, kern, label)
    _set_fallthrough(e, k, kern is not None and kern.is_fallthrough)
    invalidate()


def _missing(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - the call reports the error instead
    raise AssertionError("missing kernel called without a key set")


def _set_fallthrough(e: OperatorEntry, k: DispatchKey, has_fallthrough: bool) -> None:
    # DispatchKeyExtractor::setOperatorHasFallthroughForKey
    r = key_repr(k) & ~FULL_BACKEND_MASK  # only the functionality bit
    if r == 0:
        return
    base = e.nft_per_backend
    if is_per_backend_functionality(to_functionality_key(k)):
        b = to_backend_component(k) - 1
        base[b] = (base[b] & ~r) if has_fallthrough else (base[b] | r)
    else:
        for b in range(NUM_BACKENDS):
            base[b] = (base[b] & ~r) if has_fallthrough else (base[b] | r)
    e.nft_mask = base[0] if all(m == base[0] for m in base) else None


def update_dispatch_table(e: OperatorEntry, dispatcher: Dispatcher, k: DispatchKey) -> None:
    """Recompute only the table entries a registration at k can change."""
    if k == DK.Undefined:
        update_dispatch_table_entry(e, dispatcher, k)
        return
    for rk in DispatchKeySet(raw=int(get_runtime_dispatch_key_set(k))):
        update_dispatch_table_entry(e, dispatcher, rk)
    if k in (DK.CompositeImplicitAutograd, DK.CompositeExplicitAutograd):
        update_dispatch_table_entry(e, dispatcher, DK.Undefined)
    if to_functionality_key(k) == DK.Dense:  # a backend kernel changes what its Autograd key computes
        update_dispatch_table_entry(e, dispatcher, get_autograd_key_from_backend(to_backend_component(k)))


def update_dispatch_table_full(e: OperatorEntry, dispatcher: Dispatcher) -> None:
    for k in [DK.Undefined] + RUNTIME_KEYS[1:]:
        update_dispatch_table_entry(e, dispatcher, k)


# ---- errors and dumps -----------------------------------------------------------------------------
def full_order(keys: Iterable[DispatchKey]) -> list[DispatchKey]:
    """Keys in the order PyTorch iterates DispatchKeySet(FULL): by functionality, then backend."""
    return sorted(keys, key=lambda k: (to_functionality_key(k), to_backend_component(k)))


def list_all_dispatch_keys(e: OperatorEntry) -> str:
    keys = [k for k in RUNTIME_KEYS[1:] if e.table[table_index_for_key(k)][1] != MISSING]
    return "[" + ", ".join(k.name for k in full_order(keys)) + "]"


def dump_computed_table(e: OperatorEntry) -> str:
    lines = []
    for k in [DK.Undefined] + full_order(RUNTIME_KEYS[1:]):
        _, _, kern, label = e.table[table_index_for_key(k)]
        if kern is None:
            continue
        ft = "fallthrough " if kern.is_fallthrough else ""
        lines.append(f"{k.name}: {ft}{kern.debug} [{label}]\n")
    return "".join(lines)


def report_error(e: OperatorEntry, ks: int) -> None:
    """Raise PyTorch's error for a key set whose slot has no kernel (OperatorEntry::reportError)."""
    k = DispatchKeySet(raw=ks).highest_priority_type_id()
    name = str(e.name)
    if k == DK.Undefined:
        raise NotImplementedError(
            "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
            f"but no fallback function is registered for schema {name}.  This usually means that this "
            "function requires a non-empty list of Tensors, or that you (the operator writer) forgot to "
            f"register a fallback function.  Available functions are {list_all_dispatch_keys(e)}."
            f"\n\n{dump_computed_table(e)}"
        )
    raise NotImplementedError(
        f"Could not run '{name}' with arguments from the '{k.name}' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
        "(if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        f"https://fburl.com/ptmfixes for possible resolutions. '{name}' is only available for these backends: "
        f"{list_all_dispatch_keys(e)}.\n\n{dump_computed_table(e)}"
    )
