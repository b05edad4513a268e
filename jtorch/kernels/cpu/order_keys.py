"""Ordered keys: an unsigned integer per element whose order is torch's order of the values
(NaN largest and all NaNs equal, -0.0 == 0.0), shared by the sort and selection kernels. Kernels
read raw buffers viewed as unsigned integers of the element's width (UINT), so one compile
serves every dtype of that width; `dtype_params` gives what they need to make the keys."""
from __future__ import annotations

import numba
import numpy as np

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_EXP = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}  # exponent bits: above them is NaN


@numba.njit(inline="always")
def float_key(u, sign, expmask, ones):
    """The ordered key of a float's bits: NaN largest, -0.0 as 0.0, and otherwise the sign bit
    flipped (positive) or every bit flipped (negative), without a branch on the sign: random
    signs would mispredict half the time (measured 10x slower). radix.float_key is the same
    mapping with selects for NaN and zero too, faster in its loops; these branches are faster in
    sort._keys' strided loop (1.8 against 6 ms for 1M float32)."""
    a = u & (sign - np.uint64(1))
    if a > expmask:
        return ones
    if a == 0:
        return sign
    neg = np.uint64((u & sign) != 0)  # 0 or 1, a flag, not a branch
    return u ^ (((np.uint64(0) - neg) & ones) | sign)


def dtype_params(dt: np.dtype) -> tuple[int, np.uint64, np.uint64]:
    """(kind: 0 unsigned or bool, 1 signed, 2 float; sign bit; exponent mask) of a NumPy dtype."""
    bits = dt.itemsize * 8
    kind = 2 if dt.kind == "f" else 1 if dt.kind == "i" else 0
    return kind, np.uint64(1 << (bits - 1)), np.uint64(_EXP.get(dt.itemsize, 0) if kind == 2 else 0)
