"""nn.functional: linear, bilinear, embedding, dropout, one_hot, normalize,
cosine_similarity, pairwise_distance: composed from jtorch's differentiable operators, so they
run on every device and their gradients come from the operators' own formulas."""
from __future__ import annotations

import math

import jtorch

from ...tensor import Tensor

__all__ = ["linear", "bilinear", "embedding", "dropout", "one_hot", "normalize",
           "cosine_similarity", "pairwise_distance"]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if input.dim() == 2 and bias is not None:
        return jtorch.addmm(bias, input, weight.t())  # one fused op on the hot path of an MLP
    if bias is not None and input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
        # ATen's _flatten_nd_linear: addmm on the input flattened to 2-D, viewed back
        sizes = input.shape
        flat = math.prod(sizes[:-1])
        result = jtorch.addmm(bias, input.reshape(flat, sizes[-1]), weight.t())
        return result.view(*sizes[:-1], result.size(1))
    out = jtorch.matmul(input, weight.t())
    return out if bias is None else out + bias


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.size(i)} "
                               f"and {input2.size(i)}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(-1)} but expected "
                           f"{weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(-1)} but expected "
                           f"{weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected "
                           f"{weight.size(0)}")
    # y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j], as ATen's bilinear: one _trilinear of the
    # flattened inputs (TrilinearBackward0), reshaped to the batch shape
    size = [*input1.shape[:-1], weight.size(0)]
    flat1 = input1.reshape(-1, input1.size(-1))
    flat2 = input2.reshape(-1, input2.size(-1))
    out = jtorch.ops.aten._trilinear(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3]).reshape(size)
    return out if bias is None else out + bias


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if input.dtype not in (jtorch.int64, jtorch.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    if max_norm is not None:
        _embedding_renorm_(weight, input.contiguous().reshape(-1), max_norm, norm_type)
    # torch.embedding: one EmbeddingBackward0 node; the padding row receives no gradient
    return jtorch.embedding(weight, input, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """torch.embedding_renorm_: rows looked up whose norm exceeds max_norm are scaled down, in place."""
    if weight.device.type == "meta":  # nothing to scale (torch's meta kernel returns the weight as it is)
        return
    with jtorch.no_grad():
        rows = jtorch.unique(indices)
        sel = weight.index_select(0, rows)
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = jtorch.where(norms > max_norm, max_norm / (norms + 1e-7), jtorch.ones_like(norms))
        weight.index_copy_(0, rows, sel * scale)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    # a Bernoulli(1-p) keep mask, scaled by 1/(1-p) (torch's _dropout_impl), drawn from jtorch's generator
    mask = jtorch.empty_like(input).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype != jtorch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif tensor.device.type == "meta" and num_classes != -1:
        pass  # no values to check (torch's meta path); without num_classes, min() below refuses as torch's does
    else:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1
        elif int(tensor.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = jtorch.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()


# ---- norms and distances ------------------------------------------------------------------------
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return jtorch.div(input, denom, out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    # ATen's cosine_similarity: each input divided by its own norm (clamped at eps), then the dot product
    # (the norms cloned and clamped without grad, so the graph is torch's: Div(x, Clone(VectorNorm(x))))
    x1b, x2b = jtorch.broadcast_tensors(x1, x2)
    n1 = jtorch.linalg.vector_norm(x1b, 2, dim, keepdim=True).clone()
    n2 = jtorch.linalg.vector_norm(x2b, 2, dim, keepdim=True).clone()
    with jtorch.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1b / n1) * (x2b / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    output_dim = max(x1.dim(), x2.dim())
    innermost_dim = output_dim - 1
    # ATen's at::norm(x1 - x2 + eps, p, dim, keepdim): add.Scalar and norm.ScalarOpt_dim (their nodes)
    aten = jtorch.ops.aten
    return aten.norm.ScalarOpt_dim(aten.add.Scalar(x1 - x2, eps), p, [innermost_dim], keepdim)
