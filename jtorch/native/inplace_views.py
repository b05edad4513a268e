"""In-place view operators: squeeze_, unsqueeze_, t_, transpose_ (swapaxes_, swapdims_) and
as_strided_ change a tensor's own sizes, strides and offset, never its data.

Each kernel computes the geometry with the functional view's kernel (so the checks and texts are
the same) and writes it into `self`, as ATen's in-place view kernels do (TensorShape.cpp). The
generated ADInplaceOrView kernel bumps the version and, for a view, chains the functional view onto
its replay (inplace_or_view.INPLACE_VIEW); autograd records the in-place entry's node
(TransposeBackward1, ...) on `self`, not CopySlices.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..tensor import Tensor
from . import views as _v
from .registry import composite_implicit_autograd, declare


def _take_geometry(self: Tensor, view: Tensor) -> Tensor:
    self._size, self._stride, self._offset = view._size, view._stride, view._offset
    return self


squeeze_ = declare("squeeze_(Tensor(a!) self) -> Tensor(a!)", variants="method")
squeeze_dim_ = declare("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", variants="method")
squeeze_dims_ = declare("squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)", variants="method")
unsqueeze_ = declare("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)", variants="method")
t_ = declare("t_(Tensor(a!) self) -> Tensor(a!)", variants="method")
transpose_ = declare("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", variants="method")
as_strided_ = declare("as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
                      "-> Tensor(a!)", variants="function, method")


@squeeze_.impl("CompositeExplicitAutograd")
def squeeze__kernel(self: Tensor) -> Tensor:
    return _take_geometry(self, _v.squeeze_kernel(self))


@squeeze_dim_.impl("CompositeExplicitAutograd")
def squeeze_dim__kernel(self: Tensor, dim: int) -> Tensor:
    return _take_geometry(self, _v.squeeze_dim_kernel(self, dim))


@squeeze_dims_.impl("CompositeExplicitAutograd")
def squeeze_dims__kernel(self: Tensor, dim: Sequence[int]) -> Tensor:
    return _take_geometry(self, _v.squeeze_dims_kernel(self, dim))


@unsqueeze_.impl("CompositeExplicitAutograd")
def unsqueeze__kernel(self: Tensor, dim: int) -> Tensor:
    return _take_geometry(self, _v.unsqueeze_kernel(self, dim))


@t_.impl("CompositeExplicitAutograd")
def t__kernel(self: Tensor) -> Tensor:
    n = len(self._size)
    if n > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _take_geometry(self, _v.transpose_kernel(self, 0, 0 if n < 2 else 1))


@transpose_.impl("CompositeExplicitAutograd")
def transpose__kernel(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _take_geometry(self, _v.transpose_kernel(self, dim0, dim1))


@as_strided_.impl("CompositeExplicitAutograd")
def as_strided__kernel(self: Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: int | None = None) -> Tensor:
    return _take_geometry(self, _v.as_strided_kernel(self, size, stride, storage_offset))


# swapaxes_ / swapdims_: torch's CompositeImplicitAutograd aliases of transpose_
@composite_implicit_autograd("swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)", "method")
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose_.op(self, axis0, axis1)


@composite_implicit_autograd("swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", "method")
def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose_.op(self, dim0, dim1)
