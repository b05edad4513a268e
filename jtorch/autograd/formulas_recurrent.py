"""Formula helpers for the recurrent entries (derivatives_recurrent.py; see formulas.py).

`aten` (jtorch.ops.aten) comes in as an argument: this layer does not import the operators.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def fused_rnn_layer_backward(aten: Any, grads: Sequence[Any], input: Any, weight_ih: Any, weight_hh: Any,
                             bias_ih: Any, bias_hh: Any, weight_hr: Any, hx: Any, cx: Any, mode: int, reverse: bool,
                             batch_sizes: Sequence[int], output: Any, workspace: Any, needs: Sequence[bool]
                             ) -> tuple:
    """The eight inputs' gradients (None where not needed or absent) of one layer and direction."""
    go, ghy, gcy = (grads[i] if i < len(grads) else None for i in range(3))
    if go is None and ghy is None and gcy is None:
        return (None,) * 8
    ins = (input, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx)
    mask = [bool(n) and t is not None for n, t in zip(needs, ins)]
    r = aten._fused_rnn_layer_backward.default(input, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx,
                                               mode, reverse, batch_sizes, output, workspace, go, ghy, gcy, mask)
    return tuple(g if m else None for g, m in zip(r, mask))
