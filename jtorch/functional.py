"""Python-level functions that torch writes in torch/functional.py over an aten operator: they
parse argument forms a schema cannot express, then call the operator's generated binding (torch's
`_VF.<name>`), so the binding's argument errors are torch's.

- `einsum(equation, *operands)`, `einsum(equation, [operands])` and the sublist form
  `einsum(op1, sublist1, op2, sublist2, ..., [out_sublist])` -> aten::einsum.
- `tensordot(a, b, dims=2, out=None)`: dims an int, a pair of dim lists, or a tensor -> aten::tensordot.
- `norm` (torch.norm and Tensor.norm), which calls linalg.vector_norm for vector norms, as torch does.

jtorch/__init__.py imports this module after the bindings are generated and then replaces the
plain bindings `jtorch.einsum` / `jtorch.tensordot` with these functions.
"""
from __future__ import annotations

import functools
from typing import Any

from . import bindings
from ._ops import ops
from .tensor import Tensor


@functools.cache
def _vf(name: str) -> Any:
    """The generated binding (torch's _VF.<name>), made on first use like every binding."""
    return bindings.function_binding(name)


def _parse_subscript(n: Any) -> str:
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args: Any) -> Tensor:
    """einsum(equation, *operands) -> Tensor: Einstein summation (torch.einsum)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):  # sublist format: op1, sublist1, op2, sublist2, ..., [out_sublist]
        equation = ",".join("".join(_parse_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_parse_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # the old list-of-operands form
        return einsum(equation, *operands[0])
    return _vf("einsum")(equation, operands)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """tensordot(a, b, dims=2, out=None) -> Tensor: contract a and b over dims (torch.tensordot)."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    dims_a: Any = []
    dims_b: Any = []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.size()[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}")
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            n = int(dims.item())
            if n < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-n, 0)), list(range(n))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    if out is None:
        return _vf("tensordot")(a, b, dims_a, dims_b)
    return _vf("tensordot")(a, b, dims_a, dims_b, out=out)


def norm(input: Tensor, p: float | str | None = "fro", dim: Any = None, keepdim: bool = False,
         out: Tensor | None = None, dtype: Any = None) -> Tensor:
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


def _tensor_norm(self: Tensor, p: float | str | None = "fro", dim: Any = None, keepdim: bool = False,
                 dtype: Any = None) -> Tensor:
    """Tensor.norm (torch/_tensor.py): torch.norm of self."""
    return norm(self, p, dim, keepdim, dtype=dtype)


# ---- variadic front ends of list operators (torch.functional) ---------------------------------------
def broadcast_tensors(*tensors: Tensor) -> tuple:
    """broadcast_tensors(*tensors) -> tuple of views expanded to the common shape."""
    return _vf("broadcast_tensors")(tensors)


def block_diag(*tensors: Tensor) -> Tensor:
    """block_diag(*tensors) -> Tensor: a block diagonal matrix of the inputs (torch.block_diag)."""
    return _vf("block_diag")(tensors)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """cartesian_prod(*tensors) -> Tensor: the cartesian product of 1-D tensors."""
    return _vf("cartesian_prod")(tensors)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """meshgrid(*tensors, indexing=None): grids of the inputs; warns (once) without indexing."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):  # the old one-list form
        tensors = tuple(tensors[0])
    kwargs = {} if indexing is None else {"indexing": indexing}
    return _vf("meshgrid")(tensors, **kwargs)


def broadcast_shapes(*shapes: Any) -> Any:
    """broadcast_shapes(*shapes) -> Size: the shape broadcasting the given shapes gives
    (torch._refs._broadcast_shapes, its texts), without making tensors."""
    from collections.abc import Sequence

    from .tensor import Size

    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for s in shapes:
        if not isinstance(s, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    common = [1] * max(len(s) for s in shapes)
    for arg, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            if s[i] == 1:
                continue
            if common[i] != s[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                                   f"argument at index {arg} had {s}; but expected shape should be broadcastable "
                                   f"to {common}")
    for i, v in enumerate(common):
        if not isinstance(v, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')")
    return Size(common)


def histogramdd(input: Tensor, bins: Any = 10, *, range: Any = None, weight: Tensor | None = None,
                density: bool = False) -> Any:
    """torch.histogramdd: (hist, bin_edges) of the points along input's last dim; bins is an int,
    a list of ints (one per dimension) or a list of 1-D edge tensors (the aten _histogramdd_* pieces)."""
    from . import return_types

    result = return_types.make("histogramdd", ("hist", "bin_edges"))
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if isinstance(bins, int):
        bins = [bins] * input.shape[-1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        hist = _vf("_histogramdd_from_bin_tensors")(input, list(bins), weight=weight, density=density)
        return result((hist, list(bins)))
    if len(bins) != input.shape[-1]:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    edges = _vf("_histogramdd_bin_edges")(input, list(bins), range=range, weight=weight, density=density)
    hist = _vf("_histogramdd_from_bin_cts")(input, list(bins), range=range, weight=weight, density=density)
    return result((hist, list(edges)))
