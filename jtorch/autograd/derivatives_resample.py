"""Derivatives of padding, upsampling, grid sampling and pixel shuffling: part of the table in
derivatives.py (see its doc), in derivatives.yaml's order.

Node names are torch's (ConstantPadNdBackward0, ReflectionPad2DBackward0, UpsampleBilinear2DBackward0,
GridSampler2DBackward0, PixelShuffleBackward0, ...). Each backward operator is differentiable
through the forward operator (the pair is linear), so double backward works.
"""
from __future__ import annotations

from typing import Any

from .derivative import D


def _pad(name: str) -> list:
    return [D(name, self=f"aten.{name}_backward.default(grad, self, padding)"),
            D(f"{name}_backward", grad_output=f"aten.{name}.default(grad, padding)",
              self="grad.new_zeros(self.shape)")]


def _upsample(name: str, extra: str) -> list:
    return [D(name, self=f"aten.{name}_backward.default(grad, output_size, list(self.shape), {extra})"),
            D(f"{name}_backward", grad_output=f"aten.{name}.default(grad, output_size, {extra})")]


def _grid_sampler(name: str) -> dict[str, Any]:
    """One formula for both inputs (the backward operator returns both gradients)."""
    return {"input, grid": f"aten.{name}_backward.default(grad, input, grid, interpolation_mode, padding_mode, "
                           "align_corners, list(needs))"}


_NEAREST1, _NEAREST2, _NEAREST3 = "scales", "scales_h, scales_w", "scales_d, scales_h, scales_w"

ENTRIES = [
    D("constant_pad_nd", self="aten.constant_pad_nd.default(grad, [-p for p in pad], 0)"),
    *_pad("reflection_pad1d"), *_pad("reflection_pad2d"), *_pad("reflection_pad3d"),
    *_pad("replication_pad1d"), *_pad("replication_pad2d"), *_pad("replication_pad3d"),
    *_upsample("upsample_linear1d", "align_corners, scales"),
    *_upsample("upsample_bilinear2d", "align_corners, " + _NEAREST2),
    *_upsample("upsample_bicubic2d", "align_corners, " + _NEAREST2),
    *_upsample("upsample_trilinear3d", "align_corners, " + _NEAREST3),
    *_upsample("upsample_nearest1d", _NEAREST1),
    *_upsample("_upsample_nearest_exact1d", _NEAREST1),
    *_upsample("upsample_nearest2d", _NEAREST2),
    *_upsample("_upsample_nearest_exact2d", _NEAREST2),
    *_upsample("upsample_nearest3d", _NEAREST3),
    *_upsample("_upsample_nearest_exact3d", _NEAREST3),
    D("affine_grid_generator", theta="aten.affine_grid_generator_backward.default(grad, size, align_corners)"),
    D("grid_sampler_2d", **_grid_sampler("grid_sampler_2d")),
    D("grid_sampler_3d", **_grid_sampler("grid_sampler_3d")),
    D("channel_shuffle", self="aten.channel_shuffle.default(grad, grad.shape[1] // groups)"),
    D("pixel_shuffle", self="aten.pixel_unshuffle.default(grad, upscale_factor)"),
    D("pixel_unshuffle", self="aten.pixel_shuffle.default(grad, downscale_factor)"),
]

NON_DIFFERENTIABLE: frozenset = frozenset()
