"""Custom autograd Functions (torch/autograd/function.py, torch/csrc/autograd/custom_function.cpp).

A subclass of `Function` gets, when its class is made, a node class `<Name>Backward`: a `Node`
that is also the `ctx` the user's forward/backward see. `apply` makes that node with the edges of
the tensor arguments, runs forward with grad mode off (the outputs get the custom node as history,
not the inner operators'), then sets the outputs' history the way `_process_backward_mode_ad`
does: non-differentiable outputs get none, dirty (in-place modified) inputs are rebased onto the
node, returned inputs become aliases. The node's `apply` calls the user's backward and validates
its gradients as the engine's `validate_outputs` does (count, shape sum_to-compatible, dtype).
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from .. import tls as _tls
from ..tensor import Tensor
from .node import FREED, NO_EDGE, Error, Node, SavedVariable, gradient_edge
from .views import rebase_history

_local = _tls.local

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction",
           "NestedIOFunction"]


class FunctionCtx:
    """What forward/setup_context may call on `ctx` (the node itself)."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs: Any) -> None:
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are automatically tracked. "
                      "Note that calls to `set_()` are not tracked", DeprecationWarning, stacklevel=2)


class BackwardCFunction(Node, FunctionCtx):
    """The node of one custom Function call; `_forward_cls` is the user's Function class."""

    _forward_cls: type[_SingleLevelFunction]
    materialize_grads = True
    to_save: tuple = ()
    dirty_tensors: tuple = ()
    non_differentiable: tuple = ()

    def __init__(self, next_functions: tuple) -> None:
        Node.__init__(self, next_functions, 1)
        self._saved_variables: list | None = None
        self._is_tensor_input: list = []
        self._input_meta: list = []
        self._output_meta: list = []

    @property
    def saved_tensors(self) -> tuple:
        sv = self._saved_variables
        if sv is None:
            if self._released:
                raise RuntimeError(FREED)
            return tuple(self.to_save)  # still inside forward/setup_context
        if self._released:
            raise RuntimeError(FREED)
        return tuple(v.unpack(self) if v is not None else None for v in sv)

    saved_variables = saved_tensors

    def __call__(self, *grads: Any) -> Any:  # torch's Python node class has no __call__ (its C++ nodes do)
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    def __repr__(self) -> str:  # a Python class in torch: object's repr, with its module
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"

    def release(self) -> None:
        self._released = True
        self._saved_variables = []

    def apply(self, grads: list) -> tuple:
        if self.materialize_grads and None in grads:  # zeros for the outputs that got no gradient
            like = next(g for g in grads if g is not None)
            grads = [g if g is not None or m is None else like.new_zeros(m[0], dtype=m[1], device=m[2])
                     for g, m in zip(grads, self._output_meta)]
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        base = _SingleLevelFunction
        if backward_fn is not base.backward and vjp_fn is not base.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        user_fn = vjp_fn if vjp_fn is not base.vjp else backward_fn
        result = user_fn(self, *grads)  # grad mode is what the engine set (create_graph)
        if not isinstance(result, tuple):
            result = (result,)
        return self._validate(list(result))

    def _validate(self, res: list) -> tuple:
        """_trim_grad_input and validate_outputs: one gradient per forward input, checked and fitted."""
        name = self.name()
        expected = len(self._is_tensor_input)
        if len(res) > expected and all(g is None for g in res[expected:]):
            del res[expected:]
        if len(res) != expected:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {expected}, "
                               f"got {len(res)})")
        out = []
        for i, (g, is_tensor) in enumerate(zip(res, self._is_tensor_input)):
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            out.append(g)
        for i, (g, meta, (nf, _)) in enumerate(zip(out, self._input_meta, self.next_functions)):
            if g is None or nf is None:
                out[i] = None
                continue
            shape, dtype = meta
            if g._size != shape:
                if not _expandable_to(shape, g._size):
                    raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                                       f"{list(g._size)} but expected shape compatible with {list(shape)}")
                g = _sum_to(g, shape)
            if g.dtype is not dtype:
                g = g.to(dtype)
            out[i] = g
        return tuple(out)


def _expandable_to(shape: tuple, desired: tuple) -> bool:
    """at::is_expandable_to(shape, desired): `shape` broadcasts to `desired`."""
    if len(shape) > len(desired):
        return False
    for a, b in zip(reversed(shape), reversed(desired)):
        if a != b and a != 1:
            return False
    return True


def _sum_to(g: Tensor, shape: tuple) -> Tensor:
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g._size[lead + i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(shape) if tuple(g._size) != tuple(shape) else g


class FunctionMeta(type):
    """Makes the `<Name>Backward` node class of every Function subclass."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls,
                                                                          "__module__": __name__})
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
    _backward_cls: type[BackwardCFunction]  # made by FunctionMeta

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class of custom autograd operations: subclass it with static forward and backward,
    and call `MyFunction.apply(*args)`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            bound = _bind_kwargs(cls.forward, args, kwargs, cls.setup_context is not _SingleLevelFunction.setup_context)
            args = bound
        return _apply(cls, args)


def _bind_kwargs(forward: Callable, args: tuple, kwargs: dict, setup_ctx: bool) -> tuple:
    """apply(*args, **kwargs): bind to forward's signature so backward sees every input positionally."""
    import inspect

    sig = inspect.signature(forward)
    b = sig.bind(*args, **kwargs) if setup_ctx else sig.bind(None, *args, **kwargs)
    b.apply_defaults()
    return tuple(b.args if setup_ctx else b.args[1:])


def _apply(cls: type[_SingleLevelFunction], args: tuple[Any, ...]) -> Any:
    grad_on = _local.grad_enabled
    is_tensor = [isinstance(a, Tensor) for a in args]
    edges = tuple(gradient_edge(a) if grad_on else NO_EDGE for a, t in zip(args, is_tensor) if t)
    executable = any(e[0] is not None for e in edges)
    ctx = cls._backward_cls(edges)
    ctx._is_tensor_input = is_tensor
    ctx._input_meta = [(a._size, a.dtype) for a, t in zip(args, is_tensor) if t]
    # requires_grad alone, whatever the grad mode (THPFunction_apply's unpack_input)
    ctx.needs_input_grad = tuple(t and a._requires_grad for a, t in zip(args, is_tensor))
    setup = cls.setup_context is not _SingleLevelFunction.setup_context
    _local.grad_enabled = False
    try:
        if setup:
            outputs = cls.forward(*args)
            cls.setup_context(ctx, args, outputs)
        else:
            outputs = cls.forward(ctx, *args)
    finally:
        _local.grad_enabled = grad_on
    return _wrap_outputs(ctx, args, outputs, executable)


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: Any, executable: bool) -> Any:
    single = not isinstance(outputs, tuple)
    outs = [outputs] if single else list(outputs)
    inputs = {id(a): a for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    n_dirty_returned = 0
    ctx._n_out = len(outs)
    originals = list(outs)
    for i, t in enumerate(outs):
        if not isinstance(t, Tensor):
            continue
        is_input, is_modified = id(t) in inputs, id(t) in dirty
        if is_modified:
            n_dirty_returned += 1
            t._bump_version()  # torch counts mark_dirty as one more write
        diff = executable and id(t) not in non_diff and (t.dtype.is_floating_point or t.dtype.is_complex)
        if not diff:
            if not t._requires_grad:
                if is_input and not is_modified:
                    outs[i] = t.detach()
                continue
            if is_input:
                outs[i] = t.detach()
            elif t._base is None:
                t.detach_()
        elif is_modified:
            if t.grad_fn is None and t._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            if not is_input:
                warnings.warn("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, "
                              "there is no need to pass it to mark_dirty().", UserWarning, stacklevel=4)
            if t._base is not None and len(outs) > 1:
                raise RuntimeError(
                    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot "
                    "return more than one Tensor. This is not supported by the current autograd engine. You should "
                    "either make sure the input is not a view (using .clone() for example) or make your Function only "
                    "return one Tensor (potentially splitting it into two Functions: one doing the inplace that "
                    "returns that view and another one that returns the other Tensors).")
            t._grad = None
            rebase_history(t, ctx)
            if t.grad_fn is ctx:
                t._output_nr = i
        else:
            if is_input:
                t = outs[i] = t.detach()  # an alias of the input with this node as history (view_as in torch)
            t.grad_fn, t._output_nr, t._requires_grad = ctx, i, True
    if n_dirty_returned < len(dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")
    ctx._output_meta = [(t._size, t.dtype, t._device) if isinstance(t, Tensor) else None for t in outs]
    if executable:
        out_ids = {id(o): (i, outs[i]) for i, o in enumerate(originals) if isinstance(o, Tensor)}
        saved: list[SavedVariable | None] = []
        for t in ctx.to_save:
            if t is None:
                saved.append(None)
            elif id(t) in out_ids:
                o = out_ids[id(t)][1]
                saved.append(SavedVariable(o, o.grad_fn is ctx))
            else:
                saved.append(SavedVariable(t, False))
        ctx._saved_variables = saved
        ctx.to_save = ()
    # not executable: nothing is saved (torch saves only for a graph; inference tensors may be "saved")
    return outs[0] if single else tuple(outs)


def once_differentiable(fn: Callable) -> Callable:
    """A backward that is not itself differentiable: it runs without grad, and differentiating its
    results again fails with torch's message (the Error node torch's DelayedError gives its outputs)."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        prev = _local.grad_enabled
        _local.grad_enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _local.grad_enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fakes = []
        for v in outs:
            if v is not None:
                v = v.detach()
                v._requires_grad = True
            fakes.append(v)
        err = Error("trying to differentiate twice a function that was marked with @once_differentiable",
                           tuple(gradient_edge(v) if v is not None else NO_EDGE for v in fakes), len(fakes))
        res = []
        for i, v in enumerate(fakes):
            if v is not None:
                v = v.detach()
                v.grad_fn, v._output_nr, v._requires_grad = err, i, True
            res.append(v)
        return tuple(res)

    return wrapper


class InplaceFunction(Function):
    """A Function with an `inplace` flag (torch keeps it for old code)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Not supported: the legacy nested-input Function interface."""
