"""Derivatives of reductions, scans, softmax and matrix products: part of the table in derivatives.py (see its doc).

In derivatives.yaml's order, so that the node names are torch's (MaxBackward0 is max.dim, MaxBackward1
max(); MeanBackward0 mean(), MeanBackward1 mean.dim; NormBackward0-3 the aten norm overloads).
Overloads that are CompositeImplicitAutograd in torch and jtorch (var.dim, std_mean, nanmean,
max.other, softmax.int, matmul, einsum, ...) have no entry: they differentiate through the
operators they call. The engine does not cast a gradient to its input's dtype (torch's
validate_outputs does), so formulas of operators with a `dtype=` argument cast it themselves
(grad_dtype).
"""
from __future__ import annotations

from .derivative import D

_VALUES_ONLY = [True, False]  # (values, indices): the indices are integers, never differentiable

ENTRIES = [
    D("addmm", self="addmm_self_backward(grad, self, beta)", mat1="mm_mat1_scaled(grad, mat2, mat1, alpha)",
      mat2="mm_mat2_scaled(grad, mat1, mat2, alpha)"),
    D("addbmm", self="addmm_self_backward(grad, self, beta)",
      batch1="addbmm_batch1(grad, batch1, batch2, alpha)", batch2="addbmm_batch2(grad, batch1, batch2, alpha)"),
    D("addmv", self="addmm_self_backward(grad, self, beta)", mat="mv_self(grad, vec, alpha)",
      vec="mv_vec(grad, mat, alpha)"),
    D("addr", self="addmm_self_backward(grad, self, beta)", vec1="addr_vec1(grad, vec2, alpha)",
      vec2="addr_vec2(grad, vec1, alpha)"),
    D("amax", self="amax_amin_backward(grad, self, result, dim, keepdim)"),
    D("amin", self="amax_amin_backward(grad, self, result, dim, keepdim)"),
    D("aminmax", self="aminmax_backward(grads[0], grads[1], self, min, max, dim, keepdim)"),
    D("baddbmm", self="addmm_self_backward(grad, self, beta)", batch1="bmm_batch1(grad, batch2, alpha)",
      batch2="bmm_batch2(grad, batch1, alpha)"),
    D("bmm", self="bmm_batch1(grad, mat2)", mat2="bmm_batch2(grad, self)"),
    D("cummax", self="cummaxmin_backward(grad, self, indices, dim)", output_differentiability=_VALUES_ONLY),
    D("cummin", self="cummaxmin_backward(grad, self, indices, dim)", output_differentiability=_VALUES_ONLY),
    D("cumprod", self="cumprod_backward(grad_dtype(grad, self), self, dim, result)"),
    D("cumsum", self="cumsum_backward(grad_dtype(grad, self.dtype), dim)"),
    D("logcumsumexp", self="logcumsumexp_backward(grad, self, result, dim)"),
    D("dot", self="grad * conj(tensor)", tensor="grad * conj(self)"),
    D("vdot", self="conj(grad) * other", other="grad * self"),
    D("kthvalue", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("logsumexp", self="logsumexp_backward(grad, self, result, dim, keepdim)"),
    D("max.dim", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("max", self="evenly_distribute_backward(grad, self, result)"),
    D("mean", self="grad_dtype(grad.expand(self.shape) / self.numel(), self.dtype)"),
    D("mean.dim", self="grad_dtype(mean_backward(grad, self.shape, dim, reduced_numel(self.shape, dim), keepdim), "
                       "self.dtype)"),
    D("median", self="evenly_distribute_backward(grad, self, result)"),
    D("median.dim", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("nanmedian", self="evenly_distribute_backward(grad, self, result)"),
    D("nanmedian.dim", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("min.dim", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("min", self="evenly_distribute_backward(grad, self, result)"),
    D("mm", self="mm_mat1_scaled(grad, mat2, self)", mat2="mm_mat2_scaled(grad, self, mat2)"),
    D("mode", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)",
      output_differentiability=_VALUES_ONLY),
    D("mv", self="mv_self(grad, vec)", vec="mv_vec(grad, self)"),
    D("nansum", self="grad_dtype(nansum_backward(grad, self, dim, keepdim), self)"),
    D("dist", self="dist_backward(grad, self, other, p, result, False)",
      other="dist_backward(grad, self, other, p, result, True)"),
    D("norm.Scalar", self="norm_backward(grad, self, p, result, None, False)"),
    D("norm.ScalarOpt_dim", self="norm_backward(grad, self, p, result, dim, keepdim)"),
    D("norm.ScalarOpt_dtype", self="as_dtype_of(norm_backward(grad, self, p, result, None, False), self)"),
    D("norm.ScalarOpt_dim_dtype", self="as_dtype_of(norm_backward(grad, self, p, result, dim, keepdim), self)"),
    D("linalg_vector_norm", self="as_dtype_of(norm_backward(grad, self, ord, result, dim, keepdim), self)"),
    D("prod", self="grad_dtype(prod_backward(grad, self, result), self)"),
    D("prod.dim_int", self="grad_dtype(prod_dim_backward(grad, self, result, dim, keepdim), self)"),
    D("_pdist_forward", self="pdist_backward(grad, self, p, result)"),
    D("renorm", self="renorm_backward(grad, self, p, dim, maxnorm)"),
    D("std.correction", self="std_backward(result, grad, self, dim, correction, keepdim)"),
    D("std_mean.correction", self="std_mean_backward(grads[0], grads[1], self, result0, dim, correction, keepdim)"),
    D("sum", self="grad_dtype(grad.expand(self.shape), self.dtype)"),
    D("sum.dim_IntList", self="grad_dtype(sum_backward(grad, self.shape, dim, keepdim), self.dtype)"),
    D("var.correction", self="var_backward(grad, self, dim, correction, keepdim)"),
    D("var_mean.correction", self="var_mean_backward(grads[0], grads[1], self, dim, correction, keepdim)"),
    D("_log_softmax", self="aten._log_softmax_backward_data.default(grad, result, dim, self.dtype)"),
    D("_log_softmax_backward_data",
      grad_output="grad.to(output.dtype) - (grad.to(output.dtype) * output.exp()).sum(dim, True)",
      output="(-grad_output.sum(dim, True) * output.exp() * grad.to(output.dtype)).to(output.dtype)"),
    D("_softmax", self="aten._softmax_backward_data.default(grad, result, dim, self.dtype)"),
    D("_softmax_backward_data",
      grad_output="aten._softmax_backward_data.default(grad.to(output.dtype), output, dim, input_dtype)",
      output="softmax_double_backward(grad.to(output.dtype), grad_output, dim, output).to(output.dtype)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
