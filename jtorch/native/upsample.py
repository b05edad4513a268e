"""Upsampling (ATen's UpSample.h, UpSample.cpp, UpSampleKernel.cpp, UpSampleBicubic2d.cpp):
upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d,
upsample_bicubic2d, upsample_trilinear3d, their backward operators and the `.vec` composites that
F.interpolate calls (output_size or scale_factors).

The source positions and weights along each spatial dim are ATen's (nearest_idx,
area_pixel_compute_scale / _source_index, guard_index_and_lambda, the cubic convolution
coefficients with A = -0.75), computed on the host in torch's opmath type (float32 for float32
input) so that the chosen neighbours are torch's; the interpolation is separable and runs one
spatial dim at a time, the last dim first as ATen's nested loop does (resample_taps.py).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..geometry import shape_str
from ..tensor import Tensor
from .factories import aten
from .registry import declare
from .resample_taps import Tap, gather, meta_out, scatter

_SCALES = {1: ["scales"], 2: ["scales_h", "scales_w"], 3: ["scales_d", "scales_h", "scales_w"]}
_AXES = {1: "W", 2: "HW", 3: "DHW"}


def _scales_value(scale: float | None, n_in: int, n_out: int, T: type) -> np.floating:
    """compute_scales_value: 1 / scale when given (> 0), else in / out, in T."""
    if scale is not None and scale > 0:
        return T(1.0 / scale)
    return T(T(n_in) / T(n_out))


def _area_scale(n_in: int, n_out: int, align_corners: bool, scale: float | None, T: type) -> np.floating:
    if align_corners:
        return T(T(n_in - 1) / T(n_out - 1)) if n_out > 1 else T(0)
    return _scales_value(scale, n_in, n_out, T)


def _source_index(scale: np.floating, n_out: int, align_corners: bool, cubic: bool, T: type) -> np.ndarray:
    j: np.ndarray = np.arange(n_out).astype(T)
    if align_corners:
        return (scale * j).astype(T)
    src = (scale * (j + T(0.5)) - T(0.5)).astype(T)
    return src if cubic else np.maximum(src, T(0))


def _cubic1(x: np.ndarray, A: float) -> np.ndarray:
    return ((A + 2) * x - (A + 3)) * x * x + 1


def _cubic2(x: np.ndarray, A: float) -> np.ndarray:
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A


def taps(kind: str, n_in: int, n_out: int, align_corners: bool, scale: float | None, T: type) -> list[Tap]:
    """Every output position's input positions and weights along one dim, as ATen computes them."""
    j = np.arange(n_out, dtype=np.int64)
    if kind == "nearest":
        if n_out == n_in:
            return [(j, None)]
        if n_out == 2 * n_in:
            return [(j >> 1, None)]
        s = _scales_value(scale, n_in, n_out, np.float32)
        idx = np.floor((j.astype(np.float32) * s).astype(np.float32)).astype(np.int64)
        return [(np.minimum(idx, n_in - 1), None)]
    if kind == "nearest_exact":
        s = _scales_value(scale, n_in, n_out, np.float32)
        # (dst + 0.5) * scale in double, then floorf of it as a float
        idx = np.floor(((j + 0.5) * np.float64(s)).astype(np.float32)).astype(np.int64)
        return [(np.minimum(idx, n_in - 1), None)]
    s = _area_scale(n_in, n_out, align_corners, scale, T)
    if kind == "linear":
        if n_out == n_in:
            return [(j, np.ones(n_out, T))]
        real = _source_index(s, n_out, align_corners, False, T)
        i0 = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
        lam1 = np.clip(real - i0.astype(T), T(0), T(1)).astype(T)
        i1 = i0 + (i0 < n_in - 1)
        return [(i0, (T(1) - lam1).astype(T)), (i1, lam1)]
    real = _source_index(s, n_out, align_corners, True, T)
    i0 = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
    t = np.clip(real - i0.astype(T), T(0), T(1)).astype(T)
    A, x2 = T(-0.75), (T(1) - t).astype(T)
    w = [_cubic2(t + T(1), A), _cubic1(t, A), _cubic1(x2, A), _cubic2(x2 + T(1), A)]
    return [(np.clip(i0 - 1 + k, 0, n_in - 1), w[k].astype(T)) for k in range(4)]


def _opmath(dtype: _dt.dtype) -> type:
    return np.float64 if dtype is _dt.float64 else np.float32


def _common_check(name: str, nd: int, input_size: Sequence[int], output_size: Sequence[int]) -> None:
    """upsample_{1,2,3}d_common_check."""
    if len(output_size) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(output_size)}")
    if len(input_size) != nd + 2:
        raise RuntimeError(f"It is expected input_size equals to {nd + 2}, but got size {len(input_size)}")
    ins, outs = list(input_size[2:]), list(output_size)
    if not all(s > 0 for s in ins + outs):
        fmt = ", ".join
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + fmt(f"{a}: {s}" for a, s in zip(_AXES[nd], ins))
                           + (") and output (" if nd == 1 else ") output (")
                           + fmt(f"{a}: {s}" for a, s in zip(_AXES[nd], outs)) + ")")


def _forward(kind: str, nd: int, self: Tensor, output_size: Sequence[int], align_corners: bool,
             scales: Sequence[float | None]) -> Tensor:
    output_size = list(output_size)
    _common_check(kind, nd, self._size, output_size)
    sz = self._size
    if not (self.dim() == nd + 2 and all(s != 0 for s in sz[1:])):
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with sizes {shape_str(sz)}")
    if self._device.type == "meta" or self.numel() == 0:  # an empty batch gives an empty output
        return meta_out(self, sz[:2] + tuple(output_size))
    T = _opmath(self.dtype)
    out = self
    for k in reversed(range(nd)):  # the last dim first (ATen's innermost loop)
        d = 2 + k
        out = gather(out, d, taps(kind, sz[d], output_size[k], align_corners, scales[k], T))
    if out.dtype is not self.dtype:
        out = out.to(self.dtype)
    return out.contiguous()


def _backward(kind: str, nd: int, grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
              align_corners: bool, scales: Sequence[float | None]) -> Tensor:
    output_size, input_size = list(output_size), list(input_size)
    _common_check(kind, nd, input_size, output_size)
    full = input_size[:2] + output_size
    if nd == 1:  # check_dim_size
        for i, n in enumerate(full):
            if grad_output.dim() != 3 or grad_output.size(i) != n:
                raise RuntimeError(f"Expected a tensor of dimension 3 and tensor.size[{i}] == {n} but got: dimension "
                                   f"{grad_output.dim()} and tensor.size[{i}] = {grad_output.size(i)}")
    if grad_output.dim() != nd + 2:
        raise RuntimeError(f"Expected grad_output to be a tensor of dimension {nd + 2} but got: dimension "
                           f"{grad_output.dim()}")
    for i, n in enumerate(full):
        if grad_output.size(i) != n:
            raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = {n} but "
                               f"got grad_output.size({i}) = {grad_output.size(i)}")
    if grad_output._device.type == "meta":
        return meta_out(grad_output, input_size)
    T = _opmath(grad_output.dtype)
    g = grad_output
    for k in range(nd):  # the adjoint: the dims in the opposite order
        d = 2 + k
        g = scatter(g, d, input_size[d], taps(kind, input_size[d], output_size[k], align_corners, scales[k], T))
    return g.contiguous()


def _vec_output_size(input: Tensor, output_size: Sequence[int] | None,
                     scale_factors: Sequence[float] | None) -> tuple[list[int], list[float | None]]:
    """upsample::compute_output_size and get_scale_value."""
    nd = input.dim() - 2
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != nd:
            raise RuntimeError("Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, "
                               "but got false.  (Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        return list(output_size), [None] * nd
    if scale_factors is not None:
        if len(scale_factors) != nd:
            raise RuntimeError("Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
                               "true, but got false.  (Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        return [int(float(input._size[i + 2]) * float(s)) for i, s in enumerate(scale_factors)], list(scale_factors)
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _declare(name: str, kind: str, nd: int, aligned: bool) -> None:
    scales = _SCALES[nd]
    sc = ", ".join(f"float? {s}=None" for s in scales)
    ac = "bool align_corners, " if aligned else ""
    n_in = nd + 2

    def fwd(self: Tensor, output_size: Sequence[int], *args: object) -> Tensor:
        align = bool(args[0]) if aligned else False
        rest = list(args[1:] if aligned else args)
        rest += [None] * (nd - len(rest))
        return _forward(kind, nd, self, output_size, align, rest)  # type: ignore[arg-type]

    def bwd(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int], *args: object) -> Tensor:
        align = bool(args[0]) if aligned else False
        rest = list(args[1:] if aligned else args)
        rest += [None] * (nd - len(rest))
        return _backward(kind, nd, grad_output, output_size, input_size, align, rest)  # type: ignore[arg-type]

    def vec(input: Tensor, output_size: Sequence[int] | None, *args: object) -> Tensor:
        align = args[0] if aligned else None
        scale_factors = args[-1]
        osize, sfs = _vec_output_size(input, output_size, scale_factors)  # type: ignore[arg-type]
        op = aten(name)
        return op(input, osize, align, *sfs) if aligned else op(input, osize, *sfs)

    declare(f"{name}.vec(Tensor input, SymInt[]? output_size, {ac}float[]? scale_factors) -> Tensor",
            variants="").impl("CompositeImplicitAutograd")(vec)
    declare(f"{name}(Tensor self, SymInt[{nd}] output_size, {ac}{sc}) -> Tensor", variants="").impl_backends(fwd)
    declare(f"{name}_backward(Tensor grad_output, SymInt[{nd}] output_size, SymInt[{n_in}] input_size, {ac}{sc}) "
            "-> Tensor", variants="").impl_backends(bwd)


for _nd in (1, 2, 3):
    _declare(f"upsample_nearest{_nd}d", "nearest", _nd, False)
    _declare(f"_upsample_nearest_exact{_nd}d", "nearest_exact", _nd, False)
_declare("upsample_linear1d", "linear", 1, True)
_declare("upsample_bilinear2d", "linear", 2, True)
_declare("upsample_trilinear3d", "linear", 3, True)
_declare("upsample_bicubic2d", "cubic", 2, True)
