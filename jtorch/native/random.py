"""Random sampling operators (DistributionTemplates.h, Distributions.cpp, TensorFactories.cpp).

The in-place samplers (`uniform_`, `normal_`, `random_`, `bernoulli_`, `exponential_`) have CPU kernels
that draw from the `Generator` argument (or `jtorch.default_generator`) and Meta kernels that only
check; the factories (`rand`, `randn`, `randint`, `randperm`, `*_like`, `normal`) are composites that
allocate through `empty` and call the samplers through the dispatcher, as ATen composes them. So the
same seed gives the same numbers through `rand(n)` and `empty(n).uniform_()`.

Each sampler applies the transformation ATen applies to its random bits (`uniform_real`: `digits`
random bits scaled to [0, 1); `random_`: integers modulo the range), the bits coming from NumPy's
PCG64 rather than PyTorch's mt19937: distributions and checks match PyTorch, the streams do not.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..random import generator_rng
from ..tensor import Tensor
from .factories import (
    TYPEMETA_NAME, _empty, _find_op, _g, _host_view, _like, empty_like, not_implemented, resize_, runs_below_inplace_or_view,
    scalar_to, torch_name,
)
from .registry import declare

_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LIKE = f"{_OPTS}, MemoryFormat? memory_format=None"
_LONG = "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None"

bernoulli = declare("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", variants="function, method")
bernoulli_out = declare("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)")
bernoulli__tensor = declare("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)",
                            variants="method")
bernoulli__float = declare("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
                           variants="method")
bernoulli_p = declare("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
                      variants="function, method")
rand = declare(f"rand(SymInt[] size, *, {_OPTS}) -> Tensor")
rand_generator = declare(f"rand.generator(SymInt[] size, *, Generator? generator, {_OPTS}) -> Tensor")
rand_out = declare("rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
rand_generator_out = declare("rand.generator_out(SymInt[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)")
rand_like = declare(f"rand_like(Tensor self, *, {_LIKE}) -> Tensor")
rand_like_generator = declare(f"rand_like.generator(Tensor self, *, Generator? generator, {_LIKE}) -> Tensor")
randint = declare(f"randint(SymInt high, SymInt[] size, *, {_LONG}) -> Tensor")
randint_generator = declare(f"randint.generator(SymInt high, SymInt[] size, *, Generator? generator, {_LONG}) -> Tensor")
randint_low = declare(f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_LONG}) -> Tensor")
randint_low_generator = declare(
    f"randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, {_LONG}) -> Tensor")
randint_out = declare("randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
randint_generator_out = declare(
    "randint.generator_out(SymInt high, SymInt[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)")
randint_low_out = declare("randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
randint_low_generator_out = declare(
    "randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, Tensor(a!) out) "
    "-> Tensor(a!)")
randint_like = declare(f"randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor")
randint_like_generator = declare(
    f"randint_like.generator(Tensor self, SymInt high, *, Generator? generator, {_LIKE}) -> Tensor")
randint_like_tensor = declare(f"randint_like.Tensor(Tensor self, Tensor high, *, {_LIKE}) -> Tensor")
randint_like_tensor_generator = declare(
    f"randint_like.Tensor_generator(Tensor self, Tensor high, *, Generator? generator, {_LIKE}) -> Tensor")
randint_like_low = declare(f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor")
randint_like_low_generator = declare(
    f"randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, *, Generator? generator, {_LIKE}) "
    "-> Tensor")
randn = declare(f"randn(SymInt[] size, *, {_OPTS}) -> Tensor")
randn_generator = declare(f"randn.generator(SymInt[] size, *, Generator? generator, {_OPTS}) -> Tensor")
randn_out = declare("randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
randn_generator_out = declare("randn.generator_out(SymInt[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)")
randn_like = declare(f"randn_like(Tensor self, *, {_LIKE}) -> Tensor")
randn_like_generator = declare(f"randn_like.generator(Tensor self, *, Generator? generator, {_LIKE}) -> Tensor")
randperm = declare(f"randperm(SymInt n, *, {_LONG}) -> Tensor")
randperm_generator = declare(f"randperm.generator(SymInt n, *, Generator? generator, {_LONG}) -> Tensor")
randperm_out = declare("randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
randperm_generator_out = declare("randperm.generator_out(SymInt n, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)")
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
normal_ff = declare(f"normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, {_OPTS}) "
                    "-> Tensor")
normal_ff_out = declare("normal.float_float_out(float mean, float std, SymInt[] size, *, Generator? generator=None, "
                        "Tensor(a!) out) -> Tensor(a!)")

_DIGITS = {_dt.float16: 11, _dt.float32: 24, _dt.float64: 53}  # std::numeric_limits<T>::digits
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _write(t: Tensor, values: np.ndarray) -> None:
    """Store `values` (numel of them, C order) into t (a CPU tensor of any strides)."""
    view = _host_view(t)
    if view is not None:
        view[...] = values.reshape(t._size)


def _acc(d: _dt.dtype) -> type:
    """dist_acctype: float for half and float, double for double."""
    return np.float64 if d is _dt.float64 else np.float32


# ---- uniform_ ------------------------------------------------------------------------------------
def _uniform_values(rng: np.random.Generator, n: int, d: _dt.dtype, from_: float, to: float) -> np.ndarray:
    """transformation::uniform_real: `digits` random bits -> x in [0, 1), then x * (to - from) + from."""
    digits = _DIGITS[d]
    acc = _acc(d)
    bits = rng.integers(0, 1 << digits, size=n, dtype=np.int64)
    x = bits.astype(acc) * acc(2.0 ** -digits)
    t = d.numpy.type
    with np.errstate(over="ignore"):
        span = acc(t(to) - t(from_))  # computed in scalar_t, as ATen does
        return (x * span + acc(t(from_))).astype(d.numpy)


def _check_uniform_bounds(d: _dt.dtype, from_: float, to: float) -> tuple[float, float]:
    if not d.is_floating_point:
        raise not_implemented("check_uniform_bounds", d)
    info = np.finfo(d.numpy)
    lo, hi = float(info.min), float(info.max)
    name = TYPEMETA_NAME[d]
    if not (lo <= from_ <= hi):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (lo <= to <= hi):
        raise RuntimeError(f"to is out of bounds for {name}")
    if not from_ <= to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not (to - from_) <= hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{torch_name(d)}>::max(), but found "
                           f"to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    return min(max(from_, lo), hi), max(min(to, hi), lo)


@uniform_.impl("CPU")
def uniform_cpu(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    d = self.dtype
    if d.is_complex:  # view_as_real: both parts uniform in [from, to)
        if self.numel() == 0:
            return self
        r = d.to_real()
        from_, to = _check_uniform_bounds(r, from_, to)
        vals = _uniform_values(generator_rng(generator), 2 * self.numel(), r, from_, to)
        _write(self, vals[0::2] + 1j * vals[1::2].astype(d.numpy))
        return self
    from_, to = _check_uniform_bounds(d, from_, to)
    if self.numel() == 0:
        return self
    _write(self, _uniform_values(generator_rng(generator), self.numel(), d, from_, to))
    return self


@uniform_.impl("Meta")
def uniform_meta(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    return self


# ---- normal_ --------------------------------------------------------------------------------------
def _normal_values(rng: np.random.Generator, n: int, d: _dt.dtype, mean: float, std: float) -> np.ndarray:
    acc = _acc(d)
    z = rng.standard_normal(n, dtype=acc)
    with np.errstate(over="ignore"):
        return (z * acc(std) + acc(mean)).astype(d.numpy)


@normal_.impl("CPU")
def normal_cpu(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    if self.numel() == 0:
        return self
    d = self.dtype
    rng = generator_rng(generator)
    if d.is_complex:  # each part gets half the variance
        r = d.to_real()
        vals = _normal_values(rng, 2 * self.numel(), r, mean, std / math.sqrt(2))
        _write(self, vals[0::2] + 1j * vals[1::2].astype(d.numpy))
        return self
    if not d.is_floating_point:
        raise not_implemented("normal_kernel_cpu", d)
    _write(self, _normal_values(rng, self.numel(), d, mean, std))
    return self


@normal_.impl("Meta")
def normal_meta(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    if not std >= 0.0:  # the meta registration is Python code in PyTorch: Python's float formatting
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return self


# ---- exponential_ ---------------------------------------------------------------------------------
@exponential_.impl("CPU", "Meta")
def exponential_kernel(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    d = self.dtype
    if not d.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {torch_name(d)}")
    if self.numel() == 0 or self.is_meta:
        return self
    acc = _acc(d)
    z = generator_rng(generator).standard_exponential(self.numel(), dtype=acc)
    _write(self, (z / acc(lambd)).astype(d.numpy))
    return self


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
    name = TYPEMETA_NAME[d]
    if d.is_floating_point:
        info = np.finfo(d.numpy)
        lo, hi = float(info.min), float(info.max)
    elif d is _dt.bool:
        lo, hi = 0, 1
    elif not d.is_complex:
        info = np.iinfo(d.numpy)
        lo, hi = int(info.min), int(info.max)
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
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
                    "error in version 1.7 release, please fix the code in advance", UserWarning, stacklevel=4)


def _int_max(d: _dt.dtype) -> int:
    """The largest value random_ produces with no upper bound: 2^digits, the type's max, or true."""
    if d.is_floating_point:
        return min(1 << _DIGITS[d], _INT64_MAX)
    if d is _dt.bool:
        return 1
    return int(np.iinfo(d.numpy).max)


def _random_in_range(t: Tensor, from_: int, range_: int, generator: Any) -> None:
    """from + (random % range) for every element, in uint64 arithmetic as ATen's random_from_to."""
    rng = generator_rng(generator)
    n = t.numel()
    if range_ <= 2 ** 63:
        u = rng.integers(0, range_, size=n, dtype=np.int64).astype(np.uint64)
    else:
        u = rng.integers(0, range_, size=n, dtype=np.uint64)
    vals = (np.uint64(from_ % 2 ** 64) + u).view(np.int64)  # wraps like the C++ unsigned sum
    _write(t, vals.astype(t.dtype.numpy))


def _random_from_to(self: Tensor, from_: int, to: int | None, generator: Any) -> Tensor:
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
        if self.numel() == 0 or self.is_meta:
            return self
        _random_in_range(self, from_, to - from_, generator)
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
        if self.numel() == 0 or self.is_meta:
            return self
        _random_in_range(self, from_, to_inc - from_ + 1, generator)
    else:  # the whole int64 range
        if self.numel() == 0 or self.is_meta:
            return self
        _random_in_range(self, _INT64_MIN, 2 ** 64, generator)
    return self


@random__from.impl("CPU")
def random_from_cpu(self: Tensor, from_: int, to: int | None, *, generator: Any = None) -> Tensor:
    return _random_from_to(self, from_, to, generator)


@random__to.impl("CPU")
def random_to_cpu(self: Tensor, to: int, *, generator: Any = None) -> Tensor:
    return _random_from_to(self, 0, to, generator)


@random_.impl("CPU")
def random_cpu(self: Tensor, *, generator: Any = None) -> Tensor:
    d = self.dtype
    if d.is_complex:
        raise not_implemented("random_kernel_cpu", d)
    if self.numel() == 0:
        return self
    _random_in_range(self, 0, _int_max(d) + 1, generator)  # uniform_int: [0, max] (floats: [0, 2^digits])
    return self


@random__from.impl("Meta")
def random_from_meta(self: Tensor, from_: int, to: int | None, *, generator: Any = None) -> Tensor:
    return self  # random_meta_: no checks in PyTorch either


@random__to.impl("Meta")
def random_to_meta(self: Tensor, to: int, *, generator: Any = None) -> Tensor:
    return self


@random_.impl("Meta")
def random_meta(self: Tensor, *, generator: Any = None) -> Tensor:
    return self


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


@bernoulli__float.impl("CPU", "Meta")
def bernoulli_float_kernel(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    if not (0 <= p <= 1):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if self.numel() == 0 or self.is_meta:
        return self
    if self.dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", self.dtype)
    u = generator_rng(generator).random(self.numel())
    _write(self, u < p)
    return self


@bernoulli__tensor.impl("CPU", "Meta")
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
    pv = np.broadcast_to(p._numpy_view(), self._size).astype(np.float64).reshape(-1)
    if not ((pv >= 0) & (pv <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    u = generator_rng(generator).random(self.numel())
    _write(self, u < pv)
    return self


@bernoulli.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def bernoulli_kernel(self: Tensor, *, generator: Any = None) -> Tensor:
    out = empty_like.op(self, memory_format=contiguous_format)
    return bernoulli__tensor.op(out, self, generator=generator)


@bernoulli_out.impl("CPU", "Meta")
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


# ---- rand / randn / randint / *_like ----------------------------------------------------------------
@rand.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def rand_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: Any = None) -> Tensor:
    return uniform_.op(_empty(size, dtype, device), 0.0, 1.0)


@rand_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def rand_generator_kernel(size: tuple, *, generator: Any = None, dtype: Any = None, layout: Any = None,
                          device: Any = None, pin_memory: Any = None) -> Tensor:
    return uniform_.op(_empty(size, dtype, device), 0.0, 1.0, generator=generator)


@rand_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def rand_out_kernel(size: tuple, *, out: Tensor) -> Tensor:
    return rand_generator_out.op(size, generator=None, out=out)


@rand_generator_out.impl("CompositeImplicitAutograd")
@runs_below_inplace_or_view
def rand_generator_out_kernel(size: tuple, *, generator: Any = None, out: Tensor) -> Tensor:
    resize_(out, size)
    uniform_.op(out, 0.0, 1.0, generator=generator)
    return out


@randn.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randn_kernel(size: tuple, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return normal_.op(_empty(size, dtype, device), 0.0, 1.0)


@randn_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randn_generator_kernel(size: tuple, *, generator: Any = None, dtype: Any = None, layout: Any = None,
                           device: Any = None, pin_memory: Any = None) -> Tensor:
    return normal_.op(_empty(size, dtype, device), 0.0, 1.0, generator=generator)


@randn_out.impl("CompositeImplicitAutograd")
@runs_below_inplace_or_view
def randn_out_kernel(size: tuple, *, out: Tensor) -> Tensor:
    return randn_generator_out.op(size, generator=None, out=out)


@randn_generator_out.impl("CompositeImplicitAutograd")
@runs_below_inplace_or_view
def randn_generator_out_kernel(size: tuple, *, generator: Any = None, out: Tensor) -> Tensor:
    resize_(out, size)
    normal_.op(out, 0.0, 1.0, generator=generator)
    return out


def _long(dtype: Any) -> Any:
    """The schema default `dtype=long` (bindings pass the name through)."""
    if dtype is None or dtype == "long":
        return _dt.int64
    return dtype


def _randint(low: int, high: int, size: tuple, generator: Any, dtype: Any, device: Any) -> Tensor:
    return random__from.op(_empty(size, _long(dtype), device), low, high, generator=generator)


@randint.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_kernel(high: int, size: tuple, *, dtype: Any = "long", layout: Any = None, device: Any = None,
                   pin_memory: Any = None) -> Tensor:
    return _randint(0, high, size, None, dtype, device)


@randint_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_generator_kernel(high: int, size: tuple, *, generator: Any = None, dtype: Any = "long",
                             layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    return _randint(0, high, size, generator, dtype, device)


@randint_low.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_low_kernel(low: int, high: int, size: tuple, *, dtype: Any = "long", layout: Any = None,
                       device: Any = None, pin_memory: Any = None) -> Tensor:
    return _randint(low, high, size, None, dtype, device)


@randint_low_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_low_generator_kernel(low: int, high: int, size: tuple, *, generator: Any = None, dtype: Any = "long",
                                 layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    return _randint(low, high, size, generator, dtype, device)


def _randint_out(low: int, high: int, size: tuple, generator: Any, out: Tensor) -> Tensor:
    resize_(out, size)
    random__from.op(out, low, high, generator=generator)
    return out


@randint_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_out_kernel(high: int, size: tuple, *, out: Tensor) -> Tensor:
    return _randint_out(0, high, size, None, out)


@randint_generator_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_generator_out_kernel(high: int, size: tuple, *, generator: Any = None, out: Tensor) -> Tensor:
    return _randint_out(0, high, size, generator, out)


@randint_low_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_low_out_kernel(low: int, high: int, size: tuple, *, out: Tensor) -> Tensor:
    return _randint_out(low, high, size, None, out)


@randint_low_generator_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_low_generator_out_kernel(low: int, high: int, size: tuple, *, generator: Any = None,
                                     out: Tensor) -> Tensor:
    return _randint_out(low, high, size, generator, out)


@rand_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def rand_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return uniform_.op(_like(self, dtype, device, memory_format), 0.0, 1.0)


@rand_like_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def rand_like_generator_kernel(self: Tensor, *, generator: Any = None, dtype: Any = None, layout: Any = None,
                               device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return uniform_.op(_like(self, dtype, device, memory_format), 0.0, 1.0, generator=generator)


@randn_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randn_like_kernel(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return normal_.op(_like(self, dtype, device, memory_format), 0.0, 1.0)


@randn_like_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randn_like_generator_kernel(self: Tensor, *, generator: Any = None, dtype: Any = None, layout: Any = None,
                                device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return normal_.op(_like(self, dtype, device, memory_format), 0.0, 1.0, generator=generator)


def _randint_like(self: Tensor, low: int, high: int, generator: Any, dtype: Any, device: Any,
                  memory_format: Any) -> Tensor:
    return random__from.op(_like(self, dtype, device, memory_format), low, high, generator=generator)


def _high_item(high: Tensor) -> int:
    if high.numel() != 1 or high.dtype.is_floating_point or high.dtype.is_complex:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return int(high.item())


@randint_like.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_kernel(self: Tensor, high: int, *, dtype: Any = None, layout: Any = None, device: Any = None,
                        pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _randint_like(self, 0, high, None, dtype, device, memory_format)


@randint_like_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_generator_kernel(self: Tensor, high: int, *, generator: Any = None, dtype: Any = None,
                                  layout: Any = None, device: Any = None, pin_memory: Any = None,
                                  memory_format: Any = None) -> Tensor:
    return _randint_like(self, 0, high, generator, dtype, device, memory_format)


@randint_like_tensor.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_tensor_kernel(self: Tensor, high: Tensor, *, dtype: Any = None, layout: Any = None,
                               device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _randint_like(self, 0, _high_item(high), None, dtype, device, memory_format)


@randint_like_tensor_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_tensor_generator_kernel(self: Tensor, high: Tensor, *, generator: Any = None, dtype: Any = None,
                                         layout: Any = None, device: Any = None, pin_memory: Any = None,
                                         memory_format: Any = None) -> Tensor:
    return _randint_like(self, 0, _high_item(high), generator, dtype, device, memory_format)


@randint_like_low.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_low_kernel(self: Tensor, low: int, high: int, *, dtype: Any = None, layout: Any = None,
                            device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _randint_like(self, low, high, None, dtype, device, memory_format)


@randint_like_low_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randint_like_low_generator_kernel(self: Tensor, low: int, high: int, *, generator: Any = None,
                                      dtype: Any = None, layout: Any = None, device: Any = None,
                                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    return _randint_like(self, low, high, generator, dtype, device, memory_format)


# ---- randperm -------------------------------------------------------------------------------------
@randperm.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randperm_kernel(n: int, *, dtype: Any = "long", layout: Any = None, device: Any = None,
                    pin_memory: Any = None) -> Tensor:
    return randperm_generator_out.op(n, generator=None, out=_empty((n,), _long(dtype), device))


@randperm_generator.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randperm_generator_kernel(n: int, *, generator: Any = None, dtype: Any = "long", layout: Any = None,
                              device: Any = None, pin_memory: Any = None) -> Tensor:
    return randperm_generator_out.op(n, generator=generator, out=_empty((n,), _long(dtype), device))


@randperm_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def randperm_out_kernel(n: int, *, out: Tensor) -> Tensor:
    return randperm_generator_out.op(n, generator=None, out=out)


_RANDPERM_MAX = {_dt.float16: ((1 << 11) + 1, "n cannot be greater than 2049 for Half type."),
                 _dt.float32: ((1 << 24) + 1, "n cannot be greater than 2^24+1 for Float type."),
                 _dt.float64: ((1 << 53) + 1, "n cannot be greater than 2^53+1 for Double type.")}


@randperm_generator_out.impl("CPU", "Meta")
def randperm_generator_out_kernel(n: int, *, generator: Any = None, out: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    d = out.dtype
    if d is _dt.bool or d.is_complex:
        raise not_implemented("randperm", d)
    scalar_to(n - 1 if n > 0 else n, d)  # check_supported_max_int_with_precision: n-1 must fit the dtype
    if d in _RANDPERM_MAX and n > _RANDPERM_MAX[d][0]:
        raise RuntimeError(_RANDPERM_MAX[d][1])
    resize_(out, (n,))
    if not out.is_meta and n:
        _write(out, generator_rng(generator).permutation(n).astype(d.numpy))
    return out


# ---- normal (out of place) -----------------------------------------------------------------------------
def _check_normal_tensor_std(std: Tensor) -> None:
    if std.dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std.numel() and not std.is_meta and not (std._numpy_view() >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _check_normal_std(std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _mul_(a: Tensor, b: Tensor) -> Tensor:
    return _find_op("mul_", "Tensor")(a, b)


def _add_(a: Tensor, b: Tensor) -> Tensor:
    return _find_op("add_", "Tensor")(a, b)


def _broadcast(a: tuple, b: tuple) -> tuple:
    from ..geometry import infer_size

    return tuple(infer_size(tuple(a), tuple(b)))


def _resize_output(out: Tensor, shape: tuple) -> None:
    from ..structured.meta import resize_output

    resize_output(out, tuple(shape), None)


@normal_tf_out.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_tf_out_kernel(mean: Tensor, std: float = 1.0, *, generator: Any = None, out: Tensor) -> Tensor:
    _check_normal_std(std)
    _resize_output(out, _broadcast(mean._size, out._size))
    normal_.op(out, 0.0, std, generator=generator)
    return _add_(out, mean)


@normal_tf.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_tf_kernel(mean: Tensor, std: float = 1.0, *, generator: Any = None) -> Tensor:
    _check_normal_std(std)
    out = empty_like.op(mean, memory_format=contiguous_format)
    return normal_tf_out.op(mean, std, generator=generator, out=out)


@normal_ft_out.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_ft_out_kernel(mean: float, std: Tensor, *, generator: Any = None, out: Tensor) -> Tensor:
    _check_normal_tensor_std(std)
    _resize_output(out, _broadcast((), std._size))
    normal_.op(out, 0.0, 1.0, generator=generator)
    _mul_(out, std)
    from .factories import full

    return _add_(out, full.op((), mean, dtype=out.dtype, device=out._device))


@normal_ft.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_ft_kernel(mean: float, std: Tensor, *, generator: Any = None) -> Tensor:
    _check_normal_tensor_std(std)
    out = empty_like.op(std, memory_format=contiguous_format)
    return normal_ft_out.op(mean, std, generator=generator, out=out)


@normal_tt_out.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_tt_out_kernel(mean: Tensor, std: Tensor, *, generator: Any = None, out: Tensor) -> Tensor:
    _check_normal_tensor_std(std)
    _resize_output(out, _broadcast(mean._size, std._size))
    normal_.op(out, 0.0, 1.0, generator=generator)
    _mul_(out, std)
    return _add_(out, mean)


@normal_tt.impl("CPU", "Meta")
@runs_below_inplace_or_view
def normal_tt_kernel(mean: Tensor, std: Tensor, *, generator: Any = None) -> Tensor:
    _check_normal_tensor_std(std)
    shape = _broadcast(mean._size, std._size)
    out = _empty(shape, mean.dtype, mean._device, contiguous_format)
    return normal_tt_out.op(mean, std, generator=generator, out=out)


@normal_ff.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def normal_ff_kernel(mean: float, std: float, size: tuple, *, generator: Any = None, dtype: Any = None,
                     layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    _check_normal_std(std)
    return normal_.op(_empty(size, dtype, device), mean, std, generator=generator)


@normal_ff_out.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def normal_ff_out_kernel(mean: float, std: float, size: tuple, *, generator: Any = None, out: Tensor) -> Tensor:
    _check_normal_std(std)
    resize_(out, size)
    normal_.op(out, mean, std, generator=generator)
    return out
