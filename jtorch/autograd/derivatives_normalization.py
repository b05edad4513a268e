"""Derivatives of the normalisation operators: part of the table in derivatives.py (see its doc).

Node names are torch's (NativeBatchNormBackward0, NativeLayerNormBackward0, NativeGroupNormBackward0);
the formulas (formulas_normalization.py) are made of differentiable operators, so double backward works.
"""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("native_batch_norm", **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
        "input, weight, bias": "batch_norm_backward(grad, input, weight, bias, running_mean, running_var, training, "
                               "eps, result1, result2, needs)"}),
    D("native_layer_norm", **{  # type: ignore[arg-type]  # as above
        "input, weight, bias": "native_layer_norm_backward(grad, input, normalized_shape, result1, result2, weight, "
                               "bias, eps, needs)"}),
    D("native_group_norm", **{  # type: ignore[arg-type]  # as above
        "input, weight, bias": "native_group_norm_backward(grad, input, result1, result2, weight, bias, N, group, "
                               "eps, needs)"}),
]

NON_DIFFERENTIABLE: frozenset[str] = frozenset()
