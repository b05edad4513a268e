"""Generate a reduction's CUDA kernel module from its scalar pieces (jtorch.kernels.reduction):
the same pieces the CPU generator uses (map, combine or better, project), re-emitted as device
functions by codegen.prelude, and two kernels around them, PyTorch's Reduce.cuh in small:

    partial(g, R, M, ox, gy, ib, io, ob, oo, yb, yo, pb, px, ident, n, wv, wi, <extras>)
    finish(g, M, gy, pb, px, ob, oo, yb, yo, n, wv, wi, <extras>)

A block of BLOCK threads serves `ox` outputs with `rx = BLOCK // ox` threads each (thread t:
output lane t % ox, reduce lane t // ox, so that consecutive threads read consecutive elements
both when the reduced dims are innermost, ox = 1, and when the kept ones are, ox = BLOCK);
blockIdx.y splits the R reduced elements of an output into `gy` slices. Each thread folds its
elements (a grid-stride walk, r = lane + slice * rx, step rx * gy) in a register, then the `rx`
lanes of an output are folded by a shared-memory tree. With gy == 1 lane 0 projects and writes
the output; otherwise it writes the slice's partial to pb/px[slice * M + output] and `finish`
folds the slices in order (two passes, deterministic: no float atomics).

Selecting reductions (better=) carry an int64 index beside the value: within a thread elements
come in increasing index order and only a strictly better one replaces the best (the first of
equal ones stays); folds between threads and slices take the smaller index on ties, and with
nan_propagates a NaN beats everything (the first NaN's index wins).

The geometry g (int64): [nred, nkept, reduced sizes, reduced input strides, kept sizes, kept
input strides, kept value strides, kept index strides], dims fastest first. One module per
(pieces, accumulator dtype, float16 input): shared arrays need their dtype and size at compile
time, so they are module constants; float16 accumulates in float32 (PyTorch's acc_type).
"""
from __future__ import annotations

import inspect
from collections.abc import Callable

from ..frontend import module_digest
from ..reduction import Reduction
from . import codegen


def _extras(fn: Callable | None, nfixed: int) -> str:
    """The extras a piece takes after its `nfixed` leading parameters (map(x, p), project(acc, n, p))."""
    if fn is None:
        return ""
    return "".join(f", e{j}" for j in range(len(inspect.signature(fn).parameters) - nfixed))


_DECOMPOSE_OUT = """\
    base = io
    po = oo
    py = yo
    q = o
    for d in range(nk):
        sz = g[ko + d]
        c = q % sz
        q = q // sz
        base += c * g[ko + nk + d]
        po += c * g[ko + 2 * nk + d]
        py += c * g[ko + 3 * nk + d]
"""


def module_source(r: Reduction, acc: str, half_in: bool, block: int) -> tuple[str, str]:
    """(file stem, source) of the CUDA kernels of `r` accumulating in NumPy dtype `acc`."""
    entries = {f"_jt_{p}": getattr(r, p) for p in ("map", "combine", "better", "project")
               if getattr(r, p) is not None}
    first = next(iter(entries.values()))
    pre, digests = codegen.prelude(first, entries)
    ex = "".join(f", e{j}" for j in range(r.nextra))
    load = "_jt_load(ib[{p}])" if half_in else "ib[{p}]"
    mapped = ("_jt_map(" + load + _extras(r.map, 1) + ")") if r.map is not None else load
    proj = ("_jt_project(a, n" + _extras(r.project, 2) + ")") if r.project is not None else "a"
    sel = r.selecting
    nan = r.nan_propagates

    head = [
        "import numpy as _jt_np",
        "import numba as _jt_nb",
        f"_ACC = _jt_nb.from_dtype(_jt_np.dtype('{acc}'))",
        "_I64 = _jt_nb.int64",
        f"BLOCK = {block}",
        "_jt_load = _jt_nb.float32  # float16 input: folded in float32" if half_in else "",
    ]
    if sel:
        nb = "_jt_better"
        if nan:
            take = (f"(v2 != v2 and (v1 == v1 or k2 < k1)) or (v1 == v1 and v2 == v2 and "
                    f"({nb}(v2, v1) or (not {nb}(v1, v2) and k2 < k1)))")
            step = f"k >= R or (a == a and (x != x or {nb}(x, a)))"
        else:
            take = f"{nb}(v2, v1) or (not {nb}(v1, v2) and k2 < k1)"
            step = f"k >= R or {nb}(x, a)"
        helpers = (
            "@_jt_cuda.jit(device=True)\n"
            "def _fold(v1, k1, v2, k2):\n"
            "    # (v2, k2) replaces (v1, k1): better, or as good with a smaller index\n"
            f"    if {take}:\n"
            "        return v2, k2\n"
            "    return v1, k1\n")
        acc_step = [f"if {step}:", "    a = x", "    k = r"]
        tree = ["v, kk = _fold(sv[t], sx[t], sv[t + h * ox], sx[t + h * ox])", "sv[t] = v", "sx[t] = kk"]
        merge_part = ["a, k = _fold(a, k, pb[s * M + o], px[s * M + o])"]
    else:
        helpers = ""
        acc_step = ["a = _jt_combine(a, x)"]
        tree = ["sv[t] = _jt_combine(sv[t], sv[t + h * ox])"]
        merge_part = ["a = _jt_combine(a, pb[s * M + o])"]

    def ind(lines: list[str], n: int) -> str:
        return "".join("    " * n + line + "\n" for line in lines)

    partial = (
        codegen.KERNEL + "\n"
        f"def partial(g, R, M, ox, gy, ib, io, ob, oo, yb, yo, pb, px, ident, n, wv, wi{ex}):\n"
        "    sv = _jt_cuda.shared.array(BLOCK, _ACC)\n"
        + ("    sx = _jt_cuda.shared.array(BLOCK, _I64)\n" if sel else "") +
        "    t = _jt_cuda.threadIdx.x\n"
        "    rx = BLOCK // ox\n"
        "    lr = t // ox\n"
        "    o = _jt_cuda.blockIdx.x * ox + t % ox\n"
        "    s = _jt_cuda.blockIdx.y\n"
        "    nred = g[0]\n"
        "    nk = g[1]\n"
        "    ko = 2 + 2 * nred\n"
        "    a = ident\n"
        "    k = R\n"
        "    if o < M:\n"
        + "".join("    " + line + "\n" for line in _DECOMPOSE_OUT.splitlines()) +
        "        r = lr + s * rx\n"
        "        step = rx * gy\n"
        "        if nred == 1:  # the common case: no index arithmetic per element\n"
        "            s0 = g[3]\n"
        "            while r < R:\n"
        f"                x = {mapped.format(p='base + r * s0')}\n"
        + ind(acc_step, 4) +
        "                r += step\n"
        "        else:\n"
        "            while r < R:\n"
        "                p = base\n"
        "                q = r\n"
        "                for d in range(nred):\n"
        "                    sz = g[2 + d]\n"
        "                    p += (q % sz) * g[2 + nred + d]\n"
        "                    q = q // sz\n"
        f"                x = {mapped.format(p='p')}\n"
        + ind(acc_step, 4) +
        "                r += step\n"
        "    sv[t] = a\n"
        + ("    sx[t] = k\n" if sel else "") +
        "    _jt_cuda.syncthreads()\n"
        "    h = rx // 2\n"
        "    while h > 0:  # the rx lanes of each output, folded in shared memory\n"
        "        if lr < h:\n"
        + ind(tree, 3) +
        "        _jt_cuda.syncthreads()\n"
        "        h = h // 2\n"
        "    if lr == 0 and o < M:\n"
        "        a = sv[t]\n"
        + ("        k = sx[t]\n" if sel else "") +
        "        if gy == 1:\n"
        "            if wv:\n"
        f"                ob[po] = {proj}\n"
        + ("            if wi:\n                yb[py] = k if k < R else 0\n" if sel else "") +
        "        else:\n"
        "            pb[s * M + o] = a\n"
        + ("            px[s * M + o] = k\n" if sel else "")
    )
    finish = (
        codegen.KERNEL + "\n"
        f"def finish(g, M, gy, R, pb, px, ob, oo, yb, yo, n, wv, wi{ex}):\n"
        "    o = _jt_cuda.grid(1)\n"
        "    nred = g[0]\n"
        "    nk = g[1]\n"
        "    ko = 2 + 2 * nred\n"
        "    io = 0\n"
        "    while o < M:\n"
        + "".join("    " + line + "\n" for line in _DECOMPOSE_OUT.splitlines()) +
        "        a = pb[o]\n"
        + ("        k = px[o]\n" if sel else "") +
        "        for s in range(1, gy):  # slices in order\n"
        + ind(merge_part, 3) +
        "        if wv:\n"
        f"            ob[po] = {proj}\n"
        + ("        if wi:\n            yb[py] = k if k < R else 0\n" if sel else "") +
        "        o += _jt_cuda.gridsize(1)\n"
    )
    src = (f"# Generated by jtorch.kernels.cuda.reduce_codegen for the reduction {r.name!r} "
           f"(accumulating in {acc}); do not edit.\n" + pre + "\n" + "\n".join(h for h in head if h) + "\n\n\n"
           + (helpers + "\n\n" if helpers else "") + partial + "\n\n" + finish)
    name = f"reduce_{r.name}_{acc}{'_h' if half_in else ''}"
    return codegen.stem(name, src + module_digest(__name__), digests)[0], src
