"""jtorch.linalg: the linear-algebra functions jtorch implements (torch.linalg's names)."""
from __future__ import annotations

from typing import Any

from ._ops import ops
from .tensor import Tensor


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
                out: Tensor | None = None) -> Tensor:
    """linalg.vector_norm: sum(|x|**ord)**(1/ord) over `dim` (every dim when None); ord 0 counts
    non-zeros, inf / -inf take the largest / smallest |x|."""
    if isinstance(dim, int):
        dim = [dim]
    if out is None:
        return ops.aten.linalg_vector_norm.default(x, ord, dim, keepdim, dtype=dtype)
    return ops.aten.linalg_vector_norm.out(x, ord, dim, keepdim, dtype=dtype, out=out)
