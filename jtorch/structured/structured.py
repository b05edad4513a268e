"""Structured kernels: one meta + one impl per backend give the functional, in-place and out= kernels.

As in PyTorch's codegen (structured_<op>_functional / _inplace / _out): the out= overload is
`structured`, the functional and in-place overloads are its `structured_delegate`s. Each generated
wrapper makes a TensorIterator in its mode, runs `meta` (checks, output shape and dtype through
set_output), runs the backend's `impl`, copies temporaries back and returns. The Meta backend gets
the same wrapper with no impl: shapes and dtypes for free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..native.registry import NativeFunction, declare
from ..schema import FunctionSchema
from .tensor_iterator import FUNCTIONAL, INPLACE, OUT, TensorIterator

Meta = Callable[[TensorIterator, list, dict], None]
Impl = Callable[[TensorIterator, list, dict], None]


def make_binder(schema: FunctionSchema) -> Callable[..., tuple[list, dict]]:
    """Generated: split a call's arguments into (tensors, other arguments by name), out= excluded."""
    params, tensors, extras = [], [], []
    env: dict[str, Any] = {}
    star = False
    for a in schema.arguments:
        if a.is_out:
            continue
        if a.kwarg_only and not star:
            params.append("*")
            star = True
        if a.default is not None:
            env[f"_default_{a.name}"] = a.default_value
        params.append(f"{a.name}=_default_{a.name}" if a.default is not None else a.name)
        (tensors if a.type.base_name == "Tensor" and not a.type.is_list() else extras).append(a.name)
    src = (f"def bind({', '.join(params)}):\n"
           f"    return [{', '.join(tensors)}], {{{', '.join(f'{e!r}: {e}' for e in extras)}}}\n")
    exec(compile(src, f"<binder {schema.name}>", "exec"), env)
    return env["bind"]


def functional_kernel(bind: Callable, meta: Meta, impl: Impl | None) -> Callable:
    def functional(*args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(*args, **kwargs)
        it = TensorIterator(FUNCTIONAL)
        meta(it, tensors, extras)
        if impl is not None and it.numel():
            impl(it, tensors, extras)
            it.finish()
        return it.operands[0].original

    return functional


def inplace_kernel(bind: Callable, meta: Meta, impl: Impl | None) -> Callable:
    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(self, *args, **kwargs)
        it = TensorIterator(INPLACE, self)
        meta(it, tensors, extras)
        if impl is not None and it.numel():
            impl(it, tensors, extras)
            it.finish()
        return self

    return inplace


def out_kernel(bind: Callable, meta: Meta, impl: Impl | None) -> Callable:
    def out_fn(*args: Any, out: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(*args, **kwargs)
        it = TensorIterator(OUT, out)
        meta(it, tensors, extras)
        if impl is not None and it.numel():
            impl(it, tensors, extras)
            it.finish()
        return out

    return out_fn


@dataclass(frozen=True)
class StructuredFamily:
    out: NativeFunction
    functional: NativeFunction | None
    inplace: NativeFunction | None


def structured(
    out: str,
    *,
    functional: str | None = None,
    inplace: str | None = None,
    meta: Meta,
    impls: dict[str, Impl],
    variants: str = "function, method",
    inplace_variants: str = "method",
    numbers_as_tensors: bool = True,
    dunder: str = "",
    inplace_dunder: str = "",
    fast_paths: "dict[str, Callable] | None" = None,
) -> StructuredFamily:
    """Declare a structured operator family and register its generated kernels.

    `out` is the structured out= schema; `functional` and `inplace` delegate to it. `impls` maps a
    backend key ("CPU", later "CUDA") to its impl; "Meta" is registered with no impl.
    `fast_paths[key](kind, bind, generic_kernel) -> kernel` may wrap a backend's functional and
    in-place kernels with a shortcut for the common case (TensorIterator's fast set-up).
    """
    fast = fast_paths or {}
    out_nf = declare(out, variants="function", numbers_as_tensors=numbers_as_tensors, structured=True)
    bind = make_binder(out_nf.func)
    backends: dict[str, Impl | None] = dict(impls)
    backends.setdefault("Meta", None)
    for key, impl in backends.items():
        out_nf.impl(key)(out_kernel(bind, meta, impl))
    f_nf = i_nf = None
    if functional is not None:
        f_nf = declare(functional, variants=variants, numbers_as_tensors=numbers_as_tensors,
                       structured_delegate=out_nf.name, dunder=dunder)
        for key, impl in backends.items():
            k = functional_kernel(bind, meta, impl)
            f_nf.impl(key)(fast[key]("functional", bind, k) if key in fast else k)
    if inplace is not None:
        i_nf = declare(inplace, variants=inplace_variants, numbers_as_tensors=numbers_as_tensors,
                       structured_delegate=out_nf.name, dunder=inplace_dunder)
        for key, impl in backends.items():
            k = inplace_kernel(bind, meta, impl)
            i_nf.impl(key)(fast[key]("inplace", bind, k) if key in fast else k)
    return StructuredFamily(out_nf, f_nf, i_nf)
