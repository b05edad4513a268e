"""Backends plug in by registration: a device type, its dispatch key, its storage and its stubs.

A stub is PyTorch's DispatchStub (`add_stub`, `sum_stub`, ...) at the granularity jtorch needs:
one function per *kind* of loop, not per operator. The structured layer decides shapes and dtypes
once for every backend and then calls the backend's stub with the built iterator and the
operator's scalar definition; only the stub looks inside a storage.

    register_backend("privateuseone", "PrivateUse1", storage=MyStorage, elementwise=..., reduce=...)

registers the backend and, through the listeners the structured layer and the declarations add,
registers kernels for every operator declared before it (and later ones as they are declared).

This module is a leaf: it imports nothing of jtorch, so kernels and the structured layer alike
can import it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The stub kinds a backend may provide; a missing one makes the operators that need it raise
# PyTorch's "not implemented" error on that backend.
#   elementwise(it, scalar_fn, extras)          run a scalar function over a built TensorIterator
#   elementwise_contiguous(fn, pattern, nextra)  -> run(out, tensors, dtype, extras, numel):
#                                                TensorIterator's fast set-up (optional; the full
#                                                build otherwise)
#   reduce(it, reduction, extras)                a declared Reduction over a reduce-mode iterator
#   reduce_contiguous(reduction, x, results, extras, mask=None)  a small contiguous input reduced
#                                                over the dims `mask` marks (None: all) into contiguous
#                                                results, no iterator; False where it does not serve
#                                                (optional; the iterator otherwise)
#   scan(plan, decl, extras)                     a declared Scan / IndexedScan / RowNormaliser
#                                                (kernels/scalar_scan.py) along plan.dim of plan.input
#   fill(t, value)  copy(dst, src)  random(kind, t, generator, params)  index(kind, ...)
#   matmul(kind, out, a, b, self, beta, alpha)  out = alpha * a@b + beta * self; kind mm, bmm, mv, dot, vdot
#   remap(dst, src, tri)                         dst[...] = src, one shape and dtype, strides may be
#                                                negative (flip); tri=(k, lower): tril/triu's triangle
#   cat(out, tensors, dim) -> bool               cat's fast copy (optional; False: copy stub per input)
#   sort(kind, ...)                              sort, topk, kthvalue, mode, searchsorted, unique, isin,
#                                                bincount, histc (jtorch/kernels/cpu/sort.py lists the forms)
#   range(kind, out, *args)                      arange ("arange", out, start, step) and linspace
#                                                ("linspace", out, start, end, steps) values computed on
#                                                the device into a 1-D out (optional; host values copied
#                                                in otherwise)
#   im2col(kind, src, kernel, dilation, padding, stride, out)   "im2col" (N,C,H,W) -> (N,C*kh*kw,L) and
#                                                "col2im" back, summing overlaps (kernels/cpu/im2col.py)
#   pool(kind, ...)                              2-d max / avg / adaptive avg pooling and their backwards
#                                                (kernels/cpu/pool.py lists the forms)
#   loss(kind, ...)                              nll_loss forward and backward (kernels/cpu/loss.py lists
#                                                the forms)
#   softmax_backward(log, grad_output, output, grad_input, n)   softmax / log_softmax gradients along
#                                                the last dim of contiguous (rows, n) tensors
#   lazy_init()                                  torch's lazy device initialisation: raise torch's error
#                                                when the device cannot be used (no GPU, say)
STUB_KINDS = ("elementwise", "elementwise_contiguous", "reduce", "reduce_contiguous", "scan", "fill", "copy",
              "random", "index", "matmul", "read_scalar", "remap", "cat", "sort", "range", "im2col", "pool", "loss",
              "softmax_backward", "lazy_init")


@dataclass
class Backend:
    device_type: str          # "cpu", "cuda", "privateuseone"
    dispatch_key: str         # "CPU", "CUDA", "PrivateUse1"
    storage: Callable | None  # storage(numel, dtype, device) -> Storage
    stubs: dict[str, Callable] = field(default_factory=dict)

    def stub(self, kind: str) -> Callable:
        fn = self.stubs.get(kind)
        if fn is None:
            raise NotImplementedError(f"the {self.dispatch_key} backend registered no '{kind}' stub")
        return fn


_backends: dict[str, Backend] = {}        # by device type
_by_key: dict[str, Backend] = {}          # by dispatch key
_listeners: list[Callable[[Backend], None]] = []


def register_backend(device_type: str, dispatch_key: str, *, storage: Callable | None = None,
                     **stubs: Callable) -> Backend:
    """Register (or extend) a backend; every listener sees it, so kernels follow for the operators
    already declared. Registering the same device type again adds or replaces stubs."""
    unknown = set(stubs) - set(STUB_KINDS)
    if unknown:
        raise ValueError(f"unknown stub kinds {sorted(unknown)}; known: {', '.join(STUB_KINDS)}")
    b = _backends.get(device_type)
    new = b is None or not b.dispatch_key  # a storage-only entry becomes a backend now
    if b is None:
        b = _backends[device_type] = Backend(device_type, dispatch_key, storage, dict(stubs))
    else:
        b.dispatch_key = b.dispatch_key or dispatch_key
        if storage is not None:
            b.storage = storage
        b.stubs.update(stubs)
    _by_key[b.dispatch_key] = b
    if new:
        for fn in list(_listeners):
            fn(b)
    return b


def unregister_backend(device_type: str) -> None:
    """Forget a backend (tests). Kernels registered for it stay in the dispatcher's tables."""
    b = _backends.pop(device_type, None)
    if b is not None:
        _by_key.pop(b.dispatch_key, None)


def on_backend(fn: Callable[[Backend], None]) -> Callable[[Backend], None]:
    """Call fn(backend) for every backend registered now and in the future."""
    _listeners.append(fn)
    for b in list(_backends.values()):
        fn(b)
    return fn


def backends() -> list[Backend]:
    return list(_backends.values())


def backend(device_type: str) -> Backend:
    b = _backends.get(device_type)
    if b is None:
        raise RuntimeError(f"no backend is registered for device type '{device_type}'")
    return b


def backend_for_key(dispatch_key: str) -> Backend | None:
    return _by_key.get(dispatch_key)


# ---- storage factories (the part of a backend that factories and the structured layer use) ----
def register_storage(device_type: str, factory: Callable) -> None:
    """factory(numel, dtype, device) -> Storage, for a device type with no stubs (yet)."""
    b = _backends.get(device_type)
    if b is None:
        _backends[device_type] = Backend(device_type, "", factory)
    else:
        b.storage = factory


def registered() -> set[str]:
    return {t for t, b in _backends.items() if b.storage is not None}


def storage_for(dev: Any) -> Callable:
    b = _backends.get(dev.type)
    if b is None or b.storage is None:
        raise RuntimeError(f"no storage is registered for device type '{dev.type}'")
    return b.storage


def lazy_init(device_type: str) -> None:
    """Initialise a device before first use (CUDA: find the driver), raising torch's error when
    it cannot be used. Devices without a lazy_init stub need none."""
    b = _backends.get(device_type)
    fn = b.stubs.get("lazy_init") if b is not None else None
    if fn is not None:
        fn()
