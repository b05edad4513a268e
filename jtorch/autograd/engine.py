"""The backward engine (torch/csrc/autograd/engine.cpp), in one function.

`run_backward` counts, for every node reachable from the roots, how many edges point at it
(compute_dependencies). A node runs when that count reaches zero, that is once every gradient of
its outputs has been summed into its input buffer: a tensor used twice gets the sum of both uses.
Ready nodes run latest-recorded first (a heap on sequence_nr), iteratively: a chain of any length
needs no recursion. Without retain_graph each node frees its saved tensors after it ran.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

from .. import tls as _tls
from ..backends import backend
from ..scalar import dtype_scalar
from ..structured.meta import allocate
from ..tensor import Tensor
from .node import Node, tensor_type_name

_local = _tls.local
# (open(name, grads) -> event, close(event)) set by the autograd profiler while one records (torch's
# RecordFunction in evaluate_function and call_function): each node's run is two nested events
node_observers: list = []
# AnomalyMode (process-wide in torch too): [enabled, check_nan]; set through autograd.set_detect_anomaly
anomaly = [False, True]


def _hook_name(hook: Any) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _check_single_result(orig: Any, res: Any, hook: Any) -> None:
    """check_single_result (python_hook.cpp): a hook may not change a gradient's dtype, device or size."""
    if orig is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(res, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
    if res.dtype != orig.dtype or res._device.type != orig._device.type:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was {tensor_type_name(orig)} "
                           f"got {tensor_type_name(res)})")
    if res._size != orig._size:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


def _check_result(prev: tuple, res: Any, hook: Any) -> None:
    """check_result: a node hook returns a tuple of as many gradients as it was given."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    if len(res) != len(prev):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got {len(res)}, "
                           f"but expected {len(prev)})")
    for p, r in zip(prev, res):
        if r is not None:
            _check_single_result(p, r, hook)


def _call_hooks(hooks: dict | None, value: Any) -> Any:
    """A tensor's hooks in order, each given the last one's result (called with None too, as
    torch calls them when the node got no gradient for that output)."""
    if hooks:
        for h in list(hooks.values()):
            r = h(value)
            if r is not None and r is not value:
                _check_single_result(value, r, h)
                value = r
    return value


def _call_node_hooks(hooks: dict, grads: tuple, *rest: tuple) -> tuple:
    for h in list(hooks.values()):
        r = h(grads, *rest)
        if r is not None and r is not grads:
            _check_result(grads, r, h)
            grads = r
    return grads


def _tensor_pre(node: Node, grads: list) -> list:
    """call_tensor_pre_hooks: the tensors' hooks (per output), then retain_grad."""
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            grads[nr] = _call_hooks(hooks, grads[nr])
    rg = node._retain_grad
    if rg:
        for nr, ref in rg.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                # clone(): with create_graph the retained grad has history (CloneBackward0), as in torch
                t._grad = g.clone() if t._grad is None else t._grad + g
    return grads


def _pre(node: Node, grads: list) -> list:
    """Tensor hooks (per output), retain_grad, then the node's pre-hooks."""
    if node._tensor_hooks or node._retain_grad:
        grads = _tensor_pre(node, grads)
    if node._pre_hooks:
        grads = list(_call_node_hooks(node._pre_hooks, tuple(grads)))
    return grads


def run_backward(roots: Sequence[tuple], grads: Sequence[Any], keep_graph: bool, create_graph: bool,
                 inputs: Sequence[tuple] | None = None) -> list:
    """Run the graph backwards from `roots` (edges (node, nr)) seeded with `grads`.

    Without `inputs` (backward()) every node runs and leaves get .grad from their AccumulateGrad.
    With `inputs` (autograd.grad, backward(inputs=...)) the gradients flowing into those edges are
    captured and returned, and only the nodes on a path to them run.
    """
    # compute_dependencies: one DFS over next_functions, counting edges into each node
    deps: dict[Node, int] = {}
    seen = set()
    stack = list(dict.fromkeys(n for n, _ in roots if n is not None))  # two outputs of one node: one root
    for n in stack:
        seen.add(n)
    order = []
    while stack:
        n = stack.pop()
        order.append(n)
        for nf, _ in n.next_functions:
            if nf is not None:
                deps[nf] = deps.get(nf, 0) + 1
                if nf not in seen:
                    seen.add(nf)
                    stack.append(nf)

    captured: dict | None = None
    needed: set | None = None
    if inputs is not None:  # exec_info: run only nodes from which some input's edge is reachable
        captured = {}
        targets: dict[Node, list] = {}
        for i, (n, nr) in enumerate(inputs):
            if n is not None:
                targets.setdefault(n, []).append((i, nr))
        # needed: nodes with a path to some target (a target itself only runs if it leads to another)
        needed = set()
        changed = True
        while changed:
            changed = False
            for n in reversed(order):  # mostly children first: one pass and one to confirm
                if n not in needed and any(nf is not None and (nf in needed or nf in targets)
                                           for nf, _ in n.next_functions):
                    needed.add(n)
                    changed = True

    buffers: dict[Node, list] = {}
    heap: list = []
    for (n, nr), g in zip(roots, grads):
        if n is None:
            continue
        buf = buffers.get(n)
        if buf is None:
            buf = buffers[n] = [None] * n._n_out
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    for n in buffers:
        if deps.get(n, 0) == 0:
            heapq.heappush(heap, (-n._sequence_nr, id(n), n))

    prev_grad = _local.grad_enabled
    _local.grad_enabled = create_graph
    heappop, heappush, pop = heapq.heappop, heapq.heappush, buffers.pop
    try:
        while heap:
            n = heappop(heap)[2]
            gin = pop(n, None)
            if gin is None:
                gin = [None] * n._n_out
            run = needed is None or n in needed
            if captured is not None and n in targets:
                # as torch's evaluate_function: a node that will run is captured before its hooks,
                # one that won't gets its tensors' hooks (not its own pre-hooks) first
                if not run and (n._tensor_hooks or n._retain_grad):
                    gin = _tensor_pre(n, gin)
                for i, nr in targets[n]:
                    captured[i] = gin[nr]
            # some gradient arrived (by identity: `gin.count(None)` would ask each Tensor's __eq__)
            if run and (gin[0] is not None if len(gin) == 1 else any(g is not None for g in gin)):
                if n._tensor_hooks or n._retain_grad or n._pre_hooks:
                    gin = _pre(n, gin)
                if node_observers:
                    gout = _observed_apply(n, gin)
                else:
                    gout = n.apply(gin)
                if anomaly[0] and anomaly[1]:
                    _check_nan(n, gout)
                if n._post_hooks:
                    gout = _call_node_hooks(n._post_hooks, tuple(gout), tuple(gin))
                if not keep_graph:
                    n.release()
            else:
                gout = ()
            del gin
            nout = len(gout)
            i = 0
            for nf, nr in n.next_functions:
                if nf is not None:
                    g = gout[i] if i < nout else None
                    if g is not None:
                        buf = buffers.get(nf)
                        if buf is None:
                            buf = buffers[nf] = [None] * nf._n_out
                        buf[nr] = g if buf[nr] is None else buf[nr] + g
                    d = deps[nf] - 1
                    deps[nf] = d
                    if d == 0:
                        heappush(heap, (-nf._sequence_nr, id(nf), nf))
                i += 1
            del gout
            g = None  # the last gradient passed on: AccumulateGrad may steal it only if nothing else holds it
    finally:
        _local.grad_enabled = prev_grad
    if captured is None:
        return []
    return [captured.get(i) for i in range(len(inputs))]  # type: ignore[arg-type]  # captured: inputs given


def _check_nan(n: Node, gout: Any) -> None:
    """Anomaly mode's check of each node's results (engine.cpp's evaluate_function)."""
    prev = _local.grad_enabled
    _local.grad_enabled = False
    try:
        for i, g in enumerate(gout):
            if g is not None and bool(g.isnan().any()):
                raise RuntimeError(f"Function '{n.name()}' returned nan values in its {i}th output.")
    finally:
        _local.grad_enabled = prev


def _observed_apply(n: Node, gin: list) -> tuple:
    """n.apply inside the profiler's events "autograd::engine::evaluate_function: <name>" and "<name>"."""
    open_, close = node_observers[0]
    name = n.name()
    outer = open_("autograd::engine::evaluate_function: " + name, ())
    try:
        inner = open_(name, gin)
        try:
            return n.apply(gin)
        finally:
            close(inner)
    finally:
        close(outer)


def _ones_like(t: Tensor) -> Tensor:
    """The implicit gradient of a scalar output (torch's ones_like(output)): allocated and filled
    through the backend's stub, as a temporary the engine owns (no dispatch, no history)."""
    g = allocate(t._size, None, t.dtype, t._device)
    if t._device.type != "meta":
        backend(t._device.type).fill(g, dtype_scalar(t.dtype, 1))
    return g


def make_grads(outputs: Sequence[Tensor], grad_outputs: Sequence[Any], is_grads_batched: bool = False) -> list:
    """_make_grads: an implicit gradient of ones for scalar outputs, shape checks for given ones."""
    out = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if t._requires_grad:
                if t.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not t.dtype.is_floating_point:  # complex too: torch wants a real scalar here
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {t.dtype}")
                g = _ones_like(t)
            out.append(g)
            continue
        if not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got " + type(g).__name__)
        if g._size != t._size:
            from ..tensor import Size

            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(Size(g._size))}) "
                               f"and output[{i}] has a shape of torch.Size({list(Size(t._size))}).")
        if g.dtype.is_complex != t.dtype.is_complex:
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
                               f"output[{i}] has a dtype of {t.dtype}.")
        out.append(g)
    return out
