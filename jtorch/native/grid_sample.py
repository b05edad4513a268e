"""Grid sampling (ATen's GridSampler.h, GridSampler.cpp, AffineGridGenerator.cpp): grid_sampler_2d,
grid_sampler_3d and their backward operators, the grid_sampler composite (F.grid_sample), and
affine_grid_generator (F.affine_grid) with its backward.

The kernels are written once over tensors (so they run on every backend and on meta): the
source coordinates are ATen's (grid_sampler_unnormalize, then the padding mode's clip or
reflection, each with its derivative, as the *_set_grad helpers compute it), and each corner of
the interpolation stencil (4 or 8 for bilinear, 1 for nearest, 16 for bicubic) is one gather of
the flattened input, its out-of-bounds samples weighted 0; a backend with the grid_sampler_2d
capability (the CPU's Numba loops) runs 2-d bilinear and nearest sampling itself. The backward scatter-adds the weighted
gradient into the input and sums the weight derivatives against the sampled values for the grid.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate
from ..tensor import Tensor
from .factories import aten
from .registry import declare
from .resample_taps import meta_out

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
_A = -0.75


# ---- source coordinates (each with its derivative with respect to the grid value) -----------------------
def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> tuple[Tensor, float]:
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(coord: Tensor, size: int) -> tuple[Tensor, Tensor]:
    """clip_coordinates_set_grad: clamp to [0, size - 1], derivative 0 where clamped."""
    inside = (coord > 0) & (coord < size - 1)
    return coord.clamp(0, size - 1), inside.to(coord.dtype)


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> tuple[Tensor, Tensor]:
    """reflect_coordinates_set_grad."""
    if twice_low == twice_high:
        return coord * 0, coord * 0
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    x = coord - lo
    sign = 1 - 2 * (x < 0).to(coord.dtype)
    x = x.abs()
    extra = x.fmod(span)
    flips = (x / span).floor()
    even = flips.remainder(2) == 0
    out = aten("where.self")(even, extra + lo, span - extra + lo)
    return out, aten("where.self")(even, sign, -sign)


def _compute_coordinates(coord: Tensor, size: int, padding_mode: int, align_corners: bool
                         ) -> tuple[Tensor, Tensor | None]:
    """compute_coordinates_set_grad: the padding mode applied to an unnormalised coordinate."""
    if padding_mode == BORDER:
        return _clip(coord, size)
    if padding_mode == REFLECTION:
        if align_corners:
            coord, g1 = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord, g1 = _reflect(coord, -1, 2 * size - 1)
        coord, g2 = _clip(coord, size)
        return coord, g1 * g2
    return coord, None


def _source(coord: Tensor, size: int, padding_mode: int, align_corners: bool) -> tuple[Tensor, Tensor | float]:
    """grid_sampler_compute_source_index_set_grad."""
    x, m = _unnormalize(coord, size, align_corners)
    x, g = _compute_coordinates(x, size, padding_mode, align_corners)
    return x, (m if g is None else g * m)


# ---- the stencil: per corner, flat input positions and weights (+ weight derivatives) ----------------
def _flat(positions: Sequence[Tensor], sizes: Sequence[int]) -> tuple[Tensor, Tensor]:
    """Linear index into the flattened spatial dims (clamped to 0 out of bounds) and the bounds mask."""
    valid: Tensor | None = None
    lin: Tensor | None = None
    for p, n in zip(positions, sizes):
        ok = (p >= 0) & (p < n)
        valid = ok if valid is None else valid & ok
        lin = p if lin is None else lin * n + p
    assert valid is not None and lin is not None
    return lin * valid, valid


def _cubic_coeffs(t: Tensor) -> list[Tensor]:
    x2 = 1 - t
    return [((_A * (t + 1) - 5 * _A) * (t + 1) + 8 * _A) * (t + 1) - 4 * _A,
            ((_A + 2) * t - (_A + 3)) * t * t + 1,
            ((_A + 2) * x2 - (_A + 3)) * x2 * x2 + 1,
            ((_A * (x2 + 1) - 5 * _A) * (x2 + 1) + 8 * _A) * (x2 + 1) - 4 * _A]


def _cubic_coeffs_grad(t: Tensor) -> list[Tensor]:
    """The coefficients' derivatives with respect to t, as minus get_cubic_coefficients_grad (which
    ATen's backward subtracts)."""
    x0, x1, x2, x3 = -1 - t, -t, 1 - t, 2 - t
    return [-c for c in _cubic_coeffs_grad_aten(x0, x1, x2, x3)]


def _cubic_coeffs_grad_aten(x0: Tensor, x1: Tensor, x2: Tensor, x3: Tensor) -> list[Tensor]:
    return [(-3 * _A * x0 - 10 * _A) * x0 - 8 * _A, (-3 * (_A + 2) * x1 - 2 * (_A + 3)) * x1,
            (3 * (_A + 2) * x2 - 2 * (_A + 3)) * x2, (3 * _A * x3 - 10 * _A) * x3 + 8 * _A]


def _stencil(grid: Tensor, sizes: Sequence[int], mode: int, padding_mode: int, align_corners: bool,
             want_grad: bool) -> tuple[list[tuple[Tensor, Tensor, list[Tensor]]], list[Tensor | float]]:
    """[(flat index, weight, [d weight / d coord per dim])] per corner, and the coordinate multipliers.
    Coordinates are in the input's dim order (D, H, W); the grid's last dim holds them as (x, y[, z])."""
    nd = len(sizes)
    coords = [grid.select(-1, nd - 1 - k) for k in range(nd)]  # D, H, W order
    if mode == BICUBIC:
        unnorm = [_unnormalize(c, n, align_corners) for c, n in zip(coords, sizes)]
        base = [s.floor() for s, _ in unnorm]
        ts = [s - b for (s, _), b in zip(unnorm, base)]
        co = [_cubic_coeffs(t) for t in ts]
        dco = [_cubic_coeffs_grad(t) for t in ts] if want_grad else []
        corners = []
        for j, i in itertools.product(range(4), range(4)):  # (row, column) taps
            ks = (j, i)
            pos = []
            for k, n in enumerate(sizes):
                p, _ = _compute_coordinates(base[k] + (ks[k] - 1), n, padding_mode, align_corners)
                pos.append(p.long())
            lin, valid = _flat(pos, sizes)
            w = co[0][j] * co[1][i] * valid
            dws = [dco[0][j] * co[1][i] * valid, co[0][j] * dco[1][i] * valid] if want_grad else []
            corners.append((lin, w, dws))
        return corners, [m for _, m in unnorm]
    src = [_source(c, n, padding_mode, align_corners) for c, n in zip(coords, sizes)]
    if mode == NEAREST:
        pos = [s.round().long() for s, _ in src]
        lin, valid = _flat(pos, sizes)
        return [(lin, valid.to(grid.dtype), [])], [m for _, m in src]
    base = [s.floor() for s, _ in src]
    fr = [s - b for (s, _), b in zip(src, base)]
    corners = []
    for bits in itertools.product((0, 1), repeat=nd):
        pos = [(b + bit).long() for b, bit in zip(base, bits)]
        lin, valid = _flat(pos, sizes)
        factors = [f if bit else 1 - f for f, bit in zip(fr, bits)]
        w = valid.to(grid.dtype)
        for f in factors:
            w = w * f
        dws = []
        if want_grad:
            for k in range(nd):
                d = valid.to(grid.dtype) * (1.0 if bits[k] else -1.0)
                for e, f in enumerate(factors):
                    if e != k:
                        d = d * f
                dws.append(d)
        corners.append((lin, w, dws))
    return corners, [m for _, m in src]


# ---- checks ---------------------------------------------------------------------------------------------
def _check(input: Tensor, grid: Tensor, interpolation_mode: int, nd: int) -> None:
    """check_grid_sampler_common and check_grid_sampler_2d / _3d."""
    if input._device != grid._device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input._device} and grid is on {grid._device}")
    if input.dtype is not grid.dtype:  # torch's CPU kernel reads the grid as the input's type first
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAME[input.dtype]} but found "
                           f"{SCALAR_TYPE_NAME[grid.dtype]}")
    if input._size[0] != grid._size[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {shape_str(input._size)} and grid with sizes {shape_str(grid._size)}")
    if grid._size[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {shape_str(grid._size)}")
    for i in range(2, input.dim()):
        if input._size[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {shape_str(input._size)} with dimension {i} being empty")
    if not (input.dim() == nd + 2 and input.dim() == grid.dim()):
        raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number of dimensions, but "
                           f"got input with sizes {shape_str(input._size)} and grid with sizes {shape_str(grid._size)}")
    if nd == 3 and interpolation_mode == BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _direct(input: Tensor, nd: int, mode: int) -> Any:
    """The backend when it samples 2-d bilinear / nearest grids itself (the CPU's loops), else None."""
    if nd != 2 or mode == BICUBIC or input.dtype not in (_dt.float32, _dt.float64):
        return None
    b = backend(input._device.type)
    return b if b.implements("grid_sampler_2d") else None


# ---- the operators ----------------------------------------------------------------------------------------
def _grid_sampler(nd: int):  # type: ignore[no-untyped-def]
    def forward(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> Tensor:
        if input.dim() >= 1 and grid.dim() >= 1:
            _check(input, grid, interpolation_mode, nd)
        n, c, sizes = input._size[0], input._size[1], input._size[2:]
        out_sp = grid._size[1:-1]
        if input._device.type == "meta" or input.numel() == 0 or grid.numel() == 0:
            return aten("zeros")((n, c) + out_sp, dtype=input.dtype, device=input._device)
        b = _direct(input, nd, interpolation_mode)
        if b is not None:
            sampled = allocate((n, c) + out_sp, None, input.dtype, input._device)
            b.grid_sampler_2d(input.contiguous(), grid.contiguous().view(n, -1, 2), interpolation_mode, padding_mode,
                              align_corners, sampled.view(n, c, -1))
            return sampled
        corners, _ = _stencil(grid, sizes, interpolation_mode, padding_mode, align_corners, False)
        flat = input.reshape(n, c, -1)
        out: Tensor | None = None
        for lin, w, _ in corners:
            idx = lin.reshape(n, 1, -1).expand(n, c, lin[0].numel())
            v = aten("gather")(flat, 2, idx) * w.reshape(n, 1, -1)
            out = v if out is None else out + v
        assert out is not None
        return out.reshape((n, c) + out_sp)

    def backward(grad_output: Tensor, input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool, output_mask: Sequence[bool]) -> tuple[Any, Any]:
        n, c, sizes = input._size[0], input._size[1], input._size[2:]
        if input._device.type == "meta":
            return (meta_out(input, input._size) if output_mask[0] else None,
                    meta_out(grid, grid._size) if output_mask[1] else None)
        b = _direct(input, nd, interpolation_mode)
        if b is not None:
            gi = allocate(input._size, None, input.dtype, input._device) if output_mask[0] else None
            gg = allocate(grid._size, None, grid.dtype, grid._device) if output_mask[1] else None
            b.grid_sampler_2d_backward(grad_output.contiguous().view(n, c, -1), input.contiguous(),
                                       grid.contiguous().view(n, -1, 2), interpolation_mode, padding_mode,
                                       align_corners, gi, None if gg is None else gg.view(n, -1, 2))
            return gi, gg
        want_grid = bool(output_mask[1]) and interpolation_mode != NEAREST
        corners, mults = _stencil(grid, sizes, interpolation_mode, padding_mode, align_corners, want_grid)
        g = grad_output.reshape(n, c, -1)
        flat = input.reshape(n, c, -1)
        gin = aten("zeros")((n, c, flat._size[2]), dtype=input.dtype, device=input._device) if output_mask[0] \
            else None
        gcoord: list[Tensor | None] = [None] * nd
        for lin, w, dws in corners:
            idx = lin.reshape(n, 1, -1).expand(n, c, g._size[2])
            if gin is not None:
                gin.scatter_add_(2, idx, g * w.reshape(n, 1, -1))
            if want_grid:
                gv = (aten("gather")(flat, 2, idx) * g).sum(1).reshape(lin._size)
                for k in range(nd):
                    term = gv * dws[k]
                    prev = gcoord[k]
                    gcoord[k] = term if prev is None else prev + term
        ggrid = None
        if output_mask[1]:
            if want_grid:
                parts = [gcoord[k] * mults[k] for k in range(nd)]  # type: ignore[operator]
                ggrid = aten("stack")([parts[nd - 1 - j] for j in range(nd)], -1)  # back to (x, y[, z])
            else:
                ggrid = aten("zeros_like")(grid)
        return (gin.reshape(input._size) if gin is not None else None), ggrid

    return forward, backward


for _nd in (2, 3):
    _fwd, _bwd = _grid_sampler(_nd)
    declare(f"grid_sampler_{_nd}d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
            "bool align_corners) -> Tensor").impl_backends(_fwd)
    declare(f"grid_sampler_{_nd}d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
            "int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)",
            variants="").impl_backends(_bwd)


@declare("grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) "
         "-> Tensor").impl("CompositeImplicitAutograd")
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    if input.dim() == 4:
        return aten("grid_sampler_2d")(input, grid, interpolation_mode, padding_mode, align_corners)
    return aten("grid_sampler_3d")(input, grid, interpolation_mode, padding_mode, align_corners)


# ---- affine_grid_generator ----------------------------------------------------------------------------------
def _linspace_from_neg_one(like: Tensor, steps: int, align_corners: bool) -> Tensor:
    if steps <= 1:
        return aten("zeros")((), dtype=like.dtype, device=like._device)
    r = aten("linspace")(-1, 1, steps, dtype=like.dtype, device=like._device)
    return r if align_corners else r * (steps - 1) / steps


def _base_grid(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """make_base_grid_4D / _5D: (N, [D,] H, W, nd + 1) of (x, y[, z], 1)."""
    spatial = list(size[2:])
    nd = len(spatial)
    base = theta.new_empty([size[0]] + spatial + [nd + 1])
    if theta._device.type == "meta":
        return base
    for k in range(nd):  # k = 0 is x (the last spatial dim)
        line = _linspace_from_neg_one(theta, spatial[nd - 1 - k], align_corners)
        for _ in range(k):
            line = line.unsqueeze(-1)
        base.select(-1, k).copy_(line)
    base.select(-1, nd).fill_(1)
    return base


@declare("affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor").impl(
    "CompositeExplicitAutograd")
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    size = list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    nd = len(size) - 2
    n, pts = size[0], 1
    for s in size[2:]:
        pts *= s
    base = _base_grid(theta, size, align_corners)
    grid = base.view(n, pts, nd + 1).bmm(theta.transpose(1, 2))
    return grid.view([n] + size[2:] + [nd])


@declare("affine_grid_generator_backward(Tensor grad, SymInt[] size, bool align_corners) -> Tensor",
         variants="").impl("CompositeImplicitAutograd")
def affine_grid_generator_backward(grad: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    size = list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    nd = len(size) - 2
    n, pts = size[0], 1
    for s in size[2:]:
        pts *= s
    base = _base_grid(grad, size, align_corners)
    gtheta = base.view(n, pts, nd + 1).transpose(1, 2).bmm(grad.reshape(n, pts, nd))
    return gtheta.transpose(1, 2)
