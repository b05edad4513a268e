"""Source of an operator's own `record` (gen_variable_type.py's per-operator body).

`variable_type.record` reads the operator's description at every call: it binds the arguments
into a dict, loops over the differentiable inputs, the saved arguments and the outputs. For the
common operator (one Tensor output, no tensor list, not in-place, not out=) this module writes
those loops out once, with the argument positions, the saved names and the guards as constants,
as torchgen writes VariableType's C++. The generated function falls back to the generic `record`
for a call with keyword arguments, so it only ever does what `record` would.

Generated names it expects from its `make` function's arguments: see `NAMES`.
"""
from __future__ import annotations

from typing import Any

# what the generated source reads, passed to its `make` by variable_type (`below`:
# inplace_or_view.redispatch_below, `AFTER` the key set below Autograd; `tails`: positional_tails(spec))
NAMES = ("spec", "generic", "below", "AFTER", "gradient_edge", "NO_EDGE", "SavedVariable", "TensorMeta", "Tensor",
         "node_cls", "tails")


def fits(spec: Any) -> bool:
    """Operators the generated record covers; the others keep the generic one."""
    info = spec.info
    if info is None or spec.is_out or spec.inplace or spec.multi_output or info.has_list:
        return False
    rets = spec.schema.returns
    return len(rets) == 1 and rets[0].type.base_name == "Tensor" and not rets[0].type.is_list()


def positional_tails(spec: Any) -> dict[int, tuple]:
    """n -> the defaults of the positional arguments from position n on, for a call with n of them."""
    names, defaults = spec.pos_names, spec.defaults
    return {n: tuple(defaults[name] for name in names[n:]) for n in range(len(names) + 1)
            if all(name in defaults for name in names[n:])}


def record_source(spec: Any) -> str:
    """`def make(<NAMES>): ... return record` for an operator that `fits`."""
    info = spec.info
    pos = {name: i for i, name in enumerate(spec.pos_names)}
    npos = len(spec.pos_names)
    nreq = npos
    while nreq and spec.pos_names[nreq - 1] in spec.defaults:  # trailing positional defaults
        nreq -= 1
    lines = [f"def make({', '.join(NAMES)}):",
             "    get_op, kernels, exclude = spec.get_op, spec.below_fns, spec.below",
             "    def record(spec_, ks, args, kwargs):",
             "        n = len(args)",
             f"        if kwargs or n > {npos} or n < {nreq}:",
             "            return generic(spec_, ks, args, kwargs)"]
    unpack = [f"a_{name}" for name in spec.pos_names]
    if unpack:
        full = "args" if nreq == npos else f"args if n == {npos} else args + tails[n]"
        lines.append(f"        {', '.join(unpack)}{',' if len(unpack) == 1 else ''} = {full}")
    needs = []
    for j, (name, _kind) in enumerate(info.inputs):
        if name not in pos:  # a keyword-only tensor: only the generic binding knows it
            return ""
        v = f"a_{name}"
        e = f"e{j}"
        # gradient_edge, its commonest case inline: a non-view with a grad_fn
        lines += [f"        if type({v}) is Tensor or isinstance({v}, Tensor):",
                  f"            fn = {v}.grad_fn",
                  f"            {e} = (fn, {v}._output_nr) if fn is not None and {v}._base is None "
                  f"else gradient_edge({v})",
                  "        else:",
                  f"            {e} = NO_EDGE"]
        needs.append(f"{e}[0] is not None")
    edges = ", ".join(f"e{j}" for j in range(len(info.inputs)))
    lines.append(f"        needs = [{', '.join(needs)}]")
    lines.append("        if True not in needs:")
    lines.append("            return below(get_op, kernels, ks, AFTER, exclude, args, kwargs)")
    lines.append(f"        node = node_cls(({edges}{',' if len(info.inputs) == 1 else ''}))")
    lines.append("        node._needs = needs")
    lines.append("        node._out_meta = None")
    saved = []
    for name, kind in info.saved_args:
        if name not in pos and (kind != "value" or name not in spec.defaults):
            return ""
        v = f"a_{name}" if name in pos else f"spec.defaults[{name!r}]"  # keyword-only: at its default
        if kind == "tensor":
            guard = info.save_for.get(name)
            full = f"SavedVariable({v}, False)"
            if guard is not None:
                cond = " or ".join(f"needs[{i}]" for i in guard)
                full = f"({full} if {cond} else TensorMeta({v}))"
            saved.append(f"{name!r}: {full} if {v} is not None else None")
        elif kind == "meta":
            saved.append(f"{name!r}: TensorMeta({v}) if {v} is not None else None")
        elif kind == "value":
            saved.append(f"{name!r}: {v}")
        else:
            return ""
    lines.append(f"        node._saved = {{{', '.join(saved)}}}")
    lines.append("        result = below(get_op, kernels, ks, AFTER, exclude, args, kwargs)")
    lines.append("        node._n_out = 1")
    od = info.output_differentiability
    diff = "isinstance(result, Tensor) and (result.dtype.is_floating_point or result.dtype.is_complex)"
    if od and not od[0]:
        diff = "False"
    lines.append(f"        if {diff}:")
    lines.append("            result.grad_fn = node")
    lines.append("            result._requires_grad = True")
    lines.append("            result._output_nr = 0")
    for _, name, kind in info.saved_results:
        value = "SavedVariable(result, True)" if kind == "tensor" else "TensorMeta(result)"
        lines.append(f"        node._saved[{name!r}] = {value}")
    lines.append("        return result")
    lines.append("    return record")
    return "\n".join(lines) + "\n"
