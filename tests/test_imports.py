"""Imports go downward only. Every module under jtorch/ gets a layer; no module may import from a
layer above its own, at module level or inside a function (a function-level import is still an
import: it hides a cycle, it does not remove it). Same-layer imports are allowed.

Layers, top (0) to bottom (5):

| layer | modules | role |
|---|---|---|
| 0 front ends | `__init__.py`, `bindings.py`, `nn/`, `optim/`, ... | what users call; the generated Python bindings |
| 1 native | `native/*`, `_dlpack.py` | operator declarations, their kernels and registration glue; the Python-level Tensor methods they set (conversions, indexing, printing, DLPack) |
| 2 dispatcher | `dispatcher/`, `library.py`, `_ops.py`, `_C.py`, `_default_fallbacks.py` | operator registry, dispatch tables, registration API |
| 3 autograd / structured | `autograd/`, `structured/` | autograd kernels; structured kernels, TensorIterator |
| 4 kernels | `kernels/` | loops over data: the backends' stubs (CPU: Numba and NumPy) |
| 5 leaves | `tensor.py`, `storage.py`, `dtypes.py`, `device.py`, `geometry.py`, `scalar.py`, `promotion.py`, `backends.py`, `keyset.py`, `tls.py`, `schema.py`, `schema_check.py`, `memory_overlap.py`, `_enums.py`, `_tensor_str.py`, `random.py`, `cuda.py`, `codegen.py` | records and pure helpers: compute nothing through the dispatcher |

A module that is in no layer fails the test: give it one in LAYERS. Exceptions (importer,
imported, reason) are listed in EXCEPTIONS, each with its reason.
"""
from __future__ import annotations

import ast
import functools
import importlib
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "jtorch"

NAMES = ("front end", "native", "dispatcher", "autograd/structured", "kernels", "leaf")

# (module or package prefix, layer); the longest matching entry wins.
LAYERS = {
    "jtorch": 0, "jtorch.bindings": 0, "jtorch.nn": 0, "jtorch.optim": 0, "jtorch.utils": 0, "jtorch.serialization": 0, "jtorch.functional": 0, "jtorch.functional_shape": 0, "jtorch.nn_functions_in_torch": 0,
    "jtorch.linalg": 0, "jtorch.return_types": 0, "jtorch.testing": 0, "jtorch.profiler": 0,
    "jtorch.autograd.profiler": 0, "jtorch.autograd.functional": 0, "jtorch.cuda": 0,
    "jtorch.cpu": 0, "jtorch.streams": 0, "jtorch.control_flow": 0,
    "jtorch.native": 1, "jtorch._dlpack": 1,
    "jtorch.dispatcher": 2, "jtorch.library": 2, "jtorch._ops": 2, "jtorch._C": 2, "jtorch._default_fallbacks": 2,
    "jtorch.autograd": 3, "jtorch.structured": 3,
    "jtorch.kernels": 4,
    **{f"jtorch.{m}": 5 for m in (
        "tensor", "storage", "dtypes", "device", "geometry", "scalar", "promotion", "backends", "keyset", "tls",
        "schema", "schema_check", "memory_overlap", "_enums", "_tensor_str", "random", "warn", "codegen",
        "global_context")},
}

# (importer, imported): reason. Keep this very short.
EXCEPTIONS: dict = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    p = ROOT.parent.joinpath(*name.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def layer(name: str) -> int | None:
    best = None
    for prefix, lay in LAYERS.items():
        if (name == prefix or name.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, lay)
    # `jtorch` itself only matches exactly: a new top-level module must be given a layer
    if best is not None and best[0] == "jtorch" and name != "jtorch":
        return None
    return None if best is None else best[1]


def from_target(package: str, node: ast.ImportFrom) -> str:
    """The module a `from ... import` names, relative imports resolved against `package`."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every jtorch import in the file, at any depth (functions included).
    `from pkg import name` imports pkg.name when that is a module, else pkg (its __init__)."""
    mod = module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "jtorch"]
        elif isinstance(node, ast.ImportFrom):
            target = from_target(package, node)
            if target.split(".")[0] != "jtorch":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.append((node.lineno, sub if a.name != "*" and is_module(sub) else target))
    return found


FILES = sorted(ROOT.rglob("*.py"))


def test_every_module_has_a_layer():
    missing = [module_name(p) for p in FILES if layer(module_name(p)) is None]
    assert not missing, f"modules with no layer (add them to LAYERS in {__file__}): {missing}"


def test_imports_go_downward_only():
    bad = []
    for path in FILES:
        importer = module_name(path)
        own = layer(importer)
        if own is None:
            continue
        for line, target in imports(path):
            lay = layer(target)
            if lay is None or lay >= own or (importer, target) in EXCEPTIONS:
                continue
            bad.append(f"{path.relative_to(ROOT.parent)}:{line}: {importer} (layer {own}, {NAMES[own]}) imports "
                       f"{target} (layer {lay}, {NAMES[lay]})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_exceptions_are_still_needed():
    """An exception that no longer matches an import is stale: remove it."""
    seen = {(module_name(p), t) for p in FILES for _, t in imports(p)}
    stale = [e for e in EXCEPTIONS if e not in seen]
    assert not stale, f"stale exceptions: {stale}"


@pytest.mark.parametrize("src, expected, upward", [
    ("from .. import dtypes as _dt", "jtorch.dtypes", False),
    ("from ..native.factories import empty", "jtorch.native.factories", True),
    ("def f():\n    from .. import strided\n", "jtorch", True),  # a name from jtorch/__init__.py
    ("def f():\n    import jtorch.native.copy as c\n", "jtorch.native.copy", True),
    ("from .meta import MetaBase", "jtorch.structured.meta", False),
    ("from ... import x", None, False),  # outside jtorch: not ours
])
def test_the_scanner_sees_relative_absolute_and_function_level_imports(src, expected, upward, monkeypatch):
    path = ROOT / "structured" / "meta.py"  # the source is read as if it were this file (layer 3)
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: src)
    found = [t for _, t in imports(path)]
    assert found == ([] if expected is None else [expected])
    if expected is not None:
        assert (layer(expected) < layer("jtorch.structured.meta")) == upward


# ---- no import cycle ---------------------------------------------------------------------------------


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@functools.cache
def _statically_bound(package: str) -> frozenset[str]:
    """The names a package's __init__ binds when it runs (imports, defs, assignments)."""
    tree = ast.parse((ROOT.parent.joinpath(*package.split(".")) / "__init__.py").read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return frozenset(names)


@functools.cache
def _is_package(name: str) -> bool:
    return (ROOT.parent.joinpath(*name.split(".")) / "__init__.py").is_file()


@functools.cache
def home(module: str, name: str) -> str:
    """The module whose code runs to give `module.name` (see test_no_import_cycle)."""
    sub = f"{module}.{name}"
    if _is_package(module) and is_module(sub):
        return sub
    if not _is_package(module) or name in _statically_bound(module) or "__getattr__" not in _statically_bound(module):
        return module
    # served by the package's __getattr__: ask the object where it lives
    obj = getattr(importlib.import_module(module), name)
    where = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    return where if isinstance(where, str) and is_module(where) else module


def graph_edges(path: Path) -> list[tuple[int, str]]:
    """(line, module) for each module this file's code needs, at any depth (functions included)."""
    mod = module_name(path)
    is_init = path.name == "__init__.py"
    package = mod if is_init else mod.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nodes = list(ast.walk(tree))
    skip: set[int] = set()  # ids of nodes whose imports are not this module's edges
    for node in nodes:
        if isinstance(node, ast.If) and _is_type_checking(node):
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    if is_init:  # a package's lazy __getattr__ imports on behalf of the module that asks
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                skip |= {id(n) for n in ast.walk(node)}
    nodes = [n for n in nodes if id(n) not in skip and isinstance(n, (ast.Import, ast.ImportFrom, ast.Attribute))]
    found: list[tuple[int, str]] = []
    bound: dict[str, str] = {}  # local name -> the jtorch module it is bound to
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "jtorch":
                    found.append((node.lineno, a.name))
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound[a.name.split(".")[0]] = "jtorch"
        elif isinstance(node, ast.ImportFrom):
            target = from_target(package, node)
            if target.split(".")[0] != "jtorch":
                continue
            for a in node.names:
                if a.name == "*":
                    found.append((node.lineno, target))
                    continue
                where = home(target, a.name)
                found.append((node.lineno, where))
                if where == f"{target}.{a.name}":
                    bound[a.asname or a.name] = where
    for node in nodes:  # `torch.nn.functional.relu` where `import jtorch as torch`
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        chain = []
        n: ast.AST = node
        while isinstance(n, ast.Attribute):
            chain.append(n.attr)
            n = n.value
        if not isinstance(n, ast.Name) or n.id not in bound:
            continue
        cur = bound[n.id]
        for attr in reversed(chain):  # down through submodules, to where the attribute lives
            nxt = home(cur, attr)
            submodule = nxt == f"{cur}.{attr}"
            cur = nxt
            if not submodule:
                break
        if cur != bound[n.id]:
            found.append((node.lineno, cur))
    return [(line, t) for line, t in found if t != mod]


def _cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    cycles = []
    for comp in comps:  # one shortest cycle through the component's first module, for the message
        members, start = set(comp), comp[0]
        paths = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(edges.get(v, {})):
                if w == start:
                    cycles.append(paths[v] + [start])
                    queue = []
                    break
                if w in members and w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
    return cycles


def test_no_import_cycle():
    """No module needs, through any chain of imports, a module that needs it: the import graph of
    jtorch/ is acyclic. Every import counts (module level or inside a function: a function-level
    import hides a cycle, it does not remove it), except those under `if TYPE_CHECKING:`, which
    never run.

    An edge goes to the module whose code runs to give the importer its name:
    - `import jtorch.a.b`, `from jtorch.a import b` (b a module), `from . import b`: jtorch.a.b,
      not jtorch.a's __init__;
    - `from jtorch.a import name` for any other name: the package's __init__ (the namespace that
      binds it when it runs, re-exported names included);
    - a name a package serves lazily from a PEP 562 `__getattr__` (`jtorch.save`, `jtorch.nn`,
      `jtorch.autograd.Function`): the module that holds it. The imports inside that `__getattr__`
      are made on behalf of the module that asks, so they are that module's edges, not the
      package's;
    - `import jtorch as torch` followed by `torch.nn.functional.relu(...)`: jtorch (generated
      operator functions live in its namespace) and, per attribute used, the module resolved as
      above (jtorch.nn and jtorch.nn.functional here).
    """
    edges: dict[str, dict[str, int]] = {}
    for path in FILES:
        mine = edges.setdefault(module_name(path), {})
        for line, target in graph_edges(path):
            mine.setdefault(target, line)
    where = {module_name(p): p.relative_to(ROOT.parent) for p in FILES}
    cycles = _cycles(edges)
    text = ["  " + " -> ".join(f"{a} ({where[a]}:{edges[a][b]})" for a, b in zip(c, c[1:])) + f" -> {c[-1]}"
            for c in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(text)


@pytest.mark.parametrize("src, expected", [
    ("import jtorch as torch\ndef f():\n    return torch.nn.functional.relu",
     {"jtorch", "jtorch.nn", "jtorch.nn.functional"}),
    ("def f():\n    from ..autograd import views\n", {"jtorch.autograd.views"}),
    ("from .. import dtypes", {"jtorch.dtypes"}),
    ("from ..autograd import no_grad", {"jtorch.autograd"}),
    ("import jtorch\njtorch.save", {"jtorch", "jtorch.serialization"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..native import views\n", set()),
])
def test_the_cycle_scanner_resolves_names_to_their_modules(src, expected, monkeypatch):
    path = ROOT / "structured" / "meta.py"  # the source is read as if it were this file
    real = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: src if self == path else real(self, *a, **k))
    assert {t for _, t in graph_edges(path)} == expected


# Modules that belong to one backend: its kernels, and the storage classes only its kernels look inside.
BACKEND_MODULES = ("jtorch.kernels.cpu", "jtorch.kernels.cuda")
BACKEND_NAMES = {"jtorch.storage": {"CPUStorage", "MetaStorage"}}


def backend_imports(path: Path) -> list[str]:
    """Every import in the file (functions included) that names one backend: a module under
    BACKEND_MODULES, or a backend's class imported from a neutral module."""
    bad = [f"{line}: {target}" for line, target in imports(path)
           if any(target == m or target.startswith(m + ".") for m in BACKEND_MODULES)]
    mod = module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            target = from_target(package, node)
            names = BACKEND_NAMES.get(target, set()) & {a.name for a in node.names}
            bad += [f"{node.lineno}: {target}.{n}" for n in sorted(names)]
    return bad


def test_native_names_no_backend():
    """native/ (and the other layer-1 modules) reach every backend through the registry
    (jtorch.backends): they import no backend's kernels and build no backend's storage themselves."""
    bad = [f"{p.relative_to(ROOT.parent)}:{b}" for p in FILES if layer(module_name(p)) == 1
           for b in backend_imports(p)]
    assert not bad, "native/ imports a backend:\n" + "\n".join(bad)


@pytest.mark.parametrize("src, found", [
    ("def f():\n    from ..kernels.cpu.host import numpy_view\n", ["2: jtorch.kernels.cpu.host"]),
    ("from ..kernels.cuda import interop\n", ["1: jtorch.kernels.cuda.interop"]),
    ("from ..storage import CPUStorage, new_storage\n", ["1: jtorch.storage.CPUStorage"]),
    ("from ..kernels import scalar_binary\nfrom ..backends import backend\n", []),
])
def test_the_backend_scanner_sees_backend_imports(src, found, monkeypatch):
    path = ROOT / "native" / "binary.py"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: src)
    assert backend_imports(path) == found


# Backends share code through kernels/common only: a backend directory is its launches.
BACKEND_PACKAGES = ("jtorch.kernels.cpu", "jtorch.kernels.cuda")
SHARED_PACKAGE = "jtorch.kernels.common"


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_backends_import_nothing_from_each_other():
    bad = []
    for path in FILES:
        importer = module_name(path)
        own = next((p for p in BACKEND_PACKAGES if _in(importer, p)), None)
        if own is None:
            continue
        for line, target in imports(path):
            if any(_in(target, p) for p in BACKEND_PACKAGES if p != own):
                bad.append(f"{path.relative_to(ROOT.parent)}:{line}: {importer} imports {target}")
    assert not bad, "one backend imports another (move what they share to kernels/common):\n" + "\n".join(bad)


def test_shared_kernel_code_imports_no_backend():
    bad = [f"{path.relative_to(ROOT.parent)}:{line}: {module_name(path)} imports {target}"
           for path in FILES if _in(module_name(path), SHARED_PACKAGE)
           for line, target in imports(path) if any(_in(target, p) for p in BACKEND_PACKAGES)]
    assert not bad, "kernels/common imports a backend:\n" + "\n".join(bad)


@pytest.mark.parametrize("src, importer, bad", [
    ("def f():\n    from ..cpu import sort\n", "cuda/sort.py", True),  # function level counts
    ("from ..common.cache import enable_package_cache\n", "cuda/sort.py", False),
    ("import jtorch.kernels.cuda.driver\n", "cpu/sort.py", True),
    ("from . import threads\n", "cpu/sort.py", False),
])
def test_the_backend_check_sees_cross_backend_imports(src, importer, bad, monkeypatch):
    path = ROOT / "kernels" / importer
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: src)
    own = "jtorch.kernels." + importer.split("/")[0]
    found = [t for _, t in imports(path) if any(_in(t, p) for p in BACKEND_PACKAGES if p != own)]
    assert bool(found) == bad
