"""torch.gradient: second-order central differences inside, first- or second-order one-sided ones at
the edges, with unit, scalar or coordinate-tensor spacing; CompositeImplicitAutograd over slice,
arithmetic and cat, as PyTorch's ReduceOps.cpp writes it (every overload, its checks and texts)."""
from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..geometry import wrap_dim
from ..tensor import Tensor
from .factories import wrapped_scalar_tensor as _w
from .registry import composite_implicit_autograd, op


def _sl(t: Tensor, dim: int, start: int | None, end: int | None = None) -> Tensor:
    return op("slice.Tensor")(t, dim, start, end, 1)


def _pre_check(self: Tensor, spacing_size: int | None, dim: list[int] | None, edge_order: int) -> None:
    if self.dtype is _dt.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dim is None and spacing_size != self.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                           f"'self.dim() = {self.dim()}', since dim argument was not given, but got a list of length "
                           f"{spacing_size}")
    if spacing_size is not None and dim is not None and spacing_size != len(dim):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dim)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is not None:
        seen: set[int] = set()
        for d in dim:  # dim_list_to_bitset
            w = wrap_dim(d, self.dim())
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    for d in (dim if dim is not None else range(self.dim())):
        if self._size[wrap_dim(d, self.dim())] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def _all_dims(self: Tensor, dim: int | None) -> list[int]:
    return [dim] if dim is not None else list(range(self.dim()))


def _join(center: Tensor, prepend: Tensor, append: Tensor, dim: int) -> Tensor:
    return op("cat")([prepend, center, append], dim)


def _helper_float(self: Tensor, spacing: list, dims: list[int], edge_order: int) -> tuple:
    result = []
    for i, d in enumerate(dims):
        d = wrap_dim(d, self.dim())
        h = _w(spacing[i])
        center = op("div.Tensor")(op("sub.Tensor")(_sl(self, d, 2), _sl(self, d, 0, -2)), h)
        if edge_order == 1:
            prepend = op("div.Tensor")(op("sub.Tensor")(_sl(self, d, 1, 2), _sl(self, d, 0, 1)), h)
            append = op("div.Tensor")(op("sub.Tensor")(_sl(self, d, -1), _sl(self, d, -2, -1)), h)
        else:
            prepend = op("div.Tensor")(op("sub.Tensor")(op("add.Tensor")(
                op("mul.Tensor")(_sl(self, d, 0, 1), _w(-1.5)), op("mul.Tensor")(_sl(self, d, 1, 2), _w(2))),
                op("mul.Tensor")(_sl(self, d, 2, 3), _w(0.5))), h)
            append = op("div.Tensor")(op("add.Tensor")(op("add.Tensor")(
                op("mul.Tensor")(_sl(self, d, -3, -2), _w(0.5)), op("mul.Tensor")(_sl(self, d, -2, -1), _w(-2))),
                op("mul.Tensor")(_sl(self, d, -1), _w(1.5))), h)
        result.append(_join(op("div.Tensor")(center, _w(2)), prepend, append, d))
    return tuple(result)


def _helper_tensors(self: Tensor, coordinates: list, dims: list[int], edge_order: int) -> tuple:
    mul, div, add, sub = op("mul.Tensor"), op("div.Tensor"), op("add.Tensor"), op("sub.Tensor")
    result = []
    for i, d in enumerate(dims):
        c = coordinates[i]
        if c.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {c.dim()} dimensions!")
        d = wrap_dim(d, self.dim())
        shape = [1] * self.dim()
        shape[d] = -1
        dx = sub(_sl(c, 0, 1), _sl(c, 0, 0, -1))  # c.diff()
        dx1, dx2 = _sl(dx, 0, 0, -1), _sl(dx, 0, 1)
        a = op("reshape")(div(op("neg")(dx2), mul(dx1, add(dx1, dx2))), shape)
        b = op("reshape")(div(sub(dx2, dx1), mul(dx1, dx2)), shape)
        cc = op("reshape")(div(dx1, mul(dx2, add(dx1, dx2))), shape)
        center = add(add(mul(a, _sl(self, d, 0, -2)), mul(b, _sl(self, d, 1, -1))), mul(cc, _sl(self, d, 2)))
        h0, h1 = op("select.int")(dx, 0, 0), op("select.int")(dx, 0, 1)
        hl, hm = op("select.int")(dx, 0, -1), op("select.int")(dx, 0, -2)
        if edge_order == 1:
            prepend = div(sub(_sl(self, d, 1, 2), _sl(self, d, 0, 1)), h0)
            append = div(sub(_sl(self, d, -1), _sl(self, d, -2, -1)), hl)
        else:
            s01 = add(h0, h1)
            a = op("neg")(div(add(mul(h0, _w(2.0)), h1), mul(h0, s01)))
            b = div(s01, mul(h0, h1))
            c2 = div(op("neg")(h0), mul(h1, s01))
            prepend = add(add(mul(a, _sl(self, d, 0, 1)), mul(b, _sl(self, d, 1, 2))), mul(c2, _sl(self, d, 2, 3)))
            slm = add(hl, hm)
            a = div(hl, mul(hm, slm))
            b = op("neg")(div(slm, mul(hl, hm)))
            c2 = div(add(mul(hl, _w(2)), hm), mul(hl, slm))
            append = add(add(mul(a, _sl(self, d, -3, -2)), mul(b, _sl(self, d, -2, -1))), mul(c2, _sl(self, d, -1)))
        result.append(_join(center, prepend, append, d))
    return tuple(result)


# the Tensor[] overloads first: the binding tries overloads in declaration order, and a Scalar[]
# would take a list of 0-dim tensors
@composite_implicit_autograd("gradient.tensorarrayint(Tensor self, *, Tensor[] spacing, int? dim=None, "
                             "int edge_order=1) -> Tensor[]")
def gradient_tensorarrayint(self: Tensor, *, spacing: list, dim: int | None = None, edge_order: int = 1) -> tuple:
    dims = _all_dims(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _helper_tensors(self, list(spacing), dims, edge_order)


@composite_implicit_autograd("gradient.tensorarray(Tensor self, *, Tensor[] spacing, int[] dim, int edge_order=1) "
                             "-> Tensor[]")
def gradient_tensorarray(self: Tensor, *, spacing: list, dim: list, edge_order: int = 1) -> tuple:
    _pre_check(self, len(spacing), list(dim), edge_order)
    return _helper_tensors(self, list(spacing), list(dim), edge_order)


@composite_implicit_autograd("gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, "
                             "int edge_order=1) -> Tensor[]")
def gradient_scalarint(self: Tensor, *, spacing: Any = None, dim: int | None = None, edge_order: int = 1) -> tuple:
    dims = _all_dims(self, dim)
    unit = [1.0 if spacing is None else spacing] * (1 if dim is not None else self.dim())
    _pre_check(self, None if spacing is None else len(unit), dims if dim is not None else None, edge_order)
    return _helper_float(self, unit, dims, edge_order)


@composite_implicit_autograd("gradient.scalararray(Tensor self, *, Scalar spacing, int[] dim, int edge_order=1) "
                             "-> Tensor[]")
def gradient_scalararray(self: Tensor, *, spacing: Any, dim: list, edge_order: int = 1) -> tuple:
    unit = [spacing] * len(dim)
    _pre_check(self, len(unit), list(dim), edge_order)
    return _helper_float(self, unit, list(dim), edge_order)


@composite_implicit_autograd("gradient.array(Tensor self, *, int[] dim, int edge_order=1) -> Tensor[]")
def gradient_array(self: Tensor, *, dim: list, edge_order: int = 1) -> tuple:
    _pre_check(self, len(dim), list(dim), edge_order)
    return _helper_float(self, [1.0] * len(dim), list(dim), edge_order)


@composite_implicit_autograd("gradient.scalarrayint(Tensor self, *, Scalar[] spacing, int? dim=None, "
                             "int edge_order=1) -> Tensor[]")
def gradient_scalarrayint(self: Tensor, *, spacing: list, dim: int | None = None, edge_order: int = 1) -> tuple:
    dims = _all_dims(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _helper_float(self, list(spacing), dims, edge_order)


@composite_implicit_autograd("gradient.scalarrayarray(Tensor self, *, Scalar[] spacing, int[] dim, "
                             "int edge_order=1) -> Tensor[]")
def gradient_scalarrayarray(self: Tensor, *, spacing: list, dim: list, edge_order: int = 1) -> tuple:
    _pre_check(self, len(spacing), list(dim), edge_order)
    return _helper_float(self, list(spacing), list(dim), edge_order)
