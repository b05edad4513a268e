"""A parallel radix sort of one long row for the sort stub: torch's stable order, values and indices.

Each element's ordered key (`float_key` for floats: NaN largest and all NaNs equal, -0.0 == 0.0;
descending flips every key bit) is packed with its index into one uint64, key << 32 | index, so
that the pairs are distinct and their order is torch's stable order. `sort_row` then:

1. count (parallel over position chunks): the OR and AND of the keys (which key bits vary), and a
   histogram of each chunk's *prefixes*, the top PBITS varying key bits. The prefix is chosen
   from a sample of the keys, and counted again if every key shows that the sample missed.
2. buckets: runs of consecutive prefixes of about LEAF_TARGET elements, small enough to be
   sorted in the CPU's caches; a table maps each prefix to its bucket.
3. scatter (parallel over position chunks; a chunk puts its elements of a bucket after those of
   the chunks before it, so each bucket keeps the index order): the pairs into their buckets.
4. sort the buckets (in parallel, each chunk those that start in its share of positions): LSD
   radix passes, in cache, on the key bits that vary within the bucket (digits of up to LDIG
   bits, a pass whose digit is the same for all skipped), then the outputs in order: the index,
   and the value decoded from the key. The key is a bijection of the value's bits except for a
   NaN's payload and -0.0: a bucket that holds the key of NaN or of zero reads those values back
   from the input.

Steps 1 and 3 make the pairs a block (`BLK`) at a time into a buffer in L1 and count or scatter
from there: a histogram increment right after the key's computation ran 5x slower (measured),
and not storing the pairs saves 16 MB of memory traffic per 1M elements.

Measured (2-core AMD EPYC dev machine, `python bench/bench_sorting.py` and the same input, 1M
float32, timed alone; the machine is shared and its speed swings by 30% from minute to minute,
so each figure is from one run against np.sort in that run): steps 1-4 took 0.8, 0.1, 1.9 and
2.6 ms, the whole sort 6.3-6.6 ms with jtorch's dispatch against np.sort's 7.7 ms for the values
alone (9 against 10 ms in a slow period). The LSD radix sort it replaces (the pairs made and
stored, then 3 passes of 11 bits over all 8 MB of them, then a gather of the values by index)
took 12 ms: a pass of 2048 buckets over arrays that miss the caches cost 5 ns per element,
against 1.5-2 ns for a bucket in cache. On one thread the sort takes about 1.7x its 2-thread
time; each parallel step reports its timing to the thread policy (threads.launch_parallel), so
with another process busy on a core it runs serially instead of waiting for its second chunk
(measured: launches of 13-20 ms, then about 10 ms serially).
"""
from __future__ import annotations

import threading

import numba
import numpy as np

from ..common.cache import enable_package_cache
from .chunk_clock import now_ns
from .threads import launch_parallel

RADIX_MIN = 1 << 16     # below this, NumPy's sort of the pairs is as fast (nothing to amortise)
PBITS = 15              # prefix bits counted in step 1 (a 128 KB histogram per chunk)
LEAF_TARGET = 1 << 11   # elements per bucket aimed at: 16 KB of pairs, sorted in L1/L2
MAXB = 1 << 10          # at most about 2 MAXB buckets (an int16 table): the scatter slows with more
LDIG = 14               # the widest digit of a bucket's passes
LOCAL = 1 << 14         # a bucket this small is sorted with a buffer of the chunk's own, in cache
BLK = 1 << 10           # steps 1 and 3 make the pairs this many at a time (see above)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


@numba.njit(inline="always")
def float_key(u, sign, expmask, ones):
    """The ordered key of a float's bits: NaN largest (`ones`), -0.0 as 0.0 (`sign`), otherwise
    the sign bit flipped (positive) or every bit flipped (negative). order_keys.float_key's mapping,
    all selects: _block's loop runs 2.7x faster so when strided (and vectorises when not)."""
    a = u & (sign - np.uint64(1))
    neg = np.uint64((u & sign) != 0)  # 0 or 1, a flag, not a branch
    k = u ^ (((np.uint64(0) - neg) & ones) | sign)
    k = ones if a > expmask else k
    return sign if a == 0 else k


@numba.njit(inline="always")
def _bitlen(v):
    b = 0
    while v:
        v >>= np.uint64(1)
        b += 1
    return b


@numba.njit(inline="always")
def _ctz(v):
    b = 0
    while (v >> np.uint64(b)) & np.uint64(1) == 0:
        b += 1
    return b


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _sample(buf, off, es, n, kind, sign, expmask, ones):
    """The key bits that vary among about 4096 elements spread over the row."""
    o = np.uint64(0)
    an = ones
    for j in range(0, n, max(n // 4096, 1)):
        u = np.uint64(buf[off + j * es])
        k = float_key(u, sign, expmask, ones) if kind == 2 else u
        o |= k
        an &= k
    return o ^ an


@numba.njit(nogil=True, error_model="numpy")
def _block(buf, off, es, j0, j1, kind, sign, expmask, ones, flip, x, kb):
    """kb[:j1 - j0]: the pairs of elements j0..j1-1; returns their OR and AND."""
    o = np.uint64(0)
    an = _ALL
    if kind == 2 and es == 1:  # contiguous floats: vectorised
        for j in range(j0, j1):
            v = ((float_key(np.uint64(buf[off + j]), sign, expmask, ones) ^ flip) << _32) | np.uint64(j)
            kb[j - j0] = v
            o |= v
            an &= v
    elif kind == 2:
        for j in range(j0, j1):
            v = ((float_key(np.uint64(buf[off + j * es]), sign, expmask, ones) ^ flip) << _32) | np.uint64(j)
            kb[j - j0] = v
            o |= v
            an &= v
    else:
        for j in range(j0, j1):
            v = ((np.uint64(buf[off + j * es]) ^ x) << _32) | np.uint64(j)
            kb[j - j0] = v
            o |= v
            an &= v
    return o, an


@numba.njit(nogil=True, error_model="numpy")
def _chunk_count(buf, off, es, lo, hi, kind, sign, expmask, ones, flip, x, kb, h, ps, PM):
    """h: the prefix histogram of elements lo..hi-1 (made a block at a time in kb); returns
    their pairs' OR and AND."""
    o = np.uint64(0)
    an = _ALL
    for j0 in range(lo, hi, BLK):
        j1 = min(j0 + BLK, hi)
        bo, ba = _block(buf, off, es, j0, j1, kind, sign, expmask, ones, flip, x, kb)
        o |= bo
        an &= ba
        for t in range(j1 - j0):
            h[np.int64((kb[t] >> ps) & PM)] += 1
    return o, an


@numba.njit(nogil=True, error_model="numpy")
def _chunk_scatter(buf, off, es, lo, hi, kind, sign, expmask, ones, flip, x, kb, lut, cc, ps, PM, tmp):
    """The pairs of elements lo..hi-1 (made again a block at a time), each to tmp[cc[its
    bucket]++]."""
    for j0 in range(lo, hi, BLK):
        j1 = min(j0 + BLK, hi)
        _block(buf, off, es, j0, j1, kind, sign, expmask, ones, flip, x, kb)
        for t in range(j1 - j0):
            v = kb[t]
            bb = lut[np.int64((v >> ps) & PM)]
            q = cc[bb]
            cc[bb] = q + 1
            tmp[q] = v


@numba.njit(nogil=True, error_model="numpy")
def _chunk_identity(buf, off, es, lo, hi, values, indices, want_values):
    """Elements lo..hi-1 in their own order (all keys equal)."""
    for j in range(lo, hi):
        indices[j] = j
        if want_values:
            values[j] = buf[off + j * es]


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _buckets(hist, n, share, lut, bstart, cnt):
    """Buckets from the chunks' prefix histograms: runs of prefixes of at most `share` elements,
    or one prefix alone (so two neighbours hold more than `share`: at most 2 n / share + 1
    buckets). Fills lut (prefix -> bucket), bstart (bucket starts, then n) and cnt[c, b] (where
    chunk c's first element of bucket b goes); returns the number of buckets."""
    nchunks, npre = hist.shape
    b = 0
    acc = np.int64(0)
    bstart[0] = 0
    for p in range(npre):
        tp = np.int64(0)
        for c in range(nchunks):
            tp += hist[c, p]
        if tp != 0 and acc > bstart[b] and acc + tp > bstart[b] + share:
            b += 1
            bstart[b] = acc
        lut[p] = b
        acc += tp
    nb = b + 1
    bstart[nb] = n
    cnt[:, :nb] = 0
    for c in range(nchunks):
        for p in range(npre):
            cnt[c, lut[p]] += hist[c, p]
    tot = np.int64(0)
    for bb in range(nb):
        for c in range(nchunks):
            v = cnt[c, bb]
            cnt[c, bb] = tot
            tot += v
    return nb


@numba.njit(nogil=True, error_model="numpy")
def _bucket(s, lo, hi, t, to, h, buf, off, es, kind, sign, ones, flip, x, values, indices, want_values):
    """Sort the pairs s[lo:hi] stably with t[to:to + hi - lo] as the other buffer, then write
    indices[lo:hi] and values[lo:hi]."""
    m = hi - lo
    if m == 0:
        return
    o = np.uint64(0)
    an = _ALL
    for j in range(lo, hi):
        o |= s[j]
        an &= s[j]
    var = (o ^ an) >> _32  # the key bits that vary in this bucket: only those are sorted on
    a = s
    ao = lo
    if var != 0:
        blo = _ctz(var)
        span = _bitlen(var) - blo
        npass = 1
        best = -1
        for np_ in range(1, 4):
            w = (span + np_ - 1) // np_
            cost = np_ * (2 * m + (1 << w))
            if w <= LDIG and (best < 0 or cost < best):
                best = cost
                npass = np_
        w = np.uint64((span + npass - 1) // npass)
        nb = 1 << w
        M = np.uint64(nb - 1)
        hp = h[:nb]
        b = t
        bo = to
        for p in range(npass):
            sh = _32 + np.uint64(blo) + w * np.uint64(p)
            hp[:] = 0
            for j in range(ao, ao + m):
                hp[np.int64((a[j] >> sh) & M)] += 1
            if hp[np.int64((a[ao] >> sh) & M)] == m:
                continue  # every element has this digit: the pass would change nothing
            tot = bo
            for e in range(nb):
                c = hp[e]
                hp[e] = tot
                tot += c
            for j in range(ao, ao + m):
                v = a[j]
                e = np.int64((v >> sh) & M)
                q = hp[e]
                hp[e] = q + 1
                b[q] = v
            a, b = b, a
            ao, bo = bo, ao
    d = ao - lo  # the sorted pairs are a[lo + d: hi + d]
    if kind == 2 and want_values:
        for j in range(lo, hi):
            v = a[j + d]
            indices[j] = np.int64(v & _LOW)
            k = (v >> _32) ^ flip
            neg = np.uint64((k & sign) == 0)
            values[j] = k ^ (((np.uint64(0) - neg) & ones) | sign)
        # NaN and +-0 have a key each that their bits do not come back from; the pairs are
        # sorted, so they hold such a key only if their first and last keys enclose it
        k0 = (a[lo + d] >> _32) ^ flip
        k1 = (a[hi - 1 + d] >> _32) ^ flip
        if min(k0, k1) <= sign <= max(k0, k1) or max(k0, k1) == ones:
            for j in range(lo, hi):
                v = a[j + d]
                k = (v >> _32) ^ flip
                if k == ones or k == sign:
                    values[j] = buf[off + np.int64(v & _LOW) * es]
    else:
        for j in range(lo, hi):
            v = a[j + d]
            indices[j] = np.int64(v & _LOW)
            if want_values:
                values[j] = (v >> _32) ^ x


@numba.njit(nogil=True, error_model="numpy")
def _chunk_buckets(tmp, keys, bstart, b0, b1, h, loc, buf, off, es, kind, sign, ones, flip, x, values, indices,
                   want_values):
    """Buckets b0..b1-1: a bucket of LOCAL pairs or fewer is sorted with `loc`, a buffer of this
    chunk's own (in cache), a bigger one with its part of `keys`; h: a digit histogram."""
    for bb in range(b0, b1):
        lo = bstart[bb]
        hi = bstart[bb + 1]
        small = hi - lo <= LOCAL
        _bucket(tmp, lo, hi, loc if small else keys, 0 if small else lo, h, buf, off, es, kind, sign, ones, flip, x,
                values, indices, want_values)


@enable_package_cache
@numba.njit(parallel=True, nogil=True, error_model="numpy")
def _chunks(n, nchunks, step, buf, off, es, kind, sign, expmask, ones, flip, x, keys, tmp, hist, ors, ands, ps, PM,
            lut, cnt, bstart, first, h, loc, values, indices, want_values):  # pragma: no cover - compiled
    """Step `step` of sort_row (1, 3, 4; 0: the input order is the sorted order) on each of
    `nchunks` position chunks of the n-element row, in parallel. One prange for all the steps,
    called from Python: a prange compiles for seconds, the longer the more code it calls.
    Returns threads.launch_parallel's gain: the serial estimate (nchunks x the shortest chunk;
    for step 4, whose chunks differ, their sum) minus the region's time, in ns."""
    t = now_ns()
    work = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        t0 = now_ns()
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        if step == 1:
            ors[c], ands[c] = _chunk_count(buf, off, es, lo, hi, kind, sign, expmask, ones, flip, x, loc[c], hist[c],
                                           ps, PM)
        elif step == 3:
            _chunk_scatter(buf, off, es, lo, hi, kind, sign, expmask, ones, flip, x, loc[c], lut, cnt[c], ps, PM, tmp)
        elif step == 4:
            _chunk_buckets(tmp, keys, bstart, first[c], first[c + 1], h[c], loc[c], buf, off, es, kind, sign, ones,
                           flip, x, values, indices, want_values)
        else:
            _chunk_identity(buf, off, es, lo, hi, values, indices, want_values)
        work[c] = now_ns() - t0
    return (work.sum() if step == 4 else work.min() * nchunks) - (now_ns() - t)


def _no_serial(*args: object) -> None:
    raise AssertionError("sort_row's chunks do not fail")  # launch_parallel's rerun after one did


_local = threading.local()


def _work(nchunks: int) -> tuple:
    """Each chunk's digit histogram and LOCAL-pair buffer, kept by the calling thread (fresh pages
    would fault on every call)."""
    w = getattr(_local, "work", None)
    if w is None or w[0].shape[0] < nchunks:
        w = _local.work = (np.empty((nchunks, 1 << LDIG), np.int32), np.empty((nchunks, LOCAL), np.uint64))
    return w


def _prefix(var: int) -> tuple:
    """(top varying key bit + 1, prefix bits) for the varying key bits `var` (0: none vary)."""
    if var == 0:
        return 1, 1
    top = var.bit_length()
    return top, min(PBITS, top - ((var & -var).bit_length() - 1))


def sort_row(buf: np.ndarray, off: int, es: int, kind: int, sign: np.uint64, expmask: np.uint64, descending: bool,
             keys: np.ndarray, tmp: np.ndarray, values: np.ndarray | None, indices: np.ndarray,
             nchunks: int) -> None:
    """Sort the row buf[off + j * es], j < n = keys.shape[0] (RADIX_MIN <= n < 2**31), of a 1-D
    C-contiguous array of unsigned ints of the element's width: indices[j], and values[j] unless
    values is None, in torch's stable order, by `kind` (0 unsigned or bool, 1 signed, 2 float,
    with its sign bit and exponent mask); `keys`, `tmp`: n-element uint64 work arrays; `nchunks`
    (threads.num_chunks(n)) chunks in parallel. The kernels take 32-bit elements only (each
    width compiled them again, some 8 s): 8- and 16-bit rows are widened first and their values
    narrowed after."""
    n = keys.shape[0]
    want = values is not None
    if buf.itemsize < 4:
        buf, off, es = buf[off:off + (n - 1) * es + 1:es].astype(np.uint32), 0, 1
    vals = values if values is not None and values.itemsize == 4 else np.empty(n if want else 1, np.uint32)
    ones = sign | (sign - np.uint64(1))
    flip = ones if descending else np.uint64(0)
    x = (sign if kind == 1 else np.uint64(0)) ^ flip  # a signed int's key: its bits ^ x
    share = n // min(max(n // LEAF_TARGET, 1), MAXB)
    nbmax = 2 * (n // share) + 2
    h, loc = _work(nchunks)

    def run(step: int) -> None:  # timed, as the thread policy's parallel loops are (threads.py)
        launch_parallel(_no_serial, _chunks, n, nchunks, step, buf, off, es, kind, sign, expmask, ones, flip, x, keys,
                        tmp, hist, ors, ands, np.uint64(32 + top - pb), np.uint64((1 << pb) - 1), lut, cnt, bstart,
                        first, h, loc, vals, indices, want)

    # 1. the prefix, from the key bits that vary in a sample (flipped keys vary in the same bits);
    # then every key's: counted again if they differ
    top, pb = _prefix(int(_sample(buf, off, es, n, kind, sign, expmask, ones)))
    lut, bstart = np.empty(1 << PBITS, np.int16), np.empty(nbmax + 1, np.int64)
    cnt, first = np.empty((nchunks, nbmax), np.int32), np.empty(nchunks + 1, np.int64)
    ors, ands = np.empty(nchunks, np.uint64), np.empty(nchunks, np.uint64)
    hist = np.zeros((nchunks, 1 << pb), np.int32)
    run(1)
    var = int((np.bitwise_or.reduce(ors) ^ np.bitwise_and.reduce(ands)) >> 32)
    if var == 0:  # every key equal: the input order is the sorted order
        run(0)
    else:
        if _prefix(var) != (top, pb):
            top, pb = _prefix(var)
            hist = np.zeros((nchunks, 1 << pb), np.int32)
            run(1)
        nb = _buckets(hist, n, share, lut, bstart, cnt)  # 2.
        run(3)
        first[:] = np.searchsorted(bstart[:nb], np.arange(nchunks + 1) * n // nchunks)
        run(4)
    if values is not None and vals is not values:
        values[:] = vals
