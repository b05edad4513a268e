"""Checks shared by elementwise operator families (PyTorch's native helpers of the same names)."""
from __future__ import annotations

from .. import dtypes as _dt


def alpha_check(dtype: _dt.dtype, extras: dict) -> None:
    """at::native::alpha_check."""
    alpha = extras["alpha"]
    if isinstance(alpha, bool) and dtype is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not dtype.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
