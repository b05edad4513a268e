"""matmul (and `@`), outer and ger: CompositeImplicitAutograd kernels, as in PyTorch, that
decompose into dot / mv / mm / bmm and views through the dispatcher.

`_matmul_impl` follows ATen's (LinearAlgebra.cpp) case by case, including its "fold": a batch of
matrices times one matrix or vector becomes a single mm / mv over the batch folded into the rows
when that needs no copy, and out= tensors are resized and written the way ATen writes them (so a
1-D @ 2-D product resizes out to [1, n] first, with the resize warning, and squeezes it after).
"""
from __future__ import annotations

import math
import warnings
from typing import Any

from ..geometry import infer_size
from ..structured.meta import resize_output
from ..tensor import Tensor
from ..warn import user_stacklevel
from .binary import mul
from .blas import bmm, dot, dot_out, mm, mv, mv_out
from .conversion import contiguous
from .copy import copy_
from .inplace_views import squeeze_dim_
from .registry import declare
from .views import _unsafe_view, expand, reshape, squeeze_dim, transpose, unsqueeze, view_as

matmul = declare("matmul(Tensor self, Tensor other) -> Tensor", variants="function, method", dunder="__matmul__")
matmul_out = declare("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


from ..tls import is_grad_enabled as _grad_enabled  # noqa: E402  # after the declarations that tls's users need


def _squeeze0_(t: Tensor) -> Tensor:
    """squeeze_(0) on a tensor whose dim 0 has size 1: drops the dim in place (metadata only)."""
    t._size, t._stride = t._size[1:], t._stride[1:]
    return t


def _mT(t: Tensor) -> Tensor:
    return transpose.op(t, -2, -1)


def _should_fold(t1: Tensor, t2: Tensor, has_out: bool) -> bool:
    """Whether the larger operand (>= 3-D, the other 1-D or 2-D) folds into a matrix for mm / mv
    without a copy (ATen's should_fold)."""
    larger = t1.dim() >= t2.dim()
    if larger:
        size, stride, dim_t2 = t1._size, t1._stride, t2.dim()
    else:  # t2.mT
        size = t2._size[:-2] + (t2._size[-1], t2._size[-2])
        stride = t2._stride[:-2] + (t2._stride[-1], t2._stride[-2])
        dim_t2 = t1.dim()
    if not (len(size) >= 3 and dim_t2 <= 2):
        return False
    # folding avoids a large expanded tensor in the backward of the smaller operand
    if (t2.requires_grad if larger else t1.requires_grad) and not has_out:
        return True
    if t1.dim() == 2:  # mm on the transposed operand would need a copy back
        return False
    if math.prod(size) == 0:
        return True
    return all(stride[i] == stride[i + 1] * size[i + 1] for i in range(len(size) - 2))


def _fold(out: Tensor | None, t1: Tensor, t2: Tensor) -> Tensor:
    transpose_ = t2.dim() > t1.dim()
    a = _mT(t2) if transpose_ else t1
    b = t2 if not transpose_ else (transpose.op(t1, 0, 1) if t1.dim() == 2 else t1)
    sizes_1 = a._size
    output_shape = sizes_1[:-1]
    folded = math.prod(output_shape)
    b_is_matrix = b.dim() == 2
    if b_is_matrix:
        output_shape += (b._size[1],)
    a_folded = reshape.op(a, (folded, sizes_1[-1]))  # not view(-1, k): k may be 0
    if out is None:
        if b_is_matrix:
            output = _unsafe_view.op(mm.functional.op(a_folded, b), output_shape)
            return contiguous.op(_mT(output)) if transpose_ else output
        return _unsafe_view.op(mv.op(a_folded, b), output_shape)
    resize_output(out, output_shape)
    reshaped_out = reshape.op(out, (folded, b._size[-1]) if b_is_matrix else (folded,))
    if b_is_matrix:
        mm.out.op(a_folded, b, out=reshaped_out)
    else:
        mv_out.op(a_folded, b, out=reshaped_out)
    if reshaped_out._storage is not out._storage:
        copy_.op(out, reshaped_out)
    return out


def _batched(out: Tensor | None, t1: Tensor, t2: Tensor) -> Tensor:
    d1, d2 = t1.dim(), t2.dim()
    n = t1._size[-2] if d1 > 1 else 1
    m1 = t1._size[-1]
    batch1 = t1._size[:max(d1 - 2, 0)]
    m2 = t2._size[-2] if d2 > 1 else t2._size[0]
    p = t2._size[-1] if d2 > 1 else 1
    batch2 = t2._size[:max(d2 - 2, 0)]
    # a size-1 batch that needs grad goes through the fold instead of being expanded
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1.requires_grad:
            return _matmul_impl(out, squeeze_dim.op(t1, 0), t2)
        if batch2[0] == 1 and t2.requires_grad:
            return _matmul_impl(out, t1, squeeze_dim.op(t2, 0))
    output_shape = infer_size(batch1, batch2)
    batch = math.prod(output_shape)
    t1_expanded = reshape.op(expand.op(t1, output_shape + (n, m1)), (batch, n, m1))
    vector_rhs = d2 == 1
    t2_expanded = expand.op(t2, output_shape + ((m2,) if vector_rhs else (m2, p)))
    if vector_rhs:
        t2_expanded = unsqueeze.op(reshape.op(t2_expanded, (batch, m2)), 2)
    else:
        t2_expanded = reshape.op(t2_expanded, (batch, m2, p))
    if d1 > 1:
        output_shape += (n,)
    if d2 > 1:
        output_shape += (p,)
    if out is None:
        r = bmm.functional.op(t1_expanded, t2_expanded)
        return _unsafe_view.op(squeeze_dim.op(r, -1) if vector_rhs else r, output_shape)
    resize_output(out, output_shape)
    reshaped_out = reshape.op(out, (batch, n, p))
    bmm.out.op(t1_expanded, t2_expanded, out=reshaped_out)
    if vector_rhs:
        reshaped_out = squeeze_dim.op(reshaped_out, -1)
    if reshaped_out._storage is not out._storage:
        copy_.op(out, view_as.op(reshaped_out, out))
    return out


def _matmul_impl(out: Tensor | None, t1: Tensor, t2: Tensor) -> Tensor:
    d1, d2 = len(t1._size), len(t2._size)
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if out is not None and (t1.requires_grad or t2.requires_grad or out.requires_grad) and _grad_enabled():
        raise RuntimeError("matmul(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if d1 == 2 and d2 == 2:
        return mm.functional.op(t1, t2) if out is None else mm.out.op(t1, t2, out=out)
    if d1 == 1 and d2 == 1:
        return dot.op(t1, t2) if out is None else dot_out.op(t1, t2, out=out)
    if d1 == 2 and d2 == 1:
        return mv.op(t1, t2) if out is None else mv_out.op(t1, t2, out=out)
    if d1 == 1 and d2 == 2:
        row = unsqueeze.op(t1, 0)
        if out is not None:
            return _squeeze0_(mm.out.op(row, t2, out=out))
        r = mm.functional.op(row, t2)
        # ATen's squeeze_(0) is recorded by autograd (SqueezeBackward4); with history, through the dispatcher
        return squeeze_dim_.op(r, 0) if r.requires_grad else _squeeze0_(r)
    if _should_fold(t1, t2, out is not None):
        return _fold(out, t1, t2)
    return _batched(out, t1, t2)


@matmul.impl("CompositeImplicitAutograd")
def matmul_kernel(self: Tensor, other: Tensor) -> Tensor:
    return _matmul_impl(None, self, other)


@matmul_out.impl("CompositeImplicitAutograd")
def matmul_out_kernel(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    _matmul_impl(out, self, other)
    return out


def _rmatmul(self: Tensor, other: Any) -> Any:
    """Tensor.__rmatmul__: matmul(other, self); NotImplemented for non-tensors (`2 @ t` is a
    TypeError, as in torch: matmul takes no numbers, so the generated reflected dunders, which
    wrap numbers, do not fit)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul.op(other, self)


Tensor.__rmatmul__ = _rmatmul  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi


# ---- outer, ger ----------------------------------------------------------------------------------------
outer = declare("outer(Tensor self, Tensor vec2) -> Tensor", variants="function, method")
outer_out = declare("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)")
ger = declare("ger(Tensor self, Tensor vec2) -> Tensor", variants="function, method")
ger_out = declare("ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)")


def _check_1d(t: Tensor, arg: str, fn: str) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"{fn}: Expected 1-D argument {arg}, but got {t.dim()}-D")


@outer.impl("CompositeImplicitAutograd")
def outer_kernel(self: Tensor, vec2: Tensor) -> Tensor:
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return mul.functional.op(reshape.op(self, (self._size[0], 1)), vec2)


@outer_out.impl("CompositeImplicitAutograd")
def outer_out_kernel(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return mul.out.op(reshape.op(self, (self._size[0], 1)), vec2, out=out)


@ger.impl("CompositeImplicitAutograd")
def ger_kernel(self: Tensor, vec2: Tensor) -> Tensor:
    return outer.op(self, vec2)


@ger_out.impl("CompositeImplicitAutograd")
def ger_out_kernel(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    warnings.warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer instead.",
                  UserWarning, stacklevel=user_stacklevel())
    return outer_out.op(self, vec2, out=out)
