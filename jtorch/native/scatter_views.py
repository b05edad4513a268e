"""`Tensor.unfold` (a view of sliding windows) with its backward, and the *_scatter operators
(slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter): a copy of `self` with `src`
written into one view of it. ATen: TensorShape.cpp (unfold, *_scatter), UnfoldBackward.h.

The scatter operators are CompositeExplicitAutograd in torch, with their own derivatives (the
gradient of `self` is the gradient with the view zeroed, that of `src` the view of the gradient);
their out= forms are torch's generated ones: the functional result copied into a resized `out`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import dtypes as _dt
from ..geometry import shape_str as _fmt
from ..geometry import wrap_dim
from ..structured.meta import resize_out
from ..tensor import Tensor
from .factories import aten
from .registry import declare
from .views import _view

# ---- unfold ------------------------------------------------------------------------------------------
unfold = declare("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)", variants="method")
unfold_backward = declare(
    "unfold_backward(Tensor grad_in, SymInt[] input_sizes, int dim, int size, int step) -> Tensor", variants="")


@unfold.impl("CompositeExplicitAutograd")
def unfold_kernel(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    ndim = len(self._size)
    d = wrap_dim(dimension, ndim)
    sizes, strides = list(self._size), list(self._stride)
    max_size = 1 if ndim == 0 else sizes[d]
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {max_size} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    sizes.append(size)
    strides.append(1 if ndim == 0 else strides[d])
    if d < ndim:
        sizes[d] = (sizes[d] - size) // step + 1
        strides[d] *= step
    return _view(self, tuple(sizes), tuple(strides), self._offset)


@unfold_backward.impl("CompositeExplicitAutograd")
def unfold_backward_kernel(grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    """Each window's gradient added back onto the positions it covered: one index_add_ along `dim`
    of the windows laid end to end (positions window * step + offset)."""
    sizes = tuple(input_sizes)
    n = len(sizes)
    d = wrap_dim(dim, n)
    grad_input = aten("zeros")(sizes if n else (1,), dtype=grad_in.dtype, device=grad_in._device)
    g_sizes = sizes if n else (1,)
    nwin = grad_in._size[d] if n else 1
    if nwin and size:
        dev = grad_in._device
        starts = aten("arange.start_step")(0, nwin * step, step, dtype=_dt.int64, device=dev)
        idx = aten("add.Tensor")(aten("unsqueeze")(starts, 1), aten("arange")(size, dtype=_dt.int64, device=dev))
        windows = aten("movedim.int")(grad_in, -1, d + 1) if n else grad_in
        flat = aten("reshape")(windows, g_sizes[:d] + (nwin * size,) + g_sizes[d + 1:])
        aten("index_add_")(grad_input, d, aten("reshape")(idx, (-1,)), flat)
    return grad_input if n else aten("reshape")(grad_input, ())


# ---- *_scatter ------------------------------------------------------------------------------------------
def _scatter_into(self: Tensor, src: Tensor, view_of: Callable[[Tensor], Tensor]) -> Tensor:
    output = aten("clone")(self)
    part = view_of(output)
    if part._size != src._size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {_fmt(src._size)}, "
                           f"slice size = {_fmt(part._size)}")
    aten("copy_")(part, src)
    return output


def _with_out(functional: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """torch's generated out= kernel of a functional CompositeExplicitAutograd operator."""
    def out_kernel(*args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        result = functional(*args, **kwargs)
        resize_out(out, result._size, None, result.dtype, result._device)
        aten("copy_")(out, result)
        return out

    return out_kernel


def _declare_scatter(args: str, kernel: Callable[..., Tensor], name: str, out_binding: bool = False) -> None:
    """The functional operator and its out= form (torch binds out= in Python only for slice_scatter: the
    others' out= overloads are generated for the aten namespace alone)."""
    declare(f"{name}(Tensor self, Tensor src, {args}) -> Tensor", variants="function, method").impl(
        "CompositeExplicitAutograd")(kernel)
    declare(f"{name}.out(Tensor self, Tensor src, {args}, *, Tensor(a!) out) -> Tensor(a!)",
            variants="function" if out_binding else "").impl("CompositeExplicitAutograd")(_with_out(kernel))


def slice_scatter_kernel(self: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                         step: int = 1) -> Tensor:
    return _scatter_into(self, src, lambda t: aten("slice.Tensor")(t, dim, start, end, step))


def select_scatter_kernel(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _scatter_into(self, src, lambda t: aten("select.int")(t, dim, index))


def diagonal_scatter_kernel(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _scatter_into(self, src, lambda t: aten("diagonal")(t, offset, dim1, dim2))


def as_strided_scatter_kernel(self: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],
                              storage_offset: int | None = None) -> Tensor:
    return _scatter_into(self, src, lambda t: aten("as_strided")(t, size, stride, storage_offset))


_declare_scatter("int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1", slice_scatter_kernel,
                 "slice_scatter", out_binding=True)
_declare_scatter("int dim, SymInt index", select_scatter_kernel, "select_scatter")
_declare_scatter("int offset=0, int dim1=0, int dim2=1", diagonal_scatter_kernel, "diagonal_scatter")
_declare_scatter("SymInt[] size, SymInt[] stride, SymInt? storage_offset=None", as_strided_scatter_kernel,
                 "as_strided_scatter")
