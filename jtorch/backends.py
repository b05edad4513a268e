"""Backends plug in by registration: one object implementing the `Backend` contract below.

A backend method is PyTorch's DispatchStub (`add_stub`, `sort_stub`, ...) at the granularity jtorch
needs: one method per *capability*, not per operator. The structured layer decides shapes and
dtypes once for every backend and then calls the backend's method with the built iterator (or the
checked, allocated tensors) and the operator's scalar definition; only the backend looks inside a
storage.

    class MyBackend(Backend):
        device_type, dispatch_key = "privateuseone", "PrivateUse1"
        def allocate(self, numel, dtype, device): ...
        def elementwise(self, it, scalar_fn, extras): ...

    register_backend(MyBackend())

registers the backend and, through the listeners the structured layer and the declarations add,
registers kernels for every operator declared before it (and later ones as they are declared).
A capability a backend does not implement keeps the base class's method, which raises
`MissingKernel`; the operator that needed it then reports torch's "Could not run 'aten::...' with
arguments from the '...' backend" error (jtorch/native/registry.py turns one into the other). The
methods listed in OPTIONAL (fast set-ups, device-side ranges, lazy initialisation, host and CUDA
interop) have working defaults, or their callers ask `implements` first.

Tensor arguments are jtorch Tensors; `it` is a built TensorIterator (jtorch/structured/tensor_iterator.py).
Output tensors are allocated, of the right shape and dtype, before a method is called; methods
write them and return nothing unless said otherwise.

This module is a leaf: it imports nothing of jtorch, so kernels and the structured layer alike can
import it; the type names below are therefore aliases of Any, named for what they stand for.
"""
from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Sequence
from typing import Any

Tensor = Any          # jtorch.Tensor
Storage = Any         # jtorch.storage.Storage (the backend's own subclass)
DType = Any           # jtorch.dtype
Device = Any          # jtorch.device
Generator = Any       # jtorch.Generator, or None for the device's default generator
Iterator = Any        # a built jtorch.structured.tensor_iterator.TensorIterator
ScalarFn = Callable[..., Any]  # an operator's scalar definition (jtorch/kernels/scalar_*.py)
Runner = Callable[[Tensor, list[Tensor], DType, tuple[Any, ...], int], None]
Pair = tuple[int, int]
Triple = tuple[int, int, int]  # one value per spatial dim of a volume


class MissingKernel(NotImplementedError):
    """A backend was asked for a capability it does not implement (the Backend base class's
    method ran). Inside an operator it becomes the dispatcher's "Could not run" error."""

    def __init__(self, dispatch_key: str, method: str) -> None:
        super().__init__(f"the {dispatch_key or 'unnamed'} backend does not implement '{method}'")
        self.dispatch_key = dispatch_key
        self.method = method


class LazyMethod:
    """A backend method whose kernel module is imported by its first call: `max_pool2d =
    LazyMethod("jtorch.kernels.cpu.pool", "max_pool2d")`. The first lookup on an instance imports
    the module and stores the function (with `leading` arguments bound first) on the instance, so
    later calls go straight to it: no frame of ours on the way."""

    def __init__(self, module: str, name: str, *leading: Any) -> None:
        self.module, self.name, self.leading = module, name, leading
        self.attr = name

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        import importlib
        from functools import partial

        fn = getattr(importlib.import_module(self.module), self.name)
        if self.leading:
            fn = partial(fn, *self.leading)
        obj.__dict__[self.attr] = fn
        return fn


class Backend(ABC):  # noqa: B024 - every method has a default: a backend implements what it can
    """The contract between the structured layer and a device's kernels."""

    device_type: str = ""     # "cpu", "cuda", "privateuseone"
    dispatch_key: str = ""    # "CPU", "CUDA", "PrivateUse1"

    # ---- introspection ---------------------------------------------------------------------------------------
    def implements(self, method: str) -> bool:
        """Whether this backend provides `method` itself (not the base class's default)."""
        return getattr(type(self), method, None) is not getattr(Backend, method, None) or method in vars(self)

    def missing(self) -> list[str]:
        """The required capabilities this backend leaves to the base class (each raises MissingKernel)."""
        return [m for m in REQUIRED if not self.implements(m)]

    def _missing(self, method: str) -> MissingKernel:
        return MissingKernel(self.dispatch_key, method)

    # ---- storage and host interop ----------------------------------------------------------------------------
    def allocate(self, numel: int, dtype: DType, device: Device) -> Storage:
        """A new storage of `numel` elements of `dtype` on `device` (values unspecified)."""
        raise self._missing("allocate")

    def storage_from_numpy(self, array: Any) -> Storage:
        """A storage sharing a flat 1-D NumPy array's memory (the host backend: wrapped numbers,
        from_numpy, tensor(...) data)."""
        raise self._missing("storage_from_numpy")

    def numpy_view(self, t: Tensor) -> Any:
        """A NumPy array viewing t's elements in place (the host backend: Tensor.numpy())."""
        raise self._missing("numpy_view")

    def from_cuda_array_interface(self, obj: Any) -> Tensor:
        """A tensor sharing the memory of an object exposing __cuda_array_interface__."""
        raise self._missing("from_cuda_array_interface")

    def cuda_array_interface(self, t: Tensor) -> dict[str, Any]:
        """Tensor.__cuda_array_interface__ (v3) of a tensor of this backend."""
        raise self._missing("cuda_array_interface")

    def to_dlpack(self, t: Tensor, stream: Any = None, max_version: Any = None) -> Any:
        """Tensor.__dlpack__ of a tensor of this backend: a capsule sharing its memory."""
        raise self._missing("to_dlpack")

    def from_dlpack(self, obj: Any) -> Tensor:
        """A tensor of this backend over a DLPack producer's memory on its device, zero-copy."""
        raise self._missing("from_dlpack")

    def parallel_chunks(self, n: int) -> int:
        """How many chunks the host's parallel loops split `n` elements into (arange's values
        follow the chunking, as torch's CPU kernel's do)."""
        return 1

    def lazy_init(self) -> None:
        """torch's lazy device initialisation: raise torch's error when the device cannot be used."""
        return None

    # ---- elementwise, reductions, scans ----------------------------------------------------------------------
    def elementwise(self, it: Iterator, scalar_fn: ScalarFn, extras: tuple[Any, ...]) -> None:
        """Run `scalar_fn(*inputs, *extras)` over a built TensorIterator into its output(s)."""
        raise self._missing("elementwise")

    def elementwise_contiguous(self, scalar_fn: ScalarFn, pattern: tuple[bool, ...], nextra: int) -> Runner | None:
        """TensorIterator's fast set-up (optional): run(out, tensors, compute_dtype, extras, numel)
        for contiguous operands of one shape; inputs marked False in `pattern` are CPU scalars read
        as values. None: the full iterator build serves every call."""
        return None

    def rows(self, scalar_fn: ScalarFn, outs: Sequence[Tensor], ins: Sequence[Tensor], extras: tuple[Any, ...]) -> None:
        """A multi-output pointwise kernel (optional; the fused recurrent cells): every operand a 2-D
        tensor of one shape, any strides; ``scalar_fn(*ins[r, j], *extras)`` returns one value per
        output, written to ``outs[k][r, j]``."""
        raise self._missing("rows")

    def reduce(self, it: Iterator, reduction: Any, extras: tuple[Any, ...]) -> None:
        """A declared Reduction (jtorch/kernels/reduction.py) over a reduce-mode TensorIterator."""
        raise self._missing("reduce")

    def reduce_contiguous(self, reduction: Any, x: Tensor, results: list[Tensor], extras: tuple[Any, ...],
                          mask: Any = None) -> bool:
        """A small contiguous input reduced over the dims `mask` marks (None: all) into contiguous
        results, no iterator (optional). False where it does not serve: the iterator then runs."""
        return False

    def scan(self, plan: Any, decl: Any, extras: tuple[Any, ...]) -> None:
        """A declared Scan / IndexedScan / RowNormaliser (jtorch/kernels/scalar_scan.py) along
        plan.dim of plan.input into plan.outputs."""
        raise self._missing("scan")

    def softmax_backward(self, log: bool, grad_output: Tensor, output: Tensor, grad_input: Tensor, n: int) -> None:
        """softmax (log=False) / log_softmax gradients along the last dim of contiguous (rows, n) tensors."""
        raise self._missing("softmax_backward")

    # ---- memory: fill, copy, read, rearrange ----------------------------------------------------------------
    def fill(self, t: Tensor, value: Any) -> None:
        """Every element of t (any strides) set to `value`, a NumPy scalar of t's dtype."""
        raise self._missing("fill")

    def copy(self, dst: Tensor, src: Tensor) -> None:
        """dst[...] = src: one shape (src expanded by the caller), both on this backend, dtypes may
        differ (complex to real keeps the real part)."""
        raise self._missing("copy")

    def read_scalar(self, t: Tensor) -> Any:
        """The element at t's offset, as a NumPy scalar of t's dtype (`.item()`)."""
        raise self._missing("read_scalar")

    def remap(self, dst: Tensor, src: Tensor, tri: tuple[int, bool] | None = None) -> None:
        """dst[...] = src, one shape and dtype, strides may be negative (flip); tri=(k, lower):
        only tril/triu's triangle is kept, the rest zeroed."""
        raise self._missing("remap")

    def cat(self, out: Tensor, tensors: Sequence[Tensor], dim: int) -> bool:
        """cat's fast copy (optional). False: the caller copies each input with `copy`."""
        return False

    # ---- random ----------------------------------------------------------------------------------------------
    def uniform(self, t: Tensor, generator: Generator, from_: float, to: float) -> None:
        raise self._missing("uniform")

    def normal(self, t: Tensor, generator: Generator, mean: float, std: float) -> None:
        raise self._missing("normal")

    def exponential(self, t: Tensor, generator: Generator, lambd: float) -> None:
        raise self._missing("exponential")

    def random_from_to(self, t: Tensor, generator: Generator, from_: int, range_: int) -> None:
        """from_ + (random64 % range_) for every element, in uint64 arithmetic as ATen's."""
        raise self._missing("random_from_to")

    def bernoulli_scalar(self, t: Tensor, generator: Generator, p: float) -> None:
        raise self._missing("bernoulli_scalar")

    def bernoulli_tensor(self, t: Tensor, generator: Generator, p: Tensor) -> None:
        """p broadcast to t's shape, on this backend; values outside [0, 1] raise torch's error."""
        raise self._missing("bernoulli_tensor")

    def randperm(self, t: Tensor, generator: Generator, n: int) -> None:
        raise self._missing("randperm")

    def multinomial_with_replacement(self, result: Tensor, generator: Generator, probs: Tensor, n_sample: int) -> None:
        """result[r, s] (result[s] for a 1-D probs): category draws from each row of probs (1-D or 2-D,
        floating), rows checked as ATen's kernel checks them (negative, non-finite, zero sum)."""
        raise self._missing("multinomial_with_replacement")

    def poisson(self, t: Tensor, generator: Generator, rates: Tensor) -> None:
        """t = Poisson samples of rates (t's shape; rates checked non-negative by the caller)."""
        raise self._missing("poisson")

    def binomial(self, t: Tensor, generator: Generator, count: Tensor, prob: Tensor) -> None:
        """t = binomial samples; count and prob broadcast to t's shape."""
        raise self._missing("binomial")

    def standard_gamma(self, t: Tensor, generator: Generator, alpha: Tensor) -> None:
        """t = Gamma(alpha, 1) samples, at least the smallest normal number of t's dtype."""
        raise self._missing("standard_gamma")

    def standard_gamma_grad(self, t: Tensor, alpha: Tensor, x: Tensor) -> None:
        """t = d x / d alpha of Gamma(alpha) samples x (ATen's approximation); alpha, x of t's shape."""
        raise self._missing("standard_gamma_grad")

    # ---- indexing --------------------------------------------------------------------------------------------
    def index(self, out: Tensor, self_: Tensor, indices: Sequence[Any]) -> None:
        """out = self_[indices] (advanced indexing; entries are tensors, slices or None)."""
        raise self._missing("index")

    def index_put(self, self_: Tensor, indices: Sequence[Any], values: Tensor, accumulate: bool) -> None:
        raise self._missing("index_put")

    def index_map(self, m: Any, shape: tuple[int, ...], dst: Tensor, dst_strides: tuple[int, ...], src: Any,
                  src_strides: tuple[int, ...], index: Tensor, index_strides: tuple[int, ...], index_stride: int,
                  index_size: int, extras: tuple[Any, ...] = ()) -> None:
        """A declared IndexMap (jtorch/kernels/scalar_index.py: gather, scatter, index_select, ...)
        over `shape`; src may be a NumPy scalar of dst's dtype (a fill)."""
        raise self._missing("index_map")

    def index_bounds(self, index: Tensor, lo: int, hi: int) -> int | None:
        """The first value of `index` outside [lo, hi), or None."""
        raise self._missing("index_bounds")

    def nonzero(self, t: Tensor) -> Any:
        """The coordinates of t's nonzero elements, row by row: a host (n, t.dim()) int64 array or
        a tensor of that shape on this backend."""
        raise self._missing("nonzero")

    # ---- products: out = alpha * (a @ b) + beta * self ------------------------------------------------------
    def mm(self, out: Tensor, a: Tensor, b: Tensor, self_: Tensor | None = None, beta: Any = 0,
           alpha: Any = 1) -> None:
        raise self._missing("mm")

    def bmm(self, out: Tensor, a: Tensor, b: Tensor, self_: Tensor | None = None, beta: Any = 0,
            alpha: Any = 1) -> None:
        raise self._missing("bmm")

    def mv(self, out: Tensor, a: Tensor, b: Tensor, self_: Tensor | None = None, beta: Any = 0,
           alpha: Any = 1) -> None:
        raise self._missing("mv")

    def dot(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        raise self._missing("dot")

    def vdot(self, out: Tensor, a: Tensor, b: Tensor) -> None:
        """dot with a conjugated."""
        raise self._missing("vdot")

    # ---- sorting, selection, search (torch's stable order; NaN the largest value) ---------------------------
    def sort(self, src: Tensor, dim: int, descending: bool, values: Tensor, indices: Tensor) -> None:
        raise self._missing("sort")

    def topk(self, src: Tensor, k: int, dim: int, largest: bool, values: Tensor, indices: Tensor) -> None:
        raise self._missing("topk")

    def kthvalue(self, src: Tensor, k: int, dim: int, keepdim: bool, values: Tensor, indices: Tensor) -> None:
        raise self._missing("kthvalue")

    def mode(self, src: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor) -> None:
        raise self._missing("mode")

    def searchsorted(self, boundaries: Tensor, values: Tensor, right: bool, sorter: Tensor | None,
                     out: Tensor) -> None:
        raise self._missing("searchsorted")

    def unique(self, src: Tensor, sorted_: bool, return_inverse: bool, return_counts: bool, dim: int | None,
               consecutive: bool, alloc: Callable[[int, tuple[int, ...]], Tensor]) -> None:
        """alloc(i, shape) -> output i (values, inverse, counts) of that shape, once it is known."""
        raise self._missing("unique")

    def isin(self, elements: Tensor, test: Tensor, assume_unique: bool, invert: bool, out: Tensor) -> None:
        raise self._missing("isin")

    def bincount(self, src: Tensor, weights: Tensor | None, out: Tensor) -> None:
        raise self._missing("bincount")

    def histc(self, src: Tensor, lo: float, hi: float, out: Tensor) -> None:
        raise self._missing("histc")

    def histogramdd(self, src: Tensor, weight: Tensor | None, edges: list[Tensor], linear: bool,
                    hist: Tensor) -> None:
        """hist (contiguous, the input's float dtype): counts or summed weights of the points of a
        contiguous (M, N) src per bin of the N 1-D edge tensors, as torch's histogramdd kernel
        (binary search; `linear`: evenly spaced edges, interpolation then a local search)."""
        raise self._missing("histogramdd")

    def welford(self, src: Tensor, correction: float, take_sqrt: bool, var: Tensor, mean: Tensor) -> None:
        """Per row of a C-contiguous (rows, n) float32/float64 src: var (or std with take_sqrt) with
        `correction` and the mean, by Welford's update as torch's std_var kernel; var and mean are
        contiguous 1-D of src's dtype."""
        raise self._missing("welford")

    # ---- ranges (optional: where a backend does not implement them, the host computes the values) -----------
    def arange(self, out: Tensor, start: Any, step: Any, chunk: int, vec: int) -> None:
        """arange's values computed on the device into a 1-D out, chunked as the host's (chunk
        elements per chunk, vec per vector step)."""
        raise self._missing("arange")

    def linspace(self, out: Tensor, start: Any, end: Any, steps: int) -> None:
        """linspace's values computed on the device from both ends into a 1-D out."""
        raise self._missing("linspace")

    # ---- convolution and pooling: contiguous (N, C, H, W) tensors ----------------------------------------------
    def im2col(self, src: Tensor, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair, out: Tensor) -> None:
        """(N, C, H, W) -> (N, C*kh*kw, L) columns.
        Three spatial dims too: (N, C, D, H, W) with triples -> (N, C*kd*kh*kw, L) (torch's vol2col)."""
        raise self._missing("im2col")

    def col2im(self, src: Tensor, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair, out: Tensor) -> None:
        """Columns back to (N, C, H, W), overlaps summed."""
        raise self._missing("col2im")

    def max_pool2d(self, src: Tensor, kernel: Pair, stride: Pair, padding: Pair, dilation: Pair, out: Tensor,
                   indices: Tensor) -> None:
        raise self._missing("max_pool2d")

    def max_pool2d_backward(self, grad_output: Tensor, indices: Tensor, grad_input: Tensor) -> None:
        """Also adaptive_max_pool2d's backward: grad_output scattered to the recorded indices."""
        raise self._missing("max_pool2d_backward")

    def avg_pool2d(self, src: Tensor, kernel: Pair, stride: Pair, padding: Pair, count_include_pad: bool,
                   divisor_override: int, out: Tensor) -> None:
        """divisor_override 0: none."""
        raise self._missing("avg_pool2d")

    def avg_pool2d_backward(self, grad_output: Tensor, kernel: Pair, stride: Pair, padding: Pair,
                            count_include_pad: bool, divisor_override: int, grad_input: Tensor) -> None:
        raise self._missing("avg_pool2d_backward")

    def adaptive_avg_pool2d(self, src: Tensor, out: Tensor) -> None:
        raise self._missing("adaptive_avg_pool2d")

    def adaptive_avg_pool2d_backward(self, grad_output: Tensor, grad_input: Tensor) -> None:
        raise self._missing("adaptive_avg_pool2d_backward")

    def adaptive_max_pool2d(self, src: Tensor, out: Tensor, indices: Tensor) -> None:
        raise self._missing("adaptive_max_pool2d")

    # ---- resampling along one dim (padding, upsampling; optional: callers fall back to index_select) ----------
    def resample(self, src: Tensor, outer: int, inner: int, idx: Any, weights: Any, out: Tensor,
                 backward: bool) -> None:
        """src and out contiguous, seen as (outer, n, inner); idx (K, n_out) int64 and weights (K, n_out)
        or None (K = 1, a copy) are host NumPy arrays. Forward: out[a, j, b] = sum_k weights[k, j] *
        src[a, idx[k, j], b]. Backward (src is the gradient, n = n_out): out, zeroed, gets
        weights[k, j] * src[a, j, b] added at idx[k, j]."""
        raise self._missing("resample")

    def grid_sampler_2d(self, input: Tensor, grid: Tensor, mode: int, padding_mode: int, align_corners: bool,
                        out: Tensor) -> None:
        """Bilinear (0) or nearest (1) sampling; input (N, C, H, W), grid (N, Q, 2), out (N, C, Q), all
        contiguous. Optional: callers fall back to gathers."""
        raise self._missing("grid_sampler_2d")

    def grid_sampler_2d_backward(self, grad_output: Tensor, input: Tensor, grid: Tensor, mode: int,
                                 padding_mode: int, align_corners: bool, grad_input: Tensor | None,
                                 grad_grid: Tensor | None) -> None:
        """grad_output (N, C, Q); writes whichever of grad_input (N, C, H, W) and grad_grid (N, Q, 2) is given."""
        raise self._missing("grid_sampler_2d_backward")
    # 3-d pooling: contiguous (N, C, D, H, W) tensors, triples; indices flat per (D, H, W) volume
    def max_pool3d(self, src: Tensor, kernel: Triple, stride: Triple, padding: Triple, dilation: Triple, out: Tensor,
                   indices: Tensor) -> None:
        raise self._missing("max_pool3d")

    def max_pool3d_backward(self, grad_output: Tensor, indices: Tensor, grad_input: Tensor) -> None:
        """Also adaptive_max_pool3d's backward."""
        raise self._missing("max_pool3d_backward")

    def avg_pool3d(self, src: Tensor, kernel: Triple, stride: Triple, padding: Triple, count_include_pad: bool,
                   divisor_override: int, out: Tensor) -> None:
        raise self._missing("avg_pool3d")

    def avg_pool3d_backward(self, grad_output: Tensor, kernel: Triple, stride: Triple, padding: Triple,
                            count_include_pad: bool, divisor_override: int, grad_input: Tensor) -> None:
        raise self._missing("avg_pool3d_backward")

    def adaptive_avg_pool3d(self, src: Tensor, out: Tensor) -> None:
        raise self._missing("adaptive_avg_pool3d")

    def adaptive_avg_pool3d_backward(self, grad_output: Tensor, grad_input: Tensor) -> None:
        raise self._missing("adaptive_avg_pool3d_backward")

    def adaptive_max_pool3d(self, src: Tensor, out: Tensor, indices: Tensor) -> None:
        raise self._missing("adaptive_max_pool3d")

    # ---- losses: the first out-of-range target, or None when all are valid ----------------------------------
    def nll_loss_forward(self, x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int,
                         out: Tensor, total_weight: Tensor) -> int | None:
        raise self._missing("nll_loss_forward")

    def nll_loss_backward(self, grad_output: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                          ignore_index: int, total_weight: Tensor, grad_input: Tensor) -> int | None:
        raise self._missing("nll_loss_backward")

    # ---- attention: contiguous (N, L, E) q, (N, S, E) k, (N, S, Ev) v, float32/float64 ------------------
    def attention_forward(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, is_causal: bool,
                          scale: float, out: Tensor, logsumexp: Tensor) -> None:
        """Scaled dot-product attention without an (L, S) matrix (torch's CPU flash attention):
        out (N, L, Ev) = softmax(q kᵀ * scale + mask) v and logsumexp (N, L) of the scaled, masked
        scores (float32 for float32 input). mask: None or an additive float tensor expanded to
        (N, L, S) (zero strides allowed); is_causal: query i sees keys j <= i (top-left aligned).
        A fully masked row gives out 0 and logsumexp 0, as torch's flash kernel."""
        raise self._missing("attention_forward")

    def attention_backward(self, grad_out: Tensor, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None,
                           is_causal: bool, scale: float, out: Tensor, logsumexp: Tensor, grad_q: Tensor,
                           grad_k: Tensor, grad_v: Tensor) -> None:
        """attention_forward's gradients (FlashAttention-2: P recomputed from logsumexp) into
        grad_q, grad_k, grad_v of q's, k's and v's shapes."""
        raise self._missing("attention_backward")


# What a backend may leave out without its operators' kernels being wrapped: the fast set-ups and
# device-side ranges (working defaults, or callers that ask `implements` first), lazy initialisation,
# the host interop only the host (CPU) or one device (CUDA) has, and the kernels torch has on the CPU
# only (histogramdd: its operators register no other backend's kernel). Every other method is an
# operator capability: left out, the base class's method raises MissingKernel.
OPTIONAL = frozenset({"parallel_chunks", "lazy_init", "elementwise_contiguous", "reduce_contiguous", "cat", "arange",
                      "linspace", "storage_from_numpy", "numpy_view", "from_cuda_array_interface",
                      "cuda_array_interface", "to_dlpack", "from_dlpack", "histogramdd", "rows", "resample",
                      "grid_sampler_2d", "grid_sampler_2d_backward"})
REQUIRED = tuple(n for n, v in vars(Backend).items()
                 if callable(v) and not n.startswith("_") and n not in OPTIONAL
                 and n not in ("implements", "missing"))

_backends: dict[str, Backend] = {}        # by device type
_by_key: dict[str, Backend] = {}          # by dispatch key
_listeners: list[Callable[[Backend], None]] = []
by_device_type = _backends                # read-only for callers: by_device_type["cpu"].storage_from_numpy(...)


def register_backend(b: Backend) -> Backend:
    """Register a backend; every listener sees it, so kernels follow for the operators already
    declared (they hold the backend: a device type has one until it is unregistered)."""
    if not isinstance(b, Backend):
        raise TypeError(f"register_backend expects a jtorch.backends.Backend, got {type(b).__name__}")
    if not b.device_type or not b.dispatch_key:
        raise ValueError(f"{type(b).__name__} names no device_type or dispatch_key")
    old = _backends.get(b.device_type)
    if old is b:
        return b
    if old is not None:
        raise RuntimeError(f"a backend is already registered for device type '{b.device_type}' "
                           f"({type(old).__name__}); unregister it first")
    _backends[b.device_type] = b
    _by_key[b.dispatch_key] = b
    for fn in list(_listeners):
        fn(b)
    return b


def unregister_backend(device_type: str) -> None:
    """Forget a backend (tests). Kernels registered for it stay in the dispatcher's tables."""
    b = _backends.pop(device_type, None)
    if b is not None:
        _by_key.pop(b.dispatch_key, None)


def on_backend(fn: Callable[[Backend], None]) -> Callable[[Backend], None]:
    """Call fn(backend) for every backend registered now and in the future."""
    _listeners.append(fn)
    for b in list(_backends.values()):
        fn(b)
    return fn


def backends() -> list[Backend]:
    return list(_backends.values())


def backend(device_type: str) -> Backend:
    b = _backends.get(device_type)
    if b is None:
        raise RuntimeError(f"no backend is registered for device type '{device_type}'")
    return b


def backend_for_key(dispatch_key: str) -> Backend | None:
    return _by_key.get(dispatch_key)


def registered() -> set[str]:
    return set(_backends)


def storage_for(dev: Any) -> Callable[[int, DType, Device], Storage]:
    """The allocator of dev's backend: allocate(numel, dtype, device) -> Storage."""
    b = _backends.get(dev.type)
    if b is None:
        raise RuntimeError(f"no storage is registered for device type '{dev.type}'")
    return b.allocate


def lazy_init(device_type: str) -> None:
    """Initialise a device before first use (CUDA: find the driver), raising torch's error when
    it cannot be used. Devices that need none keep the default."""
    b = _backends.get(device_type)
    if b is not None:
        b.lazy_init()
