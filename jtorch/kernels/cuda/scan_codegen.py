"""Generate a scan declaration's CUDA kernel module from its scalar pieces (kernels/scalar_scan.py:
Scan, IndexedScan, RowNormaliser), the pieces the CPU generator uses, as device functions.

Two kernels per module, PyTorch's scan_outer_dim / scan_innermost_dim split:

    rows_thread(meta, nrows, n, zero, <operands>)  one thread per row, the CPU's sequential loop:
                                                   for a scanned dim that is not the fastest, so
                                                   consecutive threads read consecutive elements
    rows_block(meta, nrows, n, zero, <operands>)   one block per row (rows grid-strided over the
                                                   blocks): scans run tile by tile (a Hillis-Steele
                                                   scan of BLOCK elements in shared memory, plus
                                                   the carry of the tiles before); normalisers fold
                                                   the row's max and sum in shared-memory trees

An operand is (buffer, offset, stride along the scanned dim); outputs first, the input last.
`meta` = [ndim, shape of the other dims (fastest first), each operand's strides over them]; a
row's offsets come from decomposing its index. `zero` is 0 in the compute dtype (the
normaliser's sum starts there). Parallel scans regroup the combines (earlier, later), which the
declared pieces allow: +, *, log-add-exp and cummax's "take" are associative. Float16 input is
loaded as float32 (PyTorch's acc_type on CUDA); shared arrays take the module's _ACC dtype.
"""
from __future__ import annotations

from typing import Any

from ..frontend import module_digest
from . import codegen

_PIECES = {"Scan": ("identity", "combine"), "IndexedScan": ("take",),
           "RowNormaliser": ("shift", "row_value", "finish")}
_NOPS = {"Scan": 2, "IndexedScan": 3, "RowNormaliser": 2}

_THREAD_BODY = {
    "Scan": """\
acc = _jt_identity(L(b1[p1]))
for j in range(n):
    acc = _jt_combine(acc, L(b1[p1 + j * s1]))
    b0[p0 + j * s0] = acc
""",
    "IndexedScan": """\
best = L(b2[p2])
idx = 0
for j in range(n):
    x = L(b2[p2 + j * s2])
    if _jt_take(x, best):
        best = x
        idx = j
    b0[p0 + j * s0] = best
    b1[p1 + j * s1] = idx
""",
    "RowNormaliser": """\
m = L(b1[p1])
for j in range(1, n):
    v = L(b1[p1 + j * s1])
    m = v if v > m else m
tot = zero
for j in range(n):
    tot += _jt_shift(L(b1[p1 + j * s1]), m)
r = _jt_row_value(m, tot)
for j in range(n):
    x = L(b1[p1 + j * s1])
    b0[p0 + j * s0] = _jt_finish(_jt_shift(x, m), x, m, r)
""",
}

# Block bodies: t = threadIdx.x; every thread runs every loop (syncthreads stay uniform).
_BLOCK_BODY = {
    "Scan": """\
ident = _jt_identity(L(b1[p1]))
carry = ident
t0 = 0
while t0 < n:
    j = t0 + t
    if j < n:
        sa[t] = _jt_combine(ident, L(b1[p1 + j * s1]))
    _jt_cuda.syncthreads()
    off = 1
    while off < BLOCK:  # inclusive scan of the tile (entries past the row's end are never read)
        v = sa[t]
        if t >= off:
            v = _jt_combine(sa[t - off], v)
        _jt_cuda.syncthreads()
        sa[t] = v
        _jt_cuda.syncthreads()
        off *= 2
    if j < n:
        b0[p0 + j * s0] = _jt_combine(carry, sa[t])
    carry = _jt_combine(carry, sa[min(BLOCK, n - t0) - 1])
    _jt_cuda.syncthreads()
    t0 += BLOCK
""",
    "IndexedScan": """\
cv = L(b2[p2])
ck = 0
t0 = 0
while t0 < n:
    j = t0 + t
    if j < n:
        sa[t] = L(b2[p2 + j * s2])
        sk[t] = j
    _jt_cuda.syncthreads()
    off = 1
    while off < BLOCK:
        v = sa[t]
        k = sk[t]
        if t >= off:
            pv = sa[t - off]
            if not _jt_take(v, pv):
                v = pv
                k = sk[t - off]
        _jt_cuda.syncthreads()
        sa[t] = v
        sk[t] = k
        _jt_cuda.syncthreads()
        off *= 2
    if j < n:
        v = sa[t]
        if _jt_take(v, cv):
            b0[p0 + j * s0] = v
            b1[p1 + j * s1] = sk[t]
        else:
            b0[p0 + j * s0] = cv
            b1[p1 + j * s1] = ck
    last = min(BLOCK, n - t0) - 1
    if _jt_take(sa[last], cv):
        cv = sa[last]
        ck = sk[last]
    _jt_cuda.syncthreads()
    t0 += BLOCK
""",
    "RowNormaliser": """\
m = L(b1[p1])
j = t
while j < n:
    v = L(b1[p1 + j * s1])
    m = v if v > m else m
    j += BLOCK
sa[t] = m
_jt_cuda.syncthreads()
h = BLOCK // 2
while h > 0:
    if t < h:
        v = sa[t + h]
        if v > sa[t]:
            sa[t] = v
    _jt_cuda.syncthreads()
    h = h // 2
m = sa[0]
_jt_cuda.syncthreads()
tot = zero
j = t
while j < n:
    tot += _jt_shift(L(b1[p1 + j * s1]), m)
    j += BLOCK
sa[t] = tot
_jt_cuda.syncthreads()
h = BLOCK // 2
while h > 0:
    if t < h:
        sa[t] = sa[t] + sa[t + h]
    _jt_cuda.syncthreads()
    h = h // 2
r = _jt_row_value(m, sa[0])
j = t
while j < n:
    x = L(b1[p1 + j * s1])
    b0[p0 + j * s0] = _jt_finish(_jt_shift(x, m), x, m, r)
    j += BLOCK
_jt_cuda.syncthreads()
""",
}


def _indent(src: str, n: int) -> str:
    return "".join("    " * n + line + "\n" if line else "\n" for line in src.splitlines())


def _decompose(nops: int) -> str:
    lines = ["q = row"] + [f"p{k} = o{k}" for k in range(nops)] + [
        "for d in range(nd):", "    sz = meta[1 + d]", "    c = q % sz", "    q = q // sz"]
    lines += [f"    p{k} += c * meta[1 + {k + 1} * nd + d]" for k in range(nops)]
    return "\n".join(lines)


def module_source(decl: Any, acc: str, half_in: bool, block: int) -> tuple[str, str]:
    """(file stem, source) of the CUDA kernels of a scan declaration; `acc` names the NumPy dtype
    of its shared arrays (the accumulator's, or the values' for an indexed scan)."""
    kind = type(decl).__name__
    if kind not in _PIECES:
        raise TypeError(f"not a scan declaration: {decl!r}")
    entries = {f"_jt_{p}": getattr(decl, p) for p in _PIECES[kind]}
    pre, digests = codegen.prelude(next(iter(entries.values())), entries)
    nops = _NOPS[kind]
    ops = ", ".join(f"b{k}, o{k}, s{k}" for k in range(nops))
    head = "\n".join([
        "import numpy as _jt_np",
        "import numba as _jt_nb",
        f"_ACC = _jt_nb.from_dtype(_jt_np.dtype('{acc}'))",
        f"BLOCK = {block}",
        "L = _jt_nb.float32  # float16 input: computed in float32" if half_in else "",
    ])

    def body(src: str) -> str:
        return src if half_in else src.replace("L(", "(")  # loads as they are
    thread = (codegen.KERNEL + f"\ndef rows_thread(meta, nrows, n, zero, {ops}):\n"
              "    nd = meta[0]\n    row = _jt_cuda.grid(1)\n    while row < nrows:\n"
              + _indent(_decompose(nops), 2) + _indent(body(_THREAD_BODY[kind]), 2)
              + "        row += _jt_cuda.gridsize(1)\n")
    shared = "    sa = _jt_cuda.shared.array(BLOCK, _ACC)\n"
    if kind == "IndexedScan":
        shared += "    sk = _jt_cuda.shared.array(BLOCK, _jt_nb.int64)\n"
    blk = (codegen.KERNEL + f"\ndef rows_block(meta, nrows, n, zero, {ops}):\n" + shared +
           "    nd = meta[0]\n    t = _jt_cuda.threadIdx.x\n    row = _jt_cuda.blockIdx.x\n"
           "    while row < nrows:  # the same for every thread of the block\n"
           + _indent(_decompose(nops), 2) + _indent(body(_BLOCK_BODY[kind]), 2)
           + "        row += _jt_cuda.gridDim.x\n")
    src = (f"# Generated by jtorch.kernels.cuda.scan_codegen from the {kind} {decl.name!r} "
           f"(shared arrays of {acc}); do not edit.\n" + pre + "\n" + head + "\n\n\n" + thread + "\n\n" + blk)
    name = f"scan_{decl.name}_{acc}{'_h' if half_in else ''}"
    return codegen.stem(name, src + module_digest(__name__), digests)[0], src
