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

from .derivative import D

DERIVATIVES = [
    D("abs", self="grad * self.sgn()"),
    D("add.Tensor", self="handle_r_to_c(self, sum_to(grad, self.shape))",
      other="handle_r_to_c(other, sum_to(maybe_multiply(grad, alpha), other.shape))"),
    D("clone", self="grad"),
    D("copy_", self="zeros_like(grad)", src="sum_to(grad, src.shape).to(src.dtype)"),
    D("div.Tensor", self="div_tensor_self_backward(grad, other, self)",
      other="div_tensor_other_backward(grad, self, other)"),
    D("exp", self="grad * conj(result)"),
    D("expand", self="sum_to(grad, self.shape)"),
    D("log", self="grad.div(conj(self))"),
    D("mean", self="grad.expand(self.shape) / self.numel()"),
    D("mean.dim", self="mean_backward(grad, self.shape, dim, reduced_numel(self.shape, dim), keepdim)"),
    D("mm", self="mm_mat1_backward(grad, mat2, self)", mat2="mm_mat2_backward(grad, self, mat2)"),
    D("mul.Tensor", self="mul_tensor_backward(grad, other, self)", other="mul_tensor_backward(grad, self, other)"),
    D("neg", self="grad.neg()"),
    D("permute", self="grad.permute(inverse_permutation(dims))"),
    D("relu", self="threshold_backward(grad, result, 0)"),
    D("select.int", self="select_backward(grad, self.shape, dim, index)"),
    D("sigmoid", self="grad * result * (1 - result)"),
    D("sin", self="grad * self.cos()"),
    D("cos", self="grad * -self.sin()"),
    D("sub.Tensor", self="handle_r_to_c(self, sum_to(grad, self.shape))",
      other="handle_r_to_c(other, sum_to(-maybe_multiply(grad, alpha), other.shape))"),
    D("sum", self="grad.expand(self.shape)"),
    D("sum.dim_IntList", self="sum_backward(grad, self.shape, dim, keepdim)"),
    D("t", self="grad.t()"),
    D("tanh", self="grad * (1 - result * result)"),
    D("transpose.int", self="grad.transpose(dim0, dim1)"),
    D("unsqueeze", self="grad.squeeze(dim)"),
    D("view", self="grad.reshape(self.shape)"),
    D("where.self", self="where_backward_self(condition, grad, self)",
      other="where_backward_other(condition, grad, other)"),
]

NON_DIFFERENTIABLE = frozenset({
    # factories and *_like: new tensors, no history
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like", "new_empty",
    "new_empty_strided", "new_zeros", "new_ones", "new_full", "empty.memory_format", "empty_strided",
    "detach", "bernoulli", "normal_", "uniform_", "random_", "exponential_", "bernoulli_",
    # integer / boolean results
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_xor",
    "logical_not", "argmax", "argmin", "all", "any", "count_nonzero", "nonzero", "isin", "searchsorted",
    "bucketize", "bincount", "histc", "_unique2", "_unique", "unique_dim", "unique_consecutive",
    "unique_dim_consecutive", "equal", "_local_scalar_dense",
})
