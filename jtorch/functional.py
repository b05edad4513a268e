"""Python-level functions of torch/functional.py that dispatch to several operators: `norm`
(torch.norm and Tensor.norm), which calls linalg.vector_norm for vector norms, as torch does."""
from __future__ import annotations

from typing import Any

from ._ops import ops
from .tensor import Tensor


def norm(input: Tensor, p: "float | str | None" = "fro", dim: Any = None, keepdim: bool = False,
         out: "Tensor | None" = None, dtype: Any = None) -> Tensor:
    """torch.norm: 'fro' (over at most two dims) and numbers are vector norms (linalg.vector_norm);
    the matrix norms ('nuc', 'fro' over more dims) are not implemented in jtorch."""
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        else:
            raise NotImplementedError(f"jtorch: torch.norm with p={p!r} needs linalg.matrix_norm, which jtorch "
                                      "does not implement")
    _p = 2.0 if p is None else p
    if out is None:
        return ops.aten.linalg_vector_norm.default(input, _p, _dim, keepdim, dtype=dtype)
    return ops.aten.linalg_vector_norm.out(input, _p, _dim, keepdim, dtype=dtype, out=out)


def _tensor_norm(self: Tensor, p: "float | str | None" = "fro", dim: Any = None, keepdim: bool = False,
                 dtype: Any = None) -> Tensor:
    """Tensor.norm (torch/_tensor.py): torch.norm of self."""
    return norm(self, p, dim, keepdim, dtype=dtype)
