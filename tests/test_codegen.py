"""Generated source: every site that compiles it goes through jtorch.codegen.compile_source, and
JTORCH_DUMP_GENERATED=<dir> writes each compilation there, one file per compilation, named after
its filename tag."""
from __future__ import annotations

import re
from pathlib import Path

from _dispatch_support import ops_ns

from jtorch import codegen, dispatcher

JTORCH = Path(__file__).resolve().parent.parent / "jtorch"


def test_compile_source_is_the_only_exec():
    sites = [str(p.relative_to(JTORCH)) for p in sorted(JTORCH.rglob("*.py"))
             for line in p.read_text().splitlines() if re.search(r"\bexec\(", line)]
    assert sites == ["codegen.py"]


def test_no_dump_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(codegen.DUMP_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    ns = codegen.compile_source("def f():\n    return 1\n", "<jtorch test f>", {})
    assert ns["f"]() == 1
    assert list(tmp_path.iterdir()) == []


def test_dump_writes_one_file_per_compilation_named_after_its_tag(tmp_path, monkeypatch):
    out = tmp_path / "generated"
    monkeypatch.setenv(codegen.DUMP_ENV, str(out))
    src = "def f(x):\n    return x + k\n"
    assert codegen.compile_source(src, "<jtorch binding Tensor.f>", {"k": 1})["f"](1) == 2
    codegen.compile_source(src, "<jtorch binding Tensor.f>", {"k": 2})
    codegen.compile_source("def g():\n    pass", "<jtorch formula GBackward0: g>", {})
    assert sorted(p.name for p in out.iterdir()) == [
        "jtorch_binding_Tensor.f.1.py", "jtorch_binding_Tensor.f.py", "jtorch_formula_GBackward0_g.py"]
    assert (out / "jtorch_binding_Tensor.f.py").read_text() == src
    assert (out / "jtorch_formula_GBackward0_g.py").read_text() == "def g():\n    pass\n"


def test_compile_source_keeps_module_globals_apart_from_its_definitions():
    """The CPU loop runners run in their module's globals (a test may replace what they call)."""
    module_globals = {"k": 1}
    defs: dict = {}
    assert codegen.compile_source("def f():\n    return k\n", "<t>", module_globals, defs) is defs
    assert "f" in defs and "f" not in module_globals
    module_globals["k"] = 2
    assert defs["f"]() == 2


def test_the_dispatcher_dumps_its_extractor_and_generated_call(ns, libs, make_tensor, tmp_path, monkeypatch):
    monkeypatch.setenv(codegen.DUMP_ENV, str(tmp_path))
    lib = libs(ns, "DEF")
    # a layout of tensor arguments no other operator has: its extractor and call are compiled now
    lib.define("odd(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, Tensor e, Tensor f, Tensor g, Tensor h) -> Tensor")
    lib.impl("odd", lambda a, b, c, d, e, f, g, h: "ran", "CPU")
    t = make_tensor("cpu")
    op = ops_ns(ns).odd.default
    assert dispatcher.op_call(op)(t, None, [t], [None], t, t, t, t) == "ran"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "extractor.py" in names and "jtorch_dispatcher_call.py" in names
    assert (tmp_path / "extractor.py").read_text().startswith("def extract(args, kwargs):\n    n = len(args)\n")
    assert "def call(*args, **kwargs):" in (tmp_path / "jtorch_dispatcher_call.py").read_text()
