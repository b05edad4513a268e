"""Segmented bitonic sort of (key, index) pairs on the device, and the ordered keys it sorts.

Every element becomes an *ordered key* (as kernels/cpu/sort.py builds them): an unsigned
integer whose order is torch's order of the values (NaN largest and all NaNs equal, -0.0 ==
0.0; descending flips the key). Pairs compare by key, then index, so the sort is stable for
every dtype width. Rows are padded to a power of two `npad` with pairs that sort last.

The network: each tile of `tile` pairs (a row, or a power-of-two piece of a long row) is sorted
by one block in shared memory; for longer rows every merge stage k > tile runs its strides
j >= tile as global compare-exchange launches and its strides j < tile in shared memory again.
A 1M-element row thus takes 11 shared-memory launches and 55 global ones on a GPU.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from . import driver

TILE_MAX = 1024                             # shared pairs per block: 16 KiB, 512 threads
TILE = 32 if driver.SIMULATED else TILE_MAX  # the simulator runs one OS thread per CUDA thread
PAD = np.uint64(0xFFFFFFFFFFFFFFFF)
_EXP = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}  # exponent bits: above them is NaN


def key_params(np_dtype: Any) -> tuple:
    """(kind, sign bit, exponent mask, all ones) of a dtype: kind 2 float, 1 signed, 0 unsigned."""
    dt = np.dtype(np_dtype)
    bits = dt.itemsize * 8
    kind = 2 if dt.kind == "f" else 1 if dt.kind == "i" else 0
    sign = 1 << (bits - 1)
    return (kind, np.uint64(sign), np.uint64(_EXP.get(dt.itemsize, 0) if kind == 2 else 0),
            np.uint64(sign | (sign - 1)))


@cuda.jit(device=True)
def ordered_key(u, kind, sign, expmask, ones):
    """The ordered key of an element's bits u (uint64)."""
    if kind == 2:
        a = u & (sign - np.uint64(1))
        if a > expmask:
            return ones  # every NaN: the largest key
        if a == np.uint64(0):
            return sign  # -0.0 as 0.0
        if (u & sign) != np.uint64(0):
            return u ^ ones
        return u | sign
    if kind == 1:
        return u ^ sign
    return u


@cuda.jit(device=True)
def pair_greater(ka, ia, kb, ib):
    return ka > kb or (ka == kb and ia > ib)


@cuda.jit
def make_keys(src, soff, n, npad, total, kind, sign, expmask, ones, flip, keys, idx):
    """Pair p = (row r, position j) of the padded rows: row r of src starts at soff + r * n."""
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        r = p // npad
        j = p - r * npad
        if j < n:
            keys[p] = ordered_key(np.uint64(src[soff + r * n + j]), kind, sign, expmask, ones) ^ flip
        else:
            keys[p] = PAD
        idx[p] = j


@cuda.jit
def bitonic_step(keys, idx, half, npad, k, j):
    """One global compare-exchange stride j of merge stage k (half = pairs / 2 comparators)."""
    for t in range(cuda.grid(1), half, cuda.gridsize(1)):
        i = (t // j) * (2 * j) + (t % j)
        m = i + j
        up = ((i & (npad - 1)) & k) == 0
        if pair_greater(keys[i], idx[i], keys[m], idx[m]) == up:
            kt = keys[i]
            keys[i] = keys[m]
            keys[m] = kt
            it = idx[i]
            idx[i] = idx[m]
            idx[m] = it


@cuda.jit
def bitonic_tile(keys, idx, npad, tile, ntiles, k_first, k_last):
    """Stages k_first..k_last (doubling) of each tile, strides min(k/2, tile/2) down to 1, in
    shared memory; a grid-stride loop over tiles (the whole block takes one tile at a time)."""
    sk = cuda.shared.array(TILE_MAX, dtype=np.uint64)
    si = cuda.shared.array(TILE_MAX, dtype=np.int64)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    half = tile // 2
    for b in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
        base = b * tile
        for e in range(tid, tile, nt):
            sk[e] = keys[base + e]
            si[e] = idx[base + e]
        cuda.syncthreads()
        k = k_first
        while k <= k_last:
            j = min(k // 2, half)
            while j > 0:
                for t in range(tid, half, nt):
                    i = (t // j) * (2 * j) + (t % j)
                    m = i + j
                    up = (((base + i) & (npad - 1)) & k) == 0
                    if pair_greater(sk[i], si[i], sk[m], si[m]) == up:
                        kt = sk[i]
                        sk[i] = sk[m]
                        sk[m] = kt
                        it = si[i]
                        si[i] = si[m]
                        si[m] = it
                cuda.syncthreads()
                j //= 2
            k *= 2
        for e in range(tid, tile, nt):
            keys[base + e] = sk[e]
            idx[base + e] = si[e]
        cuda.syncthreads()


def padded(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def sort_pairs(keys: Any, idx: Any, nrows: int, npad: int, tile: int | None = None) -> None:
    """Sort each row (npad pairs, a power of two) of keys/idx in place, ascending by (key, idx)."""
    if npad < 2 or nrows == 0:
        return
    tile = min(npad, tile or TILE)
    threads = max(1, tile // 2)
    ntiles = nrows * npad // tile
    blocks = min(ntiles, 4 if driver.SIMULATED else 65535)
    driver.launch_blocks(bitonic_tile, blocks, threads, keys, idx, npad, tile, ntiles, 2, tile)
    half = nrows * npad // 2
    k = tile * 2
    while k <= npad:
        j = k // 2
        while j >= tile:
            driver.launch(bitonic_step, half, keys, idx, half, npad, k, j)
            j //= 2
        driver.launch_blocks(bitonic_tile, blocks, threads, keys, idx, npad, tile, ntiles, k, k)
        k *= 2
