"""TensorIterator: PyTorch's TensorIteratorBase::build for elementwise operators.

build(): populate operands -> mark outputs -> memory-overlap checks -> compute_shape (broadcast)
-> mark_resize_outputs -> compute_types (common dtype, casts, device and output checks) ->
fast_set_up, or compute_strides -> reorder_dimensions -> allocate_or_resize_outputs ->
coalesce_dimensions. The result is what a kernel needs: a shape with dim 0 fastest, and for each
operand either (buffer, offset, strides) or, for Python scalars and CPU 0-dim tensors, a value.

Outputs are handed to `set_output_raw_strided`, which the structured-kernel wrapper (functional,
in-place or out=) decides how to honour: allocate, check, or resize. Reductions reuse the
shape/stride machinery (jtorch.geometry): a config with `is_reduction` (REDUCE_OP) builds PyTorch's
reduce_op (jtorch/structured/reduce.py: make_reduction), whose outputs are the results viewed with
stride 0 on the reduced dims; reorder_dimensions then puts the reduced dims first (innermost).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..device import device
from ..geometry import (
    coalesce_dimensions,
    contiguous_strides,
    infer_size,
    is_contiguous,
    reorder_dimensions,
    shape_str,
    storage_extent,
)
from ..memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from ..promotion import can_cast, result_type_many
from ..scalar import SCALAR_TYPE_NAME as SCALAR_TYPE_NAME  # re-exported for the operator families
from ..scalar import as_scalar, bfloat16_round, not_implemented
from ..tensor import Tensor, new_storage

# the wrapper modes, re-exported for the operator families that build iterators
from .meta import FUNCTIONAL as FUNCTIONAL
from .meta import INPLACE as INPLACE
from .meta import OUT as OUT
from .meta import MetaBase, allocate, copy_into, resize_output


class TensorIteratorConfig:
    """The flags of TensorIteratorConfig; one instance per operator family, built once."""

    __slots__ = ("check_all_same_dtype", "promote_inputs_to_common_dtype", "promote_integer_inputs_to_float",
                 "cast_common_dtype_to_outputs", "enforce_safe_casting_to_output", "static_dtype",
                 "check_mem_overlap", "resize_outputs", "allow_cpu_scalars", "is_reduction",
                 "exact_cpu_scalars")

    def __init__(self, *, check_all_same_dtype: bool = True, promote_inputs_to_common_dtype: bool = False,
                 promote_integer_inputs_to_float: bool = False, cast_common_dtype_to_outputs: bool = False,
                 enforce_safe_casting_to_output: bool = False, static_dtype: _dt.dtype | None = None,
                 check_mem_overlap: bool = True, resize_outputs: bool = True, allow_cpu_scalars: bool = True,
                 is_reduction: bool = False, exact_cpu_scalars: bool = False) -> None:
        self.check_all_same_dtype = check_all_same_dtype
        self.promote_inputs_to_common_dtype = promote_inputs_to_common_dtype
        self.promote_integer_inputs_to_float = promote_integer_inputs_to_float
        self.cast_common_dtype_to_outputs = cast_common_dtype_to_outputs
        self.enforce_safe_casting_to_output = enforce_safe_casting_to_output
        self.static_dtype = static_dtype
        self.check_mem_overlap = check_mem_overlap
        self.resize_outputs = resize_outputs
        self.allow_cpu_scalars = allow_cpu_scalars
        self.is_reduction = is_reduction
        # A CPU scalar of a float16/bfloat16 computation is read in float32 as given (mul, div read
        # iter.original_scalar_value<opmath_t>), not first rounded to the common dtype as other
        # kernels read it (TensorIterator converted it to the common dtype).
        self.exact_cpu_scalars = exact_cpu_scalars


# The configurations of PyTorch's build_*_op helpers.
BINARY_OP = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                 cast_common_dtype_to_outputs=True, enforce_safe_casting_to_output=True)
BINARY_FLOAT_OP = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                       promote_integer_inputs_to_float=True, cast_common_dtype_to_outputs=True,
                                       enforce_safe_casting_to_output=True)
COMPARISON_OP = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                     static_dtype=_dt.bool)
# mul and div: their CPU kernels read a float16/bfloat16 computation's scalar operand unrounded
BINARY_OP_EXACT_SCALARS = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                               cast_common_dtype_to_outputs=True, enforce_safe_casting_to_output=True,
                                               exact_cpu_scalars=True)
BINARY_FLOAT_OP_EXACT_SCALARS = TensorIteratorConfig(
    check_all_same_dtype=False, promote_inputs_to_common_dtype=True, promote_integer_inputs_to_float=True,
    cast_common_dtype_to_outputs=True, enforce_safe_casting_to_output=True, exact_cpu_scalars=True)
UNARY_OP = TensorIteratorConfig(check_all_same_dtype=True)
UNARY_FLOAT_OP = BINARY_FLOAT_OP
UNARY_FORCE_BOOL_OP = TensorIteratorConfig(check_all_same_dtype=False, static_dtype=_dt.bool)
# TensorIterator::reduce_op: outputs already viewed by review_reduce_result (stride 0 on reduced dims);
# no resizing, no overlap check; outputs keep their own dtypes (values and int64 indices).
REDUCE_OP = TensorIteratorConfig(check_all_same_dtype=False, promote_inputs_to_common_dtype=True,
                                 check_mem_overlap=False, resize_outputs=False, allow_cpu_scalars=False,
                                 is_reduction=True)

_contiguous = contiguous_strides


# ---- compute_types' decisions, shared with the fast set-up (jtorch/structured/fast_path.py) ----------
def is_cpu_scalar(config: TensorIteratorConfig, t: Tensor) -> bool:
    """An input that kernels get as a value, not an array, and that takes no part in choosing the
    device: a 0-dim CPU tensor, where the config allows CPU scalars."""
    return config.allow_cpu_scalars and not t._size and t._device.type == "cpu"


def compute_common_dtype(config: TensorIteratorConfig, inputs: Sequence[Tensor]) -> _dt.dtype:
    """compute_common_dtype: the inputs' result type where the config promotes them to a common
    dtype, else the first input's dtype."""
    if config.promote_inputs_to_common_dtype:
        return result_type_many(*inputs) if len(inputs) != 1 else inputs[0].dtype
    return inputs[0].dtype


def promote_integer_to_float(config: TensorIteratorConfig, common: _dt.dtype) -> _dt.dtype:
    """promote_integer_inputs_to_float: an integral or bool common dtype becomes the default dtype (c10's
    isIntegralType: the bits type stays, for its kernel to refuse)."""
    if config.promote_integer_inputs_to_float and not (common.is_floating_point or common.is_complex
                                                       or common in _dt.bits_dtypes):
        return _dt.get_default_dtype()
    return common


def _refuse_bits_casts(inputs: list[Any], common: _dt.dtype) -> None:
    """An operand cast to or from the bits type goes through the copy kernel, which has no bits case."""
    bits = _dt.bits_dtypes
    for t in inputs:
        if t is not None and t.dtype is not common and (t.dtype in bits or common in bits):
            raise not_implemented("copy_", _dt.uint1)


def compute_dtype(common: _dt.dtype, device_type: str) -> _dt.dtype:
    """The dtype kernels compute in: float16 and bfloat16 are storage types (Numba has no float16
    math on the CPU, nor bfloat16 anywhere, and CUDA computes half in float32 as PyTorch's opmath does)."""
    return _dt.float32 if common in _dt.reduced_floats and device_type in ("cpu", "cuda") else common


def storage_only(d: _dt.dtype, device_type: str) -> bool:
    """A dtype kernels on this device cannot write: float16 on the CPU, bfloat16 on the CPU and on
    CUDA; results are computed into float32 temporaries and rounded into it by a copy."""
    return (d is _dt.bfloat16 and device_type in ("cpu", "cuda")) or (d is _dt.float16 and device_type == "cpu")


def _is_contiguous(t: Tensor) -> bool:
    return t._stride == contiguous_strides(t._size) or is_contiguous(t._size, t._stride)


_shape_str = shape_str


class Operand:
    __slots__ = ("tensor", "original", "is_output", "is_read_write", "will_resize", "scalar", "strides")

    def __init__(self, tensor: Tensor | None, is_output: bool) -> None:
        # An output not given is None until set_output allocates it, which build() does before any read
        # that does not test for None first: typed as the Tensor it is from then on.
        self.tensor: Tensor = tensor  # type: ignore[assignment]  # None only until allocated, see above
        self.original: Tensor = tensor  # type: ignore[assignment]  # the user's tensor when `tensor` is a temporary
        self.is_output = is_output
        self.is_read_write = False
        self.will_resize = False
        self.scalar: Any = None       # the value, for inputs passed to kernels as scalars
        self.strides: list[int] | None = None


class TensorIterator(MetaBase):
    """One elementwise computation being set up (and, for structured kernels, its outputs)."""

    out_dtype: _dt.dtype  # the outputs' dtype, decided by build() (compute_types)
    reduced_numel: int  # a reduction's: the elements reduced into each output (set by make_reduction)

    def __init__(self, mode: int = FUNCTIONAL, provided: tuple[Tensor, ...] | Tensor | None = ()) -> None:
        if not isinstance(provided, tuple):
            provided = () if provided is None else (provided,)
        super().__init__(mode, provided)
        self.operands: list[Operand] = []
        self.num_outputs = 0
        self.shape: tuple[int, ...] = ()
        self.common_dtype: _dt.dtype = None  # type: ignore[assignment]  # decided by build() (compute_types)
        self.compute_dtype: _dt.dtype = None  # type: ignore[assignment]  # decided by build() (compute_types)
        self.device: device = None  # type: ignore[assignment]  # set by build() (compute_types) before any read
        self.perm: list[int] = []

    # ---- configuration ----
    def build_op(self, config: TensorIteratorConfig, out: Tensor | None, *inputs: Tensor) -> TensorIterator:
        self.operands = [Operand(out, True)] + [Operand(t, False) for t in inputs]
        self.num_outputs = 1
        self.build(config)
        return self

    def build_reduce_op(self, outs: tuple[Tensor, ...], input: Tensor) -> TensorIterator:
        """TensorIterator::reduce_op(out[, out2], a): the outputs are the viewed results."""
        self.operands = [Operand(t, True) for t in outs] + [Operand(input, False)]
        self.num_outputs = len(outs)
        self.build(REDUCE_OP)
        return self

    def num_reduce_dims(self) -> int:
        """Dims the first output does not move along (after reorder and coalesce they come first)."""
        st = self.operands[0].strides
        assert st is not None  # computed by build()
        return sum(1 for d, s in enumerate(self.shape) if st[d] == 0 and s != 1)

    def output(self, i: int = 0) -> Tensor:
        return self.operands[i].original

    def outputs(self) -> list[Tensor]:
        return [o.original for o in self.operands[: self.num_outputs]]

    def input(self, i: int = 0) -> Tensor:
        return self.operands[self.num_outputs + i].original

    # ---- build ----
    def build(self, config: TensorIteratorConfig) -> None:
        ops = self.operands
        nout = self.num_outputs
        # mark_outputs: an output that is also an input is read-write
        for o in ops[:nout]:
            if o.tensor is not None:
                for i in ops[nout:]:
                    if i.tensor is o.tensor:
                        o.is_read_write = True
        if config.check_mem_overlap:
            self._check_mem_overlaps(ops, nout)
        self._compute_shape(config, ops, nout)
        self._compute_types(config, ops, nout)
        if config.is_reduction:  # never the fast set-up: outputs and input differ in shape
            self._compute_strides(ops)
            self._reorder_dimensions(ops, nout)
            self._coalesce_dimensions(ops)
            self._reduction_temporaries(ops, nout)
            return
        if not self._fast_set_up(ops, nout):
            self._compute_strides(ops)
            self._reorder_dimensions(ops)
            self._allocate_or_resize_outputs(ops, nout)
            self._coalesce_dimensions(ops)
        self._temporaries_for_defined_outputs(ops, nout)

    def _check_mem_overlaps(self, ops: list[Operand], nout: int) -> None:
        for o in ops[:nout]:
            t = o.tensor
            if t is None:
                continue
            assert_no_internal_overlap(t)
            for i in ops[nout:]:
                if i.tensor is not None and i.tensor is not t:
                    assert_no_partial_overlap(t, i.tensor)

    def _compute_shape(self, config: TensorIteratorConfig, ops: list[Operand], nout: int) -> None:
        shape = None
        for o in ops:
            t = o.tensor
            if t is None or (o.is_output and config.resize_outputs and not o.is_read_write):
                continue
            shape = t._size if shape is None else infer_size(shape, t._size)
        if shape is None:  # only outputs: take theirs
            shape = next((o.tensor._size for o in ops if o.tensor is not None), ())
        self.shape = shape
        for o in ops[:nout]:
            t = o.tensor
            if t is not None and t._size != shape:
                if config.resize_outputs and not o.is_read_write:
                    o.will_resize = True
                elif not config.is_reduction:  # a reduction's output is smaller than the input
                    raise RuntimeError(
                        f"output with shape {_shape_str(t._size)} doesn't match the broadcast shape {_shape_str(shape)}"
                    )

    def _compute_types(self, config: TensorIteratorConfig, ops: list[Operand], nout: int) -> None:
        inputs = [o.tensor for o in ops[nout:]]
        # device: the first operand off the CPU (torch's compute_types), else the CPU; CPU scalars
        # take no part
        checked = [o.tensor for o in ops
                   if o.tensor is not None and (o.is_output or not is_cpu_scalar(config, o.tensor))]
        device = next((t._device for t in checked if t._device.type != "cpu"), checked[0]._device if checked else None)
        for t in checked:
            if t._device != device:
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two devices, "
                    f"{device} and {t._device}!"
                )
        if device is None:
            device = next((t._device for t in inputs if t is not None), None) or (ops[0].tensor._device)
        self.device = device
        # common dtype
        promote = config.promote_inputs_to_common_dtype
        common = compute_common_dtype(config, inputs) if inputs or promote else ops[0].tensor.dtype
        if config.check_all_same_dtype and not promote:
            for o in ops:
                t = o.tensor
                if t is not None and t.dtype is not common:
                    raise RuntimeError(
                        f"Found dtype {SCALAR_TYPE_NAME[t.dtype]} but expected {SCALAR_TYPE_NAME[common]}"
                    )
        common = promote_integer_to_float(config, common)
        self.common_dtype = common
        if device.type == "meta":
            if not config.is_reduction and any(t is not None and t.dtype in _dt.bits_dtypes for t in inputs):
                raise ValueError("Invalid dtype!")  # the meta kernels' dtype table has no bits type
        elif promote:  # the inputs TensorIterator casts to the common dtype
            _refuse_bits_casts(inputs, common)
        out_dtype = config.static_dtype or common
        for o in ops[:nout]:
            t = o.tensor
            if t is None:
                continue
            if config.enforce_safe_casting_to_output and not can_cast(common, t.dtype):
                raise RuntimeError(
                    f"result type {SCALAR_TYPE_NAME[common]} can't be cast to the desired output type "
                    f"{SCALAR_TYPE_NAME[t.dtype]}"
                )
        self.out_dtype = out_dtype
        compute = compute_dtype(common, device.type)
        self.compute_dtype = compute
        np_type = compute.numpy.type
        for o in ops[nout:]:
            t = o.tensor
            if is_cpu_scalar(config, t) and (len(ops) - nout > 1 or t._size == self.shape):
                v = _read_scalar(t)
                if common is not compute and common in _dt.reduced_floats and not config.exact_cpu_scalars:
                    v = _round_to_reduced(v, common)
                o.scalar = _as_scalar(np_type, v)
            elif t.dtype is not compute and (config.promote_inputs_to_common_dtype or common is not compute):
                o.tensor = _cast(t, compute)

    def _fast_set_up(self, ops: list[Operand], nout: int) -> bool:
        """All array operands contiguous with the iteration shape: iterate them as one flat dimension."""
        shape = self.shape
        for o in ops:
            t = o.tensor
            if o.scalar is not None or (o.is_output and (t is None or o.will_resize)):
                continue
            if t._size != shape or not _is_contiguous(t):
                return False
        for i, o in enumerate(ops[:nout]):
            if o.tensor is None or o.will_resize:
                self._set_output(i, shape, None)
        n = 1
        for s in shape:
            n *= s
        self.shape = (n,) if shape else ()
        st = [1] if shape else []
        for o in ops:
            if o.scalar is None:
                o.strides = st
        self.perm = list(range(len(shape) - 1, -1, -1))
        return True

    def _compute_strides(self, ops: list[Operand]) -> None:
        shape = self.shape
        nd = len(shape)
        for o in ops:
            t = o.tensor
            if o.scalar is not None or t is None or o.will_resize:
                continue
            off = nd - len(t._size)
            st = [0] * nd
            for d, (s, stride) in enumerate(zip(t._size, t._stride)):
                st[off + d] = stride if s != 1 else 0
            o.strides = st

    def _reorder_dimensions(self, ops: list[Operand], nout: int = 0) -> None:
        perm = reorder_dimensions(self.shape, [o.strides for o in ops if o.strides is not None],
                                  reduction=nout > 0, nout=nout)
        self.perm = perm
        self.shape = tuple(self.shape[p] for p in perm)
        for o in ops:
            if o.strides is not None:
                o.strides = [o.strides[p] for p in perm]

    def _allocate_or_resize_outputs(self, ops: list[Operand], nout: int) -> None:
        perm, shape = self.perm, self.shape
        nd = len(shape)
        sizes = [0] * nd
        for j, p in enumerate(perm):
            sizes[p] = shape[j]
        tensor_shape = tuple(sizes)
        inverted = all(perm[j] == nd - j - 1 for j in range(nd))
        for i, o in enumerate(ops[:nout]):
            if o.tensor is None or o.will_resize:
                if inverted:
                    self._set_output(i, tensor_shape, None)
                else:
                    st = [0] * nd
                    acc = 1
                    for j in range(nd):
                        st[perm[j]] = acc
                        acc *= shape[j]
                    self._set_output(i, tensor_shape, tuple(st))
                t = o.tensor
                o.strides = [t._stride[p] for p in perm] if nd else []

    def _coalesce_dimensions(self, ops: list[Operand]) -> None:
        self.shape = coalesce_dimensions(self.shape, [o.strides for o in ops if o.strides is not None])

    # ---- outputs ----
    def _set_output(self, i: int, size: tuple[int, ...], stride: tuple[int, ...] | None) -> None:
        """set_output_raw_strided: the structured wrapper's policy for output i."""
        o = self.operands[i]
        dtype = self.out_dtype
        if self.mode == FUNCTIONAL or o.tensor is None:
            o.tensor = o.original = allocate(size, stride, dtype, self.device)
        elif self.mode == OUT:
            resize_output(o.tensor, size, stride)
        # in-place outputs never get here: their shape must already match
        # (TensorIterator checks dtypes itself: casting outputs are allowed, unlike resize_out)

    def _kernel_out_dtype(self) -> _dt.dtype:
        d = self.out_dtype
        return _dt.float32 if storage_only(d, self.device.type) else (
            self.compute_dtype if d is self.common_dtype else d)

    def _temporaries_for_defined_outputs(self, ops: list[Operand], nout: int) -> None:
        """A caller's output of another dtype than the kernel writes gets a temporary with its strides
        (cast_common_dtype_to_outputs); finish() copies it back."""
        want = self._kernel_out_dtype()
        d = self.out_dtype
        half = d if d in _dt.reduced_floats else None
        for o in ops[:nout]:
            t = o.tensor
            if t is o.original and (t.dtype is not want or (half is not None and t.dtype is not half)):
                o.tensor = _empty_like_strided(o.original, want)

    def _reduction_temporaries(self, ops: list[Operand], nout: int) -> None:
        """A float16 output of a CPU reduction is computed into a float32 temporary (Numba has no
        float16 arithmetic); finish() rounds it into the caller's tensor."""
        dev = self.device.type
        for o in ops[:nout]:
            t = o.tensor
            if storage_only(t.dtype, dev):
                o.tensor = _empty_like_strided(t, _dt.float32)

    def finish(self) -> None:
        """Copy temporaries back into the user's outputs (cast_common_dtype_to_outputs)."""
        for o in self.operands[: self.num_outputs]:
            if o.tensor is not o.original:
                t = o.tensor
                half = self.out_dtype
                if half in _dt.reduced_floats and t.dtype is not half and o.original.dtype is not half:
                    t = _cast(t, half)  # a float16 result, computed in float32, is rounded before the cast
                _copy_into(o.original, t)

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


# ---- helpers ----------------------------------------------------------------------------------------
def _empty_like_strided(t: Tensor, dtype: _dt.dtype) -> Tensor:
    """A tensor of another dtype whose elements sit at the same strides as t's."""
    n = storage_extent(t._size, t._stride)
    return Tensor._make(new_storage(n, dtype, t._device), t._size, t._stride, 0, dtype, t._device)


_as_scalar = as_scalar


def _round_to_reduced(v: Any, d: _dt.dtype) -> Any:
    """A CPU scalar converted to float16/bfloat16 (through float, as c10's conversions), as a float32."""
    if isinstance(v, (complex, np.complexfloating)):
        return v
    f = np.float32(v)
    return np.float32(np.float16(f)) if d is _dt.float16 else bfloat16_round(f)


def _read_scalar(t: Tensor) -> Any:
    """The value of a 0-dim tensor, read through its storage (a CPU scalar, usually)."""
    return t._storage.read(t._offset)


def _cast(t: Tensor, dtype: _dt.dtype) -> Tensor:
    """t converted to dtype, keeping its layout (a temporary input of the common dtype)."""
    if any(st == 0 and s > 1 for s, st in zip(t._size, t._stride)):
        # an expanded input: convert its distinct elements only, and expand the result the same way
        distinct = tuple(1 if st == 0 and s > 1 else s for s, st in zip(t._size, t._stride))  # empty stays empty
        small = _cast(Tensor._make(t._storage, distinct, t._stride, t._offset, t.dtype, t._device), dtype)
        stride = tuple(0 if st == 0 else ost for st, ost in zip(t._stride, small._stride))
        return Tensor._make(small._storage, t._size, stride, small._offset, dtype, small._device)
    out = _empty_like_strided(t, dtype)
    _copy_into(out, t)
    return out


_copy_into = copy_into
