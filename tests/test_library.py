"""jtorch.library and jtorch.ops: define/impl/fallback, registration errors with torch's texts, the
override warning, `_destroy` and garbage collection restoring the dispatcher exactly, registration
from many threads, and the operator handles' names, reprs and overload choice."""
from __future__ import annotations

import gc
import re
import sys
import threading
import warnings

import pytest

import jtorch
from _dispatch_support import here, ops_ns
from jtorch import _C, dispatcher
from jtorch.keyset import RUNTIME_KEYS, DispatchKey, after_autograd_keyset, table_index_for_key
from jtorch.library import Library, fallthrough_kernel

from _torch_oracle import oracle_torch

torch = oracle_torch()

DK = DispatchKey
ALL_KEYS = [DK.Undefined] + list(RUNTIME_KEYS[1:])

pytestmark = pytest.mark.usefixtures("no_leaks")


def assert_table_consistent(name: str) -> None:
    e = dispatcher.singleton.operators[name]
    for k in ALL_KEYS:
        kern, label = e.compute_entry(dispatcher.singleton, k)
        _, _, stored, stored_label = e.table[table_index_for_key(k)]
        assert (stored_label, stored) == (label, kern), (name, k)


# ---- define / impl ----------------------------------------------------------------------------------
def test_define_impl_and_call(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    assert lib.define("foo(Tensor x) -> Tensor") == "foo"
    assert lib.define(f"{ns}::foo.ov(Tensor x, int n) -> Tensor") == "foo"  # explicit namespace is fine
    lib.impl("foo", lambda x: ("default", x), "CPU")
    lib.impl(ops_ns(ns).foo.ov, lambda x, n: ("ov", n), "CPU")  # an OpOverload names the operator too
    t = make_tensor("cpu")
    assert ops_ns(ns).foo.default(t) == ("default", t)
    assert ops_ns(ns).foo.ov(t, 3) == ("ov", 3)

    @jtorch.library.impl(lib, "foo", "CUDA")
    def foo_cuda(x):
        return ("cuda", x)

    c = make_tensor("cuda")
    assert ops_ns(ns).foo.default(c) == ("cuda", c) and callable(foo_cuda)
    # no dispatch key: the library's own key, else CompositeImplicitAutograd
    lib.define("bar(Tensor x) -> str")
    lib.impl("bar", lambda x: "math")
    assert _C._dispatch_has_kernel_for_dispatch_key(f"{ns}::bar", "CompositeImplicitAutograd")
    meta_lib = libs(ns, "IMPL", "Meta")
    meta_lib.impl("bar", lambda x: "meta")
    assert _C._dispatch_has_kernel_for_dispatch_key(f"{ns}::bar", "Meta")
    assert ops_ns(ns).bar.default(make_tensor("meta")) == "meta"
    assert ops_ns(ns).bar.default(make_tensor("cpu")) == "math"
    with pytest.raises(TypeError, match=r"^Input function is required to be a callable but found type <class 'int'>$"):
        lib.impl("bar", 3, "CPU")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: NotAKey"):
        lib.impl("bar", lambda x: x, "NotAKey")
    with pytest.raises(ValueError, match="Unsupported kind: XX"):
        Library(ns, "XX")


def test_impl_before_def(ns, libs, make_tensor):
    impl = libs(ns, "IMPL")
    impl.impl("foo", lambda x: "cpu", "CPU")
    with pytest.raises(AttributeError):
        ops_ns(ns).foo
    with pytest.raises(RuntimeError) as info:
        dispatcher.singleton.find_schema_or_throw(f"{ns}::foo")
    assert str(info.value) == (f"Could not find schema for {ns}::foo. but we found an implementation; "
                               "did you forget to def() the operator?")
    d = libs(ns, "DEF")
    d.define("foo(Tensor x) -> str")
    assert ops_ns(ns).foo.default(make_tensor("cpu")) == "cpu"
    d._destroy()  # the schema goes, the kernel registered by the IMPL library stays
    with pytest.raises(AttributeError):
        ops_ns(ns).foo
    assert _C._dispatch_has_kernel_for_dispatch_key(f"{ns}::foo", "CPU")
    assert "schema: (none)" in _C._dispatch_dump(f"{ns}::foo")


# ---- registration errors ------------------------------------------------------------------------------
def test_duplicate_define(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor"); first = here()  # noqa: E702
    with pytest.raises(RuntimeError) as info:
        second = here(); lib.define("foo(Tensor x) -> Tensor")  # noqa: E702
    assert str(info.value) == (
        f"Tried to register an operator ({ns}::foo(Tensor x) -> Tensor) with the same name and overload name "
        "multiple times. Each overload's schema should only be registered with a single call to def(). "
        f"Duplicate registration: {second}. Original registration: {first}"
    )
    frag = libs(ns, "FRAGMENT")
    with pytest.raises(RuntimeError, match="with the same name and overload name multiple times"):
        frag.define("foo(Tensor y) -> Tensor")  # a fragment is the same namespace
    frag.define("foo.other(Tensor y) -> Tensor")  # a new overload is fine


def test_second_def_library_for_a_namespace(ns, libs):
    lib = Library(ns, "DEF"); first = here()  # noqa: E702
    try:
        with pytest.raises(RuntimeError) as info:
            second = here(); Library(ns, "DEF")  # noqa: E702
        assert str(info.value) == (
            f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of your "
            "definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, "
            "consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define "
            "operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to "
            f"explicitly indicate this.  Previous registration of TORCH_LIBRARY was {first}; latest registration "
            f"was {second}"
        )
        libs(ns, "FRAGMENT").define("ok(Tensor x) -> Tensor")  # fragments and IMPLs are not limited
        libs(ns, "IMPL")
    finally:
        lib._destroy()


def test_second_def_library_text_matches_torch(ns):
    first = torch.library.Library(ns, "DEF")
    try:
        with pytest.raises(RuntimeError) as t_info:
            torch.library.Library(ns, "DEF")
    finally:
        first._destroy()
    j_first = Library(ns, "DEF")
    try:
        with pytest.raises(RuntimeError) as j_info:
            Library(ns, "DEF")
    finally:
        j_first._destroy()
    sites = re.compile(r"registered at \S+;|registered at \S+$")
    assert sites.sub("X", str(j_info.value)) == sites.sub("X", str(t_info.value))
    assert "was registered at" in str(j_info.value) and "registered at registered" not in str(j_info.value)


def test_define_inside_impl_library(ns):
    lib = Library(ns, "IMPL"); site = here()  # noqa: E702
    with pytest.raises(RuntimeError) as info:
        lib.define("zz(Tensor x) -> Tensor")
    lib._destroy()
    assert str(info.value) == (
        'def("zz"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All def()s should be placed '
        "in the (unique) TORCH_LIBRARY block for their namespace.  (Error occurred while processing "
        f"TORCH_LIBRARY_IMPL block at {site})"
    )


def test_define_with_another_namespace(ns):
    frag = Library(ns, "FRAGMENT"); site = here()  # noqa: E702
    with pytest.raises(RuntimeError) as info:
        frag.define("other_ns::zz(Tensor x) -> Tensor")
    frag._destroy()
    assert str(info.value) == (
        f"Explicitly provided namespace (other_ns) in schema string does not match namespace of enclosing "
        f"TORCH_LIBRARY_FRAGMENT block ({ns}).  Move this definition to the (unique) TORCH_LIBRARY block "
        "corresponding to this namespace (and consider deleting the namespace from your schema string.)  "
        f"(Error occurred while processing TORCH_LIBRARY_FRAGMENT block at {site})"
    )


def test_could_not_find_schema(ns):
    with pytest.raises(RuntimeError) as info:
        dispatcher.singleton.find_schema_or_throw(f"{ns}::nope")
    assert str(info.value) == f"Could not find schema for {ns}::nope."
    with pytest.raises(RuntimeError, match=rf"^Could not find schema for {ns}::nope\.ov$"):
        dispatcher.singleton.find_schema_or_throw(f"{ns}::nope", "ov")


def test_duplicate_backend_fallback(libs):
    a = libs("_", "IMPL")
    a.fallback(lambda op, *args, **kw: None, "PrivateUse1"); first = here()  # noqa: E702
    b = libs("_", "IMPL")
    with pytest.raises(RuntimeError) as info:
        second = here(); b.fallback(lambda op, *args, **kw: None, "PrivateUse1")  # noqa: E702
    assert str(info.value) == (
        "Tried to register multiple backend fallbacks for the same dispatch key PrivateUse1; previous "
        f"registration {first}, new registration {second}"
    )
    a._destroy()
    b.fallback(lambda op, *args, **kw: None, "PrivateUse1")  # the key is free again


def test_fallback_only_in_global_namespace(ns, libs):
    with pytest.raises(RuntimeError) as info:
        libs(ns, "IMPL").fallback(lambda *a: None, "CPU")
    assert str(info.value) == (
        f'Fallback can only be registered using library fragment on the global namespace "_" but it is {ns}')


def test_destroyed_library_cannot_register(ns):
    lib = Library(ns, "FRAGMENT")
    lib._destroy()
    lib._destroy()  # twice is fine
    with pytest.raises(AssertionError, match="Library object has been destroyed"):
        lib.impl("foo", lambda x: x, "CPU")
    with pytest.raises(AssertionError, match="Library object has been destroyed"):
        lib.define("foo(Tensor x) -> Tensor")


# ---- the override warning ------------------------------------------------------------------------------
def test_override_warning_once(ns, libs, monkeypatch):
    monkeypatch.setattr(dispatcher.registry, "_warned_override", False)  # a once-per-process flag
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor"); d = here()  # noqa: E702
    lib.define("bar(Tensor x) -> Tensor")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.impl("foo", lambda x: x, "CPU"); k1 = here()  # noqa: E702
        assert caught == []
        lib.impl("foo", lambda x: x, "CPU"); k2 = here()  # noqa: E702
        lib.impl("foo", lambda x: x, "CPU")
        lib.impl("bar", lambda x: x, "CUDA")
        lib.impl("bar", lambda x: x, "CUDA")  # other operators: no second warning
    assert len(caught) == 1 and caught[0].category is UserWarning
    assert str(caught[0].message) == (
        "Warning only once for all operators,  other operators may also be overridden.\n"
        "  Overriding a previously registered kernel for the same operator and the same dispatch key\n"
        f"  operator: {ns}::foo(Tensor x) -> Tensor\n"
        f"    {d}\n"
        "  dispatch key: CPU\n"
        f"  previous kernel: {k1}\n"
        f"       new kernel: {k2}"
    )
    assert dispatcher._warned_override is True
    # the newest kernel wins and the older ones are kept (inactive)
    assert _C._dispatch_dump(f"{ns}::foo").count("CPU (inactive):") == 2


# ---- _destroy and garbage collection restore the dispatcher ------------------------------------------------
def _snapshot(*names: str) -> list[str]:
    return [(_C._dispatch_dump(n), _C._dispatch_dump_table(n)) for n in names]


def test_destroy_restores_tables_exactly(ns, libs, make_tensor):
    base = libs(ns, "DEF")
    base.define("foo(Tensor x) -> str")
    base.define("bar(Tensor x) -> str")
    base.impl("foo", lambda x: "cpu", "CPU")
    base.impl("foo", lambda x: "math", "CompositeImplicitAutograd")
    base.impl("bar", lambda x: "explicit", "CompositeExplicitAutograd")
    before = _snapshot(f"{ns}::foo", f"{ns}::bar")
    entry = dispatcher.singleton.operators[f"{ns}::foo"]
    masks_before = (entry.nft_mask, list(entry.nft_per_backend))
    t, c = make_tensor("cpu"), make_tensor("cuda")
    calls_before = [ops_ns(ns).foo.default(t), ops_ns(ns).foo.default(c), ops_ns(ns).bar.default(c)]

    extra = Library(ns, "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        extra.impl("foo", lambda x: "cpu2", "CPU")  # overrides, then gives back
    extra.impl("foo", lambda x: "cuda", "CUDA")
    extra.impl("foo", lambda x: "autograd", "Autograd")
    extra.impl("foo", fallthrough_kernel, "AutogradCPU")
    extra.impl("bar", lambda x: "python", "Python")
    extra.impl("bar", lambda x: "math", "CompositeImplicitAutograd")
    fb = Library("_", "IMPL")
    fb.fallback(lambda op, *a, **k: "fallback", "PrivateUse1")
    during = _snapshot(f"{ns}::foo", f"{ns}::bar")
    assert during != before
    assert [ops_ns(ns).foo.default(t), ops_ns(ns).foo.default(c)] == ["cpu2", "autograd"]
    fb._destroy()
    extra._destroy()
    assert _snapshot(f"{ns}::foo", f"{ns}::bar") == before
    assert [ops_ns(ns).foo.default(t), ops_ns(ns).foo.default(c), ops_ns(ns).bar.default(c)] == calls_before
    assert_table_consistent(f"{ns}::foo")
    assert_table_consistent(f"{ns}::bar")
    assert (entry.nft_mask, entry.nft_per_backend) == masks_before  # the fallthrough masks too


def _register_temporarily(ns: str) -> None:
    lib = Library(ns, "IMPL")  # only this frame refers to it
    lib.impl("foo", lambda x: "cuda", "CUDA")
    lib.impl("foo", fallthrough_kernel, "AutogradCPU")
    assert "CUDA: registered" in _C._dispatch_dump_table(f"{ns}::foo")


def test_garbage_collection_restores_tables(ns, libs, make_tensor):
    base = libs(ns, "DEF")
    base.define("foo(Tensor x) -> str")
    base.impl("foo", lambda x: "math", "CompositeImplicitAutograd")
    before = _snapshot(f"{ns}::foo")
    _register_temporarily(ns)
    gc.collect()
    assert _snapshot(f"{ns}::foo") == before
    lib = Library(ns, "IMPL")
    lib.impl("foo", lambda x: "cuda", "CUDA")
    assert ops_ns(ns).foo.default(make_tensor("cuda")) == "cuda"
    del lib
    gc.collect()
    assert _snapshot(f"{ns}::foo") == before
    assert ops_ns(ns).foo.default(make_tensor("cuda")) == "math"


def test_destroying_def_library_frees_namespace_and_ops(ns, make_tensor):
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "v1", "CPU")
    packet = ops_ns(ns).foo
    assert packet.default(make_tensor("cpu")) == "v1"
    lib._destroy()
    assert f"{ns}::foo" not in dispatcher.singleton.operators  # nothing left of it
    with pytest.raises(AttributeError) as info:
        ops_ns(ns).foo
    assert str(info.value) == f"'_OpNamespace' '{ns}' object has no attribute 'foo'"
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.foo' has no overload name 'default'"):
        packet.default  # a packet held from before
    again = Library(ns, "DEF")  # the namespace is free for a new DEF library
    try:
        again.define("foo(Tensor x, int n) -> str")
        again.impl("foo", lambda x, n: f"v2/{n}", "CPU")
        assert ops_ns(ns).foo.default(make_tensor("cpu"), 2) == "v2/2"
        assert str(ops_ns(ns).foo.default._schema) == f"{ns}::foo(Tensor x, int n) -> str"
    finally:
        again._destroy()


def test_garbage_collected_def_library_forgets_ops(ns):
    def define_temporarily():
        lib = Library(ns, "DEF")
        lib.define("foo(Tensor x) -> Tensor")
        assert ops_ns(ns).foo.default.name() == f"{ns}::foo"

    define_temporarily()
    gc.collect()
    with pytest.raises(AttributeError):
        ops_ns(ns).foo
    Library(ns, "DEF")._destroy()  # the namespace was freed too


# ---- registration from many threads ----------------------------------------------------------------------
def test_concurrent_registration(ns, libs, make_tensor):
    n_threads, per_thread = 8, 12
    frag = libs(ns, "FRAGMENT")
    frag.define("shared(Tensor x) -> str")
    keys = ["CPU", "CUDA", "PrivateUse1", "Meta", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta"]
    impl_libs = [libs(ns, "IMPL") for _ in keys]
    barrier = threading.Barrier(n_threads + len(keys) + 2)
    errors: list[BaseException] = []
    done = threading.Event()

    def guarded(fn):
        def run(*a):
            try:
                fn(*a)
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors.append(exc)
        return run

    @guarded
    def definer(i):
        barrier.wait()
        for j in range(per_thread):
            name = f"op_{i}_{j}"
            frag.define(f"{name}(Tensor x, int n) -> str")
            frag.impl(name, lambda x, n, i=i, j=j: f"{i}/{j}/{n}", "CPU")
            assert getattr(ops_ns(ns), name).default(make_tensor("cpu"), j) == f"{i}/{j}/{j}"

    @guarded
    def implementer(i):
        barrier.wait()
        key = keys[i]
        if key.startswith("Autograd"):
            def kernel(ks, x, key=key):
                return key + ">" + ops_ns(ns).shared.default.redispatch(ks & after_autograd_keyset, x)
            impl_libs[i].impl("shared", kernel, key, with_keyset=True)
        else:
            impl_libs[i].impl("shared", lambda x, key=key: key, key)

    @guarded
    def reader():
        barrier.wait()
        while not done.is_set():
            dir(ops_ns(ns))
            ops_ns(ns).shared.overloads()

    threads = ([threading.Thread(target=definer, args=(i,)) for i in range(n_threads)]
               + [threading.Thread(target=implementer, args=(i,)) for i in range(len(keys))]
               + [threading.Thread(target=reader) for _ in range(2)])
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show up
    try:
        for t in threads:
            t.start()
        for t in threads[:-2]:
            t.join(60)
        done.set()
        for t in threads[-2:]:
            t.join(60)
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    names = [f"op_{i}_{j}" for i in range(n_threads) for j in range(per_thread)]
    assert sorted(n for n in dir(ops_ns(ns)) if n.startswith("op_")) == sorted(names)
    for i in range(n_threads):
        for j in range(per_thread):
            assert getattr(ops_ns(ns), f"op_{i}_{j}").default(make_tensor("cpu"), 7) == f"{i}/{j}/7"
            assert_table_consistent(f"{ns}::op_{i}_{j}")
    assert_table_consistent(f"{ns}::shared")
    for device, backend in (("cpu", "CPU"), ("cuda", "CUDA"), ("privateuseone", "PrivateUse1"), ("meta", "Meta")):
        assert ops_ns(ns).shared.default(make_tensor(device)) == f"Autograd{backend}>{backend}"
    for lib in impl_libs:
        lib._destroy()
    assert_table_consistent(f"{ns}::shared")
    with pytest.raises(NotImplementedError):
        ops_ns(ns).shared.default(make_tensor("cpu"))


# ---- jtorch.ops handles ------------------------------------------------------------------------------------
def test_op_handles_names_and_reprs(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.define("foo.ov(Tensor x, int y) -> Tensor")
    packet = ops_ns(ns).foo
    assert repr(packet) == f"<OpOverloadPacket(op='{ns}.foo')>" and str(packet) == f"{ns}.foo"
    assert packet.__name__ == "foo"
    assert packet.overloads() == ["default", "ov"]
    d, ov = packet.default, packet.ov
    assert repr(d) == f"<OpOverload(op='{ns}.foo', overload='default')>"
    assert repr(ov) == f"<OpOverload(op='{ns}.foo', overload='ov')>"
    assert str(d) == f"{ns}.foo.default" and str(ov) == f"{ns}.foo.ov"
    assert d.name() == f"{ns}::foo" and ov.name() == f"{ns}::foo.ov"
    assert d.__name__ == "foo.default" and ov.__name__ == "foo.ov"
    assert str(ov._schema) == f"{ns}::foo.ov(Tensor x, int y) -> Tensor"
    assert d.namespace == ns and d.overloadpacket is packet
    assert ops_ns(ns).foo is packet and packet.default is d  # cached
    assert "foo" in dir(ops_ns(ns))
    with pytest.raises(AttributeError) as info:
        packet.nope
    assert str(info.value) == f"The underlying op of '{ns}.foo' has no overload name 'nope'"
    with pytest.raises(AttributeError) as info:
        ops_ns(ns).nope
    assert str(info.value) == f"'_OpNamespace' '{ns}' object has no attribute 'nope'"


def test_op_handles_match_torch(ns, libs):
    tlib = torch.library.Library(ns, "DEF")
    try:
        jlib = libs(ns, "DEF")
        for lib in (tlib, jlib):
            lib.define("foo(Tensor x) -> Tensor")
            lib.define("foo.ov(Tensor x, int y) -> Tensor")
        views = []
        for ops in (torch.ops, jtorch.ops):
            p = getattr(ops, ns).foo
            views.append([repr(p), str(p), p.__name__, p.overloads(), repr(p.default), repr(p.ov), str(p.ov),
                          p.default.name(), p.ov.name(), str(p.ov._schema), p.ov.__name__, p.ov.namespace])
        assert views[0] == views[1]
        for ops in (torch.ops, jtorch.ops):
            with pytest.raises(AttributeError) as info:
                getattr(ops, ns).foo.nope
            views.append(str(info.value))
        assert views[-1] == views[-2]
    finally:
        tlib._destroy()


def test_packet_call_chooses_overload(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.define("foo.ov(Tensor x, int y) -> str")
    lib.define("foo.named(Tensor x, *, Tensor other) -> str")
    lib.impl("foo", lambda x: "default", "CPU")
    lib.impl("foo.ov", lambda x, y: f"ov{y}", "CPU")
    lib.impl("foo.named", lambda x, other: "named", "CPU")
    t = make_tensor("cpu")
    assert ops_ns(ns).foo(t) == "default"
    assert ops_ns(ns).foo(t, 2) == "ov2"
    assert ops_ns(ns).foo(t, y=3) == "ov3"
    assert ops_ns(ns).foo(t, other=t) == "named"
    with pytest.raises(RuntimeError) as info:
        ops_ns(ns).foo("a")
    schema = lambda ov: f"{ns}::foo{ov}(Tensor x" + {"": ")", ".ov": ", int y)", ".named": ", *, Tensor other)"}[ov] + " -> str"  # noqa: E731,E501
    err = lambda ov: (  # noqa: E731
        f"{ns}::foo() Expected a value of type 'Tensor' for argument 'x' but instead found type 'str'.\n"
        f"Position: 0\nValue: 'a'\nDeclaration: {schema(ov)}\nCast error details: Unable to cast a to Tensor")
    assert str(info.value) == (  # every overload fails on x first, in the order they were defined
        "Overloaded torch operator invoked from Python failed to match any schema:\n"
        + "".join(f"{err(ov)}\n\n" for ov in ("", ".ov", ".named"))
    )
    with pytest.raises(RuntimeError) as info:
        ops_ns(ns).foo(t, t, t)
    assert str(info.value).startswith("Overloaded torch operator invoked from Python failed to match any schema:\n"
                                      f"{ns}::foo() expected at most 1 argument(s) but received 3 argument(s).")


def test_packet_no_match_error_matches_torch(ns, libs, make_tensor):
    tlib = torch.library.Library(ns, "DEF")
    try:
        jlib = libs(ns, "DEF")
        for lib in (tlib, jlib):
            lib.define("foo(Tensor x) -> Tensor")
            lib.define("foo.ov(Tensor x, int y) -> Tensor")
            lib.define("bar(Tensor x) -> Tensor")
            lib.define("baz(Tensor x, Tensor y, int z=1) -> Tensor")
        texts = []
        for ops, t in ((torch.ops, torch.ones(1)), (jtorch.ops, make_tensor("cpu"))):
            row = []
            for call in (lambda p: p.foo("a"), lambda p: p.foo(t, 1, 2), lambda p: p.bar(3),
                         lambda p: p.foo(t, zz=1), lambda p: p.baz(t, t, x=t), lambda p: p.baz(t, t, w=1),
                         lambda p: p.baz(t, z="q"), lambda p: p.baz.default(t, t, 1, 2)):
                with pytest.raises(RuntimeError) as info:
                    call(getattr(ops, ns))
                row.append(str(info.value))
            texts.append(row)
        assert texts[0] == texts[1]
    finally:
        tlib._destroy()
