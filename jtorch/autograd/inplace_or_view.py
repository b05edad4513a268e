"""The generated ADInplaceOrView kernels (PyTorch's gen_inplace_or_view_type.py).

A mutating operator's kernel runs the operator below this key, then bumps the version counter of
every argument its schema marks as written (`Tensor(a!)`): that is what lets a saved tensor notice
it was modified. A view operator's kernel runs the operator, then records on each output how to
rebuild it from its base (`_view_fn`, replayed after an in-place write to the view) and how it was
made (CreationMeta: in no_grad mode, as one of several outputs). The structured and native view
kernels themselves set `_base` and share the version counter (as_view).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import tls as _tls
from ..keyset import after_ADInplaceOrView_keyset, autograd_dispatch_keyset_with_ADInplaceOrView
from ..schema import FunctionSchema
from ..tensor import CreationMeta, Tensor

_local = _tls.local
_MASK = int(after_ADInplaceOrView_keyset)
_BELOW = int(autograd_dispatch_keyset_with_ADInplaceOrView)


# In-place view operators (they change `self`'s geometry, not its data) -> the functional view that
# replays the same change on a view's base (torch's ADInplaceOrView kernels for them chain it onto
# the view's view_func).
INPLACE_VIEW = {"squeeze_": "squeeze", "squeeze_.dim": "squeeze.dim", "squeeze_.dims": "squeeze.dims",
                "unsqueeze_": "unsqueeze", "t_": "t", "transpose_": "transpose.int", "as_strided_": "as_strided"}


def is_view_op(schema: FunctionSchema) -> bool:
    """Returns alias an input without writing it: `view(Tensor(a) self, ...) -> Tensor(a)`."""
    return any(r.annotation is not None and not r.annotation.is_write for r in schema.returns)


def needs_kernel(schema: FunctionSchema) -> bool:
    return schema.is_mutable or is_view_op(schema)


def redispatch_below(get_op: Callable[[], Any], kernels: dict, ks: int, mask: int, exclude: int, args: tuple,
                     kwargs: dict) -> Any:
    """at::redispatch(ks & mask) under a guard that adds `exclude` to the thread's excluded keys
    (AutoDispatchBelowADInplaceOrView, or AutoDispatchBelowAutograd for the Autograd kernels of
    in-place operators). The kernel below is kept per key set in the caller's `kernels` (the
    dispatcher empties it when a registration changes it); `get_op` is called only to look it up."""
    fn = kernels.get(ks)
    if fn is None:
        fn = get_op().redispatch_function(ks & mask, kernels, ks)
    saved = _local.excluded
    _tls.set_excluded(saved | exclude)
    try:
        return fn(*args, **kwargs)
    finally:
        _tls.set_excluded(saved)


def inplace_or_view_kernel(schema: FunctionSchema, get_op: Callable[[], Any]) -> Callable:
    """The kernel (called with the raw key set first) for a mutating or a view operator."""
    written = []
    pos = 0
    for a in schema.arguments:
        if a.is_write:
            written.append((None if a.kwarg_only else pos, a.name))
        if not a.kwarg_only:
            pos += 1
    op = None
    kernels: dict = {}  # ks -> the kernel below this key (the dispatcher keeps it current)

    # As PyTorch's: redispatch under AutoDispatchBelowADInplaceOrView, so operators the kernel
    # calls do not come back through this key (and bump versions twice).
    view_name = INPLACE_VIEW.get(str(schema.name))
    if view_name is not None:
        from . import load

        def ad_inplace_view(ks: int, *args: Any, **kwargs: Any) -> Any:
            self = args[0] if args else kwargs["self"]
            parent = self._view_fn if self._base is not None else None
            result = redispatch_below(get_op, kernels, ks, _MASK, _BELOW, args, kwargs)
            self._vc.value += 1
            if parent is not None:  # replays of this view now end with the same change
                base, _, overload = view_name.partition(".")
                vop = getattr(getattr(load.provided["aten"], base), overload or "default")
                self._view_fn = (vop, args[1:], kwargs, parent, None)
            return result

        return ad_inplace_view

    if written:
        def ad_inplace(ks: int, *args: Any, **kwargs: Any) -> Any:
            result = redispatch_below(get_op, kernels, ks, _MASK, _BELOW, args, kwargs)
            for p, name in written:
                t = args[p] if p is not None and p < len(args) else kwargs.get(name)
                if t is not None:
                    if isinstance(t, (list, tuple)):
                        for x in t:
                            x._vc.value += 1
                    else:
                        t._vc.value += 1
            return result

        return ad_inplace

    def ad_view(ks: int, *args: Any, **kwargs: Any) -> Any:
        nonlocal op
        result = redispatch_below(get_op, kernels, ks, _MASK, _BELOW, args, kwargs)
        if op is None:  # the handle a later in-place write replays this view with
            op = get_op()
        self = args[0] if args else kwargs["self"]
        parent = None
        if self._base is not None:
            parent = self._view_fn
            if parent is None:  # a view made outside the dispatcher: it cannot be replayed
                return result
        rest = args[1:]
        no_grad = self._requires_grad and not _local.grad_enabled
        if type(result) is Tensor:
            if result._base is not None:
                result._view_fn = (op, rest, kwargs, parent, None)
                result._view_version = result._vc.value
                if no_grad:  # requires grad through its base, as torch's view does (but has no edge)
                    result._creation_meta, result._requires_grad = CreationMeta.NO_GRAD_MODE, True
        else:
            for i, t in enumerate(result):
                if t._base is not None:
                    t._view_fn = (op, rest, kwargs, parent, i)
                    t._view_version = t._vc.value
                    if no_grad:  # requires grad through its base, as torch's view does (but has no edge)
                        t._creation_meta, t._requires_grad = CreationMeta.NO_GRAD_MODE, True
        return result

    return ad_view
