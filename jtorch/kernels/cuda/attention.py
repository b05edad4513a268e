"""The CUDA `attention_forward` / `attention_backward` stubs, the twins of kernels/cpu/attention.py (same
arguments, same results: online softmax, out 0 and logsumexp 0 for a fully masked row).

One thread per query row for the forward and for grad_q (its keys in order, the running max and sum
in registers, the output row accumulated in place), one thread per key row for grad_k and grad_v
(its queries in order): nothing is shared between threads, so no atomics, and no (L, S) matrix.
q, k, v, out and the gradients are contiguous (N, rows, dim); the mask is read through its strides.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import cuda

from . import driver


@cuda.jit(device=True)
def _score(q, qb, k, kb, E, sc, md, mi, has_mask):  # pragma: no cover - compiled
    s = sc - sc
    for e in range(E):
        s += q[qb + e] * k[kb + e]
    s = s * sc
    if has_mask:
        s += md[mi]
    return s


@cuda.jit(device=True)
def _dot(a, ab, b, bb, n, zero):  # pragma: no cover - compiled
    s = zero
    for e in range(n):
        s += a[ab + e] * b[bb + e]
    return s


@cuda.jit(cache=True)
def forward_kernel(total, L, S, E, Ev, q, qo, k, ko, v, vo, md, mo, ms0, ms1, ms2, has_mask, causal, sc, ninf,
                   out, oo, lse, lo):  # pragma: no cover - compiled
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    zero = sc - sc
    one = math.exp(zero)  # typed constants: a literal 1 would make float32 sums float64
    while t < total:
        n = t // L
        i = t - n * L
        ob = oo + t * Ev
        for e in range(Ev):
            out[ob + e] = zero
        mx = ninf
        sm = zero
        jend = min(S, i + 1) if causal else S
        for j in range(jend):
            s = _score(q, qo + t * E, k, ko + (n * S + j) * E, E, sc, md, mo + n * ms0 + i * ms1 + j * ms2, has_mask)
            if s == ninf:  # masked: adds nothing (and exp(-inf - -inf) would be NaN)
                continue
            vb = vo + (n * S + j) * Ev
            if s > mx:  # a new max: rescale what is there
                a = math.exp(mx - s)
                sm = sm * a + one
                for e in range(Ev):
                    out[ob + e] = out[ob + e] * a + v[vb + e]
                mx = s
            else:
                p = math.exp(s - mx)
                sm += p
                for e in range(Ev):
                    out[ob + e] += p * v[vb + e]
        if sm == zero:  # a fully masked row: torch's flash kernel gives 0 and logsumexp 0
            lse[lo + t] = zero
        else:
            r = one / sm
            for e in range(Ev):
                out[ob + e] *= r
            lse[lo + t] = mx + math.log(sm)
        t += step


@cuda.jit(cache=True)
def grad_q_kernel(total, L, S, E, Ev, do, doo, q, qo, k, ko, v, vo, md, mo, ms0, ms1, ms2, has_mask, causal, sc,
                  out, oo, lse, lo, gq, gqo):  # pragma: no cover - compiled
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    zero = sc - sc
    while t < total:
        n = t // L
        i = t - n * L
        gb = gqo + t * E
        for e in range(E):
            gq[gb + e] = zero
        delta = _dot(do, doo + t * Ev, out, oo + t * Ev, Ev, zero)
        m = lse[lo + t]
        jend = min(S, i + 1) if causal else S
        for j in range(jend):
            s = _score(q, qo + t * E, k, ko + (n * S + j) * E, E, sc, md, mo + n * ms0 + i * ms1 + j * ms2, has_mask)
            p = math.exp(s - m)
            dp = _dot(do, doo + t * Ev, v, vo + (n * S + j) * Ev, Ev, zero)
            ds = p * (dp - delta) * sc
            kb = ko + (n * S + j) * E
            for e in range(E):
                gq[gb + e] += ds * k[kb + e]
        t += step


@cuda.jit(cache=True)
def grad_kv_kernel(total, L, S, E, Ev, do, doo, q, qo, k, ko, v, vo, md, mo, ms0, ms1, ms2, has_mask, causal, sc,
                   out, oo, lse, lo, gk, gko, gv, gvo):  # pragma: no cover - compiled
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    zero = sc - sc
    while t < total:
        n = t // S
        j = t - n * S
        kb = gko + t * E
        vb = gvo + t * Ev
        for e in range(E):
            gk[kb + e] = zero
        for e in range(Ev):
            gv[vb + e] = zero
        for i in range(j if causal else 0, L):
            r = n * L + i
            s = _score(q, qo + r * E, k, ko + t * E, E, sc, md, mo + n * ms0 + i * ms1 + j * ms2, has_mask)
            p = math.exp(s - lse[lo + r])
            dp = _dot(do, doo + r * Ev, v, vo + t * Ev, Ev, zero)
            delta = _dot(do, doo + r * Ev, out, oo + r * Ev, Ev, zero)
            ds = p * (dp - delta) * sc
            for e in range(Ev):
                gv[vb + e] += p * do[doo + r * Ev + e]
            for e in range(E):
                gk[kb + e] += ds * q[qo + r * E + e]
        t += step


def _mask_args(mask: Any, q: Any) -> tuple[Any, int, int, int, int, bool]:
    if mask is None:
        return q._storage.data, 0, 0, 0, 0, False
    st = mask._stride
    return mask._storage.data, mask._offset, st[0], st[1], st[2], True


def _typed(q: Any, x: float) -> Any:
    return np.dtype(q._storage.data.dtype).type(x)


def attention_forward(q: Any, k: Any, v: Any, mask: Any, is_causal: bool, scale: float, out: Any,
                      logsumexp: Any) -> None:
    N, L, E = q.shape
    S, Ev = k.shape[1], v.shape[2]
    if N * L == 0:
        return
    driver.launch(forward_kernel, N * L, N * L, L, S, E, Ev, q._storage.data, q._offset, k._storage.data,
                  k._offset, v._storage.data, v._offset, *_mask_args(mask, q), bool(is_causal), _typed(q, scale),
                  _typed(q, -np.inf), out._storage.data, out._offset, logsumexp._storage.data, logsumexp._offset)


def attention_backward(grad_out: Any, q: Any, k: Any, v: Any, mask: Any, is_causal: bool, scale: float,
                       out: Any, logsumexp: Any, grad_q: Any, grad_k: Any, grad_v: Any) -> None:
    N, L, E = q.shape
    S, Ev = k.shape[1], v.shape[2]
    common = (L, S, E, Ev, grad_out._storage.data, grad_out._offset, q._storage.data, q._offset, k._storage.data,
              k._offset, v._storage.data, v._offset, *_mask_args(mask, q), bool(is_causal), _typed(q, scale),
              out._storage.data, out._offset, logsumexp._storage.data, logsumexp._offset)
    if N * L:
        driver.launch(grad_q_kernel, N * L, N * L, *common, grad_q._storage.data, grad_q._offset)
    if N * S:
        driver.launch(grad_kv_kernel, N * S, N * S, *common, grad_k._storage.data, grad_k._offset,
                      grad_v._storage.data, grad_v._offset)
