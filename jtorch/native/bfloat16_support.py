"""bfloat16 through float32 for the kernels that read storage directly (sorting, searching,
scatter/index updates, histograms): their Numba loops have no bfloat16, and every bfloat16 is a
float32 exactly, so these operators run on float32 copies and their values are rounded back,
which gives torch's results (its kernels compare and accumulate bfloat16 in float as well).

Elementwise operators and reductions need none of this: TensorIterator computes bfloat16 in
float32 (jtorch/structured/tensor_iterator.py, compute_dtype).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt

# CPU kernels run on float32 copies of their bfloat16 tensors (base operator names)
VIA_FLOAT32 = frozenset((
    "sort", "_unique2", "unique_dim", "unique_consecutive", "_unique", "mode", "histc", "searchsorted",
    "bucketize", "scatter_add", "scatter_add_", "index_add", "index_add_", "index_fill", "index_fill_",
    "scatter", "scatter_", "scatter_reduce", "scatter_reduce_", "index_reduce", "index_reduce_",
    "random_", "kthvalue", "median", "nanmedian", "topk", "cummax", "cummin", "_cummax_helper",
    "_cummin_helper", "isin", "put_", "put", "index_copy", "index_copy_",
    "masked_scatter", "masked_scatter_", "_index_put_impl_", "index_put", "index_put_", "take", "gather",
    "masked_fill", "masked_fill_", "masked_select", "nonzero", "count_nonzero", "flip", "roll", "trace",
    # nn kernels (im2col for convolutions, pooling, losses) and the softmax backwards
    "im2col", "col2im", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "avg_pool1d", "avg_pool2d", "avg_pool2d_backward", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d", "adaptive_max_pool2d_backward", "nll_loss_forward", "nll_loss_backward",
    "_softmax_backward_data", "_log_softmax_backward_data",
    # 3-d pooling and the adaptive average pooling kernels' operators
    "max_pool3d_with_indices", "max_pool3d_with_indices_backward", "avg_pool3d_backward", "_adaptive_avg_pool3d",
    "_adaptive_avg_pool3d_backward", "adaptive_max_pool3d", "adaptive_max_pool3d_backward", "_adaptive_avg_pool2d",
    "_adaptive_avg_pool2d_backward",
))


# on CUDA also the products (the CPU's BLAS path computes bfloat16 in float32 itself) and index_select
CUDA_VIA_FLOAT32 = VIA_FLOAT32 | frozenset((
    "mm", "addmm", "addmm_", "bmm", "baddbmm", "baddbmm_", "mv", "addmv", "addmv_", "dot", "vdot", "index_select",
))


def _is_bf16(a: Any) -> bool:
    return getattr(a, "dtype", None) is _dt.bfloat16 and hasattr(a, "_size")


def _to(a: Any, dtype: _dt.dtype) -> Any:
    return a.to(dtype)  # the Tensor method: the dispatcher's aten::to, no import of its declaration


def via_float32(name: str, kernel: Callable, writes: tuple[str, ...]) -> Callable:
    """`kernel` (a CPU or CUDA kernel of aten::<name>) with bfloat16 tensor arguments given as float32
    copies; float32 results come back as bfloat16, and the arguments it writes (`writes`: the
    schema's mutable argument names, or positions as strings) get the rounded values."""

    def run(*args: Any, **kwargs: Any) -> Any:
        if not (any(_is_bf16(a) or (isinstance(a, (list, tuple)) and any(_is_bf16(x) for x in a))
                    for a in (*args, *kwargs.values()))):
            return kernel(*args, **kwargs)
        originals: dict[int, Any] = {}

        def widen(a: Any) -> Any:
            if _is_bf16(a):
                w = _to(a, _dt.float32)
                originals[id(w)] = a
                return w
            if isinstance(a, (list, tuple)) and any(_is_bf16(x) for x in a):
                return type(a)(widen(x) for x in a)
            return a

        wargs = tuple(widen(a) for a in args)
        wkwargs = {k: widen(v) for k, v in kwargs.items()}
        result = kernel(*wargs, **wkwargs)
        written: dict[int, Any] = {}
        for key in writes:
            w = wkwargs.get(key) if not key.isdigit() else (wargs[int(key)] if int(key) < len(wargs) else None)
            orig = originals.get(id(w)) if w is not None else None
            if orig is not None:
                orig.copy_(w)
                written[id(w)] = orig

        def narrow(r: Any) -> Any:
            if id(r) in written:
                return written[id(r)]
            if getattr(r, "dtype", None) is _dt.float32 and hasattr(r, "_size"):
                return _to(r, _dt.bfloat16)
            if isinstance(r, tuple):
                return type(r)(*(narrow(x) for x in r)) if hasattr(r, "_fields") else tuple(narrow(x) for x in r)
            if isinstance(r, list):
                return [narrow(x) for x in r]
            return r

        return narrow(result)

    return run
