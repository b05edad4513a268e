"""Masks: masked_fill, masked_select, masked_scatter, nonzero (and as_tuple), argwhere and the
one-argument where (TensorAdvancedIndexing.cpp, Indexing.cpp).

masked_fill is elementwise over self and the mask (PyTorch's masked_fill_ TensorIterator, a scalar
function in jtorch/kernels/scalar_index.py). The others depend on how many elements the mask
selects: the backend's `nonzero` method gives the coordinates of the non-zero elements (a host array:
it decides a shape), and masked_select / masked_scatter compose from advanced indexing
(index.Tensor / index_put_), as PyTorch's reference implementations do.
"""
from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..backends import backend
from ..geometry import is_contiguous
from ..kernels import scalar_index as M
from ..memory_overlap import _YES, assert_no_internal_overlap, assert_no_partial_overlap, has_internal_overlap
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, as_scalar, checked_scalar
from ..structured.fast_path import FAST_PATHS
from ..structured.meta import allocate, check_same_device, copy_into, resize_output
from ..structured.tensor_iterator import TensorIterator, TensorIteratorConfig
from ..tensor import Tensor
from ..warn import user_stacklevel
from .copy import copy_from_host
from .registry import declare
from .registry import op as _op
from .scatter_gather import assert_no_overlap

masked_fill__Tensor = declare("masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
                              variants="method")
masked_fill__Scalar = declare("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
                              variants="method")
masked_fill_Tensor = declare("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
                             variants="function, method")
masked_fill_Scalar = declare("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
                             variants="function, method")
masked_select = declare("masked_select(Tensor self, Tensor mask) -> Tensor", variants="function, method")
masked_select_out = declare("masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> Tensor(a!)")
masked_scatter_ = declare("masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
                          variants="method")
masked_scatter = declare("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
                         variants="function, method")
nonzero_ = declare("nonzero(Tensor self) -> Tensor", variants="function, method")
nonzero_out = declare("nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
nonzero_numpy = declare("nonzero_numpy(Tensor self) -> Tensor[]", variants="function")
argwhere = declare("argwhere(Tensor self) -> Tensor", variants="function, method")
where_cond = declare("where(Tensor condition) -> Tensor[]", variants="function")

# masked_fill_'s iterator: self read and written, the mask broadcast to it, dtypes left alone
_MASKED_FILL = TensorIteratorConfig(check_all_same_dtype=False, check_mem_overlap=False, resize_outputs=False,
                                    allow_cpu_scalars=False)


# ---- masked_fill -----------------------------------------------------------------------------------
def _check_mask_device(self: Tensor, mask: Tensor) -> None:
    """masked_fill__cuda's first check (a CUDA self or mask dispatches there): no mask on another
    device, 0-dim or not."""
    devs = (self._device, mask._device)
    if devs[0] != devs[1] and any(d.type == "cuda" for d in devs) and all(d.type != "meta" for d in devs):
        raise RuntimeError(f"expected self and mask to be on the same device, but got mask on {mask._device} and "
                           f"self on {self._device}")


def _masked_fill_impl(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """masked_fill_impl_cpu."""
    _check_mask_device(self, mask)
    if mask.dtype is not _dt.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{TYPE_META_NAME[mask.dtype]}")
    if has_internal_overlap(self) == _YES:
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
                      UserWarning, stacklevel=user_stacklevel())
    assert_no_partial_overlap(self, mask)
    it = TensorIterator(1, (self,))  # INPLACE: the output must already have the broadcast shape
    it.build_op(_MASKED_FILL, self, self, mask)
    v = checked_scalar(self.dtype, value)
    if self._device.type != "meta" and it.numel():
        backend(self._device.type).elementwise(it, M.masked_fill, (as_scalar(it.compute_dtype.numpy.type, v),))
        it.finish()
    return self


@masked_fill__Scalar.impl_backends
def masked_fill__scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return _masked_fill_impl(self, mask, value)


def _value_item(value: Tensor, name: str) -> Any:
    if value._size:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                           f"{len(value._size)} dimension(s).")
    return None if value._device.type == "meta" else _op("item").__call__(value)


@masked_fill__Tensor.impl_backends
def masked_fill__tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    v = _value_item(value, "masked_fill_")
    if self._device.type == "cpu" and any(t._device.type == "cuda" for t in (mask, value)):
        raise RuntimeError("masked_fill_: Expected inputs to be on same device")  # masked_fill__cuda's
    return _masked_fill_impl(self, mask, 0 if v is None else v)


def _expand_outplace(a: Tensor, b: Tensor) -> tuple:
    from ..geometry import infer_size

    shape = infer_size(a._size, b._size)
    return _op("expand").__call__(a, shape), _op("expand").__call__(b, shape)


_MASKED_FILL_OUT = TensorIteratorConfig(check_all_same_dtype=False, allow_cpu_scalars=False)


@masked_fill_Scalar.impl_backends
def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """torch: expand, clone (contiguous), masked_fill_. A contiguous self is filled in one pass into a
    new contiguous tensor instead (the same values and layout, without reading the clone back)."""
    _check_mask_device(self, mask)
    m, s = _expand_outplace(mask, self)
    if not FAST_PATHS or mask.dtype is not _dt.bool or self._device.type == "meta" \
            or not is_contiguous(s._size, s._stride) or has_internal_overlap(s) == _YES:
        return masked_fill__Scalar.op(_op("clone").__call__(s, memory_format=contiguous_format), m, value)
    v = checked_scalar(self.dtype, value)
    it = TensorIterator(0, ())
    it.build_op(_MASKED_FILL_OUT, None, s, m)
    if it.numel():
        backend(self._device.type).elementwise(it, M.masked_fill, (as_scalar(it.compute_dtype.numpy.type, v),))
        it.finish()
    return it.output(0)


@masked_fill_Tensor.impl("CompositeImplicitAutograd")
def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    m, s = _expand_outplace(mask, self)
    return masked_fill__Tensor.op(_op("clone").__call__(s, memory_format=contiguous_format), m, value)


# ---- nonzero, argwhere, where(condition) -------------------------------------------------------------
def _coordinates(t: Tensor) -> Any:
    if t._device.type == "meta":
        raise NotImplementedError(
            "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
            "data-independent implementation does not exist. This implementation returns a fake value, assuming "
            "all elements of the tensor are non-zero. To enable this registration, please set "
            "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
    return backend(t._device.type).nonzero(t)


def _nonzero_into(self: Tensor, out: Tensor | None) -> Tensor:
    coords = _coordinates(self)
    shape = (coords.shape[0], len(self._size))
    # a new (or resized) result is Fortran-ordered, as PyTorch's (gh-46224): strides (1, N), so each
    # tensor of as_tuple=True (unbind(1)) is contiguous
    fortran = (1, shape[0])
    if out is None:
        out = allocate(shape, fortran, _dt.int64, self._device)
    else:
        if out.dtype is not _dt.int64:
            raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                               f"{SCALAR_TYPE_NAME[out.dtype]}")
        assert_no_internal_overlap(out)
        assert_no_overlap(out, self)
        resize_output(out, shape, fortran)
    if coords.size:
        if out._stride == fortran:  # write the (ndim, N) transpose, which is contiguous
            copy_from_host(Tensor._make(out._storage, shape[::-1], (shape[0], 1), out._offset, out.dtype,
                                        out._device), coords.T)
        else:
            copy_from_host(out, coords)
    return out


@nonzero_.impl_backends
def nonzero_kernel(self: Tensor) -> Tensor:
    return _nonzero_into(self, None)


@nonzero_out.impl_backends
def nonzero_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    return _nonzero_into(self, out)


@nonzero_numpy.impl("CompositeImplicitAutograd")
def nonzero_numpy_kernel(self: Tensor) -> list:
    if not self._size:
        self = _op("unsqueeze").__call__(self, 0)
    return list(_op("unbind.int").__call__(nonzero_.op(self), 1))


@argwhere.impl("CompositeImplicitAutograd")
def argwhere_kernel(self: Tensor) -> Tensor:
    return nonzero_.op(self)


@where_cond.impl("CompositeImplicitAutograd")
def where_cond_kernel(condition: Tensor) -> list:
    return nonzero_numpy.op(condition)


def nonzero(input: Tensor, *, out: Tensor | None = None, as_tuple: bool = False) -> Any:
    """torch.nonzero / Tensor.nonzero: as_tuple=True gives one 1-D tensor per dimension
    (python_torch_functions' nonzero, which calls nonzero_numpy)."""
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")  # torch's parser
        return tuple(nonzero_numpy.op(input))
    return nonzero_.op(input) if out is None else nonzero_out.op(input, out=out)


# ---- masked_select ---------------------------------------------------------------------------------
def _masked_select(self: Tensor, mask: Tensor, out: Tensor | None) -> Tensor:
    check_same_device((out, self, mask))  # the dispatcher's check, out= first
    if mask.dtype is not _dt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if out is not None:
        if out.dtype is not self.dtype:
            raise RuntimeError("masked_select(): self and result must have the same scalar type")
        assert_no_internal_overlap(out)
        assert_no_overlap(out, self)
        assert_no_overlap(out, mask)
    if self._device.type == "meta" or mask._device.type == "meta":
        raise NotImplementedError(
            "aten::masked_select: attempted to run this operator with Meta tensors, but there was no fake impl or "
            "Meta kernel registered. You may have run into this message while using an operator with PT2 "
            "compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs you'll "
            "need to add a fake impl. Please see the following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
    m, s = _expand_outplace(mask, self)
    if not s._size:  # 0-dim: index.Tensor takes no 0-dim mask
        m, s = _op("unsqueeze").__call__(m, 0), _op("unsqueeze").__call__(s, 0)
    result = _op("index.Tensor").__call__(s, [m])
    if out is None:
        return result
    resize_output(out, result._size)
    copy_into(out, result)
    return out


@masked_select.impl_backends
def masked_select_kernel(self: Tensor, mask: Tensor) -> Tensor:
    return _masked_select(self, mask, None)


@masked_select_out.impl_backends
def masked_select_out_kernel(self: Tensor, mask: Tensor, *, out: Tensor) -> Tensor:
    return _masked_select(self, mask, out)


# ---- masked_scatter ----------------------------------------------------------------------------------
@masked_scatter_.impl_backends
def masked_scatter__kernel(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    check_same_device((self, mask, source))  # the dispatcher's check
    assert_no_internal_overlap(self)
    if self.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{SCALAR_TYPE_NAME[self.dtype]} and {SCALAR_TYPE_NAME[source.dtype]}")
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{SCALAR_TYPE_NAME[mask.dtype]}")
    b_mask = _op("expand").__call__(mask, self._size)
    if b_mask.numel() == 0 or self._device.type == "meta":
        return self
    count = _coordinates(b_mask).shape[0]
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        values = _op("reshape").__call__(source, (-1,))
        values = _op("slice.Tensor").__call__(values, 0, 0, count) if values.numel() != count else values
        s, m = (self, b_mask) if self._size else (_op("unsqueeze").__call__(self, 0),
                                                  _op("unsqueeze").__call__(b_mask, 0))
        _op("index_put_").__call__(s, [m], values)
    return self


@masked_scatter.impl("CompositeExplicitAutograd")  # as torch's: one MaskedScatterBackward0 node
def masked_scatter_kernel(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m, s = _expand_outplace(mask, self)
    return masked_scatter_.op(_op("clone").__call__(s, memory_format=contiguous_format), m, source)


# the as_tuple keyword is the Python binding's (torch's is hand-written too)
Tensor.nonzero = nonzero  # type: ignore[method-assign,assignment]  # declared for the type checker in _tensor_python.pyi
