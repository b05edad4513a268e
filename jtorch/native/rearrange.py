"""Repetition and rearrangement (ATen's TensorShape.cpp, TensorTransformations.cpp,
TriangularOps.cpp, Repeat.cpp): repeat, tile, repeat_interleave, flip, fliplr, flipud, roll,
rot90, tril/triu (structured), diag, diag_embed, diagflat, trace, block_diag.

Everything that moves elements is a copy over an index map, never a loop per operator: flip is a
copy from a view with negated strides (the backend's `remap` stub), tril/triu the same copy
keeping one triangle, repeat one copy from an expanded view into a restrided output (the `copy`
stub), roll a cat of two narrowed views (as PyTorch's CPU roll), rot90 a flip and a transpose.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..backends import backend
from ..geometry import contiguous_strides, dim_list_to_mask, shape_str, wrap_dim
from ..promotion import can_cast, result_type_many
from ..scalar import SCALAR_TYPE_NAME, dtype_scalar
from ..structured.meta import MetaBase, allocate
from ..tensor import Tensor
from .copy import copy_from_host, host_values
from .factories import aten, empty_like_impl
from .registry import backend_kernel, composite_explicit_autograd, composite_implicit_autograd, declare
from .structured import structured


def _has_data(t: Tensor) -> bool:
    return t._device.type != "meta" and t.numel() > 0


# ---- repeat, tile ----------------------------------------------------------------------------------
def _check_size(size: Sequence[int]) -> None:
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape_str(size)}")


@backend_kernel("repeat(Tensor self, SymInt[] repeats) -> Tensor", "method")
def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    repeats = tuple(repeats)
    if len(repeats) < len(self._size):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - len(self._size)) + self._size
    target = tuple(p * r for p, r in zip(padded, repeats))
    _check_size(target)
    result = allocate(target, None, self.dtype, self._device)
    if _has_data(result):
        # result viewed as (r0, s0, r1, s1, ...) receives self expanded along the r dims: one copy
        st = contiguous_strides(target)
        size: list[int] = []
        dst: list[int] = []
        src: list[int] = []
        pst = (0,) * (len(repeats) - len(self._size)) + self._stride
        for r, p, s, ps in zip(repeats, padded, st, pst):
            size += (r, p)
            dst += (s * p, s)
            src += (0, ps)
        view = Tensor._make(result._storage, tuple(size), tuple(dst), 0, result.dtype, result._device)
        xsrc = Tensor._make(self._storage, tuple(size), tuple(src), self._offset, self.dtype, self._device)
        backend(result._device.type).copy(view, xsrc)
    return result


@composite_implicit_autograd("tile(Tensor self, SymInt[] dims) -> Tensor", "function, method")
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    dims = tuple(dims)
    if len(dims) < len(self._size):
        dims = (1,) * (len(self._size) - len(dims)) + dims
    return aten("repeat")(self, dims)


# ---- repeat_interleave ------------------------------------------------------------------------------
def _repeat_interleave_indices(repeats: Tensor, output_size: int | None, dtype: _dt.dtype | None = None
                               ) -> Tensor:
    """aten::repeat_interleave.Tensor: [0]*r0 + [1]*r1 + ...: the index of each output element."""
    if len(repeats._size) != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (_dt.int32, _dt.int64):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{SCALAR_TYPE_NAME[repeats.dtype]}'")
    import numpy as np

    dtype = dtype or repeats.dtype
    r = host_values(repeats).astype(np.int64) if repeats._device.type != "meta" else None
    if r is None:  # the values decide the size: meta tensors know it only from output_size
        if output_size is None:  # torch's meta registration (meta_repeat_interleave_Tensor)
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        return allocate((output_size,), None, dtype, repeats._device)
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(r.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    idx = np.repeat(np.arange(len(r), dtype=dtype.numpy), r)
    out = allocate((total,), None, dtype, repeats._device)
    if total:
        copy_from_host(out, idx)
    return out


@composite_implicit_autograd("repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
                             "function")
def repeat_interleave_tensor(repeats: Tensor, *, output_size: int | None = None) -> Tensor:
    return _repeat_interleave_indices(repeats, output_size)


@composite_implicit_autograd("repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
                             "SymInt? output_size=None) -> Tensor", "function, method")
def repeat_interleave_self_tensor(self: Tensor, repeats: Tensor, dim: int | None = None, *,
                                  output_size: int | None = None) -> Tensor:
    x = self
    if dim is None:
        x = aten("reshape")(self, (-1,))
        dim = 0
    else:
        dim = wrap_dim(dim, len(self._size))
    n = x._size[dim] if x._size else 1
    if len(repeats._size) == 0 or (len(repeats._size) == 1 and repeats._size[0] == 1):
        repeats = aten("expand")(aten("reshape")(repeats, (1,)), (n,))
    elif len(repeats._size) == 1:
        if repeats._size[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._size[0]} and input.size({dim}) = {n}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    idx = _repeat_interleave_indices(repeats, output_size, _dt.int64)
    if not x._size:  # a 0-dim self with dim=0: index the one element
        x = aten("reshape")(x, (1,))
    return aten("index.Tensor")(x, [None] * dim + [idx])


@composite_implicit_autograd("repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
                             "SymInt? output_size=None) -> Tensor", "function, method")
def repeat_interleave_self_int(self: Tensor, repeats: int, dim: int | None = None, *,
                               output_size: int | None = None) -> Tensor:
    """Repeat.cpp's repeat_interleave_symint: each slice along dim repeated through a broadcast
    dim after it (unsqueeze, expand, contiguous clone, flatten), so no index tensor and no data are
    needed (meta tensors work); dim 0 of a 0-dim self is out of range for the unsqueeze."""
    x = self if dim is not None else aten("flatten.using_ints")(self)
    d = wrap_dim(dim if dim is not None else 0, len(self._size))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = aten("unsqueeze")(x, d + 1)
    shape = list(x._size)
    shape[d + 1] = repeats
    x = aten("expand")(x, shape)
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {repeats * shape[d]} but got "
                           f"{output_size}")
    return aten("flatten.using_ints")(aten("clone")(x, memory_format=contiguous_format), d, d + 1)


# ---- flip, fliplr, flipud, roll, rot90 ---------------------------------------------------------------
def _flipped(self: Tensor, mask: Sequence[bool]) -> Tensor:
    """The view of self read backwards along the masked dims (negative strides: for the remap stub)."""
    offset, stride = self._offset, list(self._stride)
    for d, m in enumerate(mask):
        if m and self._size[d] > 1:
            offset += (self._size[d] - 1) * stride[d]
            stride[d] = -stride[d]
    return Tensor._make(self._storage, self._size, tuple(stride), offset, self.dtype, self._device)


@backend_kernel("flip(Tensor self, int[] dims) -> Tensor", "function, method")
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    n = len(self._size)
    mask = dim_list_to_mask(tuple(dims), n) if dims else [False] * n  # dim_list_to_bitset: each dim once
    out = empty_like_impl(self)
    if _has_data(out):
        backend(out._device.type).remap(out, _flipped(self, mask))
    return out


@composite_implicit_autograd("fliplr(Tensor self) -> Tensor", "function, method")
def fliplr(self: Tensor) -> Tensor:
    if len(self._size) < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten("flip")(self, [1])


@composite_implicit_autograd("flipud(Tensor self) -> Tensor", "function, method")
def flipud(self: Tensor) -> Tensor:
    if len(self._size) < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten("flip")(self, [0])


def _roll_one(self: Tensor, shift: int, dim: int) -> Tensor:
    """PyTorch's CPU roll along one dim: cat of the two narrowed parts."""
    if self.numel() == 0:
        return aten("clone")(self)
    d = wrap_dim(dim, len(self._size), wrap_scalar=False)
    size = self._size[d]
    start = (size - shift) % size
    return aten("cat")([aten("narrow")(self, d, start, size - start), aten("narrow")(self, d, 0, start)], d)


# roll, rot90 and trace are CompositeExplicitAutograd, as torch's: their own node (RollBackward0, ...)
@composite_explicit_autograd("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", "function, method")
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    shifts, dims = tuple(shifts), tuple(dims)
    if len(dims) == 1 and len(shifts) == 1:
        return _roll_one(self, shifts[0], dims[0])
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        flat = aten("reshape")(aten("contiguous")(self), (self.numel(),))
        return aten("view")(_roll_one(flat, shifts[0], 0), self._size)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = self
    for s, d in zip(shifts, dims):
        out = _roll_one(out, s, d)
    return out


def _transposed(t: Tensor, d0: int, d1: int) -> Tensor:
    """t.transpose_(d0, d1) of a fresh result: its own geometry swapped (a transpose view when t has
    history, which a geometry change behind autograd's back would corrupt)."""
    if t._requires_grad:
        return aten("transpose.int")(t, d0, d1)
    size, stride = list(t._size), list(t._stride)
    size[d0], size[d1] = size[d1], size[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    t._size, t._stride = tuple(size), tuple(stride)
    return t


@composite_explicit_autograd("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", "function, method")
def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    n = len(self._size)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = wrap_dim(dims[0], n), wrap_dim(dims[1], n)
    if d0 == d1:  # the message names the dims as given
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return _transposed(aten("flip")(self, [d1]), d0, d1)
    if k == 2:
        return aten("flip")(self, [d0, d1])
    if k == 3:
        return _transposed(aten("flip")(self, [d0]), d0, d1)
    return aten("clone")(self, memory_format=contiguous_format)


# ---- tril, triu (structured) ----------------------------------------------------------------------
def _triangle(name: str, lower: bool) -> None:
    def meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
        (self,) = tensors
        if len(self._size) < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        ctx.set_output_raw_strided(0, self._size, None, self.dtype, self._device)

    def impl(ctx: MetaBase, tensors: list, extras: dict, be: Any) -> None:
        be.remap(ctx.output(0), tensors[0], (extras["diagonal"], lower))

    structured(f"{name}.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",
               functional=f"{name}(Tensor self, SymInt diagonal=0) -> Tensor",
               inplace=f"{name}_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", meta=meta, impl=impl)


_triangle("tril", True)
_triangle("triu", False)


# ---- diag, diag_embed, diagflat, trace, block_diag ------------------------------------------------------
def _diag_embed_into(result: Tensor, self: Tensor, offset: int, d1: int, d2: int) -> Tensor:
    """result.zero_(); result.diagonal(offset, d1, d2).copy_(self), through the stubs."""
    if result._device.type != "meta" and result.numel():
        be = backend(result._device.type)
        be.fill(result, dtype_scalar(result.dtype, 0))
        diag = aten("diagonal")(result, offset, d1, d2)
        if diag.numel():
            be.copy(diag, self)
    return result


@backend_kernel("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor", "function, method")
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    n = len(self._size) + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    new = abs(offset) + self._size[-1]
    sizes = list(self._size[:-1])
    sizes.insert(min(d1, d2), new)
    sizes.insert(max(d1, d2), new)
    return _diag_embed_into(allocate(tuple(sizes), None, self.dtype, self._device), self, offset, d1, d2)


def _diag_check(self: Tensor, prefix: str) -> None:
    if len(self._size) not in (1, 2):
        raise RuntimeError(f"{prefix}Supports 1D or 2D tensors. Got {len(self._size)}D")


@composite_implicit_autograd("diag(Tensor self, int diagonal=0) -> Tensor", "function, method")
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    _diag_check(self, "diag(): ")
    if len(self._size) == 1:
        return aten("diag_embed")(self, diagonal)
    return aten("diagonal_copy")(self, diagonal)  # as torch: one DiagonalBackward0_copy node


@composite_explicit_autograd("diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor")
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """diagonal's view copied into a new contiguous tensor (the view_copy form of diagonal)."""
    return aten("clone")(aten("diagonal")(self, offset, dim1, dim2), memory_format=contiguous_format)


@backend_kernel("diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)", "function")
def diag_out(self: Tensor, diagonal: int = 0, *, out: Tensor) -> Tensor:
    from ..structured.meta import resize_out

    _diag_check(self, "")
    if len(self._size) == 1:
        if not can_cast(self.dtype, out.dtype):
            raise RuntimeError(f"diag: result type {SCALAR_TYPE_NAME[self.dtype]} can't be cast to the desired out= "
                               f"type {SCALAR_TYPE_NAME[out.dtype]}")
        n = abs(diagonal) + self._size[0]
        resize_out(out, (n, n), None, self.dtype, self._device)
        return _diag_embed_into(out, self, diagonal, 0, 1)
    d = aten("diagonal")(self, diagonal)
    resize_out(out, d._size, None, self.dtype, self._device)
    if _has_data(out):
        backend(out._device.type).copy(out, d)
    return out


@composite_implicit_autograd("diagflat(Tensor self, int offset=0) -> Tensor", "function, method")
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    return aten("diag")(aten("reshape")(self, (-1,)), offset)


@composite_explicit_autograd("trace(Tensor self) -> Tensor", "function, method")
def trace(self: Tensor) -> Tensor:
    if len(self._size) != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {len(self._size)}")
    if self.dtype is _dt.bool or (self.dtype in _dt.limited_unsigned and self._device.type == "cpu"):
        raise NotImplementedError(f"\"trace\" not implemented for '{SCALAR_TYPE_NAME[self.dtype]}'")
    return aten("sum")(aten("diagonal")(self))


def block_diag_kernel(tensors: Sequence[Tensor]) -> Tensor:
    if not tensors:
        from ..device import CPU

        return allocate((1, 0), None, _dt.get_default_dtype(), CPU)
    dev = tensors[0]._device  # not empty (returned above)
    mats = []
    for i, t in enumerate(tensors):
        if len(t._size) > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{len(t._size)} dimensions")
        if t._device != dev:
            raise RuntimeError(f"Input tensors must all be on the same device. Input 0 is on device {dev} and input "
                               f"{i} is on device {t._device}.")
        mats.append(t if len(t._size) == 2 else aten("reshape")(t, (1, -1)))
    # native::result_type(tensors): 0-dim inputs promote as a lower category (int8 0-dim + uint8 -> uint8)
    dtype = result_type_many(*tensors) if len(tensors) > 1 else tensors[0].dtype
    rows = sum(m._size[0] for m in mats)
    cols = sum(m._size[1] for m in mats)
    result = allocate((rows, cols), None, dtype, dev)
    if _has_data(result):
        be = backend(dev.type)
        be.fill(result, dtype_scalar(dtype, 0))
        r = c = 0
        st = result._stride
        for m in mats:
            h, w = m._size
            if h and w:
                be.copy(Tensor._make(result._storage, (h, w), st, r * st[0] + c, dtype, dev), m)
            r, c = r + h, c + w
    return result


# CompositeExplicitAutograd, as torch's: one BlockDiagBackward0 node
declare("block_diag(Tensor[] tensors) -> Tensor").impl("CompositeExplicitAutograd")(block_diag_kernel)
