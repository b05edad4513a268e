"""Declaring elementwise operator families, and the checks they share (PyTorch's native helpers
of the same names)."""
from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..structured.elementwise import elementwise_kernels
from ..structured.tensor_iterator import TensorIterator
from .structured import StructuredFamily, structured
from .unsigned_support import elementwise_check


def elementwise(out: str, *, functional: str | None = None, inplace: str | None = None,
                numbers_as_tensors: bool = True, variants: str = "function, method", dunder: str = "",
                inplace_dunder: str = "", inplace_variants: str = "method", **kernel_options: Any) -> StructuredFamily:
    """Declare an elementwise operator family from its schemas and its scalar function; the
    keyword arguments of jtorch.structured.elementwise.elementwise_kernels (scalar, select,
    config, check, prepare, dispatch_check) say how it computes."""
    kernel_options["dispatch_check"] = elementwise_check(out, kernel_options.get("dispatch_check"))
    meta, impl, fast = elementwise_kernels(out, **kernel_options)
    return structured(out, functional=functional, inplace=inplace, meta=meta, impl=impl, context=TensorIterator,
                      variants=variants, inplace_variants=inplace_variants, numbers_as_tensors=numbers_as_tensors,
                      dunder=dunder, inplace_dunder=inplace_dunder, fast_path=fast)


def alpha_check(dtype: _dt.dtype, extras: dict) -> None:
    """at::native::alpha_check."""
    alpha = extras["alpha"]
    if isinstance(alpha, bool) and dtype is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not dtype.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
