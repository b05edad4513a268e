"""A Python float given for a Scalar argument is read at the precision torch's kernel reads it:
pow(Tensor, Scalar) keeps a float exponent in double for float32/float64 tensors (`x ** 2.4e-280`
is 0 at 0, not 0 ** 0 = 1; `x ** 1e300` computes), while alpha, clamp bounds, lerp weights,
addcmul values, fill values, comparison operands, thresholds and slopes are narrowed to the
kernel's type as torch narrows them (an overflow there is torch's "value cannot be converted to
type float without overflow"). Tiny, huge and inexact values through every Scalar-taking family
against torch, on float32, float64 and float16 inputs.
"""
from __future__ import annotations

import warnings
from typing import Any

import pytest
from _torch_oracle import oracle_torch

import jtorch

TINY, BIG, ODD = 2.4e-280, 1e300, 0.1
CASES: dict[str, Any] = {
    "pow_tiny": lambda T, x: T.pow(x, TINY), "pow_m": lambda T, x: x ** TINY, "pow_neg_tiny": lambda T, x: x.pow(-TINY),
    "pow_": lambda T, x: x.clone().pow_(TINY), "pow_big": lambda T, x: x.pow(BIG),
    "rpow_tiny": lambda T, x: TINY ** x, "pow_scalar_base": lambda T, x: T.pow(TINY, x),
    "add_alpha": lambda T, x: T.add(x, x, alpha=TINY),
    "add_s": lambda T, x: x + TINY, "add_s_big": lambda T, x: x + BIG,
    "sub_alpha": lambda T, x: T.sub(x, x, alpha=TINY), "mul_s": lambda T, x: x * BIG, "mul_tiny": lambda T, x: x * TINY,
    "div_s": lambda T, x: x / BIG, "div_tiny": lambda T, x: x / TINY, "rdiv": lambda T, x: TINY / x,
    "clamp": lambda T, x: x.clamp(TINY, BIG),
    "clamp_min": lambda T, x: x.clamp_min(TINY),
    "clamp_max": lambda T, x: x.clamp_max(-TINY),
    "lerp_w": lambda T, x: T.lerp(x, x + 1, TINY), "addcmul": lambda T, x: T.addcmul(x, x, x, value=TINY),
    "addcdiv": lambda T, x: T.addcdiv(x, x, x + 1, value=BIG), "fmod": lambda T, x: T.fmod(x, TINY),
    "remainder": lambda T, x: T.remainder(x, TINY), "threshold": lambda T, x: T.nn.functional.threshold(x, TINY, 5.0),
    "threshold_v": lambda T, x: T.nn.functional.threshold(x, 0.5, TINY),
    "leaky": lambda T, x: T.nn.functional.leaky_relu(-x, TINY),
    "leaky_big": lambda T, x: T.nn.functional.leaky_relu(-x, BIG),
    "eq": lambda T, x: x == TINY, "gt": lambda T, x: x > TINY, "lt": lambda T, x: x < TINY, "ge": lambda T, x: x >= BIG,
    "le_odd": lambda T, x: x <= ODD, "ne_odd": lambda T, x: x != ODD,
    "fill_": lambda T, x: x.clone().fill_(TINY), "masked_fill": lambda T, x: x.masked_fill(x == 0, TINY),
    "full": lambda T, x: T.full((2,), TINY), "where_s": lambda T, x: T.where(x == 0, TINY, x),
    "elu": lambda T, x: T.nn.functional.elu(-x, TINY),
    "softplus_beta": lambda T, x: T.nn.functional.softplus(x, BIG), "celu": lambda T, x: T.nn.functional.celu(-x, TINY),
    "sub_s": lambda T, x: x - TINY, "rsub": lambda T, x: TINY - x, "mul_": lambda T, x: x.clone().mul_(TINY),
    "div_floor": lambda T, x: T.div(x, TINY, rounding_mode="floor"),
    "index_fill": lambda T, x: x.index_fill(0, T.tensor([0]), TINY),
    "scatter_s": lambda T, x: x.scatter(0, T.tensor([0]), TINY),
    "isclose": lambda T, x: T.isclose(x, x + 1e-300, rtol=TINY, atol=TINY),
    "nan_to_num": lambda T, x: T.nan_to_num(x / 0, TINY, TINY, TINY),
    "hardshrink": lambda T, x: T.nn.functional.hardshrink(x, TINY),
    "softshrink": lambda T, x: T.nn.functional.softshrink(x, TINY),
    "add_int": lambda T, x: T.tensor([1, 2]) * TINY, "add_int_big": lambda T, x: T.tensor([1, 2]) + BIG,
    "eq_int": lambda T, x: T.tensor([0, 1]) == TINY, "clamp_int": lambda T, x: T.tensor([0, 1]).clamp(TINY),
    "logit_eps": lambda T, x: T.logit(x, TINY),
    "arange": lambda T, x: T.arange(0, 3 * TINY, TINY), "linspace": lambda T, x: T.linspace(0, TINY, 3),
    "addmm_beta": lambda T, x: T.addmm(T.ones(1, 1), T.ones(1, 1), T.ones(1, 1), beta=TINY, alpha=BIG),
    "dropout_p": lambda T, x: T.nn.functional.dropout(x, TINY, training=False),
    # p-norms: ord picks the kernel's form as a double, then is narrowed to the accumulate type
    "norm_tiny": lambda T, x: T.norm(x, TINY), "norm_neg_tiny": lambda T, x: T.norm(x, -TINY),
    "norm_big": lambda T, x: T.norm(x, BIG), "norm_neg_big": lambda T, x: T.norm(x, -BIG),
    "norm_dim": lambda T, x: T.norm(x.reshape(1, 3), TINY, dim=1), "norm_odd": lambda T, x: x.norm(2 + 1e-12),
    "norm_one_row": lambda T, x: T.norm(x.reshape(3, 1), TINY, dim=1),
    # reduced dims all of size 1: |x| (x != 0 for ord 0) without the p-th powers
    "norm_one_row_odd": lambda T, x: T.linalg.vector_norm(x.reshape(3, 1) - 0.3, 0.3, dim=1),
    "norm_one_row_zero": lambda T, x: T.linalg.vector_norm(x.reshape(1, 3, 1) - 0.5, 0, dim=(0, 2), keepdim=True),
    "norm_0dim": lambda T, x: T.linalg.vector_norm(x[1], 0.3),
    "norm_0dim_big": lambda T, x: T.linalg.vector_norm(x[1], BIG),
    "norm_0dim_dim": lambda T, x: T.linalg.vector_norm(x[1] - 0.2, 0.3, dim=0),
    "norm_0dim_dim_tiny": lambda T, x: T.linalg.vector_norm(x[1], TINY, dim=-1),
    "norm_one_row_dtype": lambda T, x: T.linalg.vector_norm(x.reshape(3, 1), 0.3, dim=1, dtype=T.float64),
    "vector_norm": lambda T, x: T.linalg.vector_norm(x, TINY),
    "vector_norm_neg": lambda T, x: T.linalg.vector_norm(x + 1, -TINY),
    "vector_norm_nan": lambda T, x: T.linalg.vector_norm(x / x, TINY),
    "vector_norm_empty": lambda T, x: T.linalg.vector_norm(x[:0], TINY),
    "norm_dtype": lambda T, x: T.linalg.vector_norm(x, TINY, dtype=T.float64),
    "dist": lambda T, x: T.dist(x, T.zeros_like(x), TINY), "dist_big": lambda T, x: T.dist(x, x.flip(0), BIG),
    "renorm_p": lambda T, x: T.renorm(x.reshape(3, 1).expand(3, 2).contiguous(), TINY, 0, 1.0),
    "renorm_maxnorm": lambda T, x: T.renorm(x.reshape(3, 1).expand(3, 2).contiguous(), 2, 0, TINY),
    "normalize_p": lambda T, x: T.nn.functional.normalize(x.reshape(1, 3), TINY),
    "normalize_eps": lambda T, x: T.nn.functional.normalize(x.reshape(1, 3) * 0, 2.0, eps=TINY),
    "pairwise": lambda T, x: T.nn.functional.pairwise_distance(x.reshape(1, 3), x.reshape(1, 3) * 0, TINY),
    "pdist": lambda T, x: T.nn.functional.pdist(T.stack([x, x * 0, x + 1]), TINY),
    "pdist_big": lambda T, x: T.nn.functional.pdist(T.stack([x, x * 0, x + 1]), BIG),
    # activations' bounds and thresholds
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x - 0.5, -TINY, TINY),
    "hardtanh_neg": lambda T, x: T.nn.functional.hardtanh(-x, -TINY, TINY),
    "hardtanh_": lambda T, x: T.nn.functional.hardtanh(x - 0.5, -TINY, TINY, inplace=True),
    "hardtanh_zero": lambda T, x: T.nn.functional.hardtanh(x * 0, -TINY, TINY),
    "hardtanh_negzero": lambda T, x: T.nn.functional.hardtanh(x * -0.0, -TINY, TINY),
    "relu6": lambda T, x: T.nn.functional.relu6(x - 0.5),
    "clamp_pm_tiny": lambda T, x: x.clamp(-TINY, TINY), "clamp_neg": lambda T, x: (-x).clamp(-TINY, TINY),
    "clamp_neg_min": lambda T, x: (x - 0.5).clamp(min=-TINY), "clamp_max_pos": lambda T, x: (x - 0.5).clamp(max=TINY),
    "clamp_big": lambda T, x: x.clamp(-BIG, BIG), "clamp_odd": lambda T, x: x.clamp(ODD, 1 - ODD),
    "softplus_thr": lambda T, x: T.nn.functional.softplus(x - 0.5, 1, TINY),
    "rrelu_eval": lambda T, x: T.nn.functional.rrelu(-x, TINY, 2 * TINY, False),
    "threshold_neg": lambda T, x: T.nn.functional.threshold(-x, -TINY, 7.0),
    "hardsigmoid_like": lambda T, x: T.nn.functional.hardtanh(x, TINY, 1.0),
}

DTYPES = ("float32", "float64", "float16")


def outcome(T: Any, case: Any, dtype: str) -> tuple:
    x = T.tensor([0.0, 0.5, 1.0], dtype=getattr(T, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = case(T, x)
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e).replace("jtorch", "torch")
    return "ok", str(r.dtype).split(".")[-1], str(r.tolist())  # text: nan equals nan


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_scalar_argument_read_as_torch_reads_it(name: str, dtype: str) -> None:
    torch = oracle_torch()
    assert outcome(jtorch, CASES[name], dtype) == outcome(torch, CASES[name], dtype)


def test_pow_keeps_a_double_exponent_on_float32() -> None:
    """The named case, against NumPy in double: 0 ** 2.4e-280 is 0 and 0 ** -2.4e-280 is inf."""
    x = jtorch.zeros(3)
    assert x.pow(2.4e-280).tolist() == [0.0, 0.0, 0.0]
    assert x.pow(-2.4e-280).tolist() == [float("inf")] * 3
    assert jtorch.zeros(3, dtype=jtorch.float16).pow(2.4e-280).tolist() == [1.0] * 3  # narrowed to half, as torch
