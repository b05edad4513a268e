"""Derivatives of views, shape operators, indexing, joining, gather/scatter, sorting values: part of
the table in derivatives.py (see its doc).

In derivatives.yaml's order, so that the per-name node counters match PyTorch's (SqueezeBackward0/1/2,
ScatterBackward0/1, SortBackward0/1, IndexFillBackward0/1, MaskedFillBackward0/1). Operators jtorch
declares CompositeImplicitAutograd (reshape, split.sizes, chunk, diag, roll, rot90, tile,
masked_fill.Tensor, ...) have no entry: they differentiate through their decomposition. stack,
block_diag and the functional index_fill / masked_scatter are CompositeExplicitAutograd, as in
PyTorch, and record their own node.
"""
from __future__ import annotations

from .derivative import D

ENTRIES = [
    D("alias", self="grad"),
    D("as_strided", self="as_strided_backward(grad, self.shape, self.stride(), self.storage_offset(), size, stride, "
                         "storage_offset)"),
    D("as_strided_", self="as_strided_backward(grad, self.shape, self.stride(), self.storage_offset(), size, stride, "
                          "storage_offset)"),
    D("as_strided_scatter", self="as_strided_scatter_backward(grad, self.shape, self.stride(), size, stride, "
                                 "storage_offset)",
      src="grad.contiguous().as_strided(size, stride, storage_offset)"),
    D("block_diag", tensors="block_diag_backward(grad, to_args_sizes(tensors), to_args_scalartypes(tensors))"),
    D("cat", tensors="cat_tensors_backward(grad, to_args_sizes(tensors), to_args_scalartypes(tensors), dim)"),
    D("diag_embed", self="grad.diagonal(offset, dim1, dim2)"),
    D("diagonal", self="diagonal_backward(grad, self.shape, offset, dim1, dim2)"),
    D("diagonal_copy", self="diagonal_backward(grad, self.shape, offset, dim1, dim2)",
      node_name="DiagonalBackward0_copy"),
    D("diagonal_scatter", self="grad.diagonal_scatter(grad.new_zeros(src.shape), offset, dim1, dim2)",
      src="grad.diagonal(offset, dim1, dim2)"),
    D("embedding", weight="embedding_backward(grad, indices, weight.shape[0], padding_idx, scale_grad_by_freq, "
                                  "sparse)"),
    D("_embedding_bag", weight="aten._embedding_bag_backward.default(grad, indices, offsets, result1, result2, "
                               "result3, weight.shape[0], scale_grad_by_freq, mode, sparse, per_sample_weights, "
                               "padding_idx)",
      per_sample_weights="aten._embedding_bag_per_sample_weights_backward.default(grad, weight, indices, offsets, "
                         "result1, mode, padding_idx)",
      output_differentiability=[True, False, False, False]),
    D("_embedding_bag_backward", grad="not_implemented('_embedding_bag_backward')",
      per_sample_weights="not_implemented('_embedding_bag_backward')"),
    D("expand", self="sum_to(grad, self.shape)"),
    D("gather", self="gather_backward(grad, self.shape, dim, index)"),
    D("index.Tensor", self="index_backward(grad, self.shape, indices)"),
    D("index_add", self="grad", source="maybe_multiply(index_source_backward(grad, dim, index, source), alpha)"),
    D("index_copy", self="grad.index_fill(dim, index, 0)", source="index_source_backward(grad, dim, index, source)"),
    D("index_fill.int_Scalar", self="grad.index_fill(dim, index, 0)"),
    D("index_fill.int_Tensor", self="grad.index_fill(dim, index, 0)",
      value="index_fill_value_backward(grad, dim, index).to(value.dtype)"),
    D("index_put", self="grad if accumulate else grad.index_put(indices, grad.new_zeros(values.shape), False)",
      values="index_put_values_backward(grad, indices, values.shape)"),
    D("index_reduce",
      **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
          "self, source": "index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result)"}),
    D("index_select", self="index_select_backward(grad, self.shape, dim, index)"),
    D("masked_scatter", self="sum_to(grad.masked_fill(mask, 0), self.shape)",
      source="masked_scatter_backward(grad, mask, source.shape)"),
    D("masked_select", self="masked_select_backward(grad, self.shape, mask)"),
    D("permute", self="grad.permute(inverse_permutation(dims))"),
    D("put", self="grad if accumulate else grad.put(index, grad.new_zeros(source.shape), False)",
      source="grad.take(index).reshape(source.shape)"),
    D("repeat", self="repeat_backward(grad, repeats, self.shape)"),
    D("_reshape_alias", self="grad.reshape(self.shape)"),
    D("scatter.src", self="grad.scatter(dim, index, 0)", src="grad.gather(dim, index)"),
    D("scatter.value", self="grad.scatter(dim, index, 0)"),
    D("scatter_add", self="grad", src="grad.gather(dim, index)"),
    D("roll", self="grad.roll([-s for s in shifts], dims)"),
    D("rot90", self="grad.rot90(-k, dims)"),
    D("select.int", self="select_backward(grad, self.shape, dim, index)"),
    D("select_scatter", self="grad.select_scatter(grad.new_zeros(src.shape), dim, index)",
      src="grad.select(dim, index)"),
    D("slice.Tensor", self="slice_backward_wrapper(grad, self.shape, dim, start, end, step)"),
    D("slice_scatter", self="grad.slice_scatter(grad.new_zeros(src.shape), dim, start, end, step)",
      src="aten.slice.Tensor(grad, dim, start, end, step)"),
    D("sort", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, True)",
      output_differentiability=[True, False]),
    D("sort.stable", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, True)",
      output_differentiability=[True, False]),
    D("split.Tensor", self="split_backward(grads, split_size, dim, self.shape)"),
    D("split_with_sizes", self="split_with_sizes_backward(grads, split_sizes, dim, self.shape)"),
    D("squeeze", self="unsqueeze_to(grad, self.shape)"),
    D("squeeze.dim", self="unsqueeze_to(grad, dim, self.shape)"),
    D("squeeze.dims", self="unsqueeze_to(grad, dim, self.shape)"),
    D("squeeze_", self="unsqueeze_to(grad, self.shape)"),
    D("squeeze_.dim", self="unsqueeze_to(grad, dim, self.shape)"),
    D("squeeze_.dims", self="unsqueeze_to(grad, dim, self.shape)"),
    D("stack", tensors="stack_tensors_backward(grad, dim, to_args_scalartypes(tensors))"),
    D("t", self="grad.t()"),
    D("t_", self="grad.t()"),
    D("flip", self="grad.flip(dims)"),
    D("take", self="take_backward(grad, self.shape, index)"),
    D("topk", self="value_selecting_reduction_backward(grad, dim, indices, self.shape, True)",
      output_differentiability=[True, False]),
    D("trace", self="trace_backward(grad, self.shape)"),
    D("transpose.int", self="grad.transpose(dim0, dim1)"),
    D("transpose_", self="grad.transpose(dim0, dim1)"),
    D("tril", self="grad.tril(diagonal)"),
    D("triu", self="grad.triu(diagonal)"),
    D("_unsafe_view", self="grad.reshape(self.shape)"),
    D("unfold", self="aten.unfold_backward.default(grad, self.shape, dimension, size, step)"),
    D("unfold_backward", grad_in="grad.unfold(dim, size, step)"),
    D("unsqueeze", self="grad.squeeze(dim)"),
    D("unsqueeze_", self="grad.squeeze(dim)"),
    D("view", self="grad.reshape(self.shape)"),
    D("view.dtype", output_differentiability=[False]),
    D("unbind.int", self="unbind_backward(grads, dim)"),
    # the unique values are differentiable outputs whose derivative is not implemented, as in torch:
    # unique(x) requires grad when x does, and backward through it raises NotImplementedError
    D("_unique", self='not_implemented("_unique")', output_differentiability=[True, False]),
    D("_unique2", self='not_implemented("_unique2")', output_differentiability=[True, False, False]),
    D("unique_dim", self='not_implemented("unique_dim")', output_differentiability=[True, False, False]),
    D("unique_consecutive", self='not_implemented("unique_consecutive")',
      output_differentiability=[True, False, False]),
    D("unique_dim_consecutive", self='not_implemented("unique_dim_consecutive")',
      output_differentiability=[True, False, False]),
    D("scatter_reduce.two",
      **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
          "self, src": "scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result)"}),
    D("_trilinear", **{  # type: ignore[arg-type]  # formulas only: the ** fills no other keyword
        "i1, i2, i3": "trilinear_backward(aten, grad, i1, i2, i3, expand1, expand2, expand3, sumdim, needs)"}),
]

NON_DIFFERENTIABLE: frozenset = frozenset({"nonzero_static"})
