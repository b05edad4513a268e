"""Checks shared by elementwise operator families (PyTorch's native helpers of the same names)."""
from __future__ import annotations

from .. import dtypes as _dt


def alpha_check(dtype: _dt.dtype, extras: dict) -> None:
    """at::native::alpha_check."""
    alpha = extras["alpha"]
    if dtype is _dt.bool and not isinstance(alpha, bool) and alpha not in (0, 1):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not dtype.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
