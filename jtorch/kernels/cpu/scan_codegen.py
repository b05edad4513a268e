"""Generate the Python source of a scan kernel module from a declaration's scalar pieces.

A declaration (jtorch/kernels/scalar_scan.py) is a `Scan` (identity, combine), an `IndexedScan`
(take) or a `RowNormaliser` (shift, row_value, finish). Each piece is collected with
codegen.prelude (the scalar-function rules are there) and bound under a fixed name; the template
below turns them into one loop over a row, and two entry points that walk the rows:

    rows(start, stop, meta, ndim, soff, n, w, <operands>)         rows [start, stop), serially
    rows_par(nrows, nchunks, meta, ndim, soff, n, w, <operands>)  prange over chunks of rows

(`w`: see _walk_source; 0 for row by row).

An operand is (buffer, offset, stride along the scanned dimension); the outputs come first, the
input last. A row is one position of the other dimensions; `meta` describes them as in
odometer.py (shape fastest first, then each operand's strides, then per-chunk row state), so the
row walk is the elementwise loops' odometer. Nothing here raises inside a kernel: integer
arithmetic wraps and float arithmetic follows NumPy's error model.
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable

from . import cache, odometer
from .codegen import prelude

_JIT = "@_jt_cache\n@_jt_nb.njit(error_model='numpy', nogil=True{opts})\n"


def _pieces(pieces: dict[str, Callable]) -> tuple[str, str]:
    """Each piece's prelude (its source and helpers), bound to its name in the template."""
    parts, digests = [], []
    for bound, fn in pieces.items():
        src, digest = prelude(fn)
        parts.append(src + f"\n{bound} = _jt_fn\n")
        digests.append(digest)
    return "\n".join(parts), "".join(digests)


def _row_source(kind: str) -> str:
    """The loop over one row of n elements; operands b<k>, p<k> (offset), s<k> (stride)."""
    if kind == "Scan":  # outputs: out; input: x
        return _JIT.format(opts="") + (
            "def _row(n, b0, p0, s0, b1, p1, s1):\n"
            "    acc = _jt_identity(b1[_U(p1)])\n"
            "    for i in range(n):\n"
            "        acc = _jt_combine(acc, b1[_U(p1 + i * s1)])\n"
            "        b0[_U(p0 + i * s0)] = acc\n")
    if kind == "IndexedScan":  # outputs: values, indices; input: x
        return _JIT.format(opts="") + (
            "def _row(n, b0, p0, s0, b1, p1, s1, b2, p2, s2):\n"
            "    best = b2[_U(p2)]\n"
            "    idx = 0\n"
            "    for i in range(n):\n"
            "        x = b2[_U(p2 + i * s2)]\n"
            "        if _jt_take(x, best):\n"
            "            best = x\n"
            "            idx = i\n"
            "        b0[_U(p0 + i * s0)] = best\n"
            "        b1[_U(p1 + i * s1)] = idx\n")
    if kind == "RowNormaliser":  # outputs: out; input: x
        # The sum may be reassociated (vector lanes, as PyTorch's Vectorized reduce_all); it is a
        # function of its own so that the flag does not reach the exp's range reduction. NaN and
        # inf need no care in the max: they make the sum NaN, and so every output of the row.
        return (_JIT.format(opts=", fastmath={'reassoc', 'nsz'}") + (
            "def _rowsum(n, b, p, s):\n"
            "    acc = b[_U(p)]\n"
            "    for i in range(1, n):\n"
            "        acc += b[_U(p + i * s)]\n"
            "    return acc\n\n\n")
            + _JIT.format(opts="") + (
            "def _row(n, b0, p0, s0, b1, p1, s1):\n"
            "    m = b1[_U(p1)]\n"
            "    for i in range(1, n):\n"
            "        v = b1[_U(p1 + i * s1)]\n"
            "        m = v if v > m else m\n"
            "    for i in range(n):\n"
            "        b0[_U(p0 + i * s0)] = _jt_shift(b1[_U(p1 + i * s1)], m)\n"
            "    t = _jt_row_value(m, _rowsum(n, b0, p0, s0))\n"
            "    for i in range(n):\n"
            "        b0[_U(p0 + i * s0)] = _jt_finish(b0[_U(p0 + i * s0)], b1[_U(p1 + i * s1)], m, t)\n\n\n")
            + _JIT.format(opts="") + (
            # w rows at consecutive positions (the scanned dim is not the fastest one): the same
            # passes with the rows side by side, so that the inner loops are vector loops
            "def _block(n, w, b0, p0, s0, b1, p1, s1, mb, sb):\n"
            "    for j in range(w):\n"
            "        mb[j] = b1[_U(p1 + j)]\n"
            "    for i in range(1, n):\n"
            "        q1 = p1 + i * s1\n"
            "        for j in range(w):\n"
            "            v = b1[_U(q1 + j)]\n"
            "            mb[j] = v if v > mb[j] else mb[j]\n"
            "    for j in range(w):\n"
            "        e = _jt_shift(b1[_U(p1 + j)], mb[j])\n"
            "        b0[_U(p0 + j)] = e\n"
            "        sb[j] = e\n"
            "    for i in range(1, n):\n"
            "        q0 = p0 + i * s0\n"
            "        q1 = p1 + i * s1\n"
            "        for j in range(w):\n"
            "            e = _jt_shift(b1[_U(q1 + j)], mb[j])\n"
            "            b0[_U(q0 + j)] = e\n"
            "            sb[j] += e\n"
            "    for j in range(w):\n"
            "        sb[j] = _jt_row_value(mb[j], sb[j])\n"
            "    for i in range(n):\n"
            "        q0 = p0 + i * s0\n"
            "        q1 = p1 + i * s1\n"
            "        for j in range(w):\n"
            "            b0[_U(q0 + j)] = _jt_finish(b0[_U(q0 + j)], b1[_U(q1 + j)], mb[j], sb[j])\n"))
    raise TypeError(f"not a scan declaration: {kind}")


_PIECES = {"Scan": ("identity", "combine"), "IndexedScan": ("take",),
           "RowNormaliser": ("shift", "row_value", "finish")}
_NOPS = {"Scan": 2, "IndexedScan": 3, "RowNormaliser": 2}


def _walk_source(nops: int, normaliser: bool) -> str:
    """`rows` and `rows_par`: the odometer over the other dimensions, one `_row` per position.
    For a row normaliser, rows whose operands all have stride 1 call `_row` with literal strides
    (so that LLVM vectorizes its loops), and with `w > 0` (the caller checked that consecutive
    positions are consecutive elements of every operand) blocks of w positions go to `_block`."""
    unit_stride = normaliser
    ops = ", ".join(f"b{k}, o{k}, s{k}" for k in range(nops))
    call = ", ".join(f"b{k}, q{k} + i * t{k}, {{s{k}}}" for k in range(nops))
    body = [f"meta[soff + {k}] = o{k}" for k in range(nops)]
    body += [f"i0 = _jt_start_row(start, meta, ndim, {nops}, soff)", "n0 = meta[0]"]
    body += [f"t{k} = meta[{k + 1} * ndim]" for k in range(nops)]
    if unit_stride:
        body.append("unit = " + " and ".join(f"s{k} == 1" for k in range(nops)))
    if normaliser:
        body += ["mb = _jt_np.empty(max(w, 1), b1.dtype)", "sb = _jt_np.empty(max(w, 1), b0.dtype)"]
    body += ["left = stop - start", "while True:"]
    body += [f"    q{k} = meta[soff + {k}]" for k in range(nops)]
    body += ["    m = min(n0 - i0, left)",
             "    for i in range(i0, i0 + m):"]
    strided = "_row(n, " + call.format(**{f"s{k}": f"s{k}" for k in range(nops)}) + ")"
    if normaliser:
        unit = "_row(n, " + call.format(**{f"s{k}": "1" for k in range(nops)}) + ")"
        block = "_block(n, min(w, i0 + m - i), " + ", ".join(f"b{k}, q{k} + i, s{k}" for k in range(nops))
        body[-1:] = ["    if w > 0:",
                     "        for i in range(i0, i0 + m, w):",
                     "            " + block + ", mb, sb)",
                     "    else:",
                     "        for i in range(i0, i0 + m):",
                     "            if unit:", "                " + unit,
                     "            else:", "                " + strided]
    else:
        body += ["        " + strided]
    body += ["    left -= m", "    if left <= 0:", "        break", "    i0 = 0",
             f"    _jt_next_row(meta, ndim, {nops}, soff)"]
    src = _JIT.format(opts="") + f"def rows(start, stop, meta, ndim, soff, n, w, {ops}):\n"
    src += "".join("    " + line + "\n" for line in body)
    src += "\n\n" + _JIT.format(opts=", parallel=True") + (
        f"def rows_par(nrows, nchunks, meta, ndim, soff, n, w, {ops}):\n"
        "    for c in _jt_nb.prange(nchunks):\n"
        f"        rows(c * nrows // nchunks, (c + 1) * nrows // nchunks, meta, ndim, "
        f"soff + c * ({nops} + ndim), n, w, {ops})\n")
    return src


def nops(decl: Any) -> int:
    """Array operands of a declaration's kernels (outputs, then the input)."""
    return _NOPS[type(decl).__name__]


def module_source(decl: Any) -> tuple[str, str]:
    """(module file stem, full source) of the kernels of a scan declaration."""
    kind = type(decl).__name__
    if kind not in _PIECES:
        raise TypeError(f"not a scan declaration: {decl!r}")
    pre, digests = _pieces({f"_jt_{p}": getattr(decl, p) for p in _PIECES[kind]})
    src = (f"# Generated by jtorch.kernels.cpu.scan_codegen from the {kind} {decl.name!r}; do not edit.\n"
           + pre + "\n_U = _jt_np.uint64  # unsigned index: no wraparound check\n\n\n"
           + _row_source(kind) + "\n\n" + _walk_source(_NOPS[kind], kind == "RowNormaliser"))
    h = hashlib.sha256(src.encode())
    h.update(digests.encode())
    for mod in (odometer, cache):  # imported by the generated module; Numba does not track them
        with open(mod.__file__, "rb") as f:
            h.update(f.read())
    return f"scan_{decl.name}_{h.hexdigest()[:20]}", src
