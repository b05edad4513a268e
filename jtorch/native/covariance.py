"""cov and corrcoef, CompositeImplicitAutograd as PyTorch's Correlation.cpp writes them: the
(weighted) mean of each variable's observations, the centred product by mm, divided by the
normalisation factor; corrcoef divides cov by the outer product of the standard deviations and
clips to [-1, 1]. Real dtypes (complex needs conj, which jtorch does not have yet)."""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from ..scalar import SCALAR_TYPE_NAME
from ..tensor import Tensor
from ..warn import user_stacklevel
from .factories import wrapped_scalar_tensor as _w
from .registry import composite_implicit_autograd, op


def _is_integral(dtype: _dt.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is _dt.bool)


def _check_weights(w: Tensor, name: str, n: int, integral: bool) -> None:
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} "
                           "dimensions")
    if integral and not _is_integral(w.dtype):
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{SCALAR_TYPE_NAME[w.dtype]} dtype")
    if not integral and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{SCALAR_TYPE_NAME[w.dtype]} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    if n != 0 and not bool(op("ge.Tensor")(op("min")(w), _w(0)).item()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@composite_implicit_autograd("cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) "
                             "-> Tensor", "function, method")
def cov(self: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {self.dim()} "
                           "dimensions")
    if self.dtype is _dt.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = op("view")(self, [1, -1]) if self.dim() < 2 else self
    n = x._size[1]  # observations
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n, True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n, False)
        w = aweights if w is None else op("mul.Tensor")(w, aweights)
    w_sum = op("sum")(w) if w is not None else op("scalar_tensor")(n, dtype=_dt.int64, device=x._device)
    if w is not None and not bool(op("ne.Tensor")(w_sum, _w(0)).item()):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = op("div.Tensor")(op("sum.dim_IntList")(op("mul.Tensor")(x, w) if w is not None else x, [1]), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = op("sub.Tensor")(w_sum, op("div.Tensor")(
            op("mul.Tensor")(op("sum")(op("mul.Tensor")(w, aweights)), _w(correction)), w_sum))
    else:
        norm = op("sub.Tensor")(w_sum, _w(correction))
    if bool(op("le.Tensor")(norm, _w(0)).item()):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=user_stacklevel())
        norm = op("zeros_like")(norm)
    x = op("sub.Tensor")(x, op("unsqueeze")(avg, 1))
    c = op("mm")(x, op("t")(op("mul.Tensor")(x, w) if w is not None else x))
    return op("squeeze")(op("true_divide.Tensor")(c, norm))


@composite_implicit_autograd("corrcoef(Tensor self) -> Tensor", "function, method")
def corrcoef(self: Tensor) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
    c = op("cov")(self)
    if c.dim() == 0:  # nan for a scalar covariance in {nan, inf, 0}, else 1
        return op("div.Tensor")(c, c)
    std = op("sqrt")(op("diagonal")(c))
    c = op("div.Tensor")(c, op("view")(std, [-1, 1]))
    c = op("div.Tensor")(c, op("view")(std, [1, -1]))
    return op("clip")(c, -1, 1)
