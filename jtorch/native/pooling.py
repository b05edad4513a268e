"""Pooling (ATen's DilatedMaxPool2d.cpp, AveragePool2d.cpp, AdaptiveAveragePooling.cpp,
AdaptiveMaxPooling2d.cpp, MaxPooling.cpp, Pool.h): max_pool2d_with_indices, avg_pool2d,
_adaptive_avg_pool2d, adaptive_max_pool2d and their backward operators, with kernels behind the
backend's pooling methods; max_pool1d/2d, avg_pool1d, adaptive_avg_pool1d/2d are the composites torch
has over them (1-d pooling runs as 2-d pooling over a height of 1). Shapes and checks are torch's
(pooling_output_shape, pool2d_shape_check), texts included. Operators that torch binds only in
torch._C._nn (or not at all) get no jtorch.* binding (variants=""): nn.functional reaches them as
jtorch.ops.aten.<name>.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str
from ..structured.meta import allocate
from ..tensor import Tensor
from .factories import aten
from .registry import declare


def _backend_of(t: Tensor) -> Any:
    return backend(t._device.type)


def _contiguous(t: Tensor) -> Tensor:
    return t if t.is_contiguous() else t.contiguous()


def _4d(t: Tensor) -> Tensor:
    return t if t.dim() == 4 else t.unsqueeze(0)


def pooling_output_shape(size: int, k: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape (Pool.h), checks included."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} "
                           f"and dilation={dilation}")
    out = (size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _shape_check(x: Tensor, k: tuple, s: tuple, p: tuple, d: tuple, oh: int, ow: int) -> None:
    """pool2d_shape_check (NCHW)."""
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    sz = x._size
    valid = sz[1] != 0 and sz[2] != 0
    if not ((len(sz) == 3 and sz[0] != 0 and valid) or (len(sz) == 4 and valid and sz[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{shape_str(sz)}")
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                           f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Given input size: ({sz[-3]}x{sz[-2]}x{sz[-1]}). Calculated output size: ({sz[-3]}x{oh}x"
                           f"{ow}). Output size is too small")


def _lst(v: Any) -> list:
    """An int[N] argument as a list (the operator handles take a bare int too)."""
    return [v] if isinstance(v, int) else list(v)


def _params(name: str, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
            dilation: Sequence[int] | None) -> tuple:
    kernel_size, stride, padding = _lst(kernel_size), _lst(stride), _lst(padding)
    if len(kernel_size) not in (1, 2):
        raise RuntimeError(f"{name}: kernel_size must either be a single int, or a tuple of two ints")
    k = (kernel_size[0], kernel_size[-1])
    if len(stride) not in (0, 1, 2):
        raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
    s = k if not stride else (stride[0], stride[-1])
    if len(padding) not in (1, 2):
        raise RuntimeError(f"{name}: padding must either be a single int, or a tuple of two ints")
    p = (padding[0], padding[-1])
    d = (1, 1)
    if dilation is not None:
        dilation = _lst(dilation)
        if len(dilation) not in (1, 2):
            raise RuntimeError(f"{name}: dilation must be either a single int, or a tuple of two ints")
        d = (dilation[0], dilation[-1])
    return k, s, p, d


def _out_hw(x: Tensor, k: tuple, s: tuple, p: tuple, d: tuple, ceil_mode: bool) -> tuple:
    if x.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    oh = pooling_output_shape(x._size[-2], k[0], p[0], s[0], d[0], ceil_mode)
    ow = pooling_output_shape(x._size[-1], k[1], p[1], s[1], d[1], ceil_mode)
    _shape_check(x, k, s, p, d, oh, ow)
    return oh, ow


# ---- max pooling ----------------------------------------------------------------------------------
def _max_pool2d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                             padding: Sequence[int] = (0,), dilation: Sequence[int] = (1,),
                             ceil_mode: bool = False) -> tuple:
    k, s, p, d = _params("max_pool2d", kernel_size, stride, padding, dilation)
    oh, ow = _out_hw(self, k, s, p, d, ceil_mode)
    size = self._size[:-2] + (oh, ow)
    out = allocate(size, None, self.dtype, self._device)
    ind = allocate(size, None, _dt.int64, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).max_pool2d(_contiguous(_4d(self)), k, s, p, d, _4d(out), _4d(ind))
    return out, ind


def _max_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                         padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool, indices: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).max_pool2d_backward(_contiguous(_4d(grad_output)), _contiguous(_4d(indices)), _4d(gin))
    return gin


declare("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
        "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", variants="").impl_backends(
    _max_pool2d_with_indices)
declare("max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
        "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor", variants="").impl_backends(
    _max_pool2d_backward)


@declare("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
         "bool ceil_mode=False) -> Tensor").impl("CompositeImplicitAutograd")
def max_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               dilation: Sequence[int] = (1,), ceil_mode: bool = False) -> Tensor:
    return aten("max_pool2d_with_indices")(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _check_1d(self: Tensor, name: str) -> None:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{shape_str(self._size)}")


def _one(v: Sequence[int], default: int) -> int:
    v = _lst(v)
    return v[0] if v else default


@declare("max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
         "int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)").impl("CompositeImplicitAutograd")
def max_pool1d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                            padding: Sequence[int] = (0,), dilation: Sequence[int] = (1,),
                            ceil_mode: bool = False) -> tuple:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() input tensor must have 2 or 3 dimensions but got {self.dim()}")
    k = _one(kernel_size, 1)
    out, ind = aten("max_pool2d_with_indices")(self.unsqueeze(-2), [1, k], [1, _one(stride, k)],
                                               [0, _one(padding, 0)], [1, _one(dilation, 1)], ceil_mode)
    return out.squeeze(-2), ind.squeeze(-2)


@declare("max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], "
         "bool ceil_mode=False) -> Tensor").impl("CompositeImplicitAutograd")
def max_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               dilation: Sequence[int] = (1,), ceil_mode: bool = False) -> Tensor:
    _check_1d(self, "max_pool1d")
    k = _one(kernel_size, 1)
    s, p, d = _one(stride, k), _one(padding, 0), _one(dilation, 1)
    if k > 0 and s > 0 and d > 0 and 0 <= p <= ((k - 1) * d + 1) // 2:
        ow = pooling_output_shape(self._size[-1], k, p, s, d, ceil_mode)
        if ow <= 0:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


# ---- average pooling ------------------------------------------------------------------------------
def _avg_params(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                ceil_mode: bool, divisor_override: int | None) -> tuple:
    k, s, p, d = _params("avg_pool2d", kernel_size, stride, padding, None)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    self.size(-3)  # torch reads the plane count first: IndexError for a 1-d or 2-d input
    oh = pooling_output_shape(self._size[-2], k[0], p[0], s[0], 1, ceil_mode)
    ow = pooling_output_shape(self._size[-1], k[1], p[1], s[1], 1, ceil_mode)
    _shape_check(self, k, s, p, d, oh, ow)
    return k, s, p, oh, ow


def _avg_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
                ceil_mode: bool = False, count_include_pad: bool = True,
                divisor_override: int | None = None) -> Tensor:
    k, s, p, oh, ow = _avg_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    out = allocate(self._size[:-2] + (oh, ow), None, self.dtype, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).avg_pool2d(_contiguous(_4d(self)), k, s, p, bool(count_include_pad),
                                     divisor_override or 0, _4d(out))
    return out


def _avg_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                         padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                         divisor_override: int | None) -> Tensor:
    k, s, p, oh, ow = _avg_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).avg_pool2d_backward(_contiguous(_4d(grad_output)), k, s, p, bool(count_include_pad),
                                              divisor_override or 0, _4d(gin))
    return gin


declare("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor", variants="").impl_backends(_avg_pool2d)
declare("avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
        "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", variants="").impl_backends(
    _avg_pool2d_backward)


@declare("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, "
         "bool count_include_pad=True) -> Tensor").impl("CompositeImplicitAutograd")
def avg_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {self.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for avg_pool1d)")
    k = _one(kernel_size, 1)
    out = aten("avg_pool2d")(self.unsqueeze(-2), [1, k], [1, _one(stride, k)], [0, _one(padding, 0)], ceil_mode,
                             count_include_pad)
    return out.squeeze(-2)


# ---- adaptive average pooling ---------------------------------------------------------------------
def _adaptive_check(self: Tensor, output_size: Sequence[int]) -> tuple:
    output_size = _lst(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    nd = self.dim()
    if nd not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape_str(self._size)}")
    for i in (-2, -1):
        if self._size[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_str(self._size)} with dimension {i + nd} being empty")
    return output_size[0], output_size[1]


def _adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    oh, ow = _adaptive_check(self, output_size)
    out = allocate(self._size[:-2] + (oh, ow), None, self.dtype, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).adaptive_avg_pool2d(_contiguous(_4d(self)), _4d(out))
    return out


def _adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():
        _backend_of(self).adaptive_avg_pool2d_backward(_contiguous(_4d(grad_output)), _4d(gin))
    return gin


declare("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor").impl_backends(_adaptive_avg_pool2d)
declare("_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor", variants="").impl_backends(
    _adaptive_avg_pool2d_backward)


@declare("adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", variants="").impl(
    "CompositeImplicitAutograd")
def adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    output_size = _lst(output_size) * (2 if isinstance(output_size, int) else 1)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    if output_size == [1, 1]:  # torch: a mean over the plane, cheaper (its grad_fn is MeanBackward1)
        return self.mean([-1, -2], keepdim=True)
    return aten("_adaptive_avg_pool2d")(self, output_size)


@declare("adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor").impl("CompositeImplicitAutograd")
def adaptive_avg_pool1d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d() argument 'input' (position 1) must be 2D or 3D tensor, but got "
                           f"{self.dim()}D tensor")
    out = adaptive_avg_pool2d(self.unsqueeze(-2), [1, _one(output_size, 1)])
    return out.squeeze(-2)


# ---- adaptive max pooling -------------------------------------------------------------------------
def _adaptive_max_pool2d(self: Tensor, output_size: Sequence[int]) -> tuple:
    nd = self.dim()
    if nd not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {shape_str(self._size)}")
    for i in (-2, -1):
        if self._size[i] <= 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_str(self._size)} with dimension {i + nd} being empty")
    output_size = _lst(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    size = self._size[:-2] + tuple(output_size)
    if any(v < 0 for v in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {shape_str(size)}")
    out = allocate(size, None, self.dtype, self._device)
    ind = allocate(size, None, _dt.int64, self._device)
    if self._device.type != "meta" and out.numel():
        _backend_of(self).adaptive_max_pool2d(_contiguous(_4d(self)), _4d(out), _4d(ind))
    return out, ind


def _adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    gin = allocate(self._size, None, grad_output.dtype, self._device)
    if self._device.type != "meta" and gin.numel():  # the indices are flat per plane, as max pooling's
        _backend_of(self).max_pool2d_backward(_contiguous(_4d(grad_output)), _contiguous(_4d(indices)), _4d(gin))
    return gin


declare("adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)", variants="").impl_backends(
    _adaptive_max_pool2d)
declare("adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
        variants="").impl_backends(
    _adaptive_max_pool2d_backward)


@declare("adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)").impl("CompositeImplicitAutograd")
def adaptive_max_pool1d(self: Tensor, output_size: Sequence[int]) -> tuple:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {self.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    for i in range(1, self.dim()):
        if self._size[i] <= 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_str(self._size)} with dimension {i} being empty")
    output_size = _lst(output_size)
    if len(output_size) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    out, ind = aten("adaptive_max_pool2d")(self.unsqueeze(-2), [1, output_size[0]])
    return out.squeeze(-2), ind.squeeze(-2)
