"""The CPU sorting kernels: sort, topk/kthvalue, mode and the search/counting kernels.

Engine (measured, bench/bench_sorting.py): every element is mapped to an *ordered key*
(order_keys.py), an unsigned integer whose order is torch's order of the values (NaN largest
and all NaNs equal, -0.0 == 0.0; descending flips the key). For dtypes of 32 bits or less the
key and the element's index along the row fit one uint64 (key << 32 | index): all keys are
distinct, so NumPy's fast unstable sort (x86-simd-sort on AVX2/AVX-512) gives torch's *stable*
order, indices included; one long row (RADIX_MIN elements or more) is radix-sorted on every core
instead, values decoded from the sorted keys (radix.py). For 64-bit dtypes NumPy's argsort of
the keys is followed by a pass that puts the indices of equal keys back in ascending order
(stability). topk and kthvalue keep the k best (key, index) pairs in a heap per row (topk.py;
one long row in parallel chunks); mode walks the runs of the sorted keys. Kernels take raw
buffers viewed as unsigned integers of the element's width, so one compile serves every dtype
of that width.

The contract's sort, topk, kthvalue, mode, searchsorted, unique, isin, bincount and histc
(jtorch/backends.py, their arguments) are CPUBackend's methods over _sort, _topk, _mode, _search,
_unique, _isin, _bincount and _histc below (histc: lo < hi finite, checked by the caller).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from ..common.cache import enable_package_cache
from ..common.unique import unique_rows
from .host import numpy_view
from .order_keys import UINT as _UINT
from .order_keys import dtype_params as _dtype_params
from .order_keys import float_key as _float_key
from .radix import RADIX_MIN, sort_row
from .threads import num_chunks
from .topk import select


# ---- ordered keys -------------------------------------------------------------------------------
@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _keys(buf, off, rs, es, n, kind, sign, expmask, descending, composite, keys):
    """keys[r, j]: the ordered key of row r's element j (<< 32 | j when `composite`). One loop
    per kind, so that the per-element work is a few integer operations."""
    ones = sign | (sign - np.uint64(1))
    flip = ones if descending else np.uint64(0)
    shift = np.uint64(32) if composite else np.uint64(0)
    for r in range(keys.shape[0]):
        p = off + r * rs
        row = keys[r]
        if kind == 2:
            for j in range(n):
                k = _float_key(np.uint64(buf[p + j * es]), sign, expmask, ones) ^ flip
                row[j] = (k << shift) | (np.uint64(j) if composite else np.uint64(0))
        else:
            x = sign if kind == 1 else np.uint64(0)
            for j in range(n):
                k = (np.uint64(buf[p + j * es]) ^ x) ^ flip
                row[j] = (k << shift) | (np.uint64(j) if composite else np.uint64(0))


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _stable_ties(keys, order):
    """After an unstable argsort of 64-bit keys: sort the indices of each run of equal keys and
    store the indices into `keys` (the gather reads them from there)."""
    n = keys.shape[1]
    for r in range(keys.shape[0]):
        j = 0
        while j < n:
            k = keys[r, order[r, j]]
            e = j + 1
            while e < n and keys[r, order[r, e]] == k:
                e += 1
            if e - j > 1:
                order[r, j:e] = np.sort(order[r, j:e])
            j = e
        for j in range(n):
            keys[r, j] = np.uint64(order[r, j])


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _gather(buf, off, rs, es, n, keys, mask, values, indices, want_values):
    """indices[r, j] = keys[r, j] & mask; values[r, j] = that element of row r."""
    for r in range(keys.shape[0]):
        p = off + r * rs
        for j in range(n):
            i = np.int64(keys[r, j] & mask)
            indices[r, j] = i
            if want_values:
                values[r, j] = buf[p + i * es]


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _mode_rows(skeys, sidx, shift, has_nan, nan_key, out):
    """torch's mode over each sorted row: the longest run of equal values (the smallest value
    among equally long runs), at the index of the run's last element; NaNs never equal."""
    n = skeys.shape[1]
    for r in range(skeys.shape[0]):
        best, best_i = 0, 0
        j = 0
        while j < n:
            k = skeys[r, j] >> shift
            e = j + 1
            if not (has_nan and k == nan_key):
                while e < n and (skeys[r, e] >> shift) == k:
                    e += 1
            if e - j > best:
                best = e - j
                best_i = sidx[r, e - 1]
            j = e
        out[r] = best_i


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _mode_rows_with_nan(rows, out):
    """torch's mode of short rows (at most 16: std::sort is then libstdc++'s insertion sort) that hold
    a NaN: (value, index) pairs insertion-sorted by `value <` as std::sort leaves them (NaN compares
    false, so NaNs stay where they stand), then the first longest run of `==` values, at its last
    element's index. Rows without NaN sort as the radix sort does and are left to _mode_rows."""
    n = rows.shape[1]
    v = np.empty(n, np.float64)
    ix = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        has_nan = False
        for j in range(n):
            if rows[r, j] != rows[r, j]:
                has_nan = True
        if not has_nan:
            continue
        for k in range(n):
            x, i = np.float64(rows[r, k]), k
            if k > 0 and x < v[0]:
                for m in range(k, 0, -1):
                    v[m], ix[m] = v[m - 1], ix[m - 1]
                v[0], ix[0] = x, i
            else:
                m = k
                while m > 0 and x < v[m - 1]:
                    v[m], ix[m] = v[m - 1], ix[m - 1]
                    m -= 1
                v[m], ix[m] = x, i
        best, cur = 0, 0
        for j in range(n):
            cur += 1
            if j == n - 1 or v[j] != v[j + 1]:
                if cur > best:
                    best, out[r] = cur, ix[j]
                cur = 0


@enable_package_cache
@numba.njit(nogil=True, error_model="numpy")
def _searchsorted(bd, vals, sorter, use_sorter, right, out):
    """torch's cus_lower_bound / cus_upper_bound per value, against row r of bd (row 0 when bd
    has one row); `!(x >= v)` so that NaNs go where torch puts them."""
    nb = bd.shape[1]
    one = bd.shape[0] == 1
    for r in range(vals.shape[0]):
        br = 0 if one else r
        for j in range(vals.shape[1]):
            v = vals[r, j]
            lo, hi = 0, nb
            while lo < hi:
                mid = lo + ((hi - lo) >> 1)
                x = bd[br, sorter[br, mid]] if use_sorter else bd[br, mid]
                if right:
                    go = not (x > v)
                else:
                    go = not (x >= v)
                if go:
                    lo = mid + 1
                else:
                    hi = mid
            out[r, j] = lo


# ---- host side ------------------------------------------------------------------------------------
def _rows(a: np.ndarray, dim: int) -> tuple[np.ndarray, Any, int, int, int]:
    """Rows along `dim` of a NumPy view: (buffer as unsigned ints, offset, row stride, element
    stride, row length) in elements, copying only when the other dims do not merge."""
    if a.ndim == 0:
        a, dim = a.reshape(1), 0
    n = a.shape[dim]
    m = np.moveaxis(a, dim, -1).reshape(-1, n)
    u = m.view(_UINT[m.itemsize]) if m.shape[0] and n else m
    if u.size == 0:
        return u.reshape(-1), 0, n, 1, n
    isz = u.itemsize
    base = u
    while isinstance(base.base, np.ndarray):
        base = base.base
    flat = base.reshape(-1).view(u.dtype) if base.flags.c_contiguous else None
    if flat is None:  # an unusual base: work on a copy
        u = np.ascontiguousarray(u)
        return u.reshape(-1), 0, n, 1, n
    off = (u.ctypes.data - flat.ctypes.data) // isz
    rs = u.strides[0] // isz if u.shape[0] > 1 else n
    return flat, off, rs, u.strides[1] // isz, n


class _Out:
    """A (rows, n) C-contiguous NumPy array that lands in an output tensor along `dim`: the
    tensor's own memory when its layout allows, else a temporary copied back by `finish`."""

    def __init__(self, t: Any, dim: int, n: int, as_uint: bool, keep: bool = True) -> None:
        v = numpy_view(t)
        if v.ndim == 0:
            v, dim = v.reshape(1), 0
        if not keep:  # keepdim=False: the reduced dim comes back as size 1
            v = np.expand_dims(v, dim)
        self.view = np.moveaxis(v, dim, -1)
        r = self.view.reshape(-1, n) if self.view.size and n else np.empty((0, n), v.dtype)
        if as_uint and r.dtype.kind != "u" and r.size:
            r = r.view(_UINT[r.itemsize])
        self.direct = r.flags.c_contiguous and r.size and np.may_share_memory(r, v)
        self.array = r if self.direct else np.empty(r.shape, r.dtype)

    def finish(self) -> None:
        if not self.direct and self.array.size:
            self.view[...] = self.array.view(self.view.dtype).reshape(self.view.shape)


_local = threading.local()


def _scratch(size: int, name: str = "keys") -> np.ndarray:
    """A uint64 work array of `size` elements, reused between calls on this thread (fresh pages
    cost a page fault each: as much as the key pass itself for a 1M-element sort)."""
    buf = getattr(_local, name, None)
    if buf is None or buf.size < size:
        buf = np.empty(max(size, 1), np.uint64)
        if size <= _SCRATCH_KEEP:
            setattr(_local, name, buf)
    return buf[:size]


_SCRATCH_KEEP = 1 << 24  # keep at most 128 MB of keys per thread


def _long_row(a: np.ndarray, n: int) -> bool:
    """One row long enough for radix.sort_row (which takes n < 2**31 and 32-bit keys at most)."""
    return (a.ndim == 0 or a.size == n) and RADIX_MIN <= n < (1 << 31) and a.itemsize <= 4


def _sort_row(row: tuple, kind: int, sign: Any, expmask: Any, descending: bool, values: np.ndarray | None,
              indices: np.ndarray) -> None:
    """radix.sort_row of one long row into 1-D outputs (values None: indices only)."""
    buf, off, rs, es, n = row
    sort_row(buf, off, es, kind, sign, expmask, descending, _scratch(n), _scratch(n, "radix"), values, indices,
             num_chunks(n))


def _sorted_keys(x: Any, dim: int, descending: bool) -> tuple:
    """(rows, sorted (rows, n) uint64 keys, index mask, shift of the key part)."""
    a = numpy_view(x)
    buf, off, rs, es, n = _rows(a, dim)
    kind, sign, expmask = _dtype_params(a.dtype)
    nrows = 1 if a.ndim == 0 else a.size // max(n, 1)
    composite = a.itemsize <= 4 and n < (1 << 32)
    if composite and _long_row(a, n):  # the radix sort's values and indices, then their keys
        vals, idx = np.empty(n, buf.dtype), np.empty(n, np.int64)
        _sort_row((buf, off, rs, es, n), kind, sign, expmask, descending, vals, idx)
        keys = _scratch(n).reshape(1, n)
        _keys(vals, 0, n, 1, n, kind, sign, expmask, descending, False, keys)
        keys <<= np.uint64(32)
        keys |= idx.view(np.uint64)
        return (buf, off, rs, es, n), keys, np.uint64(0xFFFFFFFF), None
    keys = _scratch(nrows * n).reshape(nrows, n)
    _keys(buf, off, rs, es, n, kind, sign, expmask, descending, composite, keys)
    if composite:
        keys.sort(axis=-1)
        return (buf, off, rs, es, n), keys, np.uint64(0xFFFFFFFF), None
    order = np.argsort(keys, axis=-1)
    skeys = np.take_along_axis(keys, order, -1)
    _stable_ties(keys, order)
    return (buf, off, rs, es, n), keys, np.uint64(0xFFFFFFFFFFFFFFFF), skeys


def _sort(x: Any, dim: int, descending: bool, values: Any, indices: Any) -> None:
    a = numpy_view(x)
    n = a.shape[dim] if a.ndim else 1
    if _long_row(a, n):  # one long row: radix.sort_row writes the outputs itself
        row = _rows(a, dim)
        vo = _Out(values, dim, n, True) if values is not None else None
        io = _Out(indices, dim, n, False)
        _sort_row(row, *_dtype_params(a.dtype), descending, vo.array[0] if vo is not None else None, io.array[0])
    else:
        (buf, off, rs, es, n), keys, mask, _ = _sorted_keys(x, dim, descending)
        vo = _Out(values, dim, n, True) if values is not None else None
        io = _Out(indices, dim, n, False)
        vals = vo.array if vo is not None else np.empty((1, 1), buf.dtype)
        _gather(buf, off, rs, es, n, keys, mask, vals, io.array, vo is not None)
    if vo is not None:
        vo.finish()
    io.finish()


def _topk(x: Any, k: int, dim: int, largest: bool, values: Any, indices: Any, last_only: bool = False,
          keep: bool = True) -> None:
    a = numpy_view(x)
    if a.ndim == 0:  # torch: a 0-dim input is its own top-k, k = 0 included
        k = 1
    if k == 0:
        return
    buf, off, rs, es, n = _rows(a, dim)
    kind, sign, expmask = _dtype_params(a.dtype)
    kout = 1 if last_only else k
    vo, io = _Out(values, dim, kout, True, keep), _Out(indices, dim, kout, False, keep)
    if vo.array.size:
        select(buf, off, rs, es, n, k, kind, sign, expmask, largest, last_only, vo.array, io.array)
    vo.finish()
    io.finish()


def _mode(x: Any, dim: int, keepdim: bool, values: Any, indices: Any) -> None:
    (buf, off, rs, es, n), keys, mask, skeys = _sorted_keys(x, dim, False)
    a = numpy_view(x)
    kind, sign, _ = _dtype_params(a.dtype)
    if skeys is None:  # composite keys: the index in the low half
        skeys, sidx, shift = keys, (keys & mask).astype(np.int64), np.uint64(32)
    else:
        sidx, shift = keys.view(np.int64), np.uint64(0)
    best = np.empty(keys.shape[0], np.int64)
    _mode_rows(skeys, sidx, shift, kind == 2, sign | (sign - np.uint64(1)), best)
    if kind == 2 and 1 < n <= 16:  # NaN: torch's answer is where its insertion sort leaves the NaNs
        _mode_rows_with_nan(np.moveaxis(a, dim, -1).reshape(-1, n).astype(np.float64), best)
    io = _Out(indices, dim, 1, False, keepdim)
    vo = _Out(values, dim, 1, True, keepdim)
    io.array[:, 0] = best
    vo.array[:, 0] = buf[off + np.arange(keys.shape[0]) * rs + best * es]
    vo.finish()
    io.finish()


def _search(bd: Any, x: Any, right: bool, sorter: Any, out: Any) -> None:
    b, v = numpy_view(bd), numpy_view(x)
    ct = np.result_type(b.dtype, v.dtype)
    ct = np.dtype(np.float32) if ct == np.float16 else np.dtype(np.int64) if ct.kind in "iub" else ct
    m = b.shape[-1] if b.ndim else 1
    if m == 0:  # no boundaries: every value goes to 0
        numpy_view(out)[...] = 0
        return
    b2 = np.ascontiguousarray(b.reshape(-1, m), ct) if b.size else np.zeros((1, 0), ct)
    nv = v.shape[-1] if (v.ndim and b.ndim > 1) else v.size
    v2 = np.ascontiguousarray(v.reshape(-1, nv) if nv else v.reshape(0, 0), ct)
    use = sorter is not None
    s2 = np.ascontiguousarray(numpy_view(sorter).reshape(-1, m), np.int64) if use else np.zeros((1, 1), np.int64)
    res = np.empty(v2.shape, np.int64)
    if res.size:
        _searchsorted(b2, v2, s2, use, right, res)
    numpy_view(out)[...] = res.reshape(numpy_view(out).shape)


def _unique(x: Any, sorted_: bool, return_inverse: bool, return_counts: bool, dim: int | None,
            consecutive: bool, alloc: Callable) -> None:
    """alloc(i, shape) -> output tensor i (values, inverse, counts) of that shape."""
    results = unique_rows(numpy_view(x), dim, consecutive)
    for i, want in enumerate((True, return_inverse, return_counts)):
        if want:
            numpy_view(alloc(i, results[i].shape))[...] = results[i]


def _isin(e: Any, t: Any, assume_unique: bool, invert: bool, out: Any) -> None:
    a, b = numpy_view(e), numpy_view(t)
    ct = np.result_type(a.dtype, b.dtype)
    numpy_view(out)[...] = np.isin(a.astype(ct, copy=False), b.astype(ct, copy=False),
                                   assume_unique=assume_unique, invert=invert)


def _bincount(x: Any, weights: Any, out: Any) -> None:
    a = numpy_view(x).astype(np.int64, copy=False)
    o = numpy_view(out)
    if weights is None:
        o[...] = np.bincount(a, minlength=o.shape[0])
    elif o.dtype == np.float32:  # torch accumulates float weights in float, in order
        o[...] = 0
        np.add.at(o, a, numpy_view(weights))
    else:
        o[...] = np.bincount(a, numpy_view(weights).astype(np.float64), minlength=o.shape[0])


def _histc(x: Any, lo: float, hi: float, out: Any) -> None:
    """torch's linear-interpolation histogram, in the input's dtype (float arithmetic as torch's)."""
    a = numpy_view(x).reshape(-1)
    o = numpy_view(out)
    dt = a.dtype.type
    bins = o.shape[0]
    left, right = dt(lo), dt(hi)
    inside = a[(a >= left) & (a <= right)]
    pos = ((inside - left) * dt(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    o[...] = np.bincount(pos, minlength=bins)[:bins]

