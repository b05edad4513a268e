"""Derivatives of the recurrent operators: part of the table in derivatives.py (see its doc).

`_fused_rnn_layer` (jtorch/native/recurrent.py) is one node per layer and direction, as torch's oneDNN
layer (MkldnnRnnLayerBackward0) is; its backward is one operator, `_fused_rnn_layer_backward`, that walks
the steps back with the fused cell-backward kernel (formulas_recurrent.py). The workspace output carries
no gradient.
"""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("_fused_rnn_layer", **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
        "input, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx":
            "fused_rnn_layer_backward(aten, grads, input, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, hx, cx, "
            "mode, reverse, batch_sizes, result0, result3, needs)"},
      output_differentiability=[True, True, True, False]),
]

NON_DIFFERENTIABLE: frozenset[str] = frozenset()
