"""Shapes and strides, as pure functions on tuples: the one home of contiguity, broadcasting,
dim wrapping, dim lists and TensorIterator's reorder/coalesce. A leaf module: it imports nothing
of jtorch, so tensors, views, the structured layer and kernels all share these.
"""
from __future__ import annotations

from collections.abc import Sequence

_CONTIGUOUS: dict[tuple, tuple] = {}


def contiguous_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides (elements) of `size`; memoised, since every allocation asks."""
    s = _CONTIGUOUS.get(size)
    if s is None:
        st = [1] * len(size)
        acc = 1
        for i in range(len(size) - 1, -1, -1):
            st[i] = acc
            acc *= max(size[i], 1)
        s = tuple(st)
        if len(_CONTIGUOUS) < 4096:
            _CONTIGUOUS[size] = s
    return s


def is_contiguous(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    if _CONTIGUOUS.get(size) == stride:  # the common case: one dict lookup, no loop
        return True
    if 0 in size:  # no elements: contiguous whatever the strides, as in torch
        return True
    expected = 1
    for s, st in zip(reversed(size), reversed(stride)):
        if s != 1 and st != expected:
            return False
        expected *= s
    return True


def _dense_in_order(size: tuple[int, ...], stride: tuple[int, ...], order: tuple[int, ...]) -> bool:
    """Whether the dims, innermost first in `order`, are laid out densely (size-1 dims' strides free)."""
    expected = 1
    for d in order:
        if size[d] == 0:
            return True
        if size[d] != 1 and stride[d] != expected:
            return False
        expected *= size[d]
    return True


def is_channels_last(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    return len(size) == 4 and _dense_in_order(size, stride, (1, 3, 2, 0))


def channels_last_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    """get_channels_last_strides_2d: NHWC strides of an NCHW size."""
    if len(size) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = size
    return (h * w * c, 1, w * c, c)


def is_channels_last_3d(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """is_contiguous(memory_format=channels_last_3d): NDHWC order, as is_channels_last for 4-d."""
    return len(size) == 5 and _dense_in_order(size, stride, (1, 4, 3, 2, 0))


def channels_last_3d_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    """get_channels_last_strides_3d: NDHWC strides of an NCDHW size."""
    if len(size) != 5:
        raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
    n, c, d, h, w = size
    return (d * h * w * c, 1, h * w * c, w * c, c)


def is_channels_last_strides_3d(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """c10::is_channels_last_strides_3d_s5: the guess behind suggest_memory_format for 5-d."""
    if len(size) != 5 or stride[1] == 0:
        return False
    mn = 0
    for d in (1, 4, 3, 2, 0):
        if size[d] == 0 or stride[d] < mn:
            return False
        if d == 0 and mn == stride[1]:
            return False
        mn = stride[d]
        if size[d] > 1:
            mn *= size[d]
    return True


def is_channels_last_strides_2d(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """c10::is_channels_last_strides_2d_s4: the guess behind suggest_memory_format."""
    if len(size) != 4 or stride[1] == 0:
        return False
    mn = 0
    for d in (1, 3, 2, 0):
        if size[d] == 0 or stride[d] < mn:
            return False
        if d == 0 and mn == stride[1]:
            return False
        mn = stride[d]
        if size[d] > 1:
            mn *= size[d]
    return True


def is_non_overlapping_and_dense(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """TensorImpl::compute_non_overlapping_and_dense: a permutation of a contiguous layout."""
    n = len(size)
    if n == 1:
        return size[0] < 2 or stride[0] == 1
    if is_contiguous(size, stride):
        return True
    perm = sorted(range(n), key=lambda d: (size[d] < 2, stride[d] if size[d] >= 2 else 0))
    require = 1
    for d in perm:
        if size[d] < 2:
            return True
        if stride[d] != require:
            return False
        require *= size[d]
    return True


def infer_dense_strides(size: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, ...]:
    """at::infer_dense_strides: dense strides in the same dimension order as `stride` (the order
    TensorIterator's reorder_dimensions gives one operand: fastest dimension first)."""
    perm = reorder_dimensions(size, [list(stride)])
    out = [0] * len(size)
    acc = 1
    for d in perm:
        out[d] = acc
        if size[d] > 1:
            acc *= size[d]
    return tuple(out)


def numel(size: Sequence[int]) -> int:
    n = 1
    for s in size:
        n *= s
    return n


def storage_extent(size: tuple[int, ...], stride: tuple[int, ...]) -> int:
    """Elements a storage needs to hold a view of this size and stride at offset 0."""
    if 0 in size:
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(size, stride))


def shape_str(size: Sequence[int]) -> str:
    """PyTorch's `[2, 3]` rendering of a shape in messages."""
    return "[" + ", ".join(str(s) for s in size) + "]"


def infer_size(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """at::infer_size: the broadcast shape of a and b, with PyTorch's error text."""
    if a == b:
        return a
    na, nb = len(a), len(b)
    n = max(na, nb)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        off = n - 1 - i
        sa = a[na - 1 - off] if na - 1 - off >= 0 else 1
        sb = b[nb - 1 - off] if nb - 1 - off >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def wrap_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """c10::maybe_wrap_dim with PyTorch's messages (a 0-dim tensor takes dims -1 and 0)."""
    if ndim <= 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    if dim < -ndim or dim >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def dim_list_to_mask(dims: Sequence[int] | int | None, ndim: int) -> list[bool]:
    """at::dim_list_to_bitset / make_dim_mask: which dims a reduction reduces. None or an empty
    list reduce every dim ("dim={} performs an all-reduce, same as dim=None")."""
    if dims is None:
        return [True] * ndim
    if isinstance(dims, int):
        dims = (dims,)
    if len(dims) == 0:
        return [True] * ndim
    mask = [False] * max(ndim, 1)  # a 0-dim tensor's dim 0 (wrapped as a scalar) is seen once too
    for d in dims:
        w = wrap_dim(d, ndim)
        if mask[w]:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        mask[w] = True
    return mask[:ndim]


def reduced_shape(size: tuple[int, ...], mask: Sequence[bool], keepdim: bool) -> tuple[int, ...]:
    """shape_from_dim_mask: a reduced dim becomes 1 with keepdim, else disappears."""
    if keepdim:
        return tuple(1 if m else s for s, m in zip(size, mask))
    return tuple(s for s, m in zip(size, mask) if not m)


# ---- TensorIterator's dimension order and coalescing ------------------------------------------------
def reorder_dimensions(shape: tuple, strides: list[list[int]], reduction: bool = False,
                       nout: int = 0) -> list[int]:
    """TensorIteratorBase::reorder_dimensions: the permutation putting the fastest dimension first.

    Insertion sort over dimensions; an operand with a 0 (broadcast) stride defers to the next
    operand; equal strides put the smaller dimension first; ambiguous pairs keep their order.
    In a reduction (`reduction=True`, the first `nout` stride lists are outputs) an output's
    stride 0 marks a reduced dimension, and reduced dimensions move to the front (innermost).
    """
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        for k, st in enumerate(strides):
            s0, s1 = st[d0], st[d1]
            if reduction and k < nout and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, nd):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def coalesce_dimensions(shape: tuple, strides: list[list[int]]) -> tuple:
    """TensorIteratorBase::coalesce_dimensions: merge neighbours that walk memory as one dimension
    for every operand (or have size 1). Truncates the stride lists in place; returns the shape."""
    sizes = list(shape)
    nd = len(sizes)
    if nd <= 1:
        return tuple(sizes)
    prev = 0
    for d in range(1, nd):
        s0, s1 = sizes[prev], sizes[d]
        if s0 == 1 or s1 == 1 or all(s0 * st[prev] == st[d] for st in strides):
            if s0 == 1:
                for st in strides:
                    st[prev] = st[d]
            sizes[prev] *= s1
        else:
            prev += 1
            if prev != d:
                for st in strides:
                    st[prev] = st[d]
                sizes[prev] = sizes[d]
    for st in strides:
        del st[prev + 1:]
    return tuple(sizes[: prev + 1])


def scan_rows(size: tuple, dim: int, strides: list[tuple[int, ...]]) -> tuple[int, tuple, list[list[int]]]:
    """The rows a scan along `dim` walks, for tensors of one `size` with the given strides:
    (row length, shape of the other dims reordered fastest-first and coalesced, each tensor's
    strides over that shape). A 0-dim or 1-dim tensor is one row."""
    if len(size) <= 1:
        return (size[0] if size else 1), (1,), [[0] for _ in strides]
    other = [d for d in range(len(size)) if d != dim]
    st = [[s[d] for d in other] for s in strides]
    shape = tuple(size[d] for d in other)
    perm = reorder_dimensions(shape, st)
    st = [[s[p] for p in perm] for s in st]
    return size[dim], coalesce_dimensions(tuple(shape[p] for p in perm), st), st


def index_map_geometry(shape: Sequence[int], *operand_strides: Sequence[int]) -> tuple[tuple, list]:
    """TensorIterator's geometry for an index map's operands (dst, src, index): size-1 dims'
    strides zeroed, dims ordered and coalesced; a 0-dim iteration becomes one element."""
    strides = [[st if n != 1 else 0 for st, n in zip(sts, shape)] for sts in operand_strides]
    if not shape:
        return (1,), [[0] for _ in operand_strides]
    perm = reorder_dimensions(tuple(shape), strides)
    strides = [[st[p] for p in perm] for st in strides]
    return coalesce_dimensions(tuple(shape[p] for p in perm), strides), strides
