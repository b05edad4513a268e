"""Max unpooling (ATen's MaxUnpooling.cpp): max_unpool2d and max_unpool3d put each input value at
its saved flat index of an (N, C, *output_size) zero tensor, the inverse of max pooling. The kernel
is one scatter over the flattened planes, so every backend that scatters runs it; the checks and
texts are torch's (MaxUnpool2DBackward0's formula gathers the gradient at the indices)."""
from __future__ import annotations

from collections.abc import Sequence

from .. import dtypes as _dt
from ..geometry import shape_str
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate
from ..tensor import Tensor
from .registry import declare


def _scatter(self: Tensor, indices: Tensor, size: tuple, nsp: int) -> Tensor:
    """The unpooled (.., *size) tensor; `nsp` spatial dims. Invalid indices raise torch's error."""
    out = allocate(self._size[:-nsp] + size, None, self.dtype, self._device)
    if self._device.type == "meta":
        return out
    lead = self._size[:-nsp]
    plane = 1
    for v in size:
        plane *= v
    rows = 1
    for v in lead:
        rows *= v
    flat_ind = indices.reshape(rows, -1)
    if flat_ind.numel():
        bad = (flat_ind < 0).logical_or(flat_ind >= plane)
        if bool(bad.any()):
            first = int(flat_ind[bad][0])
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{'x'.join(map(str, size))})")
    flat = out.view(rows, plane)
    flat.zero_()
    if flat_ind.numel():
        flat.scatter_(1, flat_ind, self.reshape(rows, -1))
    return out


def _check_common(self: Tensor, indices: Tensor, fn: str) -> None:
    if self._size != indices._size:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({shape_str(self._size)}) but got indices tensor with shape: {shape_str(indices._size)}")
    for i in range(1, self.dim()):
        if self._size[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{shape_str(self._size)} with dimension {i} being empty.")


def _max_unpool2d(self: Tensor, indices: Tensor, output_size: Sequence[int]) -> Tensor:
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {SCALAR_TYPE_NAME[indices.dtype]}")
    output_size = list(output_size)
    if len(output_size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if self.dim() not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {self.dim()} "
                           "dimensions.")
    _check_common(self, indices, "max_unpooling2d_forward_out_cpu()")
    return _scatter(self, indices, tuple(output_size), 2)


def _max_unpool3d(self: Tensor, indices: Tensor, output_size: Sequence[int], stride: Sequence[int],
                  padding: Sequence[int]) -> Tensor:
    if indices.dtype is not _dt.int64:
        raise RuntimeError("elements in indices should be type int64")
    if self.dim() not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {self.dim()} "
                           "dimensions.")
    output_size, stride, padding = list(output_size), list(stride), list(padding)
    for name, v, fmt in (("output_size", output_size, ""), ("stride", stride, ":"), ("padding", padding, ":")):
        if len(v) != 3:
            raise RuntimeError(f"There should be exactly three elements (depth, height, width) in {name}, but got{fmt} "
                               f"{len(v)} elements.")
    _check_common(self, indices, "max_unpooling3d_forward_out_cpu()")
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {shape_str(tuple(stride))}")
    return _scatter(self, indices, tuple(output_size), 3)


declare("max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor", variants="").impl_backends(
    _max_unpool2d)
declare("max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor",
        variants="").impl_backends(_max_unpool3d)
