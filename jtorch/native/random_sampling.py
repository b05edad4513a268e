"""Samplers of distributions with parameters (Distributions.cpp): `multinomial`, `poisson`,
`binomial`, `_standard_gamma` (and its reparameterized gradient), `_sample_dirichlet`, and the
in-place `cauchy_`, `log_normal_`, `geometric_`.

Each kernel checks its arguments as ATen does. The samplers with per-element parameters draw
through the backend's method of the same name (the CPU's and CUDA's share their algorithms:
kernels/common/samplers.py); the rest compose as ATen composes them: multinomial without replacement
is the exponential race (`argmax`/`topk` of p / Exp(1)), dirichlet normalizes gamma samples, and
the in-place samplers transform uniform or normal samples drawn in double.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._enums import contiguous_format
from ..backends import backend
from ..geometry import infer_size
from ..scalar import SCALAR_TYPE_NAME, TYPE_META_NAME, not_implemented
from ..scalar import format_double as _g
from ..tensor import Tensor
from .copy import host_values
from .factories import _empty, aten, empty_like, full, resize_, runs_below_inplace_or_view
from .random import exponential_, normal_, uniform_
from .registry import declare

_GEN = "Generator? generator=None"
multinomial_out = declare(f"multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, {_GEN}, "
                          "Tensor(a!) out) -> Tensor(a!)")
multinomial = declare(f"multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, {_GEN}) -> Tensor",
                      variants="function, method")
poisson = declare(f"poisson(Tensor self, {_GEN}) -> Tensor")
binomial = declare(f"binomial(Tensor count, Tensor prob, {_GEN}) -> Tensor")
standard_gamma = declare(f"_standard_gamma(Tensor self, {_GEN}) -> Tensor")
standard_gamma_grad = declare("_standard_gamma_grad(Tensor self, Tensor output) -> Tensor")
sample_dirichlet = declare(f"_sample_dirichlet(Tensor self, {_GEN}) -> Tensor")
cauchy_ = declare(f"cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, {_GEN}) -> Tensor(a!)",
                  variants="method")
log_normal_ = declare(f"log_normal_(Tensor(a!) self, float mean=1, float std=2, *, {_GEN}) -> Tensor(a!)",
                      variants="method")
geometric_ = declare(f"geometric_(Tensor(a!) self, float p, *, {_GEN}) -> Tensor(a!)", variants="method")

_FLOAT_DOUBLE = (_dt.float32, _dt.float64)


def _no_meta(op: str) -> NotImplementedError:
    """The dispatcher's error for an operator PyTorch registers no Meta kernel for."""
    return NotImplementedError(
        f"aten::{op}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel "
        "registered. You may have run into this message while using an operator with PT2 compilation APIs "
        "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake "
        "impl. Please see the following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


# ---- multinomial ------------------------------------------------------------------------------------------
def _check_multinomial(self: Tensor, n_sample: int, replacement: bool, out: Tensor) -> None:
    if out._device != self._device:
        raise RuntimeError("multinomial arguments must have the same device")
    if not 0 < self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")
    if out.dtype is not _dt.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {SCALAR_TYPE_NAME[out.dtype]}")
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self._size[-1]
    if not (replacement or n_sample <= n_categories):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_categories > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _exponential_race(self: Tensor, n_sample: int, generator: Any, out: Tensor) -> None:
    """Without replacement (or one draw): the n_sample largest p / q, q ~ Exp(1), in order (the
    Gumbel-max trick in ATen's form), after ATen's checks of the whole distribution."""
    p = host_values(self)
    if p.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if not (np.all(p >= 0) and np.all(p < np.inf)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.reshape(-1, p.shape[-1]).sum(axis=1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = empty_like.op(self, memory_format=contiguous_format)
    exponential_.op(q, 1.0, generator=generator)
    aten("div.out")(self, q, out=q)
    if n_sample == 1:
        aten("argmax.out")(q, -1, True, out=out)
    else:
        vals = _empty(out._size, self.dtype, self._device)
        aten("topk.values")(q, n_sample, values=vals, indices=out)


@multinomial_out.impl_backends
@runs_below_inplace_or_view
def multinomial_out_kernel(self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None,
                           out: Tensor) -> Tensor:
    if self.is_meta:  # the meta registration (Python code in PyTorch) checks only this
        if not 0 < self.dim() <= 2:
            raise RuntimeError(f"The probability distributions dimensions must be 1 or 2, but got {self.dim()}")
        return resize_(out, (num_samples,) if self.dim() == 1 else (self._size[0], num_samples))
    _check_multinomial(self, num_samples, replacement, out)
    resize_(out, (num_samples,) if self.dim() == 1 else (self._size[0], num_samples))
    if out.numel() == 0:
        return out
    if not replacement or num_samples == 1:
        _exponential_race(self, num_samples, generator, out)
        return out
    backend(self._device.type).multinomial_with_replacement(out, generator, self, num_samples)
    return out


@multinomial.impl("CompositeExplicitAutograd")
@runs_below_inplace_or_view
def multinomial_kernel(self: Tensor, num_samples: int, replacement: bool = False, *,
                       generator: Any = None) -> Tensor:
    out = _empty((0,), _dt.int64, self._device)
    return multinomial_out.op(self, num_samples, replacement, generator=generator, out=out)


# ---- poisson, binomial, gamma, dirichlet --------------------------------------------------------------------
@poisson.impl_backends
def poisson_kernel(self: Tensor, generator: Any = None) -> Tensor:
    if self.is_meta:
        return empty_like.op(self, memory_format=contiguous_format)
    if not self.dtype.is_floating_point:
        raise not_implemented("poisson_cpu", self.dtype)
    if not np.all(host_values(self) >= 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = empty_like.op(self, memory_format=contiguous_format)
    if out.numel():
        backend(self._device.type).poisson(out, generator, self)
    return out


@binomial.impl_backends
def binomial_kernel(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{SCALAR_TYPE_NAME[t.dtype]}")
    shape = infer_size(tuple(count._size), tuple(prob._size))
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {SCALAR_TYPE_NAME[prob.dtype]} but expected {SCALAR_TYPE_NAME[count.dtype]}")
    if count.is_meta or prob.is_meta:
        raise _no_meta("binomial")
    out = _empty(shape, count.dtype, count._device)
    if out.numel():
        backend(count._device.type).binomial(out, generator, count, prob)
    return out


@standard_gamma.impl_backends
def standard_gamma_kernel(self: Tensor, generator: Any = None) -> Tensor:
    if self.is_meta:
        return empty_like.op(self, memory_format=contiguous_format)
    if self.dtype not in _FLOAT_DOUBLE:
        raise not_implemented("gamma_cpu", self.dtype)
    out = empty_like.op(self, memory_format=contiguous_format)
    if out.numel():
        backend(self._device.type).standard_gamma(out, generator, self)
    return out


@standard_gamma_grad.impl_backends
def standard_gamma_grad_kernel(self: Tensor, output: Tensor) -> Tensor:
    if self.is_meta or output.is_meta:
        raise _no_meta("_standard_gamma_grad")
    shape = infer_size(tuple(self._size), tuple(output._size))
    if output.dtype is not self.dtype:
        raise RuntimeError(f"Found dtype {SCALAR_TYPE_NAME[output.dtype]} but expected "
                           f"{SCALAR_TYPE_NAME[self.dtype]}")
    if self.dtype not in _FLOAT_DOUBLE:
        raise not_implemented("_standard_gamma_grad_cpu", self.dtype)
    out = _empty(shape, self.dtype, self._device)
    if out.numel():
        backend(self._device.type).standard_gamma_grad(out, self, output)
    return out


@sample_dirichlet.impl_backends
@runs_below_inplace_or_view
def sample_dirichlet_kernel(self: Tensor, generator: Any = None) -> Tensor:
    """Gamma samples in double (at least its smallest normal), divided by their sum along the
    last dimension, kept in [smallest normal, 1) of the dtype."""
    if self.is_meta:
        raise _no_meta("_sample_dirichlet")
    if self.dtype not in _FLOAT_DOUBLE:
        raise not_implemented("dirichlet", self.dtype)
    g = _empty(self._size, _dt.float64, self._device)
    if g.numel():
        backend(self._device.type).standard_gamma(g, generator, self)
    total = aten("sum.dim_IntList")(g, [-1], True)
    ratio = aten("div.Tensor")(g, total)
    info = np.finfo(self.dtype.numpy)
    lo = _scalar(float(info.tiny), ratio)
    hi = _scalar(float(np.nextafter(self.dtype.numpy.type(1), self.dtype.numpy.type(0))), ratio)
    aten("clamp_.Tensor")(ratio, lo, hi)
    return aten("_to_copy")(ratio, dtype=self.dtype) if self.dtype is not _dt.float64 else ratio


# ---- cauchy_, log_normal_, geometric_ ----------------------------------------------------------------------
def _scalar(v: float, like: Tensor) -> Tensor:
    return full.op((), v, dtype=_dt.float64, device=like._device)


def _fmt(self: Tensor, v: float) -> str:
    """The meta registrations are Python code in PyTorch: Python's float formatting there."""
    return repr(float(v)) if self.is_meta else _g(v)


def _meta_dtype(d: _dt.dtype) -> str:
    return "torch." + str(d).rsplit(".", 1)[-1]


def _uniform_double(self: Tensor, generator: Any) -> Tensor:
    u = _empty(self._size, _dt.float64, self._device)
    return uniform_.op(u, 0.0, 1.0, generator=generator)


@cauchy_.impl_backends
@runs_below_inplace_or_view
def cauchy_kernel(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(self, sigma)}")
    if self.is_meta and not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution.         dtype must be a "
                           f"floating point but you specified {_meta_dtype(self.dtype)}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {TYPE_META_NAME[self.dtype]}")
    if self.is_meta or self.numel() == 0:
        return self
    u = _uniform_double(self, generator)  # median + sigma * tan(pi * (u - 1/2))
    aten("sub_.Tensor")(u, _scalar(0.5, u))
    aten("mul_.Tensor")(u, _scalar(math.pi, u))
    aten("tan_")(u)
    aten("mul_.Tensor")(u, _scalar(sigma, u))
    aten("add_.Tensor")(u, _scalar(median, u))
    return aten("copy_")(self, u)


@log_normal_.impl_backends
@runs_below_inplace_or_view
def log_normal_kernel(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(self, std)}")
    if self.is_meta and not self.dtype.is_floating_point:
        raise RuntimeError(f"log_normal not implemented for {_meta_dtype(self.dtype)}")
    if self.is_meta or self.numel() == 0:
        return self
    if not self.dtype.is_floating_point:
        raise not_implemented("log_normal_cpu", self.dtype)
    z = _empty(self._size, _dt.float64, self._device)
    normal_.op(z, mean, std, generator=generator)
    return aten("copy_")(self, aten("exp_")(z))


@geometric_.impl_backends
@runs_below_inplace_or_view
def geometric_kernel(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(self, p)}")
    d = self.dtype
    if self.is_meta and (d is _dt.bool or d.is_complex):
        raise RuntimeError(f"geometric not implemented for {_meta_dtype(d)}")
    if self.is_meta or self.numel() == 0:
        return self
    if d is _dt.bool or d.is_complex:
        raise not_implemented("geometric_cpu", d)
    u = _uniform_double(self, generator)  # ceil(log(u) / log1p(-p))
    aten("log_")(u)
    aten("div_.Tensor")(u, _scalar(math.log1p(-p), u))
    aten("ceil_")(u)
    return aten("copy_")(self, u)
