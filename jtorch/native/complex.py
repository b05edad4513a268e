"""Complex numbers: conj, conj_physical, real / imag, view_as_real / view_as_complex, complex, polar,
and torch's conjugate / negative bit queries.

`view_as_real` is the basis of the views: a complex tensor's storage seen as its real dtype, with a
last dimension of 2 (real, imaginary); `real` and `imag` select from it, so `x.real.zero_()` and
`x.imag += 1` change `x`, as in torch.

conj: `x.conj()` of a complex tensor is a lazy view that sets the conjugate bit, and `_neg_view` one that
sets the negative bit (math_bits.py holds the fallback that makes every operator honour them);
`resolve_conj` / `resolve_neg` materialise, `conj_physical` always computes. For real dtypes conj
returns the tensor itself, as in torch.
"""
from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..kernels import scalar_binary as sb
from ..kernels import scalar_unary as su
from ..scalar import SCALAR_TYPE_NAME
from ..structured.tensor_iterator import OUT, UNARY_OP, TensorIteratorConfig
from ..tensor import Tensor
from .elementwise import elementwise
from .math_bits import CONJ_BIT, NEG_BIT, register
from .registry import by_name, composite_explicit_autograd, composite_implicit_autograd, declare

_make = Tensor._make


# ---- conj_physical, conj ----------------------------------------------------------------------------
# `_conj_physical` is the functional form (torch binds it too); conj_physical returns a real tensor itself
conj_physical_family = elementwise("conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                                   functional="_conj_physical(Tensor self) -> Tensor",
                                   inplace="conj_physical_(Tensor(a!) self) -> Tensor(a!)",
                                   config=UNARY_OP, scalar=su.conj_physical, inplace_variants="function, method")


@composite_implicit_autograd("conj_physical(Tensor self) -> Tensor", variants="function, method")
def conj_physical(self: Tensor) -> Tensor:
    return conj_physical_family.functional.op(self) if self.dtype.is_complex else self


def _bit_view(self: Tensor, bit: int) -> Tensor:
    """alias() with `bit` flipped (ATen's _conj and _neg_view: self.alias() then _set_conj / _set_neg)."""
    from .views import _view

    register()
    out = _view(self, self._size, self._stride, self._offset)
    out._key_set ^= bit
    return out


@composite_explicit_autograd("_conj(Tensor(a) self) -> Tensor(a)", variants="function, method")
def _conj(self: Tensor) -> Tensor:
    return _bit_view(self, CONJ_BIT)


@composite_explicit_autograd("_neg_view(Tensor(a) self) -> Tensor(a)", variants="function, method")
def _neg_view(self: Tensor) -> Tensor:
    return _bit_view(self, NEG_BIT)


@composite_implicit_autograd("conj(Tensor(a) self) -> Tensor(a)", variants="function, method")
def conj(self: Tensor) -> Tensor:
    return by_name["_conj"].op(self) if self.dtype.is_complex else self


@composite_implicit_autograd("resolve_conj(Tensor(a) self) -> Tensor(a)", variants="function, method")
def resolve_conj(self: Tensor) -> Tensor:
    return by_name["clone"].op(self) if self._key_set & CONJ_BIT else self


@composite_implicit_autograd("resolve_neg(Tensor(a) self) -> Tensor(a)", variants="function, method")
def resolve_neg(self: Tensor) -> Tensor:
    return by_name["clone"].op(self) if self._key_set & NEG_BIT else self


@composite_implicit_autograd("is_conj(Tensor self) -> bool", variants="function, method")
def is_conj(self: Tensor) -> bool:
    return bool(self._key_set & CONJ_BIT)


@composite_implicit_autograd("is_neg(Tensor self) -> bool", variants="function, method")
def is_neg(self: Tensor) -> bool:
    return bool(self._key_set & NEG_BIT)


# ---- view_as_real, view_as_complex: the same storage seen in the other dtype ---------------------------
view_as_real_nf = declare("view_as_real(Tensor(a) self) -> Tensor(a)")
view_as_complex_nf = declare("view_as_complex(Tensor(a) self) -> Tensor(a)")


def _reinterpret(self: Tensor, dtype: _dt.dtype) -> Any:
    try:
        return self._storage.reinterpret(dtype)
    except NotImplementedError:
        raise NotImplementedError(f"view_as_real is not supported for {self._device.type} storage") from None


@view_as_real_nf.impl("CompositeExplicitAutograd")
def view_as_real(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self._key_set & CONJ_BIT:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can "
            "view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
            "the original.")
    real = self.dtype.to_real()
    size = self._size + (2,)
    stride = tuple(s * 2 for s in self._stride) + (1,)
    base = self._base
    out = _make(_reinterpret(self, real), size, stride, self._offset * 2, real, self._device, self._vc,
                self if base is None else base)
    out._key_set |= self._key_set & NEG_BIT  # a negative view stays one
    return out


_TO_COMPLEX = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}


@view_as_complex_nf.impl("CompositeExplicitAutograd")
def view_as_complex(self: Tensor) -> Tensor:
    if self.dtype not in _TO_COMPLEX:
        # torch also takes half (as ComplexHalf), a dtype jtorch does not have
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {SCALAR_TYPE_NAME[self.dtype]}")
    size, stride = self._size, self._stride
    if not size:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    cplx = _TO_COMPLEX[self.dtype]
    base = self._base
    out = _make(_reinterpret(self, cplx), size[:-1], tuple(s // 2 for s in stride[:-1]), self._offset // 2, cplx,
                self._device, self._vc, self if base is None else base)
    out._key_set |= self._key_set & NEG_BIT
    return out


# ---- real, imag (views through view_as_real; CompositeImplicitAutograd as in torch: SelectBackward0) -----
@composite_implicit_autograd("real(Tensor(a) self) -> Tensor(a)")
def real(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        return self
    if self._key_set & CONJ_BIT:  # the real part of conj(z) is z's
        self = by_name["_conj"].op(self)
    return by_name["select.int"].op(view_as_real_nf.op(self), -1, 0)


@composite_implicit_autograd("imag(Tensor(a) self) -> Tensor(a)")
def imag(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self._key_set & CONJ_BIT:  # the imaginary part of conj(z) is -imag(z): a negative view
        return by_name["select.int"].op(by_name["_neg_view"].op(view_as_real_nf.op(by_name["_conj"].op(self))), -1, 1)
    return by_name["select.int"].op(view_as_real_nf.op(self), -1, 1)


def _set_part(part: Any) -> Any:
    """Tensor.real / .imag's setter (THPVariable_set_real): copy the value into the view."""
    def setter(self: Tensor, value: Any) -> None:
        view = part(self)
        if isinstance(value, Tensor):
            by_name["copy_"].op(view, value)
        else:
            by_name["fill_.Scalar"].op(view, value)

    return setter


def _get_real(self: Tensor) -> Tensor:
    return by_name["real"].op(self)


def _get_imag(self: Tensor) -> Tensor:
    return by_name["imag"].op(self)


Tensor.real = property(_get_real, _set_part(_get_real))  # type: ignore[assignment,method-assign]  # in the .pyi
Tensor.imag = property(_get_imag, _set_part(_get_imag))  # type: ignore[assignment,method-assign]  # as above


# ---- complex(real, imag), polar(abs, angle) -------------------------------------------------------------
_PARTS_TO_COMPLEX = {d: TensorIteratorConfig(check_all_same_dtype=False, static_dtype=c)
                     for d, c in _TO_COMPLEX.items()}


def _parts_prepare(tensors: list, extras: dict, mode: int, provided: Tensor | None) -> list:
    """complex_check_floating / complex_check_dtype."""
    a, b = tensors
    floating = (_dt.float16, _dt.float32, _dt.float64)
    if a.dtype not in floating or b.dtype not in floating:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{SCALAR_TYPE_NAME[a.dtype]} and {SCALAR_TYPE_NAME[b.dtype]}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {SCALAR_TYPE_NAME[a.dtype]} but got scalar type "
                           f"{SCALAR_TYPE_NAME[b.dtype]} for second argument")
    if a.dtype not in _TO_COMPLEX:
        raise RuntimeError("complex: jtorch has no ComplexHalf dtype for Half parts")
    want = _TO_COMPLEX[a.dtype]
    if mode == OUT and provided.dtype is not want:  # type: ignore[union-attr]  # OUT mode: provided
        raise RuntimeError(f"Expected object of scalar type {SCALAR_TYPE_NAME[want]} but got scalar type "
                           f"{SCALAR_TYPE_NAME[provided.dtype]} for argument 'out'")  # type: ignore[union-attr]
    extras["config"] = _PARTS_TO_COMPLEX[a.dtype]
    return tensors


complex_family = elementwise("complex.out(Tensor real, Tensor imag, *, Tensor(a!) out) -> Tensor(a!)",
                             functional="complex(Tensor real, Tensor imag) -> Tensor",
                             config=lambda extras: extras["config"], scalar=sb.complex_from_parts,
                             prepare=_parts_prepare, numbers_as_tensors=False, variants="function")
polar_family = elementwise("polar.out(Tensor abs, Tensor angle, *, Tensor(a!) out) -> Tensor(a!)",
                           functional="polar(Tensor abs, Tensor angle) -> Tensor",
                           config=lambda extras: extras["config"], scalar=sb.polar,
                           prepare=_parts_prepare, numbers_as_tensors=False, variants="function")
