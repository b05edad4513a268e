"""bfloat16 conversions as helpers every target compiles (scalar-function vocabulary).

A bfloat16 buffer is seen as uint16 bit patterns. `bfloat16_to_float(h)` is the float32 whose high
half is `h` (exact); `float_to_bfloat16(x)` is c10's round_to_nearest_even of float32(x) (NaN ->
0x7FC0). The implementations use arithmetic only (frexp/ldexp and jmath.rint), no bit casts, so
that numba.cuda compiles them as the CPU does; the stubs' bodies (NumPy bit views) are the
reference, and what the CUDA simulator runs. The CPU copy kernel has faster bit-cast versions of
the same functions (cpu/copy_loops.py).
"""
from __future__ import annotations

import math

import numpy as np
from numba.core import types
from numba.extending import register_jitable

from . import jmath
from .frontend import implements


def bfloat16_to_float(h):
    """bfloat16 bits (an unsigned 16-bit integer) -> the float32 value they hold."""
    return (np.uint32(h) << np.uint32(16)).view(np.float32)


def float_to_bfloat16(x):
    """A real (a complex: its real part) -> bfloat16 bits (uint16), through float32, ties to even."""
    f = np.float32(np.real(x))
    u = np.uint64(f.view(np.uint32))
    if f != f:
        return np.uint16(0x7FC0)
    return np.uint16((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16))


@register_jitable(error_model="numpy")
def _to_float(h):
    h = np.int64(h)  # NumPy scalars (the simulator) must not wrap around in uint16
    e = (h >> 7) & 0xFF
    m = h & 0x7F
    if e == 0xFF:
        mag = np.float32(math.inf) if m == 0 else np.float32(math.nan)
    elif e == 0:
        mag = np.float32(math.ldexp(np.float64(m), -133))  # subnormal: m * 2**-133, exact
    else:
        mag = np.float32(math.ldexp(np.float64(m + 128), int(e - 134)))
    return -mag if (h & 0x8000) != 0 else mag


@register_jitable(error_model="numpy")
def _from_float32(f):
    if f != f:
        return np.uint16(0x7FC0)
    sign = 0x8000 if (f < 0 or (f == 0 and math.copysign(1.0, f) < 0)) else 0
    a = np.float64(abs(f))
    if a == math.inf:
        return np.uint16(sign | 0x7F80)
    if a == 0:
        return np.uint16(sign)
    m, e = math.frexp(a)                                # a = m * 2**e, 0.5 <= m < 1
    field = e + 126                                     # the exponent field of a normal result
    if field >= 1:
        r = np.int64(jmath.rint(m * 256.0))             # 8 significant bits, ties to even (exact)
        bits = (field << 7) + r - 128                   # r == 256 carries into the exponent
        bits = 0x7F80 if bits >= 0x7F80 else bits       # overflow: inf
    else:
        bits = np.int64(jmath.rint(math.ldexp(a, 133)))  # subnormal k * 2**-133 (128: the least normal)
    return np.uint16(sign | bits)


@implements(bfloat16_to_float)
def _select_to_float(h):
    return (lambda h: _to_float(h)) if isinstance(h, types.Integer) else None


@implements(float_to_bfloat16)
def _select_from_float(x):
    if isinstance(x, types.Complex):
        return lambda x: _from_float32(np.float32(x.real))
    return lambda x: _from_float32(np.float32(x))
