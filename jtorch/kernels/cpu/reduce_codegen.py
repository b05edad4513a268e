"""Generate the Python source of a reduction's CPU kernel module from its scalar pieces
(jtorch.kernels.reduction.Reduction): one module per reduction, written to the kernel cache and
imported, so that Numba caches every entry point on disk (as codegen.loops_source does for
elementwise loops).

The iteration is the reduce-mode TensorIterator's: dims fastest first, the reduced dims first.
Kernels see (buffer, offset) pairs and an int64 geometry array, never a layout in their signature,
so one compile per dtype serves every shape and stride:

    g[0] nd, g[1] split dim, g[2:2+nd] shape, then nd input strides, nd accumulator strides,
    then per chunk (lo, hi, accumulator offset): the chunk's range of the split dim; last, 1 when
    a selecting reduction's indices are wanted (argmax, max.dim) and 0 when not (amax).

`small` reduces a small contiguous input whole, straight into its outputs (no iterator).

Accumulators live in a buffer of their own (acc dtype; int64 indices beside them for selecting
reductions), contiguous over the kept dims; `finish` merges per-chunk partials (two-pass
all-reduce), projects and writes the outputs. A chunk walks 2-D planes (dims 0 and 1; an odometer
over the others) in one of three forms, PyTorch's cascade_sum cases:

* inner: each kept position reduces a row along dim 0 (`_row`);
* outer: dim 0 reduced with a long stride, dim 1 kept and contiguous: rows are walked in memory
  order and accumulated into a vector of accumulators (vectorised over the kept dim);
* elementwise: nothing reduced (a reduction over size-1 dims).

Cascade sums (Reduction.cascade) keep 4 levels of partial sums over chunks of 2**lp >= 256
elements, lp = max(8, ceil(log2(n)) / 4) (PyTorch's multi_row_sum with level_power >= 4); a chunk
is summed with reassociation allowed (fastmath 'reassoc' only: no NaN/inf shortcuts), which lets
LLVM use several vector lanes (PyTorch's ILP lanes). Selecting reductions scan blocks with a
cheap comparison and locate the index only when a block improves on the best so far.
"""
from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable

from ..reduction import Reduction
from . import codegen

LEVEL_POWER_MIN = 8      # chunks of >= 256 elements: PyTorch's >= 16 rows of 32 vector lanes
BLOCK = 1024             # selecting reductions: block scanned before locating an index
COLUMN_BLOCK = 8192      # outer cascade: kept-dim block (4 levels in L2; rows read in order)


def _pieces_source(r: Reduction) -> tuple[str, str]:
    """The prelude: every scalar piece re-emitted (with its helpers) and bound to _jt_<piece>."""
    parts, digests = [], []
    for piece in ("map", "combine", "better", "project"):
        fn = getattr(r, piece)
        if fn is None:
            continue
        src, dig = codegen.prelude(fn)
        parts.append(src + f"_jt_{piece} = _jt_fn\n")
        digests.append(dig)
    return "\n".join(parts), "".join(digests)


def _extras(fn: Callable, nfixed: int) -> str:
    """The extras a piece takes after its `nfixed` leading parameters (map(x, p), project(acc, n, p))."""
    return "".join(f", e{j}" for j in range(len(inspect.signature(fn).parameters) - nfixed))


def _jit(parallel: bool = False, reassoc: bool = False) -> str:
    opts = "error_model='numpy', nogil=True"
    if parallel:
        opts += ", parallel=True"
    if reassoc:
        opts += ", fastmath={'reassoc'}"
    return f"@_jt_cache\n@_jt_nb.njit({opts})\n"


def _indent(lines: list[str], n: int = 1) -> str:
    pad = "    " * n
    return "\n".join(pad + line if line else "" for line in lines)


def module_source(r: Reduction) -> tuple[str, str]:
    """(module file stem, source) of the kernel module of reduction `r`."""
    pre, digests = _pieces_source(r)
    ex = "".join(f", e{j}" for j in range(r.nextra))
    mapped = "_jt_map({x}" + _extras(r.map, 1) + ")" if r.map is not None else "{x}"
    nan = r.nan_propagates
    body: list[str] = ["_U = _jt_np.uint64  # unsigned index: no wraparound check, loops vectorize\n"]
    load = "ib[_U({p})]"

    def m(p: str) -> str:
        return mapped.format(x=load.format(p=p))

    if r.cascade:
        body.append(_jit(reassoc=True) + f"def _chunk_sum(ib, p, s, n, zero{ex}):\n" + _indent([
            "t = zero",
            "if s == 1:",
            "    for i in range(n):",
            f"        t += {m('p + i')}",
            "else:",
            "    for i in range(n):",
            f"        t += {m('p + i * s')}",
            "return t",
        ]) + "\n")
        body.append(_jit() + f"def _row(ib, p, s, n, zero{ex}):\n" + _indent([
            "# PyTorch's multi_row_sum: 4 levels, each absorbing the one below every 2**lp steps",
            "lg = 0",
            "while (1 << lg) < n:",
            "    lg += 1",
            f"lp = max({LEVEL_POWER_MIN}, lg // 4)",
            "step = 1 << lp",
            "mask = step - 1",
            "l1 = zero",
            "l2 = zero",
            "l3 = zero",
            "i = 0",
            "cnt = 0",
            "while i + step <= n:",
            f"    l1 += _chunk_sum(ib, p + i * s, s, step, zero{ex})",
            "    i += step",
            "    cnt += 1",
            "    if (cnt & mask) == 0:",
            "        l2 += l1",
            "        l1 = zero",
            "        if (cnt & (mask << lp)) == 0:",
            "            l3 += l2",
            "            l2 = zero",
            f"l1 += _chunk_sum(ib, p + i * s, s, n - i, zero{ex})",
            "return (l1 + l2) + l3",
        ]) + "\n")
        body.append(_outer_cascade(m, ex))
    elif not r.selecting:
        body.append(_jit() + f"def _row(ib, p, s, n, zero{ex}):\n" + _indent([
            "t = zero",
            "for i in range(n):",
            f"    t = _jt_combine(t, {m('p + i * s')})",
            "return t",
        ]) + "\n")
        body.append(_jit() + f"def _outer(ib, p, s0, n0, n1, ab, pa{ex}):\n" + _indent([
            "for i in range(n0):",
            "    q = p + i * s0",
            "    for j in range(n1):",
            f"        ab[_U(pa + j)] = _jt_combine(ab[_U(pa + j)], {m('q + j')})",
        ]) + "\n")
    else:
        body.append(_selecting_source(m, ex, nan))
    body.append(_merge_source(r, nan))
    body.append(_plane_source(r, ex))
    body.append(_drivers_source(r, ex))
    src = ("# Generated by jtorch.kernels.cpu.reduce_codegen for the reduction "
           f"{r.name!r}; do not edit.\n" + pre + "\n\n" + "\n\n".join(body))
    h = hashlib.sha256(src.encode())
    h.update(digests.encode())
    h.update(codegen._module_digest(__name__).encode())  # this file, codegen, cache, odometer
    return f"reduce_{r.name}_{h.hexdigest()[:20]}", src


def _outer_cascade(m: Callable[[str], str], ex: str) -> str:
    """Cascade sum of n0 rows (stride s0) of n1 contiguous columns into ab[pa:pa+n1]: 4 levels of
    column vectors, one level absorbing the one below every 2**lp rows."""
    return _jit() + f"def _outer(ib, p, s0, n0, n1, ab, pa, zero{ex}):\n" + _indent([
        "lg = 0",
        "while (1 << lg) < n0:",
        "    lg += 1",
        f"lp = max({LEVEL_POWER_MIN - 2}, lg // 4)",
        "mask = (1 << lp) - 1",
        f"w = min(n1, {COLUMN_BLOCK})",
        "l0 = _jt_np.empty(w, ab.dtype)",
        "l1 = _jt_np.empty(w, ab.dtype)",
        "l2 = _jt_np.empty(w, ab.dtype)",
        "l3 = _jt_np.empty(w, ab.dtype)",
        "for jb in range(0, n1, w):",
        "    nb = min(w, n1 - jb)",
        "    for j in range(nb):",
        "        l0[j] = zero",
        "        l1[j] = zero",
        "        l2[j] = zero",
        "        l3[j] = zero",
        "    for i in range(n0):",
        "        q = p + i * s0 + jb",
        "        for j in range(nb):",
        f"            l0[j] += {m('q + j')}",
        "        c = i + 1",
        "        if (c & mask) == 0:",
        "            for j in range(nb):",
        "                l1[j] += l0[j]",
        "                l0[j] = zero",
        "            if (c & (mask << lp)) == 0:",
        "                for j in range(nb):",
        "                    l2[j] += l1[j]",
        "                    l1[j] = zero",
        "                if (c & (mask << (2 * lp))) == 0:",
        "                    for j in range(nb):",
        "                        l3[j] += l2[j]",
        "                        l2[j] = zero",
        "    for j in range(nb):",
        "        ab[_U(pa + jb + j)] += ((l0[j] + l1[j]) + l2[j]) + l3[j]",
    ]) + "\n"


def _selecting_source(m: Callable[[str], str], ex: str, nan: bool) -> str:
    """Rows and columns of a selecting reduction, always carrying the index of the best element
    (one compile serves amax, argmax and max.dim)."""
    lanes = 4

    def scan(stride: str) -> list[str]:
        """Best of block [q, q + e*stride) in `lanes` independent chains (ILP), then folded."""
        out = [f"m4 = e // {lanes}", "for j in range(m4):", f"    r = q + {lanes} * j * {stride}"]
        for t in range(lanes):
            off = f" + {t} * {stride}" if t else ""
            out += [f"    x = {m('r' + off)}", f"    b{t} = x if _jt_better(x, b{t}) else b{t}"]
        out += [f"for j in range({lanes} * m4, e):", f"    x = {m('q + j * ' + stride)}",
                "    b0 = x if _jt_better(x, b0) else b0"]
        out += [f"b0 = b{t} if _jt_better(b{t}, b0) else b0" for t in range(1, lanes)]
        if nan:  # a separate loop: comparisons of each element with itself vectorise
            out += ["for j in range(e):", f"    x = {m('q + j * ' + stride)}", "    bnan |= x != x"]
        return out

    row = _jit() + f"def _row(ib, p, s, n, v, k, base, wi{ex}):\n" + _indent([
        "# (v, k): best value so far and its index; returns the updated pair. A block's best value",
        "# is found first (cheap comparisons); its index only when it beats the best so far.",
        "if v != v:" if nan else "if False:",
        "    return v, k",
        "i = 0",
        "while i < n:",
        f"    e = min({BLOCK}, n - i)",
        "    q = p + i * s",
        f"    b0 = {m('q')}",
    ] + [f"    b{t} = b0" for t in range(1, lanes)] + [
        "    bnan = False",
        "    if s == 1:",
    ] + ["        " + line for line in scan("1")] + [
        "    else:",
    ] + ["        " + line for line in scan("s")] + [
        "    if bnan:",
        "        for j in range(e):",
        f"            x = {m('q + j * s')}",
        "            if x != x:",
        "                return x, base + i + j",
        "    if _jt_better(b0, v) and not wi:",
        "        v = b0",
        "    elif _jt_better(b0, v):",
        "        for j in range(e):",
        f"            x = {m('q + j * s')}",
        "            if not _jt_better(b0, x):",
        "                v = x",
        "                k = base + i + j",
        "                break",
        "    i += e",
        "return v, k",
    ]) + "\n"
    beats = "_jt_better(x, a) | ((x != x) & (a == a))" if nan else "_jt_better(x, a)"
    outer = _jit() + f"def _outer(ib, p, s0, n0, n1, ab, xb, pa, base{ex}):\n" + _indent([
        "# rows in memory order into vectors of (best, index): branch-free, so the loop vectorises",
        "for i in range(n0):",
        "    q = p + i * s0",
        "    h = base + i",
        "    for j in range(n1):",
        f"        x = {m('q + j')}",
        "        a = ab[_U(pa + j)]",
        f"        c = {beats}",
        "        ab[_U(pa + j)] = x if c else a",
        "        xb[_U(pa + j)] = h if c else xb[_U(pa + j)]",
    ]) + "\n"
    return row + "\n\n" + outer


def _merge_source(r: Reduction, nan: bool) -> str:
    """_merge(ab, xb, q, v, k): fold the partial result (v, k) into accumulator slot q."""
    if r.selecting:
        beats = "_jt_better(v, a) or (v != v and a == a)" if nan else "_jt_better(v, a)"
        lines = ["a = ab[q]", f"if {beats}:", "    ab[q] = v", "    xb[q] = k"]
    elif r.cascade:
        lines = ["ab[q] += v"]
    else:
        lines = ["ab[q] = _jt_combine(ab[q], v)"]
    return _jit() + "def _merge(ab, xb, q, v, k):\n" + _indent(lines) + "\n"


def _plane_source(r: Reduction, ex: str) -> str:
    """One 2-D plane of a chunk: dims 0 (size n0, input stride s0, acc stride a0) and 1."""
    if r.selecting:
        row = f"v, k = _row(ib, pin + j * s1, s0, n0, ident, 0, base, wi{ex})"
        outer = f"_outer(ib, pin, s0, n0, n1, ab, xb, pa, base{ex})"
        elem = ["v = " + ("_jt_map(ib[_U(pin + i * s0 + j * s1)]" + _extras(r.map, 1) + ")" if r.map is not None
                          else "ib[_U(pin + i * s0 + j * s1)]"),
                "_merge(ab, xb, pa + i * a0 + j * a1, v, 0)"]
    else:
        row = f"v = _row(ib, pin + j * s1, s0, n0, ident{ex})"
        outer = (f"_outer(ib, pin, s0, n0, n1, ab, pa, ident{ex})" if r.cascade
                 else f"_outer(ib, pin, s0, n0, n1, ab, pa{ex})")
        elem = [f"v = _row(ib, pin + i * s0 + j * s1, 1, 1, ident{ex})",
                "_merge(ab, xb, pa + i * a0 + j * a1, v, 0)"]
    return _jit() + f"def _plane(ib, pin, n0, n1, s0, s1, ab, xb, pa, a0, a1, base, wi, ident{ex}):\n" + _indent([
        "if a0 == 0:",
        "    if a1 == 0:",
        "        for j in range(n1):",
        "            " + row,
        "            _merge(ab, xb, pa, v, k)" if r.selecting else "            _merge(ab, xb, pa, v, 0)",
        "    elif s1 == 1 and s0 != 1 and a1 == 1:",
        "        " + outer,
        "    else:",
        "        for j in range(n1):",
        "            " + row,
        ("            _merge(ab, xb, pa + j * a1, v, k)" if r.selecting
         else "            _merge(ab, xb, pa + j * a1, v, 0)"),
        "else:",
        "    for j in range(n1):",
        "        for i in range(n0):",
    ] + ["            " + e for e in elem]) + "\n"


def _drivers_source(r: Reduction, ex: str) -> str:
    """Entry points: accumulate (one chunk), accumulate_par (prange over chunks), finish."""
    chunk = _jit() + f"def accumulate(g, c, ib, io, ab, xb, ident{ex}):\n" + _indent([
        "nd = g[0]",
        "d = g[1]",
        "t = 2 + 3 * nd + 3 * c",
        "lo = g[t]",
        "hi = g[t + 1]",
        "if hi <= lo:",
        "    return",
        "# the chunk's planes: an odometer over dims >= 2 (state kept in a small local array)",
        "sh = _jt_np.empty(max(nd, 2), _jt_np.int64)",
        "for q in range(nd):",
        "    sh[q] = g[2 + q]",
        "if nd < 2:",
        "    sh[1] = 1",
        "sh[d] = hi - lo",
        "pin = io + lo * g[2 + nd + d]",
        "pa = g[t + 2]",
        "base = lo if d == 0 else 0",
        "wi = g[g.shape[0] - 1]",
        "s0 = g[2 + nd]",
        "a0 = g[2 + 2 * nd]",
        "s1 = g[3 + nd] if nd > 1 else 0",
        "a1 = g[3 + 2 * nd] if nd > 1 else 0",
        "nouter = 1",
        "for q in range(2, nd):",
        "    nouter *= sh[q]",
        "cnt = _jt_np.zeros(max(nd, 2), _jt_np.int64)",
        "for o in range(nouter):",
        f"    _plane(ib, pin, sh[0], sh[1], s0, s1, ab, xb, pa, a0, a1, base, wi, ident{ex})",
        "    for q in range(2, nd):",
        "        cnt[q] += 1",
        "        pin += g[2 + nd + q]",
        "        pa += g[2 + 2 * nd + q]",
        "        if cnt[q] < sh[q]:",
        "            break",
        "        pin -= g[2 + nd + q] * sh[q]",
        "        pa -= g[2 + 2 * nd + q] * sh[q]",
        "        cnt[q] = 0",
    ]) + "\n"
    par = _jit(parallel=True) + f"def accumulate_par(g, nchunks, ib, io, ab, xb, ident{ex}):\n" + _indent([
        "if nchunks <= 1:  # serial, from the entry point every big reduction calls (threads.py)",
        f"    accumulate(g, 0, ib, io, ab, xb, ident{ex})",
        "    return",
        "for c in _jt_nb.prange(nchunks):",
        f"    accumulate(g, c, ib, io, ab, xb, ident{ex})",
    ]) + "\n"
    # finish: fold partials, project, store; kept dims walked by an odometer (fk: nk, shape,
    # value strides, index strides)
    if r.project is not None:
        proj = "_jt_project(a, n" + _extras(r.project, 2) + ")"
    else:
        proj = "a"
    fin = _jit() + f"def finish(fk, m, npart, ab, xb, ob, oo, yb, yo, wv, wi, n{ex}):\n" + _indent([
        "nk = fk[0]",
        "cnt = _jt_np.zeros(max(nk, 1), _jt_np.int64)",
        "po = oo",
        "py = yo",
        "for q in range(m):",
        "    for c in range(1, npart):",
        ("        _merge(ab, xb, q, ab[c * m + q], xb[c * m + q])" if r.selecting
         else "        _merge(ab, xb, q, ab[c * m + q], 0)"),
        "    a = ab[q]",
        "    if wv:",
        f"        ob[_U(po)] = {proj}",
        "    if wi:" if r.selecting else "    if False:",
        "        yb[_U(py)] = xb[q]" if r.selecting else "        pass",
        "    for d in range(nk):",
        "        cnt[d] += 1",
        "        po += fk[1 + nk + d]",
        "        py += fk[1 + 2 * nk + d]",
        "        if cnt[d] < fk[1 + d]:",
        "            break",
        "        po -= fk[1 + nk + d] * fk[1 + d]",
        "        py -= fk[1 + 2 * nk + d] * fk[1 + d]",
        "        cnt[d] = 0",
    ]) + "\n"
    # small: a contiguous input reduced whole, serially, straight into its output (no iterator)
    if r.selecting:
        acc = [f"v, k = _row(ib, io, 1, n, ident, 0, 0, wi{ex})"]
    else:
        acc = [f"v = _row(ib, io, 1, n, ident{ex})", "k = 0"]
    small = _jit() + f"def small(ib, io, n, ob, oo, yb, yo, wv, wi, ident, nn{ex}):\n" + _indent(acc + [
        "a = v",
        "if wv:",
        f"    ob[oo] = {proj.replace('(a, n', '(a, nn')}",
        "if wi:",
        "    yb[yo] = k",
    ]) + "\n"
    return chunk + "\n\n" + par + "\n\n" + fin + "\n\n" + small
