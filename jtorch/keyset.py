"""Dispatch keys and key sets, with PyTorch's bit layout and formulas (c10/core/DispatchKey*.h).

A key set is an int: backend bits low (backend b -> bit b-1), functionality bits above them
(functionality f -> bit NUM_BACKENDS + f - 1). jtorch keeps PyTorch's relative order of keys but
only the keys a feature needs; every derived number (runtime keys, table offsets, the number of
table entries) comes from the formulas, so adding a key is one line in an enum.
"""
from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING


class BackendComponent(enum.IntEnum):
    InvalidBit = 0
    CPU = 1
    CUDA = 2
    PrivateUse1 = 3
    Meta = 4  # Meta must stay last, as in PyTorch


NUM_BACKENDS = len(BackendComponent) - 1
FULL_BACKEND_MASK = (1 << NUM_BACKENDS) - 1

# Functionality keys in PyTorch's relative order; the starred ones are per-backend.
_FUNCTIONALITY = [
    ("Undefined", False),
    ("Dense", True),
    ("BackendSelect", False),
    ("Python", False),
    ("Conjugate", False),  # the conjugate and negative bits (math_bits fallback)
    ("Negative", False),
    ("ADInplaceOrView", False),
    ("AutogradOther", False),
    ("AutogradFunctionality", True),
    ("AutocastCPU", False),
    ("AutocastCUDA", False),
]
NUM_FUNCTIONALITY_KEYS = len(_FUNCTIONALITY)
# What a per-backend functionality is called for each backend ("" for Dense: CPU, CUDA, ...).
_PER_BACKEND_PREFIX = {"Dense": "", "AutogradFunctionality": "Autograd"}
_ALIASES = ["Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd"]


def _enum_members() -> dict[str, int]:
    members: dict[str, int] = {}
    for value, (name, _) in enumerate(_FUNCTIONALITY):
        members[name] = value
    members["EndOfFunctionalityKeys"] = value = NUM_FUNCTIONALITY_KEYS
    for fname, per_backend in _FUNCTIONALITY:
        if not per_backend:
            continue
        prefix = _PER_BACKEND_PREFIX[fname]
        value += 1
        members[f"StartOf{fname}Backends"] = value
        for b in list(BackendComponent)[1:]:
            value += 1
            members[f"{prefix}{b.name}"] = value
    members["EndOfRuntimeBackendKeys"] = value
    for alias in _ALIASES:
        value += 1
        members[alias] = value
    return members


if TYPE_CHECKING:
    # What the formulas below make, written out for the type checker, which cannot run them
    # (tests/test_keyset.py checks that the two agree).
    class DispatchKey(enum.IntEnum):
        Undefined = 0
        Dense = 1
        BackendSelect = 2
        Python = 3
        Conjugate = 4
        Negative = 5
        ADInplaceOrView = 6
        AutogradOther = 7
        AutogradFunctionality = 8
        AutocastCPU = 9
        AutocastCUDA = 10
        EndOfFunctionalityKeys = 11
        StartOfDenseBackends = 12
        CPU = 13
        CUDA = 14
        PrivateUse1 = 15
        Meta = 16
        StartOfAutogradFunctionalityBackends = 17
        AutogradCPU = 18
        AutogradCUDA = 19
        AutogradPrivateUse1 = 20
        AutogradMeta = 21
        Autograd = 22
        CompositeImplicitAutograd = 23
        CompositeExplicitAutograd = 24

else:
    DispatchKey = enum.IntEnum("DispatchKey", _enum_members(), module=__name__)
    DispatchKey.__doc__ = "A dispatch key: functionality keys, runtime per-backend keys, alias keys."
    DispatchKey.__str__ = lambda self: self.name  # torch prints keys by bare name

_PER_BACKEND = frozenset(DispatchKey[n] for n, pb in _FUNCTIONALITY if pb)
NUM_PER_BACKEND_FUNCTIONALITY = len(_PER_BACKEND)
NUM_RUNTIME_ENTRIES = NUM_FUNCTIONALITY_KEYS + NUM_PER_BACKEND_FUNCTIONALITY * (NUM_BACKENDS - 1)
ALIAS_KEYS = frozenset(DispatchKey[a] for a in _ALIASES)

# runtime per-backend key -> (functionality, backend) and back
_RUNTIME_TO_PARTS: dict[DispatchKey, tuple[DispatchKey, BackendComponent]] = {}
_PARTS_TO_RUNTIME: dict[tuple[DispatchKey, BackendComponent], DispatchKey] = {}
for _f in sorted(_PER_BACKEND):
    for _b in list(BackendComponent)[1:]:
        _k = DispatchKey[f"{_PER_BACKEND_PREFIX[_f.name]}{_b.name}"]
        _RUNTIME_TO_PARTS[_k] = (_f, _b)
        _PARTS_TO_RUNTIME[(_f, _b)] = _k


def is_per_backend_functionality(k: DispatchKey) -> bool:
    return k in _PER_BACKEND


def is_alias(k: DispatchKey) -> bool:
    return k in ALIAS_KEYS


def to_functionality_key(k: DispatchKey) -> DispatchKey:
    if k < DispatchKey.EndOfFunctionalityKeys:
        return k
    parts = _RUNTIME_TO_PARTS.get(k)
    return parts[0] if parts else DispatchKey.Undefined


def to_backend_component(k: DispatchKey) -> BackendComponent:
    parts = _RUNTIME_TO_PARTS.get(k)
    return parts[1] if parts else BackendComponent.InvalidBit


def to_runtime_per_backend_key(functionality: DispatchKey, backend: BackendComponent) -> DispatchKey:
    return _PARTS_TO_RUNTIME[(functionality, backend)]


def _functionality_bit(f: int) -> int:
    return 1 << (NUM_BACKENDS + f - 1)


def key_repr(k: DispatchKey) -> int:
    """The raw key set of a single key (DispatchKeySet(k) in C++). Alias keys and Undefined are 0."""
    if k == DispatchKey.Undefined or k in ALIAS_KEYS:
        return 0
    if k <= DispatchKey.EndOfFunctionalityKeys:
        return _functionality_bit(k) if k < DispatchKey.EndOfFunctionalityKeys else 0
    f, b = _RUNTIME_TO_PARTS[k]
    return _functionality_bit(f) | (1 << (b - 1))


FULL = (1 << (NUM_BACKENDS + NUM_FUNCTIONALITY_KEYS - 1)) - 1


class DispatchKeySet(int):
    """An immutable set of dispatch keys; the int value is PyTorch's 64-bit `repr_`.

    The dispatcher's hot path works on plain ints; this class is the typed view users see.
    """

    __slots__ = ()

    def __new__(cls, keys: DispatchKey | int | Sequence[DispatchKey] | None = None, *,
                raw: int | None = None) -> DispatchKeySet:
        if raw is not None:
            return int.__new__(cls, raw)
        if keys is None:
            return int.__new__(cls, 0)
        if isinstance(keys, DispatchKey):
            return int.__new__(cls, key_repr(keys))
        if isinstance(keys, int):  # a raw repr (another key set or an int)
            return int.__new__(cls, int(keys))
        r = 0
        for k in keys:
            r |= key_repr(k)
        return int.__new__(cls, r)

    @property
    def raw_repr(self) -> int:
        return int(self)

    def __or__(self, other: int) -> DispatchKeySet:
        return DispatchKeySet(raw=int(self) | int(other))

    __ror__ = __or__

    def __and__(self, other: int) -> DispatchKeySet:
        return DispatchKeySet(raw=int(self) & int(other))

    __rand__ = __and__

    def __sub__(self, other: int) -> DispatchKeySet:
        # PyTorch never removes backend bits with '-': {AutogradCPU} - {CPU} must keep CPU's bit.
        return DispatchKeySet(raw=int(self) & (FULL_BACKEND_MASK | ~int(other)))

    def __invert__(self) -> DispatchKeySet:  # pragma: no cover - a key set has no meaningful complement
        raise TypeError("DispatchKeySet does not support ~")

    def has(self, k: DispatchKey) -> bool:
        """Like DispatchKeySet::has: every bit of k's own set is present."""
        r = key_repr(k)
        return r != 0 and (int(self) & r) == r

    def has_all(self, ks: int) -> bool:
        return (int(self) & int(ks)) == int(ks)

    def has_any(self, ks: int) -> bool:
        return (int(self) & int(ks)) != 0

    def __contains__(self, k: DispatchKey) -> bool:
        return self.has(k)

    def add(self, k: DispatchKey) -> DispatchKeySet:
        return DispatchKeySet(raw=int(self) | key_repr(k))

    def remove(self, k: DispatchKey) -> DispatchKeySet:
        # Only functionality bits go: removing AutogradCPU must not drop CPU from the set.
        return DispatchKeySet(raw=int(self) & ~(key_repr(k) & ~FULL_BACKEND_MASK))

    def empty(self) -> bool:
        return int(self) == 0

    def highest_functionality_key(self) -> DispatchKey:
        idx = int(self).bit_length()
        return DispatchKey.Undefined if idx < NUM_BACKENDS + 1 else DispatchKey(idx - NUM_BACKENDS)

    def highest_backend_key(self) -> BackendComponent:
        return BackendComponent((int(self) & FULL_BACKEND_MASK).bit_length())

    def highest_priority_type_id(self) -> DispatchKey:
        f = self.highest_functionality_key()
        if f in _PER_BACKEND:
            # toRuntimePerBackendFunctionalityKey: with no backend bit this is StartOf<f>Backends, as in torch.
            return DispatchKey(DispatchKey[f"StartOf{f.name}Backends"] + self.highest_backend_key())
        return f

    def backend_index(self) -> int:
        return (int(self) & FULL_BACKEND_MASK).bit_length() - 1

    def table_index(self) -> int:
        return table_index(int(self))

    def __iter__(self) -> Iterator[DispatchKey]:
        """Runtime keys in PyTorch's order: by functionality, per-backend ones expanded per backend."""
        r = int(self)
        backends = [b for b in list(BackendComponent)[1:] if r & (1 << (b - 1))]
        for f in range(1, NUM_FUNCTIONALITY_KEYS):
            if not r & _functionality_bit(f):
                continue
            fk = DispatchKey(f)
            if fk in _PER_BACKEND:
                for b in backends:  # a per-backend bit with no backend bit prints nothing
                    yield _PARTS_TO_RUNTIME[(fk, b)]
            else:
                yield fk

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return "DispatchKeySet(" + ", ".join(k.name for k in self) + ")"

    __str__ = __repr__

    def __hash__(self) -> int:
        return int.__hash__(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, int) and int(self) == int(other)

    def __ne__(self, other: object) -> bool:
        return not self == other


# ---- the runtime table index (getDispatchTableIndexForDispatchKeySet) -------------------------
def _offsets_and_masks() -> list[tuple[int, int]]:
    out = [(0, 0)]
    for f in range(1, NUM_FUNCTIONALITY_KEYS):
        prev_off, prev_mask = out[-1]
        off = prev_off + (1 if prev_mask == 0 else NUM_BACKENDS)
        out.append((off, FULL_BACKEND_MASK if DispatchKey(f) in _PER_BACKEND else 0))
    return out


OFFSETS_AND_MASKS: list[tuple[int, int]] = _offsets_and_masks()
assert OFFSETS_AND_MASKS[-1][0] + (NUM_BACKENDS if OFFSETS_AND_MASKS[-1][1] else 1) == NUM_RUNTIME_ENTRIES


def table_index(r: int) -> int:
    """Index into an operator's dispatch table for the raw key set `r` (PyTorch's formula)."""
    off, mask = OFFSETS_AND_MASKS[(r >> NUM_BACKENDS).bit_length()]
    return off + ((r & mask) >> 1).bit_length()


def table_index_for_key(k: DispatchKey) -> int:
    """Table slot of a runtime key; -1 for alias keys (they have no slot of their own)."""
    if k in ALIAS_KEYS:
        return -1
    if k == DispatchKey.Undefined:
        return 0
    return table_index(key_repr(k))


def runtime_keys_in_table_order() -> list[DispatchKey]:
    """The runtime key stored at each table index (index i -> key)."""
    keys: list[DispatchKey] = [DispatchKey.Undefined] * NUM_RUNTIME_ENTRIES
    for f in range(1, NUM_FUNCTIONALITY_KEYS):
        fk = DispatchKey(f)
        if fk in _PER_BACKEND:
            for b in list(BackendComponent)[1:]:
                k = _PARTS_TO_RUNTIME[(fk, b)]
                keys[table_index_for_key(k)] = k
        else:
            keys[table_index_for_key(fk)] = fk
    return keys


RUNTIME_KEYS: list[DispatchKey] = runtime_keys_in_table_order()


def _ks(*keys: DispatchKey) -> DispatchKeySet:
    return DispatchKeySet(list(keys))


def _full_after(k: DispatchKey) -> DispatchKeySet:
    # Every functionality key strictly below k, plus all backend bits.
    return DispatchKeySet(raw=(1 << (NUM_BACKENDS + int(k) - 1)) - 1)


# ---- named key sets --------------------------------------------------------------------------
DK = DispatchKey
autograd_dispatch_keyset = _ks(DK.AutogradFunctionality, DK.AutogradOther)
autograd_dispatch_keyset_with_ADInplaceOrView = autograd_dispatch_keyset | _ks(DK.ADInplaceOrView)
autocast_dispatch_keyset = _ks(DK.AutocastCPU, DK.AutocastCUDA)
default_included_set = _ks(DK.BackendSelect, DK.ADInplaceOrView)
default_excluded_set = autocast_dispatch_keyset
after_autograd_keyset = _full_after(DK.AutogradOther)
after_ADInplaceOrView_keyset = _full_after(DK.ADInplaceOrView)
python_ks = _ks(DK.Python)
full_backend_keyset = DispatchKeySet(raw=FULL_BACKEND_MASK)
# AutogradOther stands for the backends that have no Autograd<Backend> key of their own.
autogradother_backends = full_backend_keyset
backend_dispatch_keyset = autogradother_backends | _ks(DK.Dense)
math_dispatch_keyset = backend_dispatch_keyset | autograd_dispatch_keyset


def get_runtime_dispatch_key_set(k: DispatchKey) -> DispatchKeySet:
    """The runtime keys an alias stands for; a runtime key stands for itself."""
    if k == DK.Autograd:
        return autograd_dispatch_keyset | full_backend_keyset
    if k == DK.CompositeImplicitAutograd:
        return math_dispatch_keyset
    if k == DK.CompositeExplicitAutograd:
        return backend_dispatch_keyset
    return DispatchKeySet(k)


def runtime_keys(ks: int) -> list[DispatchKey]:
    """Every runtime key in `ks`, including per-backend ones, in table order."""
    return list(DispatchKeySet(raw=int(ks)))


def is_included_in_alias(k: DispatchKey, alias: DispatchKey) -> bool:
    return k != DK.Undefined and DispatchKeySet(raw=int(get_runtime_dispatch_key_set(alias))).has(k)


def get_backend_key_set_from_autograd(k: DispatchKey) -> DispatchKeySet:
    """AutogradX -> {X}; AutogradOther -> the backends it stands for."""
    if k == DK.AutogradOther:
        return autogradother_backends
    parts = _RUNTIME_TO_PARTS.get(k)
    if parts is not None and parts[0] == DK.AutogradFunctionality:
        return DispatchKeySet(_PARTS_TO_RUNTIME[(DK.Dense, parts[1])])
    return DispatchKeySet()


def get_autograd_key_from_backend(b: BackendComponent) -> DispatchKey:
    return _PARTS_TO_RUNTIME[(DK.AutogradFunctionality, b)]


def get_autograd_related_key_set_from_backend(b: BackendComponent) -> DispatchKeySet:
    return _ks(DK.ADInplaceOrView, get_autograd_key_from_backend(b))


def parse_dispatch_key(name: str) -> DispatchKey:
    try:
        return DispatchKey[name]
    except KeyError:
        raise RuntimeError(f"could not parse dispatch key: {name}") from None
