"""jtorch._tensor_str must print exactly like torch (with 'torch.' -> 'jtorch.').

Each corpus case is checked against live torch when it is importable, otherwise against
tests/data/tensor_str_expected.json (regenerate with tests/data/make_tensor_str_expected.py),
so the comparisons never skip.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

from jtorch import _tensor_str as ts
from jtorch import dtypes as jdt

try:
    import torch
except ImportError:  # the JSON file stands in for torch
    torch = None

EXPECTED_PATH = os.path.join(os.path.dirname(__file__), "data", "tensor_str_expected.json")


@dataclass
class Case:
    name: str
    make: Callable[[], np.ndarray]  # values (or, for meta, an array giving shape/dtype)
    meta: bool = False
    requires_grad: bool = False
    grad_fn: str | None = None  # only "AddBackward0" (torch side: x + 0)
    opts: dict[str, Any] = field(default_factory=dict)
    default_dtype: str = "float32"


def _rs(seed: int) -> np.random.RandomState:
    # RandomState streams are frozen by NumPy, so the JSON stays valid across versions
    return np.random.RandomState(seed)


def _f(vals: Any, dt: Any = np.float32) -> Callable[[], np.ndarray]:
    return lambda: np.array(vals, dtype=dt)


def _randn(shape: tuple, dt: Any = np.float32, seed: int = 0, scale: float = 1.0):
    return lambda: (_rs(seed).standard_normal(shape) * scale).astype(dt)


def _cplx(shape: tuple, dt: Any = np.complex64, seed: int = 0, scale: float = 1.0):
    def make() -> np.ndarray:
        r = _rs(seed)
        return ((r.standard_normal(shape) + 1j * r.standard_normal(shape)) * scale).astype(dt)
    return make


def _randint(shape: tuple, lo: int, hi: int, dt: Any = np.int64, seed: int = 0):
    return lambda: _rs(seed).randint(lo, hi, size=shape, dtype=np.int64).astype(dt)


NAN, INF = float("nan"), float("inf")
SHORT_OPTS = dict(precision=2, threshold=5, sci_mode=False, linewidth=40)

CASES: list[Case] = [
    # 0-dim
    Case("scalar_f32", _f(3.5)),
    Case("scalar_f32_negzero", _f(-0.0)),
    Case("scalar_f64", _f(1.0 / 3.0, np.float64)),
    Case("scalar_i64", _f(7, np.int64)),
    Case("scalar_i32_neg", _f(-12, np.int32)),
    Case("scalar_bool", _f(True, np.bool_)),
    Case("scalar_c64", _f(1 + 2j, np.complex64)),
    Case("scalar_c128_negimag", _f(1.5 - 0.25j, np.complex128)),
    Case("scalar_f16", _f(2.5, np.float16)),
    Case("scalar_nan", _f(NAN)),
    Case("scalar_sci", _f(1.5e-7)),
    # empty
    Case("empty_f32", lambda: np.zeros((0,), np.float32)),
    Case("empty_f32_0x3", lambda: np.zeros((0, 3), np.float32)),
    Case("empty_i64", lambda: np.zeros((0,), np.int64)),
    Case("empty_bool_0x3", lambda: np.zeros((0, 3), np.bool_)),
    Case("empty_f64_2x0x3", lambda: np.zeros((2, 0, 3), np.float64)),
    Case("empty_c64", lambda: np.zeros((0,), np.complex64)),
    # floats
    Case("f32_randn5", _randn((5,))),
    Case("f32_intvals", _f([1, 2, 3])),
    Case("f32_sci_small", _f([1e-5, 1.0, 1e3])),
    Case("f32_sci_large", _f([1e10, 1.0])),
    Case("f32_sci_tiny", _f([1e-10])),
    Case("f32_big_int_mode", _f([1e7, 2.0])),
    Case("f32_over_1e8", _f([123456789.0])),
    Case("f32_nan_inf", _f([NAN, INF, -INF, 1.5])),
    Case("f32_only_nonfinite", _f([NAN, INF])),
    Case("f32_zeros", lambda: np.zeros(4, np.float32)),
    Case("f32_negzero_int", _f([-0.0, 0.0, 1.0])),
    Case("f32_negzero_frac", _f([-0.0, 1.5])),
    Case("f32_roundup_width", _f([9.99996, 1.0])),
    Case("f64_mixed_ints", _f([1.0, -2.0, 300.0], np.float64)),
    Case("f64_3x4", _randn((3, 4), np.float64, seed=1)),
    Case("f32_2x3x4", _randn((2, 3, 4), seed=2)),
    Case("f32_4d", _randn((2, 2, 2, 3), seed=3)),
    Case("f32_1x1x1x1", _f([[[[0.25]]]])),
    Case("f32_column", _randn((3, 1), seed=4)),
    Case("f32_wrap30", _randn((30,), seed=5)),
    Case("f32_1000_nosummary", _randn((10, 100), seed=6)),
    Case("f32_1001_summary", _randn((1001,), seed=7)),
    Case("f32_2000_summary", _randn((2000,), seed=8, scale=100.0)),
    Case("f32_40x40_summary", _randn((40, 40), seed=9)),
    Case("f32_11x11x11_summary", _randn((11, 11, 11), seed=10)),
    Case("f32_3d_sci_summary", _randn((12, 10, 10), seed=11, scale=1e5)),
    Case("f16_small", _f([1.5, 2.25, -3.0], np.float16)),
    Case("f16_3x3", _randn((3, 3), np.float16, seed=12)),
    Case("f16_extremes", _f([65504.0, 1e-3], np.float16)),
    Case("f64_5x7_wide", _randn((5, 7), np.float64, seed=13, scale=1000.0)),
    # ints / bool
    Case("i64_arange2000", lambda: np.arange(2000, dtype=np.int64)),
    Case("i64_neg_2000", lambda: -np.arange(2000, dtype=np.int64) * 37),
    Case("i64_large", _randint((5, 5), -10**12, 10**12, seed=14)),
    Case("i64_wrap50", _randint((50,), -1000, 1000, seed=15)),
    Case("i32_neg", _randint((3, 4), -500, 10, np.int32, seed=16)),
    Case("i16", _randint((6,), -30000, 30000, np.int16, seed=17)),
    Case("i8", _randint((2, 5), -128, 128, np.int8, seed=18)),
    Case("u8", _randint((3, 4), 0, 256, np.uint8, seed=19)),
    Case("bool_vec", _f([True, False, True, True, False, False], np.bool_)),
    Case("bool_3x3", lambda: (_rs(20).standard_normal((3, 3)) > 0)),
    Case("bool_all_true", _f([True, True], np.bool_)),
    Case("bool_summary", lambda: (np.arange(1500) % 3 == 0)),
    # dtype suffix exactly at the wrap boundary ('jtorch.' is longer than 'torch.')
    Case("i32_suffix_boundary", lambda: np.arange(13, dtype=np.int32)),
    Case("f64_suffix_boundary", lambda: np.arange(24, dtype=np.float64)),
    # complex
    Case("c64_basic", _f([1 + 2j, 3 - 1j], np.complex64)),
    Case("c128_3x3", _cplx((3, 3), np.complex128, seed=21)),
    Case("c64_nonfinite", _f([complex(NAN, 1), complex(INF, -INF), 2 + 0j], np.complex64)),
    Case("c64_negzero_imag", _f([complex(1.0, -0.0), complex(-0.0, 2.0)], np.complex64)),
    Case("c64_summary", _cplx((1200,), seed=22)),
    Case("c128_sci", _cplx((4,), np.complex128, seed=23, scale=1e6)),
    Case("c64_intvals", _f([1 + 1j, -2 + 0j, 3 - 4j], np.complex64)),
    # autograd suffixes
    Case("rg_f32", _randn((3,), seed=24), requires_grad=True),
    Case("rg_f64_2x3", _randn((2, 3), np.float64, seed=25), requires_grad=True),
    Case("rg_f32_long", _randn((20,), seed=26), requires_grad=True),
    Case("rg_f64_wrap_suffix", _randn((12,), np.float64, seed=27), requires_grad=True),
    Case("gradfn_f32", _randn((2, 2), seed=28), requires_grad=True, grad_fn="AddBackward0"),
    Case("gradfn_f64_row", _randn((6,), np.float64, seed=29), requires_grad=True,
         grad_fn="AddBackward0"),
    Case("rg_empty", lambda: np.zeros((0, 2), np.float32), requires_grad=True),
    # meta
    Case("meta_f32_2x3", lambda: np.zeros((2, 3), np.float32), meta=True),
    Case("meta_i64_scalar", lambda: np.zeros((), np.int64), meta=True),
    Case("meta_f64_0", lambda: np.zeros((0,), np.float64), meta=True),
    Case("meta_bool_4", lambda: np.zeros((4,), np.bool_), meta=True),
    Case("meta_c64_2x0x3", lambda: np.zeros((2, 0, 3), np.complex64), meta=True),
    Case("meta_f16_3", lambda: np.zeros((3,), np.float16), meta=True),
    Case("meta_rg", lambda: np.zeros((2, 3), np.float32), meta=True, requires_grad=True),
    Case("meta_u8_4d", lambda: np.zeros((1, 2, 3, 4), np.uint8), meta=True),
    # print options
    Case("opt_short_randn10", _randn((10,), seed=30), opts=SHORT_OPTS),
    Case("opt_short_4x4_big", _randn((4, 4), seed=31, scale=1000.0), opts=SHORT_OPTS),
    Case("opt_short_arange10", lambda: np.arange(10, dtype=np.int64), opts=SHORT_OPTS),
    Case("opt_short_tiny", _f([1e-6, 1.0]), opts=SHORT_OPTS),
    Case("opt_short_c64", _cplx((3,), seed=32), opts=SHORT_OPTS),
    Case("opt_short_rg_f64", _randn((3,), np.float64, seed=33), requires_grad=True,
         opts=SHORT_OPTS),
    Case("opt_sci_true", _f([1.0, 2.0]), opts=dict(sci_mode=True)),
    Case("opt_sci_true_int", lambda: np.arange(3, dtype=np.int64), opts=dict(sci_mode=True)),
    Case("opt_edge0_1d", lambda: np.arange(10, dtype=np.int64), opts=dict(edgeitems=0, threshold=5)),
    Case("opt_edge0_2d", _randn((4, 4), seed=34), opts=dict(edgeitems=0, threshold=5)),
    Case("opt_edge1_3d", _randn((3, 4, 5), seed=35), opts=dict(edgeitems=1, threshold=10)),
    Case("opt_profile_short", _randn((5, 5), seed=36), opts=dict(profile="short")),
    Case("opt_profile_full", lambda: np.arange(1100, dtype=np.int64), opts=dict(profile="full")),
    Case("opt_precision8", _randn((3,), np.float64, seed=37), opts=dict(precision=8)),
    Case("opt_linewidth120", _randn((20,), seed=38), opts=dict(linewidth=120)),
    Case("opt_linewidth10", _randn((5,), seed=39), opts=dict(linewidth=10)),
    # a float64 default dtype changes which dtypes are implied
    Case("dd64_f64", _randn((3,), np.float64, seed=40), default_dtype="float64"),
    Case("dd64_f32", _randn((3,), np.float32, seed=41), default_dtype="float64"),
    Case("dd64_c128", _cplx((2,), np.complex128, seed=42), default_dtype="float64"),
    Case("dd64_c64", _cplx((2,), np.complex64, seed=43), default_dtype="float64"),
    Case("dd64_empty_f32", lambda: np.zeros((0,), np.float32), default_dtype="float64"),
    Case("dd64_meta_f64", lambda: np.zeros((2,), np.float64), meta=True, default_dtype="float64"),
]


def jtorch_repr(case: Case) -> str:
    arr = case.make()
    old = jdt.get_default_dtype()
    jdt.set_default_dtype(getattr(jdt, case.default_dtype))
    try:
        with ts.printoptions(**case.opts):
            return ts.tensor_repr(
                None if case.meta else arr,
                shape=arr.shape,
                dtype=jdt.from_numpy_dtype(arr.dtype),
                device="meta" if case.meta else "cpu",
                requires_grad=case.requires_grad,
                grad_fn_name=case.grad_fn,
            )
    finally:
        jdt.set_default_dtype(old)


def torch_repr(case: Case) -> str:
    """torch's repr for the case, with 'torch.' -> 'jtorch.' (requires torch)."""
    arr = case.make()
    old = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, case.default_dtype))
    try:
        if case.meta:
            t = torch.empty(arr.shape, dtype=torch.from_numpy(arr).dtype, device="meta")
        else:
            t = torch.from_numpy(arr.copy())
        if case.requires_grad:
            t.requires_grad_()
        if case.grad_fn == "AddBackward0":
            t = t + 0
        with torch._tensor_str.printoptions(**case.opts):
            s = repr(t)
    finally:
        torch.set_default_dtype(old)
    return s.replace("torch.", "jtorch.")


def _load_expected() -> dict[str, str]:
    with open(EXPECTED_PATH) as fh:
        return json.load(fh)


def test_corpus_size_and_names_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) >= 60
    assert len(set(names)) == len(names)


def test_expected_json_covers_corpus() -> None:
    # guards against forgetting to regenerate the JSON after adding cases
    assert set(_load_expected()) == {c.name for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_repr_matches_torch(case: Case) -> None:
    expected = torch_repr(case) if torch is not None else _load_expected()[case.name]
    got = jtorch_repr(case)
    assert got == expected, f"\n--- got ---\n{got}\n--- expected ---\n{expected}"
    # printing must not leak option changes
    assert ts.get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3,
                                         linewidth=80, sci_mode=None)


def test_set_printoptions_and_restore() -> None:
    defaults = ts.get_printoptions()
    arr = np.arange(10, dtype=np.float32) * 1.123456
    kw = dict(shape=arr.shape, dtype=jdt.float32, device="cpu")
    try:
        ts.set_printoptions(**SHORT_OPTS)
        assert ts.get_printoptions() == dict(precision=2, threshold=5, edgeitems=3,
                                             linewidth=40, sci_mode=False)
        assert ts.tensor_repr(arr, **kw) == (
            "tensor([ 0.00,  1.12,  2.25,  ...,\n         7.86,  8.99, 10.11])")
    finally:
        ts.set_printoptions(profile="default")
    assert ts.get_printoptions() == defaults
    assert ts.tensor_repr(arr, **kw) == (
        "tensor([ 0.0000,  1.1235,  2.2469,  3.3704,  4.4938,  5.6173,  6.7407,  7.8642,\n"
        "         8.9876, 10.1111])")


def test_printoptions_context_manager_restores_on_error() -> None:
    before = ts.get_printoptions()
    with pytest.raises(RuntimeError):
        with ts.printoptions(precision=1, threshold=3):
            assert ts.get_printoptions()["precision"] == 1
            raise RuntimeError
    assert ts.get_printoptions() == before


def test_device_suffix() -> None:
    arr = np.array([1.0, 2.0], np.float32)
    assert ts.tensor_repr(arr, shape=(2,), dtype=jdt.float32, device="cuda:0") == \
        "tensor([1., 2.], device='cuda:0')"
    assert ts.tensor_repr(arr.astype(np.float64), shape=(2,), dtype=jdt.float64,
                          device="cuda:1", requires_grad=True) == \
        "tensor([1., 2.], device='cuda:1', dtype=jtorch.float64, requires_grad=True)"
    assert ts.tensor_repr(None, shape=(2, 3), dtype=jdt.int64, device="meta") == \
        "tensor(..., device='meta', size=(2, 3), dtype=jtorch.int64)"


def test_custom_prefix_and_values_str() -> None:
    arr = np.arange(30, dtype=np.float32) / 7
    s = ts.tensor_repr(arr, shape=arr.shape, dtype=jdt.float32, device="cpu",
                       prefix="Parameter(")
    assert s.startswith("Parameter([0.0000, ")
    assert "\n           " in s  # continuation lines align under the prefix
    assert ts.tensor_str_values(np.array([[1, 2], [3, 4]]), jdt.int64) == "[[1, 2],\n [3, 4]]"

