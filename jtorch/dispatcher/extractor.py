"""Key extraction (c10's DispatchKeyExtractor): which arguments of a schema contribute to the key
set, and the code generated per layout of tensor arguments that ORs their key sets together
(used alone as an operator's `extract`, and written inline into its generated call).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..codegen import compile_source
from ..schema import FunctionSchema

# (args, kwargs) -> the raw key set of the tensor arguments
Extractor = Callable[[tuple[Any, ...], dict[str, Any]], int]


def dispatch_arguments(schema: FunctionSchema) -> list[tuple[int | None, str, str]]:
    """(positional index or None, name, kind) of each argument that contributes to the key set;
    kind is the type's tensor_kind(), a Generator counting as an optional tensor."""
    out = []
    pos = 0
    for a in schema.arguments:
        kind = "opt" if a.type.base_name == "Generator" else a.type.tensor_kind()
        if kind is not None:
            out.append((None if a.kwarg_only else pos, a.name, kind))
        if not a.kwarg_only:
            pos += 1
    return out


def extractor_body(schema: FunctionSchema) -> list[str]:
    """Statements that OR the key sets of `args`/`kwargs`' tensors into `ks` (shared by the
    extractor and the generated per-operator call)."""
    npos = sum(1 for a in schema.arguments if not a.kwarg_only)
    # Too many positional arguments would reach the kernel: one comparison sends them to the error path.
    lines = ["n = len(args)", f"if n > {npos}: raise IndexError", "ks = 0"]
    for pos, name, kind in dispatch_arguments(schema):
        get = f"(args[{pos}] if n > {pos} else kwargs[{name!r}])" if pos is not None else f"kwargs.get({name!r})"
        if kind == "tensor":  # required: a missing one raises KeyError -> PyTorch's 'missing value' error
            get = get if pos is not None else f"kwargs[{name!r}]"
            lines.append(f"ks |= {get}._key_set")
        elif kind == "listopt":
            if pos is not None:
                get = f"(args[{pos}] if n > {pos} else kwargs.get({name!r}))"
            lines += [f"xs = {get}", "if xs is not None:", "    for x in xs:", "        ks |= x._key_set"]
        elif kind == "opt":
            if pos is not None:
                get = f"(args[{pos}] if n > {pos} else kwargs.get({name!r}))"
            lines += [f"x = {get}", "if x is not None:", "    ks |= x._key_set"]
        else:
            guard = "if x is not None: " if kind == "optlist" else ""
            lines += [f"for x in {get}:", f"    {guard}ks |= x._key_set"]
    return lines


_extractors: dict[str, Extractor] = {}


def make_extractor(schema: FunctionSchema) -> Extractor:
    """Generate the per-schema key extractor: positional arguments read without any loop.

    A wrong argument type surfaces as AttributeError/IndexError/KeyError, which the caller turns
    into PyTorch's 'Expected a value of type ...' error.
    """
    src = "\n".join(["def extract(args, kwargs):"] + ["    " + ln for ln in extractor_body(schema)]
                    + ["    return ks"])
    fn = _extractors.get(src)
    if fn is None:  # many operators share a layout of tensor arguments: compile each layout once
        fn = _extractors[src] = compile_source(src, "<extractor>", {})["extract"]
    return fn


def no_schema_extractor(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The key set of an operator that has kernels but no schema yet: every tensor it can see."""
    ks = 0
    for a in list(args) + list(kwargs.values()):
        ks |= getattr(a, "_key_set", 0)
        if isinstance(a, (list, tuple)):
            for x in a:
                ks |= getattr(x, "_key_set", 0)
    return ks
