"""Structured kernels: one meta + one backend-neutral impl give the functional, in-place and out=
kernels, for every backend registered now or later.

As in PyTorch's codegen (structured_<op>_functional / _inplace / _out): the out= overload is
`structured`, the functional and in-place overloads are its `structured_delegate`s. Each generated
wrapper makes a meta context in its mode (a TensorIterator for TensorIterator-based operators, a
plain MetaBase for mm, cat, sort ...), runs `meta` (checks, output shapes and dtypes through
`set_output_raw_strided`), runs `impl` with the backend's stubs, copies temporaries back and
returns. The Meta backend gets the same wrapper with no impl: shapes and dtypes for free.

`impl(ctx, tensors, extras, backend)` never looks inside a storage: it calls the backend's typed
methods (jtorch.backends.Backend), so a backend registered after import (CUDA, a user's PrivateUse1) gets the
kernels of every structured operator declared before it.

This module makes kernels; declaring the operators and registering the kernels per backend is
the declarations' job (jtorch.native.structured.structured).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import backends as _backends
from ..codegen import compile_source
from ..schema import FunctionSchema
from .meta import FUNCTIONAL, INPLACE, OUT

Meta = Callable[[Any, list[Any], dict[str, Any]], None]
Impl = Callable[[Any, list[Any], dict[str, Any], "_backends.Backend"], None]
# fast_path(kind, bind, generic_kernel, backend) -> kernel, or None to keep the generic one
FastPath = Callable[[str, Callable[..., Any], Callable[..., Any], "_backends.Backend"], "Callable[..., Any] | None"]


def make_binder(schema: FunctionSchema) -> Callable[..., tuple[list[Any], dict[str, Any]]]:
    """Generated: split a call's arguments into (tensors, other arguments by name), out= excluded."""
    params: list[str] = []
    tensors: list[str] = []
    extras: list[str] = []
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
    compile_source(src, f"<binder {schema.name}>", env)
    bind: Callable[..., tuple[list[Any], dict[str, Any]]] = env["bind"]
    return bind


def _result(ctx: Any) -> Any:
    outs = ctx.outputs()
    return outs[0] if len(outs) == 1 else tuple(outs)


def _run(ctx: Any, meta: Meta, impl: Impl | None, backend: Any, tensors: list[Any], extras: dict[str, Any]) -> None:
    meta(ctx, tensors, extras)
    if impl is not None and ctx.numel():
        impl(ctx, tensors, extras, backend)
        ctx.finish()


def functional_kernel(bind: Callable[..., Any], meta: Meta, impl: Impl | None, context: type,
                      backend: Any) -> Callable[..., Any]:
    def functional(*args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(*args, **kwargs)
        ctx = context(FUNCTIONAL, ())
        _run(ctx, meta, impl, backend, tensors, extras)
        return _result(ctx)

    return functional


def inplace_kernel(bind: Callable[..., Any], meta: Meta, impl: Impl | None, context: type,
                   backend: Any) -> Callable[..., Any]:
    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        tensors, extras = bind(self, *args, **kwargs)
        ctx = context(INPLACE, (self,))
        _run(ctx, meta, impl, backend, tensors, extras)
        return self

    return inplace


def out_kernel(bind: Callable[..., Any], meta: Meta, impl: Impl | None, context: type, backend: Any,
               out_names: tuple[str, ...]) -> Callable[..., Any]:
    if len(out_names) == 1:
        def out_fn(*args: Any, out: Any, **kwargs: Any) -> Any:
            tensors, extras = bind(*args, **kwargs)
            ctx = context(OUT, (out,))
            _run(ctx, meta, impl, backend, tensors, extras)
            return out

        if out_names[0] != "out":  # rare: a single out= argument with another name
            name = out_names[0]

            def renamed(*args: Any, **kwargs: Any) -> Any:
                return out_fn(*args, out=kwargs.pop(name), **kwargs)

            return renamed
        return out_fn

    def outs_fn(*args: Any, **kwargs: Any) -> Any:
        outs = tuple(kwargs.pop(n) for n in out_names)
        tensors, extras = bind(*args, **kwargs)
        ctx = context(OUT, outs)
        _run(ctx, meta, impl, backend, tensors, extras)
        return outs

    return outs_fn
