"""The derivatives table, looked up per operator (load_derivatives.py).

`info_for(name, schema)` finds the entry of an overload (an in-place `add_.Tensor` uses the entry of
`add.Tensor`, as PyTorch's in-place variants do), names its node class as torchgen does
(CamelCase of the base name + "Backward" + a per-name counter in table order: SumBackward0 for
`sum`, SumBackward1 for `sum.dim_IntList`; a `_forward` suffix is dropped: NllLossBackward0) and analyzes it once.
"""
from __future__ import annotations

from typing import Any

from ..schema import FunctionSchema
from .derivative import Derivative, DifferentiabilityInfo, analyze

_table: dict[str, tuple[Derivative, str]] | None = None
_infos: dict[str, DifferentiabilityInfo] = {}
_helpers: dict[str, Any] | None = None
# Names the layers above provide to the formulas: `aten` (jtorch.ops.aten), so that a formula can call
# an operator that has no Tensor method, as PyTorch's formulas call at::threshold_backward.
provided: dict[str, Any] = {}


def camel_case(base: str) -> str:
    return "".join(p.title() for p in base.split("_") if p)


def table() -> dict[str, tuple[Derivative, str]]:
    """overload name -> (entry, node class name)."""
    global _table
    if _table is None:
        from .derivatives import DERIVATIVES

        counters: dict[str, int] = {}
        t = {}
        for d in DERIVATIVES:
            if d.name in t:
                raise ValueError(f"two derivatives entries for {d.name}")
            if d.node_name is not None:  # a node PyTorch writes by hand, under its own name
                t[d.name] = (d, d.node_name)
                continue
            prefix = camel_case(d.name.partition(".")[0])
            n = counters.get(prefix, 0)
            counters[prefix] = n + 1
            # torchgen's create_op_name: nll_loss_forward's node is NllLossBackward0
            t[d.name] = (d, f"{prefix}Backward".replace("ForwardBackward", "Backward") + str(n))
        _table = t
    return _table


def helpers() -> dict[str, Any]:
    global _helpers
    if _helpers is None:
        from . import (
            formulas,
            formulas_elementwise,
            formulas_nn_conv,
            formulas_normalization,
            formulas_recurrent,
            formulas_reductions,
            formulas_shape,
        )

        _helpers = dict(provided)
        for m in (formulas, formulas_elementwise, formulas_reductions, formulas_shape, formulas_nn_conv,
                  formulas_normalization, formulas_recurrent):
            _helpers.update((k, v) for k, v in vars(m).items() if not k.startswith("__"))
    return _helpers


# In-place overloads whose functional overload has another name (torchgen matches them by signature).
_INPLACE_OF = {"pow_.Scalar": "pow.Tensor_Scalar", "pow_.Tensor": "pow.Tensor_Tensor"}


def functional_name(name: str) -> str:
    """'add_.Tensor' -> 'add.Tensor' (the entry an in-place variant uses)."""
    if name in _INPLACE_OF:
        return _INPLACE_OF[name]
    base, dot, overload = name.partition(".")
    if base.endswith("_") and not base.endswith("__"):
        base = base[:-1]
    return base + dot + overload


def info_for(name: str, schema: FunctionSchema) -> DifferentiabilityInfo | None:
    info = _infos.get(name)
    if info is not None:
        return info
    t = table()
    entry = t.get(name) or t.get(functional_name(name))
    if entry is None:
        return None
    d, node_name = entry
    info = _infos[name] = analyze(d, schema, node_name, helpers())
    return info


def is_non_differentiable(name: str) -> bool:
    """Operators whose outputs never carry history (factories *_like, comparisons, indices, ...)."""
    from .derivatives import NON_DIFFERENTIABLE

    return name in NON_DIFFERENTIABLE or functional_name(name) in NON_DIFFERENTIABLE or \
        name.partition(".")[0] in NON_DIFFERENTIABLE
