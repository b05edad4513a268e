"""pixel_shuffle, pixel_unshuffle (ATen's PixelShuffle.cpp) and channel_shuffle, native_channel_shuffle
(ChanelShuffle.cpp): rearrangements of the channel and spatial dims, each one view chain made
contiguous, with torch's checks and texts. Their gradients are the inverse rearrangement
(derivatives_resample.py); native_channel_shuffle has none in torch, and none here."""
from __future__ import annotations

from ..geometry import shape_str
from ..tensor import Tensor
from .registry import declare


def _check_shuffle(self: Tensor, r: int) -> None:
    if self.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = self._size[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")


@declare("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor").impl("CompositeExplicitAutograd")
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    r = upscale_factor
    _check_shuffle(self, r)
    *batch, c, h, w = self._size
    oc = c // (r * r)
    # (..., oc, r, r, h, w) -> (..., oc, h, r, w, r)
    n = len(batch)
    x = self.reshape(*batch, oc, r, r, h, w).permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.contiguous().view(*batch, oc, h * r, w * r)


@declare("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor").impl("CompositeExplicitAutograd")
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    r = downscale_factor
    if self.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = self._size
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    n = len(batch)
    # (..., c, oh, r, ow, r) -> (..., c, r, r, oh, ow)
    x = self.reshape(*batch, c, h // r, r, w // r, r).permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.contiguous().view(*batch, c * r * r, h // r, w // r)


def _channel_shuffle(self: Tensor, groups: int) -> Tensor:
    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{shape_str(self._size)}")
    c = self._size[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = self._size[0], self._size[2:]
    x = self.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.contiguous().view(self._size)


declare("channel_shuffle(Tensor self, SymInt groups) -> Tensor").impl("CompositeExplicitAutograd")(_channel_shuffle)
declare("native_channel_shuffle(Tensor self, SymInt groups) -> Tensor").impl("CompositeExplicitAutograd")(
    _channel_shuffle)
