"""View operators: new sizes, strides and storage offset onto the same storage, never a copy.

A view shares its base's storage and version counter (so an in-place write through any view bumps
the version every other view sees) and records `_base`, the tensor that owns the memory (the
viewed tensor's own `_base` when it is itself a view), as PyTorch's `as_view` does.

The kernels only compute metadata, so they are registered for CompositeExplicitAutograd: one
kernel serves CPU, Meta and any other backend. Operators that PyTorch writes as decompositions
(reshape, flatten, narrow, movedim, ...) are CompositeImplicitAutograd kernels here as well and
call the view operators they decompose into through the dispatcher.

The shape rules and error texts follow ATen: TensorShape.cpp, InferSize.h, ExpandUtils.h and
TensorUtils.cpp (computeStride).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..geometry import is_contiguous, wrap_dim
from ..geometry import numel as _numel
from ..geometry import shape_str as _fmt
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import Tensor
from ..warn import user_stacklevel
from .math_bits import MATH_BITS
from .registry import by_name, declare

_make = Tensor._make
_INT64_MAX = (1 << 63) - 1


# ---- helpers ---------------------------------------------------------------------------------------
def _view(self: Tensor, size: tuple, stride: tuple, offset: int) -> Tensor:
    """The view of `self` with the given geometry (alias_with_sizes_and_strides + as_view)."""
    base = self._base
    t = _make(self._storage, size, stride, offset, self.dtype, self._device, self._vc, self if base is None else base)
    t._key_set |= self._key_set & MATH_BITS  # a view of a conjugate (negative) view is one too
    return t


def _keep_bits(self: Tensor, t: Tensor) -> Tensor:
    """A view keeps its input's conjugate and negative bits (the view is made from self's key set)."""
    t._key_set |= self._key_set & MATH_BITS
    return t


def legacy_type_name(t: Tensor) -> str:
    """Tensor::toString(): 'torch.FloatTensor', 'torch.cuda.FloatTensor', 'MetaFloatType'."""
    name = SCALAR_TYPE_NAME[t.dtype]
    dev = t._device.type
    if dev == "cpu":
        return f"torch.{name}Tensor"
    if dev == "cuda":
        return f"torch.cuda.{name}Tensor"
    return f"{dev.capitalize()}{name}Type"


def resolve_inferred_dim(shape: Sequence[int], numel: int) -> tuple:
    """at::infer_size_dv (InferSize.h): `shape` with its one -1 replaced by the size that makes it
    hold `numel` elements (view, reshape, unflatten). Not broadcasting: that is geometry.infer_size."""
    infer = -1
    newsize = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            newsize *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_fmt(shape)}")
    if numel == newsize or (infer >= 0 and newsize > 0 and numel % newsize == 0):
        if infer < 0:
            return tuple(shape)
        if newsize == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the unspecified dimension "
                "size -1 can be any value and is ambiguous")
        res = list(shape)
        res[infer] = numel // newsize
        return tuple(res)
    raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")


def compute_stride(oldshape: tuple, oldstride: tuple, newshape: tuple) -> tuple | None:
    """at::detail::computeStride: strides that let `newshape` view the memory of (oldshape,
    oldstride), or None when some new dimension would span two non-contiguous chunks."""
    if not oldshape:
        return (1,) * len(newshape)
    numel = 1
    for s in oldshape:
        numel *= s
    if numel == 0:
        if oldshape == newshape:
            return oldstride
        st = [1] * len(newshape)
        for d in range(len(newshape) - 2, -1, -1):
            st[d] = max(newshape[d + 1], 1) * st[d + 1]
        return tuple(st)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        # end of a contiguous chunk of the old tensor: the view dims inside it must fill it exactly
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1
                             and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


# ---- view / reshape --------------------------------------------------------------------------------
view = declare("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", variants="method")
view_dtype = declare("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", variants="method")
view_as = declare("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants="method")
reshape = declare("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", variants="function, method")
reshape_as = declare("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants="method")
_reshape_alias = declare("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)", variants="")
_unsafe_view = declare("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", variants="")


@view.impl("CompositeExplicitAutograd")
def view_kernel(self: Tensor, size: Sequence[int]) -> Tensor:
    old, old_stride = self._size, self._stride
    # one pass for numel and contiguity: a contiguous tensor takes the new shape's contiguous strides
    numel = 1
    contiguous = True
    for i in range(len(old) - 1, -1, -1):
        s = old[i]
        if s != 1 and old_stride[i] != numel:
            contiguous = False
        numel *= s
    n = 1
    for s in size:
        if s < 0:
            shape = resolve_inferred_dim(size, numel)
            break
        n *= s
    else:
        shape = size if n == numel and type(size) is tuple else resolve_inferred_dim(size, numel)
    if contiguous and numel:
        acc = 1
        st = []
        for i in range(len(shape) - 1, -1, -1):
            st.append(acc)
            acc *= shape[i]
        st.reverse()
        stride = tuple(st)
    else:
        computed = compute_stride(old, old_stride, shape)
        if computed is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead.")
        stride = computed
    base = self._base
    return _keep_bits(self, _make(self._storage, shape, stride, self._offset, self.dtype, self._device, self._vc,
                 self if base is None else base))


@view_dtype.impl("CompositeExplicitAutograd")
def view_dtype_kernel(self: Tensor, dtype: _dt.dtype) -> Tensor:
    """Reinterpret the bytes: the last dimension shrinks or grows by the ratio of element sizes.

    The result shares the version counter but, as in PyTorch, has no `_base` (it is not a
    differentiable view). Its storage object reinterprets the same memory.
    """
    old = self.dtype
    if dtype is old:
        return _view(self, self._size, self._stride, self._offset)
    a, b = old.itemsize, dtype.itemsize
    size, stride, offset = list(self._size), list(self._stride), self._offset
    on, nn = SCALAR_TYPE_NAME[old], SCALAR_TYPE_NAME[dtype]
    what = f"to view {on} as {nn} (different element sizes)"
    if a != b:
        if not size:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
    if a > b:
        r = a // b
        size[-1] *= r
        stride = [s * r for s in stride[:-1]] + [1]
        offset *= r
    elif a < b:
        r = b // a
        if size[-1] % r:
            raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got {size[-1]}")
        if offset % r:
            raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but got {offset}")
        for i, s in enumerate(stride[:-1]):
            if s % r:
                raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but got {s}")
        size[-1] //= r
        stride = [s // r for s in stride[:-1]] + [1]
        offset //= r
    storage = _reinterpret_storage(self, dtype)
    return _make(storage, tuple(size), tuple(stride), offset, dtype, self._device, self._vc, None)


def _reinterpret_storage(self: Tensor, dtype: _dt.dtype) -> Any:
    try:
        return self._storage.reinterpret(dtype)
    except NotImplementedError:
        raise NotImplementedError(f"view(dtype) is not supported for {self._device.type} storage") from None


@view_as.impl("CompositeImplicitAutograd")
def view_as_kernel(self: Tensor, other: Tensor) -> Tensor:
    return view.op(self, other._size)


@_reshape_alias.impl("CompositeExplicitAutograd")
def reshape_alias_kernel(self: Tensor, size: Sequence[int], stride: Sequence[int]) -> Tensor:
    return _view(self, tuple(size), tuple(stride), self._offset)


@_unsafe_view.impl("CompositeExplicitAutograd")
def unsafe_view_kernel(self: Tensor, size: Sequence[int]) -> Tensor:
    """view() of a tensor nobody else sees (reshape's fresh copy): not recorded as a view."""
    shape = resolve_inferred_dim(size, _numel(self._size))
    stride = compute_stride(self._size, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return _keep_bits(self, _make(self._storage, shape, stride, self._offset, self.dtype, self._device, self._vc, None))


@reshape.impl("CompositeImplicitAutograd")
def reshape_kernel(self: Tensor, shape: Sequence[int]) -> Tensor:
    """A view when computeStride finds strides for the new shape, else a contiguous copy."""
    size = resolve_inferred_dim(shape, _numel(self._size))
    stride = compute_stride(self._size, self._stride, size)
    if stride is not None:  # torch: a contiguous tensor is view()ed (ViewBackward0), others _reshape_alias
        return view.op(self, size) if is_contiguous(self._size, self._stride) else _reshape_alias.op(self, size, stride)
    copy = by_name["clone"].op(self, memory_format=contiguous_format)
    return _unsafe_view.op(copy, size)


@reshape_as.impl("CompositeImplicitAutograd")
def reshape_as_kernel(self: Tensor, other: Tensor) -> Tensor:
    return reshape.op(self, other._size)


# ---- as_strided ------------------------------------------------------------------------------------
as_strided = declare(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    variants="function, method")


@as_strided.impl("CompositeExplicitAutograd")
def as_strided_kernel(self: Tensor, size: Sequence[int], stride: Sequence[int],
                      storage_offset: int | None = None) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    offset = self._offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for st in stride:
        if st < 0:
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                               f"{_fmt(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    # checkInBoundsForStorage (computeStorageNbytes): sizes are checked here too
    extent = 1
    for s, st in zip(size, stride):
        if s < 0:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={_fmt(size)} and "
                               f"strides={_fmt(stride)}")
        if s == 0:
            extent = 0
            break
        extent += st * (s - 1)
    if extent:
        isz = self.dtype.itemsize
        need = (extent + offset) * isz
        have = self._storage.nbytes()
        if need > have:
            raise RuntimeError(
                f"setStorage: sizes {_fmt(size)}, strides {_fmt(stride)}, storage offset {offset}, and itemsize {isz} "
                f"requiring a storage size of {need} are out of bounds for storage of size {have}")
    return _view(self, size, stride, offset)


# ---- transpose / t / permute / movedim -------------------------------------------------------------
transpose = declare("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", variants="function, method")
swapaxes = declare("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)", variants="function, method")
swapdims = declare("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", variants="function, method")
t = declare("t(Tensor(a) self) -> Tensor(a)", variants="function, method")
permute = declare("permute(Tensor(a) self, int[] dims) -> Tensor(a)", variants="function, method")
movedim_intlist = declare("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
                          variants="function, method")
movedim_int = declare("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
                      variants="function, method")
moveaxis_intlist = declare("moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
                           variants="function, method")
moveaxis_int = declare("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
                       variants="function, method")


@transpose.impl("CompositeExplicitAutograd")
def transpose_kernel(self: Tensor, dim0: int, dim1: int) -> Tensor:
    size = self._size
    n = len(size)
    # inline maybe_wrap_dim: this is a hot path (Tensor.T, mT, t())
    m = n if n else 1
    if not (-m <= dim0 < m):
        wrap_dim(dim0, n)
    if not (-m <= dim1 < m):
        wrap_dim(dim1, n)
    if dim0 < 0:
        dim0 += m
    if dim1 < 0:
        dim1 += m
    base = self._base
    if dim0 == dim1:
        return _keep_bits(self, _make(self._storage, size, self._stride, self._offset, self.dtype, self._device,
                                      self._vc, self if base is None else base))
    sz, st = list(size), list(self._stride)
    sz[dim0], sz[dim1] = sz[dim1], sz[dim0]
    st[dim0], st[dim1] = st[dim1], st[dim0]
    return _keep_bits(self, _make(self._storage, tuple(sz), tuple(st), self._offset, self.dtype, self._device, self._vc,
                 self if base is None else base))


@swapaxes.impl("CompositeImplicitAutograd")
def swapaxes_kernel(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose.op(self, axis0, axis1)


@swapdims.impl("CompositeImplicitAutograd")
def swapdims_kernel(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose.op(self, dim0, dim1)


@t.impl("CompositeExplicitAutograd")
def t_kernel(self: Tensor) -> Tensor:
    n = len(self._size)
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return transpose_kernel(self, 0, 0 if n < 2 else 1)


@permute.impl("CompositeExplicitAutograd")
def permute_kernel(self: Tensor, dims: Sequence[int]) -> Tensor:
    n = len(self._size)
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    wrapped = [wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    size, stride = self._size, self._stride
    return _view(self, tuple(size[d] for d in wrapped), tuple(stride[d] for d in wrapped), self._offset)


def _movedim(self: Tensor, src: Sequence[int], dst: Sequence[int]) -> Tensor:
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({_fmt(src)} dims) should contain the same "
            f"number of dims as destination ({_fmt(dst)} dims)")
    n = len(self._size)
    nsrc = [wrap_dim(d, n) for d in src]
    ndst = [wrap_dim(d, n) for d in dst]
    if len(set(nsrc)) != len(nsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_fmt(src)})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_fmt(dst)})")
    if n == 0:
        return alias.op(self)
    order = [-1] * n
    for s, d in zip(nsrc, ndst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in set(nsrc))
    order = [o if o >= 0 else next(rest) for o in order]
    return permute.op(self, order)


@movedim_intlist.impl("CompositeImplicitAutograd")
def movedim_intlist_kernel(self: Tensor, source: Sequence[int], destination: Sequence[int]) -> Tensor:
    return _movedim(self, source, destination)


@movedim_int.impl("CompositeImplicitAutograd")
def movedim_int_kernel(self: Tensor, source: int, destination: int) -> Tensor:
    return _movedim(self, (source,), (destination,))


@moveaxis_intlist.impl("CompositeImplicitAutograd")
def moveaxis_intlist_kernel(self: Tensor, source: Sequence[int], destination: Sequence[int]) -> Tensor:
    return movedim_intlist.op(self, source, destination)


@moveaxis_int.impl("CompositeImplicitAutograd")
def moveaxis_int_kernel(self: Tensor, source: int, destination: int) -> Tensor:
    return movedim_int.op(self, source, destination)


# ---- expand ----------------------------------------------------------------------------------------
expand = declare("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", variants="method")
expand_as = declare("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", variants="method")
broadcast_to = declare("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)", variants="function, method")


def infer_expand_geometry(tensor_sizes: tuple, tensor_strides: tuple, sizes: Sequence[int]) -> tuple[tuple, tuple]:
    """at::inferExpandGeometry: broadcast dims get stride 0; -1 keeps a dim's size."""
    ndim = len(sizes)
    tensor_dim = len(tensor_sizes)
    if tensor_dim == 0:
        return tuple(sizes), (0,) * ndim
    out_size = [0] * ndim
    out_stride = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tensor_dim - ndim + i
        size = tensor_sizes[dim] if dim >= 0 else 1
        stride = tensor_strides[dim] if dim >= 0 else out_size[i + 1] * out_stride[i + 1] if i + 1 < ndim else 1
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size ({size}) at "
                    f"non-singleton dimension {i}.  Target sizes: {_fmt(sizes)}.  Tensor sizes: {_fmt(tensor_sizes)}")
            size = target
            stride = 0
        out_size[i] = size
        out_stride[i] = stride
    return tuple(out_size), tuple(out_stride)


@expand.impl("CompositeExplicitAutograd")
def expand_kernel(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    if len(size) < len(self._size):
        raise RuntimeError(
            f"expand({legacy_type_name(self)}{{{_fmt(self._size)}}}, size={_fmt(size)}): the number of sizes provided "
            f"({len(size)}) must be greater or equal to the number of dimensions in the tensor ({len(self._size)})")
    shape, stride = infer_expand_geometry(self._size, self._stride, size)
    for s in shape:
        if s < 0:  # a negative size that survived (-2 on a size-1 dim, -1 on a 0-dim tensor)
            raise RuntimeError("numel: integer multiplication overflow")
    return _view(self, shape, stride, self._offset)


@expand_as.impl("CompositeImplicitAutograd")
def expand_as_kernel(self: Tensor, other: Tensor) -> Tensor:
    return expand.op(self, other._size)


@broadcast_to.impl("CompositeImplicitAutograd")
def broadcast_to_kernel(self: Tensor, size: Sequence[int]) -> Tensor:
    return expand.op(self, size)


# ---- squeeze / unsqueeze / flatten / unflatten ------------------------------------------------------
squeeze = declare("squeeze(Tensor(a) self) -> Tensor(a)", variants="function, method")
squeeze_dim = declare("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", variants="function, method")
squeeze_dims = declare("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", variants="function, method")
unsqueeze = declare("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", variants="function, method")
flatten = declare("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
                  variants="function, method")
unflatten = declare("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", variants="function, method")


def _squeeze_mask(self: Tensor, mask: Sequence[bool]) -> Tensor:
    size, stride = self._size, self._stride
    keep = [i for i in range(len(size)) if not (mask[i] and size[i] == 1)]
    return _view(self, tuple(size[i] for i in keep), tuple(stride[i] for i in keep), self._offset)


@squeeze.impl("CompositeExplicitAutograd")
def squeeze_kernel(self: Tensor) -> Tensor:
    return _squeeze_mask(self, [True] * len(self._size))


@squeeze_dim.impl("CompositeExplicitAutograd")
def squeeze_dim_kernel(self: Tensor, dim: int) -> Tensor:
    n = len(self._size)
    d = wrap_dim(dim, n)
    mask = [False] * n
    if n:
        mask[d] = True
    return _squeeze_mask(self, mask)


@squeeze_dims.impl("CompositeExplicitAutograd")
def squeeze_dims_kernel(self: Tensor, dim: Sequence[int]) -> Tensor:
    n = len(self._size)
    mask = [False] * max(n, 1)
    for x in dim:  # dim_list_to_bitset
        d = wrap_dim(x, n)
        if mask[d]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        mask[d] = True
    return _squeeze_mask(self, mask[:n])


@unsqueeze.impl("CompositeExplicitAutograd")
def unsqueeze_kernel(self: Tensor, dim: int) -> Tensor:
    size, stride = self._size, self._stride
    n = len(size)
    d = wrap_dim(dim, n + 1)
    new_stride = 1 if d >= n else size[d] * stride[d]
    return _view(self, size[:d] + (1,) + size[d:], stride[:d] + (new_stride,) + stride[d:], self._offset)


@flatten.impl("CompositeImplicitAutograd")
def flatten_kernel(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = len(self._size)
    start = wrap_dim(start_dim, n)
    end = wrap_dim(end_dim, n)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if n == 0:
        return reshape.op(self, (1,))
    if start == end:
        return self  # as PyTorch: the very same tensor
    size = self._size
    shape = size[:start] + (_numel(size[start:end + 1]),) + size[end + 1:]
    return reshape.op(self, shape)


@unflatten.impl("CompositeImplicitAutograd")
def unflatten_kernel(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    n = len(self._size)
    d = wrap_dim(dim, n)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = resolve_inferred_dim(sizes, self._size[d] if n else 1)
    except RuntimeError as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(
                f"unflatten: Provided sizes {_fmt(sizes)} don't multiply up to the size of dim {d} "
                f"({self._size[d]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return view.op(self, self._size[:d] + inferred + self._size[d + 1:])


# ---- select / slice / narrow / unbind / split / chunk --------------------------------------------
select = declare("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", variants="function, method")
slice_op = declare(
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
    variants="")  # PyTorch binds no Python name for it: Python slicing reaches it through __getitem__
narrow = declare("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
                 variants="function, method")
narrow_tensor = declare("narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)",
                        variants="function, method")
unbind = declare("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", variants="function, method")
split = declare("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
                variants="function, method")
split_sizes = declare("split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
                      variants="function, method")
split_with_sizes = declare("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
                           variants="function, method")
chunk = declare("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", variants="function, method")


@select.impl("CompositeExplicitAutograd")
def select_kernel(self: Tensor, dim: int, index: int) -> Tensor:
    size = self._size
    n = len(size)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if dim < 0 or dim >= n:
        dim = wrap_dim(dim, n)
    s = size[dim]
    if index < -s or index >= s:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_fmt(size)} at dimension {dim}")
    if index < 0:
        index += s
    stride = self._stride
    base = self._base
    return _keep_bits(self, _make(self._storage, size[:dim] + size[dim + 1:], stride[:dim] + stride[dim + 1:],
                 self._offset + index * stride[dim], self.dtype, self._device, self._vc,
                 self if base is None else base))


@slice_op.impl("CompositeExplicitAutograd")
def slice_kernel(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                 step: int = 1) -> Tensor:
    size = self._size
    n = len(size)
    if n == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if dim < 0 or dim >= n:
        dim = wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    length = size[dim]
    if start is None or start == _INT64_MAX:
        start = 0
    elif start < 0:
        start = max(start + length, 0)
    elif start > length:
        start = length
    if end is None:
        end = length
    elif end < 0:
        end += length
    if end < start:
        end = start
    elif end > length:
        end = length
    stride = self._stride
    st = stride[dim]
    base = self._base
    return _keep_bits(self, _make(self._storage, size[:dim] + ((end - start + step - 1) // step,) + size[dim + 1:],
                 stride[:dim] + (st * step,) + stride[dim + 1:], self._offset + start * st,
                 self.dtype, self._device, self._vc, self if base is None else base))


def _narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    if not self._size:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    cur = self._size[wrap_dim(dim, len(self._size))]
    if not (-cur <= start <= cur):
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but got {start})")
    if start < 0:
        start += cur
    if start > cur - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    return slice_op.op(self, dim, start, start + length, 1)


@narrow.impl("CompositeImplicitAutograd")
def narrow_kernel(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _narrow(self, dim, start, length)


@narrow_tensor.impl("CompositeImplicitAutograd")
def narrow_tensor_kernel(self: Tensor, dim: int, start: Tensor, length: int) -> Tensor:
    if start.dim() != 0 or start.dtype.is_floating_point or start.dtype.is_complex or start.dtype is _dt.bool:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return _narrow(self, dim, int(start.item()), length)


@unbind.impl("CompositeExplicitAutograd")
def unbind_kernel(self: Tensor, dim: int = 0) -> tuple:
    d = wrap_dim(dim, len(self._size), wrap_scalar=False)
    return tuple(select_kernel(self, d, i) for i in range(self._size[d]))


def _split_checks(self: Tensor, dim: int) -> int:
    if not self._size:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return wrap_dim(dim, len(self._size))


@split.impl("CompositeExplicitAutograd")
def split_kernel(self: Tensor, split_size: int, dim: int = 0) -> tuple:
    d = _split_checks(self, dim)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    dim_size = self._size[d]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}")
    num = max((dim_size + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * num - dim_size)
    return tuple(slice_kernel(self, d, i * split_size, i * split_size + (split_size if i < num - 1 else last), 1)
                 for i in range(num))


@split_with_sizes.impl("CompositeExplicitAutograd")
def split_with_sizes_kernel(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    d = _split_checks(self, dim)
    dim_size = self._size[d]
    out = []
    start = 0
    for length in split_sizes:
        if length < 0:
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={_fmt(split_sizes)}")
        out.append(slice_kernel(self, d, start, start + length, 1))
        start += length
    if start != dim_size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size at dimension "
            f"{d}), but got split_sizes={_fmt(split_sizes)}")
    return tuple(out)


@split_sizes.impl("CompositeImplicitAutograd")
def split_sizes_kernel(self: Tensor, split_size: Sequence[int], dim: int = 0) -> tuple:
    return split_with_sizes.op(self, split_size, dim)


@chunk.impl("CompositeImplicitAutograd")
def chunk_kernel(self: Tensor, chunks: int, dim: int = 0) -> tuple:
    if not self._size:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._size[wrap_dim(dim, len(self._size))]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        # split() would lose the number of (empty) chunks
        return split_with_sizes.op(self, [0] * chunks, dim)
    return split.op(self, split_size, dim)


# ---- diagonal / alias ----------------------------------------------------------------------------
diagonal = declare("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
                   variants="function, method")
alias = declare("alias(Tensor(a) self) -> Tensor(a)", variants="")  # torch binds no Python name


@diagonal.impl("CompositeExplicitAutograd")
def diagonal_kernel(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    n = len(self._size)
    d1 = wrap_dim(dim1, n)
    d2 = wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size, stride = self._size, self._stride
    if offset >= 0:
        diag = max(min(size[d1], size[d2] - offset), 0)
    else:
        diag = max(min(size[d1] + offset, size[d2]), 0)
    storage_offset = self._offset
    if diag:
        storage_offset += offset * stride[d2] if offset >= 0 else -offset * stride[d1]
    keep = [i for i in range(n) if i != d1 and i != d2]
    return _view(self, tuple(size[i] for i in keep) + (diag,),
                 tuple(stride[i] for i in keep) + (stride[d1] + stride[d2],), storage_offset)


@alias.impl("CompositeExplicitAutograd")
def alias_kernel(self: Tensor) -> Tensor:
    return _view(self, self._size, self._stride, self._offset)


# ---- the Python-level views torch defines on Tensor (properties and iteration) -------------------------
def _T(self: Tensor) -> Tensor:
    """All dimensions reversed (torch deprecates it for ndim other than 2, but allows it)."""
    return permute.op(self, tuple(range(self.dim() - 1, -1, -1)))


def _mT(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return transpose.op(self, -2, -1)


def _H(self: Tensor) -> Tensor:
    ndim = self.dim()
    if ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                      stacklevel=user_stacklevel())
        return by_name["conj"].op(self)
    if ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if ndim > 2 else ""))
    return _adjoint(self, "mH")


def _mH(self: Tensor) -> Tensor:
    return _adjoint(self, "mH")


def _adjoint(self: Tensor, name: str) -> Tensor:
    """The conjugate transpose of the last two dimensions (torch's _adjoint; a transpose for real dtypes)."""
    if self.dim() < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    t = transpose.op(self, -2, -1)
    return by_name["conj"].op(t) if self.is_complex() else t


@declare("adjoint(Tensor(a) self) -> Tensor(a)", variants="function, method").impl("CompositeImplicitAutograd")
def adjoint_kernel(self: Tensor) -> Tensor:
    return _adjoint(self, "adjoint()")


def _iter(self: Tensor) -> Iterator[Tensor]:
    if not self._size:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind.op(self, 0))


Tensor.T, Tensor.mT, Tensor.H, Tensor.mH = (  # type: ignore[method-assign,assignment,misc]  # in the .pyi
    property(_T), property(_mT), property(_H), property(_mH))  # type: ignore[assignment]  # as above
Tensor.__iter__ = _iter  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
