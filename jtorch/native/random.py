"""Random samplers (DistributionTemplates.h, Distributions.cpp): the in-place `uniform_`, `normal_`,
`random_`, `bernoulli_`, `exponential_`, the kernel of `randperm.generator_out`, and the composites
`bernoulli` and `normal` with tensor arguments. The factories that sample into a fresh or out=
tensor (`rand`, `randn`, `randint`, `randperm`, `*_like`, ...) are generated from a table in
random_factories.py and call these through the dispatcher, as ATen composes them, so one seed
gives the same numbers through `rand(n)` and `empty(n).uniform_()`.

Every sampler kernel is backend-neutral: it checks its arguments as ATen does, then the
backend's method of the same name (`uniform(t, generator, from_, to)`, ...) draws the numbers (for the CPU:
jtorch/kernels/cpu/random.py, from the Generator's own stream).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..backends import backend
from ..geometry import infer_size
from ..scalar import LIMITS, SCALAR_TYPE_NAME, TYPE_META_NAME, checked_scalar, not_implemented
from ..scalar import format_double as _g
from ..structured.meta import resize_output
from ..tensor import Tensor
from ..warn import user_stacklevel
from .copy import host_values, moved
from .factories import _empty, aten, empty_like, full, resize_, runs_below_inplace_or_view
from .registry import declare

bernoulli = declare("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", variants="function, method")
bernoulli_out = declare("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)")
bernoulli__tensor = declare("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)",
                            variants="method")
bernoulli__float = declare("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
                           variants="method")
bernoulli_p = declare("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
                      variants="function, method")
random__from = declare("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)",
                       variants="method")
random__to = declare("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
                     variants="method")
random_ = declare("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)", variants="method")
uniform_ = declare("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
                   variants="method")
exponential_ = declare("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)",
                       variants="method")
normal_ = declare("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
                  variants="method")
normal_tf_out = declare(
    "normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)")
normal_tf = declare("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor")
normal_ft_out = declare(
    "normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)")
normal_ft = declare("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor")
normal_tt_out = declare(
    "normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)")
normal_tt = declare("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor")

_DIGITS = {_dt.float16: 11, _dt.float32: 24, _dt.float64: 53}  # std::numeric_limits<T>::digits
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _sample(t: Tensor, kind: str, generator: Any, *params: Any) -> Tensor:
    """The backend's `kind` method (uniform, normal, ...) draws into t (checks done, t has elements and data)."""
    getattr(backend(t._device.type), kind)(t, generator, *params)
    return t


# ---- uniform_ ------------------------------------------------------------------------------------
def _check_uniform_bounds(d: _dt.dtype, from_: float, to: float) -> tuple[float, float]:
    if not d.is_floating_point:
        raise not_implemented("check_uniform_bounds", d)
    hi = LIMITS[d][1]
    lo = -hi
    name = TYPE_META_NAME[d]
    if not (lo <= from_ <= hi):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (lo <= to <= hi):
        raise RuntimeError(f"to is out of bounds for {name}")
    if not from_ <= to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not (to - from_) <= hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{SCALAR_TYPE_NAME[d]}>::max(), but "
                           f"found to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    return min(max(from_, lo), hi), max(min(to, hi), lo)


@uniform_.impl_backends
def uniform_kernel(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    if self.is_meta:  # uniform_'s meta kernel checks nothing
        return self
    d = self.dtype
    if d.is_complex:  # view_as_real: both parts uniform in [from, to)
        if self.numel() == 0:
            return self
        from_, to = _check_uniform_bounds(d.to_real(), from_, to)
    else:
        from_, to = _check_uniform_bounds(d, from_, to)
        if self.numel() == 0:
            return self
    return _sample(self, "uniform", generator, from_, to)


# ---- normal_ / exponential_ -----------------------------------------------------------------------
@normal_.impl_backends
def normal_kernel(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    if not std >= 0.0:  # the meta registration is Python code in PyTorch: Python's float formatting
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std if self.is_meta else _g(std)}")
    if self.is_meta or self.numel() == 0:
        return self
    d = self.dtype
    if not (d.is_floating_point or d.is_complex):
        raise not_implemented("normal_kernel_cpu", d)
    return _sample(self, "normal", generator, mean, std)


@exponential_.impl_backends
def exponential_kernel(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    d = self.dtype
    if not d.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {SCALAR_TYPE_NAME[d]}")
    if self.numel() == 0 or self.is_meta:
        return self
    return _sample(self, "exponential", generator, lambd)


# ---- random_ --------------------------------------------------------------------------------------
def _update_from(from_: int, d: _dt.dtype) -> int:
    """update_from<scalar_t>: move `from` right until it survives the cast to the dtype."""
    with np.errstate(over="ignore"):
        c = np.float16(np.float32(from_ + 1)) if d is _dt.float16 else d.numpy.type(from_ + 1)
    if not np.isfinite(c):
        return from_  # out of the dtype's range: check_from_to_in_range reports it
    from_plus_1 = int(c)
    if from_plus_1 < from_:
        n = abs(from_ + 1).bit_length() - 1
        from_ = from_plus_1 + (1 << (n - _DIGITS[d] + 1))
    return from_


def _update_to(to: int, d: _dt.dtype) -> int:
    """update_to<scalar_t>: move `to` left until `to - 1` survives the cast to the dtype."""
    with np.errstate(over="ignore"):
        c = np.float16(np.float32(to - 1)) if d is _dt.float16 else d.numpy.type(to - 1)
    if not np.isfinite(c):
        return to
    to_minus_1 = int(c)
    if to_minus_1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = to_minus_1 - (1 << (n - _DIGITS[d] + 1))
    return to


def _check_from_to_in_range(from_: int, to_inc: int, d: _dt.dtype) -> None:
    if d.is_complex or d in _dt.bits_dtypes:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    name = TYPE_META_NAME[d]
    lo, hi = LIMITS[d]
    if lo is None:
        lo = -hi
    if not (lo <= from_ <= hi):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (lo <= to_inc <= hi):
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    if d.is_floating_point:
        digits = _DIGITS[d]
        for var, what in ((from_, "from"), (to_inc, "to - 1")):
            if var < -(1 << digits) or var > (1 << digits):
                warnings.warn(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} can "
                    "support discrete uniform distribution only within this range. This warning will become an "
                    "error in version 1.7 release, please fix the code in advance", UserWarning,
                    stacklevel=user_stacklevel())


def _int_max(d: _dt.dtype) -> int:
    """The largest value random_ produces with no upper bound: 2^digits, the type's max, or true."""
    if d.is_floating_point:
        return min(1 << _DIGITS[d], _INT64_MAX)
    return LIMITS[d][1]  # type: ignore[return-value]  # an integral (or bool) dtype's max is an int


def _random_from_to(self: Tensor, from_: int, to: int | None, generator: Any) -> Tensor:
    """random_from_to_impl: checks, then from + (bits % range) for every element."""
    if self.is_meta:  # random_meta_: no checks in PyTorch either
        return self
    d = self.dtype
    if to is not None:
        if not from_ < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        if d.is_floating_point:
            from_, to = _update_from(from_, d), _update_to(to, d)
            if not from_ < to:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
                                   f"got from={from_} >= to={to}")
        _check_from_to_in_range(from_, to - 1, d)
        range_ = to - from_
    elif from_ != _INT64_MIN:
        if d.is_complex:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
        to_inc = _int_max(d)
        if d.is_floating_point:
            from_ = _update_from(from_, d)
            if not from_ < to_inc:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={from_} > to_inc={to_inc}")
        _check_from_to_in_range(from_, to_inc, d)
        range_ = to_inc - from_ + 1
    else:  # the whole int64 range
        range_ = 2 ** 64
    if self.numel() == 0:
        return self
    return _sample(self, "random_from_to", generator, from_, range_)


@random__from.impl_backends
def random_from_kernel(self: Tensor, from_: int, to: int | None, *, generator: Any = None) -> Tensor:
    return _random_from_to(self, from_, to, generator)


@random__to.impl_backends
def random_to_kernel(self: Tensor, to: int, *, generator: Any = None) -> Tensor:
    return _random_from_to(self, 0, to, generator)


@random_.impl_backends
def random_kernel(self: Tensor, *, generator: Any = None) -> Tensor:
    if self.is_meta:
        return self
    d = self.dtype
    if d.is_complex:
        raise not_implemented("random_kernel_cpu", d)
    if self.numel() == 0:
        return self
    return _sample(self, "random_from_to", generator, 0, _int_max(d) + 1)  # uniform_int: [0, max]


# ---- bernoulli ------------------------------------------------------------------------------------
def _expand_shape_error(target: tuple, size: tuple) -> RuntimeError | None:
    """infer_expand's checks for expanding `size` to `target` (None when it fits)."""
    if len(size) > len(target):
        return RuntimeError(f"expand(torch.FloatTensor{{{list(size)}}}, size={list(target)}): the number of sizes "
                            f"provided ({len(target)}) must be greater or equal to the number of dimensions in the "
                            f"tensor ({len(size)})")
    off = len(target) - len(size)
    for i, s in enumerate(size):
        if s != 1 and s != target[off + i]:
            return RuntimeError(f"The expanded size of the tensor ({target[off + i]}) must match the existing size "
                                f"({s}) at non-singleton dimension {off + i}.  Target sizes: {list(target)}.  "
                                f"Tensor sizes: {list(size)}")
    return None


@bernoulli__float.impl_backends
def bernoulli_float_kernel(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    if not (0 <= p <= 1):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if self.numel() == 0 or self.is_meta:
        return self
    if self.dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", self.dtype)
    return _sample(self, "bernoulli_scalar", generator, p)


@bernoulli__tensor.impl_backends
def bernoulli_tensor_kernel(self: Tensor, p: Tensor, *, generator: Any = None) -> Tensor:
    if self.numel() == 0:
        return self
    err = _expand_shape_error(self._size, p._size)
    if err is not None:
        raise err
    if self.is_meta:
        return self
    if not p.dtype.is_floating_point:
        raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
    if self.dtype.is_complex:
        raise not_implemented("bernoulli_tensor_cpu_self_", self.dtype)
    return _sample(self, "bernoulli_tensor", generator, moved(p, self._device))


@bernoulli.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def bernoulli_kernel(self: Tensor, *, generator: Any = None) -> Tensor:
    out = empty_like.op(self, memory_format=contiguous_format)
    return bernoulli__tensor.op(out, self, generator=generator)


@bernoulli_out.impl_backends
@runs_below_inplace_or_view
def bernoulli_out_kernel(self: Tensor, *, generator: Any = None, out: Tensor) -> Tensor:
    resize_(out, self._size)
    bernoulli__tensor.op(out, self, generator=generator)
    return out


@bernoulli_p.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def bernoulli_p_kernel(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    out = empty_like.op(self, memory_format=contiguous_format)
    return bernoulli__float.op(out, p, generator=generator)


# ---- randperm (declared with the random factories; this is randperm.generator_out's kernel) -----------
_RANDPERM_MAX = {_dt.float16: ((1 << 11) + 1, "n cannot be greater than 2049 for Half type."),
                 _dt.float32: ((1 << 24) + 1, "n cannot be greater than 2^24+1 for Float type."),
                 _dt.float64: ((1 << 53) + 1, "n cannot be greater than 2^53+1 for Double type.")}


def randperm_generator_out_kernel(n: int, *, generator: Any = None, out: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    d = out.dtype
    if d is _dt.bool or d.is_complex:
        raise not_implemented("randperm", d)
    if d in _RANDPERM_MAX and n > _RANDPERM_MAX[d][0]:
        raise RuntimeError(_RANDPERM_MAX[d][1])
    checked_scalar(d, n - 1 if n > 0 else n)  # check_supported_max_int_with_precision: n-1 must fit the dtype
    resize_(out, (n,))
    if not out.is_meta and n:
        _sample(out, "randperm", generator, n)
    return out


# ---- normal (out of place) -----------------------------------------------------------------------------
def check_normal_std(std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _check_normal_tensor_std(std: Tensor) -> None:
    if std.dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std.numel() and not std.is_meta and not (host_values(std) >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _resize_to_broadcast(out: Tensor, a: tuple, b: tuple) -> None:
    resize_output(out, infer_size(tuple(a), tuple(b)), None)


def _normal_tensor_std_out(mean: Tensor | float, std: Tensor, generator: Any, out: Tensor) -> Tensor:
    """normal's out= kernels with a std tensor: out, resized to mean and std broadcast, gets
    N(0, 1) * std + mean."""
    _check_normal_tensor_std(std)
    _resize_to_broadcast(out, mean._size if isinstance(mean, Tensor) else (), std._size)
    normal_.op(out, 0.0, 1.0, generator=generator)
    aten("mul_.Tensor")(out, std)
    if not isinstance(mean, Tensor):
        mean = full.op((), mean, dtype=out.dtype, device=out._device)
    return aten("add_.Tensor")(out, mean)


@normal_tf_out.impl_backends
@runs_below_inplace_or_view
def normal_tf_out_kernel(mean: Tensor, std: float = 1.0, *, generator: Any = None, out: Tensor) -> Tensor:
    check_normal_std(std)
    _resize_to_broadcast(out, mean._size, out._size)
    normal_.op(out, 0.0, std, generator=generator)
    return aten("add_.Tensor")(out, mean)


@normal_tf.impl_backends
@runs_below_inplace_or_view
def normal_tf_kernel(mean: Tensor, std: float = 1.0, *, generator: Any = None) -> Tensor:
    check_normal_std(std)
    out = empty_like.op(mean, memory_format=contiguous_format)
    return normal_tf_out.op(mean, std, generator=generator, out=out)


@normal_ft_out.impl_backends
@runs_below_inplace_or_view
def normal_ft_out_kernel(mean: float, std: Tensor, *, generator: Any = None, out: Tensor) -> Tensor:
    return _normal_tensor_std_out(mean, std, generator, out)


@normal_ft.impl_backends
@runs_below_inplace_or_view
def normal_ft_kernel(mean: float, std: Tensor, *, generator: Any = None) -> Tensor:
    _check_normal_tensor_std(std)
    out = empty_like.op(std, memory_format=contiguous_format)
    return normal_ft_out.op(mean, std, generator=generator, out=out)


@normal_tt_out.impl_backends
@runs_below_inplace_or_view
def normal_tt_out_kernel(mean: Tensor, std: Tensor, *, generator: Any = None, out: Tensor) -> Tensor:
    return _normal_tensor_std_out(mean, std, generator, out)


@normal_tt.impl_backends
@runs_below_inplace_or_view
def normal_tt_kernel(mean: Tensor, std: Tensor, *, generator: Any = None) -> Tensor:
    _check_normal_tensor_std(std)
    shape = infer_size(tuple(mean._size), tuple(std._size))
    out = _empty(shape, mean.dtype, mean._device, contiguous_format)
    return normal_tt_out.op(mean, std, generator=generator, out=out)
