"""Declaring a structured operator family: its schemas, and its generated kernels registered for
Meta and for every backend (jtorch.structured makes the kernels; this is the registration glue,
PyTorch's generated RegisterCPU.cpp / RegisterMeta.cpp).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..structured.meta import MetaBase
from ..structured.structured import FastPath, Impl, Meta, functional_kernel, inplace_kernel, make_binder, out_kernel
from .registry import NativeFunction, declare
from .unsigned_support import refuses_inside, refusing_kernel


@dataclass(frozen=True)
class StructuredFamily:
    out: NativeFunction
    # None when the family declares no such variant; typed as declared, since only the declaring
    # module reads them and it reads the ones it declared (family.functional.op)
    functional: NativeFunction
    inplace: NativeFunction


families: list[StructuredFamily] = []


def structured(
    out: str,
    *,
    functional: str | None = None,
    inplace: str | None = None,
    meta: Meta,
    impl: Impl | None,
    context: type = MetaBase,
    variants: str = "function, method",
    inplace_variants: str = "method",
    numbers_as_tensors: bool = False,
    dunder: str = "",
    inplace_dunder: str = "",
    fast_path: FastPath | None = None,
    python_name: str | None = None,
) -> StructuredFamily:
    """Declare a structured operator family and register its generated kernels.

    `out` is the structured out= schema; `functional` and `inplace` delegate to it. `context` is
    the meta context class the wrappers make (MetaBase, or TensorIterator). `impl` runs on every
    backend with data (it gets the Backend, whose stubs do the work); Meta gets no impl.
    `fast_path` may wrap a backend's functional and in-place kernels with a shortcut for the
    common case (TensorIterator's fast set-up).
    """
    out_nf = declare(out, variants="function", numbers_as_tensors=numbers_as_tensors, structured=True,
                     python_name=python_name)
    f_nf = i_nf = None
    if functional is not None:
        f_nf = declare(functional, variants=variants, numbers_as_tensors=numbers_as_tensors,
                       structured_delegate=out_nf.name, dunder=dunder, python_name=python_name)
    if inplace is not None:
        i_nf = declare(inplace, variants=inplace_variants, numbers_as_tensors=numbers_as_tensors,
                       structured_delegate=out_nf.name, dunder=inplace_dunder)
    family = StructuredFamily(out_nf, f_nf, i_nf)  # type: ignore[arg-type]  # see StructuredFamily
    families.append(family)

    # Kernels are made per backend when an operator of the family is first used (registry's lazy
    # registration); the binder, shared by the three, when the first of them is.
    made: list = []

    def bind() -> Callable:
        if not made:
            made.append(make_binder(out_nf.func))
        return made[0]

    def make_out(key: str, backend: Any) -> Callable:
        out_names = tuple(a.name for a in out_nf.func.arguments if a.is_out)
        k = out_kernel(bind(), meta, impl if backend is not None else None, context, backend, out_names)
        k = _refusing(out_nf, k, backend)
        if fast_path is not None and backend is not None and out_names == ("out",):
            k = fast_path("out", bind(), k, backend) or k
        return _refusals_inside(k, backend)

    out_nf.impl_per_backend(make_out)
    for nf, make, kind in ((f_nf, functional_kernel, "functional"), (i_nf, inplace_kernel, "inplace")):
        if nf is None:
            continue

        def make_kernel(key: str, backend: Any, make: Callable = make, kind: str = kind,
                        nf: NativeFunction = nf) -> Callable:
            k = make(bind(), meta, impl if backend is not None else None, context, backend)
            k = _refusing(nf, k, backend)
            if fast_path is not None and backend is not None:
                k = fast_path(kind, bind(), k, backend) or k
            return _refusals_inside(k, backend)

        nf.impl_per_backend(make_kernel)
    return family


def _refusing(nf: NativeFunction, kernel: Callable, backend: Any) -> Callable:
    """The generic kernel, refusing the dtypes torch's kernel for the backend's device has no case for
    (uint16..64, the bits type). A fast path in front takes only dtypes that compute, so its calls pay nothing."""
    if backend is None or backend.dispatch_key not in ("CPU", "CUDA"):
        return kernel
    return refusing_kernel(nf.name, kernel, backend.dispatch_key.lower())


def _refusals_inside(kernel: Callable, backend: Any) -> Callable:
    """Mark a kernel whose refusals are inside it (the registry adds none)."""
    return refuses_inside(kernel) if backend is not None else kernel
