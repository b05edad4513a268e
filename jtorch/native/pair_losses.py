"""pdist and cosine_embedding_loss: ATen's CompositeImplicitAutograd functions (Distance.cpp,
Loss.cpp), decomposed into differentiable operators, so their gradients are those operators'.
nn.functional's pdist and cosine_embedding_loss call these, as torch's do. reduction: 0 none,
1 mean, 2 sum.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..geometry import shape_str as _fmt
from ..scalar import not_implemented
from ..tensor import Tensor
from .factories import aten
from .factories import wrapped_scalar_tensor as _w
from .registry import composite_explicit_autograd, composite_implicit_autograd

_EPSILON = 1e-12  # Loss.cpp's EPSILON


def apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    if reduction == 1:
        return aten("mean")(loss)
    if reduction == 2:
        return aten("sum")(loss)
    return loss


@composite_implicit_autograd("pdist(Tensor self, float p=2) -> Tensor")
def pdist(self: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance of every pair of rows i < j, in row-major order of the pairs."""
    if len(self._size) != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {len(self._size)}D")
    if not self.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return aten("_pdist_forward")(aten("contiguous")(self), p)


def pair_differences(self: Tensor) -> Tensor:
    """x_i - x_j for every pair of rows i < j (pdist's order)."""
    n = self._size[0]
    pairs = aten("triu_indices")(n, n, 1, dtype=_dt.int64, device=self._device)
    rows = aten("select.int")(pairs, 0, 0)
    cols = aten("select.int")(pairs, 0, 1)
    return aten("sub.Tensor")(aten("index_select")(self, 0, rows), aten("index_select")(self, 0, cols))


# its own node (PdistBackward0) and formula, as torch's: each tie of an infinity norm gets the whole gradient
@composite_explicit_autograd("_pdist_forward(Tensor self, float p=2) -> Tensor", "")
def pdist_forward(self: Tensor, p: float = 2) -> Tensor:
    if len(self._size) == 2 and self._size[0] > 1 and self._size[1] > 0 \
            and self.dtype not in (_dt.float32, _dt.float64):  # the kernel's AT_DISPATCH_FLOATING_TYPES
        raise not_implemented("pdist", self.dtype)
    # torch's pdist kernel narrows p to the input's type before choosing its 0/1/2/inf/general form
    if self.dtype is not _dt.float64:
        with np.errstate(over="ignore"):
            p = float(np.float32(p))
    return aten("linalg_vector_norm")(pair_differences(self), p, [1], False)


# no binding of its own: torch.cosine_embedding_loss (jtorch/nn_functions_in_torch.py) defaults the reduction to
# 0 as torch's Python binding does
@composite_implicit_autograd("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
                             "int reduction=1) -> Tensor", variants="")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    targ_dim = len(target._size)
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1:
        if len(input1._size) != 2 or len(input2._size) != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                               f"{_fmt(input1._size)} and {_fmt(input2._size)}.")
    elif len(input1._size) != 1 or len(input2._size) != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{_fmt(input1._size)} and {_fmt(input2._size)}.")
    mul, add, sum_ = aten("mul.Tensor"), aten("add.Tensor"), aten("sum.dim_IntList")
    prod_sum = sum_(mul(input1, input2), [targ_dim], False)
    mag_square1 = add(sum_(mul(input1, input1), [targ_dim], False), _w(_EPSILON))
    mag_square2 = add(sum_(mul(input2, input2), [targ_dim], False), _w(_EPSILON))
    cos = aten("div.Tensor")(prod_sum, aten("sqrt")(mul(mag_square1, mag_square2)))
    zeros = aten("zeros_like")(cos)
    pos = aten("rsub.Tensor")(cos, _w(1))  # 1 - cos
    neg = aten("clamp_min")(aten("sub.Tensor")(cos, _w(margin)), 0)
    output = add(aten("where.self")(aten("eq.Tensor")(target, _w(1)), pos, zeros),
                 aten("where.self")(aten("eq.Tensor")(target, _w(-1)), neg, zeros))
    return apply_loss_reduction(output, reduction)
