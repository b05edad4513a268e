"""The CUDA `cat` stub, the twin of kernels/cpu/cat.py: every input of the output's dtype -> one
kernel launch per SLOTS inputs, any strides on either side. Returns False when the dtypes differ;
aten::cat then copies (and converts) each input into its slice with the copy stub.

The inputs travel as a tuple of SLOTS kernel arrays (unused slots repeat the first input) with a
table of their geometry, so one compiled specialisation per element width serves any number of
inputs and any layout; elements move as bits (remap.bits). Thread e of the flat walk over all
inputs' elements finds its input in the table (a short scan: at most SLOTS entries), decomposes
its position there in C order and writes the output element at the same position, shifted along
`dim` by the sizes of the inputs before it.

    g = [nd, dim, n, out strides (nd), then per input (nd + 4): first flat position, source
         offset, destination offset, size along dim, source strides (nd)],  shape = out's with
         the input's size along dim
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numba import cuda

from . import driver
from .elementwise import meta_array
from .remap import bits

SLOTS = 8


@cuda.jit(cache=True)
def cat_kernel(total, g, shape, dst, srcs):  # pragma: no cover - compiled
    nd = g[0]
    dim = g[1]
    n = g[2]
    per = nd + 4
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        s = 0
        while s + 1 < n and g[3 + nd + (s + 1) * per] <= i:
            s += 1
        b = 3 + nd + s * per
        r = i - g[b]
        dp = g[b + 2]
        sp = g[b + 1]
        for d in range(nd - 1, -1, -1):
            sz = shape[d]
            if d == dim:
                sz = g[b + 3]
            c = r % sz
            r = r // sz
            dp += c * g[3 + d]
            sp += c * g[b + 4 + d]
        dst[dp] = srcs[s][sp]
        i += step


def cat(out: Any, tensors: Sequence[Any], dim: int) -> bool:
    """out = cat(tensors, dim): tensors without the skipped legacy (0,) ones, all of out's ndim."""
    dtype = out.dtype
    if any(t.dtype is not dtype for t in tensors):
        return False
    size = out._size
    nd = len(size)
    dst = bits(out._storage.data)
    shape = meta_array(tuple(size))
    col = 0
    pending: list = []
    for t in tensors:
        w = t._size[dim] if dim < len(t._size) else 0  # a legacy empty 1-d input adds nothing
        if w and t.numel():
            pending.append((t, col))
        col += w
    for k in range(0, len(pending), SLOTS):
        group = pending[k:k + SLOTS]
        g = [nd, dim, len(group), *out._stride]
        first = 0
        for t, c in group:
            g += [first, t._offset, out._offset + c * out._stride[dim], t._size[dim], *t._stride]
            first += t.numel()
        srcs = [bits(t._storage.data) for t, _ in group]
        srcs += [srcs[0]] * (SLOTS - len(srcs))
        driver.launch(cat_kernel, first, first, meta_array(tuple(g)), shape, dst, tuple(srcs))
    return True
