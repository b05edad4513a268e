"""Start-up: declarations register with the dispatcher, and bindings are generated, on first use.

Laziness must be invisible: whichever way an operator is first reached (jtorch.ops.aten.x,
jtorch.x, Tensor.x, a dunder, _C's dump functions, find_schema_or_throw, a library registering
for it), the dispatcher then shows what registering everything at import shows, `registered at`
lines included; a backend registered after import gets kernels for operators declared (and not
yet used) before it; duplicate definitions still fail with PyTorch's message. These checks run in
fresh interpreters (the test process has used most operators already). No timing is asserted
here: start-up numbers are bench/bench_startup.py's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import jtorch
from jtorch import _C
from jtorch.bindings import _LazyBinding, signatures_by_name
from jtorch.native import registry
from jtorch.structured.fast_path import FAST_PATHS
from _torch_oracle import oracle_torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One operator per route by which it is first reached (all unused before, in a fresh process).
ROUTES = {
    "aten::neg": "jtorch.ops.aten.neg.default(t)",
    "aten::abs": "jtorch.abs(t)",
    "aten::sqrt": "t.sqrt()",
    "aten::mul.Tensor": "t * t",
    "aten::sub.Tensor": "2 - t",
    "aten::exp_": "t.clone().exp_()",
    "aten::sin": "_C._dispatch_dump_table('aten::sin')",
    "aten::cos": "singleton.find_schema_or_throw('aten::cos')",
    "aten::ceil": "_C._dispatch_dump('aten::ceil')",
    "aten::floor": "jtorch.ops.aten.floor(t)",
}


def _run(body: str, *, toy: bool = False) -> dict:
    """Run _PRELUDE (+ _TOY) + `body` in a fresh interpreter (this checkout first on the path);
    the body prints one JSON object."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = _PRELUDE + (_TOY if toy else "") + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_PRELUDE = """
import json, sys, threading, warnings
import numpy as np
import jtorch
from jtorch import _C, backends
from jtorch.dispatcher import singleton
from jtorch.native import registry
out = {}
def pending(name):
    return name in singleton._pending
def dumps(names):
    return {n: [_C._dispatch_dump(n), _C._dispatch_dump_table(n)] for n in names}
"""


def test_import_registers_parses_and_generates_nothing():
    r = _run("""
    from numba.core import event
    import jtorch.bindings as b
    out["declared"] = len(registry.declarations)
    out["pending"] = sum(pending("aten::" + nf.name) for nf in registry.declarations)
    out["parsed"] = sum(nf._func is not None for nf in registry.declarations)
    out["aten_entries"] = sum(k.startswith("aten::") for k in dict.keys(singleton.operators))
    def generated(ns):
        return [k for k, v in ns.items() if callable(v) and "_jtorch_source" in getattr(v, "__dict__", {})]
    out["generated_functions"] = generated(vars(jtorch))
    out["generated_methods"] = generated(vars(jtorch.Tensor))
    out["lazy_methods"] = sum(isinstance(v, b._LazyBinding) for v in vars(jtorch.Tensor).values())
    out["kernel_modules"] = [m for m in sys.modules if m.startswith("jtorch_kernels_generated")
                             or m == "jtorch.kernels.cpu.loops"]
    # what the first call needs, no more: two operators, their bindings, one kernel module
    rec = event.RecordingListener()
    event.register("numba:compile", rec)  # Numba compiles (never fires on a cache load)
    a = jtorch.from_numpy(np.ones(3, np.float32))
    (a + a).tolist()
    out["registered_after_add"] = sorted(k for k, e in dict.items(singleton.operators)
                                         if k.startswith("aten::") and e.schema is not None)
    out["generated_after_add"] = generated(vars(jtorch.Tensor))
    print(json.dumps(out))
    """)
    assert r["declared"] > 300 and r["pending"] == r["declared"]
    # only what declaring code reads itself (binary.py's _alias copies its target's parsed schema)
    assert r["parsed"] < r["declared"] // 5 and r["aten_entries"] == 0
    assert r["generated_functions"] == [] and r["generated_methods"] == []
    assert r["lazy_methods"] > 100
    assert r["kernel_modules"] == []
    # __add__ needs add.Tensor and its packet (add.out, add.Scalar); from_numpy, tolist and the
    # output allocation reach no aten operator on this path
    assert r["registered_after_add"] == ["aten::add.Scalar", "aten::add.Tensor", "aten::add.out"], \
        r["registered_after_add"]
    assert r["generated_after_add"] == ["__add__"]


def test_first_use_by_any_route_matches_registering_everything_first():
    names = list(ROUTES)
    lazy = _run(f"""
    t = jtorch.from_numpy(np.array([0.25, -2.0, 3.0], np.float32))
    routes = {ROUTES!r}
    out["pending_before"] = [n for n in routes if not pending(n)]
    results = {{}}
    for name, expr in routes.items():
        v = eval(expr)
        results[name] = v.tolist() if isinstance(v, jtorch.Tensor) else None
        assert not pending(name), name
    out["results"] = results
    out["dumps"] = dumps(list(routes))
    print(json.dumps(out))
    """)
    eager = _run(f"""
    registry.materialize_all()
    out["pending"] = len(singleton._pending)
    out["dumps"] = dumps({names!r})
    print(json.dumps(out))
    """)
    assert lazy["pending_before"] == []
    assert eager["pending"] == 0
    for name in names:
        assert lazy["dumps"][name] == eager["dumps"][name], name
        state, table = lazy["dumps"][name]
        assert "native/unary.py" in state or "native/binary.py" in state, state  # the declaring file
        assert "CPU: registered at " in table and "Meta: registered at " in table, table
    t = np.array([0.25, -2.0, 3.0], np.float32)
    res = lazy["results"]
    np.testing.assert_allclose(res["aten::neg"], -t)
    np.testing.assert_allclose(res["aten::abs"], np.abs(t))
    np.testing.assert_allclose(res["aten::mul.Tensor"], t * t)
    np.testing.assert_allclose(res["aten::sub.Tensor"], 2 - t)
    np.testing.assert_allclose(res["aten::exp_"], np.exp(t), rtol=1e-6)
    np.testing.assert_allclose(res["aten::floor"], np.floor(t))
    assert np.isnan(res["aten::sqrt"][1]) and res["aten::sqrt"][0] == 0.5


_TOY = """
from jtorch.kernels.cpu import backend as cpu_backend
from jtorch.storage import CPUStorage
TOY = jtorch.device("privateuseone")
class ToyStorage(CPUStorage):   # NumPy memory, on the toy device; the CPU loop stub reads it
    __slots__ = ()
    device = TOY
class ToyBackend(backends.Backend):   # allocates toy storages; the CPU backend's elementwise loops
    device_type, dispatch_key = "privateuseone", "PrivateUse1"
    def allocate(self, numel, dtype, device):
        return ToyStorage(np.empty(numel, dtype.numpy))
    def elementwise(self, it, scalar_fn, extras):
        cpu_backend.CPUBackend.elementwise(self, it, scalar_fn, extras)
def on_toy(values):
    a = np.asarray(values, np.float32)
    return jtorch.Tensor._make(ToyStorage(a.copy()), a.shape, (1,), 0, jtorch.float32, TOY)
"""


def test_backend_registered_after_import_gets_kernels_for_operators_not_used_yet():
    r = _run(toy=True, body="""
    c = jtorch.from_numpy(np.array([1.0, 2.0], np.float32))
    (c * c).tolist()                                          # mul.Tensor registered before the backend
    out["pending_at_registration"] = [n for n in ("aten::tanh", "aten::sub.Tensor") if pending(n)]
    backends.register_backend(ToyBackend())
    x, y = on_toy([0.5, -1.0, 2.0]), on_toy([3.0, 4.0, -5.0])
    out["values"] = {"mul": (x * y)._storage.data.tolist(), "tanh": jtorch.tanh(x)._storage.data.tolist(),
                     "sub": (x - y)._storage.data.tolist()}
    out["devices"] = [str((x - y).device), str(jtorch.tanh(x).device)]
    out["tables"] = {n: _C._dispatch_dump_table(n) for n in ("aten::mul.Tensor", "aten::tanh", "aten::sub.Tensor",
                                                              "aten::cosh")}
    out["has_pu1"] = {n: _C._dispatch_has_kernel_for_dispatch_key(n, "PrivateUse1")
                      for n in ("aten::mul.Tensor", "aten::tanh", "aten::sub.out", "aten::exp_", "aten::neg")}
    print(json.dumps(out))
    """)
    assert r["pending_at_registration"] == ["aten::tanh", "aten::sub.Tensor"]
    x, y = np.array([0.5, -1.0, 2.0], np.float32), np.array([3.0, 4.0, -5.0], np.float32)
    np.testing.assert_allclose(r["values"]["mul"], x * y)
    np.testing.assert_allclose(r["values"]["tanh"], np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(r["values"]["sub"], x - y)
    assert r["devices"] == ["privateuseone", "privateuseone"]
    for name, table in r["tables"].items():
        assert "\nPrivateUse1: registered at " in "\n" + table, (name, table)
    assert all(r["has_pu1"].values()), r["has_pu1"]


def test_library_registrations_for_a_lazily_declared_operator():
    r = _run("""
    from jtorch.library import Library
    out["pending"] = [pending("aten::atan"), pending("aten::asin")]
    try:
        Library("aten", "FRAGMENT").define("atan(Tensor self) -> Tensor")
    except RuntimeError as e:
        out["duplicate"] = str(e)
    t = jtorch.from_numpy(np.array([0.5], np.float32))
    lib = Library("aten", "IMPL", "CPU")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lib.impl("asin", lambda self: self * 10)
    out["warned"] = [str(x.message) for x in w]
    out["overridden"] = jtorch.asin(t).tolist()
    out["dump_overridden"] = _C._dispatch_dump("aten::asin")
    lib._destroy()
    out["restored"] = jtorch.asin(t).tolist()
    print(json.dumps(out))
    """)
    assert r["pending"] == [True, True]
    assert r["duplicate"].startswith("Tried to register an operator (aten::atan(Tensor self) -> Tensor) with the same "
                                     "name and overload name multiple times.")
    assert "Original registration: registered at " in r["duplicate"] and "native/unary.py" in r["duplicate"]
    assert any("Overriding a previously registered kernel" in m for m in r["warned"])
    assert r["overridden"] == [5.0]
    assert "CPU (inactive): registered at" in r["dump_overridden"]
    np.testing.assert_allclose(r["restored"], np.arcsin([0.5]), rtol=1e-6)


def test_concurrent_first_use_from_threads():
    r = _run("""
    t = jtorch.from_numpy(np.array([0.5, 1.0], np.float32))
    barrier = threading.Barrier(8)
    results, errors = [], []
    def work(i):
        try:
            barrier.wait()
            f = (lambda: jtorch.sinh(t)) if i % 2 else (lambda: jtorch.ops.aten.sinh.default(t))
            results.append(f().tolist())
        except Exception as e:
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads: th.start()
    for th in threads: th.join()
    out["results"], out["errors"] = results, errors
    out["kernels"] = _C._dispatch_dump("aten::sinh").count("registered at")
    print(json.dumps(out))
    """)
    assert r["errors"] == []
    assert len(r["results"]) == 8
    for v in r["results"]:
        np.testing.assert_allclose(v, np.sinh([0.5, 1.0]), rtol=1e-6)


def test_every_declaration_registers():
    r = _run("""
    registry.materialize_all()
    out["pending"] = len(singleton._pending)
    out["registered"] = sum(nf.registered for nf in registry.declarations)
    out["declared"] = len(registry.declarations)
    out["defined"] = sum(singleton.find_op("aten::" + nf.name) is not None for nf in registry.declarations)
    print(json.dumps(out))
    """)
    assert r["pending"] == 0 and r["registered"] == r["declared"] == r["defined"]


def test_cached_kernels_load_without_numba_target_start():
    body = """
    from numba.core import event
    rec = event.RecordingListener()
    event.register("numba:compile", rec)
    big = np.linspace(0, 1, 40000, dtype=np.float32)   # above the grain size: the parallel loop
    small = np.linspace(0, 1, 100, dtype=np.float32)
    a, b = jtorch.from_numpy(big), jtorch.from_numpy(small)
    out["ok"] = bool(np.array_equal((a * a).numpy(), big * big) and np.array_equal((b * b).numpy(), small * small))
    out["compiled"] = sum(1 for _, ev in rec.buffer if ev.is_start)
    out["target_started"] = "numba.np.arraymath" in sys.modules  # the first module Numba's start imports
    out["scipy_linalg"] = "scipy.linalg" in sys.modules
    print(json.dumps(out))
    """
    _run(body)  # fills the kernel cache where it is cold (that process compiles, starting the target)
    r = _run(body)
    assert r["ok"] and r["compiled"] == 0
    assert not r["target_started"] and not r["scipy_linalg"]


# ---- in this process --------------------------------------------------------------------------------
def test_dir_and_hasattr_list_operators():
    names = dir(jtorch)
    for name in ("add", "exp", "empty", "where", "clamp", "Tensor", "float32"):
        assert name in names
    assert hasattr(jtorch, "tanh") and callable(jtorch.tanh)
    assert not hasattr(jtorch, "no_such_operator")
    with pytest.raises(AttributeError, match="module 'jtorch' has no attribute 'no_such_operator'"):
        jtorch.no_such_operator
    from jtorch import mul  # noqa: F401  (from-import goes through the module __getattr__)

    assert set(signatures_by_name(method=False)) <= set(names)
    assert "add" in dir(jtorch.Tensor) and "__add__" in vars(jtorch.Tensor)
    assert "neg" in dir(jtorch.ops.aten)


def test_dunders_live_on_the_class():
    # Python looks dunders up on the type; each is there before and after its first use
    for d in ("__add__", "__radd__", "__mul__", "__rsub__", "__truediv__", "__iadd__", "__lt__", "__neg__"):
        assert d in vars(jtorch.Tensor), d
    t = jtorch.from_numpy(np.array([1.0, 2.0], np.float32))
    assert (3 - t).tolist() == [2.0, 1.0]
    assert not isinstance(vars(jtorch.Tensor)["__rsub__"], _LazyBinding)
    assert vars(jtorch.Tensor)["__rsub__"]._jtorch_source.startswith("def __rsub__(self, other):")


def test_lazy_method_on_a_subclass_instance_is_put_on_tensor():
    class Sub(jtorch.Tensor):
        pass

    t = jtorch.from_numpy(np.array([4.0], np.float32))
    s = Sub._make(t._storage, t._size, t._stride, 0, t.dtype, t._device)
    assert s.rsqrt().tolist() == [0.5]
    assert "rsqrt" not in vars(Sub) and hasattr(vars(jtorch.Tensor)["rsqrt"], "_jtorch_source")


def test_registered_at_names_the_declaring_file():
    table = _C._dispatch_dump_table("aten::add.Tensor")
    line = next(x for x in table.splitlines() if x.startswith("CPU: "))
    path, lineno = line.split("registered at ", 1)[1].split(" [")[0].rsplit(":", 1)
    assert path.endswith(os.path.join("jtorch", "native", "binary.py"))
    with open(path) as f:
        assert "elementwise(\"add.out(" in f.read().splitlines()[int(lineno) - 1]


def test_duplicate_declaration_fails_like_a_duplicate_def():
    with pytest.raises(RuntimeError, match=r"^Tried to register an operator \(aten::neg\(Tensor self\) -> Tensor\) "
                                           r"with the same name and overload name multiple times"):
        registry.declare("neg(Tensor self) -> Tensor", variants="function, method")
    assert sum(nf.name == "neg" for nf in registry.declarations) == 1


def test_declared_after_import_registers_on_first_use():
    r = _run("""
    nf = registry.declare("jt_startup_probe(Tensor self) -> Tensor", variants="function")
    nf.impl("CompositeExplicitAutograd")(lambda self: self)
    out["before"] = [nf.registered, "aten::jt_startup_probe" in singleton.all_op_names()]
    t = jtorch.from_numpy(np.array([1.0], np.float32))
    out["same"] = jtorch.ops.aten.jt_startup_probe(t) is t and jtorch.jt_startup_probe(t) is t
    out["after"] = nf.registered
    out["dump"] = _C._dispatch_dump("aten::jt_startup_probe")
    print(json.dumps(out))
    """)
    assert r["before"] == [False, True] and r["same"] and r["after"]
    # the sites of the declare() line and of the impl() line after it, though registered later
    n = int(r["dump"].split("debug: registered at <string>:")[1].split("\n")[0])
    assert f"CompositeExplicitAutograd[alias]: registered at <string>:{n + 1} :: (none)" in r["dump"], r["dump"]


# ---- the elementwise fast path ------------------------------------------------------------------------
def _builds(monkeypatch) -> list:
    """Record TensorIterator builds: the fast path makes none."""
    from jtorch.structured.tensor_iterator import TensorIterator

    calls: list = []
    orig = TensorIterator.build_op

    def build_op(self, *args, **kwargs):
        calls.append(1)
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(TensorIterator, "build_op", build_op)
    return calls


def test_fast_path_takes_subclasses_and_default_alpha(monkeypatch):
    class Sub(jtorch.Tensor):
        pass

    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    t = jtorch.from_numpy(a)
    s = Sub._make(t._storage, t._size, t._stride, 0, t.dtype, t._device)
    builds = _builds(monkeypatch)
    np.testing.assert_array_equal((s + t).numpy(), a + a)
    np.testing.assert_array_equal((t + s).numpy(), a + a)
    np.testing.assert_array_equal(jtorch.add(t, t, alpha=3).numpy(), a + 3 * a)
    np.testing.assert_array_equal(jtorch.sub(s, t, alpha=0.5).numpy(), a - 0.5 * a)
    u = jtorch.from_numpy(a.copy())
    u.add_(s)
    np.testing.assert_array_equal(u.numpy(), a + a)
    u.mul_(t)
    np.testing.assert_array_equal(u.numpy(), (a + a) * a)
    assert (builds == []) == FAST_PATHS  # JTORCH_NO_FAST_PATHS=1: every call builds


def test_fast_path_argument_checks_match_torch():
    torch = oracle_torch()
    a = np.array([1.0, 2.0], np.float32)
    i = np.array([1, 2], np.int32)
    cases = [
        (lambda m, f: m.add(f(a), f(a), alpha=True)),
        (lambda m, f: m.add(f(i), f(i), alpha=2.5)),
        (lambda m, f: m.sub(f(a), f(a), alpha=1j)),
        (lambda m, f: f(i).add_(f(i), alpha=0.5)),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as expected:
            case(torch, torch.from_numpy)
        with pytest.raises(RuntimeError) as got:
            case(jtorch, jtorch.from_numpy)
        assert str(got.value) == str(expected.value)
    # the default alpha on every dtype, bool included
    for dt in (np.bool_, np.int8, np.int64, np.float64, np.complex64):
        x = np.array([1, 0, 1], dt)
        np.testing.assert_array_equal(jtorch.add(jtorch.from_numpy(x), jtorch.from_numpy(x)).numpy(),
                                      torch.add(torch.from_numpy(x), torch.from_numpy(x)).numpy())


def test_fast_path_in_place_aliasing_goes_through_the_full_build(monkeypatch):
    torch = oracle_torch()
    a = np.arange(6, dtype=np.float32)
    x = jtorch.from_numpy(a.copy())
    x.add_(x)  # the same tensor: no partial overlap
    np.testing.assert_array_equal(x.numpy(), a + a)
    builds = _builds(monkeypatch)
    y = jtorch.from_numpy(a.copy())
    with pytest.raises(RuntimeError) as got:
        y[1:].add_(y[:-1])
    ty = torch.from_numpy(a.copy())
    with pytest.raises(RuntimeError) as expected:
        ty[1:].add_(ty[:-1])
    assert str(got.value) == str(expected.value)
    assert builds  # the overlap was found by the full build
    np.testing.assert_array_equal(y.numpy(), a)  # nothing written


def test_fast_path_with_python_scalars_and_optional_tensors():
    a = np.array([1.5, -2.0, 3.0], np.float32)
    t = jtorch.from_numpy(a)
    np.testing.assert_array_equal((t * 2).numpy(), a * 2)
    np.testing.assert_array_equal((2.5 - t).numpy(), np.float32(2.5) - a)
    np.testing.assert_array_equal(jtorch.where(t > 0, t, jtorch.from_numpy(-a)).numpy(), np.abs(a))
    np.testing.assert_array_equal(t.where(t > 0, 0.0).numpy(), np.where(a > 0, a, 0))
    lo = jtorch.from_numpy(np.zeros(3, np.float32))
    np.testing.assert_array_equal(jtorch.clamp(t, lo).numpy(), np.maximum(a, 0))
    np.testing.assert_array_equal(jtorch.clamp(t, None, lo).numpy(), np.minimum(a, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(jtorch.lerp(t, lo, 0.5).numpy(), a * 0.5)
