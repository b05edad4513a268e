"""The device check of torch's generated CUDA wrappers (RegisterCUDA.cpp) for the operators that
native_functions.yaml leaves at `device_check: ExactSame` (mm, addmm, bmm, cat, index_select,
gather, take, searchsorted, the reductions' out= forms, ...): before the kernel runs, the tensors
the wrapper names (out= ones first, then the others in schema order; every element of a tensor
list) must share the first one's device (c10::impl::check_and_update_common_device), else
"... but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in
method wrapper_CUDA_mm)". A CPU tensor mixed with a CUDA one dispatches to CUDA (the higher
backend), so only the CUDA kernels carry the check; torch's CPU wrappers have none. Operators
marked NoCheck (TensorIterator ones: add, mul, where, ...) are absent from the table: their
TensorIterator or meta function speaks instead ("... found at least two devices ...")."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .cuda_device_check_table import CHECKED

__all__ = ["CHECKED", "UNCHECKED", "device_checked"]

# jtorch's optimizers run these with their step counters on the host (torch's default state layout,
# kept so that state_dict()s load both ways) where torch's fused=True keeps them on the device
UNCHECKED = frozenset({"_fused_adam_", "_fused_adamw_", "_fused_sgd_", "_fused_adagrad_"})


def device_checked(name: str, arguments: Sequence[Any], kernel: Callable, *, composite: bool = False) -> Callable:
    """`kernel` (a kernel of aten::<name>, `arguments` its schema's arguments) behind the generated
    CUDA wrapper's check. `composite`: the kernel is jtorch's CompositeExplicitAutograd one where
    torch has a CUDA kernel; it checks only calls torch would send to CUDA (a CUDA tensor among the
    checked ones and no meta tensor, Meta being the higher backend)."""
    wrapper, checked = CHECKED[name]
    names = [a.name for a in arguments]
    where = [(a, names.index(a)) for a in checked if a in names]
    if len(where) < 2 and not any(arguments[i].type.is_list() for _, i in where):
        return kernel  # one tensor cannot disagree with itself

    def check(args: tuple, kwargs: dict) -> None:
        common = None
        for arg, i in where:
            value = args[i] if i < len(args) else kwargs.get(arg)
            if value is None:
                continue
            for t in value if isinstance(value, (list, tuple)) else (value,):
                if t is None:  # an absent element of a Tensor?[] list
                    continue
                if common is None:
                    common = t._device
                elif t._device != common:
                    raise RuntimeError(f"Expected all tensors to be on the same device, but got {arg} is on "
                                       f"{t._device}, different from other tensors on {common} (when checking "
                                       f"argument in method {wrapper})")

    def run(*args: Any, **kwargs: Any) -> Any:
        check(args, kwargs)
        return kernel(*args, **kwargs)

    def run_if_cuda(*args: Any, **kwargs: Any) -> Any:
        types = set()
        for _, i in where:
            value = args[i] if i < len(args) else kwargs.get(_)
            for t in value if isinstance(value, (list, tuple)) else (value,):
                if t is not None:
                    types.add(t._device.type)
        if "cuda" in types and "meta" not in types:
            check(args, kwargs)
        return kernel(*args, **kwargs)

    return run_if_cuda if composite else run
