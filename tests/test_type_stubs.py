"""The type stubs of the generated bindings (jtorch/_tensor_base.pyi, _variable_functions.pyi,
_return_types.pyi) are what tools/gen_pyi.py makes from the declarations: a new or changed operator
needs the stubs regenerated (`python tools/gen_pyi.py`)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _gen_pyi():
    spec = importlib.util.spec_from_file_location("gen_pyi", ROOT / "tools" / "gen_pyi.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_checked_in_stubs_are_up_to_date():
    stale = [rel for rel, text in _gen_pyi().render().items() if (ROOT / rel).read_text() != text]
    assert not stale, f"stale stubs {stale}: rerun python tools/gen_pyi.py"


def test_stubs_name_every_generated_method_and_function():
    import jtorch
    from jtorch.tensor import Tensor

    rendered = _gen_pyi().render()
    methods, functions = rendered["jtorch/_tensor_base.pyi"], rendered["jtorch/_variable_functions.pyi"]
    for name in ("add", "view", "sum", "max", "__add__", "__radd__", "__getitem__"):
        assert f"def {name}(" in methods or name in Tensor.__dict__ and f"def {name}(" in (
            ROOT / "jtorch" / "_tensor_python.pyi").read_text(), name
    for name in ("add", "cat", "zeros", "max"):
        assert f"def {name}(" in functions
    assert "def tensor(" not in functions  # written in Python (jtorch.native.tensor_new): typed there
    assert callable(jtorch.add)
