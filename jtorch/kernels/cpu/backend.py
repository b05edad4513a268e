"""The CPU backend: NumPy-buffer storage and the methods that run jtorch's generated Numba loops.

`register()` hands a `CPUBackend` to jtorch.backends (jtorch/__init__.py calls it first thing).
This is the only place where a built TensorIterator meets CPU buffers; the structured layer above
never looks inside a storage. Each capability of the contract (jtorch/backends.py) is one method
here; the kernel modules behind the heavier ones (sort, pool, scan, im2col, loss, ...) are imported
by the method's first call, so nothing compiles at import. The CPU is also the host: wrapped
numbers, NumPy arrays and `Tensor.numpy()` go through `storage_from_numpy` / `numpy_view`.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ...backends import Backend, LazyMethod, register_backend
from ...random import generator_rng
from ...storage import CPUStorage
from . import cat as _cat
from . import copy as _copy
from . import fill as _fill
from . import host as _host
from . import index as _index
from . import random as _random
from . import remap as _remap
from .matmul import matmul as _matmul  # NumPy only: Numba loads with the first integer product
from .threads import static_num_chunks


def _lazy(module: str, name: str) -> LazyMethod:
    """A method whose kernel module (Numba) is imported by its first call."""
    return LazyMethod(f"{__package__}.{module}", name)


class CPUBackend(Backend):
    device_type = "cpu"
    dispatch_key = "CPU"

    # ---- storage and host interop (class attributes: a call is the function's own frame only) ----
    storage_from_numpy = staticmethod(CPUStorage)  # type: ignore[assignment]  # the class: `data` is the contract's `array`
    numpy_view = staticmethod(_host.numpy_view)
    fill = staticmethod(_fill.fill)
    copy = staticmethod(_copy.copy)
    read_scalar = staticmethod(_host.read_scalar)
    remap = staticmethod(_remap.remap)
    cat = staticmethod(_cat.cat)
    index = staticmethod(_index.index)
    index_put = staticmethod(_index.index_put)
    index_bounds = staticmethod(_index.first_out_of_range)
    nonzero = staticmethod(_index.nonzero)

    def allocate(self, numel: int, dtype: Any, device: Any) -> CPUStorage:
        return CPUStorage.allocate(numel, dtype)

    def parallel_chunks(self, n: int) -> int:
        return static_num_chunks(n)

    # ---- elementwise, reductions, scans ----
    def elementwise(self, it: Any, scalar_fn: Callable, extras: tuple) -> None:
        """Run `scalar_fn` over a built TensorIterator (cpu_kernel_vec's role)."""
        from .loops import ArrayOperand, launch

        operands = []
        bits = it.compute_dtype.numpy.kind == "V"  # where moves the bits type's bytes: read them as uint8
        for o in it.operands:
            if o.scalar is not None:
                operands.append(o.scalar)
            else:
                t = o.tensor
                data = t._storage.data
                if bits and data.dtype.kind == "V":
                    data = data.view("u1")
                operands.append(ArrayOperand(data, t._offset, tuple(o.strides)))
        launch(scalar_fn, it.shape, operands, extras)

    def elementwise_contiguous(self, scalar_fn: Callable, pattern: tuple, nextra: int) -> Callable:
        from .loops import arrays_runner

        return arrays_runner(scalar_fn, len(pattern), nextra, None if all(pattern) else pattern)

    reduce = _lazy("reduce", "reduce")
    rows = _lazy("rows", "rows")
    reduce_contiguous = _lazy("reduce", "reduce_contiguous")
    scan = _lazy("scan", "scan")
    softmax_backward = _lazy("softmax_backward", "softmax_backward")

    # ---- random ----
    def uniform(self, t: Any, generator: Any, from_: float, to: float) -> None:
        _random.uniform(t, generator_rng(generator), from_, to)

    def normal(self, t: Any, generator: Any, mean: float, std: float) -> None:
        _random.normal(t, generator_rng(generator), mean, std)

    def exponential(self, t: Any, generator: Any, lambd: float) -> None:
        _random.exponential(t, generator_rng(generator), lambd)

    def random_from_to(self, t: Any, generator: Any, from_: int, range_: int) -> None:
        _random.random_from_to(t, generator_rng(generator), from_, range_)

    def bernoulli_scalar(self, t: Any, generator: Any, p: float) -> None:
        _random.bernoulli_scalar(t, generator_rng(generator), p)

    def bernoulli_tensor(self, t: Any, generator: Any, p: Any) -> None:
        _random.bernoulli_tensor(t, generator_rng(generator), p)

    def randperm(self, t: Any, generator: Any, n: int) -> None:
        from . import sampling

        sampling.randperm(t, generator_rng(generator), n)

    def multinomial_with_replacement(self, result: Any, generator: Any, probs: Any, n_sample: int) -> None:
        from . import sampling

        sampling.multinomial_with_replacement(result, generator_rng(generator), probs, n_sample)

    def poisson(self, t: Any, generator: Any, rates: Any) -> None:
        from . import sampling

        rng, r = generator_rng(generator), _host.numpy_view(rates)
        view = _host.numpy_view(t)
        if view.flags.c_contiguous and view.dtype in (np.float32, np.float64):
            sampling.sample(sampling.POISSON, rng, r, out=view.reshape(-1))  # straight into t
        else:
            sampling.write(t, sampling.sample(sampling.POISSON, rng, r))

    def binomial(self, t: Any, generator: Any, count: Any, prob: Any) -> None:
        from . import sampling

        c, p = (np.broadcast_to(_host.numpy_view(x), t._size) for x in (count, prob))
        sampling.write(t, sampling.sample(sampling.BINOMIAL, generator_rng(generator), c, p))

    def standard_gamma(self, t: Any, generator: Any, alpha: Any) -> None:
        from . import sampling

        vals = sampling.sample(sampling.GAMMA, generator_rng(generator), _host.numpy_view(alpha))
        sampling.write(t, vals, tiny=True)

    def standard_gamma_grad(self, t: Any, alpha: Any, x: Any) -> None:
        from . import sampling

        a, v = (np.broadcast_to(_host.numpy_view(y), t._size) for y in (alpha, x))
        sampling.write(t, sampling.sample(sampling.GAMMA_GRAD, None, a, v))

    # ---- indexing ----
    index_map = _lazy("index_map", "run")

    # ---- products: one routine, the product's shape its first argument (partial: no frame of ours) ----
    mm = partial(_matmul, "mm")
    bmm = partial(_matmul, "bmm")
    mv = partial(_matmul, "mv")
    dot = partial(_matmul, "dot")
    vdot = partial(_matmul, "vdot")

    # ---- sorting, selection, search (kernels/cpu/sort.py) ----
    sort = _lazy("sort", "_sort")
    topk = _lazy("sort", "_topk")
    mode = _lazy("sort", "_mode")
    searchsorted = _lazy("sort", "_search")
    unique = _lazy("sort", "_unique")
    isin = _lazy("sort", "_isin")
    bincount = _lazy("sort", "_bincount")
    histc = _lazy("sort", "_histc")
    welford = _lazy("welford", "welford")
    histogramdd = _lazy("histogram", "histogramdd")

    def kthvalue(self, src: Any, k: int, dim: int, keepdim: bool, values: Any, indices: Any) -> None:
        from .sort import _topk

        _topk(src, k, dim, False, values, indices, True, keepdim)  # the k-th smallest: topk's last of k

    # ---- convolution and pooling ----
    im2col = _lazy("im2col", "im2col")
    col2im = _lazy("im2col", "col2im")
    max_pool2d = _lazy("pool", "max_pool2d")
    max_pool2d_backward = _lazy("pool", "max_pool2d_backward")
    avg_pool2d = _lazy("pool", "avg_pool2d")
    avg_pool2d_backward = _lazy("pool", "avg_pool2d_backward")
    adaptive_avg_pool2d = _lazy("pool", "adaptive_avg_pool2d")
    adaptive_avg_pool2d_backward = _lazy("pool", "adaptive_avg_pool2d_backward")
    adaptive_max_pool2d = _lazy("pool", "adaptive_max_pool2d")
    max_pool3d = _lazy("pool", "max_pool3d")
    max_pool3d_backward = _lazy("pool", "max_pool3d_backward")
    avg_pool3d = _lazy("pool", "avg_pool3d")
    avg_pool3d_backward = _lazy("pool", "avg_pool3d_backward")
    adaptive_avg_pool3d = _lazy("pool", "adaptive_avg_pool3d")
    adaptive_avg_pool3d_backward = _lazy("pool", "adaptive_avg_pool3d_backward")
    adaptive_max_pool3d = _lazy("pool", "adaptive_max_pool3d")

    # ---- resampling along one dim (padding, upsampling) ----
    resample = _lazy("resample", "resample")
    grid_sampler_2d = _lazy("grid_sample", "grid_sampler_2d")
    grid_sampler_2d_backward = _lazy("grid_sample", "grid_sampler_2d_backward")

    # ---- losses ----
    nll_loss_forward = _lazy("loss", "nll_loss_forward")
    nll_loss_backward = _lazy("loss", "nll_loss_backward")

    # ---- attention (kernels/cpu/attention.py: blocks with an online softmax) ----
    attention_forward = _lazy("attention", "attention_forward")
    attention_backward = _lazy("attention", "attention_backward")


def register() -> None:
    register_backend(CPUBackend())

