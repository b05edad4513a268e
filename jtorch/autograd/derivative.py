"""One entry of the derivatives table, and what the generator learns from it (load_derivatives.py).

`Derivative("mul.Tensor", self="mul_tensor_backward(grad, other, self)", other=...)` is pure data:
a per-input formula written with jtorch operators (so it is itself differentiable), like one entry
of PyTorch's derivatives.yaml. `analyze` turns it and the operator's schema into a
DifferentiabilityInfo: the node class (`MulBackward0`), which inputs get gradients, which
arguments and results the node must save (found by reading the formulas' names, as torchgen does;
a tensor only asked for its shape, dtype or device is saved as that metadata, not as a tensor),
and the compiled backward function.
"""
from __future__ import annotations

import ast
import keyword
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..codegen import compile_source
from ..schema import FunctionSchema

# A tensor used only through these is saved as metadata (torchgen saves `self_sym_sizes` the same way).
_META_ATTRS = frozenset({"shape", "dtype", "device", "ndim", "size", "dim", "numel", "is_complex",
                         "is_floating_point", "stride", "storage_offset"})
# A tensor list passed only to these is saved as its members' metadata (torchgen's to_args_sizes /
# to_args_scalartypes: cat keeps its inputs' sizes and dtypes, not the inputs)
_META_CALLS = frozenset({"to_args_sizes", "to_args_scalartypes"})


@dataclass(frozen=True)
class Derivative:
    """One derivatives-table entry. `formulas` maps an input name (or several, comma-separated, for a
    formula returning a tuple) to a Python expression in `grad`, `grads`, the schema's argument
    names, `result` / `result0`... / named returns, and the helpers of jtorch.autograd.formulas."""

    name: str                                  # overload name, as in jtorch.ops.aten: 'add.Tensor'
    formulas: tuple[tuple[str, str], ...]
    output_differentiability: tuple[bool, ...] | None = None
    node_name: str | None = None               # a hand-written node's own name (copy_: CopyBackwards)

    def __post_init__(self) -> None:
        if "(" in self.name or " " in self.name:
            raise ValueError(f"derivative name must be an overload name such as 'add.Tensor', got {self.name!r}")
        for key, expr in self.formulas:
            for n in key.split(","):
                if not n.strip().isidentifier():
                    raise ValueError(f"{self.name}: bad input name {n!r}")
            try:
                ast.parse(expr, mode="eval")
            except SyntaxError as e:
                raise ValueError(f"{self.name}: formula for {key} does not parse: {expr!r}") from e

    def __str__(self) -> str:
        lines = [f"- name: {self.name}"] + [f"  {k}: {v}" for k, v in self.formulas]
        if self.output_differentiability is not None:
            lines.append(f"  output_differentiability: {list(self.output_differentiability)}")
        if self.node_name is not None:
            lines.append(f"  node_name: {self.node_name}")
        return "\n".join(lines)


def D(name: str, *, output_differentiability: list[bool] | None = None, node_name: str | None = None,
      **formulas: str) -> Derivative:
    """Table shorthand: D('exp', self='grad * result.conj()')."""
    od = tuple(output_differentiability) if output_differentiability is not None else None
    return Derivative(name, tuple(formulas.items()), od, node_name)


@dataclass
class DifferentiabilityInfo:
    """What the generated Autograd kernel and node need, computed once per operator."""

    derivative: Derivative
    node_name: str
    inputs: list[tuple[str, str]]               # differentiable inputs in schema order: (name, kind)
    saved_args: list[tuple[str, str]]           # (argument name, 'tensor' | 'meta' | 'list' | 'list_meta' | 'value')
    saved_results: list[tuple[int, str, str]]   # (output index, name in formulas, 'tensor' | 'meta')
    output_differentiability: tuple[bool, ...]
    backward: Callable = field(repr=False)      # backward(needs, grads, saved: dict) -> flat input grads
    uses_self: bool = False                     # the formulas read `self` (an in-place op saves a copy)
    # a tensor argument read by the formulas of these inputs only (positions in `inputs`): saved only
    # when one of them needs a gradient (torchgen's should_compute_output guard; x * 2 keeps no x)
    save_for: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @cached_property
    def has_list(self) -> bool:
        """A TensorList input (cat's tensors): its gradients come back as one list, flattened per tensor."""
        return any(kind == "list" for _, kind in self.inputs)


def _names(expr: str) -> tuple[set[str], set[str]]:
    """All names an expression reads, and those it reads other than as `x.shape`, `x.dtype`, ..."""
    tree = ast.parse(expr, mode="eval")
    names: set[str] = set()
    full: set[str] = set()
    meta_parents = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _META_ATTRS:
            meta_parents.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _META_CALLS:
            meta_parents.update(id(a) for a in node.args if isinstance(a, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
            if id(node) not in meta_parents:
                full.add(node.id)
    return names, full


def _py(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def analyze(d: Derivative, schema: FunctionSchema, node_name: str, helpers: dict[str, Any]) -> DifferentiabilityInfo:
    args = {a.name: a for a in schema.arguments if not a.is_out}
    kinds = {}
    for a in args.values():
        kind = a.type.tensor_kind(any_list=True)
        if kind is not None:
            kinds[a.name] = kind
    formula_inputs = []
    for key, _ in d.formulas:
        for n in key.split(","):
            n = n.strip()
            if n not in kinds:
                raise ValueError(f"{d.name}: '{n}' is not a tensor argument of {schema}")
            formula_inputs.append(n)
    order = [n for n in kinds if n in formula_inputs]
    ret_names = {}
    nret = len(schema.returns)
    for i, r in enumerate(schema.returns):
        ret_names[f"result{i}"] = i
        if r.name:
            ret_names[r.name] = i
    if nret == 1:
        ret_names["result"] = 0
    used: set[str] = set()
    full: set[str] = set()
    readers: dict[str, set[int]] = {}
    for key, expr in d.formulas:
        read, read_full = _names(expr)
        used |= read
        full |= read_full
        for name in read_full:
            readers.setdefault(name, set()).update(order.index(k.strip()) for k in key.split(","))
    meta_only = used - full
    saved_args = []
    for name in args:
        if name not in used:
            continue
        if name in kinds:
            if kinds[name] == "list":
                kind = "list_meta" if name in meta_only else "list"
            else:
                kind = "meta" if name in meta_only else "tensor"
        else:
            kind = "value"
        saved_args.append((name, kind))
    saved_results = [(i, n, "meta" if n in meta_only else "tensor") for n, i in ret_names.items() if n in used]
    od = d.output_differentiability or tuple(True for _ in range(nret))
    backward = _compile(d, order, kinds, [n for n, _ in saved_args] + [n for _, n, _ in saved_results], helpers,
                        node_name)
    save_for = {n: tuple(sorted(readers[n])) for n, k in saved_args if k == "tensor" and len(order) > 1}
    return DifferentiabilityInfo(d, node_name, [(n, kinds[n]) for n in order], saved_args, saved_results, od,
                                 backward, uses_self="self" in used and "self" not in meta_only, save_for=save_for)


def _compile(d: Derivative, order: list[str], kinds: dict[str, str], saved: list[str], helpers: dict[str, Any],
             node_name: str) -> Callable:
    """backward(needs, grads, saved) -> tuple of input gradients, one per differentiable input
    (a tensor list contributes a list)."""
    pos = {n: i for i, n in enumerate(order)}
    lines = ["def backward(needs, grads, saved):", "    grad = grads[0]"]
    lines += [f"    {_py(n)} = saved[{n!r}]" for n in dict.fromkeys(saved)]
    lines.append(f"    out = [None] * {len(order)}")
    for key, expr in d.formulas:
        names = [n.strip() for n in key.split(",")]
        if len(names) == 1:
            lines.append(f"    if needs[{pos[names[0]]}]:")
            lines.append(f"        out[{pos[names[0]]}] = {expr}")
        else:
            cond = " or ".join(f"needs[{pos[n]}]" for n in names)
            lines.append(f"    if {cond}:")
            lines.append(f"        r = {expr}")
            for j, n in enumerate(names):
                lines.append(f"        out[{pos[n]}] = r[{j}] if needs[{pos[n]}] else None")
    lines.append("    return out")
    return compile_source("\n".join(lines), f"<jtorch formula {node_name}: {d.name}>", dict(helpers))["backward"]
