"""Joining and splitting (ATen's TensorShape.cpp): cat (structured: one meta through the meta
base, one impl that copies each input into its slice of the output with the backend's copy
stub), its aliases concat / concatenate, stack, hstack, vstack, dstack, column_stack, and the
splits that return views: tensor_split, hsplit, vsplit, dsplit.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from .._enums import channels_last
from ..geometry import channels_last_strides, shape_str, wrap_dim
from ..memory_overlap import _FULL, _PARTIAL, assert_no_internal_overlap, get_overlap_status
from ..promotion import can_cast, promote_types
from ..scalar import SCALAR_TYPE_NAME
from ..structured.fast_path import FAST_PATHS
from ..structured.meta import MetaBase, check_same_device
from ..structured.structured import functional_kernel, make_binder, out_kernel
from ..tensor import Tensor
from .conversion import suggest_memory_format
from .factories import aten
from .registry import composite_explicit_autograd, composite_implicit_autograd
from .structured import structured


# ---- cat ------------------------------------------------------------------------------------------
def _skipped(t: Tensor) -> bool:
    """cat_should_skip_tensor: legacy empty tensors of shape (0,) take no part in the shape."""
    return t._size == (0,)


def _legacy_cat_wrap_dim(dim: int, tensors: Sequence[Tensor]) -> int:
    for t in tensors:
        if not _skipped(t):
            return wrap_dim(dim, len(t._size))
    return dim


def assert_no_overlap(a: Tensor, b: Tensor) -> None:
    """at::assert_no_overlap: the written-to tensor shares no element with an input."""
    if get_overlap_status(a, b) in (_PARTIAL, _FULL):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def _output_memory_format(tensors: Sequence[Tensor]) -> Any:
    """cat_compute_output_memory_format: the inputs' common suggested format, else contiguous."""
    fmt = None
    for t in tensors:
        f = suggest_memory_format(t)
        if f is not channels_last:
            return None
        if fmt is not None and fmt is not f:
            return None
        fmt = f
    return fmt


def _cat_meta(ctx: MetaBase, tensors: list, extras: dict) -> None:
    """TORCH_PRECOMPUTE_META_FUNC(cat), its checks in its order."""
    ts = extras["tensors"]
    check_same_device([ctx.maybe_get_output(0), *ts])  # the dispatcher's check: out= first
    valid = -1  # the first tensor that is not skipped
    for i, t in enumerate(ts):
        s = t._size
        if not s:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if valid < 0 and s != (0,):
            valid = i
    dim = extras["dim"]
    if valid >= 0:  # legacy_cat_wrap_dim
        dim = wrap_dim(dim, len(ts[valid]._size))
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    first = ts[0]
    dev, out_dtype = first._device, first.dtype
    if dev.type == "meta" and any(t.dtype in _dt.bits_dtypes for t in ts):
        raise ValueError("Invalid dtype!")  # torch's meta cat promotes in Python, which has no bits type
    for t in ts:
        if t._device is not dev and t._device != dev:
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device {dev}!")
        if t.dtype is not out_dtype:
            out_dtype = promote_types(out_dtype, t.dtype)
    result = ctx.maybe_get_output(0)
    if result is not None:
        if not can_cast(out_dtype, result.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{SCALAR_TYPE_NAME[result.dtype]}")
        out_dtype = result.dtype
    sizes: tuple = (0,)
    if valid >= 0:
        ref = ts[valid]._size
        n = len(ref)
        at_dim = 0
        for i, t in enumerate(ts):
            s = t._size
            if s == (0,):
                continue
            if s != ref:
                if len(s) != n:
                    raise RuntimeError(f"Tensors must have same number of dimensions: got {n} and {len(s)}")
                for d in range(n):
                    if d != dim and s[d] != ref[d]:
                        raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                           f"{ref[d]} but got size {s[d]} for tensor number {i} in the list.")
            at_dim += s[dim]
        sizes = ref[:dim] + (at_dim,) + ref[dim + 1:]
    fmt = _output_memory_format(ts) if len(first._size) == 4 else None
    stride = channels_last_strides(sizes) if fmt is channels_last else None
    out = ctx.set_output_raw_strided(0, sizes, stride, out_dtype, dev)
    if result is not None and valid >= 0:
        assert_no_internal_overlap(out)
        for t in ts:
            assert_no_overlap(out, t)
    ctx.cat_dim = dim  # type: ignore[attr-defined]  # PyTorch's precomputed `dim`, on cat's context


def _cat_impl(ctx: MetaBase, tensors: list, extras: dict, backend: Any) -> None:
    out = ctx.output(0)
    dim = ctx.cat_dim  # type: ignore[attr-defined]  # set by the meta above
    # JTORCH_NO_FAST_PATHS: the copies below, one per input
    fast = backend.cat if FAST_PATHS else None
    ts = extras["tensors"]
    if fast is not None and fast(out, [t for t in ts if t._size != (0,)] if len(out._size) == 1 else ts, dim):
        return
    copy = backend.copy
    size, stride, offset = out._size, out._stride, out._offset
    for t in extras["tensors"]:
        if _skipped(t):
            continue
        n = t._size[dim]
        if n and t.numel():
            piece = Tensor._make(out._storage, size[:dim] + (n,) + size[dim + 1:], stride, offset, out.dtype,
                                 out._device)
            copy(piece, t)
        offset += n * stride[dim]


_CAT = "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)"
cat = structured(_CAT, functional="cat(Tensor[] tensors, int dim=0) -> Tensor", meta=_cat_meta, impl=_cat_impl,
                 variants="function")
# An empty list has no tensor to dispatch on (PyTorch's Undefined entry takes the structured
# kernel through CompositeExplicitAutogradNonFunctional): the meta's checks raise torch's error.
cat.functional.impl("CompositeExplicitAutograd")(
    functional_kernel(make_binder(cat.out.func), _cat_meta, None, MetaBase, None))
cat.out.impl("CompositeExplicitAutograd")(
    out_kernel(make_binder(cat.out.func), _cat_meta, None, MetaBase, None, ("out",)))


for _name in ("concat", "concatenate"):  # aliases of cat
    composite_implicit_autograd(f"{_name}(Tensor[] tensors, int dim=0) -> Tensor")(
        lambda tensors, dim=0: aten("cat")(tensors, dim))
    composite_implicit_autograd(f"{_name}.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")(
        lambda tensors, dim=0, *, out: aten("cat.out")(tensors, dim, out=out))


# ---- stack and friends -------------------------------------------------------------------------------
def _unsqueezed(t: Tensor, dim: int) -> Tensor:
    """t.unsqueeze(dim) as a view (metadata only; through the dispatcher when t has history to record)."""
    if t._requires_grad:
        return aten("unsqueeze")(t, dim)
    st = t._stride[dim] * t._size[dim] if dim < len(t._size) else 1
    return Tensor._make(t._storage, t._size[:dim] + (1,) + t._size[dim:], t._stride[:dim] + (st,) + t._stride[dim:],
                        t._offset, t.dtype, t._device, t._vc, t if t._base is None else t._base)


def _stack_inputs(tensors: Sequence[Tensor], dim: int, name: str = "stack") -> tuple[list[Tensor], int]:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    d = wrap_dim(dim, len(tensors[0]._size) + 1)
    first = tensors[0]._size
    for i, t in enumerate(tensors[1:], 1):
        if t._size != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {shape_str(first)} at entry 0 "
                               f"and {shape_str(t._size)} at entry {i}")
    return [_unsqueezed(t, d) for t in tensors], d


# CompositeExplicitAutograd, as torch's: one StackBackward0 node with an edge per input
@composite_explicit_autograd("stack(Tensor[] tensors, int dim=0) -> Tensor", "function")
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    ins, d = _stack_inputs(tensors, dim)
    return aten("cat")(ins, d)


@composite_implicit_autograd("stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")
def stack_out(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor) -> Tensor:
    ins, d = _stack_inputs(tensors, dim)
    return aten("cat.out")(ins, d, out=out)


def _reshaped(t: Tensor, size: tuple) -> Tensor:
    return aten("reshape")(t, size)


def atleast(t: Tensor, n: int) -> Tensor:
    """atleast_1d / _2d / _3d of one tensor (views)."""
    s = t._size
    if len(s) >= n:
        return t
    if n == 1:
        return _reshaped(t, (1,))
    # torch's atleast_2d/_3d: reshape a 0-dim tensor, unsqueeze the others (their autograd nodes)
    unsqueeze = aten("unsqueeze")
    if n == 2:
        return unsqueeze(t, 0) if s else _reshaped(t, (1, 1))
    if not s:
        return _reshaped(t, (1, 1, 1))
    return unsqueeze(unsqueeze(t, 0), -1) if len(s) == 1 else unsqueeze(t, -1)


def _hstack_inputs(tensors: Sequence[Tensor], name: str = "hstack") -> tuple[list, int]:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    rep = [atleast(t, 1) for t in tensors]
    return rep, 0 if len(rep[0]._size) == 1 else 1


def _vstack_inputs(tensors: Sequence[Tensor]) -> tuple[list, int]:
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return [atleast(t, 2) for t in tensors], 0


def _dstack_inputs(tensors: Sequence[Tensor]) -> tuple[list, int]:
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return [atleast(t, 3) for t in tensors], 2


def _column_stack_inputs(tensors: Sequence[Tensor]) -> tuple[list, int]:
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [_reshaped(t, (t.numel(), 1)) if len(t._size) <= 1 else t for t in tensors]
    return _hstack_inputs(cols)


def _declare_stack(name: str, inputs: Any) -> None:
    composite_implicit_autograd(f"{name}(Tensor[] tensors) -> Tensor")(lambda tensors: aten("cat")(*inputs(tensors)))
    composite_implicit_autograd(f"{name}.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")(
        lambda tensors, *, out: aten("cat.out")(*inputs(tensors), out=out))


_declare_stack("hstack", _hstack_inputs)
_declare_stack("vstack", _vstack_inputs)
_declare_stack("row_stack", _vstack_inputs)  # alias of vstack (at::vstack: its texts)
_declare_stack("dstack", _dstack_inputs)
_declare_stack("column_stack", _column_stack_inputs)


# ---- tensor_split, hsplit, vsplit, dsplit (views) ----------------------------------------------------
def _slice(t: Tensor, dim: int, start: int, end: int) -> Tensor:
    return aten("slice.Tensor")(t, dim, start, end, 1)


def _split_dim(self: Tensor, dim: int) -> int:
    if not self._size:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{len(self._size)} dims")
    return wrap_dim(dim, len(self._size))


def _split_sections(self: Tensor, sections: int, dim: int) -> tuple:
    d = _split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self._size[d]
    split, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = split + (1 if i < extra else 0)
        out.append(_slice(self, d, start, start + n))
        start += n
    return tuple(out)


def _split_indices(self: Tensor, indices: Sequence[int], dim: int) -> tuple:
    d = _split_dim(self, dim)
    out, start = [], 0
    for i in indices:
        out.append(_slice(self, d, start, i))
        start = i
    out.append(_slice(self, d, start, self._size[d]))
    return tuple(out)


@composite_implicit_autograd("tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, "
                             "Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]", "function, method")
def _split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> tuple:
    t = tensor_indices_or_sections
    if not self._size:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{len(self._size)} dims")
    if t._device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t._device}")
    if t.dtype is not _dt.int64:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{SCALAR_TYPE_NAME[t.dtype]}")
    if len(t._size) > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {len(t._size)} dims")
    if not t._size:
        return _split_sections(self, int(t.item()), dim)
    return _split_indices(self, [int(v) for v in t.tolist()], dim)


# after the Tensor overload: torch's parser tries that one first (a 0-dim tensor is not an int)
composite_implicit_autograd("tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
                            "function, method")(_split_sections)
composite_implicit_autograd("tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
                            "function, method")(_split_indices)



def _directional(name: str, min_dims: int, dim_of: Any) -> None:
    def check(self: Tensor) -> int:
        n = len(self._size)
        if n < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {n} dimensions!")
        return dim_of(n)

    def by_sections(self: Tensor, sections: int) -> tuple:
        d = check(self)
        size = self._size[d]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
        return _split_sections(self, sections, d)

    def by_indices(self: Tensor, indices: Sequence[int]) -> tuple:
        return _split_indices(self, indices, check(self))

    composite_implicit_autograd(f"{name}.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
                                "function, method")(by_sections)
    composite_implicit_autograd(f"{name}.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
                                "function, method")(by_indices)


_directional("hsplit", 1, lambda n: 0 if n == 1 else 1)
_directional("vsplit", 2, lambda n: 0)
_directional("dsplit", 3, lambda n: 2)
