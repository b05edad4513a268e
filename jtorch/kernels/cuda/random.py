"""The CUDA random kernels (the contract's uniform, normal, ...) fill t with samples drawn from a
counter-based Philox4x32-10 stream (the CPU samplers' philox, kernels/common/samplers.py), as
torch's CUDA generator does.

The stream of a CUDA Generator is keyed by its 64-bit seed; its `_offset` counts the Philox
blocks (four 32-bit words) drawn since seeding, and every draw takes the next blocks: a seed
gives the same numbers every run, and two draws in a row differ. Thread g of a kernel turns
block `offset + g` into 4 samples (2 for 64-bit samples: double precision, integers of a range
of 2^32 or more). The transformations are the CPU stub's (kernels/cpu/random.py): uniform_real
with `digits` bits, integers modulo the range, Box-Muller normals; the numbers are not torch's.

Samples are computed in the accumulation dtype (float for half and float, double for double)
into a dense buffer; a tensor of another dtype or layout gets them through the copy stub.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import cuda

from ... import dtypes as _dt
from ...random import cuda_default_generator
from . import driver
from .bitonic import PAD, padded, sort_pairs
from .common_overloads import sr  # the samplers, callable from CUDA kernels
from .scratch import Buffer, Target, dense, storage_data

MASK, S32 = sr.MASK, sr.S32

DIGITS = {_dt.float16: 11, _dt.float32: 24, _dt.float64: 53}  # std::numeric_limits<T>::digits
_TWO_PI = 2.0 * math.pi
_P_ERROR = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)")


# ---- kernels: thread g draws Philox block ctr + g --------------------------------------------------
@cuda.jit(device=True)
def philox(counter, k0, k1):
    """The four 32-bit words of Philox block `counter` (64 bits, in the first two counter words)."""
    return sr.philox(counter & MASK, counter >> S32, np.uint64(0), np.uint64(0), k0, k1)


@cuda.jit(device=True)
def _unit53(a, b):
    """A double in [0, 1) from two words: 53 random bits."""
    return np.float64(((a << S32) | b) >> np.uint64(11)) * 1.1102230246251565e-16


@cuda.jit
def _uniform(out, off, n, k0, k1, ctr, wide, shift, scale, span, lo):
    """uniform_real: `digits` random bits (word >> shift) * 2^-digits, then x * span + lo."""
    per = 2 if wide else 4
    for g in range(cuda.grid(1), (n + per - 1) // per, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        i = g * per
        if wide:
            out[off + i] = _unit53(w0, w1) * span + lo
            if i + 1 < n:
                out[off + i + 1] = _unit53(w2, w3) * span + lo
        else:
            ws = (w0, w1, w2, w3)
            for q in range(4):
                if i + q < n:
                    out[off + i + q] = np.float32(ws[q] >> shift) * scale * span + lo


@cuda.jit
def _normal(out, off, n, k0, k1, ctr, wide, mean, std):
    """Box-Muller on pairs of uniforms in (0, 1]: two normals per pair."""
    per = 2 if wide else 4
    for g in range(cuda.grid(1), (n + per - 1) // per, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        i = g * per
        if wide:
            u1 = 1.0 - _unit53(w0, w1)
            u2 = _unit53(w2, w3)
            r = math.sqrt(-2.0 * math.log(u1))
            out[off + i] = r * math.cos(_TWO_PI * u2) * std + mean
            if i + 1 < n:
                out[off + i + 1] = r * math.sin(_TWO_PI * u2) * std + mean
        else:
            for h in range(2):
                a = w0 if h == 0 else w2
                b = w1 if h == 0 else w3
                u1 = np.float32((a >> np.uint64(8)) + np.uint64(1)) * np.float32(5.9604645e-08)
                u2 = np.float32(b >> np.uint64(8)) * np.float32(5.9604645e-08)
                r = math.sqrt(np.float32(-2.0) * math.log(u1))
                t = np.float32(_TWO_PI) * u2
                j = i + 2 * h
                if j < n:
                    out[off + j] = r * math.cos(t) * std + mean
                if j + 1 < n:
                    out[off + j + 1] = r * math.sin(t) * std + mean


@cuda.jit
def _exponential(out, off, n, k0, k1, ctr, wide, lambd):
    """-log(u) / lambd for u uniform in (0, 1]."""
    per = 2 if wide else 4
    for g in range(cuda.grid(1), (n + per - 1) // per, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        i = g * per
        if wide:
            out[off + i] = -math.log(1.0 - _unit53(w0, w1)) / lambd
            if i + 1 < n:
                out[off + i + 1] = -math.log(1.0 - _unit53(w2, w3)) / lambd
        else:
            ws = (w0, w1, w2, w3)
            for q in range(4):
                if i + q < n:
                    u = np.float32((ws[q] >> np.uint64(8)) + np.uint64(1)) * np.float32(5.9604645e-08)
                    out[off + i + q] = -math.log(u) / lambd


@cuda.jit(device=True)
def _from_plus(f, v):
    """(f + v) mod 2^64 in halves (no overflow: the simulator computes on NumPy scalars)."""
    lo = (f & MASK) + (v & MASK)
    hi = ((f >> S32) + (v >> S32) + (lo >> S32)) & MASK
    return (hi << S32) | (lo & MASK)


@cuda.jit
def _from_to(out, off, n, k0, k1, ctr, wide, full, from_, range_):
    """random_from_to: from + bits % range (64 bits per value when wide, 32 otherwise), in uint64
    arithmetic as ATen's; `full`: the whole 2^64 range."""
    per = 2 if wide else 4
    for g in range(cuda.grid(1), (n + per - 1) // per, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        i = g * per
        if wide:
            for h in range(2):
                r = ((w0 << S32) | w1) if h == 0 else ((w2 << S32) | w3)
                if i + h < n:
                    out[off + i + h] = _from_plus(from_, r if full else r % range_)
        else:
            ws = (w0, w1, w2, w3)
            for q in range(4):
                if i + q < n:
                    out[off + i + q] = _from_plus(from_, ws[q] % range_)


@cuda.jit
def _bernoulli(out, off, n, k0, k1, ctr, p, poff, ps, err):
    """out = u < p (u uniform in [0, 1) with 24 bits); err[0] = 1 when a p is outside [0, 1]."""
    for g in range(cuda.grid(1), (n + 3) // 4, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        ws = (w0, w1, w2, w3)
        i = g * 4
        for q in range(4):
            if i + q < n:
                pv = np.float64(p[poff + (i + q) * ps])
                if not (pv >= 0.0 and pv <= 1.0):
                    err[0] = 1
                out[off + i + q] = np.float64(ws[q] >> np.uint64(8)) * 5.9604644775390625e-08 < pv


@cuda.jit
def _perm_keys(keys, idx, n, npad, k0, k1, ctr):
    """A random 64-bit key per index (two per Philox block); pads sort last."""
    for g in range(cuda.grid(1), (npad + 1) // 2, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox(ctr + np.uint64(g), k0, k1)
        for h in range(2):
            j = 2 * g + h
            if j < npad:
                keys[j] = (((w0 << S32) | w1) if h == 0 else ((w2 << S32) | w3)) if j < n else PAD
                idx[j] = j


@cuda.jit
def _copy_index(out, off, idx, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[off + i] = idx[i]


# ---- host side -------------------------------------------------------------------------------------------
def _generator(generator: Any) -> Any:
    """The CUDA generator to draw from (check_generator's error for another device's)."""
    if generator is None:
        return cuda_default_generator()
    if generator.device.type != "cuda":
        raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{generator.device.type}'")
    return generator


def _take(gen: Any, blocks: int) -> tuple:
    """(k0, k1, first counter) for `blocks` Philox blocks of gen's stream, which moves past them."""
    ctr = gen._offset
    gen._offset = ctr + blocks
    s = gen._seed
    return np.uint64(s & 0xFFFFFFFF), np.uint64(s >> 32), np.uint64(ctr % 2 ** 64)


def _launch(kernel: Any, gen: Any, n: int, per: int, *args: Any) -> None:
    """kernel(out..., n, k0, k1, ctr, rest...) over the Philox blocks of n samples, per per block."""
    blocks = (n + per - 1) // per
    k0, k1, ctr = _take(gen, blocks)
    out, off = args[0], args[1]
    driver.launch(kernel, blocks, out, off, n, k0, k1, ctr, *args[2:])


def _acc(d: _dt.dtype) -> _dt.dtype:
    return _dt.float64 if d is _dt.float64 else _dt.float32


def _real_target(t: Any) -> tuple:
    """(Target, kernel array, offset, count): samples of t's accumulation dtype; a complex t as
    2 * numel reals (view_as_real)."""
    n = t.numel()
    if t.dtype.is_complex:
        tg = Target(t)
        real = np.dtype(t.dtype.to_real().numpy)
        return tg, tg.data.view(real), 2 * tg.offset, 2 * n, t.dtype.to_real()
    acc = _acc(t.dtype)
    tg = Target(t, acc)
    return tg, tg.data, tg.offset, n, t.dtype


def uniform(t: Any, gen: Any, from_: float, to: float) -> None:
    tg, out, off, n, d = _real_target(t)
    wide = d is _dt.float64
    acc = np.float64 if wide else np.float32
    digits = DIGITS[d]
    tt = d.numpy.type
    with np.errstate(over="ignore"):
        span = acc(tt(to) - tt(from_))  # computed in scalar_t, as ATen does
    _launch(_uniform, gen, n, 2 if wide else 4, out, off, wide, np.uint64(32 - min(digits, 32)),
            acc(2.0 ** -digits), span, acc(tt(from_)))
    tg.finish()


def normal(t: Any, gen: Any, mean: float, std: float) -> None:
    if t.dtype.is_complex:  # each part gets half the variance
        std = std / math.sqrt(2)
    tg, out, off, n, d = _real_target(t)
    wide = d is _dt.float64
    acc = np.float64 if wide else np.float32
    _launch(_normal, gen, n, 2 if wide else 4, out, off, wide, acc(mean), acc(std))
    tg.finish()


def exponential(t: Any, gen: Any, lambd: float) -> None:
    tg, out, off, n, d = _real_target(t)
    wide = d is _dt.float64
    _launch(_exponential, gen, n, 2 if wide else 4, out, off, wide, (np.float64 if wide else np.float32)(lambd))
    tg.finish()


def random_from_to(t: Any, gen: Any, from_: int, range_: int) -> None:
    tg = Target(t, _dt.int64)
    wide = range_ >= 2 ** 32
    full = range_ >= 2 ** 64
    _launch(_from_to, gen, t.numel(), 2 if wide else 4, tg.data.view(np.uint64), tg.offset, wide, full,
            np.uint64(from_ % 2 ** 64), np.uint64(0 if full else range_))
    tg.finish()


def _bernoulli_p(t: Any, gen: Any, p: Any, poff: int, ps: int) -> None:
    tg = Target(t, _dt.bool)
    err = Buffer(1, np.int32)
    err.storage.copy_from_host(0, np.zeros(1, np.int32))
    _launch(_bernoulli, gen, t.numel(), 4, tg.data, tg.offset, p, poff, ps, err.a)
    if err.storage.read(0):
        raise RuntimeError(_P_ERROR)
    tg.finish()


def bernoulli_scalar(t: Any, gen: Any, p: float) -> None:
    pb = Buffer(1, np.float64)
    pb.storage.copy_from_host(0, np.array([p], np.float64))
    _bernoulli_p(t, gen, pb.a, 0, 0)


def bernoulli_tensor(t: Any, gen: Any, p: Any) -> None:
    """p broadcast to t's shape (stride 0 where it is expanded), read as double."""
    from ...tensor import Tensor

    size = tuple(t._size)
    lead = len(size) - len(p._size)
    stride = [0] * lead + [0 if ps == 1 and s != 1 else st for ps, s, st in zip(p._size, size[lead:], p._stride)]
    pe = dense(Tensor._make(p._storage, size, tuple(stride), p._offset, p.dtype, p._device), _dt.float64)
    _bernoulli_p(t, gen, storage_data(pe), pe._offset, 1)


def randperm(t: Any, gen: Any, n: int) -> None:
    """Random keys sorted on the device: the indices in key order are a uniform permutation."""
    npad = padded(n)
    keys, idx = Buffer(npad, np.uint64), Buffer(npad, np.int64)
    blocks = (npad + 1) // 2
    k0, k1, ctr = _take(gen, blocks)
    driver.launch(_perm_keys, blocks, keys.a, idx.a, n, npad, k0, k1, ctr)
    sort_pairs(keys.a, idx.a, 1, npad)
    tg = Target(t, _dt.int64)
    driver.launch(_copy_index, n, tg.data, tg.offset, idx.a, n)
    tg.finish()

