"""Where torch's CPU kernels refuse uint16, uint32 and uint64.

torch 2.x gives these "barebones" unsigned types creation, copy and casts, equality, the bitwise
and/or/xor, mul, sum/prod/cumsum, sort/unique, cat/stack/index_select and the floating functions
(sqrt, exp: computed in the default float type); every other kernel's AT_DISPATCH has no case for
them and raises '"<kernel>" not implemented for 'UInt16''. The tables map an operator to that
kernel name; jtorch's kernels could compute them all, so the refusal is added where torch refuses.

ELEMENTWISE: TensorIterator families, checked on the common dtype (`uint16 + float32` is float32
and computes), keyed by the family's out= overload ("clamp.Tensor_out") or its name ("add").
OPERATORS: every other operator's backend kernel, checked on its first tensor argument's dtype.

The bits type uint1 (torch.bit) has no kernel at all: every OPERATORS entry refuses it too, and so do
the kernels in BITS_OPERATORS and every elementwise family (BITS_ELEMENTWISE's name, the family's
ELEMENTWISE name, else "<family>_cpu" as most of torch's kernels are named).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from ..scalar import not_implemented
from ..tensor import Tensor

_DIV_MODES: dict[Any, str] = {"floor": "div_floor_cpu", "trunc": "div_trunc_cpu"}

ELEMENTWISE: dict[str, str | Callable[[dict], str | None]] = {
    "add": "add_stub", "sub": "add_stub", "rsub": "add_stub",
    "div.out_mode": lambda extras: _DIV_MODES.get(extras.get("rounding_mode")),
    "floor_divide": "div_floor_cpu", "remainder": "remainder_cpu", "fmod": "fmod_cpu", "pow": "pow",
    "lt": "lt_cpu", "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu",
    "maximum": "maximum_cpu", "minimum": "minimum_cpu", "fmax": "maximum_cpu", "fmin": "minimum_cpu",
    "bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu", "__lshift__": "lshift_cpu",
    "__rshift__": "rshift_cpu",
    "logical_and": "logical_and_cpu", "logical_or": "logical_or_cpu", "logical_xor": "logical_xor_cpu",
    "logical_not": "logical_not_cpu", "hypot": "hypot_cpu", "nextafter": "nextafter_cpu",
    "heaviside": "heaviside_cpu", "gcd": "gcd_cpu", "lcm": "lcm_cpu",
    "abs": "abs_cpu", "neg": "neg_cpu", "sign": "sign_cpu", "sgn": "sign_cpu", "bitwise_not": "bitwise_not_cpu",
    "frac": "frac_cpu", "lerp": "lerp_kernel_scalar", "lerp.Tensor_out": "lerp_kernel_tensor",
    "clamp": "clamp_scalar_cpu", "clamp.Tensor_out": "clamp_cpu",
    "clamp_min": "clamp_min_scalar_cpu", "clamp_min.Tensor_out": "maximum_cpu",  # Tensor bounds: maximum's kernel
    "clamp_max": "clamp_max_scalar_cpu", "clamp_max.Tensor_out": "minimum_cpu",
    "addcmul": "addcmul_cpu_out",
}

def _scatter_reduce_kernel(self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True,
                           **kwargs: Any) -> str:
    """scatter_reduce's CPU kernel: its own for include_self=False, one per reduction for mean, amax and amin."""
    if not include_self:
        return "scatter_reduce_exclude_input_init"
    return "scatter_gather_tensor_cpu" if reduce in ("sum", "prod") else f"scatter_gather_tensor_cpu_reduce_{reduce}"


OPERATORS: dict[str, str | Callable[..., str] | None] = {
    "relu": "clamp_min_scalar_cpu", "relu_": "clamp_min_scalar_cpu", "mode": "mode_cpu",
    "random_.from": None, "random_.to": None, "random_.from_out": None, "random_.to_out": None,
    "amax": "max_values_cpu", "amin": "min_values_cpu", "max": "max_all", "min": "min_all",
    "max.other": "maximum_cpu", "max.out": "maximum_cpu", "min.other": "minimum_cpu", "min.out": "minimum_cpu",
    "max.dim": "max_cpu", "min.dim": "min_cpu", "max.dim_max": "max_cpu", "min.dim_min": "min_cpu",
    "argmax": "argmax_cpu", "argmin": "argmin_cpu", "aminmax": "aminmax_cpu", "_aminmax": "aminmax_cpu",
    "nonzero": "nonzero_count_cpu", "count_nonzero": "nonzero_count_cpu", "median": "median_cpu",
    "nanmedian": "median_cpu", "topk": "topk_cpu", "kthvalue": "kthvalue_cpu", "cummax": "cummax_cpu",
    "cummin": "cummin_cpu", "_cummax_helper": "cummax_cpu", "_cummin_helper": "cummin_cpu",
    "tril": "tril", "triu": "triu", "tril_": "tril", "triu_": "triu", "trace": "trace",
    "bincount": "bincount_cpu", "histc": "aminmax_cpu",
    "_softmax": "softmax_lastdim_kernel_impl", "_log_softmax": "log_softmax_lastdim_kernel_impl",
    "masked_fill_": "masked_fill", "masked_fill": "masked_fill", "gather": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "scatter_": "scatter_gather_tensor_cpu",
    "scatter_add": "scatter_gather_tensor_cpu", "scatter_add_": "scatter_gather_tensor_cpu",
    "scatter.value": "scatter_gather_scalar_cpu", "scatter_.value": "scatter_gather_scalar_cpu",
    "scatter.value_reduce": "scatter_gather_scalar_cpu", "scatter_.value_reduce": "scatter_gather_scalar_cpu",
    "scatter_reduce": lambda *a, **k: _scatter_reduce_kernel(*a, **k),
    "scatter_reduce_": lambda *a, **k: _scatter_reduce_kernel(*a, **k),
    "index_add": "scatter_gather_tensor_cpu", "index_add_": "scatter_gather_tensor_cpu",
    "index_copy": "index_copy_cpu", "index_copy_": "index_copy_cpu", "index_fill": "index_fill_cpu",
    "index_fill_": "index_fill_cpu", "index_put": "index_put", "index_put_": "index_put",
    "_index_put_impl_": "index_put", "take": "take_cpu", "put": "take_put_cpu", "put_": "take_put_cpu",
    "masked_select": "masked_select", "masked_scatter": "masked_scatter", "masked_scatter_": "masked_scatter",
    "searchsorted": "searchsorted_out_cpu", "bucketize": "searchsorted_out_cpu", "isin": "isin_default_cpu",
    "dot": "dot", "vdot": "dot", "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "bmm": "bmm",
    "baddbmm": "baddbmm", "mv": "addmv_impl_cpu", "addmv": "addmv_impl_cpu", "cross": "cross",
    "linalg_cross": "cross", "arange": "arange_cpu", "linspace": "linspace_cpu", "logspace": "logspace_cpu",
    "eye": "eye", "randperm": "randperm", "uniform_": "check_uniform_bounds", "random_": "random_kernel_cpu",
}

BITS_OPERATORS: dict[str, str] = {
    "sum": "sum_cpu", "nansum": "nansum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu",
    "cumprod": "cumprod_out_cpu", "_local_scalar_dense": "_local_scalar_dense_cpu",
    "equal": "equal_cpu", "index": "index_cpu", "sort": "copy_kernel",
    "unique": "copy_kernel", "_unique2": "copy_kernel", "masked_fill": "copy_kernel", "repeat": "copy_kernel",
    "diag": "copy_kernel", "diag_embed": "copy_kernel",
}
BITS_ELEMENTWISE: dict[str, str] = {
    "mul": "mul_cpu", "eq": "eq_cpu", "ne": "ne_cpu", "bitwise_and": "bitwise_and_cpu",
    "bitwise_or": "bitwise_or_cpu", "bitwise_xor": "bitwise_xor_cpu", "exp": "exp_vml_cpu", "sqrt": "sqrt_vml_cpu",
    "log": "log_vml_cpu", "sin": "sin_vml_cpu", "cos": "cos_vml_cpu", "tanh": "tanh_vml_cpu",
}

# torch's CUDA kernels, under their own AT_DISPATCH names (aten/src/ATen/native/cuda/<file>, named in the
# comment). A name refuses uint16..64; None computes: the kernel's AT_DISPATCH_V2 lists AT_BAREBONES_UNSIGNED_TYPES,
# or the operator casts first (true division and sqrt compute in float). A family absent here computes on CUDA.
_CUDA_DIV_MODES: dict[Any, str] = {"floor": "div_floor_cuda", "trunc": "div_trunc_cuda"}
CUDA_ELEMENTWISE: dict[str, str | Callable[[dict], str | None] | None] = {
    # build/aten/src/ATen/UfuncCUDA_add.cu (native_functions.yaml ufunc_inner_loop: add; sub calls add_stub)
    "add": "ufunc_add_CUDA", "sub": "ufunc_add_CUDA", "rsub": "ufunc_add_CUDA",
    "mul": "mul_cuda",  # BinaryMulKernel.cu (AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3: no unsigned, unlike mul_cpu)
    "div.out_mode": lambda extras: _CUDA_DIV_MODES.get(extras.get("rounding_mode")),  # BinaryDiv{Floor,Trunc}Kernel
    "floor_divide": "div_floor_cuda",  # BinaryDivFloorKernel.cu
    "remainder": "remainder_cuda", "fmod": "fmod_cuda",  # BinaryRemainderKernel.cu
    "pow": "pow_cuda",  # PowKernel.cu
    "eq": None, "ne": None,  # CompareEQKernel.cu: compare_eq_ne_cuda lists AT_BAREBONES_UNSIGNED_TYPES
    "lt": "compare_cuda", "le": "compare_cuda", "gt": "compare_cuda", "ge": "compare_cuda",  # CompareKernels.cu
    # MaxMinElementwiseKernel.cu; fmax/fmin of integers run maximum/minimum's kernel
    "maximum": "max_elementwise_cuda", "minimum": "min_elementwise_cuda",
    "fmax": "max_elementwise_cuda", "fmin": "min_elementwise_cuda",
    # BinaryBitwiseOpsKernels.cu: AT_DISPATCH_INTEGRAL_TYPES_AND(kBool) (bitwise_*_cpu has the unsigned types)
    "bitwise_and": "bitwise_and_cuda", "bitwise_or": "bitwise_or_cuda", "bitwise_xor": "bitwise_xor_cuda",
    "bitwise_left_shift": "lshift_cuda", "bitwise_right_shift": "rshift_cuda",  # BinaryShiftOpsKernels.cu
    "__lshift__": "lshift_cuda", "__rshift__": "rshift_cuda",
    "logical_and": "logical_and_cuda", "logical_or": "logical_or_cuda",  # BinaryLogicalOpsKernels.cu
    "logical_xor": "logical_xor_cuda",
    "logical_not": "logical_not_cuda",  # UnaryOpsKernel.cu
    "hypot": "hypot_cuda",  # BinaryGeometricKernels.cu
    "nextafter": "nextafter_cuda", "heaviside": "heaviside_cuda",  # StepKernel.cu
    "gcd": "gcd_cuda", "lcm": "lcm_cuda",  # GcdLcmKernel.cu
    "abs": "abs_cuda",  # AbsKernel.cu
    "neg": "neg_cuda", "sign": "sign_cuda", "sgn": "sign_cuda",  # UnarySignKernels.cu
    "bitwise_not": "bitwise_not_cuda",  # UnaryOpsKernel.cu
    "frac": "frac_cuda",  # UnaryFractionKernels.cu
    "lerp": "lerp_cuda", "lerp.Tensor_out": "lerp_cuda",  # Lerp.cu
    # TensorCompare.cu: the three Scalar clamps share launch_clamp_scalar; the Tensor bounds run maximum/minimum
    "clamp": "clamp_scalar_cuda", "clamp.Tensor_out": "clamp_cuda",
    "clamp_min": "clamp_scalar_cuda", "clamp_min.Tensor_out": "max_elementwise_cuda",
    "clamp_max": "clamp_scalar_cuda", "clamp_max.Tensor_out": "min_elementwise_cuda",
    "addcmul": "addcmul_cuda",  # PointwiseOpsKernel.cu
    "where": "where_cuda",  # TensorCompare.cu (AT_DISPATCH_V2 without the unsigned types)
}

_SCATTER_GATHER_CUDA = "cuda_scatter_gather_base_kernel_func"
CUDA_OPERATORS: dict[str, str | None] = {
    # ReduceMaxValuesKernel.cu / ReduceMinValuesKernel.cu list AT_BAREBONES_UNSIGNED_TYPES (max_cuda, max_all_cuda,
    # max_values_cuda and the min ones)
    "max.other": "max_elementwise_cuda", "max.out": "max_elementwise_cuda",  # maximum's kernel
    "min.other": "min_elementwise_cuda", "min.out": "min_elementwise_cuda",
    "max": None, "min": None, "max.dim": None, "min.dim": None, "max.dim_max": None, "min.dim_min": None,
    "amax": None, "amin": None,
    "argmax": "argmax_cuda", "argmin": "argmin_cuda",  # ReduceArgMaxKernel.cu, ReduceArgMinKernel.cu
    "aminmax": "aminmax_cuda", "_aminmax": "aminmax_cuda",  # ReduceAMinMaxKernel.cu
    "median": "median_out_impl", "nanmedian": "median_out_impl",  # Sorting.cu
    "mode": "cuda_mode",  # TensorModeKernel.cu
    "topk": "topk_out_cuda",  # TensorTopK.cu
    "kthvalue": "kthvalue_cuda",  # Sorting.cu
    "cummax": "cummax_cuda", "cummin": "cummin_cuda",  # CumminmaxKernel.cu
    "_cummax_helper": "cummax_cuda", "_cummin_helper": "cummin_cuda",
    "nonzero": "nonzero_cuda",  # Nonzero.cu
    "count_nonzero": None,  # ReduceOps.cpp count_nonzero_cuda: (self != 0).sum(dims), both with unsigned cases
    "trace": None,  # TriangularOps.cu trace_cuda: diagonal().sum()
    "bincount": "bincount_cuda", "histc": "histc",  # SummaryOps.cu
    "relu": "clamp_scalar_cuda", "relu_": "clamp_scalar_cuda",  # relu is clamp_min(self, 0) on CUDA
    "_softmax": "host_softmax", "_log_softmax": "host_softmax",  # SoftMax.cu
    "tril": "triu_tril_cuda_template", "triu": "triu_tril_cuda_template",  # TriangularOps.cu
    "tril_": "triu_tril_cuda_template", "triu_": "triu_tril_cuda_template",
    "masked_fill_": "masked_fill_", "masked_fill": "masked_fill_",  # IndexKernel.cu masked_fill_kernel
    # ScatterGatherKernel.cu: cuda_scatter_gather_base_kernel dispatches once for gather, scatter and the reductions
    "gather": _SCATTER_GATHER_CUDA, "scatter": _SCATTER_GATHER_CUDA, "scatter_": _SCATTER_GATHER_CUDA,
    "scatter_add": _SCATTER_GATHER_CUDA, "scatter_add_": _SCATTER_GATHER_CUDA,
    "scatter_reduce": _SCATTER_GATHER_CUDA, "scatter_reduce_": _SCATTER_GATHER_CUDA,
    "index_add": "index_add", "index_add_": "index_add",  # Indexing.cu index_add_cuda_impl
    "index_copy": "index_copy_cuda", "index_copy_": "index_copy_cuda",  # IndexKernel.cu
    "index_fill": "index_fill_cuda", "index_fill_": "index_fill_cuda",  # IndexKernel.cu
    "take": "take_cuda", "put": "put_cuda", "put_": "put_cuda",  # IndexKernel.cu
    "masked_scatter": "masked_scatter_", "masked_scatter_": "masked_scatter_",  # IndexKernel.cu
    "index_put": "index_put", "index_put_": "index_put", "_index_put_impl_": "index_put",  # IndexKernel.cu
    "searchsorted": "searchsorted_out_cuda", "bucketize": "searchsorted_out_cuda",  # Bucketization.cu
    "dot": "dot", "vdot": "vdot",  # Blas.cpp dot_cuda: floating and complex only
    "mm": "addmm_cuda", "addmm": "addmm_cuda", "mv": "addmv_impl_cuda", "addmv": "addmv_impl_cuda",  # Blas.cpp
    "bmm": "bmm_cuda", "baddbmm": "baddbmm_cuda",  # Blas.cpp
    "cross": "cross_cuda", "linalg_cross": "cross_cuda",  # CrossKernel.cu
    "arange": "arange_cuda", "linspace": "linspace_cuda", "logspace": "logspace_cuda",  # RangeFactories.cu
    "randperm": "randperm_out_cuda",  # Randperm.cu
    # DistributionTemplates.h: the bounds check runs before the device kernel, on every device
    "uniform_": "check_uniform_bounds",
    "random_": None, "random_.from": None, "random_.to": None,  # DistributionRandomKernel.cu: unsigned cases
    "random_.from_out": None, "random_.to_out": None,
}
# index_select, index, index_put, sort, unique, cat, flip, fill_, copy_ and _local_scalar_dense list
# AT_BAREBONES_UNSIGNED_TYPES on CUDA too (Indexing.cu, IndexKernel.cu, Sort.cu, Unique.cu, Shape.cu, FillKernel.cu,
# Copy.cu, CUDAScalar.cu); sum, prod and cumsum reduce in int64.


_NARROW = _dt.limited_unsigned | _dt.bits_dtypes


def elementwise_check(out_schema: str, dispatch_check: Callable[[Any, dict], None] | None
                      ) -> Callable[[Any, dict, str], None]:
    """An elementwise family's dispatch check (common dtype, extras, device type), with the refusal of uint16..64
    of the device's kernel in front (meta tensors check nothing, as torch's meta functions)."""
    name = out_schema.split("(", 1)[0]
    base = name.split(".", 1)[0]
    stub = ELEMENTWISE.get(name, ELEMENTWISE.get(base))
    cuda_stub = CUDA_ELEMENTWISE.get(name, CUDA_ELEMENTWISE.get(base))
    limited = _dt.limited_unsigned
    bits = _dt.bits_dtypes
    # where moves the bytes of a bits tensor (its kernel dispatches on the element size alone)
    bits_stub = (None if base == "where" else stub if stub is not None and not callable(stub)
                 else BITS_ELEMENTWISE.get(base, f"{base}_cpu"))

    def check(dtype: Any, extras: dict, device_type: str = "cpu") -> None:
        if device_type == "meta":
            return
        if dtype in limited:
            s = cuda_stub if device_type == "cuda" else stub
            kernel = s(extras) if callable(s) else s
            if kernel is not None:
                raise not_implemented(kernel, dtype)
        elif dtype in bits and bits_stub is not None:
            raise not_implemented(bits_stub, dtype)
        if dispatch_check is not None:
            dispatch_check(dtype, extras)

    return check


def _first_tensor_dtype(args: tuple, kwargs: dict) -> Any:
    if args and type(args[0]) is Tensor:  # the common case, first: this runs on every call of a wrapped kernel
        return args[0].dtype
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            a = a[0] if a else None
        d = getattr(a, "dtype", None)
        if isinstance(d, _dt.dtype) and hasattr(a, "_size"):
            return d
    return None


def _flips_innermost(self: Any, dims: Any) -> bool:
    """torch's flip copies through TensorIterator unless a flipped dim is the one of stride 1,
    which takes the vectorized kernel (AT_DISPATCH without the barebones unsigned types)."""
    nd = len(self._size)
    return any(nd and self._stride[d % nd] == 1 for d in dims)


# operators whose refusal depends on more than the dtype: (stub, condition on the arguments)
CONDITIONAL: dict[str, tuple[str, Callable[..., bool]]] = {
    "flip": ("flip_cpu", _flips_innermost),
}


# bits-type refusals that depend on more than the dtype: torch's index_select moves a tensor's rows through
# TensorIterator's copy (no dtype dispatch) and dispatches on the dtype only for a 0-d or 1-d self
BITS_CONDITIONAL: dict[str, tuple[str, Callable[..., bool]]] = {
    "index_select": ("index_select", lambda self, *args, **kwargs: len(self._size) <= 1),
}


def _cat_copies(tensors: Any, dim: int = 0, *args: Any, **kwargs: Any) -> bool:
    """torch's cat copies bytes only for a small (< GRAIN_SIZE elements) cat of contiguous tensors along
    dim 0; otherwise it copies through TensorIterator's copy kernel (which has no bits case)."""
    ts = [t for t in tensors if t.numel()]
    if not ts:
        return False
    nd = len(ts[0]._size)
    numel = sum(t.numel() for t in ts)
    return (dim % nd if nd else 0) != 0 or numel >= 32768 or not all(t.is_contiguous() for t in ts)


BITS_CONDITIONAL["cat"] = ("copy_kernel", _cat_copies)


def refusal(name: str, dtype: Any, device_type: str) -> NotImplementedError | None:
    """The refusal of aten::<name>'s kernel for `device_type` of `dtype` (uint16..64 or the bits type), None where it
    computes: for a kernel that checks inside (`refuses_inside`), on its path past the fast one."""
    base = name.partition(".")[0]
    if dtype in _dt.bits_dtypes:
        stub = BITS_OPERATORS.get(base, _lookup(OPERATORS, name, base)) if device_type == "cpu" else None
    elif device_type == "cuda":
        stub = _lookup(CUDA_OPERATORS, name, base)
    elif device_type == "cpu":
        stub = _lookup(OPERATORS, name, base)
    else:
        stub = None
    return not_implemented(stub, dtype) if isinstance(stub, str) and dtype in _NARROW else None


def refuses_inside(kernel: Callable) -> Callable:
    """Mark a kernel that refuses uint16..64 and the bits type itself (the registry wraps it in no refusal)."""
    kernel.refuses_dtypes = True  # type: ignore[attr-defined]  # a marker on the kernel function
    return kernel


def _lookup(table: dict[str, Any], name: str, base: str) -> Any:
    """The entry of an overload, else of its operator, else of the in-place operator's functional one."""
    return table[name] if name in table else table.get(base, table.get(base.rstrip("_")))


def refusing_kernel(name: str, kernel: Callable, device_type: str = "cpu") -> Callable:
    """`kernel` (a CPU or CUDA backend kernel of aten::<name>, "max.dim" say), refusing uint16..64 as torch's
    kernel for that device does."""
    base = name.partition(".")[0]
    if device_type == "cuda":
        cuda_stub = _lookup(CUDA_OPERATORS, name, base)
        if cuda_stub is None:
            return kernel
        return _refusing(cuda_stub, kernel)
    stub = _lookup(OPERATORS, name, base)
    bits_stub = BITS_OPERATORS.get(base, stub)
    if bits_stub is not None:
        kernel = _refusing_bits(bits_stub, kernel)
    elif base in BITS_CONDITIONAL:
        bstub, applies = BITS_CONDITIONAL[base]
        kernel = _refusing_bits(bstub, kernel, applies)
    cond = CONDITIONAL.get(base)
    if stub is None and cond is None:
        return kernel
    limited = _dt.limited_unsigned

    if cond is not None:
        cstub, applies = cond

        def refusing_if(*args: Any, **kwargs: Any) -> Any:
            d = _first_tensor_dtype(args, kwargs)
            if (d in limited or d in _dt.bits_dtypes) and applies(*args, **kwargs):
                raise not_implemented(cstub, d)
            return kernel(*args, **kwargs)

        return refusing_if

    return _refusing(stub or "", kernel)


def _refusing(kernel_name: str | Callable[..., str], kernel: Callable) -> Callable:
    """`kernel`, refusing uint16..64 (on its first tensor argument) with AT_DISPATCH's text for `kernel_name`."""
    limited = _dt.limited_unsigned

    def refusing(*args: Any, **kwargs: Any) -> Any:
        d = _first_tensor_dtype(args, kwargs)
        if d in limited:
            raise not_implemented(kernel_name(*args, **kwargs) if callable(kernel_name) else kernel_name, d)
        return kernel(*args, **kwargs)

    return refusing


def _refusing_bits(stub: str | Callable[..., str], kernel: Callable,
                   applies: Callable[..., bool] | None = None) -> Callable:
    """`kernel`, refusing the bits type uint1 (on its first tensor argument) as torch's AT_DISPATCH does
    (where `applies` says so, when given)."""
    bits = _dt.bits_dtypes

    def refusing_bits(*args: Any, **kwargs: Any) -> Any:
        d = _first_tensor_dtype(args, kwargs)
        if d in bits and (applies is None or applies(*args, **kwargs)):
            raise not_implemented(stub(*args, **kwargs) if callable(stub) else stub, d)
        return kernel(*args, **kwargs)

    return refusing_bits
