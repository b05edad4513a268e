"""jtorch's derivatives.yaml, written as Python data.

One `D(...)` per differentiable functional overload: for each differentiable input, a formula
in `grad` (the gradient of the output; `grads[i]` for the i-th of several), the operator's
arguments, `result` (or `result0`, ... and named returns) and the helpers of
jtorch.autograd.formulas. The in-place variants (`add_.Tensor`) use their functional entry; out=
variants refuse tensors that require grad. The order follows PyTorch's derivatives.yaml, because
node names count per base name in table order (SumBackward0 is `sum`, SumBackward1 `sum.dim_IntList`).

NON_DIFFERENTIABLE lists operators (overload or base name) whose outputs never carry history; any
other operator without an entry (and not CompositeImplicitAutograd, which differentiates through
its decomposition) gets a NotImplemented node: backward through it raises torch's error.
"""
from __future__ import annotations

# The table, one part per operator family (each a list in derivatives.yaml's order).
from . import (
               derivatives_attention,
               derivatives_elementwise,
               derivatives_nn_conv,
               derivatives_normalization,
               derivatives_recurrent,
               derivatives_reductions,
               derivatives_resample,
               derivatives_shape,
)

DERIVATIVES = [*derivatives_elementwise.ENTRIES, *derivatives_reductions.ENTRIES, *derivatives_shape.ENTRIES,
               *derivatives_nn_conv.ENTRIES, *derivatives_normalization.ENTRIES, *derivatives_recurrent.ENTRIES,
               *derivatives_resample.ENTRIES, *derivatives_attention.ENTRIES]

NON_DIFFERENTIABLE = frozenset({
    # factories and *_like: new tensors, no history
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like", "new_empty",
    "new_empty_strided", "new_zeros", "new_ones", "new_full", "empty.memory_format", "empty_strided",
    "detach",
    # integer / boolean results
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_xor",
    "logical_not", "argmax", "argmin", "all", "any", "count_nonzero", "nonzero", "isin", "searchsorted",
    "bucketize", "histc", "equal", "_local_scalar_dense",
}) | derivatives_elementwise.NON_DIFFERENTIABLE | derivatives_reductions.NON_DIFFERENTIABLE \
    | derivatives_shape.NON_DIFFERENTIABLE | derivatives_nn_conv.NON_DIFFERENTIABLE \
    | derivatives_recurrent.NON_DIFFERENTIABLE | derivatives_resample.NON_DIFFERENTIABLE \
    | derivatives_attention.NON_DIFFERENTIABLE
