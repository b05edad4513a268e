"""Imports go downward only. Every module under jtorch/ gets a layer; no module may import from a
layer above its own, at module level or inside a function (a function-level import is still an
import: it hides a cycle, it does not remove it). Same-layer imports are allowed.

Layers, top (0) to bottom (5):

| layer | modules | role |
|---|---|---|
| 0 front ends | `__init__.py`, `bindings.py`, `nn/`, `optim/`, ... | what users call; the generated Python bindings |
| 1 native | `native/*`, `_dlpack.py` | operator declarations, their kernels and registration glue; the Python-level Tensor methods they set (conversions, indexing, printing, DLPack) |
| 2 dispatcher | `dispatcher.py`, `library.py`, `_ops.py`, `_C.py`, `_default_fallbacks.py` | operator registry, dispatch tables, registration API |
| 3 autograd / structured | `autograd/`, `structured/` | autograd kernels; structured kernels, TensorIterator |
| 4 kernels | `kernels/` | loops over data: the backends' stubs (CPU: Numba and NumPy) |
| 5 leaves | `tensor.py`, `storage.py`, `dtypes.py`, `device.py`, `geometry.py`, `scalar.py`, `promotion.py`, `backends.py`, `keyset.py`, `tls.py`, `schema.py`, `schema_check.py`, `memory_overlap.py`, `_enums.py`, `_tensor_str.py`, `random.py`, `cuda.py` | records and pure helpers: compute nothing through the dispatcher |

A module that is in no layer fails the test: give it one in LAYERS. Exceptions (importer,
imported, reason) are listed in EXCEPTIONS, each with its reason.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "jtorch"

NAMES = ("front end", "native", "dispatcher", "autograd/structured", "kernels", "leaf")

# (module or package prefix, layer); the longest matching entry wins.
LAYERS = {
    "jtorch": 0, "jtorch.bindings": 0, "jtorch.nn": 0, "jtorch.optim": 0, "jtorch.utils": 0, "jtorch.serialization": 0, "jtorch.functional": 0,
    "jtorch.linalg": 0, "jtorch.return_types": 0, "jtorch.testing": 0, "jtorch.profiler": 0,
    "jtorch.autograd.profiler": 0, "jtorch.autograd.functional": 0, "jtorch.cuda": 0,
    "jtorch.native": 1, "jtorch._dlpack": 1,
    "jtorch.dispatcher": 2, "jtorch.library": 2, "jtorch._ops": 2, "jtorch._C": 2, "jtorch._default_fallbacks": 2,
    "jtorch.autograd": 3, "jtorch.structured": 3,
    "jtorch.kernels": 4,
    **{f"jtorch.{m}": 5 for m in (
        "tensor", "storage", "dtypes", "device", "geometry", "scalar", "promotion", "backends", "keyset", "tls",
        "schema", "schema_check", "memory_overlap", "_enums", "_tensor_str", "random", "warn")},
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
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
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
