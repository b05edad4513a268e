"""nn.functional: padding, interpolation, grid sampling, unfold/fold front ends and pixel shuffles
(torch/nn/functional.py's front ends over the aten operators of jtorch/native/padding.py,
upsample.py, grid_sample.py, pixel_shuffle.py)."""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import jtorch

from ...tensor import Tensor

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "grid_sample", "affine_grid",
           "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]


def _aten() -> Any:
    return jtorch.ops.aten


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """torch._C._nn.pad: the aten pad composite (constant_pad_nd, reflection_padNd, replication_padNd,
    _pad_circular)."""
    return _aten().pad.default(input, list(pad), mode, value)


def _is_integer(x: Any) -> bool:
    return isinstance(x, int) or (isinstance(x, Tensor) and not x.is_floating_point() and x.dim() == 0)


_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# (input dim, mode) -> the aten operator F.interpolate calls, and whether it takes align_corners
_UPSAMPLE = {(3, "nearest"): ("upsample_nearest1d", False), (4, "nearest"): ("upsample_nearest2d", False),
             (5, "nearest"): ("upsample_nearest3d", False), (3, "nearest-exact"): ("_upsample_nearest_exact1d", False),
             (4, "nearest-exact"): ("_upsample_nearest_exact2d", False),
             (5, "nearest-exact"): ("_upsample_nearest_exact3d", False), (3, "linear"): ("upsample_linear1d", True),
             (4, "bilinear"): ("upsample_bilinear2d", True), (5, "trilinear"): ("upsample_trilinear3d", True),
             (4, "bicubic"): ("upsample_bicubic2d", True)}
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate: sizes and scales normalised as torch's front end does, then the
    upsample operator of the mode (adaptive average pooling for "area")."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size: Any = None
    scale_factors: Any = None
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by jtorch")
    if output_size is not None:
        output_size = [int(s) for s in output_size]
    if scale_factors is not None:
        scale_factors = [float(s) for s in scale_factors]
    op = _UPSAMPLE.get((input.dim(), mode))
    if op is not None:
        name, aligned = op
        fn = getattr(_aten(), name).vec
        if aligned:
            return fn(input, output_size, align_corners, scale_factors)
        return fn(input, output_size, scale_factors)
    if mode == "area" and input.dim() in (3, 4, 5):
        pool = {3: "adaptive_avg_pool1d", 4: "adaptive_avg_pool2d", 5: "adaptive_avg_pool3d"}[input.dim()]
        return getattr(_aten(), pool).default(input, output_size)  # the aten operator F.adaptive_avg_pool* calls
    if mode in _NEEDS and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_INTERP_MODES} (got {mode})")


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    return _aten().pixel_shuffle.default(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    return _aten().pixel_unshuffle.default(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return _aten().channel_shuffle.default(input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return _aten().native_channel_shuffle.default(input, groups)


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample "
                  "for details.")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return jtorch.grid_sampler(input, grid, GRID_SAMPLE_INTERPOLATION_MODES[mode],
                               GRID_SAMPLE_PADDING_MODES[padding_mode], align_corners)


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return jtorch.affine_grid_generator(theta, size, align_corners)
