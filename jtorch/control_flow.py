"""torch.cond, torch's structured control-flow operator (torch/_higher_order_ops/cond.py), run eagerly.

A Python-constant predicate calls its branch directly, as torch's eager path does. A tensor predicate is
checked as torch checks it (a bool or one-element tensor; callable branches; operands a tuple/list whose
leaves are tensors), then the chosen branch runs eagerly and its outputs are held to the rules torch's
tracer enforces on a branch (tensors or ints/bools only, none aliasing an operand). The rules that need
both branches traced (same output structure, dtypes, ...) belong to jtorch.compile.
"""
from __future__ import annotations

import builtins
import collections
from collections.abc import Callable
from typing import Any

from .tensor import Tensor

_UNCAPTURED = ("This higher order operator doesn't work unless it is captured completely with torch.compile. "
               "Got graph break/error:\n\n")


def _leaves(tree: Any) -> list[Any]:
    """torch.utils._pytree's leaves for the containers it knows: tuple, list, dict and their kin."""
    if isinstance(tree, (dict, collections.OrderedDict, collections.defaultdict)):
        return [leaf for v in tree.values() for leaf in _leaves(v)]
    if type(tree) in (tuple, list, collections.deque) or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        return [leaf for v in tree for leaf in _leaves(v)]
    return [tree]


def _check_branch_output(out: Any, operands: Any) -> None:
    inputs = {id(t._storage) for t in _leaves(operands) if isinstance(t, Tensor)}
    for leaf in _leaves(out):
        if isinstance(leaf, Tensor):
            if id(leaf._storage) in inputs:
                raise RuntimeError(_UNCAPTURED + "Encountered aliasing during higher order op tracing\n"
                                   "  Higher Order Operator: torch.cond\n"
                                   "  Explanation: Higher order ops do not support aliasing.")
        elif leaf is None:
            raise RuntimeError(_UNCAPTURED + "torch.cond: unsupported branch return type (constant non-int)\n"
                               "  Higher Order Operator: torch.cond\n"
                               "  Explanation: Constants returned from branches must be ints.")
        elif not isinstance(leaf, builtins.int):
            raise RuntimeError(_UNCAPTURED + "HOP body output unsupported\n"
                               "  Higher Order Operator: torch.cond\n"
                               "  Explanation: HigherOrderOperator body's output must consist of tensors or "
                               f"ints/bools only but got {type(leaf)}.")


def cond(pred: builtins.bool | builtins.int | builtins.float | Tensor, true_fn: Callable, false_fn: Callable,
         operands: tuple | list = ()) -> Any:
    """`true_fn(*operands)` if pred else `false_fn(*operands)`, with torch.cond's checks."""
    if isinstance(pred, (builtins.bool, builtins.int, builtins.float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(not isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")
    out = (true_fn if pred.item() else false_fn)(*operands)
    _check_branch_output(out, operands)
    return out
