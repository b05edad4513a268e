"""Generate the Python source of an index-map kernel module from its combine piece
(jtorch.kernels.scalar_index.IndexMap): one module per (combine, side), written to the kernel
cache and imported, so that Numba caches every entry point on disk (as reduce_codegen does).

Kernels see (buffer, offset) pairs and an int64 geometry array, never a layout in their
signature, so one compile per dtype serves every shape and stride:

    g[0] nd, g[1] split dim q, g[2:2+nd] shape (dim 0 fastest), then nd strides of the
    destination, nd of the source, nd of the index; then per chunk (lo, hi): its range of dim q.

Entry points:

    run(g, c, bd, od, bs, os, bi, oi, istride, isize, <extras>)      chunk c, serially
    run_par(numel, nchunks, g, <same operands>) -> int               prange over the chunks

`run` walks its chunk's sub-shape with an odometer over dims >= 1 and a tight loop along dim 0:
it reads the index value, wraps a negative one (+ isize; the caller checked the values), and
combines. run_par follows threads.parallel_for's protocol (its serial estimate minus the
region's time, in ns). Nothing here raises: the index values were checked before the launch.
"""
from __future__ import annotations

import hashlib

from ..scalar_index import IndexMap
from . import codegen

_JIT = "@_jt_cache\n@_jt_nb.njit(error_model='numpy', nogil=True{opts})\n"


def _indent(lines: list[str], n: int = 1) -> str:
    pad = "    " * n
    return "\n".join(pad + line if line else "" for line in lines)


def module_source(m: IndexMap) -> tuple[str, str]:
    """(module file stem, source) of the kernel module of index map `m`."""
    pre, digest = codegen.prelude(m.combine)
    ex = "".join(f", e{j}" for j in range(m.nextra))
    ops = f"bd, od, bs, os, bi, oi, istride, isize{ex}"
    if m.scatter:
        step = ["t = pd + i * sd0 + v * istride",
                f"bd[_U(t)] = _jt_fn(bd[_U(t)], bs[_U(ps + i * ss0)]{ex})"]
    else:
        step = ["t = pd + i * sd0",
                f"bd[_U(t)] = _jt_fn(bd[_U(t)], bs[_U(ps + i * ss0 + v * istride)]{ex})"]
    if m.scatter:
        row_pre = ["qd = pd + v * istride", "qs = ps"]
    else:
        row_pre = ["qd = pd", "qs = ps + v * istride"]
    row_unit = [f"bd[_U(qd + i)] = _jt_fn(bd[_U(qd + i)], bs[_U(qs + i)]{ex})"]
    row_step = [f"bd[_U(qd + i * sd0)] = _jt_fn(bd[_U(qd + i * sd0)], bs[_U(qs + i * ss0)]{ex})"]
    run = _JIT.format(opts="") + f"def run(g, c, {ops}):\n" + _indent([
        "nd = g[0]",
        "q = g[1]",
        "lo = g[2 + 4 * nd + 2 * c]",
        "hi = g[3 + 4 * nd + 2 * c]",
        "if hi <= lo:",
        "    return",
        "sh = _jt_np.empty(nd, _jt_np.int64)",
        "for d in range(nd):",
        "    sh[d] = g[2 + d]",
        "sh[q] = hi - lo",
        "pd = od + lo * g[2 + nd + q]",
        "ps = os + lo * g[2 + 2 * nd + q]",
        "pi = oi + lo * g[2 + 3 * nd + q]",
        "n0 = sh[0]",
        "sd0 = g[2 + nd]",
        "ss0 = g[2 + 2 * nd]",
        "si0 = g[2 + 3 * nd]",
        "nouter = 1",
        "for d in range(1, nd):",
        "    nouter *= sh[d]",
        "cnt = _jt_np.zeros(nd, _jt_np.int64)",
        "for o in range(nouter):",
        "    if si0 == 0:",
        "        # one index value for the whole row (index_select, index_add, ...): a strided copy",
        "        v = bi[_U(pi)]",
        "        if v < 0:",
        "            v += isize",
        *("        " + s for s in row_pre),
        "        if sd0 == 1 and ss0 == 1:",
        "            for i in range(n0):",
        *("                " + s for s in row_unit),
        "        else:",
        "            for i in range(n0):",
        *("                " + s for s in row_step),
        "    else:",
        "        for i in range(n0):",
        "            v = bi[_U(pi + i * si0)]",
        "            if v < 0:",
        "                v += isize",
        *("            " + s for s in step),
        "    # odometer over dims >= 1",
        "    for d in range(1, nd):",
        "        cnt[d] += 1",
        "        pd += g[2 + nd + d]",
        "        ps += g[2 + 2 * nd + d]",
        "        pi += g[2 + 3 * nd + d]",
        "        if cnt[d] < sh[d]:",
        "            break",
        "        pd -= g[2 + nd + d] * sh[d]",
        "        ps -= g[2 + 2 * nd + d] * sh[d]",
        "        pi -= g[2 + 3 * nd + d] * sh[d]",
        "        cnt[d] = 0",
    ]) + "\n"
    guard = _JIT.format(opts="") + f"def _run_timed(g, c, {ops}):\n" + _indent([
        "t = _jt_now()",
        f"run(g, c, {ops})",
        "return _jt_now() - t",
    ]) + "\n"
    par = _JIT.format(opts=", parallel=True") + f"def run_par(numel, nchunks, g, {ops}):\n" + _indent([
        "t = _jt_now()",
        "work = _jt_np.empty(nchunks, _jt_np.int64)",
        "for c in _jt_nb.prange(nchunks):",
        f"    work[c] = _run_timed(g, c, {ops})",
        "t = _jt_now() - t",
        "total = 0",
        "for c in range(nchunks):",
        "    total += work[c]",
        "return total - t",
    ]) + "\n"
    src = (f"# Generated by jtorch.kernels.cpu.index_codegen for the index map {m.name!r}; do not edit.\n"
           + pre + "\nfrom jtorch.kernels.cpu.chunk_clock import now_ns as _jt_now\n"
           "_U = _jt_np.uint64  # unsigned index: no wraparound check, loops vectorize\n\n\n"
           + "\n\n".join((run, guard, par)))
    h = hashlib.sha256(src.encode())
    h.update(digest.encode())
    h.update(codegen.module_digest(__name__).encode())
    side = "scatter" if m.scatter else "gather"
    return f"index_{side}_{m.combine.__name__}_{h.hexdigest()[:20]}", src
