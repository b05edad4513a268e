"""`jtorch.autograd.backward`, `jtorch.autograd.grad` and the Tensor methods of autograd
(torch/autograd/__init__.py, torch/_tensor.py): backward, register_hook, retain_grad."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import tls as _tls
from ..tensor import Tensor
from .engine import make_grads, run_backward
from .node import RemovableHandle, add_hook, grad_accumulator, gradient_edge

_local = _tls.local


def _tensors(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _roots(outputs: Sequence[Tensor]) -> list:
    roots = []
    for i, t in enumerate(outputs):
        e = gradient_edge(t)
        if e[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(e)
    return roots


def _grad_outputs(outputs: tuple, grad_outputs: Any) -> list:
    if grad_outputs is None:
        gs: list = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        gs = [grad_outputs]
    else:
        gs = list(grad_outputs)
    # torch's _make_grads zips the two (extra gradients are ignored); the engine then counts
    grads = make_grads(outputs, gs[:len(outputs)])
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Any = None, inputs: Any = None) -> None:
    """Sum the gradients of `tensors` into the .grad of the graph's leaves (or of `inputs`)."""
    outputs = _tensors(tensors)
    if grad_variables is not None:
        import warnings

        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    grads = _grad_outputs(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None and not _tensors(inputs):
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _roots(outputs)
    inputs = _tensors(inputs)
    if create_graph:
        _warn_create_graph_cycle()
    if not inputs:
        run_backward(roots, grads, retain_graph, create_graph)
        return
    edges = [gradient_edge(t) for t in inputs]
    for n, _ in edges:
        if n is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    got = run_backward(roots, grads, retain_graph, create_graph, inputs=edges)
    prev = _local.grad_enabled
    _local.grad_enabled = create_graph
    try:
        for t, g in zip(inputs, got):
            if g is not None:
                grad_accumulator(t).apply([g]) if t.grad_fn is None else _accumulate_non_leaf(t, g)
    finally:
        _local.grad_enabled = prev


_warned_cycle = False


def _warn_create_graph_cycle() -> None:
    """The engine's TORCH_WARN_ONCE for backward(create_graph=True): once per process."""
    global _warned_cycle
    if not _warned_cycle:
        _warned_cycle = True
        import warnings

        warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                      "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
                      "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
                      "of your parameters to None after use to break the cycle and avoid the leak.", UserWarning,
                      stacklevel=4)


def _accumulate_non_leaf(t: Tensor, g: Tensor) -> None:
    t._grad = g if t._grad is None else t._grad + g


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of `outputs` with respect to `inputs`, returned instead of accumulated."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        import warnings

        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    outs = _tensors(outputs)
    ins = _tensors(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _grad_outputs(outs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outs)
    edges = []
    for t in ins:
        e = gradient_edge(t)
        if e[0] is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(e)
    got = run_backward(roots, grads, retain_graph, create_graph, inputs=edges)
    result = []
    for i, (t, g) in enumerate(zip(ins, got)):
        if g is None:
            if materialize_grads:
                g = t.new_zeros(t.shape)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        result.append(g)
    return tuple(result)


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Module.zero_grad's and Optimizer.zero_grad's reset of each gradient: to None, or zeroed in
    place once cut from any graph (detached if it has a grad_fn, else no longer requiring grad)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()


# ---- Tensor methods ---------------------------------------------------------------------------
def _backward(self: Tensor, gradient: Any = None, retain_graph: bool | None = None, create_graph: bool = False,
              inputs: Any = None) -> None:
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._register_tensor_hook(self._output_nr, hook)
    return grad_accumulator(self)._register_tensor_hook(0, hook)


def _register_post_accumulate_grad_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    """hook(tensor) after the leaf's .grad was accumulated (an optimizer step per parameter)."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    acc = grad_accumulator(self)
    if acc._post_acc_hooks is None:
        acc._post_acc_hooks = {}
    return add_hook(acc._post_acc_hooks, hook)


def _retain_grad(self: Tensor) -> None:
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None or self._retains_grad:
        return
    import weakref

    fn = self.grad_fn
    if fn._retain_grad is None:
        fn._retain_grad = {}
    fn._retain_grad[self._output_nr] = weakref.ref(self)
    self._retains_grad = True


def _retains_grad(self: Tensor) -> bool:
    return self._retains_grad


def install() -> None:
    Tensor.backward = _backward  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
    Tensor.register_hook = _register_hook  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
    Tensor.retain_grad = _retain_grad  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
    Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
    Tensor.retains_grad = property(_retains_grad)  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi


__all__ = ["backward", "grad", "add_hook"]
