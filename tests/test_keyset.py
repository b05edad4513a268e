"""Dispatch keys and key sets: PyTorch's bit layout, operators, ordering, table indices and named sets.

jtorch keeps a subset of PyTorch's keys, so raw numbers differ from torch's; where torch is
installed the STRUCTURAL facts (reprs, iteration order, highest priority key, `-` semantics, the
bit-layout formula applied with torch's own constants) are cross-checked against torch._C.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtorch import keyset as K
from jtorch.keyset import (
    FULL,
    FULL_BACKEND_MASK,
    NUM_BACKENDS,
    NUM_FUNCTIONALITY_KEYS,
    NUM_PER_BACKEND_FUNCTIONALITY,
    NUM_RUNTIME_ENTRIES,
    RUNTIME_KEYS,
    BackendComponent,
    DispatchKey,
    DispatchKeySet,
    key_repr,
    table_index,
    table_index_for_key,
)

from _torch_oracle import oracle_torch

torch = oracle_torch()

DK = DispatchKey

BACKENDS = [BackendComponent.CPU, BackendComponent.CUDA, BackendComponent.PrivateUse1, BackendComponent.Meta]
# The runtime keys in PyTorch's iteration order (DispatchKeySet(FULL)), written out by hand.
FULL_ORDER = [
    "CPU", "CUDA", "PrivateUse1", "Meta",
    "BackendSelect", "Python", "Conjugate", "Negative", "ADInplaceOrView", "AutogradOther",
    "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta",
    "AutocastCPU", "AutocastCUDA",
]
RUNTIME = [DK[n] for n in FULL_ORDER]
FUNCTIONALITY = ["Dense", "BackendSelect", "Python", "Conjugate", "Negative", "ADInplaceOrView", "AutogradOther",
                 "AutogradFunctionality", "AutocastCPU", "AutocastCUDA"]
PER_BACKEND = {"Dense": "", "AutogradFunctionality": "Autograd"}


def ks(*names: str) -> DispatchKeySet:
    return DispatchKeySet([DK[n] for n in names])


def tks(*names: str):
    """The same set built in torch."""
    out = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    for n in names:
        out = out | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, n))
    return out


def func_bit(f: int) -> int:
    return 1 << (NUM_BACKENDS + f - 1)


# ---- bit layout ---------------------------------------------------------------------------------
def test_backend_components_and_counts():
    assert [b.name for b in BackendComponent] == ["InvalidBit", "CPU", "CUDA", "PrivateUse1", "Meta"]
    assert BackendComponent.Meta == max(BackendComponent)  # Meta must be last, as in torch
    assert NUM_BACKENDS == 4 and FULL_BACKEND_MASK == 0b1111
    assert [DK(f).name for f in range(1, NUM_FUNCTIONALITY_KEYS)] == FUNCTIONALITY
    assert DK.Undefined == 0 and DK.EndOfFunctionalityKeys == NUM_FUNCTIONALITY_KEYS
    assert FULL == (1 << (NUM_BACKENDS + NUM_FUNCTIONALITY_KEYS - 1)) - 1


def test_backend_bits_low_functionality_bits_above():
    for b in BACKENDS:
        for fname, prefix in PER_BACKEND.items():
            k = DK[prefix + b.name]
            assert key_repr(k) == func_bit(DK[fname]) | (1 << (b - 1)), k.name
            assert int(DispatchKeySet(k)) & FULL_BACKEND_MASK == 1 << (b - 1)
    for name in FUNCTIONALITY:
        if name in PER_BACKEND:
            continue
        r = key_repr(DK[name])
        assert r == func_bit(DK[name]) and r > FULL_BACKEND_MASK and r & FULL_BACKEND_MASK == 0
    # the example from DispatchKeySet.h: AutogradCPU = AutogradFunctionality bit | CPU bit
    assert int(ks("AutogradCPU")) == (1 << (NUM_BACKENDS + DK.AutogradFunctionality - 1)) | 1
    # Undefined and alias keys have no bits
    for k in (DK.Undefined, DK.Autograd, DK.CompositeImplicitAutograd, DK.CompositeExplicitAutograd):
        assert key_repr(k) == 0 and DispatchKeySet(k).empty()


def test_bit_layout_formula_holds_in_torch():
    # The same formula with torch's constants (16 backends) reproduces torch's raw_repr.
    TDK = torch._C.DispatchKey
    backends = ["CPU", "CUDA", "PrivateUse1", "Meta"]
    t_backend_index = {"CPU": 1, "CUDA": 2, "PrivateUse1": 13, "Meta": 16}
    for name in FUNCTIONALITY:
        f = int(getattr(TDK, name))
        expected = 1 << (16 + f - 1)
        if name in PER_BACKEND:
            for b in backends:
                raw = torch._C.DispatchKeySet(getattr(TDK, PER_BACKEND[name] + b)).raw_repr()
                assert raw == expected | (1 << (t_backend_index[b] - 1)), (name, b)
        else:
            assert torch._C.DispatchKeySet(getattr(TDK, name)).raw_repr() == expected, name


def test_constructors_and_types():
    s = DispatchKeySet([DK.CPU, DK.AutogradCPU])
    assert isinstance(s, int) and isinstance(s, DispatchKeySet)
    assert DispatchKeySet(raw=int(s)) == s == DispatchKeySet(int(s))
    assert DispatchKeySet() == DispatchKeySet(None) == 0
    assert DispatchKeySet(DK.CPU) == DispatchKeySet([DK.CPU]) == key_repr(DK.CPU)
    assert s.raw_repr == int(s)
    with pytest.raises(TypeError):
        ~s


# ---- set operations -------------------------------------------------------------------------------
def test_or_and():
    a, b = ks("CPU", "ADInplaceOrView"), ks("AutogradCPU")
    u = a | b
    assert isinstance(u, DispatchKeySet) and int(u) == int(a) | int(b)
    assert repr(u) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)"
    r = int(b) | a  # reflected with a plain int on the left still gives a key set
    assert isinstance(r, DispatchKeySet) and r == u
    i = u & ks("AutogradCPU", "Python")
    assert isinstance(i, DispatchKeySet) and repr(i) == "DispatchKeySet(AutogradCPU)"
    assert isinstance(int(u) & a, DispatchKeySet) and (int(u) & a) == a


def test_sub_never_removes_backend_bits():
    d = ks("AutogradCPU") - ks("CPU")
    assert isinstance(d, DispatchKeySet)
    assert d == ks("AutogradCPU") and repr(d) == "DispatchKeySet(AutogradCPU)"
    s = ks("CPU", "ADInplaceOrView", "AutogradCPU")
    d2 = s - ks("CPU")
    assert repr(d2) == "DispatchKeySet(ADInplaceOrView, AutogradCPU)"
    assert int(d2) & FULL_BACKEND_MASK == int(s) & FULL_BACKEND_MASK
    # subtracting a functionality key removes it, subtracting backend bits only does nothing
    assert repr(s - ks("ADInplaceOrView")) == "DispatchKeySet(CPU, AutogradCPU)"
    assert s - DispatchKeySet(raw=FULL_BACKEND_MASK) == s
    assert s - s == DispatchKeySet(raw=int(s) & FULL_BACKEND_MASK)


def test_sub_keeps_backend_bits_in_torch_too():
    assert repr(tks("AutogradCPU") - tks("CPU")) == repr(ks("AutogradCPU") - ks("CPU")) == "DispatchKeySet(AutogradCPU)"
    s = ("CPU", "ADInplaceOrView", "AutogradCPU")
    assert repr(tks(*s) - tks("CPU")) == repr(ks(*s) - ks("CPU"))
    assert (tks(*s) - tks("CPU")).raw_repr() & 0xFFFF == 1  # the CPU backend bit survives in torch


def test_has_add_remove():
    s = ks("CPU", "ADInplaceOrView", "AutogradCPU")
    assert s.has(DK.CPU) and s.has(DK.AutogradCPU) and s.has(DK.ADInplaceOrView)
    assert DK.CPU in s and DK.Python not in s
    assert not s.has(DK.CUDA) and not s.has(DK.AutogradCUDA)
    assert not ks("AutogradCPU").has(DK.CPU)  # needs the Dense bit too, not just the CPU bit
    assert not s.has(DK.Undefined) and not s.has(DK.Autograd)  # nothing "has" a zero-bit key
    # the cross product, as in torch: {CPU, AutogradCUDA} has AutogradCPU and CUDA
    cross = ks("CPU", "AutogradCUDA")
    assert cross.has(DK.AutogradCPU) and cross.has(DK.CUDA)
    assert repr(cross) == "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)"
    added = s.add(DK.Python)
    assert isinstance(added, DispatchKeySet) and added.has(DK.Python) and not s.has(DK.Python)  # immutable
    # remove clears only functionality bits
    r = s.remove(DK.AutogradCPU)
    assert repr(r) == "DispatchKeySet(CPU, ADInplaceOrView)" and r.has(DK.CPU)
    r2 = s.remove(DK.CPU)
    assert repr(r2) == "DispatchKeySet(ADInplaceOrView, AutogradCPU)"
    assert int(r2) & FULL_BACKEND_MASK == 1  # the CPU bit stays
    assert s.remove(DK.Python) == s
    assert s.has_all(ks("CPU", "AutogradCPU")) and not s.has_all(ks("CPU", "Python"))
    assert s.has_any(ks("Python", "AutogradCPU")) and not s.has_any(ks("Python"))


def test_remove_matches_torch():
    s = ("CPU", "ADInplaceOrView", "AutogradCPU")
    for k in ("AutogradCPU", "CPU", "ADInplaceOrView", "Python"):
        assert repr(tks(*s).remove(getattr(torch._C.DispatchKey, k))) == repr(ks(*s).remove(DK[k])), k


def test_highest_keys():
    s = ks("CPU", "ADInplaceOrView", "AutogradCPU")
    assert s.highest_priority_type_id() is DK.AutogradCPU
    assert s.highest_functionality_key() is DK.AutogradFunctionality
    assert s.highest_backend_key() is BackendComponent.CPU
    assert ks("CPU", "CUDA").highest_priority_type_id() is DK.CUDA  # the higher backend bit wins
    assert ks("CPU", "Meta").highest_backend_key() is BackendComponent.Meta
    assert ks("CPU", "AutocastCPU", "AutogradCPU").highest_priority_type_id() is DK.AutocastCPU
    assert ks("CPU", "Python").highest_priority_type_id() is DK.Python
    assert ks("BackendSelect").highest_priority_type_id() is DK.BackendSelect
    e = DispatchKeySet()
    assert e.highest_priority_type_id() is DK.Undefined
    assert e.highest_functionality_key() is DK.Undefined
    assert e.highest_backend_key() is BackendComponent.InvalidBit
    assert DispatchKeySet(raw=FULL_BACKEND_MASK).highest_functionality_key() is DK.Undefined
    # per-backend functionality without a backend bit: torch's toRuntimePerBackendFunctionalityKey(f, InvalidBit)
    assert DispatchKeySet(DK.AutogradFunctionality).highest_priority_type_id() is DK.StartOfAutogradFunctionalityBackends
    assert ks("CPU", "CUDA").backend_index() == 1


# ---- iteration and repr ---------------------------------------------------------------------------
def test_iteration_order():
    assert [k.name for k in DispatchKeySet(raw=FULL)] == FULL_ORDER
    assert len(DispatchKeySet(raw=FULL)) == NUM_RUNTIME_ENTRIES - 1
    s = ks("AutogradCUDA", "Python", "CPU", "AutocastCPU")  # built out of order
    assert [k.name for k in s] == ["CPU", "CUDA", "Python", "AutogradCPU", "AutogradCUDA", "AutocastCPU"]
    assert list(DispatchKeySet(DK.AutogradFunctionality)) == []  # per-backend bit without backend: nothing
    assert list(DispatchKeySet(raw=FULL_BACKEND_MASK)) == []
    assert len(ks("CPU", "ADInplaceOrView", "AutogradCPU")) == 3


def test_repr_exactly_like_torch():
    assert repr(ks("CPU", "ADInplaceOrView", "AutogradCPU")) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)"
    assert str(ks("CPU", "ADInplaceOrView", "AutogradCPU")) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)"
    assert repr(DispatchKeySet()) == "DispatchKeySet()"
    assert repr(ks("Meta", "ADInplaceOrView", "AutogradMeta")) == "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)"
    assert str(DK.AutogradCPU) == "AutogradCPU"


_key_subsets = st.lists(st.sampled_from(FULL_ORDER), max_size=6)


@settings(max_examples=200, deadline=None)
@given(_key_subsets)
def test_repr_has_and_highest_match_torch(names):
    j, t = ks(*names), tks(*names)
    assert repr(j) == repr(t)
    assert j.highest_priority_type_id().name == t.highestPriorityTypeId().name
    for k in FULL_ORDER:
        assert j.has(DK[k]) == t.has(getattr(torch._C.DispatchKey, k)), k


def test_full_iteration_order_matches_torch():
    names = repr(torch._C._dispatch_keyset_full())[len("DispatchKeySet("):-1].split(", ")
    assert [n for n in names if n in FULL_ORDER] == FULL_ORDER


# ---- runtime table index --------------------------------------------------------------------------
def _independent_index(raw: int) -> int:
    """getDispatchTableIndexForDispatchKeySet written again from the offsets-and-masks formula."""
    per_backend = {int(DK.Dense), int(DK.AutogradFunctionality)}
    offsets, off = [], 0
    for f in range(NUM_FUNCTIONALITY_KEYS):
        mask = FULL_BACKEND_MASK if f in per_backend else 0
        offsets.append((off, mask))
        off += NUM_BACKENDS if mask else 1
    o, m = offsets[(raw >> NUM_BACKENDS).bit_length()]
    return o + ((raw & m) >> 1).bit_length()


def test_table_index_for_every_runtime_key():
    expected = {"Undefined": 0, "CPU": 1, "CUDA": 2, "PrivateUse1": 3, "Meta": 4, "BackendSelect": 5,
                "Python": 6, "Conjugate": 7, "Negative": 8, "ADInplaceOrView": 9, "AutogradOther": 10, "AutogradCPU": 11,
                "AutogradCUDA": 12, "AutogradPrivateUse1": 13, "AutogradMeta": 14, "AutocastCPU": 15, "AutocastCUDA": 16}
    seen = {}
    for k in [DK.Undefined] + RUNTIME:
        i = table_index_for_key(k)
        assert 0 <= i < NUM_RUNTIME_ENTRIES
        assert i == _independent_index(key_repr(k)) == expected[k.name], k.name
        assert i not in seen, (k, seen.get(i))
        seen[i] = k
    assert len(seen) == NUM_RUNTIME_ENTRIES
    assert [k.name for k in RUNTIME_KEYS] == list(expected)  # index -> key
    for k in (DK.Autograd, DK.CompositeImplicitAutograd, DK.CompositeExplicitAutograd):
        assert table_index_for_key(k) == -1
    # a per-backend functionality bit with no backend bit lands on offset + 0
    assert table_index(key_repr(DK.AutogradFunctionality)) == expected["AutogradCPU"]


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=FULL))
def test_table_index_of_any_set_is_its_highest_key(raw):
    s = DispatchKeySet(raw=raw)
    assert table_index(raw) == s.table_index() == _independent_index(raw)
    assert 0 <= table_index(raw) < NUM_RUNTIME_ENTRIES
    top = s.highest_priority_type_id()
    if top.name.startswith("StartOf"):  # per-backend functionality, no backend bit
        top = s.highest_functionality_key()
    assert table_index(raw) == table_index_for_key(top)


def test_num_runtime_entries_formula():
    assert NUM_PER_BACKEND_FUNCTIONALITY == 2
    assert NUM_RUNTIME_ENTRIES == NUM_FUNCTIONALITY_KEYS + NUM_PER_BACKEND_FUNCTIONALITY * (NUM_BACKENDS - 1) == 17
    assert NUM_RUNTIME_ENTRIES == len(RUNTIME_KEYS) == 1 + len(FULL_ORDER)
    last_off, last_mask = K.OFFSETS_AND_MASKS[-1]
    assert last_off + (NUM_BACKENDS if last_mask else 1) == NUM_RUNTIME_ENTRIES


# ---- alias keys and named sets ---------------------------------------------------------------------
def test_alias_expansion():
    names = lambda s: [k.name for k in s]  # noqa: E731
    assert names(K.get_runtime_dispatch_key_set(DK.Autograd)) == [
        "AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta"]
    assert names(K.get_runtime_dispatch_key_set(DK.CompositeExplicitAutograd)) == ["CPU", "CUDA", "PrivateUse1", "Meta"]
    assert names(K.get_runtime_dispatch_key_set(DK.CompositeImplicitAutograd)) == [
        "CPU", "CUDA", "PrivateUse1", "Meta", "AutogradOther", "AutogradCPU", "AutogradCUDA",
        "AutogradPrivateUse1", "AutogradMeta"]
    assert K.get_runtime_dispatch_key_set(DK.Python) == ks("Python")
    assert K.get_runtime_dispatch_key_set(DK.AutogradCUDA) == ks("AutogradCUDA")
    assert K.is_included_in_alias(DK.AutogradMeta, DK.Autograd)
    assert not K.is_included_in_alias(DK.CPU, DK.Autograd)
    assert K.is_included_in_alias(DK.CPU, DK.CompositeExplicitAutograd)
    assert not K.is_included_in_alias(DK.AutogradCPU, DK.CompositeExplicitAutograd)
    assert not K.is_included_in_alias(DK.Undefined, DK.CompositeImplicitAutograd)
    assert not K.is_included_in_alias(DK.Python, DK.CompositeImplicitAutograd)
    assert K.get_backend_key_set_from_autograd(DK.AutogradCUDA) == ks("CUDA")
    assert K.get_backend_key_set_from_autograd(DK.AutogradOther) == K.autogradother_backends
    assert K.get_backend_key_set_from_autograd(DK.Python) == DispatchKeySet()
    assert K.get_autograd_key_from_backend(BackendComponent.Meta) is DK.AutogradMeta
    assert repr(K.get_autograd_related_key_set_from_backend(BackendComponent.CPU)) == "DispatchKeySet(ADInplaceOrView, AutogradCPU)"
    assert K.is_alias(DK.Autograd) and not K.is_alias(DK.CPU)
    assert K.to_functionality_key(DK.AutogradCUDA) is DK.AutogradFunctionality
    assert K.to_functionality_key(DK.Python) is DK.Python
    assert K.to_backend_component(DK.AutogradCUDA) is BackendComponent.CUDA
    assert K.to_runtime_per_backend_key(DK.Dense, BackendComponent.Meta) is DK.Meta
    assert K.parse_dispatch_key("AutogradCPU") is DK.AutogradCPU
    with pytest.raises(RuntimeError, match="could not parse dispatch key: Nope"):
        K.parse_dispatch_key("Nope")


def test_backend_key_set_from_autograd_matches_torch():
    for b in ("CPU", "CUDA", "PrivateUse1", "Meta"):
        t = torch._C._dispatch_get_backend_keyset_from_autograd(getattr(torch._C.DispatchKey, "Autograd" + b))
        assert repr(t) == repr(K.get_backend_key_set_from_autograd(DK["Autograd" + b]))


def test_named_sets():
    assert int(K.autograd_dispatch_keyset) == func_bit(DK.AutogradFunctionality) | func_bit(DK.AutogradOther)
    assert int(K.autograd_dispatch_keyset) & FULL_BACKEND_MASK == 0  # no backend bits
    assert repr(K.autograd_dispatch_keyset) == "DispatchKeySet(AutogradOther)"
    assert K.autograd_dispatch_keyset_with_ADInplaceOrView == K.autograd_dispatch_keyset | ks("ADInplaceOrView")
    assert repr(K.after_autograd_keyset) == (
        "DispatchKeySet(CPU, CUDA, PrivateUse1, Meta, BackendSelect, Python, Conjugate, Negative, ADInplaceOrView)")
    assert int(K.after_autograd_keyset) == func_bit(DK.AutogradOther) - 1  # FULL_AFTER(AutogradOther)
    assert repr(K.after_ADInplaceOrView_keyset) == (
        "DispatchKeySet(CPU, CUDA, PrivateUse1, Meta, BackendSelect, Python, Conjugate, Negative)")
    assert int(K.after_ADInplaceOrView_keyset) == func_bit(DK.ADInplaceOrView) - 1
    assert repr(K.default_included_set) == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    assert repr(K.default_excluded_set) == "DispatchKeySet(AutocastCPU, AutocastCUDA)"
    assert K.python_ks == ks("Python")
    # the typical use: an autograd kernel masks its key set before redispatching
    t = ks("CPU", "ADInplaceOrView", "AutogradCPU")
    assert repr(t & K.after_autograd_keyset) == "DispatchKeySet(CPU, ADInplaceOrView)"
    assert repr(t & K.after_ADInplaceOrView_keyset) == "DispatchKeySet(CPU)"
    from jtorch import _C

    assert _C._after_autograd_keyset == K.after_autograd_keyset
    assert _C._after_ADInplaceOrView_keyset == K.after_ADInplaceOrView_keyset


def _names_in_jtorch(t) -> list[str]:
    s = repr(t)[len("DispatchKeySet("):-1]
    return [n for n in s.split(", ") if n in FULL_ORDER] if s else []


def test_named_sets_match_torch_on_shared_keys():
    assert _names_in_jtorch(torch._C._after_autograd_keyset) == [k.name for k in K.after_autograd_keyset]
    assert _names_in_jtorch(torch._C._after_ADInplaceOrView_keyset) == [k.name for k in K.after_ADInplaceOrView_keyset]
    t = ("CPU", "ADInplaceOrView", "AutogradCPU")
    assert repr(tks(*t) & torch._C._after_autograd_keyset) == repr(ks(*t) & K.after_autograd_keyset)
    assert repr(tks(*t) & torch._C._after_ADInplaceOrView_keyset) == repr(ks(*t) & K.after_ADInplaceOrView_keyset)
    # torch's thread-local defaults are the default included / excluded sets
    assert _names_in_jtorch(torch._C._dispatch_tls_local_include_set()) == [k.name for k in K.default_included_set]
    assert _names_in_jtorch(torch._C._dispatch_tls_local_exclude_set()) == [k.name for k in K.default_excluded_set]
    # a plain CPU tensor's keys in torch, restricted to jtorch's keys
    assert _names_in_jtorch(torch._C._dispatch_keys(torch.ones(1))) == ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]
    assert _names_in_jtorch(torch._C._dispatch_keys(torch.ones(1, device="meta"))) == ["Meta", "ADInplaceOrView", "AutogradMeta"]


def test_the_type_checkers_DispatchKey_is_the_runtime_one():
    """keyset.py writes DispatchKey's members out under TYPE_CHECKING (mypy cannot run the formulas
    that make them): the written-out class must say what the formulas make."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(K))
    declared = None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "DispatchKey":
            declared = {a.targets[0].id: a.value.value for a in node.body if isinstance(a, ast.Assign)}
    assert declared == {k.name: k.value for k in DispatchKey}
