"""The backward engine (torch/csrc/autograd/engine.cpp), in one function.

`run_backward` counts, for every node reachable from the roots, how many edges point at it
(compute_dependencies). A node runs when that count reaches zero, that is once every gradient of
its outputs has been summed into its input buffer: a tensor used twice gets the sum of both uses.
Ready nodes run latest-recorded first (a heap on sequence_nr), iteratively: a chain of any length
needs no recursion. Without retain_graph each node frees its saved tensors after it ran.
"""
from __future__ import annotations

import heapq
from typing import Any, Sequence

from .. import tls as _tls
from ..backends import backend
from ..structured.meta import allocate
from ..tensor import Tensor
from .node import Node

_local = _tls.local


def _call_hooks(hooks: dict | None, value: Any) -> Any:
    if hooks:
        for h in list(hooks.values()):
            r = h(value)
            if r is not None:
                value = r
    return value


def _pre(node: Node, grads: list) -> list:
    """Tensor hooks (per output), retain_grad, then the node's pre-hooks."""
    th = node._tensor_hooks
    if th:
        for nr, hooks in th.items():
            if grads[nr] is not None:
                grads[nr] = _call_hooks(hooks, grads[nr])
    rg = node._retain_grad
    if rg:
        for nr, ref in rg.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                t._grad = grads[nr].detach().clone() if t._grad is None else t._grad + grads[nr]
    if node._pre_hooks:
        for h in list(node._pre_hooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
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
            if n._tensor_hooks or n._retain_grad or n._pre_hooks:
                gin = _pre(n, gin)
            if captured is not None and n in targets:
                for i, nr in targets[n]:
                    captured[i] = gin[nr]
            # some gradient arrived (by identity: `gin.count(None)` would ask each Tensor's __eq__)
            if (needed is None or n in needed) and (gin[0] is not None if len(gin) == 1
                                                    else any(g is not None for g in gin)):
                gout = n.apply(gin)
                if n._post_hooks:
                    for h in list(n._post_hooks.values()):
                        r = h(tuple(gout), tuple(gin))
                        if r is not None:
                            gout = tuple(r)
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
    return [captured.get(i) for i in range(len(inputs))]


def _ones_like(t: Tensor) -> Tensor:
    """The implicit gradient of a scalar output (torch's ones_like(output)): allocated and filled
    through the backend's stub, as a temporary the engine owns (no dispatch, no history)."""
    g = allocate(t._size, None, t.dtype, t._device)
    if t._device.type != "meta":
        backend(t._device.type).stub("fill")(g, t.dtype.numpy.type(1))
    return g


def make_grads(outputs: Sequence[Tensor], grad_outputs: Sequence[Any], is_grads_batched: bool = False) -> list:
    """_make_grads: an implicit gradient of ones for scalar outputs, shape checks for given ones."""
    out = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if t._requires_grad:
                if t.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not t.dtype.is_floating_point and not t.dtype.is_complex:
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
