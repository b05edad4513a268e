"""3-d pooling (ATen's DilatedMaxPool3d.cpp, AveragePool3d.cpp, AdaptiveAveragePooling3d.cpp,
AdaptiveMaxPooling3d.cpp, Pool.h's pool3d_shape_check): max_pool3d_with_indices, avg_pool3d,
_adaptive_avg_pool3d, adaptive_max_pool3d, their backward operators and the max_pool3d /
adaptive_avg_pool3d composites. The kernels are the 2-d pooling kernels, which walk volumes (the
backend's *_pool3d methods); shapes, checks and texts are torch's.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..geometry import shape_str
from ..structured.meta import allocate
from ..tensor import Tensor
from .factories import aten
from .pooling import _backend_of, _contiguous, _lst, pooling_output_shape
from .registry import declare


def _5d(t: Tensor) -> Tensor:
    return t if t.dim() == 5 else t.unsqueeze(0)


def _triple(name: str, what: str, v: Any, allow_empty: bool = False) -> tuple:
    """An int[3] argument as a triple; () for an omitted (empty) stride."""
    v = _lst(v)
    if allow_empty and not v:
        return ()
    if len(v) not in (1, 3):
        raise RuntimeError(f"{name}: {what}")
    return (v[0], v[-2 if len(v) == 3 else 0], v[-1])


def _shape_check(x: Tensor, k: tuple, s: tuple, p: tuple, d: tuple, osz: tuple, fn: str,
                 check_input_size: bool = False) -> None:
    """pool3d_shape_check."""
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    sz = x._size
    nd = len(sz)
    if nd not in (4, 5):
        raise RuntimeError(f"{fn}: Expected 4D or 5D tensor for input, but got: {shape_str(sz)}")
    for i in range(nd):
        if nd == 5 and i == 0:
            continue
        if sz[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input's non-batch dimensions to have positive length, but input has "
                               f"a shape of {shape_str(sz)} and non-batch dimension {sz[i]} has length zero!")
    it, ih, iw = sz[-3:]
    if check_input_size and (it < k[0] or ih < k[1] or iw < k[2]):
        raise RuntimeError(f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {k[0]} kH: {k[1]} "
                           f"kW: {k[2]})")
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
                           f"kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    if min(osz) < 1:
        c = sz[-4]
        raise RuntimeError(f"Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: ({c}x{osz[0]}x{osz[1]}x"
                           f"{osz[2]}). Output size is too small")


# ---- max pooling ----------------------------------------------------------------------------------
def _max_params(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                dilation: Sequence[int], ceil_mode: bool) -> tuple:
    k = _triple("max_pool3d", "kernel_size must either be a single int, or a tuple of three ints", kernel_size)
    s = _triple("max_pool3d", "stride must either be omitted, a single int, or a tuple of three ints", stride,
                True) or k
    p = _triple("max_pool3d", "padding must either be a single int, or a tuple of three ints", padding)
    d = _triple("max_pool3d", "dilation must be either a single int, or a tuple of three ints", dilation)
    if self.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    osz = tuple(pooling_output_shape(self._size[-3 + i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3))
    _shape_check(self, k, s, p, d, osz, "max_pool3d_with_indices_out_cpu_template()")
    return k, s, p, d, osz


def _max_pool3d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                             padding: Sequence[int] = (0,), dilation: Sequence[int] = (1,),
                             ceil_mode: bool = False) -> tuple:
    k, s, p, d, osz = _max_params(self, kernel_size, stride, padding, dilation, ceil_mode)
    size = self._size[:-3] + osz
    out = allocate(size, None, self.dtype, self._device)
    ind = allocate(size, None, _dt.int64, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).max_pool3d(_contiguous(_5d(self)), k, s, p, d, _5d(out), _5d(ind))
    return out, ind


def _max_pool3d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                         padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool, indices: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).max_pool3d_backward(_contiguous(_5d(grad_output)), _contiguous(_5d(indices)), _5d(gin))
    return gin


declare("max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
        "int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", variants="").impl_backends(
    _max_pool3d_with_indices)
declare("max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, "
        "int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor", variants="").impl_backends(
    _max_pool3d_backward)


@declare("max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, "
         "bool ceil_mode=False) -> Tensor").impl("CompositeImplicitAutograd")
def max_pool3d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               dilation: Sequence[int] = (1,), ceil_mode: bool = False) -> Tensor:
    return aten("max_pool3d_with_indices")(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


# ---- average pooling ------------------------------------------------------------------------------
def _avg_params(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                ceil_mode: bool, divisor_override: int | None) -> tuple:
    k = _triple("avg_pool3d", "kernel_size must be a single int, or a tuple of three ints", kernel_size)
    s = _triple("avg_pool3d", "stride must be omitted, a single int, or a tuple of three ints", stride, True) or k
    p = _triple("avg_pool3d", "padding must be a single int, or a tuple of three ints", padding)
    if self.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    osz = tuple(pooling_output_shape(self._size[-3 + i], k[i], p[i], s[i], 1, ceil_mode) for i in range(3))
    _shape_check(self, k, s, p, (1, 1, 1), osz, "avg_pool3d()", True)
    return k, s, p, osz


def _avg_pool3d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
                ceil_mode: bool = False, count_include_pad: bool = True,
                divisor_override: int | None = None) -> Tensor:
    k, s, p, osz = _avg_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    if self.dtype is _dt.bfloat16 and self._device.type == "cpu":  # as torch's CPU kernel
        raise RuntimeError("\"avg_pool3d_out_frame\" not implemented for 'BFloat16'")
    out = allocate(self._size[:-3] + osz, None, self.dtype, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).avg_pool3d(_contiguous(_5d(self)), k, s, p, bool(count_include_pad), divisor_override or 0,
                                     _5d(out))
    return out


def _avg_pool3d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                         padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                         divisor_override: int | None) -> Tensor:
    k, s, p, osz = _avg_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).avg_pool3d_backward(_contiguous(_5d(grad_output)), k, s, p, bool(count_include_pad),
                                              divisor_override or 0, _5d(gin))
    return gin


declare("avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor", variants="").impl_backends(_avg_pool3d)
declare("avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, "
        "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", variants="").impl_backends(
    _avg_pool3d_backward)


# ---- adaptive pooling -----------------------------------------------------------------------------
def _adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    output_size = _lst(output_size)
    if len(output_size) not in (1, 3):
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 1 or 3")
    osz = (output_size[0], output_size[-2 if len(output_size) == 3 else 0], output_size[-1])
    nd = self.dim()
    if nd not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape_str(self._size)}")
    for i in (-3, -2, -1):
        if self._size[i] <= 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_str(self._size)} with dimension {i + nd} being empty")
    out = allocate(self._size[:-3] + osz, None, self.dtype, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).adaptive_avg_pool3d(_contiguous(_5d(self)), _5d(out))
    return out


def _adaptive_avg_pool3d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).adaptive_avg_pool3d_backward(_contiguous(_5d(grad_output)), _5d(gin))
    return gin


declare("_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor").impl_backends(_adaptive_avg_pool3d)
declare("_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor", variants="").impl_backends(
    _adaptive_avg_pool3d_backward)


@declare("adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor", variants="").impl(
    "CompositeImplicitAutograd")
def adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    output_size = _lst(output_size) * (3 if isinstance(output_size, int) else 1)
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if min(output_size) < 0:
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}, {output_size[2]}}}")
    if output_size == [1, 1, 1]:  # torch: a mean over the volume, cheaper (its grad_fn is MeanBackward1)
        return self.mean([-1, -2, -3], keepdim=True)
    return aten("_adaptive_avg_pool3d")(self, output_size)


def _adaptive_max_pool3d(self: Tensor, output_size: Sequence[int]) -> tuple:
    nd = self.dim()
    if nd not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {shape_str(self._size)}")
    for i in range(1, nd):
        if self._size[i] <= 0:
            raise RuntimeError("adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_str(self._size)} with dimension {i} being empty")
    output_size = _lst(output_size)
    if len(output_size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    size = self._size[:-3] + tuple(output_size)
    if any(v < 0 for v in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {shape_str(size)}")
    out = allocate(size, None, self.dtype, self._device)
    ind = allocate(size, None, _dt.int64, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).adaptive_max_pool3d(_contiguous(_5d(self)), _5d(out), _5d(ind))
    return out, ind


def _adaptive_max_pool3d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():  # the indices are flat per volume, as max pooling's
        _backend_of(self).max_pool3d_backward(_contiguous(_5d(grad_output)), _contiguous(_5d(indices)), _5d(gin))
    return gin


declare("adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)", variants="").impl_backends(
    _adaptive_max_pool3d)
declare("adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
        variants="").impl_backends(_adaptive_max_pool3d_backward)
