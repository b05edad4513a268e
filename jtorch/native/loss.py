"""The negative log-likelihood loss (ATen's LossNLL.cpp): nll_loss_forward and nll_loss_backward,
with kernels behind the backend's methods of the same names. nn.functional's nll_loss and cross_entropy reach
them as torch does (cross_entropy = log_softmax + nll_loss), so a training step records torch's
LogSoftmaxBackward0 and NllLossBackward0 nodes and its loss costs two operator calls.

The meta checks and output shapes are TORCH_META_FUNC(nll_loss_forward)'s; the target checks
that read data (a class index out of range) are the kernels', as in PyTorch. Half-precision
inputs are computed in float32 and rounded once. reduction: 0 none, 1 mean, 2 sum.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..backends import backend
from ..geometry import shape_str
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate, check_same_device
from ..tensor import Tensor
from .factories import aten
from .registry import declare

_NONE, _MEAN, _SUM = 0, 1, 2
_HALF = (_dt.float16,)


def _contiguous(t: Tensor) -> Tensor:
    return t if t.is_contiguous() else t.contiguous()


def _compute(t: Tensor) -> Tensor:
    """The tensor the kernel reads: contiguous, half precision widened to float32."""
    t = _contiguous(t)
    return t.float() if t.dtype in _HALF else t


def _as(t: Tensor, dtype: _dt.dtype) -> Tensor:
    return t if t.dtype is dtype else t.to(dtype)


def _target(target: Tensor) -> Tensor:
    t = _contiguous(target)
    return t.long() if t.dtype is _dt.uint8 else t


def _meta_checks(self: Tensor, target: Tensor, weight: Tensor | None) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not no_batch_dim and self._size[0] != target._size[0]:
        raise RuntimeError(f"size mismatch (got input: {shape_str(self._size)}, target: {shape_str(target._size)})")
    n_classes = self._size[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {shape_str(weight._size)}")
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {SCALAR_TYPE_NAME[target.dtype]}")


def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: int) -> tuple[Tensor, Tensor]:
    check_same_device((self, target, weight))  # the dispatcher's check
    _meta_checks(self, target, weight)
    per_sample = reduction == _NONE and self.dim() == 2
    out = allocate((self._size[0],) if per_sample else (), None, self.dtype, self._device)
    total_weight = allocate((), None, self.dtype, self._device)
    if self._device.type == "meta":
        return out, total_weight
    x = _compute(self)
    o, tw = (out, total_weight) if x.dtype is self.dtype else (allocate(out._size, None, x.dtype, x._device),
                                                                allocate((), None, x.dtype, x._device))
    w = None if weight is None else _as(_compute(weight), x.dtype)
    bad = backend(self._device.type).nll_loss_forward(x, _target(target), w, reduction, ignore_index, o, tw)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    if o is not out:
        out.copy_(o)
        total_weight.copy_(tw)
    return out, total_weight


def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int, total_weight: Tensor) -> Tensor:
    _meta_checks(self, target, weight)
    if reduction == _NONE and self.dim() == 2:
        if grad_output.dim() != 1 or grad_output._size[0] != self._size[0]:
            raise RuntimeError(f"Expected a tensor of dimension 1 and tensor.size[0] == {self._size[0]} but got: "
                               f"dimension {grad_output.dim()} and tensor.size[0] == "
                               f"{grad_output._size[0] if grad_output.dim() else 1}")
    elif grad_output.numel() != 1:
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {shape_str(grad_output._size)}")
    if total_weight.numel() != 1:
        raise RuntimeError(f"expected total_weight to be a single element tensor, got: "
                           f"{shape_str(total_weight._size)} ({total_weight.numel()} elements)")
    grad_input = allocate(self._size, None, self.dtype, self._device)
    if self._device.type == "meta":
        return grad_input
    half = self.dtype in _HALF
    cd = _dt.float32 if half else self.dtype
    gi = allocate(self._size, None, cd, self._device) if half else grad_input
    w = None if weight is None else _as(_compute(weight), cd)
    bad = backend(self._device.type).nll_loss_backward(_as(_compute(grad_output), cd), _target(target), w,
                                                       reduction, ignore_index, _as(_compute(total_weight), cd), gi)
    if bad is not None:
        raise IndexError(f"Target {bad} is out of bounds.")
    if half:
        grad_input.copy_(gi)
    return grad_input


declare("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
        "(Tensor output, Tensor total_weight)", variants="").impl_backends(nll_loss_forward)
declare("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
        "SymInt ignore_index, Tensor total_weight) -> Tensor", variants="").impl_backends(nll_loss_backward)


# ---- nll_loss2d: (N, C, H, W) scores, (N, H, W) targets; computed as nll_loss on one row per position ----
def _rows(self: Tensor) -> Tensor:
    """(N, C, H, W) -> (N * H * W, C): classes last, one row per position."""
    return aten("reshape")(aten("movedim.int")(self, 1, -1), (-1, self._size[1]))


def _check_2d(self: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """TORCH_META_FUNC's checks of nll_loss2d_forward (LossNLL2d.cpp)."""
    if target.dim() != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    if self.dim() != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.dim()}")
    if weight is not None and weight.numel() != self._size[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (self._size[0], *self._size[2:]) != target._size:
        raise RuntimeError(f"size mismatch (got input: {shape_str(self._size)} , target: {shape_str(target._size)}")


def nll_loss2d_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int) -> tuple[Tensor, Tensor]:
    _check_2d(self, target, weight)
    out, total_weight = aten("nll_loss_forward")(_rows(self), aten("reshape")(target, (-1,)), weight, reduction,
                                                 ignore_index)
    return (aten("reshape")(out, target._size) if reduction == _NONE else out), total_weight


def nll_loss2d_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                        ignore_index: int, total_weight: Tensor) -> Tensor:
    _check_2d(self, target, weight)
    if reduction == _NONE and grad_output._size != target._size:
        raise RuntimeError(f"grad_output must have same dimension as target: {shape_str(target._size)} but got "
                           f"{shape_str(grad_output._size)}")
    g = aten("reshape")(grad_output, (-1,)) if reduction == _NONE else grad_output
    rows = aten("nll_loss_backward")(g, _rows(self), aten("reshape")(target, (-1,)), weight, reduction, ignore_index,
                                     total_weight)
    n, c, h, w = self._size
    return aten("contiguous")(aten("movedim.int")(aten("reshape")(rows, (n, h, w, c)), -1, 1))


declare("nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
        "(Tensor output, Tensor total_weight)", variants="").impl("CompositeExplicitAutograd")(nll_loss2d_forward)
declare("nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
        "SymInt ignore_index, Tensor total_weight) -> Tensor", variants="").impl("CompositeExplicitAutograd")(
    nll_loss2d_backward)
