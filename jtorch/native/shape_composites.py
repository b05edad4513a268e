"""Composite shape and product operators of ATen (TensorShape.cpp, LinearAlgebra.cpp, Normalization /
Distance code): atleast_1d/2d/3d, ravel, adjoint, sum_to_size, inner, addr, addbmm, dist, renorm,
nonzero_static, fill_diagonal_.

CompositeImplicitAutograd ones call other operators above autograd (their nodes are those
operators'); addr, addbmm, dist and renorm have their own derivatives in torch and so are
CompositeExplicitAutograd here, with derivatives entries of their own (AddrBackward0, ...).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..geometry import shape_str as _fmt
from ..geometry import wrap_dim
from ..promotion import can_cast, result_type_many
from ..scalar import SCALAR_TYPE_NAME, format_double
from ..structured.meta import resize_output
from ..tensor import Tensor
from .factories import aten
from .factories import wrapped_scalar_tensor as _w
from .registry import composite_explicit_autograd, composite_implicit_autograd


# ---- atleast_nd -----------------------------------------------------------------------------------------
def _atleast_1d(self: Tensor) -> Tensor:
    return aten("reshape")(self, (1,)) if not self._size else self


def _atleast_2d(self: Tensor) -> Tensor:
    n = len(self._size)
    if n == 0:
        return aten("reshape")(self, (1, 1))
    return aten("unsqueeze")(self, 0) if n == 1 else self


def _atleast_3d(self: Tensor) -> Tensor:
    n = len(self._size)
    if n == 0:
        return aten("reshape")(self, (1, 1, 1))
    if n == 1:
        return aten("unsqueeze")(aten("unsqueeze")(self, 0), -1)
    return aten("unsqueeze")(self, -1) if n == 2 else self


for _n, _fn in (("1d", _atleast_1d), ("2d", _atleast_2d), ("3d", _atleast_3d)):
    composite_implicit_autograd(f"atleast_{_n}(Tensor self) -> Tensor")(_fn)
    composite_implicit_autograd(f"atleast_{_n}.Sequence(Tensor[] tensors) -> Tensor[]")(
        lambda tensors, _fn=_fn: tuple(_fn(t) for t in tensors))


# ---- ravel, sum_to_size --------------------------------------------------------------------------
@composite_implicit_autograd("ravel(Tensor(a) self) -> Tensor(a)", "function, method")
def ravel(self: Tensor) -> Tensor:
    return aten("view")(aten("contiguous")(self), (-1,))


def is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> bool:
    n, m = len(shape), len(desired)
    if n > m:
        return False
    return all(shape[n - i - 1] in (desired[m - i - 1], 1) for i in range(n))


def sum_to(t: Tensor, shape: Sequence[int]) -> Tensor:
    """at::sum_to: sum the leading dims and the dims `shape` has as 1, view to `shape`."""
    shape = tuple(shape)
    if not shape:
        return aten("sum")(t)
    sizes = t._size
    lead = len(sizes) - len(shape)
    dims = list(range(lead)) + [i for i in range(lead, len(sizes)) if shape[i - lead] == 1 and sizes[i] != 1]
    if dims:
        t = aten("sum.dim_IntList")(t, dims, True)
    return aten("view")(t, shape) if lead > 0 else t


@composite_implicit_autograd("sum_to_size(Tensor self, SymInt[] size) -> Tensor", "method")
def sum_to_size(self: Tensor, size: Sequence[int]) -> Tensor:
    if not is_expandable_to(size, self._size):
        raise RuntimeError(f"size {{{_fmt(size)}}} is not expandable to size {{{_fmt(self._size)}}}.")
    return sum_to(self, size)


# ---- inner -----------------------------------------------------------------------------------------------
def _check_device(name: str, tensors: Sequence[Tensor], dev_type: str) -> None:
    """checkDeviceType."""
    for t in tensors:
        if t._device.type != dev_type:
            raise RuntimeError(f"Expected tensor to have {dev_type} DeviceType, but got tensor with "
                               f"{t._device.type} DeviceType (while checking arguments for {name})")


@composite_implicit_autograd("inner(Tensor self, Tensor other) -> Tensor", "function, method")
def inner(self: Tensor, other: Tensor) -> Tensor:
    if self._device.type != other._device.type:
        _check_device("inner()", (self, other), self._device.type)
    if not self._size or not other._size:
        return aten("mul.Tensor")(self, other)
    if self._size[-1] != other._size[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{_fmt(self._size)} and {_fmt(other._size)}")
    return aten("tensordot")(self, other, [-1], [-1])


@composite_implicit_autograd("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
def inner_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    if self._device.type != other._device.type or out._device.type != self._device.type:
        _check_device("inner()", (out, self, other), self._device.type)
    if not self._size or not other._size:
        return aten("mul.out")(self, other, out=out)
    if self._size[-1] != other._size[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{_fmt(self._size)} and {_fmt(other._size)}")
    return aten("tensordot.out")(self, other, [-1], [-1], out=out)


# ---- addr ---------------------------------------------------------------------------------------------
def _check_1d(vec1: Tensor, vec2: Tensor) -> None:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if len(v._size) != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {len(v._size)}-D")


def _addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any, alpha: Any, out_dtype: Any) -> Tensor:
    """addr_kernel over TensorIterator's common dtype: beta * self + alpha * vec1 * vec2 (self ignored
    when beta is 0; logical and/or for bool)."""
    _check_1d(vec1, vec2)
    n, m = vec1._size[0], vec2._size[0]
    if not is_expandable_to(self._size, (n, m)):
        aten("expand")(self, (n, m))  # its error text
    common = result_type_many(self, vec1, vec2)
    if out_dtype is not None and not can_cast(common, out_dtype):
        raise RuntimeError(f"result type {SCALAR_TYPE_NAME[common]} can't be cast to the desired output type "
                           f"{SCALAR_TYPE_NAME[out_dtype]}")
    if common is _dt.bool:
        prod = aten("logical_and")(aten("unsqueeze")(vec1, 1), vec2)
        if not alpha:
            prod = aten("zeros_like")(prod)
        res = aten("logical_or")(aten("expand")(self, (n, m)), prod) if beta else prod
        return aten("to.dtype")(res, common)
    if isinstance(beta, bool) or isinstance(alpha, bool):
        raise RuntimeError(f"Boolean {'beta' if isinstance(beta, bool) else 'alpha'} only supported for Boolean "
                           "results.")
    if not (common.is_floating_point or common.is_complex):
        if isinstance(beta, float) or isinstance(alpha, float):
            raise RuntimeError(f"For integral input tensors, argument {'beta' if isinstance(beta, float) else 'alpha'}"
                               " must not be a floating point number.")
    v1 = aten("unsqueeze")(aten("to.dtype")(vec1, common), 1)
    prod = aten("mul.Tensor")(aten("mul.Tensor")(v1, _w(alpha)), aten("to.dtype")(vec2, common))
    if beta == 0:
        return prod
    return aten("add.Tensor")(aten("mul.Tensor")(aten("to.dtype")(self, common), _w(beta)), prod)


_ADDR_ARGS = "Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1"


@composite_explicit_autograd(f"addr(Tensor self, {_ADDR_ARGS}) -> Tensor", "function, method")
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return _addr(self, vec1, vec2, beta, alpha, None)


@composite_explicit_autograd(f"addr_(Tensor(a!) self, {_ADDR_ARGS}) -> Tensor(a!)", "method")
def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _check_1d(vec1, vec2)
    if self._size != (vec1._size[0], vec2._size[0]):
        raise RuntimeError(f"size mismatch, input: {_fmt(self._size)}, v1: {_fmt(vec1._size)}, "
                           f"v2: {_fmt(vec2._size)}")
    return aten("copy_")(self, _addr(self, vec1, vec2, beta, alpha, self.dtype))


@composite_explicit_autograd(f"addr.out(Tensor self, {_ADDR_ARGS}, Tensor(a!) out) -> Tensor(a!)")
def addr_out(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor) -> Tensor:
    res = _addr(self, vec1, vec2, beta, alpha, out.dtype)
    resize_output(out, res._size)
    return aten("copy_")(out, res)


# ---- addbmm ---------------------------------------------------------------------------------------------
def _addbmm_into(result: Tensor, self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any) -> Tensor:
    """addbmm_impl_: result = beta * self, then one addmm_ per batch (beta applied once)."""
    if len(batch1._size) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._size) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = batch1._size
    if batch2._size[0] != b:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {batch2._size[0]}")
    if batch2._size[1] != k:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {batch2._size[1]}x{batch2._size[2]})")
    m = batch2._size[2]
    if len(self._size) != 2 or self._size != (n, m):
        raise RuntimeError("input tensor does not match matmul output shape")
    if result is not self:
        aten("resize_as_")(result, self)  # torch's addbmm_impl_: resize_as_, so a wrong-size out is not warned about
        if beta != 0:
            aten("copy_")(result, self)
    if b == 0:
        return aten("mul_.Tensor")(result, _w(beta)) if beta != 0 else aten("zero_")(result)
    adjusted = beta
    for i in range(b):
        aten("addmm_")(result, aten("select.int")(batch1, 0, i), aten("select.int")(batch2, 0, i), beta=adjusted,
                       alpha=alpha)
        adjusted = 1
    return result


def _addbmm_self(self: Tensor, batch1: Tensor, batch2: Tensor) -> Tensor:
    """expand_size(self, {batch1.size(1), batch2.size(2)}, "addbmm_out")."""
    if len(batch1._size) == 3 and len(batch2._size) == 3 and self._size != (batch1._size[1], batch2._size[2]):
        return aten("expand")(self, (batch1._size[1], batch2._size[2]))
    return self


_ADDBMM_ARGS = "Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1"


@composite_explicit_autograd(f"addbmm(Tensor self, {_ADDBMM_ARGS}) -> Tensor", "function, method")
def addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    result = aten("empty.memory_format")((0,), dtype=self.dtype, device=self._device)
    return _addbmm_into(result, _addbmm_self(self, batch1, batch2), batch1, batch2, beta, alpha)


@composite_explicit_autograd(f"addbmm_(Tensor(a!) self, {_ADDBMM_ARGS}) -> Tensor(a!)", "method")
def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _addbmm_self(self, batch1, batch2)  # torch expands self first: its text for a mismatched self
    return _addbmm_into(self, self, batch1, batch2, beta, alpha)


@composite_explicit_autograd(f"addbmm.out(Tensor self, {_ADDBMM_ARGS}, Tensor(a!) out) -> Tensor(a!)")
def addbmm_out(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,
               out: Tensor) -> Tensor:
    return _addbmm_into(out, _addbmm_self(self, batch1, batch2), batch1, batch2, beta, alpha)


# ---- dist, renorm -----------------------------------------------------------------------------------------
@composite_explicit_autograd("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", "function, method")
def dist(self: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    return aten("norm.Scalar")(aten("sub.Tensor")(self, other), p)


def _renorm_checks(self: Tensor, p: Any, maxnorm: Any) -> None:
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if not float(p) > 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if not float(maxnorm) >= 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {format_double(float(maxnorm))}")
    if len(self._size) <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {len(self._size)} dimensions")


def _renorm_factor(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Each slice along `dim` scaled by maxnorm / (norm + 1e-7) where its p-norm exceeds maxnorm."""
    n = len(self._size)
    d = wrap_dim(dim, n)
    reduce = [i for i in range(n) if i != d]
    norm = aten("linalg_vector_norm")(self, p, reduce, True)
    scale = aten("div.Tensor")(aten("scalar_tensor")(float(maxnorm), dtype=norm.dtype, device=norm._device),
                               aten("add.Tensor")(norm, _w(1e-7)))
    return aten("where.self")(aten("gt.Tensor")(norm, _w(maxnorm)), scale, aten("ones_like")(norm))


def _renorm(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    _renorm_checks(self, p, maxnorm)  # an integer self: linalg.vector_norm's refusal, as torch's renorm
    return _renorm_factor(self, p, dim, maxnorm)


@composite_explicit_autograd("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor", "function, method")
def renorm(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    return aten("mul.Tensor")(self, _renorm(self, p, dim, maxnorm))


@composite_explicit_autograd("renorm_(Tensor(a!) self, Scalar p, int dim, Scalar maxnorm) -> Tensor(a!)", "method")
def renorm_(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    return aten("mul_.Tensor")(self, _renorm(self, p, dim, maxnorm))


@composite_explicit_autograd("renorm.out(Tensor self, Scalar p, int dim, Scalar maxnorm, *, Tensor(a!) out) "
                             "-> Tensor(a!)")
def renorm_out(self: Tensor, p: Any, dim: int, maxnorm: Any, *, out: Tensor) -> Tensor:
    from ..structured.meta import resize_out

    _renorm_checks(self, p, maxnorm)
    resize_out(out, self._size, None, self.dtype, self._device)
    return aten("mul.out")(self, _renorm(self, p, dim, maxnorm), out=out)


# ---- nonzero_static ----------------------------------------------------------------------------------
def _nonzero_static(self: Tensor, size: int, fill_value: int) -> Tensor:
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if self._device.type == "meta":  # the size is static: meta tensors get their shape (nonzero's cannot)
        return aten("empty.memory_format")((size, len(self._size)), dtype=_dt.int64, device=self._device)
    nz = aten("nonzero")(self)
    count = nz._size[0]
    if count >= size:
        return aten("clone")(aten("slice.Tensor")(nz, 0, 0, size, 1))
    pad = aten("full")((size - count, len(self._size)), fill_value, dtype=_dt.int64, device=self._device)
    return aten("cat")([nz, pad], 0)


@composite_explicit_autograd("nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor",
                             "function, method")
def nonzero_static(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    return _nonzero_static(self, size, fill_value)


@composite_explicit_autograd("nonzero_static.out(Tensor self, *, SymInt size, int fill_value=-1, Tensor(a!) out) "
                             "-> Tensor(a!)")
def nonzero_static_out(self: Tensor, *, size: int, fill_value: int = -1, out: Tensor) -> Tensor:
    res = _nonzero_static(self, size, fill_value)
    resize_output(out, res._size)
    return aten("copy_")(out, res)


# ---- fill_diagonal_ -----------------------------------------------------------------------------------
@composite_implicit_autograd("fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)",
                             "method")
def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    n = len(self._size)
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self._size[0], self._size[1]
    if n > 2 and any(s != height for s in self._size[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset = self._offset
    size = min(height, width)
    stride = sum(self._stride)
    aten("fill_.Scalar")(aten("as_strided")(self, (size,), (stride,), offset), fill_value)
    if wrap and n == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        aten("fill_.Scalar")(aten("as_strided")(self, (wrap_size,), (stride,), offset + self._stride[0] * (width + 1)),
                             fill_value)
    return self


