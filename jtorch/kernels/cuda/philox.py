"""Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), the
counter-based generator torch's CUDA generator uses, as a numba.cuda device function.

philox(counter, k0, k1) -> four 32-bit random words (held in uint64s): the 64-bit counter goes
in the first two counter words, the generator's 64-bit seed is the key. Arithmetic is done in
uint64 with explicit masks, so the same code is exact on a GPU and under the simulator (where
it runs on NumPy scalars and must not overflow).
"""
from __future__ import annotations

import numpy as np
from numba import cuda

M0 = np.uint64(0xD2511F53)
M1 = np.uint64(0xCD9E8D57)
W0 = np.uint64(0x9E3779B9)
W1 = np.uint64(0xBB67AE85)
MASK = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)


@cuda.jit(device=True)
def philox(counter, k0, k1):
    c0 = counter & MASK
    c1 = counter >> S32
    c2 = np.uint64(0)
    c3 = np.uint64(0)
    for r in range(10):
        if r:
            k0 = (k0 + W0) & MASK
            k1 = (k1 + W1) & MASK
        p0 = M0 * c0
        p1 = M1 * c2
        n0 = (p1 >> S32) ^ c1 ^ k0
        n2 = (p0 >> S32) ^ c3 ^ k1
        c1 = p1 & MASK
        c3 = p0 & MASK
        c0 = n0
        c2 = n2
    return c0, c1, c2, c3


def reference(counter: int, seed: int) -> tuple:
    """Philox4x32-10 in Python integers (tests check the device function against it)."""
    m32 = 0xFFFFFFFF
    c = [counter & m32, counter >> 32, 0, 0]
    k0, k1 = seed & m32, (seed >> 32) & m32
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & m32, (k1 + 0xBB67AE85) & m32
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & m32, (p0 >> 32) ^ c[3] ^ k1, p0 & m32]
    return tuple(c)
