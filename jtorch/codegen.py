"""The one place jtorch compiles Python source it generated (key extractors, per-operator calls,
bindings, autograd kernels and records, derivative formulas, structured binders, CPU loop runners).

`JTORCH_DUMP_GENERATED=<dir>` writes every compiled source into <dir>, one file per compilation,
named after its filename tag (`<jtorch binding Tensor.add>` -> `jtorch_binding_Tensor.add.py`;
a tag compiled again gets `.1`, `.2`, ... before `.py`), to read what runs and to debug it.
A leaf module: the standard library only.
"""
from __future__ import annotations

import os
import re
from typing import Any

DUMP_ENV = "JTORCH_DUMP_GENERATED"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def compile_source(src: str, filename: str, namespace: dict[str, Any],
                   local_namespace: dict[str, Any] | None = None) -> dict[str, Any]:
    """exec `src` (compiled under `filename`, the tag tracebacks show) in `namespace` and return the
    dict its top-level definitions went to: `local_namespace` when given (the generated functions
    then keep `namespace` as their globals, e.g. a module's own globals()), else `namespace`."""
    directory = os.environ.get(DUMP_ENV)
    if directory:
        dump_source(src, filename, directory)
    target = namespace if local_namespace is None else local_namespace
    exec(compile(src, filename, "exec"), namespace, target)
    return target


def dump_source(src: str, filename: str, directory: str) -> str:
    """Write `src` to a new file in `directory` named after the tag `filename`; return its path."""
    os.makedirs(directory, exist_ok=True)
    stem = _UNSAFE.sub("_", filename.strip("<>")).strip("_.") or "generated"
    n = 0
    while True:
        path = os.path.join(directory, f"{stem}.py" if n == 0 else f"{stem}.{n}.py")
        try:
            with open(path, "x", encoding="utf-8") as f:  # "x": never overwrite an earlier compilation
                f.write(src if src.endswith("\n") else src + "\n")
            return path
        except FileExistsError:
            n += 1
