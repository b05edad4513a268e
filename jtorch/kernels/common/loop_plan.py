"""Loop shapes for strided copies: the dimension order and merging both backends' copy, matmul and
remap stubs walk."""
from __future__ import annotations

from ...geometry import coalesce_dimensions, reorder_dimensions


def loop_plan(shape: tuple[int, ...], dst_stride: tuple[int, ...],
              src_stride: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Shape and element strides for a copy loop: TensorIterator's dimension order (fastest first)
    and coalescing."""
    perm = reorder_dimensions(shape, [list(dst_stride), list(src_stride)])
    a = [dst_stride[d] for d in perm]
    b = [src_stride[d] for d in perm]
    sh = coalesce_dimensions(tuple(shape[d] for d in perm), [a, b])
    return sh, tuple(a), tuple(b)


def coalesce_c_order(shape: list[int], a: list[int], b: list[int]) -> tuple[list[int], list[int], list[int]]:
    """Drop size-1 dims and merge adjacent dims (C order) that both views walk as one; strides may
    be negative (the remap stubs' flips)."""
    s: list[int] = []
    x: list[int] = []
    y: list[int] = []
    for n, sa, sb in zip(shape, a, b):
        if n == 1:
            continue
        if s and x[-1] == sa * n and y[-1] == sb * n:
            s[-1] *= n
            x[-1], y[-1] = sa, sb
        else:
            s.append(n)
            x.append(sa)
            y.append(sb)
    return s or [1], x or [1], y or [1]
