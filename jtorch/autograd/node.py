"""Graph nodes (torch/csrc/autograd/function.h, saved_variable.cpp, accumulate_grad.cpp).

A Node is one recorded operator call seen backwards: it takes the gradients of the call's
outputs and returns the gradients of its inputs. `next_functions[i]` is the edge (node, input_nr)
that input i's gradient flows into: the producing node of a non-leaf, the AccumulateGrad of a leaf
that requires grad, or (None, 0) where no gradient is needed. Nodes made by the same forward
thread are numbered (`_sequence_nr`) so that the engine runs later nodes first. A view's grad_fn
is current only for the version of the memory it was made for: `gradient_edge` regenerates it
(`regenerate_grad_fn`) after its base was written in place.
"""
from __future__ import annotations

import itertools
import sys
import weakref
from collections.abc import Callable
from typing import Any

from .. import tls as _tls
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import CreationMeta, Tensor

_local = _tls.local
_getrefcount = sys.getrefcount
_STEAL_REFS = 3  # grads[0], the local `g`, getrefcount's argument
_next_sequence_nr = itertools.count().__next__
NO_EDGE = (None, 0)
_NO_GRAD_MODE = CreationMeta.NO_GRAD_MODE  # bound once: an enum attribute lookup costs as much as a call

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.")


class RemovableHandle:
    """What register_hook returns: `handle.remove()` takes the hook out again."""

    def __init__(self, hooks: dict, key: int) -> None:
        self._hooks, self.id = hooks, key

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


_hook_ids = itertools.count().__next__


def add_hook(hooks: dict, fn: Callable) -> RemovableHandle:
    key = _hook_ids()
    hooks[key] = fn
    return RemovableHandle(hooks, key)


class Node:
    """One backward function. Subclasses implement `apply(grads) -> tuple of input gradients`."""

    __slots__ = ("next_functions", "_sequence_nr", "_pre_hooks", "_post_hooks", "_tensor_hooks",
                 "_retain_grad", "_metadata", "_released", "_n_out", "__weakref__")
    # the slots' types; the hook tables are made on first use
    _pre_hooks: dict[int, Callable[..., Any]] | None
    _post_hooks: dict[int, Callable[..., Any]] | None
    _tensor_hooks: dict[int, dict[int, Callable[..., Any]]] | None  # output_nr -> that output's hooks
    _retain_grad: dict[int, Any] | None  # output_nr -> weakref to the tensor that retains its grad
    _metadata: dict[Any, Any] | None

    def __init__(self, next_functions: tuple, n_out: int = 1) -> None:
        self.next_functions = next_functions
        self._sequence_nr = _next_sequence_nr()
        self._n_out = n_out
        self._pre_hooks = self._post_hooks = self._tensor_hooks = self._retain_grad = self._metadata = None
        self._released = False

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def __call__(self, *grads: Any) -> Any:
        """Call the backward function directly, as `y.grad_fn(g)` does in torch."""
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def apply(self, grads: list) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def release(self) -> None:
        """Free the saved tensors (after a backward without retain_graph)."""
        self._released = True

    def _sequence(self) -> int:
        return self._sequence_nr

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) -> new grad_inputs or None, after the node ran."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) -> new grad_outputs or None, before the node runs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return add_hook(self._tensor_hooks.setdefault(output_nr, {}), fn)

    def name_of_forward(self) -> str:
        """The forward operator's name ('Exp' for ExpBackward0), as torch 2.13's messages print it."""
        n = type(self).__name__
        i = n.rfind("Backward")
        return n[:i] if i > 0 else n


class SavedVariable:
    """A tensor saved for backward with its version, checked when unpacked. A saved output of the
    node keeps no reference to the node (that would be a cycle): its grad_fn is weakly held and
    restored on unpack, as PyTorch's SavedVariable does."""

    __slots__ = ("data", "version", "grad_fn", "output_nr", "is_output")

    def __init__(self, t: Tensor, is_output: bool) -> None:
        vc = t._vc
        if vc is _NO_VERSION:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
                "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
                "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.version = vc.value
        self.is_output = is_output
        self.output_nr = t._output_nr
        if is_output:
            self.data = t.detach()
            self.grad_fn = weakref.ref(t.grad_fn) if t.grad_fn is not None else None
        else:
            self.data, self.grad_fn = t, None

    def unpack(self, node: Node, index: int = 0) -> Tensor:
        if node._released:
            raise RuntimeError(FREED)
        d = self.data
        if d._vc.value != self.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{tensor_type_name(d)} [{', '.join(map(str, d._size))}]]{_producer(self, node)} is at version "
                f"{d._vc.value}; expected version {self.version} instead. "
                "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")
        if not self.is_output:
            return d
        fn = self.grad_fn() if self.grad_fn is not None else None
        if fn is None:
            return d
        # an output seen with its history again, whatever the grad mode (torch's unpack makes it so;
        # create_graph differentiates through it, saved_tensors and _saved_result show it)
        t = d.detach()
        t.grad_fn, t._output_nr, t._requires_grad = fn, self.output_nr, True
        return t


def _producer(sv: SavedVariable, node: Node) -> str:
    """", which is output 0 of Exp," naming the saved tensor's producer; a leaf has none and
    torch's message then says nothing (saved_variable.cpp prints the clause only with a grad_fn)."""
    if sv.is_output:
        return f", which is output {sv.output_nr} of {node.name_of_forward()},"
    fn = sv.data.grad_fn
    return f", which is output {sv.output_nr} of {fn.name_of_forward()}," if fn is not None else ""


def tensor_type_name(t: Tensor) -> str:
    """torch.FloatTensor, torch.cuda.DoubleTensor, ... (the legacy type names messages print)."""
    dev = "" if t._device.type == "cpu" else t._device.type + "."
    return f"torch.{dev}{SCALAR_TYPE_NAME[t.dtype]}Tensor"


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: sums incoming gradients into `variable.grad`.

    The leaf holds its accumulator and the accumulator holds the leaf weakly (PyTorch holds them the
    other way round): no cycle, and one accumulator per leaf for as long as the leaf lives."""

    __slots__ = ("_variable", "_post_acc_hooks")

    def __init__(self, variable: Tensor) -> None:
        super().__init__((), 1)
        self._variable = weakref.ref(variable)
        self._post_acc_hooks: dict | None = None  # the leaf's register_post_accumulate_grad_hook hooks
        self._sequence_nr = 1 << 64  # UINT64_MAX: runs as soon as it is ready

    @property
    def variable(self) -> Tensor | None:  # None once the leaf is gone (held weakly)
        return self._variable()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # torch's C++ nodes print their qualified names

    def apply(self, grads: list) -> tuple:
        g = grads[0]
        var = self._variable()
        if g is None or var is None:
            return ()
        if var._grad is None:
            # Steal the incoming gradient when nothing else holds it (torch checks use_count the same way):
            # the engine's list and this frame hold it, and getrefcount's own argument.
            if (not _local.grad_enabled and _getrefcount(g) <= _STEAL_REFS and g._stride == var._stride
                    and g._offset == 0 and g.dtype is var.dtype and _whole(g)):
                var._grad = g if g._base is None else Tensor._make(g._storage, g._size, g._stride, 0, g.dtype,
                                                                    g._device)
            else:
                new = var.new_empty_strided(var._size, var._stride) if _dense(var) else g.new_empty(var._size)
                var._grad = new.copy_(g)  # clone_obey_contract; under create_graph it records the copy, as torch's
        elif not _local.grad_enabled:
            var._grad.add_(g)
        else:
            var._grad = var._grad + g
        if self._post_acc_hooks:
            for h in list(self._post_acc_hooks.values()):
                if h(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


def _whole(g: Tensor) -> bool:
    """Not a view, or a view covering all of a base that nothing else holds (Linear's weight
    gradient is (grad^T x)^T): then its storage can become .grad without the view. The base is
    held by the view, this frame and getrefcount's argument."""
    base = g._base
    return base is None or (_getrefcount(base) <= 3 and g._storage.nbytes() == g.numel() * g.element_size())


def _dense(t: Tensor) -> bool:
    from ..geometry import contiguous_strides

    s = sorted(zip(t._stride, t._size))
    expect = 1
    for st, sz in s:
        if sz != 1 and st != expect:
            return t._stride == contiguous_strides(t._size)
        expect *= sz
    return True


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node."""
    acc = t._grad_accumulator
    if acc is None:
        acc = t._grad_accumulator = AccumulateGrad(t)
    return acc


def gradient_edge(t: Tensor) -> tuple:
    """Where t's gradient goes: (grad_fn, output_nr), (AccumulateGrad, 0) for a leaf, or no edge."""
    fn = t.grad_fn
    if t._base is not None and t._view_version != t._vc.value and t._view_fn is not None:
        fn = regenerate_grad_fn(t)  # a view whose base was written since: its history is stale
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad and t._creation_meta is not _NO_GRAD_MODE:  # a view made in no_grad mode has no edge
        acc = t._grad_accumulator
        return (acc if acc is not None else grad_accumulator(t), 0)
    return NO_EDGE


# ---- a view's history (VariableHooks::grad_fn in variable.cpp) ------------------------------------
def replay_view(view_fn: Any, base: Tensor) -> Tensor:
    """Rebuild a view from (another) base: view_fn is (op, args after self, kwargs, parent, index)."""
    op, rest, kwargs, parent, index = view_fn
    src = replay_view(parent, base) if parent is not None else base
    out = op(src, *rest, **kwargs)
    return out[index] if index is not None else out


def regenerate_grad_fn(view: Tensor) -> Node | None:
    """A view's history after its base (or another view of it) was written in place: the view's
    operators replayed on the base, whose history now includes the write (torch regenerates it as
    AsStridedBackward0; replaying keeps the view's own node, SliceBackward0 for a slice)."""
    view._view_version = view._vc.value
    base = view._base
    assert base is not None  # a view has a base
    if base._requires_grad:
        replay_history(view)
    return view.grad_fn


def replay_history(view: Tensor) -> None:
    """Give a view the history of its view operators replayed on its base, with grad mode on so that
    they are recorded whatever the caller's mode; a retained grad moves to the new node."""
    old_fn, old_nr = view.grad_fn, view._output_nr
    view._view_version = view._vc.value
    base = view._base
    assert base is not None  # a view has a base
    prev = _local.grad_enabled
    _local.grad_enabled = True
    try:
        regenerated = replay_view(view._view_fn, base)
    finally:
        _local.grad_enabled = prev
    view.grad_fn, view._output_nr, view._requires_grad = regenerated.grad_fn, regenerated._output_nr, True
    move_retains_grad(view, old_fn, old_nr)


def move_retains_grad(t: Tensor, old_fn: Node | None, old_nr: int) -> None:
    """update_tensor_hooks_on_new_gradfn: a tensor that retains its grad keeps doing so through its
    new grad_fn (its other hooks stay with the old one, as in torch)."""
    if not t._retains_grad or old_fn is None or old_fn is t.grad_fn:
        return
    ref = old_fn._retain_grad.pop(old_nr, None) if old_fn._retain_grad else None
    if ref is not None:
        fn = t.grad_fn
        if fn._retain_grad is None:
            fn._retain_grad = {}
        fn._retain_grad[t._output_nr] = ref


class Error(Node):
    """A node that fails when the engine reaches it (torch's Error / NotImplemented nodes)."""

    __slots__ = ("msg",)

    def __init__(self, msg: str, next_functions: tuple, n_out: int = 1) -> None:
        super().__init__(next_functions, n_out)
        self.msg = msg

    def apply(self, grads: list) -> tuple:
        raise RuntimeError(self.msg)

    def name(self) -> str:
        return "torch::autograd::" + type(self).__name__  # a C++ node in torch: its qualified name


class NotImplemented(Error):
    __slots__ = ()


class DelayedError(Error):
    """For outputs that must not be differentiated (once_differentiable, ...): fails only if used."""

    __slots__ = ()


from ..tensor import _NO_VERSION  # noqa: E402  # tensor.py imports this module's records first
