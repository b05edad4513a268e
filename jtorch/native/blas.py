"""Matrix products on the structured core (ATen's LinearAlgebra.cpp and Blas.cpp): mm, bmm, addmm,
baddbmm and addmv are structured (one meta + one impl give the functional, in-place and out=
kernels on every backend), mv is their composite, dot and vdot are plain kernels.

The metas make PyTorch's checks and decide each output's shape and dtype. The impls hand the
arithmetic to the backend's `mm`, `bmm`, `mv`, `dot` methods and never touch a buffer. The checks PyTorch makes
inside its CPU kernels (the dtype dispatch '"addmm_impl_cpu_" not implemented for 'Bool'', the
"expected m1 and m2 to have the same dtype" of addmm_impl_cpu_) run on backends with data only,
not on meta tensors, as in PyTorch; so do the empty-contraction (K = 0) paths, which PyTorch
writes with zero_ / mul_ and so does this file.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from ..backends import backend as _backend
from ..geometry import wrap_dim
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, checked_scalar
from ..scalar import not_implemented as _not_implemented
from ..structured.fast_path import FAST_PATHS
from ..structured.meta import allocate, check_same_device, resize_output
from ..tensor import Tensor
from .binary import mul
from .copy import copy_, zero_
from .factories import scalar_tensor, wrapped_scalar_tensor
from .registry import declare
from .structured import structured
from .views import expand_kernel

_BLAS_GEMM_DTYPES = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})


# ---- helpers -----------------------------------------------------------------------------------------
def _size(t: Tensor, dim: int) -> int:
    """C++ Tensor::size(dim): a 0-dim tensor has no dim 0 ("Dimension specified as 0 but tensor has
    no dimensions"), unlike Python's t.size(0)."""
    return t._size[wrap_dim(dim, len(t._size), wrap_scalar=False)]


def _opmath(dtype: _dt.dtype) -> _dt.dtype:
    """at::opmath_type: float16 computes in float32."""
    return _dt.float32 if dtype is _dt.float16 else dtype


def _expand_size(self: Tensor, size: tuple) -> Tensor:
    """at::expand_size: self broadcast to `size` (itself when it has that size already). A view the
    kernel reads and drops: made by expand's kernel itself, not through the dispatcher."""
    return self if self._size == size else expand_kernel(self, size)


def _scale_self(result: Tensor, self_: Tensor, beta: Any) -> None:
    """An empty contraction: result = beta * self (zeros when beta == 0: NaN in self ignored), as
    PyTorch writes it with zero_ / copy_ + mul_ (so an integral result with a float beta gets
    mul_'s "result type Float can't be cast" error)."""
    if beta == 0:
        zero_.op(result)
        return
    if self_ is not result:
        copy_.op(result, self_)
    mul.inplace.op(result, wrapped_scalar_tensor(beta))


def _check_mm_shapes(m1: Tensor, m2: Tensor) -> None:
    if m1._size[1] != m2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1._size[0]}x{m1._size[1]} and "
                           f"{m2._size[0]}x{m2._size[1]})")


def _check_m1_m2_dtype(m1: Tensor, m2: Tensor) -> None:
    """addmm_impl_cpu_'s check: the CPU kernel's, so meta tensors skip it as in PyTorch."""
    if m1.dtype is not m2.dtype and m1._device.type != "meta":
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {TYPE_META_NAME[m1.dtype]} != "
                           f"{TYPE_META_NAME[m2.dtype]}")


def _gemm(backend: Any, kind: str, result: Tensor, a: Tensor, b: Tensor, self_: Tensor | None, beta: Any,
          alpha: Any, scalar_dtype: _dt.dtype) -> None:
    """The stub call with beta and alpha converted as Scalar::to<T>() converts them."""
    a_, b_ = checked_scalar(scalar_dtype, alpha), checked_scalar(scalar_dtype, beta)
    getattr(backend, kind)(result, a, b, self_ if beta != 0 else None, b_, a_)


# ---- mm, addmm -------------------------------------------------------------------------------------------
def _mm_meta(ctx: Any, tensors: list, extras: dict) -> None:
    self, mat2 = tensors
    check_same_device([ctx.maybe_get_output(0), *tensors])  # the dispatcher's check: out= first
    if len(self._size) != 2:
        raise RuntimeError("self must be a matrix")
    if len(mat2._size) != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm_shapes(self, mat2)
    ctx.set_output_raw_strided(0, (self._size[0], mat2._size[1]), None, self.dtype, self._device)
    _check_m1_m2_dtype(self, mat2)


def _mm_impl(ctx: Any, tensors: list, extras: dict, backend: Any) -> None:
    self, mat2 = tensors
    result = ctx.output(0)
    if self._size[1] == 0:
        zero_.op(result)
        return
    if result.dtype is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", _dt.bool)
    backend.mm(result, self, mat2)


def _mm_fast_path(kind: str, bind: Any, generic: Any, backend: Any) -> Any:
    """mm(a, b) of two matrices of one floating dtype on this backend's device, none of M, N, K
    zero: what meta and impl would do, without the meta context (a backward's small products
    are mostly this per-call work). Everything else takes the generic kernel and its errors."""
    if not FAST_PATHS:
        return None
    if kind != "functional" or not backend.implements("mm"):  # none: the generic kernel's error
        return None
    mm, device_type = backend.mm, backend.device_type

    def mm_functional(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == 2:
            a, b = args
            try:
                sa, sb, dt, dev = a._size, b._size, a.dtype, a._device
            except AttributeError:
                return generic(*args, **kwargs)
            if (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and sa[0] and sa[1] and sb[1] and b.dtype is dt
                    and dt.is_floating_point and b._device is dev and dev.type == device_type):
                out = allocate((sa[0], sb[1]), None, dt, dev)
                mm(out, a, b)
                return out
        return generic(*args, **kwargs)

    return mm_functional


mm = structured("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
                functional="mm(Tensor self, Tensor mat2) -> Tensor", meta=_mm_meta, impl=_mm_impl,
                fast_path=_mm_fast_path)


def _addmm_meta(ctx: Any, tensors: list, extras: dict) -> None:
    self, mat1, mat2 = tensors
    check_same_device([ctx.maybe_get_output(0), *tensors])  # the dispatcher's check: out= first
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {SCALAR_TYPE_NAME[self.dtype]} and "
                           f"{SCALAR_TYPE_NAME[mat2.dtype]}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {SCALAR_TYPE_NAME[mat1.dtype]} and "
                           f"{SCALAR_TYPE_NAME[mat2.dtype]}")
    if len(mat1._size) != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {len(mat1._size)}-D tensor")
    if len(mat2._size) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(mat2._size)}-D tensor")
    _check_mm_shapes(mat1, mat2)
    size = (mat1._size[0], mat2._size[1])
    ctx.set_output_raw_strided(0, size, None, mat1.dtype, mat1._device)
    extras["self_"] = _expand_size(self, size)  # PyTorch's impl broadcasts self; the error is the same


def _add_product_impl(kind: str, check: Callable[[Tensor, Tensor, Tensor], None]) -> Callable:
    """addmm's and baddbmm's impl: result = beta * self + alpha * (m1 @ m2) by the `kind` gemm, after
    `check(result, m1, m2)`; an empty inner dimension leaves beta * self, unchecked (as PyTorch)."""
    def impl(ctx: Any, tensors: list, extras: dict, backend: Any) -> None:
        _, m1, m2 = tensors
        result = ctx.output(0)
        self_, beta = extras["self_"], extras["beta"]
        if m1._size[-1] == 0:
            _scale_self(result, self_, beta)
            return
        check(result, m1, m2)
        _gemm(backend, kind, result, m1, m2, self_, beta, extras["alpha"], _opmath(result.dtype))

    return impl


def _addmm_checks(result: Tensor, mat1: Tensor, mat2: Tensor) -> None:
    if result.dtype is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", _dt.bool)


_addmm_impl = _add_product_impl("mm", _addmm_checks)


_ADDMM_ARGS = "Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1"
addmm = structured(f"addmm.out(Tensor self, {_ADDMM_ARGS}, Tensor(a!) out) -> Tensor(a!)",
                   functional=f"addmm(Tensor self, {_ADDMM_ARGS}) -> Tensor",
                   inplace=f"addmm_(Tensor(a!) self, {_ADDMM_ARGS}) -> Tensor(a!)",
                   meta=_addmm_meta, impl=_addmm_impl)


# ---- bmm, baddbmm ----------------------------------------------------------------------------------------
def _bmm_common_meta(ctx: Any, batch1: Tensor, batch2: Tensor) -> None:
    """common_checks_baddbmm_bmm."""
    if len(batch1._size) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._size) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    bs, rows, k = batch1._size
    if batch2._size[0] != bs or batch2._size[1] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but got: "
                           f"[{batch2._size[0]}, {batch2._size[1]}].")
    ctx.set_output_raw_strided(0, (bs, rows, batch2._size[2]), None, batch2.dtype, batch2._device)


def _contiguous_or_transposed(t: Tensor) -> bool:
    (_, s1, s2), (_, st1, st2) = t._size, t._stride
    return (st2 == 1 and (s1 == 1 or st1 >= s2)) or (st1 == 1 and (s2 == 1 or st2 >= s1))


def _bmm_dispatch_checks(result: Tensor, batch1: Tensor, batch2: Tensor, kernel: str) -> None:
    """bmm_out_or_baddbmm_'s CPU paths decide the error a bool or mixed-dtype call gets: the small
    kernel (K*M*N < 400) dispatches on batch1's dtype, the batched BLAS path on the result's, and
    the per-batch addmm_impl_cpu_ path checks m1 against m2."""
    _, m, k = batch1._size
    n = batch2._size[2]
    d1, dr = batch1.dtype, result.dtype
    if k * m * n < 400:
        if d1 is _dt.bool:
            raise _not_implemented(kernel, d1)
        if dr is not d1 or batch2.dtype is not d1:
            other = dr if dr is not d1 else batch2.dtype
            raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAME[d1]} but found {SCALAR_TYPE_NAME[other]}")
    elif (dr in _BLAS_GEMM_DTYPES and _contiguous_or_transposed(batch1) and _contiguous_or_transposed(batch2)
          and result.is_contiguous()):
        if d1 is not dr:
            raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAME[dr]} but found {SCALAR_TYPE_NAME[d1]}")
    else:
        _check_m1_m2_dtype(batch1, batch2)
        if dr is _dt.bool:
            raise _not_implemented("addmm_impl_cpu_", dr)


def _bmm_meta(ctx: Any, tensors: list, extras: dict) -> None:
    check_same_device([ctx.maybe_get_output(0), *tensors])  # the dispatcher's check: out= first
    _bmm_common_meta(ctx, tensors[0], tensors[1])


def _bmm_impl(ctx: Any, tensors: list, extras: dict, backend: Any) -> None:
    batch1, batch2 = tensors
    result = ctx.output(0)
    if batch1._size[2] == 0:
        zero_.op(result)
        return
    _bmm_dispatch_checks(result, batch1, batch2, "bmm")
    backend.bmm(result, batch1, batch2)


bmm = structured("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
                 functional="bmm(Tensor self, Tensor mat2) -> Tensor", meta=_bmm_meta, impl=_bmm_impl)


def _baddbmm_meta(ctx: Any, tensors: list, extras: dict) -> None:
    self, batch1, batch2 = tensors
    check_same_device([ctx.maybe_get_output(0), *tensors])  # the dispatcher's check: out= first
    self_ = _expand_size(self, (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2)))
    if self.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {TYPE_META_NAME[self.dtype]}, batch1: "
                           f"{TYPE_META_NAME[batch1.dtype]}, batch2: {TYPE_META_NAME[batch2.dtype]}")
    _bmm_common_meta(ctx, batch1, batch2)
    extras["self_"] = self_


_baddbmm_impl = _add_product_impl("bmm", lambda result, b1, b2: _bmm_dispatch_checks(result, b1, b2, "baddbmm"))


_BADDBMM_ARGS = "Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1"
baddbmm = structured(f"baddbmm.out(Tensor self, {_BADDBMM_ARGS}, Tensor(a!) out) -> Tensor(a!)",
                     functional=f"baddbmm(Tensor self, {_BADDBMM_ARGS}) -> Tensor",
                     inplace=f"baddbmm_(Tensor(a!) self, {_BADDBMM_ARGS}) -> Tensor(a!)",
                     meta=_baddbmm_meta, impl=_baddbmm_impl)


# ---- addmv, mv -------------------------------------------------------------------------------------------
def _addmv_meta(ctx: Any, tensors: list, extras: dict) -> None:
    self, mat, vec = tensors
    check_same_device([ctx.maybe_get_output(0), *tensors])  # the dispatcher's check: out= first
    if not (len(mat._size) == 2 and len(vec._size) == 1 and len(self._size) <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {len(self._size)}, {len(mat._size)}, "
                           f"{len(vec._size)}")
    n = self.numel()
    if not (mat._size[1] == vec._size[0] and (mat._size[0] == n or n == 1)):
        raise RuntimeError(f"size mismatch, got input ({_size(self, 0)}), mat ({mat._size[0]}x{mat._size[1]}), "
                           f"vec ({vec._size[0]})")
    if not (self.dtype is mat.dtype and mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {SCALAR_TYPE_NAME[self.dtype]}, "
                           f"{SCALAR_TYPE_NAME[mat.dtype]}, and {SCALAR_TYPE_NAME[vec.dtype]}")
    result = ctx.set_output_raw_strided(0, (mat._size[0],), None, vec.dtype, vec._device)
    extras["self_"] = _expand_size(self, (mat._size[0],))
    if mat._size[0] == 0 and extras["beta"] != 0 and result._device.type != "meta":
        # PyTorch's impl runs for an empty result too (the structured wrapper here skips it), and
        # its mul_out(result, self, beta) resizes the result to self's shape
        _addmv_empty(result, self, extras["beta"])
        extras["done"] = True


def _addmv_empty(result: Tensor, self: Tensor, beta: Any) -> None:
    """addmv of an empty matrix: at::cpu::mul_out(result, self, scalar_tensor(beta, self.dtype))."""
    if beta == 0:
        zero_.op(result)
    else:
        mul.out.op(self, scalar_tensor.op(beta, dtype=self.dtype, device=self._device), out=result)


def _addmv_impl(ctx: Any, tensors: list, extras: dict, backend: Any) -> None:
    self, mat, vec = tensors
    result = ctx.output(0)
    self_, beta = extras["self_"], extras["beta"]
    if mat.numel() == 0:
        if not extras.get("done"):
            _addmv_empty(result, self, beta)
        return
    if result.dtype is _dt.bool:
        raise _not_implemented("addmv_impl_cpu", _dt.bool)
    _gemm(backend, "mv", result, mat, vec, self_, beta, extras["alpha"], mat.dtype)  # Scalar::to<scalar_t>


_ADDMV_ARGS = "Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1"
addmv = structured(f"addmv.out(Tensor self, {_ADDMV_ARGS}, Tensor(a!) out) -> Tensor(a!)",
                   functional=f"addmv(Tensor self, {_ADDMV_ARGS}) -> Tensor",
                   inplace=f"addmv_(Tensor(a!) self, {_ADDMV_ARGS}) -> Tensor(a!)",
                   meta=_addmv_meta, impl=_addmv_impl, inplace_variants="function, method")

mv = declare("mv(Tensor self, Tensor vec) -> Tensor", variants="function, method")
mv_out = declare("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)")


@mv.impl("CompositeExplicitAutograd")
def mv_kernel(self: Tensor, vec: Tensor) -> Tensor:
    # no check of its own: the result goes on vec's device, and addmv_'s wrapper compares them
    result = allocate((_size(self, 0),), None, vec.dtype, vec._device)
    return addmv.inplace.op(result, self, vec, beta=0, alpha=1)


@mv_out.impl("CompositeExplicitAutograd")
def mv_out_kernel(self: Tensor, vec: Tensor, *, out: Tensor) -> Tensor:
    # addmv checks its `self` before resizing out, so out serves as self only when it fits
    n = _size(self, 0)
    if len(out._size) > 1 or (out.numel() != n and out.numel() != 1):
        self_addmv = allocate((n,), None, vec.dtype, vec._device)
        return addmv.out.op(self_addmv, self, vec, beta=0, alpha=1, out=out)
    return addmv.out.op(out, self, vec, beta=0, alpha=1, out=out)


# ---- dot, vdot -------------------------------------------------------------------------------------------
dot = declare("dot(Tensor self, Tensor tensor) -> Tensor", variants="function, method")
dot_out = declare("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)")
vdot = declare("vdot(Tensor self, Tensor other) -> Tensor", variants="function, method")
vdot_out = declare("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


def _dot_check(self: Tensor, other: Tensor) -> None:
    check_same_device((self, other))
    if len(self._size) != 1 or len(other._size) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(self._size)}D and {len(other._size)}D tensors")
    if self.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{SCALAR_TYPE_NAME[self.dtype]} and {SCALAR_TYPE_NAME[other.dtype]}")
    n1, n2 = self._size[0], other._size[0]
    if n1 != n2:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n1}] and src [{n2}] to have the same number "
                           f"of elements, but got {n1} and {n2} elements respectively")


def _dot(kind: str, self: Tensor, other: Tensor) -> Tensor:
    _dot_check(self, other)
    result = allocate((), None, self.dtype, self._device)
    if self._device.type != "meta":
        if self.dtype is _dt.bool:
            raise _not_implemented("dot", _dt.bool)
        getattr(_backend(self._device.type), kind)(result, self, other)
    return result


@dot.impl_backends
def dot_kernel(self: Tensor, tensor: Tensor) -> Tensor:
    return _dot("dot", self, tensor)


@vdot.impl_backends
def vdot_kernel(self: Tensor, other: Tensor) -> Tensor:
    if not self.dtype.is_complex:  # real vdot is dot (and its errors say so)
        return dot.op(self, other)
    return _dot("vdot", self, other)


def _dot_out(result: Tensor, value: Any, self: Tensor) -> Tensor:
    """dot_out / vdot_out: resize, check the dtype, then compute and copy (fill_ in PyTorch)."""
    resize_output(result, ())
    if result.dtype is not self.dtype:
        raise RuntimeError(f"result dtype {SCALAR_TYPE_NAME[result.dtype]} does not match input dtype "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")
    return copy_.op(result, value())


@dot_out.impl("CompositeExplicitAutograd")
def dot_out_kernel(self: Tensor, tensor: Tensor, *, out: Tensor) -> Tensor:
    return _dot_out(out, lambda: dot.op(self, tensor), self)


@vdot_out.impl("CompositeExplicitAutograd")
def vdot_out_kernel(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    return _dot_out(out, lambda: vdot.op(self, other), self)
