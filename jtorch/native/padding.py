"""Padding (ATen's PadNd.cpp, ReflectionPad.cpp, ReplicationPadding.cpp, padding.h):
constant_pad_nd, reflection_pad1d/2d/3d, replication_pad1d/2d/3d and their backward operators,
and the composites _pad_circular, _pad_enum and pad (F.pad) that choose between them as torch does.

The reflect and replicate kernels map every output position of a padded dim to its input
position (ATen's index formulas, negative padding included) and gather along each padded dim
(jtorch/native/resample_taps.py); their backward operators scatter-add the gradient back.
Operators torch binds only in torch._C._nn get no jtorch.* binding (variants=""): nn.functional
reaches them as jtorch.ops.aten.<name>.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..geometry import shape_str
from ..tensor import Tensor
from .factories import aten
from .registry import composite_implicit_autograd, declare
from .resample_taps import gather, meta_out, scatter

# at::padding_mode
REFLECT, REPLICATE, CIRCULAR, CONSTANT = 0, 1, 2, 3
_MODE_NAMES = {REFLECT: "reflect", REPLICATE: "replicate", CIRCULAR: "circular", CONSTANT: "constant"}

_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


# ---- constant_pad_nd --------------------------------------------------------------------------------
@declare("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor").impl("CompositeExplicitAutograd")
def constant_pad_nd(self: Tensor, pad: Sequence[int], value: object = 0) -> Tensor:
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    l_inp, l_pad = self.dim(), len(pad) // 2
    l_diff = l_inp - l_pad
    if l_inp < l_pad:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)}while the input has {l_inp}dimensions.")
    c_input = self
    all_non_positive = True
    for i in range(l_diff, l_inp):
        p = 2 * (l_inp - i - 1)
        if pad[p] < 0:
            c_input = c_input.narrow(i, -pad[p], c_input.size(i) + pad[p])
        elif pad[p]:
            all_non_positive = False
        if pad[p + 1] < 0:
            c_input = c_input.narrow(i, 0, c_input.size(i) + pad[p + 1])
        elif pad[p + 1]:
            all_non_positive = False
    if all_non_positive:
        return c_input.clone()
    shape = list(self._size[:l_diff])
    for i in range(l_pad):
        p = len(pad) - (i + 1) * 2
        n = self._size[l_diff + i] + pad[p] + pad[p + 1]
        if n < 0:
            raise RuntimeError(f"The input size {self._size[l_diff + i]}, plus negative padding {pad[p]} and "
                               f"{pad[p + 1]} resulted in a negative output size, which is invalid. Check dimension "
                               f"{l_diff + i} of your input.")
        shape.append(n)
    out = aten("full")(shape, value, dtype=self.dtype, device=self._device)
    if self._device.type == "meta":
        return out
    c_out = out
    for i in range(l_diff, l_inp):
        p = 2 * (l_inp - i - 1)
        if pad[p] > 0:
            c_out = c_out.narrow(i, pad[p], c_out.size(i) - pad[p])
        if pad[p + 1] > 0:
            c_out = c_out.narrow(i, 0, c_out.size(i) - pad[p + 1])
    c_out.copy_(c_input)
    return out


# ---- reflection / replication ---------------------------------------------------------------------
def _source(n_in: int, left: int, right: int, reflect: bool) -> np.ndarray:
    """ATen's input position of each output position along one padded dim."""
    j = np.arange(n_in + left + right, dtype=np.int64)
    i_start, o_start = max(0, -left), max(0, left)
    if reflect:
        ip = np.where(j < left, 2 * left - j, np.where(j < n_in + left, j, 2 * (n_in + left - 1) - j))
    else:
        ip = np.where(j < left, left, np.where(j < n_in + left, j, n_in + left - 1))
    return ip - o_start + i_start


def _check_valid_input(x: Tensor, padding: Sequence[int], nd: int, reflect: bool) -> None:
    """padding::check_valid_input<nd>."""
    if len(padding) != 2 * nd:
        raise RuntimeError(f"padding size is expected to be {2 * nd}"
                           + (f", but got: {len(padding)}" if reflect else ""))
    sz = x._size
    batch = len(sz) == nd + 2
    ok = all(s != 0 for s in (sz[1:] if batch else sz)) and len(sz) in (nd + 1, nd + 2)
    if not ok:
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {shape_str(sz)}")


_AXES = "DHW"


def _pad_kernel(name: str, nd: int, reflect: bool):  # type: ignore[no-untyped-def]
    def forward(self: Tensor, padding: Sequence[int]) -> Tensor:
        padding = list(padding)
        _check_valid_input(self, padding, nd, reflect)
        if self.dtype is _dt.bool:
            raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
        dims = list(range(self.dim() - nd, self.dim()))  # D, H, W order
        pairs = [(padding[2 * (nd - 1 - k)], padding[2 * (nd - 1 - k) + 1]) for k in range(nd)]
        if reflect:
            for k, (d, (lo, hi)) in reversed(list(enumerate(zip(dims, pairs)))):
                if lo >= self._size[d] or hi >= self._size[d]:
                    raise RuntimeError(f"Argument #{4 + 2 * (nd - 1 - k)}: Padding size should be less than the "
                                       f"corresponding input dimension, but got: padding ({lo}, {hi}) at dimension "
                                       f"{d} of input {shape_str(self._size)}")
        out_sizes = [self._size[d] + lo + hi for d, (lo, hi) in zip(dims, pairs)]
        if any(o < 1 for o in out_sizes) and (nd == 1 or not reflect):
            axes = _AXES[3 - nd:]
            ins = " ".join(f"{a}: {self._size[d]}" for a, d in zip(axes, dims))
            outs = " ".join(f"{a}: {o}" for a, o in zip(axes, out_sizes))
            if any(o < 0 for o in out_sizes) and nd > 1:
                shape = list(self._size[:-nd]) + out_sizes
                raise RuntimeError(f"Trying to create tensor with negative dimension {min(out_sizes)}: {shape}")
            raise RuntimeError(f"input ({ins}) is too small. Calculated output {outs}")
        if self._device.type == "meta":
            return meta_out(self, self._size[:-nd] + tuple(out_sizes))
        out = self
        for d, (lo, hi) in zip(dims, pairs):
            out = gather(out, d, [(_source(self._size[d], lo, hi, reflect), None)])
        return out.contiguous()

    def backward(grad_output: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
        padding = list(padding)
        dims = list(range(self.dim() - nd, self.dim()))
        pairs = [(padding[2 * (nd - 1 - k)], padding[2 * (nd - 1 - k) + 1]) for k in range(nd)]
        if self._device.type == "meta":
            return meta_out(grad_output, self._size)
        g = grad_output
        for d, (lo, hi) in reversed(list(zip(dims, pairs))):
            g = scatter(g, d, self._size[d], [(_source(self._size[d], lo, hi, reflect), None)])
        return g.contiguous()

    return forward, backward


def _declare_pad(name: str, nd: int, reflect: bool) -> None:
    fwd, bwd = _pad_kernel(name, nd, reflect)
    declare(f"{name}(Tensor self, SymInt[{2 * nd}] padding) -> Tensor", variants="").impl_backends(fwd)
    declare(f"{name}_backward(Tensor grad_output, Tensor self, SymInt[{2 * nd}] padding) -> Tensor",
            variants="").impl_backends(bwd)


for _nd in (1, 2, 3):
    _declare_pad(f"reflection_pad{_nd}d", _nd, True)
    _declare_pad(f"replication_pad{_nd}d", _nd, False)


# ---- circular (a composite: its graph is CopySlices over slices, as torch's) -------------------------
@composite_implicit_autograd("_pad_circular(Tensor self, SymInt[] pad) -> Tensor", variants="")
def _pad_circular(self: Tensor, pad: Sequence[int]) -> Tensor:
    pad = list(pad)
    in_shape = self._size
    ndim = len(in_shape)
    n_padded = len(pad) // 2
    n_non = ndim - n_padded
    if n_non not in (1, 2):
        raise RuntimeError("Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to "
                           f"padding of length {(ndim - 1) * 2} or {(ndim - 2) * 2} respectively but got {len(pad)}")
    out_shape = list(in_shape[:n_non])
    for i in range(n_padded):
        lo, hi = pad[2 * (n_padded - i - 1)], pad[2 * (n_padded - i - 1) + 1]
        size = in_shape[n_non + i]
        out_shape.append(size + lo + hi)
        if not (lo <= size and hi <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = self.new_empty(out_shape)
    sl = aten("slice.Tensor")
    out_slice, in_slice = out, self
    for i in range(n_padded):
        dim = n_padded - i + n_non - 1
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_slice = sl(out_slice, dim, max(lo, 0), out_shape[dim] - max(hi, 0))
        in_slice = sl(in_slice, dim, max(-lo, 0), in_shape[dim] - max(-hi, 0))
    out_slice.copy_(in_slice)
    # then the left and the right borders, one padded dim at a time (corners are written twice)
    for i in range(n_padded):
        dim = n_padded - i + n_non - 1
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            sl(out, dim, 0, lo).copy_(sl(out, dim, out_shape[dim] - lo - max(hi, 0), out_shape[dim] - max(hi, 0)))
        if hi > 0:
            sl(out, dim, out_shape[dim] - hi, out_shape[dim]).copy_(sl(out, dim, max(lo, 0), max(lo, 0) + hi))
    return out


# ---- the front ends -----------------------------------------------------------------------------------
@composite_implicit_autograd("_pad_enum(Tensor self, SymInt[] pad, int mode, float? value=None) -> Tensor",
                             variants="")
def _pad_enum(self: Tensor, pad: Sequence[int], mode: int, value: float | None = None) -> Tensor:
    pad = list(pad)
    dim = self.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > dim * 2:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {dim}")
    if mode == CONSTANT:
        return aten("constant_pad_nd")(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{_MODE_NAMES[mode]}\" doesn't take in value argument")
    nd = len(pad) // 2
    if nd in (1, 2, 3) and dim in (nd + 1, nd + 2):
        if mode == CIRCULAR:
            return aten("_pad_circular")(self, pad)
        return aten(f"{'reflection' if mode == REFLECT else 'replication'}_pad{nd}d")(self, pad)
    raise NotImplementedError(f"Padding size {len(pad)} is not supported for {dim}D input tensor.\n{_COMBINATIONS}")


_MODES = {"reflect": REFLECT, "constant": CONSTANT, "replicate": REPLICATE, "circular": CIRCULAR}


@composite_implicit_autograd("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
                             variants="")
def pad(self: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    m = _MODES.get(mode)
    if m is None:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return aten("_pad_enum")(self, pad, m, value)
