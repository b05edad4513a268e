"""JTORCH_NO_FAST_PATHS=1 turns every fast path off: the same results come from the general
machinery (TensorIterator builds, the generic autograd record), and no fast path runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Prints {case: [dtype, values, TensorIterator builds]}; for "grad", the third is how many
# operators autograd recorded with its generic record instead of a generated one. Each case is
# one that some fast path takes when the switch is off.
SCRIPT = r"""
import json
import jtorch
from jtorch.autograd import variable_type
from jtorch.structured import fast_path
from jtorch.structured.tensor_iterator import TensorIterator

builds = [0]
build = TensorIterator.build
def counting_build(self, config):
    builds[0] += 1
    return build(self, config)
TensorIterator.build = counting_build

a = jtorch.tensor([1.0, 2.0, 3.0, 4.0])
b = jtorch.tensor([4.0, -3.0, 2.5, 1.0])
m = jtorch.arange(12.0).reshape(3, 4)
cases = {
    "a + b": lambda: a + b,
    "x * 2": lambda: a * 2,
    "x.sum()": lambda: a.sum(),
    "sum(0)": lambda: m.sum(0),
    "mean(1)": lambda: m.mean(1),
    "amax": lambda: m.amax(),
    "add_": lambda: a.clone().add_(b),
    "add out=": lambda: jtorch.add(a, b, out=jtorch.empty(4)),
    "0-dim += 1": lambda: jtorch.tensor(3.0).add_(1),
    "expanded element": lambda: a * jtorch.tensor(2.0).expand(4),
    "relu": lambda: (a - 2.5).relu(),
    "mm": lambda: m.mm(m.t()),
    "cat": lambda: jtorch.cat([a, b]),
    "masked_fill": lambda: a.masked_fill(a > 2, 0.0),
}
out = {}
for name, f in cases.items():
    builds[0] = 0
    r = f()
    out[name] = [str(r.dtype), r.tolist(), builds[0]]
generic = [0]
record_generic = variable_type.record_generic
def counting_record(*args):
    generic[0] += 1
    return record_generic(*args)
variable_type.record_generic = counting_record
w = jtorch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
x = jtorch.tensor([[1.0, 2.0], [3.0, -4.0]])
(x.mm(w).relu() * 2).sum().backward()
out["grad"] = [str(w.grad.dtype), w.grad.tolist(), generic[0]]
print(json.dumps({"fast_paths": fast_path.FAST_PATHS, "cases": out}))
"""


def _run(no_fast_paths: bool) -> dict:
    env = dict(os.environ)
    env.pop("JTORCH_NO_FAST_PATHS", None)
    if no_fast_paths:
        env["JTORCH_NO_FAST_PATHS"] = "1"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    return _run(False), _run(True)


def test_results_match_with_fast_paths_off(both):
    on, off = both
    assert on["fast_paths"] is True and off["fast_paths"] is False
    for name, (dtype, values, _) in on["cases"].items():
        assert off["cases"][name][:2] == [dtype, values], name


def test_switch_takes_the_general_path(both):
    on, off = both
    # with the switch every elementwise call and reduction builds a TensorIterator ...
    for name in ("a + b", "x * 2", "x.sum()", "sum(0)", "mean(1)", "amax", "add_", "add out=", "0-dim += 1",
                 "expanded element", "relu", "masked_fill"):
        assert off["cases"][name][2] >= 1, name
    # ... which the fast paths skip
    for name in ("a + b", "x * 2", "x.sum()", "sum(0)", "add_", "add out=", "0-dim += 1", "expanded element", "relu"):
        assert on["cases"][name][2] == 0, name
    # autograd records every operator with its generic record, none with a generated one
    assert off["cases"]["grad"][2] == 4 and on["cases"]["grad"][2] == 0
