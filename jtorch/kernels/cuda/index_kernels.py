"""Hand-written CUDA kernels behind the index stub (index.py): advanced indexing's gather and put,
the bounds check, and nonzero's stream compaction. They move elements and compare with zero, no
declared scalar function is involved, so they are plain module-level kernels (imported on first
use). Shapes and strides arrive in int64 geometry arrays, so numba compiles per dtype only.

Advanced indexing geometry `g` (positions in C order over the result shape, last dim fastest):

    [nd, nk, shape (nd), a strides (nd), self strides (nd),
     then per index array k: self size along its dim, self stride along it, offset of its values
     in the uploaded index buffer, its strides over the result shape (nd)]

`a` is the other operand (the result of a gather, the values of a put); a result dim that an
index array does not cover has stride 0 in it, one it does cover stride 0 in self.
"""
from __future__ import annotations

from numba import cuda, int64

SCAN = 256  # the most threads a compaction block has (its shared scan array)


@cuda.jit(device=True)
def _locate(g, lin, idx):  # pragma: no cover - compiled
    """(offset in a, offset in self) of result position `lin`; negative index values wrap."""
    nd = g[0]
    nk = g[1]
    r = lin
    pa = 0
    ps = 0
    for d in range(nd - 1, -1, -1):
        sz = g[2 + d]
        c = r % sz
        r = r // sz
        pa += c * g[2 + nd + d]
        ps += c * g[2 + 2 * nd + d]
    for k in range(nk):
        b = 2 + 3 * nd + k * (nd + 3)
        r = lin
        pi = g[b + 2]
        for d in range(nd - 1, -1, -1):
            sz = g[2 + d]
            c = r % sz
            r = r // sz
            pi += c * g[b + 3 + d]
        v = idx[pi]
        if v < 0:
            v += g[b]
        ps += v * g[b + 1]
    return pa, ps


@cuda.jit(cache=True)
def index_gather(n, g, idx, out, oo, src, so):  # pragma: no cover - compiled
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        pa, ps = _locate(g, i, idx)
        out[oo + pa] = src[so + ps]
        i += step


@cuda.jit(cache=True)
def index_put(nrows, ninner, g, idx, dst, do, vals, vo, accumulate):  # pragma: no cover - compiled
    """Rows of ninner positions, walked in order by one thread each. With ninner == 1 a put
    whose indices repeat races (last write wins, as torch's CUDA index_put_); an accumulating
    put runs with the dims no index covers outermost, so a row owns its elements of self."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < nrows:
        for j in range(ninner):
            pa, ps = _locate(g, i * ninner + j, idx)
            if accumulate:
                dst[do + ps] = dst[do + ps] + vals[vo + pa]
            else:
                dst[do + ps] = vals[vo + pa]
        i += step


@cuda.jit(cache=True)
def index_put_atomic(n, g, idx, dst, do, vals, vo):  # pragma: no cover - compiled
    """accumulate=True for the dtypes cuda.atomic.add takes: duplicates sum in any order."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        pa, ps = _locate(g, i, idx)
        cuda.atomic.add(dst, do + ps, vals[vo + pa])
        i += step


# ---- strided walks: g = [nd, shape (nd, C order), strides (nd)] --------------------------------
@cuda.jit(device=True)
def _offset(g, p):  # pragma: no cover - compiled
    nd = g[0]
    off = 0
    for d in range(nd - 1, -1, -1):
        sz = g[1 + d]
        off += (p % sz) * g[1 + nd + d]
        p = p // sz
    return off


@cuda.jit(cache=True)
def first_out_of_range(n, g, idx, io, lo, hi, res):  # pragma: no cover - compiled
    """res[0] = min(res[0], the first position whose value is outside [lo, hi))."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        v = idx[io + _offset(g, i)]
        if v < lo or v >= hi:
            cuda.atomic.min(res, 0, i)
        i += step


@cuda.jit(cache=True)
def nonzero_count(n, chunk, g, t, to, counts):  # pragma: no cover - compiled
    """counts[b] = the non-zero elements among positions [b * chunk, (b + 1) * chunk); a
    shared-memory tree sums the threads' counts (blockDim a power of two, at most SCAN)."""
    s = cuda.shared.array(SCAN, int64)
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lo = b * chunk
    hi = min(n, lo + chunk)
    c = 0
    p = lo + tid
    while p < hi:
        if t[to + _offset(g, p)] != 0:
            c += 1
        p += nt
    s[tid] = c
    cuda.syncthreads()
    w = nt // 2
    while w > 0:
        if tid < w:
            s[tid] += s[tid + w]
        cuda.syncthreads()
        w //= 2
    if tid == 0:
        counts[b] = s[0]


@cuda.jit(cache=True)
def nonzero_coords(n, chunk, g, t, to, starts, out, ncols):  # pragma: no cover - compiled
    """Block b writes the coordinates of its chunk's non-zero elements, in order, from row
    starts[b] of out (ncols int64 per row): tiles of blockDim positions, each ranked by a
    shared-memory inclusive scan (Hillis-Steele) of the non-zero flags."""
    s = cuda.shared.array(SCAN, int64)
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lo = b * chunk
    hi = min(n, lo + chunk)
    base = starts[b]
    tile = lo
    while tile < hi:  # every thread of the block takes the same trips: syncthreads is safe
        p = tile + tid
        f = 0
        if p < hi and t[to + _offset(g, p)] != 0:
            f = 1
        s[tid] = f
        cuda.syncthreads()
        k = 1
        while k < nt:
            x = 0
            if tid >= k:
                x = s[tid - k]
            cuda.syncthreads()
            s[tid] += x
            cuda.syncthreads()
            k *= 2
        if f:
            row = base + s[tid] - 1
            q = p
            for d in range(ncols - 1, -1, -1):
                sz = g[1 + d]
                out[row * ncols + d] = q % sz
                q = q // sz
        base += s[nt - 1]
        cuda.syncthreads()  # everyone has read s before the next tile writes it
        tile += nt
