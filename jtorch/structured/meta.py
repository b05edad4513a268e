"""MetaBase: where a structured meta function puts its outputs (at::impl::MetaBase).

A meta function decides each output's size, strides, dtype and device once and calls
`set_output_raw_strided(i, ...)`; what that means depends on the wrapper's mode, as in PyTorch's
generated structured_<op>_functional / _inplace / _out classes:

- functional: allocate the output (empty_strided on the device);
- in-place: check that `self` already has that size, dtype and device (check_inplace);
- out=: check dtype and device, then resize the caller's tensor (resize_out, with the deprecation
  warning when a non-empty out of another shape is resized).

TensorIterator is a MetaBase too: it calls the same `set_output_raw_strided` for the outputs it
allocates. Nothing here looks inside a storage: allocation goes through the device's registered
storage factory (`new_storage`).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from math import prod
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import contiguous_strides, shape_str, storage_extent
from ..scalar import TYPE_META_NAME
from ..tensor import Tensor, new_storage
from ..warn import complex_to_real, user_stacklevel

FUNCTIONAL, INPLACE, OUT = 0, 1, 2


def allocate(size: tuple[int, ...], stride: tuple[int, ...] | None, dtype: _dt.dtype, device: Any) -> Tensor:
    """empty_strided(size, stride) on `device` (contiguous when stride is None)."""
    if stride is None:  # contiguous: the extent is the element count (math.prod: no generator)
        return Tensor._make(new_storage(prod(size), dtype, device), size, contiguous_strides(size), 0, dtype, device)
    return Tensor._make(new_storage(storage_extent(size, stride), dtype, device), size, stride, 0, dtype, device)


def check_same_device(tensors: Sequence[Tensor | None]) -> None:
    """The device check of an operator whose kernel takes no tensors from another device (mm, bmm,
    addmm, addmv, dot, cat, ...): every tensor on the first one's device, in torch's words. Meta
    tensors are left to the meta functions' own checks."""
    first = None
    for t in tensors:
        if t is None or t._device.type == "meta":
            continue
        if first is None:
            first = t._device
        elif t._device != first:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{first} and {t._device}!")


def copy_into(dst: Tensor, src: Tensor) -> None:
    """dst.copy_(src) for tensors of one shape on one device that do not overlap (a temporary of
    another dtype, say), straight through the device's copy stub: no dispatch, no version bump."""
    if src.dtype.is_complex and not dst.dtype.is_complex:
        complex_to_real()  # as copy_ warns
    if dst._device.type != "meta":
        backend(dst._device.type).copy(dst, src)


def fill(t: Tensor, value: Any) -> None:
    """t.fill_(value) through the device's fill stub (value converted to t's dtype first)."""
    if t._device.type != "meta" and t.numel():
        from ..scalar import checked_scalar

        backend(t._device.type).fill(t, checked_scalar(t.dtype, value))


def resize_output(out: Tensor, size: tuple[int, ...], stride: tuple[int, ...] | None = None) -> bool:
    """at::native::resize_output: warn when a non-empty out= tensor has the wrong shape, then
    resize it (restrided to `stride`, contiguous by default). Returns whether it resized."""
    if out._size == size:
        return False
    if out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {shape_str(out._size)}, which "
            f"does not match the required output shape {shape_str(size)}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    stride = stride if stride is not None else contiguous_strides(size)
    n = storage_extent(size, stride)
    out._storage.resize_(out._offset + n if n else 0)
    out._size, out._stride = size, stride
    return True


def check_inplace(self: Tensor, size: tuple[int, ...], dtype: _dt.dtype, device: Any) -> None:
    """at::native::check_inplace, for operators whose meta is not a TensorIterator build."""
    if dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {TYPE_META_NAME[self.dtype]} and output tensor "
                           f"dtype {TYPE_META_NAME[dtype]} should match")
    if device != self._device:
        raise RuntimeError(f"Bad in-place call: input tensor device {self._device} and output tensor device "
                           f"{device} should match")
    if tuple(size) != self._size:
        raise RuntimeError(f"Bad in-place call: input tensor size {shape_str(self._size)} and output tensor size "
                           f"{shape_str(size)} should match")


def resize_out(out: Tensor, size: tuple[int, ...], stride: tuple[int, ...] | None, dtype: _dt.dtype,
               device: Any) -> None:
    """The generated structured out= wrapper's resize_out: same dtype and device, then resize."""
    if dtype is not out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {TYPE_META_NAME[dtype]}, but got "
                           f"{TYPE_META_NAME[out.dtype]} instead")
    if device != out._device:
        raise RuntimeError(f"Expected out tensor to have device {device}, but got {out._device} instead")
    resize_output(out, tuple(size), stride)


class MetaBase:
    """The outputs of one structured call, in its mode (FUNCTIONAL, INPLACE or OUT)."""

    def __init__(self, mode: int = FUNCTIONAL, provided: tuple[Tensor, ...] = ()) -> None:
        self.mode = mode
        self.provided = provided          # (self,) for in-place, the out= tensors for out=
        self._outputs: list[Tensor | None] = list(provided)

    def maybe_get_output(self, i: int = 0) -> Tensor | None:
        return self.provided[i] if i < len(self.provided) else None

    def set_output_raw_strided(self, i: int, size: Sequence[int], stride: tuple[int, ...] | None, dtype: _dt.dtype,
                               device: Any) -> Tensor:
        size = tuple(size)
        if self.mode == FUNCTIONAL or i >= len(self.provided):
            t = allocate(size, stride, dtype, device)
        elif self.mode == INPLACE:
            t = self.provided[i]
            check_inplace(t, size, dtype, device)
        else:
            t = self.provided[i]
            resize_out(t, size, stride, dtype, device)
        while len(self._outputs) <= i:
            self._outputs.append(None)
        self._outputs[i] = t
        return t

    def set_output_contiguous(self, i: int, size: tuple[int, ...], dtype: _dt.dtype, device: Any) -> Tensor:
        return self.set_output_raw_strided(i, size, None, dtype, device)

    def output(self, i: int = 0) -> Tensor:
        return self._outputs[i]  # type: ignore[return-value]  # set by set_output_* before it is read

    def outputs(self) -> Sequence[Tensor | None]:
        return self._outputs

    def numel(self) -> int:
        """Elements of output 0 (the wrapper skips the impl when there are none)."""
        t = self._outputs[0] if self._outputs else None
        return 1 if t is None else t.numel()

    def finish(self) -> None:
        """Copy proxies back into the caller's outputs (none here; TensorIterator has temporaries)."""
