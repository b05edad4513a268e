"""Convolution (ATen's Convolution.cpp, ConvUtils.h, Im2Col.cpp, Col2Im.cpp, vol2col.h): im2col,
col2im, convolution and the conv1d/2d/3d and conv_transpose1d/2d/3d composites.

Engine: `convolution` is im2col (the backend's `im2col` method: one pass that lays every receptive
field out as a column) followed by one batched matrix product on the matmul engine (BLAS on the
CPU, the tiled GEMM on CUDA); a transposed convolution is the product followed by col2im.
Measured against direct Numba loops, im2col + BLAS wins as soon as the reduction (C_in * kh * kw)
is more than a handful. `convolution` is CompositeExplicitAutograd (its kernel calls operators,
below autograd) with one derivative entry, ConvolutionBackward0, whose formula
(autograd/formulas_nn_conv.py) is again im2col / col2im / matmul, so that it is itself
differentiable. 1-d convolutions run as 2-d ones over a height of 1; 3-d ones lay their columns
out with the same backend method given three spatial dims (torch's vol2col, which has no operator).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME
from ..structured.meta import allocate, check_same_device
from ..tensor import Tensor
from .factories import aten
from .registry import declare


def pair(v: Any, n: int = 2) -> tuple:
    """An int or a list of ints as a tuple of n (a list of one is repeated)."""
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v * n if len(v) == 1 else v


# ---- im2col / col2im ----------------------------------------------------------------------------
def _check_blocks(kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> None:
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")


def blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    """The number of sliding blocks along each spatial dim."""
    return tuple((size[i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1
                 for i in range(len(size)))


def _contiguous(t: Tensor) -> Tensor:
    return t if t.is_contiguous() else t.contiguous()


def _backend_of(t: Tensor) -> Any:
    return backend(t._device.type)


def _im2col(self: Tensor, kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
            stride: Sequence[int]) -> Tensor:
    k, d, p, s = pair(kernel_size), pair(dilation), pair(padding), pair(stride)
    _check_blocks(k, d, p, s)
    sz = self._size
    nd = len(sz)
    if not ((nd == 3 and all(sz)) or (nd == 4 and all(sz[1:]))):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {shape_str(sz)}")
    oh, ow = blocks(sz[-2:], k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({sz[-2]}, {sz[-1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of "
                           f"sliding blocks as ({oh}, {ow}), but its components must be at least one.")
    x = self if nd == 4 else self.unsqueeze(0)
    out = allocate((x._size[0], x._size[1] * k[0] * k[1], oh * ow), None, self.dtype, self._device)
    if self._device.type != "meta":
        _backend_of(self).im2col(_contiguous(x), k, d, p, s, out)
    return out if nd == 4 else out.squeeze(0)


def _col2im(self: Tensor, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],
            padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    osz, k, d, p, s = pair(output_size), pair(kernel_size), pair(dilation), pair(padding), pair(stride)
    _check_blocks(k, d, p, s)
    sz = self._size
    nd = len(sz)
    if not ((nd == 2 and all(sz)) or (nd == 3 and all(sz[1:]))):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {shape_str(sz)}")
    ck = sz[-2]
    if ck % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ck} and kernel_size=({k[0]}, {k[1]}).")
    oh, ow = blocks(osz, k, d, p, s)
    if oh * ow != sz[-1]:
        raise RuntimeError(f"Given output_size=({osz[0]}, {osz[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, "
                           f"but got input.size(2)={sz[-1]}.")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size=({osz[0]}, {osz[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), calculated shape of the "
                           f"array of sliding blocks as ({oh}, {ow}), which is too small (non-positive)")
    x = self if nd == 3 else self.unsqueeze(0)
    out = allocate((x._size[0], ck // (k[0] * k[1]), osz[0], osz[1]), None, self.dtype, self._device)
    if self._device.type != "meta":
        _backend_of(self).col2im(_contiguous(x), k, d, p, s, out)
    return out if nd == 3 else out.squeeze(0)


declare("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
        variants="").impl_backends(_im2col)  # torch._C._nn.im2col: no torch.im2col binding
declare("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
        "int[2] stride) -> Tensor", variants="").impl_backends(_col2im)


def vol2col(x: Tensor, k: tuple, d: tuple, p: tuple, s: tuple) -> Tensor:
    """(N, C, D, H, W) -> (N, C*kd*kh*kw, od*oh*ow) columns: im2col over three spatial dims, below
    autograd (torch's vol2col, inside its slow_conv3d)."""
    if x.dtype is _dt.bfloat16:  # the kernel has no bfloat16: a copy through float32 is exact
        return vol2col(x.float(), k, d, p, s).to(_dt.bfloat16)
    ob = blocks(x._size[2:], k, d, p, s)
    out = allocate((x._size[0], x._size[1] * k[0] * k[1] * k[2], ob[0] * ob[1] * ob[2]), None, x.dtype, x._device)
    if x._device.type != "meta":
        _backend_of(x).im2col(_contiguous(x), k, d, p, s, out)
    return out


def col2vol(cols: Tensor, size: Sequence[int], k: tuple, d: tuple, p: tuple, s: tuple) -> Tensor:
    """vol2col's adjoint: (N, C*kd*kh*kw, L) columns summed into an (N, C, *size) volume."""
    if cols.dtype is _dt.bfloat16:  # sums in float32 (torch's opmath), rounded once
        return col2vol(cols.float(), size, k, d, p, s).to(_dt.bfloat16)
    out = allocate((cols._size[0], cols._size[1] // (k[0] * k[1] * k[2]), *size), None, cols.dtype, cols._device)
    if cols._device.type != "meta":
        _backend_of(cols).col2im(_contiguous(cols), k, d, p, s, out)
    return out


def _cols(x: Tensor, k: tuple, d: tuple, p: tuple, s: tuple) -> Tensor:
    return vol2col(x, k, d, p, s) if len(k) == 3 else aten("im2col")(x, list(k), list(d), list(p), list(s))


def _uncols(cols: Tensor, size: Sequence[int], k: tuple, d: tuple, p: tuple, s: tuple) -> Tensor:
    if len(k) == 3:
        return col2vol(cols, size, k, d, p, s)
    return aten("col2im")(cols, list(size), list(k), list(d), list(p), list(s))


# ---- convolution --------------------------------------------------------------------------------
def _expand_param(v: Sequence[int], name: str, dim: int) -> tuple:
    v = tuple(v)
    if len(v) == 1:
        return v * dim
    if len(v) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to match the "
                           f"convolution dimensions, but got {name}={shape_str(v)}")
    return v


def check_convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                      padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                      output_padding: Sequence[int], groups: int) -> tuple:
    """_convolution's checks (check_shape_forward and the dtype checks), in torch's order; returns
    the parameters expanded to one per spatial dim."""
    dim = weight.dim() - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand_param(stride, "stride", dim)
    padding = _expand_param(padding, "padding", dim)
    dilation = _expand_param(dilation, "dilation", dim)
    output_padding = _expand_param(output_padding, "output_padding", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    ws = weight._size
    k = input.dim()
    if len(ws) != k:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {shape_str(ws)}, "
                           f"but got {k}-dimensional input of size {shape_str(input._size)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {shape_str(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{shape_str(ws)}] instead")
    if not transposed:
        if input._size[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {shape_str(ws)}, expected input"
                               f"{shape_str(input._size)} to have {ws[1] * groups} channels, but got {input._size[1]} "
                               "channels instead")
        if bias is not None and (bias.dim() != 1 or bias._size[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {shape_str(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                               f"elements, but got bias of size {shape_str(bias._size)} instead")
        padded = [input._size[i] + 2 * padding[i - 2] for i in range(2, k)]
        kern = [dilation[i - 2] * (ws[i] - 1) + 1 for i in range(2, k)]
        if any(a < b for a, b in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                               f"Kernel size: ({' x '.join(map(str, kern))}). Kernel size can't be greater than "
                               "actual input size")
    else:
        if input._size[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {shape_str(ws)}, expected input"
                               f"{shape_str(input._size)} to have {ws[0]} channels, but got {input._size[1]} "
                               "channels instead")
        if bias is not None and (bias.dim() != 1 or bias._size[0] != ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {shape_str(ws)}, expected bias to be 1-dimensional "
                               f"with {ws[1] * groups} elements, but got bias of size {shape_str(bias._size)} instead")
    _check_conv_devices(input, weight, bias)
    if input.dtype is not weight.dtype:
        if input.dtype is _dt.float32:
            raise RuntimeError(f"Input type (torch.{SCALAR_TYPE_NAME[input.dtype]}Tensor) and weight type (torch."
                               f"{SCALAR_TYPE_NAME[weight.dtype]}Tensor) should be the same or input should be a "
                               "MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAME[input.dtype]} but found "
                           f"{SCALAR_TYPE_NAME[weight.dtype]}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({TYPE_META_NAME[input.dtype]}) and bias type "
                           f"({TYPE_META_NAME[bias.dtype]}) should be the same")
    if transposed:
        for i in range(dim):
            if output_padding[i] >= max(stride[i], dilation[i]):
                if dim == 3:  # slow_conv_transpose3d's text
                    parts = [f"{what}_{nm}: {v}"
                             for what, vals in (("output_padding", output_padding), ("stride", stride),
                                                ("dilation", dilation))
                             for nm, v in zip(("depth", "height", "width"), vals)]
                    raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                                       + " ".join(parts))
                o = (0,) * (2 - dim) + output_padding[-2:]
                s = (1,) * (2 - dim) + stride[-2:]
                dl = (1,) * (2 - dim) + dilation[-2:]
                raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                                   f"output_padding_height: {o[0]} output_padding_width: {o[1]} stride_height: {s[0]} "
                                   f"stride_width: {s[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}")
    return stride, padding, dilation, output_padding


def _type_name(t: Tensor) -> str:
    """Tensor::toString as the convolution checks print it: torch.cuda.FloatTensor, torch.FloatTensor."""
    return f"torch.{'cuda.' if t._device.type == 'cuda' else ''}{SCALAR_TYPE_NAME[t.dtype]}Tensor"


def _check_conv_devices(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """_convolution's check_input_same_type_as_parameters for parameters on another device: the
    cuDNN path's text for a CUDA input, the MKLDNN path's for a float CPU input (other CPU inputs
    take the slow path, whose dispatcher check gives the generic device text)."""
    if input._device.type == "meta":
        return
    for name, p in (("weight", weight), ("bias", bias)):
        if p is None or p._device.type == "meta" or p._device == input._device:
            continue
        text = f"Input type ({_type_name(input)}) and {name} type ({_type_name(p)}) should be the same"
        if input._device.type == "cuda":
            raise RuntimeError(text)
        if input.dtype is _dt.float32:
            raise RuntimeError(f"{text} or input should be a MKLDNN tensor and {name} is a dense tensor")
        check_same_device((input, weight, bias))


def as_2d(t: Tensor) -> Tensor:
    """A 1-d convolution's (N, C, L) tensor as (N, C, 1, L)."""
    return t.unsqueeze(2)


def transposed_size(size: int, k: int, s: int, p: int, d: int, op: int) -> int:
    return (size - 1) * s - 2 * p + d * (k - 1) + op + 1


def col2im_transposed(cols: Tensor, in_hw: tuple, out_hw: tuple, k: tuple, d: tuple, p: tuple, s: tuple,
                      op: tuple) -> Tensor:
    """col2im for a transposed convolution whose columns come from an input of spatial size
    `in_hw`: straight into the output when its blocks are `in_hw` again (output_padding <
    stride), else into the unpadded full output, then cropped by `padding` (output_padding >=
    stride happens with dilation)."""
    if blocks(out_hw, k, d, p, s) == tuple(in_hw):
        return _uncols(cols, out_hw, k, d, p, s)
    nd = len(k)
    full_hw = [(in_hw[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 for i in range(nd)]
    full = _uncols(cols, full_hw, k, d, (0,) * nd, s)
    n, c = full.shape[0], full.shape[1]
    out = full.new_zeros((n, c, *out_hw))
    keep = [min(out_hw[i], full_hw[i] - p[i]) for i in range(nd)]
    src = (slice(None), slice(None), *(slice(p[i], p[i] + keep[i]) for i in range(nd)))
    out[(slice(None), slice(None)) + tuple(slice(0, v) for v in keep)] = full[src]  # below autograd: a plain copy
    return out


def per_image(w: Tensor, n: int) -> Tensor:
    """The (G, ., .) weight matrices repeated for each of n images, contiguous, so that the product
    with the (N, G, ., .) columns is one BLAS call per matrix: a weight that requires grad would
    otherwise make matmul fold the batch into the columns' rows, two transposed copies of the
    columns (measured 20x the product's time); this copy is small beside the columns."""
    return w.unsqueeze(0).expand(n, *w.shape).contiguous()


def _convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                 padding: Sequence[int], dilation: Sequence[int], transposed: bool, output_padding: Sequence[int],
                 groups: int) -> Tensor:
    s, p, d, op = check_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                                    groups)
    one_d = weight.dim() == 3
    if one_d:
        input, weight = as_2d(input), as_2d(weight)
        s, p, d, op = (1,) + s, (0,) + p, (1,) + d, (0,) + op
    elif weight.dim() not in (4, 5):
        raise NotImplementedError(f"jtorch implements 1-d to 3-d convolutions, not {weight.dim() - 2}-d ones")
    n, g = input.shape[0], groups
    sp = tuple(input.shape[2:])
    k = tuple(weight.shape[2:])
    kk = 1
    for v in k:
        kk *= v
    L = 1
    for v in sp:
        L *= v
    if not transposed:
        o = weight.shape[0]
        osp = blocks(sp, k, d, p, s)
        cols = _cols(input, k, d, p, s)  # (N, C*K, blocks)
        out = per_image(weight.reshape(g, o // g, -1), n).matmul(cols.reshape(n, g, cols.shape[1] // g, cols.shape[2]))
        out = out.reshape(n, o, *osp)
    else:
        cin, og = weight.shape[0], weight.shape[1]
        out_sp = tuple(transposed_size(sp[i], k[i], s[i], p[i], d[i], op[i]) for i in range(len(sp)))
        wt = per_image(weight.reshape(g, cin // g, -1).transpose(1, 2), n)  # (N, G, Og*K, Cin_g)
        cols = wt.matmul(input.reshape(n, g, cin // g, L)).reshape(n, g * og * kk, L)
        out = col2im_transposed(cols, sp, out_sp, k, d, p, s, op)
        o = og * g
    if bias is not None:
        out = out.add_(bias.reshape(1, o, *(1,) * len(sp)))
    return out.squeeze(2) if one_d else out


declare("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
        "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
        ).impl("CompositeExplicitAutograd")(_convolution)


# ---- the conv1d / conv2d / conv_transpose composites ----------------------------------------------
def _batched(input: Tensor, dim: int, name: str) -> bool:
    """Whether the input has its batch dim; raises torch's error for other ranks."""
    if input.dim() == dim + 2:
        return True
    if input.dim() == dim + 1:
        return False
    raise RuntimeError(f"Expected {dim + 1}D (unbatched) or {dim + 2}D (batched) input to {name}, but got input of "
                       f"size: {shape_str(input._size)}")


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any, dilation: Any,
          groups: int, dim: int, name: str) -> Tensor:
    batched = _batched(input, dim, name)
    x = input if batched else input.unsqueeze(0)
    out = aten("convolution")(x, weight, bias, list(pair(stride, 1)), list(pair(padding, 1)), list(pair(dilation, 1)),
                              False, [0], groups)
    return out if batched else out.squeeze(0)


_warned_same = [False]


def _conv_padding(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: str, dilation: Any,
                  groups: int, dim: int, name: str) -> Tensor:
    """_convolution_mode: padding 'valid' (none) or 'same' (the output as large as the input)."""
    if padding == "valid":
        return _conv(input, weight, bias, stride, 0, dilation, groups, dim, name)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    s = pair(stride, dim)
    if any(v != 1 for v in s):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    batched = _batched(input, dim, name)
    x = input if batched else input.unsqueeze(0)
    dl = pair(dilation, dim)
    total = [dl[i] * (weight.shape[i + 2] - 1) for i in range(dim)] if weight.dim() == dim + 2 else [0] * dim
    left = [t // 2 for t in total]
    right = [t - t // 2 for t in total]
    out = aten("convolution")(x, weight, bias, list(s), right, list(dl), False, [0], groups)
    if left != right:
        # torch pads the input by one more on the right; padding `right` on both sides and dropping
        # the first output along those dims is the same convolution, without a padded copy
        if not _warned_same[0]:
            _warned_same[0] = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", UserWarning, stacklevel=3)
        for i in range(dim):
            if left[i] != right[i]:
                out = out.narrow(2 + i, 1, out.shape[2 + i] - 1)
    return out if batched else out.squeeze(0)


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, dim: int, name: str) -> Tensor:
    batched = _batched(input, dim, name)
    x = input if batched else input.unsqueeze(0)
    out = aten("convolution")(x, weight, bias, list(pair(stride, 1)), list(pair(padding, 1)),
                              list(pair(dilation, 1)), True, list(pair(output_padding, 1)), groups)
    return out if batched else out.squeeze(0)


def _declare_conv(dim: int) -> None:
    one = "[" + ", ".join(["1"] * dim) + "]"
    zero = "[" + ", ".join(["0"] * dim) + "]"
    a = f"SymInt[{dim}]"
    name = f"conv{dim}d"
    declare(f"{name}(Tensor input, Tensor weight, Tensor? bias=None, {a} stride={one}, {a} padding={zero}, "
            f"{a} dilation={one}, SymInt groups=1) -> Tensor").impl("CompositeImplicitAutograd")(
        lambda input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1:
        _conv(input, weight, bias, stride, padding, dilation, groups, dim, name))
    declare(f"{name}.padding(Tensor input, Tensor weight, Tensor? bias=None, {a} stride={one}, "
            f"str padding=\"valid\", {a} dilation={one}, SymInt groups=1) -> Tensor").impl(
        "CompositeImplicitAutograd")(
        lambda input, weight, bias=None, stride=1, padding="valid", dilation=1, groups=1:
        _conv_padding(input, weight, bias, stride, padding, dilation, groups, dim, name))
    tname = f"conv_transpose{dim}d"
    declare(f"{tname}{'.input' if dim > 1 else ''}(Tensor input, Tensor weight, Tensor? bias=None, "
            f"{a} stride={one}, {a} padding={zero}, {a} output_padding={zero}, SymInt groups=1, "
            f"{a} dilation={one}) -> Tensor").impl("CompositeImplicitAutograd")(
        lambda input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1:
        _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, dim, tname))


_declare_conv(1)
_declare_conv(2)
_declare_conv(3)
