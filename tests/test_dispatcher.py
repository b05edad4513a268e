"""The dispatcher: TLS guards, table precedence and labels, fallthrough, backend fallbacks, key-set
computation, dispatch errors, introspection, the dispatch trace and call observers.

Tensors are stand-ins carrying only `_key_set` (tests/conftest.py). Every test registers into its
own namespace through the `libs` fixture, which destroys the libraries when the test ends.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest

from _dispatch_support import here, ops_ns
from jtorch import _C, dispatcher
from jtorch._ops import OpOverload
from jtorch.keyset import (
    RUNTIME_KEYS,
    DispatchKey,
    DispatchKeySet,
    after_autograd_keyset,
    default_excluded_set,
    default_included_set,
    table_index_for_key,
)
from jtorch.library import Library, fallthrough_kernel

from _torch_oracle import oracle_torch

torch = oracle_torch()

DK = DispatchKey
ALL_KEYS = [DK.Undefined] + list(RUNTIME_KEYS[1:])  # the order dumpComputedTable prints

pytestmark = pytest.mark.usefixtures("no_leaks")


def fallback_line(k: DispatchKey) -> str | None:
    fb = dispatcher.singleton.backend_fallbacks[table_index_for_key(k)]
    if fb is None:
        return None
    return f"{k.name}: {'fallthrough ' if fb.is_fallthrough else ''}{fb.debug} [backend fallback]"


def expected_table(rows: dict[str, tuple[str, str]]) -> str:
    """dumpComputedTable text: `rows` gives (debug, label) for keys the operator's own kernels fill;
    every other key shows the backend fallback registered for it, if any."""
    lines = []
    for k in ALL_KEYS:
        if k.name in rows:
            debug, label = rows[k.name]
            lines.append(f"{k.name}: {debug} [{label}]")
        elif (line := fallback_line(k)) is not None:
            lines.append(line)
    return "".join(line + "\n" for line in lines)


def assert_table_consistent(name: str) -> None:
    """Every slot of the operator's table is what computeDispatchTableEntry gives now."""
    e = dispatcher.singleton.operators[name]
    for k in ALL_KEYS:
        kern, label = e.compute_entry(dispatcher.singleton, k)
        _, mode, stored, stored_label = e.table[table_index_for_key(k)]
        assert stored_label == label, (name, k)
        if kern is not None and label != "ambiguous autogradother":
            assert stored is kern, (name, k)
        if kern is None:
            assert mode == dispatcher.MISSING


# ---- TLS ----------------------------------------------------------------------------------------
def test_tls_defaults():
    assert _C._dispatch_tls_local_include_set() == default_included_set
    assert _C._dispatch_tls_local_exclude_set() == default_excluded_set
    assert repr(_C._dispatch_tls_local_include_set()) == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    assert _C._dispatch_tls_is_dispatch_key_included(DK.BackendSelect)
    assert _C._dispatch_tls_is_dispatch_key_excluded(DK.AutocastCPU)
    assert not _C._dispatch_tls_is_dispatch_key_included(DK.Python)
    assert not _C._dispatch_tls_is_dispatch_key_excluded(DK.AutogradCPU)


def test_include_exclude_guards_nest_and_restore():
    inc0, exc0 = _C._dispatch_tls_local_include_set(), _C._dispatch_tls_local_exclude_set()
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)) as g:
        assert isinstance(g, _C._IncludeDispatchKeyGuard)
        assert _C._dispatch_tls_is_dispatch_key_included(DK.Python)
        with _C._ExcludeDispatchKeyGuard(DK.Python):  # a single key works too
            assert _C._dispatch_tls_is_dispatch_key_excluded(DK.Python)
            assert _C._dispatch_tls_is_dispatch_key_included(DK.Python)  # both sets are kept
            with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.AutocastCPU)):
                assert _C._dispatch_tls_local_include_set() == inc0 | DispatchKeySet([DK.Python, DK.AutocastCPU])
            assert not _C._dispatch_tls_is_dispatch_key_included(DK.AutocastCPU)
        assert not _C._dispatch_tls_is_dispatch_key_excluded(DK.Python)
        assert _C._dispatch_tls_local_exclude_set() == exc0
    assert _C._dispatch_tls_local_include_set() == inc0
    # including a key that is already there and leaving restores the original set, not less
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.BackendSelect)):
        assert _C._dispatch_tls_local_include_set() == inc0
    assert _C._dispatch_tls_local_include_set() == inc0


def test_guards_restore_on_exception():
    inc0, exc0 = _C._dispatch_tls_local_include_set(), _C._dispatch_tls_local_exclude_set()
    with pytest.raises(ZeroDivisionError):
        with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
            with _C._AutoDispatchBelowAutograd():
                assert _C._dispatch_tls_is_dispatch_key_excluded(DK.AutogradOther)
                1 / 0
    assert _C._dispatch_tls_local_include_set() == inc0
    assert _C._dispatch_tls_local_exclude_set() == exc0


def test_tls_is_per_thread():
    seen = {}
    entered, checked = threading.Event(), threading.Event()

    def other():
        # started while the main thread is inside a guard: starts from the defaults
        seen["start"] = (_C._dispatch_tls_local_include_set(), _C._dispatch_tls_local_exclude_set())
        with _C._ExcludeDispatchKeyGuard(DispatchKeySet(DK.AutogradFunctionality)):
            seen["inside"] = _C._dispatch_tls_local_exclude_set()
            entered.set()
            checked.wait(5)
        seen["after"] = _C._dispatch_tls_local_exclude_set()

    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        t = threading.Thread(target=other)
        t.start()
        assert entered.wait(5)
        # the other thread's guard is not seen here, ours is not seen there
        assert not _C._dispatch_tls_is_dispatch_key_excluded(DK.AutogradFunctionality)
        assert _C._dispatch_tls_is_dispatch_key_included(DK.Python)
        checked.set()
        t.join(5)
    assert seen["start"] == (default_included_set, default_excluded_set)
    assert seen["inside"] == default_excluded_set | DispatchKeySet(DK.AutogradFunctionality)
    assert seen["after"] == default_excluded_set


def test_auto_dispatch_below_autograd_and_ad_inplace(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "autograd", "Autograd")
    lib.impl("foo", lambda x: "inplace_or_view", "ADInplaceOrView")
    lib.impl("foo", lambda x: "cpu", "CPU")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    assert foo(t) == "autograd"
    with _C._AutoDispatchBelowAutograd():
        assert _C._dispatch_tls_local_exclude_set() == default_excluded_set | DispatchKeySet(
            [DK.AutogradFunctionality, DK.AutogradOther])
        assert foo(t) == "inplace_or_view"
    with _C._AutoDispatchBelowADInplaceOrView():
        assert _C._dispatch_tls_is_dispatch_key_excluded(DK.ADInplaceOrView)
        assert foo(t) == "cpu"
    assert foo(t) == "autograd"


# ---- table precedence and labels -------------------------------------------------------------------
def test_reference_example_cpu_plus_math(ns, libs, make_tensor):
    """CPU + CompositeImplicitAutograd: AutogradCPU takes the backend fallback, AutogradCUDA the math kernel."""
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu kernel", "CPU"); cpu = here()  # noqa: E702
    lib.impl("foo", lambda x: "math kernel", "CompositeImplicitAutograd"); math = here()  # noqa: E702
    table = _C._dispatch_dump_table(f"{ns}::foo")
    rows = {k: (math, "math kernel") for k in (
        "Undefined", "CUDA", "PrivateUse1", "Meta", "AutogradOther", "AutogradCUDA", "AutogradPrivateUse1",
        "AutogradMeta")}
    rows["CPU"] = (cpu, "kernel")
    assert table == expected_table(rows)
    assert "\nAutogradCUDA: " + math + " [math kernel]\n" in table
    assert re.search(r"\nAutogradCPU: (fallthrough )?registered at .* \[backend fallback\]\n", table)
    foo = ops_ns(ns).foo.default
    assert foo(make_tensor("cpu")) == "cpu kernel"
    assert foo(make_tensor("cuda")) == "math kernel"
    assert foo(make_tensor("meta")) == "math kernel"
    assert_table_consistent(f"{ns}::foo")


def test_default_backend_kernel(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "explicit", "CompositeExplicitAutograd"); cea = here()  # noqa: E702
    rows = {k: (cea, "default backend kernel") for k in ("Undefined", "CPU", "CUDA", "PrivateUse1", "Meta")}
    assert _C._dispatch_dump_table(f"{ns}::foo") == expected_table(rows)
    # a direct kernel beats the default backend kernel for its key only
    lib.impl("foo", lambda x: "cuda", "CUDA"); cuda = here()  # noqa: E702
    rows["CUDA"] = (cuda, "kernel")
    assert _C._dispatch_dump_table(f"{ns}::foo") == expected_table(rows)
    foo = ops_ns(ns).foo.default
    assert [foo(make_tensor(d)) for d in ("cpu", "cuda", "meta")] == ["explicit", "cuda", "explicit"]
    # CompositeImplicitAutograd added later loses to the existing backend kernel everywhere
    lib.impl("foo", lambda x: "math", "CompositeImplicitAutograd")
    assert "math kernel" not in _C._dispatch_dump_table(f"{ns}::foo")
    assert [foo(make_tensor(d)) for d in ("cpu", "cuda", "meta")] == ["explicit", "cuda", "explicit"]
    assert_table_consistent(f"{ns}::foo")


def test_math_kernel_only_where_the_backend_has_none(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "math", "CompositeImplicitAutograd"); math = here()  # noqa: E702
    everywhere = ("Undefined", "CPU", "CUDA", "PrivateUse1", "Meta", "AutogradOther", "AutogradCPU",
                  "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta")
    assert _C._dispatch_dump_table(f"{ns}::foo") == expected_table({k: (math, "math kernel") for k in everywhere})
    lib.impl("foo", lambda x: "meta", "Meta"); meta = here()  # noqa: E702
    rows = {k: (math, "math kernel") for k in everywhere if k not in ("Meta", "AutogradMeta")}
    rows["Meta"] = (meta, "kernel")
    assert _C._dispatch_dump_table(f"{ns}::foo") == expected_table(rows)  # AutogradMeta -> fallback now
    foo = ops_ns(ns).foo.default
    assert foo(make_tensor("meta")) == "meta" and foo(make_tensor("cpu")) == "math"


def test_autograd_kernel(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu", "CPU"); cpu = here()  # noqa: E702
    lib.impl("foo", lambda x: "math", "CompositeImplicitAutograd"); math = here()  # noqa: E702

    def autograd(ks, x):
        return "autograd>" + ops_ns(ns).foo.default.redispatch(ks & after_autograd_keyset, x)

    lib.impl("foo", autograd, "Autograd", with_keyset=True); ag = here()  # noqa: E702
    lib.impl("foo", lambda x: "autograd meta", "AutogradMeta"); agm = here()  # noqa: E702
    # The math kernel comes before the Autograd alias: Autograd<X> takes the autograd kernel only where
    # backend X has a kernel of its own (CPU here); elsewhere the math kernel still wins.
    rows = {k: (math, "math kernel") for k in ("Undefined", "CUDA", "PrivateUse1", "Meta", "AutogradOther",
                                               "AutogradCUDA", "AutogradPrivateUse1")}
    rows["CPU"] = (cpu, "kernel")
    rows["AutogradCPU"] = (ag, "autograd kernel")
    rows["AutogradMeta"] = (agm, "kernel")
    assert _C._dispatch_dump_table(f"{ns}::foo") == expected_table(rows)
    foo = ops_ns(ns).foo.default
    assert foo(make_tensor("cpu")) == "autograd>cpu"
    assert foo(make_tensor("cuda")) == "math"
    assert foo(make_tensor("meta")) == "autograd meta"
    assert_table_consistent(f"{ns}::foo")
    # with a backend kernel for every backend (CompositeExplicitAutograd) the autograd kernel is everywhere
    lib2 = Library(ns, "FRAGMENT")
    try:
        lib2.define("bar(Tensor x) -> str")
        lib2.impl("bar", lambda x: "explicit", "CompositeExplicitAutograd")
        bar_autograd = lambda ks, x: "autograd>" + ops_ns(ns).bar.default.redispatch(ks & after_autograd_keyset, x)  # noqa: E731,E501
        lib2.impl("bar", bar_autograd, "Autograd", with_keyset=True); ag2 = here()  # noqa: E702
        table = _C._dispatch_dump_table(f"{ns}::bar")
        for k in ("AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta"):
            assert f"\n{k}: {ag2} [autograd kernel]\n" in table
        assert ops_ns(ns).bar.default(make_tensor("cuda")) == "autograd>explicit"
    finally:
        lib2._destroy()
    assert_table_consistent(f"{ns}::foo")


def test_explicit_registered_after_math_keeps_torch_runtime_behavior(ns, libs, make_tensor):
    """updateDispatchTable_ for CompositeExplicitAutograd refreshes the backend keys and Undefined only,
    so Autograd<X> slots computed earlier from the math kernel stay as they were, in torch too (its
    dumpComputedTable recomputes and shows 'backend fallback', but the call still runs the math kernel)."""
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "math", "CompositeImplicitAutograd")
    lib.impl("foo", lambda x: "explicit", "CompositeExplicitAutograd")
    assert ops_ns(ns).foo.default(make_tensor("cpu")) == "math"
    assert ops_ns(ns).foo.default.redispatch(DispatchKeySet(DK.CPU), make_tensor("cpu")) == "explicit"
    lib.define("bar(Tensor x) -> str")  # the other order: the Autograd slots are computed with both present
    lib.impl("bar", lambda x: "explicit", "CompositeExplicitAutograd")
    lib.impl("bar", lambda x: "math", "CompositeImplicitAutograd")
    assert ops_ns(ns).bar.default(make_tensor("cpu")) == "explicit"
    if torch is not None:
        tlib = torch.library.Library(ns, "DEF")
        try:
            tlib.define("foo(Tensor x) -> Tensor")
            calls = []
            tlib.impl("foo", lambda x: calls.append("math") or x, "CompositeImplicitAutograd")
            tlib.impl("foo", lambda x: calls.append("explicit") or x, "CompositeExplicitAutograd")
            getattr(torch.ops, ns).foo.default(torch.ones(1, requires_grad=True))
            assert calls == ["math"]
        finally:
            tlib._destroy()


def test_backend_fallback_and_missing(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu", "CPU")
    table = _C._dispatch_dump_table(f"{ns}::foo")
    assert "\nPrivateUse1:" not in table  # missing keys are not printed
    seen = []

    def pu1_fallback(op, *args, **kwargs):
        seen.append((op.name(), args))
        return "fallback"

    fb = libs("_", "IMPL")
    fb.fallback(pu1_fallback, "PrivateUse1"); site = here()  # noqa: E702
    t = make_tensor("privateuseone")
    assert f"\nPrivateUse1: {site} [backend fallback]\n" in _C._dispatch_dump_table(f"{ns}::foo")
    assert ops_ns(ns).foo.default(t) == "fallback"
    assert seen == [(f"{ns}::foo", (t,))]
    # an operator's own kernel beats the fallback
    lib.impl("foo", lambda x: "own", "PrivateUse1")
    assert ops_ns(ns).foo.default(t) == "own"
    assert len(seen) == 1
    fb._destroy()
    assert "PrivateUse1: registered" in _C._dispatch_dump_table(f"{ns}::foo")  # its own kernel stays
    assert_table_consistent(f"{ns}::foo")


_TORCH_SPECS = {
    "cpu+math": [("CPU", "k"), ("CompositeImplicitAutograd", "k")],
    "explicit": [("CompositeExplicitAutograd", "k")],
    "math": [("CompositeImplicitAutograd", "k")],
    "math+autograd": [("CompositeImplicitAutograd", "k"), ("Autograd", "k")],
    "explicit+math": [("CompositeExplicitAutograd", "k"), ("CompositeImplicitAutograd", "k")],
    "cpu+cuda+autograd": [("CPU", "k"), ("CUDA", "k"), ("Autograd", "k")],
    "cpu+fallthrough-autogradcpu": [("CPU", "k"), ("Autograd", "k"), ("AutogradCPU", "ft")],
    "cpu+autocast": [("CPU", "k"), ("AutocastCPU", "k"), ("Python", "k")],
}
_LINE = re.compile(r"^(\w+): (fallthrough )?(.*) \[([\w ]+)\]$")


def _normalized(table: str) -> dict[str, tuple[str, bool]]:
    out = {}
    for line in table.splitlines():
        m = _LINE.match(line)
        assert m, line
        out[m.group(1)] = (m.group(4), bool(m.group(2)))
    return out


@pytest.mark.parametrize("spec", list(_TORCH_SPECS))
def test_dump_table_lines_appear_in_torch(spec, ns, libs):
    """Same registrations in both: every line jtorch prints is in torch's table, modulo file:line."""
    tlib = torch.library.Library(ns, "DEF")
    try:
        jlib = libs(ns, "DEF")
        for lib, ft in ((tlib, torch.library.fallthrough_kernel), (jlib, fallthrough_kernel)):
            lib.define("foo(Tensor x) -> Tensor")
            for key, kind in _TORCH_SPECS[spec]:
                lib.impl("foo", ft if kind == "ft" else (lambda x: x), key)
        j = _normalized(_C._dispatch_dump_table(f"{ns}::foo"))
        t = _normalized(torch._C._dispatch_dump_table(f"{ns}::foo"))
        assert j, "empty table"
        for key, (label, fallthrough) in j.items():
            assert key in t, key
            assert t[key][0] == label, (key, label, t[key])
            if not (key.startswith("Autograd") and label == "backend fallback"):
                # jtorch's Autograd fallbacks are fallthroughs until the autograd engine registers its own
                assert t[key][1] == fallthrough, key
    finally:
        tlib._destroy()


def test_dump_matches_torch_modulo_sites(ns, libs):
    tlib = torch.library.Library(ns, "DEF")
    try:
        jlib = libs(ns, "DEF")
        for lib, ft in ((tlib, torch.library.fallthrough_kernel), (jlib, fallthrough_kernel)):
            lib.define("foo(Tensor x) -> Tensor")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the second CPU kernel overrides the first
                for key in ("CompositeImplicitAutograd", "Autograd", "AutogradCPU", "Python", "BackendSelect",
                            "CPU", "CPU", "CompositeExplicitAutograd"):
                    lib.impl("foo", lambda x: x, key)
            lib.impl("foo", ft, "AutogradCUDA")
        sites = re.compile(r"registered at \S+")
        with_sites = _C._dispatch_dump(f"{ns}::foo")
        assert sites.sub("X", with_sites) == sites.sub("X", torch._C._dispatch_dump(f"{ns}::foo"))
        assert "AutogradCUDA: registered at" in with_sites and "[ fallthrough boxed ]" in with_sites
    finally:
        tlib._destroy()


# ---- fallthrough --------------------------------------------------------------------------------
def test_fallthrough_kernel_skips_its_key(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu", "CPU")
    lib.impl("foo", lambda x: "python", "Python")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        assert foo(t) == "python"
    ft = libs(ns, "IMPL")
    ft.impl("foo", fallthrough_kernel, "Python"); site = here()  # noqa: E702
    assert f"\nPython: fallthrough {site} [kernel]\n" in _C._dispatch_dump_table(f"{ns}::foo")
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        assert foo(t) == "cpu"  # went on to the next key
        assert not dispatcher.compute_keyset(foo, (t,), {}).has(DK.Python)
    ft._destroy()
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        assert foo(t) == "python"


def test_fallthrough_per_backend_vs_all_backends(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu", "CPU")
    lib.impl("foo", lambda x: "cuda", "CUDA")
    lib.impl("foo", lambda x: "autograd", "Autograd")
    foo = ops_ns(ns).foo.default
    cpu, cuda = make_tensor("cpu"), make_tensor("cuda")
    entry = dispatcher.singleton.operators[f"{ns}::foo"]
    assert (foo(cpu), foo(cuda)) == ("autograd", "autograd")
    assert entry.nft_mask is not None  # no per-backend difference yet: one mask serves all backends
    only_cpu = libs(ns, "IMPL")
    only_cpu.impl("foo", fallthrough_kernel, "AutogradCPU")
    assert (foo(cpu), foo(cuda)) == ("cpu", "autograd")  # only AutogradCPU is skipped
    assert entry.nft_mask is None  # per-backend masks now
    assert "AutogradCPU: fallthrough registered at" in _C._dispatch_dump_table(f"{ns}::foo")
    only_cpu._destroy()
    assert (foo(cpu), foo(cuda)) == ("autograd", "autograd")
    assert entry.nft_mask is not None
    everywhere = libs(ns, "IMPL")
    everywhere.impl("foo", fallthrough_kernel, "Autograd")
    assert (foo(cpu), foo(cuda)) == ("cpu", "cuda")
    assert entry.nft_mask is not None
    assert_table_consistent(f"{ns}::foo")


# ---- boxed fallbacks and with_keyset --------------------------------------------------------------
def test_logging_fallback_on_python_key_redispatches(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x, Tensor y) -> str")
    lib.define("bar(Tensor x) -> str")
    lib.impl("foo", lambda x, y: "cpu foo", "CPU")
    lib.impl("bar", lambda x: "cpu bar", "CPU")
    log = []

    def logging_fallback(keyset, op, *args, **kwargs):
        log.append((op.name(), type(keyset), repr(keyset)))
        return op.redispatch(keyset.remove(DK.Python), *args, **kwargs)

    fb = libs("_", "IMPL")
    fb.fallback(logging_fallback, "Python", with_keyset=True)
    a, b = make_tensor("cpu"), make_tensor("cpu")
    assert ops_ns(ns).foo.default(a, b) == "cpu foo" and log == []  # Python not included: not reached
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        assert ops_ns(ns).foo.default(a, b) == "cpu foo"
        assert ops_ns(ns).bar.default(a) == "cpu bar"
    assert log == [(f"{ns}::foo", DispatchKeySet, "DispatchKeySet(CPU, Python)"),
                   (f"{ns}::bar", DispatchKeySet, "DispatchKeySet(CPU, Python)")]


def test_redispatch_below_autograd_and_below_ad_inplace(ns, libs, make_tensor):
    """A with_keyset kernel at AutogradCPU redispatching with `keyset & _C._after_...` reaches the keys below."""
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "cpu", "CPU")
    lib.impl("foo", lambda x: "inplace", "ADInplaceOrView")
    seen = []
    after = {"autograd": _C._after_autograd_keyset, "inplace": _C._after_ADInplaceOrView_keyset}

    def autograd_kernel(keyset, x):
        seen.append(keyset.highest_priority_type_id())
        return ops_ns(ns).foo.default.redispatch(keyset & after[mode], x)

    lib.impl("foo", autograd_kernel, "AutogradCPU", with_keyset=True)
    mode = "autograd"
    assert ops_ns(ns).foo.default(make_tensor("cpu")) == "inplace"
    mode = "inplace"
    assert ops_ns(ns).foo.default(make_tensor("cpu")) == "cpu"
    assert seen == [DK.AutogradCPU, DK.AutogradCPU]


def test_with_keyset_kernel_receives_the_keyset(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x, int n) -> Tensor")
    got = []
    lib.impl("foo", lambda ks, x, n: got.append((ks, n)) or x, "CPU", with_keyset=True)
    t = make_tensor("cpu")
    assert ops_ns(ns).foo.default(t, 3) is t
    ks, n = got[0]
    assert isinstance(ks, DispatchKeySet) and n == 3
    assert repr(ks) == "DispatchKeySet(CPU)"  # fallthrough keys were masked before the lookup
    lib.impl("foo", lambda ks, x, n: got.append((ks, n)) or x, "Python", with_keyset=True)
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        ops_ns(ns).foo.default(t, n=4)
    assert repr(got[1][0]) == "DispatchKeySet(CPU, Python)" and got[1][1] == 4


# ---- key set computation --------------------------------------------------------------------------
def test_call_keyset_is_union_of_all_tensor_arguments(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, int n=0, *, Tensor? k=None, Tensor[]? m=None) -> Tensor")
    op = ops_ns(ns).foo.default
    e = op._entry
    cpu, cuda, pu1, meta = (make_tensor(d) for d in ("cpu", "cuda", "privateuseone", "meta"))
    py = type(cpu)(DispatchKeySet(DK.Python))
    assert e.extract((cpu, None, [], []), {}) == int(cpu._key_set)
    assert e.extract((cpu, cuda, [], []), {}) == cpu._key_set | cuda._key_set
    assert e.extract((cpu, None, [cuda, pu1], []), {}) == cpu._key_set | cuda._key_set | pu1._key_set
    assert e.extract((cpu, None, [], [None, meta, None]), {}) == cpu._key_set | meta._key_set
    assert e.extract((cpu, None, [], []), {"k": py}) == cpu._key_set | py._key_set
    assert e.extract((cpu, None, [], []), {"m": [meta, py]}) == cpu._key_set | meta._key_set | py._key_set
    assert e.extract((), {"a": cuda, "b": None, "c": [pu1], "d": [None]}) == cuda._key_set | pu1._key_set
    # TLS: (tensors | included) - excluded, then the operator's fallthrough keys are masked out
    lib.impl("foo", lambda *a, **k: a[0], "CPU")
    base = dispatcher.compute_keyset(op, (cpu, None, [], []), {})
    assert repr(base) == "DispatchKeySet(CPU)"
    lib.impl("foo", lambda *a, **k: a[0], "ADInplaceOrView")  # an own kernel: no longer a fallthrough key
    assert repr(dispatcher.compute_keyset(op, (cpu, None, [], []), {})) == "DispatchKeySet(CPU, ADInplaceOrView)"
    with _C._IncludeDispatchKeyGuard(DispatchKeySet(DK.Python)):
        with_py = dispatcher.compute_keyset(op, (cpu, None, [cuda], [None]), {})
        assert repr(with_py) == "DispatchKeySet(CPU, CUDA, Python, ADInplaceOrView)"
        with _C._ExcludeDispatchKeyGuard(DispatchKeySet([DK.Python, DK.ADInplaceOrView])):
            assert repr(dispatcher.compute_keyset(op, (cpu, None, [cuda], [None]), {})) == "DispatchKeySet(CPU, CUDA)"


def test_generator_argument_contributes(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor a, Generator? g=None) -> Tensor")
    e = ops_ns(ns).foo.default._entry

    class Gen:
        _is_generator = True
        _key_set = int(DispatchKeySet(DK.CUDA))

    cpu = make_tensor("cpu")
    assert e.extract((cpu, Gen()), {}) == cpu._key_set | Gen._key_set
    assert e.extract((cpu,), {"g": None}) == cpu._key_set


# ---- dispatch errors ------------------------------------------------------------------------------
def _available(op_keys: list[str]) -> str:
    keys = [k for k in ALL_KEYS[1:] if k.name in op_keys or fallback_line(k) is not None]
    return "[" + ", ".join(k.name for k in keys) + "]"


def test_missing_kernel_error(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CPU"); cpu = here()  # noqa: E702
    with pytest.raises(NotImplementedError) as info:
        ops_ns(ns).foo.default(make_tensor("cuda"))
    name = f"{ns}::foo"
    assert str(info.value) == (
        f"Could not run '{name}' with arguments from the 'CUDA' backend. This could be because the operator "
        "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
        "custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        f"https://fburl.com/ptmfixes for possible resolutions. '{name}' is only available for these backends: "
        f"{_available(['CPU'])}.\n\n" + expected_table({"CPU": (cpu, "kernel")})
    )


def test_no_tensor_arguments_error(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor[] xs) -> Tensor")
    lib.impl("foo", lambda xs: xs, "CPU"); cpu = here()  # noqa: E702
    with pytest.raises(NotImplementedError) as info:
        ops_ns(ns).foo.default([])
    assert str(info.value) == (
        "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), but no "
        f"fallback function is registered for schema {ns}::foo.  This usually means that this function requires "
        "a non-empty list of Tensors, or that you (the operator writer) forgot to register a fallback function.  "
        f"Available functions are {_available(['CPU'])}.\n\n" + expected_table({"CPU": (cpu, "kernel")})
    )
    # a CompositeExplicitAutograd kernel fills the Undefined slot: no tensors is fine then
    lib.impl("foo", lambda xs: "undefined ok", "CompositeExplicitAutograd")
    assert ops_ns(ns).foo.default([]) == "undefined ok"


def test_missing_kernel_error_prefix_matches_torch(ns, libs, make_tensor):
    tlib = torch.library.Library(ns, "DEF")
    try:
        tlib.define("foo(Tensor x) -> Tensor")
        tlib.impl("foo", lambda x: x, "CPU")
        with pytest.raises(NotImplementedError) as t_info:
            getattr(torch.ops, ns).foo.default.redispatch(
                torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA), torch.ones(1))
        jlib = libs(ns, "DEF")
        jlib.define("foo(Tensor x) -> Tensor")
        jlib.impl("foo", lambda x: x, "CPU")
        with pytest.raises(NotImplementedError) as j_info:
            ops_ns(ns).foo.default(make_tensor("cuda"))
        prefix = lambda s: s.split(" is only available")[0]  # noqa: E731
        assert prefix(str(j_info.value)) == prefix(str(t_info.value))
    finally:
        tlib._destroy()


def test_wrong_argument_type_error(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x, Tensor y) -> Tensor")
    lib.impl("foo", lambda x, y: x, "CPU")
    with pytest.raises(RuntimeError) as info:
        ops_ns(ns).foo.default(make_tensor("cpu"), 3)
    assert str(info.value) == (
        f"{ns}::foo() Expected a value of type 'Tensor' for argument 'y' but instead found type 'int'.\n"
        f"Position: 1\nValue: 3\nDeclaration: {ns}::foo(Tensor x, Tensor y) -> Tensor\n"
        "Cast error details: Unable to cast 3 to Tensor"
    )
    with pytest.raises(RuntimeError, match=r"is missing value for argument 'y'\. Declaration: "):
        ops_ns(ns).foo.default(make_tensor("cpu"))
    with pytest.raises(RuntimeError, match=r"expected at most 2 argument\(s\) but received 3 argument\(s\)"):
        ops_ns(ns).foo.default(make_tensor("cpu"), make_tensor("cpu"), make_tensor("cpu"))


def test_wrong_argument_type_error_matches_torch(ns, libs, make_tensor):
    tlib = torch.library.Library(ns, "DEF")
    try:
        tlib.define("foo(Tensor x, Tensor y) -> Tensor")
        jlib = libs(ns, "DEF")
        jlib.define("foo(Tensor x, Tensor y) -> Tensor")
        for bad in (3, "a", 1.5, [1, 2]):
            with pytest.raises(RuntimeError) as t_info:
                getattr(torch.ops, ns).foo.default(torch.ones(1), bad)
            with pytest.raises(RuntimeError) as j_info:
                ops_ns(ns).foo.default(make_tensor("cpu"), bad)
            assert str(j_info.value) == str(t_info.value)
    finally:
        tlib._destroy()


# ---- introspection ------------------------------------------------------------------------------
def test_introspection(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor"); d = here()  # noqa: E702
    lib.impl("foo", lambda x: x, "CompositeImplicitAutograd"); math = here()  # noqa: E702
    lib.impl("foo", lambda x: x, "CPU"); cpu1 = here()  # noqa: E702
    name = f"{ns}::foo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the override warning has its own test
        lib.impl("foo", lambda x: x, "CPU"); cpu2 = here()  # noqa: E702
    lib.impl("foo", fallthrough_kernel, "AutogradCUDA"); ft = here()  # noqa: E702
    assert _C._dispatch_dump(name) == (
        f"name: {name}\nschema: {name}(Tensor x) -> Tensor\ndebug: {d}\nalias analysis kind: FROM_SCHEMA\n"
        f"CPU: {cpu2} :: (none) [ boxed ]\n"
        f"CPU (inactive): {cpu1} :: (none) [ boxed ]\n"
        f"AutogradCUDA: {ft} :: (none) [ fallthrough boxed ]\n"
        f"CompositeImplicitAutograd[alias]: {math} :: (none) [ boxed ]\n"
    )
    assert _C._dispatch_dump(f"{ns}::nope") == "" and _C._dispatch_dump_table(f"{ns}::nope") == ""
    assert "\nCPU: " + cpu2 + " [kernel]\n" in _C._dispatch_dump_table(name)
    assert "\nAutogradCUDA: fallthrough " + ft + " [kernel]\n" in _C._dispatch_dump_table(name)
    t = make_tensor("meta")
    assert _C._dispatch_keys(t) == DispatchKeySet([DK.Meta, DK.ADInplaceOrView, DK.AutogradMeta])
    assert repr(_C._dispatch_keys(t)) == "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)"
    assert _C._dispatch_has_kernel_for_dispatch_key(name, "CPU")
    assert _C._dispatch_has_kernel_for_dispatch_key(name, DK.CompositeImplicitAutograd)
    assert not _C._dispatch_has_kernel_for_dispatch_key(name, "CUDA")  # computed from the alias, not direct
    assert not _C._dispatch_has_kernel_for_dispatch_key(name, "AutogradCPU")
    with pytest.raises(RuntimeError, match=f"operator {ns}::nope does not exist"):
        _C._dispatch_has_kernel_for_dispatch_key(f"{ns}::nope", "CPU")
    assert _C._dispatch_has_kernel(name) and not _C._dispatch_has_kernel(f"{ns}::nope")
    assert _C._dispatch_key_for_device("cuda") == "CUDA"


# ---- dispatch trace -------------------------------------------------------------------------------
_TRACE_SCRIPT = textwrap.dedent('''
    import jtorch
    from jtorch import _C
    from jtorch.keyset import DispatchKeySet, DispatchKey as DK
    from jtorch.library import Library

    class T:
        _key_set = int(DispatchKeySet([DK.CPU, DK.ADInplaceOrView, DK.AutogradCPU]))

    lib = Library("{ns}", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.define("bar(Tensor x) -> Tensor")

    def autograd_foo(ks, x):
        return jtorch.ops.{ns}.foo.default.redispatch(ks & _C._after_autograd_keyset, x)

    def cpu_foo(x):
        return jtorch.ops.{ns}.bar.default(x)

    lib.impl("foo", autograd_foo, "AutogradCPU", with_keyset=True)
    lib.impl("foo", cpu_foo, "CPU")
    lib.impl("bar", lambda x: x, "CPU")
    t = T()
    assert jtorch.ops.{ns}.foo.default(t) is t
''')


def test_dispatch_trace_subprocess(ns):
    env = dict(os.environ, JTORCH_SHOW_DISPATCH_TRACE="1")
    proc = subprocess.run([sys.executable, "-c", _TRACE_SCRIPT.format(ns=ns)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if f"op=[{ns}::" in line]
    assert lines == [
        f"[call] op=[{ns}::foo], key=[AutogradCPU]",
        f" [redispatch] op=[{ns}::foo], key=[CPU]",
        f"  [call] op=[{ns}::bar], key=[CPU]",
    ]
    # and without the variable there is no trace
    env.pop("JTORCH_SHOW_DISPATCH_TRACE")
    quiet = subprocess.run([sys.executable, "-c", _TRACE_SCRIPT.format(ns=ns)], env=env, capture_output=True,
                           text=True, timeout=120)
    assert quiet.returncode == 0, quiet.stderr
    assert f"op=[{ns}::" not in quiet.stderr


def test_dispatch_trace_in_process(ns, libs, make_tensor, capsys):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda ks, x: ops_ns(ns).foo.default.redispatch(ks & after_autograd_keyset, x),
             "AutogradCPU", with_keyset=True)
    lib.impl("foo", lambda x: x, "CPU")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    if dispatcher._trace:
        pytest.skip("JTORCH_SHOW_DISPATCH_TRACE is set for this run")
    assert OpOverload.__call__ is dispatcher.call
    dispatcher.set_dispatch_trace(True)
    try:
        assert OpOverload.__call__ is not dispatcher.call
        assert foo(t) is t
    finally:
        dispatcher.set_dispatch_trace(False)
    err = capsys.readouterr().err
    assert err.splitlines() == [f"[call] op=[{ns}::foo], key=[AutogradCPU]", f" [redispatch] op=[{ns}::foo], key=[CPU]"]
    assert OpOverload.__call__ is dispatcher.call and OpOverload.redispatch is dispatcher.redispatch
    assert foo(t) is t
    assert capsys.readouterr().err == ""


# ---- observers ----------------------------------------------------------------------------------
def test_observers_see_every_call_and_detach(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x, int n) -> Tensor")
    lib.define("bar(Tensor x) -> Tensor")
    lib.impl("bar", lambda x: x, "CPU")
    lib.impl("foo", lambda ks, x, n: ops_ns(ns).foo.default.redispatch(ks & after_autograd_keyset, x, n),
             "AutogradCPU", with_keyset=True)
    lib.impl("foo", lambda x, n: ops_ns(ns).bar.default(x), "CPU")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    events = []
    handle = dispatcher.add_observer(lambda name, ks, args, kwargs: events.append(("start", name, repr(ks), args, kwargs)),
                                     lambda name, ks, args, kwargs: events.append(("end", name)))
    try:
        assert OpOverload.__call__ is not dispatcher.call
        assert foo(t, n=2) is t
    finally:
        handle.remove()
    assert events == [
        ("start", f"{ns}::foo", "DispatchKeySet(CPU, AutogradCPU)", (t,), {"n": 2}),
        ("start", f"{ns}::bar", "DispatchKeySet(CPU)", (t,), {}),  # a call made inside a kernel; redispatch is not seen
        ("end", f"{ns}::bar"),
        ("end", f"{ns}::foo"),
    ]
    assert OpOverload.__call__ is dispatcher.call and OpOverload.redispatch is dispatcher.redispatch
    events.clear()
    foo(t, 1)
    assert events == []
    handle.remove()  # idempotent


def test_observer_end_runs_on_error_and_context_manager(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    names = []
    with dispatcher.add_observer(lambda *a: names.append("start"), lambda *a: names.append("end")):
        with pytest.raises(NotImplementedError):
            ops_ns(ns).foo.default(make_tensor("cpu"))
    assert names == ["start", "end"]
    assert OpOverload.__call__ is dispatcher.call
