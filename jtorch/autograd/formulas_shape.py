"""Formula helpers for the shape entries: views, joining, indexing, scatter/gather, sorting
(PyTorch's FunctionsManual.cpp: unsqueeze_to, slice_backward_wrapper, split_with_sizes_backward, ...).

Written with Tensor methods only, as formulas.py is, so the gradients are themselves differentiable.
Where PyTorch calls a function that is no Tensor method here (at::cat, at::stack), the gradient is
built by copying into slices of a zero tensor: `copy_` into a view records CopySlices, so that is
differentiable too.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..dtypes import int64 as _int64
from ..geometry import infer_size, wrap_dim
from .formulas import sum_to


def unsqueeze_to(grad: Any, *args: Any) -> Any:
    """unsqueeze_to(grad, sizes) (squeeze) or unsqueeze_to(grad, dim or dims, sizes) (squeeze.dim(s)):
    put back the size-1 dimensions squeeze removed."""
    if len(args) == 1:
        sizes = tuple(args[0])
        dims = [d for d, s in enumerate(sizes) if s == 1]
    else:
        dim, sizes = args
        sizes = tuple(sizes)
        n = len(sizes)
        dims = sorted({wrap_dim(d, n) for d in ([dim] if isinstance(dim, int) else dim)}) if n else []
        dims = [d for d in dims if sizes[d] == 1]
    for d in dims:
        grad = grad.unsqueeze(d)
    return grad


def slice_backward_wrapper(grad: Any, sizes: Sequence[int], dim: int, start: Any, end: Any, step: int) -> Any:
    sizes = tuple(sizes)
    out = grad.new_zeros(sizes)
    key = (slice(None),) * wrap_dim(dim, len(sizes)) + (slice(start, end, step),)
    out[key].copy_(grad)
    return out


def diagonal_backward(grad: Any, sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> Any:
    out = grad.new_zeros(tuple(sizes))
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


def repeat_backward(grad: Any, repeats: Sequence[int], sizes: Sequence[int]) -> Any:
    sizes = tuple(sizes)
    if 0 in repeats:
        return grad.new_zeros(sizes)
    lead = grad.dim() - len(sizes)
    if lead:
        grad = grad.sum(list(range(lead)))
    # [.., r*s, ..] -> [.., r, s, ..] and sum the r dimensions: one reshape, one sum
    shape, sum_dims = [], []
    for d, s in enumerate(sizes):
        r = repeats[d + lead]
        if r != 1:
            shape.append(r)
            sum_dims.append(len(shape) - 1)
        shape.append(s)
    grad = grad.reshape(shape)
    return grad.sum(sum_dims) if sum_dims else grad


def split_with_sizes_backward(grads: Sequence[Any], split_sizes: Sequence[int], dim: int,
                              sizes: Sequence[int]) -> Any:
    """at::cat(grads, dim), with the zeros of unused outputs already materialised by the node."""
    sizes = tuple(sizes)
    dim = wrap_dim(dim, len(sizes))
    out = grads[0].new_zeros(sizes)
    start = 0
    for g, n in zip(grads, split_sizes):
        if n:
            out.narrow(dim, start, n).copy_(g)
        start += n
    return out


def split_backward(grads: Sequence[Any], split_size: int, dim: int, sizes: Sequence[int]) -> Any:
    sizes = tuple(sizes)
    dim_size = sizes[wrap_dim(dim, len(sizes))]
    n = len(grads)
    split_sizes = [split_size] * n
    split_sizes[-1] = split_size - (split_size * n - dim_size)
    return split_with_sizes_backward(grads, split_sizes, dim, sizes)


def unbind_backward(grads: Sequence[Any], dim: int) -> Any:
    """at::stack(grads, dim)."""
    g0 = grads[0]
    dim = wrap_dim(dim, g0.dim() + 1)
    shape = list(g0.shape)
    shape.insert(dim, len(grads))
    out = g0.new_zeros(shape)
    for i, g in enumerate(grads):
        out.select(dim, i).copy_(g)
    return out


def block_diag_backward(grad: Any, shapes: Sequence[tuple], dtypes: Sequence[Any]) -> list:
    """Each input's block of grad, in its shape and dtype (torch's block_diag_backward)."""
    out, r, c = [], 0, 0
    for shape, dt in zip(shapes, dtypes):
        h, w = (shape if len(shape) == 2 else (1, shape[0]) if len(shape) == 1 else (1, 1))
        g = grad.narrow(0, r, h).narrow(1, c, w).reshape(shape)
        if g.is_complex() and not dt.is_complex:
            g = g.real
        out.append(g if g.dtype == dt else g.to(dt))
        r, c = r + h, c + w
    return out


def embedding_backward(grad: Any, indices: Any, num_weights: int, padding_idx: int, scale_grad_by_freq: bool,
                       sparse: bool = False) -> Any:
    """embedding_dense_backward: each looked-up row's gradient summed into its weight row; the
    padding row gets none; scale_grad_by_freq divides by how often each row was looked up."""
    if sparse:  # jtorch has no sparse layout for embedding_sparse_backward's result
        raise NotImplementedError("Could not run 'aten::embedding_sparse_backward' with arguments from the "
                                  "'SparseCPU' backend. jtorch has no sparse tensors: use sparse=False.")
    idx = indices.reshape(-1)
    g = grad.reshape(idx.numel(), grad.shape[-1]) if idx.numel() else grad.reshape(0, grad.shape[-1])
    if padding_idx >= 0:
        g = g.masked_fill((idx == padding_idx).unsqueeze(1), 0)
    if scale_grad_by_freq:
        counts = idx.new_zeros(num_weights).index_add(0, idx, idx.new_ones(idx.shape))
        g = g / counts.index_select(0, idx).unsqueeze(1).to(g.dtype)
    return g.new_zeros((num_weights, g.shape[-1])).index_add(0, idx, g)


def trace_backward(grad: Any, sizes: Sequence[int]) -> Any:
    """grad on the diagonal of a zero matrix of self's shape."""
    out = grad.new_zeros(tuple(sizes))
    out.diagonal().copy_(grad.expand(min(sizes)))
    return out


def stack_tensors_backward(grad: Any, dim: int, dtypes: Sequence[Any]) -> list:
    """One slice of grad per stacked input, in its dtype (torch's stack_tensors_backward)."""
    out = []
    for i, dt in enumerate(dtypes):
        g = grad.select(dim, i)
        if g.is_complex() and not dt.is_complex:
            g = g.real
        out.append(g if g.dtype == dt else g.to(dt))
    return out


def to_args_sizes(tensors: Sequence[Any]) -> list:
    """The shapes of a tensor list (the formula analyzer saves such a list as metadata only)."""
    return [tuple(t.shape) for t in tensors]


def to_args_scalartypes(tensors: Sequence[Any]) -> list:
    return [t.dtype for t in tensors]


def cat_tensors_backward(grad: Any, shapes: Sequence[tuple], dtypes: Sequence[Any], dim: int) -> list:
    """One narrow of grad per input (a legacy empty 1-d input gets an empty gradient), in its dtype."""
    ref = next((s for s in shapes if s != (0,)), shapes[0])
    dim = wrap_dim(dim, len(ref))
    out, start = [], 0
    for dt, shape in zip(dtypes, shapes):
        g = grad.real if grad.is_complex() and not dt.is_complex else grad
        if shape == (0,) and len(ref) != 1:
            out.append(g.new_zeros((0,)).to(dt))
            continue
        piece = g.narrow(dim, start, shape[dim])
        start += shape[dim]
        out.append(piece if piece.dtype == dt else piece.to(dt))
    return out


def gather_backward(grad: Any, sizes: Sequence[int], dim: int, index: Any) -> Any:
    return grad.new_zeros(tuple(sizes)).scatter_add(dim, index, grad)


def index_select_backward(grad: Any, sizes: Sequence[int], dim: int, index: Any) -> Any:
    return grad.new_zeros(tuple(sizes)).index_add(dim, index, grad)


def index_source_backward(grad: Any, dim: int, index: Any, source: Any) -> Any:
    """index_add / index_copy's source: the selected slices, shaped like source."""
    if source.dim() > 0:
        return grad.index_select(dim, index).expand(tuple(source.shape))
    return grad.index_select(dim, index.squeeze(0))


def index_fill_value_backward(grad: Any, dim: int, index: Any) -> Any:
    """The sum over the filled slices, each counted once (PyTorch selects the unique indices)."""
    return (grad - grad.index_fill(dim, index, 0)).sum()


def _index_key(indices: Sequence[Any]) -> tuple:
    """index.Tensor's indices as a Python index: None skips a dimension."""
    return tuple(slice(None) if i is None else i for i in indices)


def index_backward(grad: Any, sizes: Sequence[int], indices: Sequence[Any]) -> Any:
    return grad.new_zeros(tuple(sizes)).index_put(list(indices), grad, True)


def index_put_values_backward(grad: Any, indices: Sequence[Any], sizes: Sequence[int]) -> Any:
    return sum_to(grad[_index_key(indices)], tuple(sizes))


def take_backward(grad: Any, sizes: Sequence[int], index: Any) -> Any:
    return grad.new_zeros(tuple(sizes)).put(index, grad, True)


def masked_select_backward(grad: Any, sizes: Sequence[int], mask: Any) -> Any:
    sizes = tuple(sizes)
    return sum_to(grad.new_zeros(infer_size(sizes, tuple(mask.shape))).masked_scatter(mask, grad), sizes)


def masked_scatter_backward(grad: Any, mask: Any, sizes: Sequence[int]) -> Any:
    sizes = tuple(sizes)
    n = 1
    for s in sizes:
        n *= s
    selected = grad.masked_select(mask)
    k = selected.numel()
    if k < n:  # source elements masked_scatter did not use get zeros
        out = grad.new_zeros((n,))
        if k:
            out.narrow(0, 0, k).copy_(selected)
        selected = out
    return selected.view(sizes)


def masked_fill_backward(grad: Any, mask: Any) -> Any:
    return grad.masked_select(mask).sum()


def value_selecting_reduction_backward(grad: Any, dim: int, indices: Any, sizes: Sequence[int],
                                       keepdim: bool) -> Any:
    sizes = tuple(sizes)
    if not keepdim and sizes:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return grad.new_zeros(sizes).scatter(dim, indices, grad)


def _reduce_backward(grad: Any, self: Any, src: Any, reduce: str, include_self: bool, result: Any,
                     add: Callable, take: Callable, clear: Callable, prod_into: Callable) -> tuple:
    """The gradients of a reduction of src into self along an index (scatter_reduce's, and
    index_reduce's along one dim): add(t, s) sums s into t at the index, take(t) reads t at it,
    clear(t) zeroes t there, prod_into(t, s) is the forward prod reduction of s into t."""
    if reduce == "sum":
        grad_self, grad_src = grad, take(grad)
    elif reduce == "mean":
        n = grad.new_ones(tuple(grad.shape)) if include_self else grad.new_zeros(tuple(grad.shape))
        n = add(n, src.new_ones(tuple(src.shape)).to(grad.dtype))
        n = n.masked_fill(n == 0, 1)
        grad_self, grad_src = grad / n, take(grad) / take(n)
    elif reduce in ("amax", "amin"):
        # ties share the gradient evenly
        value = take(result)
        self_is = (self == result).to(self.dtype)
        src_is = (src == value).to(self.dtype)
        dist = grad / add(self_is, src_is)
        grad_self, grad_src = self_is * dist, src_is * take(dist)
    else:  # prod: exclusive products, computed without dividing by zeros
        masked_self = self.masked_fill(self == 0, 1)
        grad_self = grad * prod_into(masked_self, src) / masked_self
        src_zero = src == 0
        zeros_at = add(self.new_zeros(tuple(self.shape)), src_zero.to(self.dtype))
        single_zero = src_zero.logical_and(take(zeros_at) == 1)
        masked_src_result = prod_into(self, src.masked_fill(single_zero, 1))
        grad_src = take(grad * masked_src_result).where(single_zero, take(grad * result) / src.masked_fill(src_zero, 1))
    if not include_self:
        grad_self = clear(grad_self)
    return grad_self, grad_src


def scatter_reduce_backward(grad: Any, self: Any, dim: int, index: Any, src: Any, reduce: str,
                            include_self: bool, result: Any) -> tuple:
    if reduce not in ("sum", "mean", "amax", "amin", "prod"):
        raise RuntimeError(f"Expected 'reduce' argument to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
                           f"{reduce}.")
    return _reduce_backward(grad, self, src, reduce, include_self, result,
                            lambda t, s: t.scatter_add(dim, index, s), lambda t: t.gather(dim, index),
                            lambda t: t.scatter(dim, index, 0),
                            lambda t, s: t.scatter_reduce(dim, index, s, "prod", include_self=include_self))


def index_reduce_backward(grad: Any, self: Any, dim: int, index: Any, source: Any, reduce: str,
                          include_self: bool, result: Any) -> tuple:
    """torch's index_reduce_backward: scatter_reduce's rules along one dim."""
    if reduce not in ("mean", "amax", "amin", "prod"):
        raise RuntimeError("Expected 'reduce' argument to be one of 'prod', 'amax', 'amin' or 'mean' for "
                           f"index_reduce but got {reduce}.")
    return _reduce_backward(grad, self, source, reduce, include_self, result,
                            lambda t, s: t.index_add(dim, index, s), lambda t: t.index_select(dim, index),
                            lambda t: t.index_fill(dim, index, 0),
                            lambda t, s: t.index_reduce(dim, index, s, "prod", include_self=include_self))


def as_strided_backward(grad: Any, in_size: Sequence[int], in_stride: Sequence[int], in_off: int,
                        size: Sequence[int], stride: Sequence[int], storage_offset: Any) -> Any:
    """Scatter-add grad into a flat buffer standing for the storage, read the input's geometry back
    (an input that overlaps itself gets each storage element's gradient divided among its aliases)."""
    in_size, in_stride = tuple(in_size), tuple(in_stride)
    out_off = in_off if storage_offset is None else storage_offset
    size, stride = tuple(size), tuple(stride)
    base = min(in_off, out_off)
    in_off, out_off = in_off - base, out_off - base

    def extent(sz: tuple, st: tuple, off: int) -> int:
        if any(s == 0 for s in sz):
            return 0
        return off + 1 + sum((s - 1) * t for s, t in zip(sz, st))

    n = max(extent(size, stride, out_off), extent(in_size, in_stride, in_off))
    storage = grad.new_zeros((n,))
    if n == 0:
        return grad.new_zeros(in_size)
    positions = storage.new_ones((n,)).to(_int64).cumsum(0) - 1  # arange(n)
    if grad.numel():
        out_idx = positions.as_strided(size, stride, out_off).reshape(-1)
        storage = storage.index_add(0, out_idx, grad.reshape(-1))
    if not _non_overlapping(in_size, in_stride):
        in_idx = positions.as_strided(in_size, in_stride, in_off).reshape(-1)
        count = storage.new_zeros((n,)).index_add(0, in_idx, storage.new_ones((in_idx.numel(),)))
        storage = storage / count.masked_fill(count == 0, 1)
    return storage.as_strided(in_size, in_stride, in_off).clone()


def _non_overlapping(size: tuple, stride: tuple) -> bool:
    dims = sorted((st, s) for s, st in zip(size, stride) if s > 1)
    reach = 0
    for st, s in dims:
        if st <= reach:
            return False
        reach += (s - 1) * st
    return True


def as_strided_scatter_backward(grad: Any, in_size: Sequence[int], in_stride: Sequence[int], size: Sequence[int],
                                stride: Sequence[int], storage_offset: Any) -> Any:
    """The gradient with the scattered positions zeroed (torch's, for contiguous inputs)."""
    g = grad.contiguous()
    buffer = g.new_zeros(tuple(in_size))
    result = buffer.as_strided(tuple(in_size), tuple(in_stride))
    result.copy_(g)
    buffer.as_strided(tuple(size), tuple(stride), storage_offset).zero_()
    return result


def trilinear_backward(aten: Any, grad: Any, i1: Any, i2: Any, i3: Any, expand1: Sequence[int],
                       expand2: Sequence[int], expand3: Sequence[int], sumdim: Sequence[int],
                       needs: Sequence[bool]) -> tuple:
    """_trilinear_backward: each input's gradient is _trilinear of grad and the other two, summed over
    the dims that input was expanded at."""
    tri = aten._trilinear.default
    g1 = tri(grad, i2, i3, sumdim, expand2, expand3, expand1) if needs[0] else None
    g2 = tri(i1, grad, i3, expand1, sumdim, expand3, expand2) if needs[1] else None
    g3 = tri(i1, i2, grad, expand1, expand2, sumdim, expand3) if needs[2] else None
    return g1, g2, g3
