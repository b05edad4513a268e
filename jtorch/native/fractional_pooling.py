"""Fractional max pooling (ATen's FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp): each plane's
windows start at pseudo-random offsets drawn from its random_samples, by torch's formula
(generate_intervals, computed in the input's dtype as torch does); each output is the maximum of
its kernel-sized window and its flat index in the plane. The forward gathers the windows and takes
their maximum with existing operators (so every backend runs it); the backward scatters the gradient
to the saved indices with the backend's max-pooling backward kernel. Checks and texts are torch's.
A window holding a NaN gives the first NaN's index where torch gives the last one's.
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import dtypes as _dt
from ..geometry import shape_str
from ..structured.meta import allocate
from ..tensor import Tensor
from .factories import aten
from .pooling import _backend_of, _contiguous, _lst
from .registry import declare

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(sample: Tensor, size: int, out: int, pool: int) -> Tensor:
    """generate_intervals for a (..,) batch of samples: the (.., out) window starts, in the
    samples' dtype like torch's float arithmetic, truncated to int64."""
    starts = sample.new_zeros(sample.shape + (out,), dtype=_dt.int64)
    if out > 1:
        alpha = sample.new_full((), size - pool) / (out - 1)
        i = aten("arange")(out, dtype=sample.dtype, device=sample.device)
        starts = ((i + sample.unsqueeze(-1)) * alpha).to(_dt.int64) - (sample * alpha).to(_dt.int64).unsqueeze(-1)
    if out > 0:
        starts[..., out - 1] = size - pool
    return starts


def _check(self: Tensor, kernel_size: Sequence[int], output_size: Sequence[int], samples: Tensor, nd: int) -> tuple:
    name = f"fractional_max_pool{nd}d"
    fn = name + ("()" if nd == 2 else "_out()")
    kind = "Ints" if nd == 2 else "three Ints"
    k, o = _lst(kernel_size), _lst(output_size)
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {kind}")
    if len(o) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {kind}")
    if self.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape_str(self._size)}")
    for i in range(1, self.dim()):
        if self._size[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{shape_str(self._size)} with dimension {i} being empty.")
    sizes = self._size[-nd:]
    for axis, kk, oo, ii in zip(_AXES[nd], k, o, sizes):
        if (oo + kk - 1 > ii) if nd == 2 else (oo + kk - 1 >= ii):
            raise RuntimeError(f"{fn}: pool {axis} {kk} too large relative to input {axis} {ii}")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    n = self._size[0] if self.dim() == nd + 2 else 1
    if samples._size[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples._size[1] != self._size[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples._size[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples._size[2]}.")
    if samples.dtype is not self.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    return tuple(k), tuple(o), n


def _fractional(self: Tensor, kernel_size: Sequence[int], output_size: Sequence[int], samples: Tensor,
                nd: int) -> tuple:
    k, o, n = _check(self, kernel_size, output_size, samples, nd)
    size = self._size[:-nd] + o
    out = allocate(size, None, self.dtype, self._device)
    ind = allocate(size, None, _dt.int64, self._device)
    if self._device.type == "meta" or out.numel() == 0:
        return out, ind
    x = self if self.dim() == nd + 2 else self.unsqueeze(0)
    c, sizes = x.shape[1], tuple(x.shape[2:])
    s = samples[:n]
    # the samples hold (w, h) for 2-d planes and (t, h, w) for 3-d volumes
    order = (1, 0) if nd == 2 else (0, 1, 2)
    # flat index of every window element: (N, C, *o, *k), from each dim's starts plus the offsets
    flat = None
    stride = 1
    for d in reversed(range(nd)):
        starts = _intervals(s[:, :, order[d]], sizes[d], o[d], k[d])  # (N, C, o_d)
        idx = starts.reshape((n, c) + tuple(o[d] if e == d else 1 for e in range(nd)) + (1,) * nd)
        off = aten("arange")(k[d], device=self.device).reshape((1, 1) + (1,) * nd + tuple(
            k[d] if e == d else 1 for e in range(nd)))
        term = (idx + off) * stride
        flat = term if flat is None else flat + term
        stride *= sizes[d]
    assert flat is not None
    flat = flat.expand((n, c) + o + k).reshape(n, c, -1)
    windows = x.reshape(n, c, -1).gather(2, flat).reshape((n, c) + o + (-1,))
    vals, pos = windows.max(-1)
    where = flat.reshape((n, c) + o + (-1,)).gather(-1, pos.unsqueeze(-1)).squeeze(-1)
    out.copy_(vals.reshape(size))
    ind.copy_(where.reshape(size))
    return out, ind


def _fractional_backward(grad_output: Tensor, self: Tensor, indices: Tensor, nd: int) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        def lead(t: Tensor) -> Tensor:  # (N, C, 1, H, W) for 2-d planes: the volume kernel's layout
            t = t if t.dim() == nd + 2 else t.unsqueeze(0)
            return t.unsqueeze(2) if nd == 2 else t

        _backend_of(self).max_pool3d_backward(_contiguous(lead(grad_output)), _contiguous(lead(indices)), lead(gin))
    return gin


declare("fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, Tensor random_samples) "
        "-> (Tensor, Tensor)", variants="").impl_backends(
    lambda self, kernel_size, output_size, random_samples: _fractional(self, kernel_size, output_size,
                                                                       random_samples, 2))
declare("fractional_max_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] output_size, "
        "Tensor indices) -> Tensor", variants="").impl_backends(
    lambda grad_output, self, kernel_size, output_size, indices: _fractional_backward(grad_output, self, indices, 2))
declare("fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, Tensor random_samples) "
        "-> (Tensor, Tensor)", variants="").impl_backends(
    lambda self, kernel_size, output_size, random_samples: _fractional(self, kernel_size, output_size,
                                                                       random_samples, 3))
declare("fractional_max_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] output_size, "
        "Tensor indices) -> Tensor", variants="").impl_backends(
    lambda grad_output, self, kernel_size, output_size, indices: _fractional_backward(grad_output, self, indices, 3))
