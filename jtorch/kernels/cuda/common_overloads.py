"""kernels/common's plain sampler functions made callable from CUDA kernels: each gets an overload
on the CUDA target that compiles the function itself, so the CPU and CUDA kernels run the same
code. The simulator calls the functions as they are, so nothing is registered there."""
from __future__ import annotations

from typing import Any

from numba.extending import overload

from ..common import samplers as sr
from . import driver


def _register(fn: Any) -> None:
    @overload(fn, target="cuda", strict=False)  # fn names its arguments, not *args
    def _impl(*args):
        return fn


if not driver.SIMULATED:
    for _fn in (sr.philox, sr.uniform2, sr.standard_normal, sr.ptrs_constants, sr.poisson_ptrs, sr.poisson,
                sr.stirling_tail, sr._binomial_inversion,
                sr._btrs, sr.binomial, sr.gamma, sr.digamma, sr._rational, sr.standard_gamma_grad):
        _register(_fn)
