"""The device check of torch's generated CUDA wrappers (RegisterCUDA.cpp) for the reductions and
sorts that native_functions.yaml leaves at `device_check: ExactSame`: before the kernel runs, the
out= tensors and then the positional tensors, in schema order, must share the first one's device
(c10::impl::check_and_update_common_device). The operators marked NoCheck have no such check: their
meta function's resize_out ("Expected out tensor to have device ...") or their TensorIterator
("... found at least two devices ...") speaks instead.

Each entry: the generated wrapper's name, which the text names, and the checked arguments."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

CHECKED: dict[str, tuple[str, tuple[str, ...]]] = {
    "argmax.out": ("wrapper_CUDA_argmax_out_out", ("out", "self")),
    "argmin.out": ("wrapper_CUDA_argmin_out_out", ("out", "self")),
    "amax.out": ("wrapper_CUDA_amax_out_out", ("out", "self")),
    "amin.out": ("wrapper_CUDA_amin_out_out", ("out", "self")),
    "sort.values_stable": ("wrapper_CUDA_sort_out_values_stable", ("values", "indices", "self")),
    "topk.values": ("wrapper_CUDA_topk_out_values", ("values", "indices", "self")),
    "linalg_vector_norm.out": ("wrapper_CUDA_linalg_vector_norm_out_out", ("out", "self")),
    "kthvalue.values": ("wrapper_CUDA_values_kthvalue_out", ("values", "indices", "self")),
    "median.dim_values": ("wrapper_CUDA_dim_values_median_out", ("values", "indices", "self")),
    "nanmedian.dim_values": ("wrapper_CUDA_dim_values_nanmedian_out", ("values", "indices", "self")),
    "nansum.out": ("wrapper_CUDA_out_nansum_out", ("out", "self")),
}


def device_checked(name: str, arg_names: list[str], kernel: Callable) -> Callable:
    """`kernel` (the CUDA kernel of aten::<name>, arguments named `arg_names` in schema order) behind
    the generated wrapper's check."""
    wrapper, checked = CHECKED[name]

    def run(*args: Any, **kwargs: Any) -> Any:
        bound = dict(zip(arg_names, args))
        bound.update(kwargs)
        common = None
        for arg in checked:
            t = bound.get(arg)
            if t is None:
                continue
            if common is None:
                common = t._device
            elif t._device != common:
                raise RuntimeError(f"Expected all tensors to be on the same device, but got {arg} is on {t._device}, "
                                   f"different from other tensors on {common} (when checking argument in method "
                                   f"{wrapper})")
        return kernel(*args, **kwargs)

    return run
