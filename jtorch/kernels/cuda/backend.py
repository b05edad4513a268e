"""The CUDA backend: device storage from the caching allocator and the methods that run jtorch's
numba.cuda kernels. `register()` hands a `CUDABackend` to jtorch.backends at `import jtorch`
(nothing here imports numba: kernels load on first use, and allocating the first CUDA tensor is
what asks the driver, failing with torch's text when there is no GPU).

Each capability of the contract (jtorch/backends.py) lives in one kernel module (copy.py,
elementwise.py, reduce.py, scan.py, random.py, index.py, matmul.py, sort.py, ...); a `LazyMethod`
imports the module on the method's first call and then stores the module's function on the
backend, so later calls go straight to it.
"""
from __future__ import annotations

from typing import Any

from ...backends import Backend, LazyMethod, register_backend

_P = __package__


def _lazy(module: str, name: str, *leading: Any) -> LazyMethod:
    return LazyMethod(f"{_P}.{module}", name, *leading)


class CUDABackend(Backend):
    device_type = "cuda"
    dispatch_key = "CUDA"

    lazy_init = _lazy("driver", "lazy_init")
    from_cuda_array_interface = _lazy("interop", "from_cuda_array_interface")
    cuda_array_interface = _lazy("interop", "cuda_array_interface")
    to_dlpack = _lazy("interop", "to_dlpack")
    from_dlpack = _lazy("interop", "from_cuda_dlpack")
    elementwise = _lazy("elementwise", "run_iterator")
    elementwise_contiguous = _lazy("elementwise", "contiguous_runner")
    rows = _lazy("rows", "rows")
    copy = _lazy("copy", "copy")
    fill = _lazy("copy", "fill")
    read_scalar = _lazy("copy", "read_scalar")
    reduce = _lazy("reduce", "reduce")
    scan = _lazy("scan", "scan")
    softmax_backward = _lazy("softmax_backward", "softmax_backward")
    remap = _lazy("remap", "remap")
    cat = _lazy("cat", "cat")
    # indexing
    index = _lazy("index", "_index")
    index_put = _lazy("index", "_index_put")
    index_map = _lazy("index", "run_map")
    index_bounds = _lazy("index", "first_out_of_range")
    nonzero = _lazy("index", "nonzero")
    # products (one routine; the product's shape is its first argument)
    mm = _lazy("matmul", "matmul", "mm")
    bmm = _lazy("matmul", "matmul", "bmm")
    mv = _lazy("matmul", "matmul", "mv")
    dot = _lazy("matmul", "matmul", "dot")
    vdot = _lazy("matmul", "matmul", "vdot")
    # sorting, selection, search
    sort = _lazy("sort", "_sort")
    topk = _lazy("sort", "_topk")
    kthvalue = _lazy("sort", "_kthvalue")
    mode = _lazy("sort", "_mode")
    searchsorted = _lazy("sort", "_search")
    unique = _lazy("sort", "_unique")
    isin = _lazy("sort", "_isin")
    bincount = _lazy("sort", "_bincount")
    histc = _lazy("sort", "_histc")
    welford = _lazy("welford", "welford")
    # ranges on the device
    arange = _lazy("ranges", "arange")
    linspace = _lazy("ranges", "linspace")
    # convolution and pooling
    im2col = _lazy("im2col", "im2col")
    col2im = _lazy("im2col", "col2im")
    max_pool2d = _lazy("pool", "max_pool2d")
    max_pool2d_backward = _lazy("pool", "max_pool2d_backward")
    avg_pool2d = _lazy("pool", "avg_pool2d")
    avg_pool2d_backward = _lazy("pool", "avg_pool2d_backward")
    adaptive_avg_pool2d = _lazy("pool", "adaptive_avg_pool2d")
    adaptive_avg_pool2d_backward = _lazy("pool", "adaptive_avg_pool2d_backward")
    adaptive_max_pool2d = _lazy("pool", "adaptive_max_pool2d")
    # resampling along one dim (padding, upsampling)
    resample = _lazy("resample", "resample")
    max_pool3d = _lazy("pool", "max_pool3d")
    max_pool3d_backward = _lazy("pool", "max_pool3d_backward")
    avg_pool3d = _lazy("pool", "avg_pool3d")
    avg_pool3d_backward = _lazy("pool", "avg_pool3d_backward")
    adaptive_avg_pool3d = _lazy("pool", "adaptive_avg_pool3d")
    adaptive_avg_pool3d_backward = _lazy("pool", "adaptive_avg_pool3d_backward")
    adaptive_max_pool3d = _lazy("pool", "adaptive_max_pool3d")
    # losses
    nll_loss_forward = _lazy("loss", "nll_loss_forward")
    nll_loss_backward = _lazy("loss", "nll_loss_backward")
    # attention (one thread per query row / key row; kernels/cuda/attention.py)
    attention_forward = _lazy("attention", "attention_forward")
    attention_backward = _lazy("attention", "attention_backward")

    def allocate(self, numel: int, dtype: Any, device: Any) -> Any:
        from .storage import CUDAStorage

        return CUDAStorage.allocate(numel, dtype, device)

    # random: the module's functions take the resolved generator
    def uniform(self, t: Any, generator: Any, from_: float, to: float) -> None:
        from . import random as m

        m.uniform(t, m._generator(generator), from_, to)

    def normal(self, t: Any, generator: Any, mean: float, std: float) -> None:
        from . import random as m

        m.normal(t, m._generator(generator), mean, std)

    def exponential(self, t: Any, generator: Any, lambd: float) -> None:
        from . import random as m

        m.exponential(t, m._generator(generator), lambd)

    def random_from_to(self, t: Any, generator: Any, from_: int, range_: int) -> None:
        from . import random as m

        m.random_from_to(t, m._generator(generator), from_, range_)

    def bernoulli_scalar(self, t: Any, generator: Any, p: float) -> None:
        from . import random as m

        m.bernoulli_scalar(t, m._generator(generator), p)

    def bernoulli_tensor(self, t: Any, generator: Any, p: Any) -> None:
        from . import random as m

        m.bernoulli_tensor(t, m._generator(generator), p)

    def randperm(self, t: Any, generator: Any, n: int) -> None:
        from . import random as m

        m.randperm(t, m._generator(generator), n)

    # sampling with parameters: kernels/common/samplers.py's samplers, shared with the CPU
    def multinomial_with_replacement(self, result: Any, generator: Any, probs: Any, n_sample: int) -> None:
        from . import random as m
        from . import sampling

        sampling.multinomial_with_replacement(result, m._generator(generator), probs, n_sample)

    def poisson(self, t: Any, generator: Any, rates: Any) -> None:
        from . import random as m
        from . import sampling

        sampling.poisson(t, m._generator(generator), rates)

    def binomial(self, t: Any, generator: Any, count: Any, prob: Any) -> None:
        from . import random as m
        from . import sampling

        sampling.binomial(t, m._generator(generator), count, prob)

    def standard_gamma(self, t: Any, generator: Any, alpha: Any) -> None:
        from . import random as m
        from . import sampling

        sampling.standard_gamma(t, m._generator(generator), alpha)

    def standard_gamma_grad(self, t: Any, alpha: Any, x: Any) -> None:
        from . import sampling

        sampling.standard_gamma_grad(t, alpha, x)


def register() -> None:
    register_backend(CUDABackend())
