"""Generate the Python source of a scan kernel module from a declaration's scalar pieces.

A declaration (jtorch/kernels/scalar_scan.py) is a `Scan` (identity, combine), an `IndexedScan`
(take) or a `RowNormaliser` (shift, row_value, finish). Each piece is collected with
codegen.prelude (the scalar-function rules are there) and bound under a fixed name; the templates
below turn them into the loop over one row, and two entry points that walk the rows:

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
from collections.abc import Callable
from typing import Any

from ..common import cache
from . import odometer
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


# Row bodies of the scans, inlined into `rows` for each position: operand k's row starts at
# p<k> with stride s<k> along the scanned dimension; j runs along it.
_INLINE_ROWS = {
    "Scan": [  # outputs: out; input: x
        "acc = _jt_identity(b1[_U(p1)])",
        "for j in range(n):",
        "    acc = _jt_combine(acc, b1[_U(p1 + j * s1)])",
        "    b0[_U(p0 + j * s0)] = acc",
    ],
    "IndexedScan": [  # outputs: values, indices; input: x
        "best = b2[_U(p2)]",
        "idx = 0",
        "for j in range(n):",
        "    x = b2[_U(p2 + j * s2)]",
        "    if _jt_take(x, best):",
        "        best = x",
        "        idx = j",
        "    b0[_U(p0 + j * s0)] = best",
        "    b1[_U(p1 + j * s1)] = idx",
    ],
}

# A row normaliser's three passes are functions of their own: `_row` is called with literal unit
# strides where it can be (LLVM then vectorizes it), `_block` runs w rows side by side (when the
# scanned dim is not the fastest one) so that its inner loops are vector loops across rows. The
# sum may be reassociated (vector lanes, as PyTorch's Vectorized reduce_all): `_rowsum` carries
# that flag alone, so that it does not reach the exp's range reduction. NaN and inf need no care
# in the max: they make the sum NaN, and so every output of the row, as in PyTorch.
_NORMALISER = _JIT.format(opts=", fastmath={'reassoc', 'nsz'}") + """\
def _rowsum(n, b, p, s):
    acc = b[_U(p)]
    for j in range(1, n):
        acc += b[_U(p + j * s)]
    return acc


""" + _JIT.format(opts="") + """\
def _row(n, b0, p0, s0, b1, p1, s1):
    m = b1[_U(p1)]
    for j in range(1, n):
        v = b1[_U(p1 + j * s1)]
        m = v if v > m else m
    for j in range(n):
        b0[_U(p0 + j * s0)] = _jt_shift(b1[_U(p1 + j * s1)], m)
    t = _jt_row_value(m, _rowsum(n, b0, p0, s0))
    for j in range(n):
        b0[_U(p0 + j * s0)] = _jt_finish(b0[_U(p0 + j * s0)], b1[_U(p1 + j * s1)], m, t)


""" + _JIT.format(opts="") + """\
def _block(n, w, b0, p0, s0, b1, p1, s1, mb, sb):
    for j in range(w):
        mb[j] = b1[_U(p1 + j)]
    for i in range(1, n):
        q1 = p1 + i * s1
        for j in range(w):
            v = b1[_U(q1 + j)]
            mb[j] = v if v > mb[j] else mb[j]
    for j in range(w):
        e = _jt_shift(b1[_U(p1 + j)], mb[j])
        b0[_U(p0 + j)] = e
        sb[j] = e
    for i in range(1, n):
        q0 = p0 + i * s0
        q1 = p1 + i * s1
        for j in range(w):
            e = _jt_shift(b1[_U(q1 + j)], mb[j])
            b0[_U(q0 + j)] = e
            sb[j] += e
    for j in range(w):
        sb[j] = _jt_row_value(mb[j], sb[j])
    for i in range(n):
        q0 = p0 + i * s0
        q1 = p1 + i * s1
        for j in range(w):
            b0[_U(q0 + j)] = _jt_finish(b0[_U(q0 + j)], b1[_U(q1 + j)], mb[j], sb[j])
"""

_PIECES = {"Scan": ("identity", "combine"), "IndexedScan": ("take",),
           "RowNormaliser": ("shift", "row_value", "finish")}
_NOPS = {"Scan": 2, "IndexedScan": 3, "RowNormaliser": 2}


def _walk_source(kind: str) -> str:
    """`rows` and `rows_par`: the odometer over the other dimensions, one row per position (the
    row body inlined, or the normaliser's `_row`, or its `_block` of w positions when w > 0: the
    caller checked that consecutive positions are consecutive elements of every operand)."""
    nops = _NOPS[kind]
    ops = ", ".join(f"b{k}, o{k}, s{k}" for k in range(nops))
    body = [f"meta[soff + {k}] = o{k}" for k in range(nops)]
    body += [f"i0 = _jt_start_row(start, meta, ndim, {nops}, soff)", "n0 = meta[0]"]
    body += [f"t{k} = meta[{k + 1} * ndim]" for k in range(nops)]
    if kind == "RowNormaliser":
        body += ["unit = " + " and ".join(f"s{k} == 1" for k in range(nops)),
                 "mb = _jt_np.empty(max(w, 1), b1.dtype)", "sb = _jt_np.empty(max(w, 1), b0.dtype)"]
    body += ["left = stop - start", "while True:"]
    body += [f"    q{k} = meta[soff + {k}]" for k in range(nops)]
    body += ["    m = min(n0 - i0, left)"]
    if kind == "RowNormaliser":
        args = ", ".join(f"b{k}, q{k} + i * t{k}, {{s{k}}}" for k in range(nops))
        body += ["    if w > 0:",
                 "        for i in range(i0, i0 + m, w):",
                 "            _block(n, min(w, i0 + m - i), b0, q0 + i, s0, b1, q1 + i, s1, mb, sb)",
                 "    else:",
                 "        for i in range(i0, i0 + m):",
                 "            if unit:",
                 "                _row(n, " + args.format(s0="1", s1="1") + ")",
                 "            else:",
                 "                _row(n, " + args.format(s0="s0", s1="s1") + ")"]
    else:
        body += ["    for i in range(i0, i0 + m):"]
        body += [f"        p{k} = q{k} + i * t{k}" for k in range(nops)]
        body += ["        " + line for line in _INLINE_ROWS[kind]]
    body += ["    left -= m", "    if left <= 0:", "        break", "    i0 = 0",
             f"    _jt_next_row(meta, ndim, {nops}, soff)"]
    src = _JIT.format(opts="") + f"def rows(start, stop, meta, ndim, soff, n, w, {ops}):\n"
    src += "".join("    " + line + "\n" for line in body)
    src += "\n\n" + _JIT.format(opts=", parallel=True") + (
        f"def rows_par(nrows, nchunks, meta, ndim, soff, n, w, {ops}):\n"
        "    if nchunks <= 1:  # serial, from the entry point every big scan calls (threads.py)\n"
        f"        rows(0, nrows, meta, ndim, soff, n, w, {ops})\n"
        "        return\n"
        "    for c in _jt_nb.prange(nchunks):\n"
        f"        rows(c * nrows // nchunks, (c + 1) * nrows // nchunks, meta, ndim, "
        f"soff + c * ({nops} + ndim), n, w, {ops})\n")
    return src


def module_source(decl: Any) -> tuple[str, str]:
    """(module file stem, full source) of the kernels of a scan declaration."""
    kind = type(decl).__name__
    if kind not in _PIECES:
        raise TypeError(f"not a scan declaration: {decl!r}")
    pre, digests = _pieces({f"_jt_{p}": getattr(decl, p) for p in _PIECES[kind]})
    src = (f"# Generated by jtorch.kernels.cpu.scan_codegen from the {kind} {decl.name!r}; do not edit.\n"
           + pre + "\n_U = _jt_np.uint64  # unsigned index: no wraparound check\n\n\n"
           + (_NORMALISER + "\n\n" if kind == "RowNormaliser" else "") + _walk_source(kind))
    h = hashlib.sha256(src.encode())
    h.update(digests.encode())
    for mod in (odometer, cache):  # imported by the generated module; Numba does not track them
        assert mod.__file__ is not None  # both are source files
        with open(mod.__file__, "rb") as f:
            h.update(f.read())
    return f"scan_{decl.name}_{h.hexdigest()[:20]}", src
