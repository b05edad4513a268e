"""The CUDA sampling kernels (the contract's poisson, binomial, standard_gamma, standard_gamma_grad,
multinomial_with_replacement): kernels/common/samplers.py's samplers, shared with the CPU, one
thread per element.

Element i of a launch draws from the Philox stream (counter offset + i, key: the generator's seed),
the launch reserving one counter per element of the generator's stream (random.py's `_take`), so a
seed gives the same numbers every run and two launches in a row differ. Parameters are read from
dense float64 copies; samples are computed in float64 and reach t through the copy stub.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from ... import dtypes as _dt
from ..common.multinomial import cumulative_rows
from . import driver
from .common_overloads import sr  # the samplers, callable from CUDA kernels
from .random import _take
from .scratch import Buffer, Target, dense, storage_data

POISSON, BINOMIAL, GAMMA, GAMMA_GRAD = 0, 1, 2, 3


@cuda.jit
def _sample(out, off, n, k0, k1, ctr, kind, a, aoff, b, boff, tiny):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        e = ctr + np.uint64(i)
        if kind == 0:
            v = sr.poisson(k0, k1, e, a[aoff + i])
        elif kind == 1:
            v = sr.binomial(k0, k1, e, a[aoff + i], b[boff + i])
        elif kind == 2:
            v = max(sr.gamma(k0, k1, e, a[aoff + i]), tiny)
        else:
            v = sr.standard_gamma_grad(a[aoff + i], b[boff + i])
        out[off + i] = v


def _param(p: Any, size: tuple) -> tuple:
    """(kernel array, offset) of p broadcast to `size`, dense in float64."""
    from ...tensor import Tensor

    lead = len(size) - len(p._size)
    stride = [0] * lead + [0 if ps == 1 and s != 1 else st for ps, s, st in zip(p._size, size[lead:], p._stride)]
    pe = dense(Tensor._make(p._storage, size, tuple(stride), p._offset, p.dtype, p._device), _dt.float64)
    return storage_data(pe), pe._offset, pe


def _run(kind: int, t: Any, gen: Any, a: Any, b: Any = None) -> None:
    size = tuple(t._size)
    n = t.numel()
    ad, aoff, keep_a = _param(a, size)
    bd, boff, keep_b = _param(b, size) if b is not None else (ad, aoff, keep_a)
    tg = Target(t, _dt.float64)
    if gen is None:
        k0 = k1 = ctr = np.uint64(0)
    else:
        k0, k1, ctr = _take(gen, n)
    tiny = float(np.finfo(t.dtype.numpy).tiny) if kind == GAMMA else 0.0
    driver.launch(_sample, n, tg.data, tg.offset, n, k0, k1, ctr, kind, ad, aoff, bd, boff, tiny)
    tg.finish()
    del keep_a, keep_b


def poisson(t: Any, gen: Any, rates: Any) -> None:
    _run(POISSON, t, gen, rates)


def binomial(t: Any, gen: Any, count: Any, prob: Any) -> None:
    _run(BINOMIAL, t, gen, count, prob)


def standard_gamma(t: Any, gen: Any, alpha: Any) -> None:
    _run(GAMMA, t, gen, alpha)


def standard_gamma_grad(t: Any, alpha: Any, x: Any) -> None:
    _run(GAMMA_GRAD, t, None, alpha, x)


# ---- multinomial with replacement -----------------------------------------------------------------------
@cuda.jit
def _multinomial(out, off, n, n_sample, cum, ncat, k0, k1, ctr):
    """Draw i: the first category of its row whose cumulative probability reaches its uniform."""
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        u, _ = sr.uniform2(k0, k1, ctr + np.uint64(i), 0)
        r = i // n_sample
        lo = 0
        hi = ncat
        while hi > lo:
            mid = lo + (hi - lo) // 2
            if cum[r * ncat + mid] < u:
                lo = mid + 1
            else:
                hi = mid
        out[off + i] = lo


def multinomial_with_replacement(result: Any, gen: Any, probs: Any, n_sample: int) -> None:
    """The rows' checks and cumulative sums on the host (one copy of probs, as ATen's CUDA kernel
    also normalizes first), the draws on the device."""
    cum = cumulative_rows(probs.cpu().numpy())
    rows, ncat = cum.shape
    n = rows * n_sample
    d_cum = Buffer(cum.size, np.float64)
    d_cum.storage.copy_from_host(0, cum.reshape(-1))
    tg = Target(result, _dt.int64)
    k0, k1, ctr = _take(gen, n)
    driver.launch(_multinomial, n, tg.data, tg.offset, n, n_sample, d_cum.a, ncat, k0, k1, ctr)
    tg.finish()
