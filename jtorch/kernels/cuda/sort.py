"""The CUDA sorting kernels: sort, topk, kthvalue, mode, searchsorted, isin, bincount, histc, unique.

Arguments are the contract's methods' (jtorch/backends.py; CUDABackend binds them here). Sorting,
selection and mode run on the segmented bitonic sort of bitonic.py (ordered keys, ties by
index: torch's stable order); topk and kthvalue read the first k / the k-th pair of each sorted
row. searchsorted and isin are one thread per value (a binary search), bincount and histc use
atomics. `unique` goes through the host (the input copied to the host, common/unique.py,
results copied back): its output sizes depend on the data.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import cuda

from ... import dtypes as _dt
from ...geometry import numel as _numel
from ...global_context import alert_not_deterministic
from ...tensor import Tensor
from ..common.unique import unique_rows
from . import driver
from .bitonic import key_params, make_keys, ordered_key, padded, sort_pairs
from .copy import copy
from .scratch import Buffer, Target, as_uint, dense, moved_last, storage_data


# ---- kernels -------------------------------------------------------------------------------------
@cuda.jit
def _gather_kernel(src, soff, n, idx, npad, col0, ncols, total, want_values, vals, voff, out_idx, ioff):
    """Columns col0 .. col0 + ncols of each sorted row: the indices and (want_values) values."""
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        r = p // ncols
        i = idx[r * npad + col0 + p - r * ncols]
        out_idx[ioff + p] = i
        if want_values:
            vals[voff + p] = src[soff + r * n + i]


@cuda.jit
def _mode_rows_kernel(keys, idx, npad, n, nrows, has_nan, nan_key, src, soff, vals, voff, out_idx, ioff):
    """torch's mode of each ascending-sorted row, one thread per row: the longest run of equal
    keys (the smallest value among equally long runs) at the index of the run's last element;
    NaNs never equal."""
    for r in range(cuda.grid(1), nrows, cuda.gridsize(1)):
        base = r * npad
        best = 0
        best_i = 0
        j = 0
        while j < n:
            k = keys[base + j]
            e = j + 1
            if not (has_nan and k == nan_key):
                while e < n and keys[base + e] == k:
                    e += 1
            if e - j > best:
                best = e - j
                best_i = idx[base + e - 1]
            j = e
        out_idx[ioff + r] = best_i
        vals[voff + r] = src[soff + r * n + best_i]


@cuda.jit
def _searchsorted_kernel(bd, boff, m, one_row, vals, voff, nv, total, sorter, soff, use_sorter, right, out, ooff):
    """torch's cus_lower_bound / cus_upper_bound, one thread per value; `not (x >= v)` so that
    NaNs go where torch puts them."""
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        r = p // nv
        row = 0 if one_row else r * m
        v = vals[voff + p]
        lo = 0
        hi = m
        while lo < hi:
            mid = lo + ((hi - lo) >> 1)
            s = sorter[soff + row + mid] if use_sorter else mid
            x = bd[boff + row + s]
            go = not (x > v) if right else not (x >= v)
            if go:
                lo = mid + 1
            else:
                hi = mid
        out[ooff + p] = lo


@cuda.jit
def _isin_kernel(src, soff, total, tkeys, nt, kind, sign, expmask, ones, invert, out, ooff):
    """Each element's ordered key looked up in the sorted keys of the test elements (NaN is in
    nothing, -0.0 is 0.0)."""
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        key = ordered_key(np.uint64(src[soff + p]), kind, sign, expmask, ones)
        lo = 0
        hi = nt
        while lo < hi:
            mid = (lo + hi) >> 1
            if tkeys[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        found = lo < nt and tkeys[lo] == key and not (kind == 2 and key == ones)
        out[ooff + p] = found != invert


@cuda.jit
def _zero_kernel(a, off, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        a[off + i] = 0


@cuda.jit
def _bincount_kernel(x, xoff, n, w, woff, ws, out, ooff):
    """out[x[i]] += w[i] (ws = 0: a weight of one, w holding a single 1)."""
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        cuda.atomic.add(out, ooff + x[xoff + i], w[woff + i * ws])


@cuda.jit
def _histc_kernel(x, xoff, n, left, right, nb, bins, counts):
    """torch's histc bin of each element in [left, right], in the input's float type."""
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        v = x[xoff + i]
        if v >= left and v <= right:
            pos = int((v - left) * nb / (right - left))
            if pos >= bins:
                pos = bins - 1
            cuda.atomic.add(counts, pos, 1)


# ---- sorting -----------------------------------------------------------------------------------------
class _Sorted:
    """Rows of x along dim as sorted (key, index) pairs: keys.a / idx.a hold nrows rows of npad."""

    def __init__(self, x: Tensor, dim: int, descending: bool) -> None:
        self.src = dense(moved_last(x, dim))
        self.n = self.src._size[-1]
        self.nrows = _numel(self.src._size) // max(self.n, 1)
        self.npad = padded(self.n)
        total = self.nrows * self.npad
        self.keys, self.idx = Buffer(total, np.uint64), Buffer(total, np.int64)
        self.u = as_uint(storage_data(self.src))
        self.params = key_params(x.dtype.numpy)
        kind, sign, expmask, ones = self.params
        flip = ones if descending else np.uint64(0)
        if total:
            driver.launch(make_keys, total, self.u, self.src._offset, self.n, self.npad, total, kind, sign,
                          expmask, ones, flip, self.keys.a, self.idx.a)
            sort_pairs(self.keys.a, self.idx.a, self.nrows, self.npad)

    def gather(self, col0: int, ncols: int, values: Tensor | None, indices: Tensor, dim: int,
               keep: bool = True) -> None:
        io = Target(moved_last(indices, dim, keep))
        vo = Target(moved_last(values, dim, keep)) if values is not None else None
        total = self.nrows * ncols
        if total:
            vals, voff = (as_uint(vo.data), vo.offset) if vo is not None else (self.u, 0)
            driver.launch(_gather_kernel, total, self.u, self.src._offset, self.n, self.idx.a, self.npad, col0, ncols,
                          total, vo is not None, vals, voff, io.data, io.offset)
        io.finish()
        if vo is not None:
            vo.finish()


def _sort(x: Tensor, dim: int, descending: bool, values: Tensor | None, indices: Tensor) -> None:
    _Sorted(x, dim, descending).gather(0, x._size[dim] if x._size else 1, values, indices, dim)


def _topk(x: Tensor, k: int, dim: int, largest: bool, values: Tensor, indices: Tensor) -> None:
    if x.dim() == 0:  # torch: a 0-dim input is its own top-k, k = 0 included
        k = 1
    if k:
        _Sorted(x, dim, largest).gather(0, k, values, indices, dim)


def _kthvalue(x: Tensor, k: int, dim: int, keepdim: bool, values: Tensor, indices: Tensor) -> None:
    _Sorted(x, dim, False).gather(k - 1, 1, values, indices, dim, keepdim)


def _mode(x: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor) -> None:
    s = _Sorted(x, dim, False)
    io, vo = Target(moved_last(indices, dim, keepdim)), Target(moved_last(values, dim, keepdim))
    kind, _, _, ones = s.params
    if s.nrows and s.n:
        driver.launch(_mode_rows_kernel, s.nrows, s.keys.a, s.idx.a, s.npad, s.n, s.nrows, kind == 2, ones, s.u,
                      s.src._offset, as_uint(vo.data), vo.offset, io.data, io.offset)
    io.finish()
    vo.finish()


# ---- searching and counting -------------------------------------------------------------------------------
def _compare_dtype(d: _dt.dtype) -> _dt.dtype | None:
    """Half compares as float (as the CPU kernel does); other dtypes as they are."""
    return _dt.float32 if d is _dt.float16 else None


def _search(bd: Tensor, x: Tensor, right: bool, sorter: Tensor | None, out: Tensor) -> None:
    m = bd._size[-1] if bd._size else 1
    total = _numel(x._size)
    if total == 0:
        return
    ct = _compare_dtype(bd.dtype)
    b, v = dense(bd, ct), dense(x, ct)
    nv = (x._size[-1] if (x._size and len(bd._size) > 1) else total)
    s = dense(sorter, _dt.int64) if sorter is not None else None
    o = Target(out)
    sd, so = (storage_data(s), s._offset) if s is not None else (o.data, 0)
    driver.launch(_searchsorted_kernel, total, storage_data(b), b._offset, m, len(bd._size) <= 1, storage_data(v),
                  v._offset, max(nv, 1), total, sd, so, s is not None, right, o.data, o.offset)
    o.finish()


def _isin(e: Tensor, t: Tensor, assume_unique: bool, invert: bool, out: Tensor) -> None:
    total = _numel(e._size)
    if total == 0:
        return
    td = dense(t)
    flat = Tensor._make(td._storage, (_numel(t._size),), (1,), td._offset, t.dtype, t._device)
    s = _Sorted(flat, 0, False)
    src = dense(e)
    kind, sign, expmask, ones = key_params(e.dtype.numpy)
    o = Target(out)
    driver.launch(_isin_kernel, total, as_uint(storage_data(src)), src._offset, total, s.keys.a, s.n, kind, sign,
                  expmask, ones, invert, o.data, o.offset)
    o.finish()


def _bincount(x: Tensor, weights: Tensor | None, out: Tensor) -> None:
    o = Target(out)
    nbins = _numel(out._size)
    driver.launch(_zero_kernel, max(nbins, 1), o.data, o.offset, nbins)
    if weights is not None:
        alert_not_deterministic("_bincount_cuda")  # weights add with float atomics
    n = _numel(x._size)
    if n:
        xs = dense(x)
        if weights is not None:
            w = dense(weights, out.dtype)
            wd, woff, ws = storage_data(w), w._offset, 1
        else:
            one = Buffer(1, out.dtype.numpy)
            one.storage.copy_from_host(0, np.ones(1, out.dtype.numpy))
            wd, woff, ws = one.a, 0, 0
        driver.launch(_bincount_kernel, n, storage_data(xs), xs._offset, n, wd, woff, ws, o.data, o.offset)
    o.finish()


def _histc(x: Tensor, lo: float, hi: float, out: Tensor) -> None:
    alert_not_deterministic("_histc_cuda")  # as torch's CUDA histc (its counts use atomics)
    bins = _numel(out._size)
    counts = Buffer(bins, np.int64)
    driver.launch(_zero_kernel, max(bins, 1), counts.a, 0, bins)
    n = _numel(x._size)
    if n:
        xs = dense(x, _compare_dtype(x.dtype))
        ft = storage_data(xs).dtype.type
        driver.launch(_histc_kernel, n, storage_data(xs), xs._offset, n, ft(lo), ft(hi), ft(bins), bins, counts.a)
    copy(out, Tensor._make(counts.storage, (bins,), (1,), 0, _dt.int64, out._device))  # int64 -> out's dtype


# ---- unique: through the host -----------------------------------------------------------------------------
def _unique(x: Tensor, sorted_: bool, return_inverse: bool, return_counts: bool, dim: int | None,
            consecutive: bool, alloc: Callable) -> None:
    """unique_rows on a host copy of x; each result is copied into the device output `alloc`
    makes (fresh and dense, in the layout the operator gives it: unique_dim's is a moveaxis), through
    a host buffer laid out alike."""
    d = dense(x)
    a = np.ascontiguousarray(d._storage.copy_to_host(d._offset, _numel(x._size)).reshape(x._size))
    results = unique_rows(a, dim, consecutive)
    for i, want in enumerate((True, return_inverse, return_counts)):
        if want:
            dev = alloc(i, results[i].shape)
            h = np.empty(_numel(dev._size), dev.dtype.numpy)
            if h.size:
                np.lib.stride_tricks.as_strided(h, dev._size, tuple(st * h.itemsize for st in dev._stride))[...] = \
                    results[i]
                dev._storage.copy_from_host(dev._offset, h)

