"""histogram and histogramdd (PyTorch's Histogram.cpp): the outer edges from `range` or the input's
min/max (an empty range widened by 0.5 each side, as NumPy), evenly spaced edges by linspace in the
input's dtype or the caller's edge tensors, torch's checks and texts, then the backend's
histogramdd kernel (CPU only, as in torch); density divides by the total and by each bin's widths."""
from __future__ import annotations

import math
from typing import Any

from .. import backends as _backends
from .. import dtypes as _dt
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import allocate, resize_output
from ..tensor import Tensor
from .registry import declare, op

_TYPEMETA = {_dt.float32: "float", _dt.float64: "double", _dt.float16: "c10::Half", _dt.int64: "long int",
             _dt.int32: "int", _dt.int16: "short int", _dt.int8: "signed char", _dt.uint8: "unsigned char",
             _dt.bool: "bool"}


def _tm(dtype: _dt.dtype) -> str:
    """caffe2's TypeMeta name of a dtype, as torch prints it in these texts."""
    return _TYPEMETA.get(dtype, SCALAR_TYPE_NAME[dtype])


def _g(v: float) -> str:
    return "inf" if v == math.inf else "-inf" if v == -math.inf else "nan" if v != v else f"{v:g}"


def _dispatch(x: Tensor) -> None:
    if x.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{SCALAR_TYPE_NAME[x.dtype]}'")


def _check_counts(bins: list[int]) -> None:
    for d, b in enumerate(bins):
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}")


def _outer_edges(x: Tensor, rng: Any) -> tuple[list[float], list[float]]:
    """select_outer_bin_edges over a (M, N) input."""
    n = x._size[-1]
    left, right = [0.0] * n, [1.0] * n
    if rng is not None:
        if len(rng) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                               f"elements, but got {len(rng)}")
        left, right = [float(rng[2 * d]) for d in range(n)], [float(rng[2 * d + 1]) for d in range(n)]
    elif x.numel() > 0:
        _dispatch(x)
        lo, hi = op("aminmax")(x, dim=0)
        left, right = [float(v) for v in lo.tolist()], [float(v) for v in hi.tolist()]
    for d in range(n):
        a, b = left[d], right[d]
        if not (math.isfinite(a) and math.isfinite(b)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(a)}, {_g(b)}] is not finite")
        if a > b:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_g(a)} max {_g(b)} for "
                               f"dimension {d}")
        if a == b:
            left[d], right[d] = a - 0.5, b + 0.5
    return left, right


def _check_inputs(x: Tensor, bins: list[Tensor], weight: Tensor | None) -> None:
    """histogramdd_check_inputs (an input of 2 or more dims, its weight unflattened)."""
    n = x._size[-1]
    if len(bins) != n:
        raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional histogram "
                           f"but got {len(bins)}")
    for d, b in enumerate(bins):
        if b.dtype is not x.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {_tm(x.dtype)} and bins for dimension {d} with dtype {_tm(b.dtype)}")
        if b.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.dim()} "
                               f"dimensions in the bins tensor for dimension {d}")
        if b.numel() == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                               f"the bins tensor for dimension {d}")
    if weight is not None:
        if weight.dtype is not x.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({_tm(x.dtype)}), and weight({_tm(weight.dtype)})")
        if weight._size != x._size[:-1]:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension, but got input with shape "
                               f"[{', '.join(map(str, x._size))}] and weight with shape "
                               f"[{', '.join(map(str, weight._size))}]")


def _count(x: Tensor, weight: Tensor | None, edges: list[Tensor], linear: bool, density: bool) -> Tensor:
    """The histogram of the (M, N) input over the N edge tensors."""
    shape = tuple(max(e.numel() - 1, 0) for e in edges)
    hist = allocate(shape, None, x.dtype, x._device)
    _dispatch(x)
    xs = op("contiguous")(x)
    w = op("contiguous")(op("reshape")(weight, [-1])) if weight is not None else None
    _backends.backend(x._device.type).histogramdd(xs, w, [op("contiguous")(e) for e in edges], linear, hist)
    if density:
        hist = op("div.Tensor")(hist, op("sum")(hist))
        for d, e in enumerate(edges):
            widths = op("sub.Tensor")(op("slice.Tensor")(e, 0, 1, None, 1), op("slice.Tensor")(e, 0, 0, -1, 1))
            view = [1] * len(edges)
            view[d] = widths.numel()
            hist = op("div.Tensor")(hist, op("reshape")(widths, view))
    return hist


def _cpu(schema: str, variants: str = "function") -> Any:
    """A CPU-only kernel, as torch registers histogram (no CUDA or Meta kernel)."""
    return declare(schema, variants=variants).impl("CPU")


def _even_edges(x: Tensor, bins: list[int], rng: Any) -> list[Tensor]:
    left, right = _outer_edges(x, rng)
    return [op("linspace")(left[d], right[d], bins[d] + 1, dtype=x.dtype, device=x._device) for d in range(len(bins))]


def _flat(self: Tensor, weight: Tensor | None) -> tuple[Tensor, Tensor | None]:
    x = op("reshape")(self, [self.numel(), 1])
    return x, (op("reshape")(weight, [weight.numel()]) if weight is not None else None)


def _into(out: tuple | None, hist: Tensor, edges: Tensor) -> tuple:
    if out is None:
        return hist, edges
    h, e = out
    for dst, src in ((h, hist), (e, edges)):
        resize_output(dst, src._size)
        op("copy_")(dst, src)
    return h, e


def _histogram_ct(self: Tensor, bins: int, rng: Any, weight: Tensor | None, density: bool,
                  out: tuple | None = None) -> tuple:
    _check_counts([bins])
    x, w = _flat(self, weight)
    edges = _even_edges(x, [bins], rng)
    _check_inputs(x, edges, w)
    return _into(out, _count(x, w, edges, True, density), edges[0])


def _histogram_tensor(self: Tensor, bins: Tensor, weight: Tensor | None, density: bool,
                      out: tuple | None = None) -> tuple:
    x, w = _flat(self, weight)
    _check_inputs(x, [bins], w)
    return _into(out, _count(x, w, [bins], False, density), op("clone")(bins))


_cpu("histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) "
               "-> (Tensor hist, Tensor bin_edges)", "function, method")(
    lambda self, bins, *, weight=None, density=False: _histogram_tensor(self, bins, weight, density))
_cpu("histogram.bins_tensor_out(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False, "
               "Tensor(a!) hist, Tensor(b!) bin_edges) -> (Tensor(a!) hist, Tensor(b!) bin_edges)")(
    lambda self, bins, *, weight=None, density=False, hist, bin_edges:
    _histogram_tensor(self, bins, weight, density, (hist, bin_edges)))
_cpu("histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
               "bool density=False) -> (Tensor hist, Tensor bin_edges)", "function, method")(
    lambda self, bins=100, *, range=None, weight=None, density=False:
    _histogram_ct(self, bins, range, weight, density))
_cpu("histogram.bin_ct_out(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
               "bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) -> (Tensor(a!) hist, Tensor(b!) bin_edges)")(
    lambda self, bins=100, *, range=None, weight=None, density=False, hist, bin_edges:
    _histogram_ct(self, bins, range, weight, density, (hist, bin_edges)))


# ---- histogramdd: the aten pieces (torch.histogramdd over them is in jtorch/functional.py) ---------
def _dd_input(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    return op("reshape")(self, [-1, self._size[-1]])


def _dd_weight(weight: Tensor | None) -> Tensor | None:
    return None if weight is None else op("reshape")(weight, [-1])


@_cpu("_histogramdd_bin_edges(Tensor self, int[] bins, *, float[]? range=None, Tensor? weight=None, "
                "bool density=False) -> Tensor[]")
def _histogramdd_bin_edges(self: Tensor, bins: list, *, range: Any = None, weight: Tensor | None = None,
                           density: bool = False) -> list:
    x = _dd_input(self)
    _check_counts(list(bins))
    return _even_edges(x, list(bins), range)


@_cpu("_histogramdd_from_bin_cts(Tensor self, int[] bins, *, float[]? range=None, Tensor? weight=None, "
                "bool density=False) -> Tensor")
def _histogramdd_from_bin_cts(self: Tensor, bins: list, *, range: Any = None, weight: Tensor | None = None,
                              density: bool = False) -> Tensor:
    x = _dd_input(self)
    _check_counts(list(bins))
    edges = _even_edges(x, list(bins), range)
    _check_inputs(self, edges, weight)
    return _count(x, _dd_weight(weight), edges, True, density)


@_cpu("_histogramdd_from_bin_tensors(Tensor self, Tensor[] bins, *, Tensor? weight=None, "
                "bool density=False) -> Tensor")
def _histogramdd_from_bin_tensors(self: Tensor, bins: list, *, weight: Tensor | None = None,
                                  density: bool = False) -> Tensor:
    x = _dd_input(self)
    _check_inputs(self, list(bins), weight)
    return _count(x, _dd_weight(weight), list(bins), False, density)

