"""The CUDA backend: device storage from the caching allocator and the stubs that run jtorch's
numba.cuda kernels. `register()` hands them to jtorch.backends at `import jtorch` (nothing here
imports numba: kernels load on first use, and allocating the first CUDA tensor is what asks the
driver, failing with torch's text when there is no GPU).

Stub kinds live in one module each (copy.py, elementwise.py, reduce.py, scan.py, random.py,
index.py, matmul.py, sort.py, ...), listed in STUBS; each module is imported by its stub's first
call, which then installs the module's function as the stub itself.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ...backends import register_backend


def _storage(numel: int, dtype: Any, device: Any) -> Any:
    from .storage import CUDAStorage

    return CUDAStorage.allocate(numel, dtype, device)


# stub kind -> (module, function)
STUBS = {
    "elementwise": ("elementwise", "run_iterator"),
    "elementwise_contiguous": ("elementwise", "contiguous_runner"),
    "copy": ("copy", "copy"),
    "fill": ("copy", "fill"),
    "read_scalar": ("copy", "read_scalar"),
    "reduce": ("reduce", "reduce"),
    "scan": ("scan", "scan"),
    "random": ("random", "random"),
    "index": ("index", "index"),
    "matmul": ("matmul", "matmul"),
    "remap": ("remap", "remap"),
    "cat": ("cat", "cat"),
    "sort": ("sort", "sort"),
    "range": ("ranges", "fill_range"),
    "im2col": ("im2col", "im2col"),
    "pool": ("pool", "pool"),
    "loss": ("loss", "loss"),
    "softmax_backward": ("softmax_backward", "softmax_backward"),
}


def register() -> None:
    stubs = {kind: _make(kind, module, name) for kind, (module, name) in STUBS.items()}
    from . import driver  # no numba: it imports numba.cuda on first use

    register_backend("cuda", "CUDA", storage=_storage, lazy_init=driver.lazy_init, **stubs)


def _make(kind: str, module: str, name: str) -> Callable:
    def stub(*args: Any) -> Any:
        fn = getattr(importlib.import_module(f"{__package__}.{module}"), name)
        register_backend("cuda", "CUDA", **{kind: fn})
        return fn(*args)

    stub.__name__ = f"cuda_{kind}_stub"
    return stub
