"""einsum and tensordot: CompositeImplicitAutograd kernels (ATen's Linear.cpp) that reduce every
contraction to permutes, reshapes and one bmm (sumproduct_pair) or mm.

The Python-level `jtorch.einsum(equation, *operands)` and `jtorch.tensordot(a, b, dims)` that
parse torch's argument forms are in jtorch/functional.py, as in torch.

Sums over a label that only one operand has (and the sums of a one-operand einsum such as
"ij->i" or a trace "ii") use aten::sum when it is declared; until then `_sum` computes them as a
matrix-vector product against a vector of ones, with sum's dtype rule (integral and bool sums
give int64).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from .. import dtypes as _dt
from ..geometry import dim_list_to_mask, wrap_dim
from ..scalar import SCALAR_TYPE_NAME
from ..structured.meta import resize_output
from ..tensor import Tensor
from .binary import mul
from .blas import bmm, mm, mv
from .conversion import to_dtype
from .copy import copy_
from .factories import ones
from .registry import by_name, declare
from .views import diagonal, movedim_int, permute, reshape, unsqueeze, view

einsum = declare("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor")
tensordot = declare("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor")
tensordot_out = declare("tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, "
                        "Tensor(a!) out) -> Tensor(a!)")


def _sum(t: Tensor, dims: Sequence[int], dtype: _dt.dtype | None = None) -> Tensor:
    """t.sum(dims, keepdim=True, dtype=dtype), with sum's promotion of integral and bool to int64."""
    nf = by_name.get("sum.dim_IntList")
    if nf is not None:
        return nf.op(t, list(dims), True, dtype=dtype)
    if dtype is None:
        dtype = t.dtype if (t.dtype.is_floating_point or t.dtype.is_complex) else _dt.int64
    if t.dtype is not dtype:
        t = to_dtype.op(t, dtype)
    mask = dim_list_to_mask(list(dims), t.dim())
    keep = [d for d in range(t.dim()) if not mask[d]]
    red = [d for d in range(t.dim()) if mask[d]]
    rows = math.prod(t._size[d] for d in keep)
    k = math.prod(t._size[d] for d in red)
    flat = reshape.op(permute.op(t, keep + red), (rows, k))
    r = mv.op(flat, ones.op((k,), dtype=dtype, device=t._device))
    return view.op(r, tuple(1 if mask[d] else s for d, s in enumerate(t._size)))


# ---- sumproduct_pair ------------------------------------------------------------------------------------
def sumproduct_pair(left: Tensor, right: Tensor, sum_dims: Sequence[int], keepdim: bool) -> Tensor:
    """(left * right).sum(sum_dims) by permutes, reshapes and one bmm; the operands have the same
    number of dims and broadcast against each other."""
    if left.dim() != right.dim():
        raise RuntimeError("number of dimensions must match")
    if not sum_dims:
        return mul.functional.op(left, right)
    dim = left.dim()
    summed = dim_list_to_mask(list(sum_dims), dim)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left._size[i] != 1, right._size[i] != 1
        if summed[i]:
            if sl and sr:
                if left._size[i] != right._size[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._size[i]
            elif sl:
                left = _sum(left, [i])
            elif sr:
                right = _sum(right, [i])
        elif sl and sr:
            if left._size[i] != right._size[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._size[i]
        elif sl:
            lo.append(i)
            lo_size *= left._size[i]
        else:
            ro.append(i)
            ro_size *= right._size[i]
    sum_dims = list(sum_dims)
    out_size = ([left._size[d] for d in lro] + [left._size[d] for d in lo] + [1] * len(sum_dims)
                + [right._size[d] for d in ro])
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    left = reshape.op(permute.op(left, lperm), (lro_size, lo_size, sum_size))
    right = reshape.op(permute.op(right, rperm), (lro_size, sum_size, ro_size))
    result = permute.op(view.op(bmm.functional.op(left, right), tuple(out_size)), operm)
    if not keepdim:
        result = view.op(result, tuple(s for i, s in enumerate(result._size) if not summed[i]))
    return result


# ---- einsum ------------------------------------------------------------------------------------------------
_LETTERS = 26
_TOTAL_LABELS = 2 * _LETTERS
_ELLIPSIS = _TOTAL_LABELS


def _subscript(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _is_label(c: str) -> bool:
    return c.isascii() and c.isalpha()


_COMMA = _TOTAL_LABELS + 1
# torch's texts for a '.' in an operand's subscripts ({} its index) or the output's: a second ellipsis, a lone '.'
_OPERAND_DOTS = ("einsum(): found '.' for operand {} for which an ellipsis was already found",
                 "einsum(): found '.' for operand {} that is not part of any ellipsis")
_OUTPUT_DOTS = ("einsum(): found '.' for output but an ellipsis (...) was already found",
                "einsum(): found '.' for output that is not part of any ellipsis (...)")


def _subscripts(text: str, offset: int, dots: tuple[str, str], commas: bool) -> Iterator[int]:
    """The subscripts of one side of the equation (`text`, at `offset` in it), spaces skipped: a letter's
    label, _ELLIPSIS for '...' and, with `commas` (the operands' side), _COMMA between terms. An error
    is raised where the scan meets it, in torch's order: a '.' with `dots`' texts, any other character."""
    term = 0
    ellipsis = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if ellipsis:
                raise RuntimeError(dots[0].format(term))
            if not (i + 2 < len(text) and text[i + 1] == "." and text[i + 2] == "."):
                raise RuntimeError(dots[1].format(term))
            i += 2
            ellipsis = True
            yield _ELLIPSIS
        elif c == "," and commas:
            term += 1
            ellipsis = False
            yield _COMMA
        elif c != " ":
            if not _is_label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            yield _subscript(c)
        i += 1


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    curr = 0
    for s in _subscripts(lhs, 0, _OPERAND_DOTS, commas=True):
        if s == _COMMA:
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
        else:
            op_labels[curr].append(s)
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


@einsum.impl("CompositeImplicitAutograd")
def einsum_kernel(equation: str, tensors: Sequence[Tensor], *, path: Sequence[int] | None = None) -> Tensor:
    operands = list(tensors)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size {path_size} "
                               f"but got {len(path)}")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, num_ops)

    label_count = [0] * _TOTAL_LABELS
    ell_num_dim = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        ndims = t.dim()
        nlabels = len(labels)
        has_ellipsis = False
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[s] += 1
        if (nlabels > ndims) if has_ellipsis else (nlabels != ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ellipsis else
                   "does not match the number of dimensions (")
                + f"{ndims}) for operand {i}" + ("" if has_ellipsis else " and no ellipsis was given"))

    # every operand is permuted to (output dims, contraction dims); label_perm_index says where
    label_perm_index = [-1] * _TOTAL_LABELS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:  # implicit output: the ellipsis dims, then the labels seen once, in order
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_TOTAL_LABELS):
            if label_count[s] == 1:
                label_perm_index[s] = perm_index
                perm_index += 1
    else:
        for s in _subscripts(equation[arrow + 2:], len(lhs) + 2, _OUTPUT_DOTS, commas=False):
            if s == _ELLIPSIS:
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (label_count[s] > 0 and label_perm_index[s] == -1):
                    raise RuntimeError(f"einsum(): output subscript {_label(s)}" + (
                        " appears more than once in the output" if label_perm_index[s] > -1
                        else " does not appear in the equation for any input operand"))
                label_perm_index[s] = perm_index
                perm_index += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_TOTAL_LABELS):
        if label_count[s] > 0 and label_perm_index[s] == -1:
            label_perm_index[s] = perm_index
            perm_index += 1

    # sizes, diagonals of repeated labels, missing dims unsqueezed, operands aligned
    label_size = [1] * _TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, labels in enumerate(op_labels):
        op = operands[i]
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = operands[i].dim() - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._size[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} "
                                "which does not broadcast with previously seen ellipsis with size "
                                f"{ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                size = op._size[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(f"einsum(): subscript {_label(s)} has size {size} for operand {i} which "
                                           f"does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal
                prev = permutation[label_perm_index[s]]
                if op._size[dim] != op._size[prev]:
                    raise RuntimeError(f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes "
                                       f"don't match, {op._size[dim]} != {op._size[prev]}")
                op = movedim_int.op(diagonal.op(op, 0, prev, dim), -1, prev)
        for k in range(perm_index):
            if permutation[k] == -1:
                op = unsqueeze.op(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(permute.op(op, permutation))

    # contract pairs: left to right, or in the order of `path`
    contract_path = list(path) if path is not None else []
    it = 0
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = contract_path[it], contract_path[it + 1]
            it += 2
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j})" + (
                    " cannot contract an operand with itself" if i == j else " operand index is out of bounds"))
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        sum_dims, a_dims, b_dims = [], [], []
        for d in range(out_num_dim, perm_index):
            if a._size[d] != 1 and b._size[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._size[d] != 1:
                    a_dims.append(d)
                    dim_counts[d] = 0
                elif b._size[d] != 1:
                    b_dims.append(d)
                    dim_counts[d] = 0
        if a_dims:
            a = _sum(a, a_dims)
        if b_dims:
            b = _sum(b, b_dims)
        r = sumproduct_pair(a, b, sum_dims, True)
        if path is not None:
            ops.append(r)
        else:
            ops.insert(0, r)

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:  # contracted already: the contraction dims are size 1 now
            return view.op(result, result._size[:out_num_dim])
        return _squeeze_tail(_sum(result, list(range(out_num_dim, perm_index))), out_num_dim)
    return result


def _squeeze_tail(t: Tensor, ndim: int) -> Tensor:
    """The keepdim sum without its trailing size-1 dims (sum(dims) with keepdim=False)."""
    return view.op(t, t._size[:ndim])


# ---- tensordot -------------------------------------------------------------------------------------------
@tensordot.impl("CompositeImplicitAutograd")
def tensordot_kernel(self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int]) -> Tensor:
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = self, other
    for d1, d2 in zip(dims_self, dims_other):
        s1 = self._size[wrap_dim(d1, self.dim())]
        s2 = other._size[wrap_dim(d2, other.dim())]
        if s2 == 1:  # a broadcast dimension sums away at once
            t1 = _sum(t1, [d1], dtype=t1.dtype)
        elif s1 == 1:
            t2 = _sum(t2, [d2], dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    cdims1 = dim_list_to_mask(list(dims_self), self.dim()) if dims_self else [False] * self.dim()
    cdims2 = dim_list_to_mask(list(dims_other), other.dim()) if dims_other else [False] * other.dim()
    p1 = [i for i in range(self.dim()) if not cdims1[i]]
    p2 = [i for i in range(other.dim()) if not cdims2[i]]
    rsizes = tuple(t1._size[i] for i in p1) + tuple(t2._size[i] for i in p2)
    size1 = math.prod(t1._size[i] for i in p1)
    size2 = math.prod(t2._size[i] for i in p2)
    t1 = reshape.op(permute.op(t1, p1 + [wrap_dim(d, self.dim()) for d in dims_self]), (size1, csize))
    t2 = reshape.op(permute.op(t2, [wrap_dim(d, other.dim()) for d in dims_other] + p2), (csize, size2))
    return reshape.op(mm.functional.op(t1, t2), rsizes)


@tensordot_out.impl("CompositeImplicitAutograd")
def tensordot_out_kernel(self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int], *,
                         out: Tensor) -> Tensor:
    result = tensordot_kernel(self, other, dims_self, dims_other)
    if result.dtype is not out.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {SCALAR_TYPE_NAME[result.dtype]}, but "
                           f"got an output tensor with dtype {SCALAR_TYPE_NAME[out.dtype]}")
    resize_output(out, result._size)
    return copy_.op(out, result)


# ---- _trilinear: bilinear's kernel (ATen's Linear.cpp) --------------------------------------------------
@declare("_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim, "
         "int unroll_dim=1) -> Tensor", variants="function").impl("CompositeExplicitAutograd")
def _trilinear(i1: Tensor, i2: Tensor, i3: Tensor, expand1: Sequence[int], expand2: Sequence[int],
               expand3: Sequence[int], sumdim: Sequence[int], unroll_dim: int = 1) -> Tensor:
    """The product of i1, i2, i3, each unsqueezed at its `expand` dims to a common rank, summed over
    `sumdim` (those dims dropped): written as one einsum, which contracts pairwise with bmm."""
    total = len(i1._size) + len(expand1)
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"unroll_dim must be in [0,{total - 1}]")
    letters = [chr(ord("a") + i) for i in range(total)]
    subs = ["".join(c for i, c in enumerate(letters) if i not in set(expand)) for expand in (expand1, expand2, expand3)]
    summed = set(sumdim)
    kept = [i for i in range(total) if i not in summed]
    present = set("".join(subs))
    # a kept dim expanded in all three operands has size 1 in the result: einsum cannot name it
    out = by_name["einsum"].op(",".join(subs) + "->" + "".join(letters[i] for i in kept if letters[i] in present),
                               [i1, i2, i3])
    for pos, i in enumerate(kept):
        if letters[i] not in present:
            out = unsqueeze.op(out, pos)
    return out
