"""embedding_bag (ATen's EmbeddingBag.cpp): the sum, mean or max of the embedding rows of each bag.

`_embedding_bag` is CompositeExplicitAutograd here: its kernel composes index_select, index_add and
index_reduce, so it runs on every backend (meta included) and records one node, EmbeddingBagBackward0,
whose formulas call `_embedding_bag_backward` and `_embedding_bag_per_sample_weights_backward`
(which, as torch's, have no derivative: double backward raises torch's error). The returns are torch's CPU ones:
(output, offset2bag, bag_size, max_indices), offset2bag empty on the sum fast path (no padding_idx),
bag_size zeros for sum, max_indices a copy of bag_size for mean.
mode: 0 sum, 1 mean, 2 max.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..promotion import promote_types
from ..tensor import Tensor
from .factories import aten
from .registry import composite_explicit_autograd, composite_implicit_autograd, declare

_WHILE = " (while checking arguments for embedding_bag)"
_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _check_arguments(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int,
                     per_sample_weights: Tensor | None, include_last_offset: bool) -> tuple[Tensor, Tensor]:
    """check_arguments and promoteIndicesAndOffsets: indices and offsets in one integer type."""
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {indices.dim()}")
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    common = promote_types(indices.dtype, offsets.dtype)
    if indices.dtype is not common:
        indices = indices.to(common)
    if offsets.dtype is not common:
        offsets = offsets.to(common)
    if common not in (_dt.int64, _dt.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead" + _WHILE)
    if weight.dtype not in _FLOATS:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead" + _WHILE)
    if include_last_offset and offsets.numel() < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    n = indices.numel()
    if weight._device.type != "meta" and offsets.numel() > 0:
        first = int(offsets[0])
        if first != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {first}\n[ {offsets.type()}{{}} ]")
        last = int(offsets[-1])
        if last > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {last}")
    if per_sample_weights is not None:
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights.dtype is not weight.dtype:
            raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                               f"#1 'per_sample_weights'; but type {weight.type()} does not equal "
                               f"{per_sample_weights.type()}" + _WHILE)
        if per_sample_weights.dim() != 1:
            raise RuntimeError(f"Expected per_sample_weights to be 1-D, got {per_sample_weights.dim()}-D")
        if per_sample_weights.numel() != n:
            raise RuntimeError(f"Expected per_sample_weights.numel() ({per_sample_weights.numel()} to be the same as "
                               f"indices.numel() ({n})")
    return indices.reshape(-1), offsets


def _check_range(weight: Tensor, indices: Tensor) -> None:
    if weight._device.type == "meta" or indices.numel() == 0:
        return
    rows = weight.size(0)
    bad = ((indices < 0) | (indices >= rows)).nonzero()
    if bad.numel():
        i = int(bad[0, 0])
        raise RuntimeError(f"Index {i} of input takes value {int(indices[i])} which is not in the valid range "
                           f"[0, {rows})")


def make_offset2bag(indices: Tensor, offsets: Tensor) -> Tensor:
    """The bag of each index: ones added at every offset, summed up, minus one (make_offset2bag)."""
    n = indices.numel()
    marks = offsets.new_zeros((n + 1,)).index_add(0, offsets.long(), offsets.new_ones(offsets.shape))
    return (marks.cumsum(0) - 1).narrow(0, 0, n)


def _bags(indices: Tensor, offset2bag: Tensor, num_bags: int, padding_idx: int) -> tuple[Tensor, Tensor]:
    """(the bag of each index clamped into range, whether the index counts): indices past the last offset
    (include_last_offset) and padding indices take part in no bag."""
    bag = offset2bag.long()
    valid = bag < num_bags
    if padding_idx >= 0:
        valid = valid & (indices != padding_idx)
    return bag.clamp(max=max(num_bags - 1, 0)), valid


def _embedding_bag_impl(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                        mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                        include_last_offset: bool = False, padding_idx: int = -1
                        ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    indices, offsets = _check_arguments(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    _check_range(weight, indices)
    n, dim = indices.numel(), weight.size(1)
    num_bags = offsets.size(0) - (1 if include_last_offset else 0)
    offset2bag = make_offset2bag(indices, offsets)
    bag, valid = _bags(indices, offset2bag, num_bags, padding_idx)
    keep = valid.unsqueeze(1)
    rows = weight.index_select(0, indices)
    bag_size = offsets.new_zeros((num_bags,))
    if mode != 0 and n:
        bag_size = bag_size.index_add(0, bag, valid.to(offsets.dtype))
    if mode == 2:
        out = weight.new_zeros((num_bags, dim))
        max_indices = indices.new_zeros((num_bags, dim))
        if n:
            neg = rows.masked_fill(keep.logical_not(), float("-inf"))
            wide = bag.unsqueeze(1).expand(n, dim)
            out = out.scatter_reduce(0, wide, neg, "amax", include_self=False)
            out = out.masked_fill((bag_size == 0).unsqueeze(1), 0)
            # the first index of each bag that holds the maximum (the CPU loop's strict '>')
            is_max = (rows == out.index_select(0, bag)) & keep
            pos = aten("arange")(n, dtype=_dt.int64, device=bag.device).unsqueeze(1).expand(n, dim)
            first = bag.new_full((num_bags, dim), n).scatter_reduce(0, wide, pos.masked_fill(is_max.logical_not(), n),
                                                                    "amin", include_self=True)
            picked = indices.index_select(0, first.clamp(max=n - 1).reshape(-1)).view(num_bags, dim)
            max_indices = picked.masked_fill(first == n, 0)
        return out, offset2bag, bag_size, max_indices
    contrib = rows if per_sample_weights is None else rows * per_sample_weights.unsqueeze(1)
    out = weight.new_zeros((num_bags, dim))
    if n:
        out = out.index_add(0, bag, contrib.masked_fill(keep.logical_not(), 0))
    if mode == 1:
        out = out / bag_size.clamp(min=1).unsqueeze(1).to(out.dtype)
        return out, offset2bag, bag_size, bag_size.clone()
    if padding_idx < 0:  # the CPU's index_select_add fast path leaves offset2bag empty
        offset2bag = offsets.new_zeros((0,))
    return out, offset2bag, bag_size, bag_size.clone()


_SCHEMA_ARGS = ("Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, "
                "bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, "
                "int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)")

_embedding_bag = composite_explicit_autograd(f"_embedding_bag({_SCHEMA_ARGS}")(_embedding_bag_impl)
declare(f"_embedding_bag_forward_only({_SCHEMA_ARGS}").impl("CompositeExplicitAutograd")(_embedding_bag_impl)


def _wrap_padding_idx(weight: Tensor, padding_idx: int | None) -> int:
    if padding_idx is None:
        return -1
    rows = weight.size(0)
    if not -rows <= padding_idx < rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} through {rows - 1}, "
                           f"but got {padding_idx}")
    return padding_idx + rows if padding_idx < 0 else padding_idx


def _call(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool, mode: int, sparse: bool,
          per_sample_weights: Tensor | None, include_last_offset: bool, padding_idx: int | None
          ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return aten("_embedding_bag")(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                  include_last_offset, _wrap_padding_idx(weight, padding_idx))


@composite_implicit_autograd("embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
                             "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
                             "Tensor? per_sample_weights=None, bool include_last_offset=False) "
                             "-> (Tensor, Tensor, Tensor, Tensor)")
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False
                  ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return _call(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
                 None)


@composite_implicit_autograd("embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, "
                             "bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, "
                             "bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)")
def embedding_bag_padding_idx(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool, mode: int,
                              sparse: bool, per_sample_weights: Tensor | None, include_last_offset: bool,
                              padding_idx: int | None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return _call(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset,
                 padding_idx)


# ---- the backward functions (EmbeddingBag.cpp's _embedding_bag_backward and friends; no torch.* binding) --
def _sparse_refusal() -> RuntimeError:
    # jtorch has no sparse layout: the refusal torch gives for a backend that lacks the sparse kernels
    return NotImplementedError("Could not run 'aten::_embedding_bag_sparse_backward' with arguments from the "
                               "'SparseCPU' backend. jtorch has no sparse tensors: use sparse=False.")  # type: ignore


def _bag_of(indices: Tensor, offsets: Tensor, offset2bag: Tensor) -> Tensor:
    if offset2bag.numel() == 0 and indices.numel() > 0:  # the sum fast path kept none
        return make_offset2bag(indices, offsets)
    return offset2bag


@composite_explicit_autograd("_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, "
                             "Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, "
                             "int mode, bool sparse, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor", "")
def embedding_bag_backward(grad: Tensor, indices: Tensor, offsets: Tensor, offset2bag: Tensor, bag_size: Tensor,
                           maximum_indices: Tensor, num_weights: int, scale_grad_by_freq: bool, mode: int,
                           sparse: bool, per_sample_weights: Tensor | None, padding_idx: int = -1) -> Tensor:
    if sparse:
        raise _sparse_refusal()
    indices = indices.reshape(-1).long()
    num_bags, dim = grad.size(0), grad.size(1)
    if mode == 2:  # each bag's gradient to the row that held its maximum; empty bags give none
        g = grad.masked_fill((bag_size == 0).unsqueeze(1), 0)
        return grad.new_zeros((num_weights, dim)).scatter_add(0, maximum_indices.long(), g)
    out = grad.new_zeros((num_weights, dim))
    if indices.numel() == 0 or num_bags == 0:
        return out
    bag, valid = _bags(indices, _bag_of(indices, offsets, offset2bag), num_bags, padding_idx)
    g = grad.index_select(0, bag)
    if mode == 1:
        g = g / bag_size.index_select(0, bag).clamp(min=1).unsqueeze(1).to(grad.dtype)
    if per_sample_weights is not None:
        g = g * per_sample_weights.unsqueeze(1)
    if scale_grad_by_freq:
        counts = indices.new_zeros((num_weights,)).index_add(0, indices, indices.new_ones(indices.shape))
        g = g / counts.index_select(0, indices).unsqueeze(1).to(grad.dtype)
    return out.index_add(0, indices, g.masked_fill(valid.logical_not().unsqueeze(1), 0))


@composite_explicit_autograd("_embedding_bag_per_sample_weights_backward(Tensor grad, Tensor weight, Tensor indices, "
                             "Tensor offsets, Tensor offset2bag, int mode, int padding_idx=-1) -> Tensor", "")
def embedding_bag_per_sample_weights_backward(grad: Tensor, weight: Tensor, indices: Tensor, offsets: Tensor,
                                              offset2bag: Tensor, mode: int, padding_idx: int = -1) -> Tensor:
    if mode != 0:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    indices = indices.reshape(-1).long()
    if indices.numel() == 0 or grad.size(0) == 0:
        return grad.new_zeros((indices.numel(),))
    bag, valid = _bags(indices, _bag_of(indices, offsets, offset2bag), grad.size(0), padding_idx)
    dots = (grad.index_select(0, bag) * weight.index_select(0, indices)).sum(1)
    return dots.masked_fill(valid.logical_not(), 0)
