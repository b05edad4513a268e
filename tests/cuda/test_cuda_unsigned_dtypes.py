"""uint16, uint32, uint64 on CUDA: every operator refuses them under its CUDA kernel's AT_DISPATCH name where
torch's CUDA kernel has no case for them (EXPECTED: the name, and the source file in aten/src/ATen/native/cuda
it is read from), and computes where torch's CUDA kernel has one (AT_BAREBONES_UNSIGNED_TYPES) even where its CPU
kernel refuses. Against torch's CUDA build live where one is importable with a GPU. Tiny sizes: the simulator
is slow."""
from __future__ import annotations

import numpy as np
import pytest
from _unsigned_cuda_cases import CASES, A, B, outcome

import jtorch

NAMES = ("uint16", "uint32", "uint64")
TYPE_NAME = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}

_SG = "cuda_scatter_gather_base_kernel_func"
# case -> (the CUDA kernel's AT_DISPATCH name, or None where it computes; source file)
EXPECTED: dict[str, tuple[str | None, str]] = {
    "add": ("ufunc_add_CUDA", "UfuncCUDA_add.cu (generated)"), "add_scalar": ("ufunc_add_CUDA", "UfuncCUDA_add.cu"),
    "sub": ("ufunc_add_CUDA", "UfuncCUDA_add.cu"), "rsub": ("ufunc_add_CUDA", "UfuncCUDA_add.cu"),
    "mul": ("mul_cuda", "BinaryMulKernel.cu"), "div": (None, "true division computes in float"),
    "div_floor": ("div_floor_cuda", "BinaryDivFloorKernel.cu"),
    "div_trunc": ("div_trunc_cuda", "BinaryDivTruncKernel.cu"),
    "floor_divide": ("div_floor_cuda", "BinaryDivFloorKernel.cu"),
    "remainder": ("remainder_cuda", "BinaryRemainderKernel.cu"), "fmod": ("fmod_cuda", "BinaryRemainderKernel.cu"),
    "pow": ("pow_cuda", "PowKernel.cu"), "pow_tensor": ("pow_cuda", "PowKernel.cu"),
    "eq": (None, "CompareEQKernel.cu"), "ne": (None, "CompareEQKernel.cu"),
    "lt": ("compare_cuda", "CompareKernels.cu"), "le": ("compare_cuda", "CompareKernels.cu"),
    "gt_scalar": ("compare_cuda", "CompareKernels.cu"), "ge": ("compare_cuda", "CompareKernels.cu"),
    "maximum": ("max_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "max_other": ("max_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "minimum": ("min_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "fmax": ("max_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "fmin": ("min_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "bitwise_and": ("bitwise_and_cuda", "BinaryBitwiseOpsKernels.cu"),
    "bitwise_or": ("bitwise_or_cuda", "BinaryBitwiseOpsKernels.cu"),
    "bitwise_xor": ("bitwise_xor_cuda", "BinaryBitwiseOpsKernels.cu"),
    "bitwise_not": ("bitwise_not_cuda", "UnaryOpsKernel.cu"), "lshift": ("lshift_cuda", "BinaryShiftOpsKernels.cu"),
    "rshift": ("rshift_cuda", "BinaryShiftOpsKernels.cu"),
    "logical_and": ("logical_and_cuda", "BinaryLogicalOpsKernels.cu"),
    "logical_or": ("logical_or_cuda", "BinaryLogicalOpsKernels.cu"),
    "logical_xor": ("logical_xor_cuda", "BinaryLogicalOpsKernels.cu"),
    "logical_not": ("logical_not_cuda", "UnaryOpsKernel.cu"), "hypot": ("hypot_cuda", "BinaryGeometricKernels.cu"),
    "abs": ("abs_cuda", "AbsKernel.cu"), "neg": ("neg_cuda", "UnarySignKernels.cu"),
    "sign": ("sign_cuda", "UnarySignKernels.cu"), "sgn": ("sign_cuda", "UnarySignKernels.cu"),
    "frac": ("frac_cuda", "UnaryFractionKernels.cu"), "sqrt": (None, "computes in float"),
    "lerp": ("lerp_cuda", "Lerp.cu"), "clamp": ("clamp_scalar_cuda", "TensorCompare.cu"),
    "clamp_tensor": ("clamp_cuda", "TensorCompare.cu"), "clamp_min": ("clamp_scalar_cuda", "TensorCompare.cu"),
    "clamp_min_tensor": ("max_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "clamp_max": ("clamp_scalar_cuda", "TensorCompare.cu"),
    "clamp_max_tensor": ("min_elementwise_cuda", "MaxMinElementwiseKernel.cu"),
    "addcmul": ("addcmul_cuda", "PointwiseOpsKernel.cu"), "where": ("where_cuda", "TensorCompare.cu"),
    "sum": (None, "ReduceSumProdKernel.cu (int64)"), "sum_dim": (None, "ReduceSumProdKernel.cu"),
    "prod": (None, "ReduceSumProdKernel.cu"), "cumsum": (None, "CumsumKernel.cu (int64)"),
    "cumprod": (None, "CumprodKernel.cu"), "max": (None, "ReduceMaxValuesKernel.cu"),
    "max_dim": (None, "ReduceMaxValuesKernel.cu"), "min": (None, "ReduceMinValuesKernel.cu"),
    "min_dim": (None, "ReduceMinValuesKernel.cu"), "amax": (None, "ReduceMaxValuesKernel.cu"),
    "amin": (None, "ReduceMinValuesKernel.cu"), "aminmax": ("aminmax_cuda", "ReduceAMinMaxKernel.cu"),
    "argmax": ("argmax_cuda", "ReduceArgMaxKernel.cu"), "argmin": ("argmin_cuda", "ReduceArgMinKernel.cu"),
    "median": ("median_out_impl", "Sorting.cu"), "nanmedian": ("median_out_impl", "Sorting.cu"),
    "mode": ("cuda_mode", "TensorModeKernel.cu"), "topk": ("topk_out_cuda", "TensorTopK.cu"),
    "kthvalue": ("kthvalue_cuda", "Sorting.cu"), "cummax": ("cummax_cuda", "CumminmaxKernel.cu"),
    "cummin": ("cummin_cuda", "CumminmaxKernel.cu"), "nonzero": ("nonzero_cuda", "Nonzero.cu"),
    "count_nonzero": (None, "ne and sum"), "any": (None, ""), "all": (None, ""), "equal": (None, "eq and all"),
    "histc": ("histc", "SummaryOps.cu"), "bincount": ("bincount_cuda", "SummaryOps.cu"),
    "sort": (None, "Sort.cu"), "argsort": (None, "Sort.cu"), "unique": (None, "Unique.cu"),
    "relu": ("clamp_scalar_cuda", "TensorCompare.cu (clamp_min)"), "softmax": ("host_softmax", "SoftMax.cu"),
    "log_softmax": ("host_softmax", "SoftMax.cu"), "trace": (None, "diagonal().sum()"),
    "tril": ("triu_tril_cuda_template", "TriangularOps.cu"), "triu": ("triu_tril_cuda_template", "TriangularOps.cu"),
    "flip_outer": (None, "IndexKernel.cu"), "flip_inner": (None, "IndexKernel.cu"), "cat": (None, "Shape.cu"),
    "stack": (None, "Shape.cu"), "clone": (None, "Copy.cu"), "t_contig": (None, "Copy.cu"),
    "fill_": (None, "FillKernel.cu"), "masked_fill": ("masked_fill_", "IndexKernel.cu"),
    "gather": (_SG, "ScatterGatherKernel.cu"), "scatter": (_SG, "ScatterGatherKernel.cu"),
    "scatter_add": (_SG, "ScatterGatherKernel.cu"),
    "scatter_reduce": (_SG, "ScatterGatherKernel.cu"), "index_select": (None, "Indexing.cu"),
    "index": (None, "IndexKernel.cu"), "index_add": ("index_add", "Indexing.cu"),
    "index_fill": ("index_fill_cuda", "IndexKernel.cu"), "index_copy": ("index_copy_cuda", "IndexKernel.cu"),
    "index_put": ("index_put", "IndexKernel.cu"), "setitem": ("index_put", "IndexKernel.cu"),
    "take": ("take_cuda", "IndexKernel.cu"), "put": ("put_cuda", "IndexKernel.cu"),
    "masked_select": (None, "index with a bool mask"), "masked_scatter": ("masked_scatter_", "IndexKernel.cu"),
    "isin": (None, "eq and any"), "searchsorted": ("searchsorted_out_cuda", "Bucketization.cu"),
    "bucketize": ("searchsorted_out_cuda", "Bucketization.cu"), "mm": ("addmm_cuda", "Blas.cpp"),
    "addmm": ("addmm_cuda", "Blas.cpp"), "dot": ("dot", "Blas.cpp"), "mv": ("addmv_impl_cuda", "Blas.cpp"),
    "bmm": ("bmm_cuda", "Blas.cpp"), "baddbmm": ("baddbmm_cuda", "Blas.cpp"),
    "arange": ("arange_cuda", "RangeFactories.cu"), "linspace": ("linspace_cuda", "RangeFactories.cu"),
    "logspace": ("logspace_cuda", "RangeFactories.cu"), "eye": (None, "zero_ and fill_"),
    "randperm": ("randperm_out_cuda", "Randperm.cu"), "rand": ("check_uniform_bounds", "DistributionTemplates.h"),
    "uniform_": ("check_uniform_bounds", "DistributionTemplates.h"), "random_": (None, "DistributionRandomKernel.cu"),
}
# the calls whose refusal comes before any dtype dispatch, the same on every device
DEVICE_FREE = ("mean", "var")


def test_every_case_has_an_expectation():
    assert set(CASES) - set(DEVICE_FREE) == set(EXPECTED)


def _values(r):
    """A computed outcome's values; the dtype is the CPU's where that computes, checked apart."""
    return r[1] if isinstance(r, list) else r


@pytest.mark.parametrize("name", NAMES)
def test_cuda_kernels_refuse_or_compute_as_torch_cuda(cuda, name):
    d = getattr(jtorch, name)
    wide = (jtorch.tensor(A), jtorch.tensor(B))  # int64 operands: the values a computing kernel gives
    wrong = []
    for case, f in CASES.items():
        a, b = jtorch.tensor(A, dtype=d, device=cuda), jtorch.tensor(B, dtype=d, device=cuda)
        got = outcome(f, jtorch, a, b)
        if case in DEVICE_FREE:
            ok = got == outcome(f, jtorch, a.cpu(), b.cpu())
        elif EXPECTED[case][0] is not None:
            ok = got == ["NotImplementedError", f'"{EXPECTED[case][0]}" not implemented for \'{TYPE_NAME[name]}\'']
        elif case in ("div", "sqrt"):
            want = outcome(f, jtorch, *wide)
            ok = got[0] == "float32" and np.allclose(got[1], want[1])
        else:
            ok = _values(got) == _values(outcome(f, jtorch, *wide))
        if not ok:
            wrong.append((case, got))
    assert not wrong


@pytest.mark.parametrize("name", NAMES)
def test_cuda_outcomes_match_torch_cuda_live(name):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    wrong = []
    for case, f in CASES.items():
        want = outcome(f, torch, torch.tensor(A, dtype=getattr(torch, name), device="cuda"),
                       torch.tensor(B, dtype=getattr(torch, name), device="cuda"))
        got = outcome(f, jtorch, jtorch.tensor(A, dtype=getattr(jtorch, name), device="cuda"),
                      jtorch.tensor(B, dtype=getattr(jtorch, name), device="cuda"))
        if got != want:
            wrong.append((case, got, want, EXPECTED.get(case)))
    assert not wrong
