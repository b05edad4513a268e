"""jtorch.testing: assert_close's rules and messages (compared literally with torch.testing's, where
torch is installed), make_tensor's properties and errors, and what jtorch.testing.strategies reach."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch
from jtorch.testing import assert_close, make_tensor
from jtorch.testing import strategies as jst
from _torch_oracle import oracle_torch, type_name

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NAN, INF = float("nan"), float("inf")


def optional_torch():
    try:
        import torch
    except ImportError:  # torch is an optional oracle
        return None
    return torch


def outcome(fn, m) -> "tuple[str, str] | None":
    """(exception type, message as torch would print it) or None when fn(m) passes."""
    try:
        fn(m)
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type_name(e), str(e).replace("jtorch.tensor.Tensor", "torch.Tensor").replace("jtorch", "torch")
    return None


# (name, fn(module)): each runs module.testing.assert_close on inputs built with that module
CASES = [
    ("close", lambda m: m.testing.assert_close(m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.]))),
    ("2d", lambda m: m.testing.assert_close(m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3.5, 4.1]]))),
    ("ints", lambda m: m.testing.assert_close(m.tensor([1, 2, 300]), m.tensor([1, 5, 3]))),
    ("uint8", lambda m: m.testing.assert_close(m.tensor([1, 2], dtype=m.uint8), m.tensor([200, 2], dtype=m.uint8))),
    ("int8 extremes", lambda m: m.testing.assert_close(m.tensor([-128], dtype=m.int8), m.tensor([127], dtype=m.int8))),
    ("bools", lambda m: m.testing.assert_close(m.tensor([True, False]), m.tensor([True, True]))),
    ("0-dim", lambda m: m.testing.assert_close(m.tensor(1.), m.tensor(2.))),
    ("0-dim int", lambda m: m.testing.assert_close(m.tensor(1), m.tensor(2))),
    ("expected 0", lambda m: m.testing.assert_close(m.tensor([1., 0.]), m.tensor([1., 0.5]))),
    ("nan", lambda m: m.testing.assert_close(m.tensor([1., NAN]), m.tensor([1., NAN]))),
    ("nan equal", lambda m: m.testing.assert_close(m.tensor([1., NAN]), m.tensor([1., NAN]), equal_nan=True)),
    ("nan vs 1", lambda m: m.testing.assert_close(m.tensor([1., NAN]), m.tensor([1., 1.]))),
    ("inf", lambda m: m.testing.assert_close(m.tensor([1., INF]), m.tensor([1., 1.]))),
    ("complex", lambda m: m.testing.assert_close(m.tensor([1 + 1j, 2j]), m.tensor([1 + 1j, 3j]))),
    ("float16", lambda m: m.testing.assert_close(m.tensor([1., 2.], dtype=m.float16),
                                                 m.tensor([1., 2.01], dtype=m.float16))),
    ("float64 within", lambda m: m.testing.assert_close(m.tensor([1., 2.], dtype=m.float64),
                                                        m.tensor([1., 2.0000001], dtype=m.float64))),
    ("shape", lambda m: m.testing.assert_close(m.ones(2), m.ones(3))),
    ("dtype", lambda m: m.testing.assert_close(m.ones(2), m.ones(2, dtype=m.float64))),
    ("dtype unchecked", lambda m: m.testing.assert_close(m.ones(2), m.ones(2, dtype=m.float64), check_dtype=False)),
    ("dtype unchecked, values", lambda m: m.testing.assert_close(m.tensor([1, 2]), m.tensor([1., 2.5]),
                                                                 check_dtype=False)),
    ("device", lambda m: m.testing.assert_close(m.ones(2), m.ones(2, device="meta"))),
    ("meta", lambda m: m.testing.assert_close(m.ones(2, device="meta"), m.zeros(2, device="meta"))),
    ("stride", lambda m: m.testing.assert_close(m.ones(2, 3), m.ones(3, 2).t(), check_stride=True)),
    ("stride unchecked", lambda m: m.testing.assert_close(m.ones(2, 3), m.ones(3, 2).t())),
    ("rtol only", lambda m: m.testing.assert_close(m.ones(2), m.ones(2), rtol=1e-3)),
    ("atol only", lambda m: m.testing.assert_close(m.ones(2), m.ones(2), atol=1e-3)),
    ("tolerances", lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), rtol=0, atol=0.2)),
    ("zero tolerances", lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), rtol=0, atol=0)),
    ("msg", lambda m: m.testing.assert_close(m.ones(2), m.zeros(2), msg="custom")),
    ("msg callable", lambda m: m.testing.assert_close([m.ones(2), m.ones(2)], [m.ones(2), m.zeros(2)],
                                                      msg=lambda s: f"Header\n\n{s}\n\nFooter")),
    ("sequence", lambda m: m.testing.assert_close([m.ones(2), m.ones(2)], [m.ones(2), m.zeros(2)])),
    ("sequence length", lambda m: m.testing.assert_close([1, 2], [1, 2, 3])),
    ("tuple and list", lambda m: m.testing.assert_close((1, 2), [1, 2])),
    ("mapping", lambda m: m.testing.assert_close({"a": m.ones(2), "b": 1.0}, {"a": m.ones(2), "b": 1.5})),
    ("mapping keys", lambda m: m.testing.assert_close({"a": 1, "c": 2}, {"a": 1, "b": 2})),
    ("nested", lambda m: m.testing.assert_close({"a": [1, {"x": 2.}]}, {"a": [1, {"x": 2.5}]})),
    ("ints", lambda m: m.testing.assert_close(1, 2)),
    ("floats", lambda m: m.testing.assert_close(1.0, 1.1)),
    ("floats within", lambda m: m.testing.assert_close(1.0, 1.00000001)),
    ("int and float", lambda m: m.testing.assert_close(1, 1.0)),
    ("int and float unchecked", lambda m: m.testing.assert_close(1, 1.0, check_dtype=False)),
    ("complex numbers", lambda m: m.testing.assert_close(1j, 2j)),
    ("numpy scalars", lambda m: m.testing.assert_close(np.float32(1), np.float32(2))),
    ("numpy scalar and float", lambda m: m.testing.assert_close(np.float64(1), 2.0)),
    ("booleans", lambda m: m.testing.assert_close(True, False)),
    ("numpy bool", lambda m: m.testing.assert_close(np.bool_(True), False)),
    ("None", lambda m: m.testing.assert_close(None, 1)),
    ("None None", lambda m: m.testing.assert_close(None, None)),
    ("strings", lambda m: m.testing.assert_close("a", "a")),
    ("tensor and list", lambda m: m.testing.assert_close(m.ones(2), [1., 1.])),
    ("tensor and number", lambda m: m.testing.assert_close(m.tensor(1.), 1.)),
    ("ndarrays", lambda m: m.testing.assert_close(np.array([1., 2.]), np.array([1., 3.]))),
    ("float32 ndarrays", lambda m: m.testing.assert_close(np.array([1., 2.], np.float32),
                                                          np.array([1., 3.], np.float32))),
    ("ndarray and tensor", lambda m: m.testing.assert_close(np.array([1., 2.]), m.tensor([1., 2.]))),
    ("msg ignored for tolerances", lambda m: m.testing.assert_close([m.ones(1), m.ones(1)],
                                                                    [m.zeros(1), m.ones(1)], rtol=1, msg="m")),
    ("empty", lambda m: m.testing.assert_close(m.ones(0), m.ones(0))),
    ("index in 3 dims", lambda m: m.testing.assert_close(m.zeros(2, 3, 4), m.arange(24.).reshape(2, 3, 4) * 0.001)),
    ("int64 extremes", lambda m: m.testing.assert_close(m.tensor([-2 ** 62]), m.tensor([2 ** 62]))),
    ("no subclasses", lambda m: m.testing.assert_close(m.ones(1), m.ones(1), allow_subclasses=False)),
]


@pytest.mark.parametrize("name, fn", CASES, ids=[c[0] for c in CASES])
def test_assert_close_like_torch(name, fn):
    torch = oracle_torch()
    assert outcome(fn, jtorch) == outcome(fn, torch)


def test_assert_close_message_text():
    """The documented format, literally (also where torch is not installed)."""
    with pytest.raises(AssertionError) as e:
        assert_close(jtorch.tensor([1., 2., 3.]), jtorch.tensor([1., 2.5, 3.]))
    assert str(e.value) == ("Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
                            "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                            "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)")


@SETTINGS
@given(data=st.data())
def test_assert_close_random_pairs_like_torch(data):
    """Random tensors, their perturbations and other dtypes: torch's verdict and text, or (without
    torch) pass exactly when every element is close by the default tolerances."""
    actual = data.draw(jst.tensors(dtype=jst.dtypes(), shape=jst.shapes(max_dims=3, max_side=4),
                                   low=-3, high=3, specials=True), label="actual")
    kind = data.draw(st.sampled_from(["same", "perturbed", "other dtype"]), label="kind")
    values = np.array(actual.numpy())
    if kind == "perturbed" and values.size:
        values.reshape(-1)[data.draw(st.integers(0, values.size - 1), label="where")] += values.dtype.type(1)
    expected = jtorch.from_numpy(values)
    if kind == "other dtype":
        expected = expected.to(data.draw(jst.dtypes(), label="dtype"))
    equal_nan = data.draw(st.booleans(), label="equal_nan")
    mine = outcome(lambda m: assert_close(actual, expected, equal_nan=equal_nan), None)
    torch = optional_torch()
    if torch is not None:
        ta, te = (torch.from_numpy(np.array(t.numpy())) for t in (actual, expected))
        assert mine == outcome(lambda m: torch.testing.assert_close(ta, te, equal_nan=equal_nan), None)
    elif actual.dtype is expected.dtype:
        rtol, atol = jtorch.testing.default_tolerances(actual)
        close = np.isclose(actual.numpy(), expected.numpy(), rtol=rtol, atol=atol, equal_nan=equal_nan).all()
        assert (mine is None) == bool(close)


# ---- make_tensor ------------------------------------------------------------------------------------
DEFAULT_RANGES = {jtorch.bool: (0, 2), jtorch.uint8: (0, 10)}


@SETTINGS
@given(dtype=jst.dtypes(), shape=jst.shapes(max_dims=3, max_side=4), noncontiguous=st.booleans(),
       exclude_zero=st.booleans(), bounds=st.sampled_from([None, (-2, 3), (0, 1), (-1000, 1000)]))
def test_make_tensor(dtype, shape, noncontiguous, exclude_zero, bounds):
    low, high = bounds if bounds else (None, None)
    t = make_tensor(shape, dtype=dtype, device="cpu", low=low, high=high, noncontiguous=noncontiguous,
                    exclude_zero=exclude_zero)
    assert t.dtype is dtype and tuple(t.shape) == shape and t.device.type == "cpu"
    assert t.is_contiguous() == (not noncontiguous or t.numel() <= 1)
    v = np.array(t.numpy())
    info = jtorch.iinfo(dtype) if not (dtype.is_floating_point or dtype.is_complex) and dtype is not jtorch.bool \
        else None
    lo, hi = bounds if bounds else DEFAULT_RANGES.get(dtype, (-9, 10) if info else (-9, 9))
    if dtype is jtorch.bool:
        lo, hi = max(lo, 0), min(hi, 2)
    elif info is not None:
        lo, hi = max(lo, info.min), min(hi, info.max + 1)
    parts = [v.real, v.imag] if dtype.is_complex else [v.astype(np.float64)]
    for p in parts:
        zeros_replaced = exclude_zero and lo <= 0  # zeros become 1 or tiny, which may leave [low, high)
        assert np.all(p >= lo) and (zeros_replaced or np.all(p < hi) or dtype is jtorch.float16), (p, lo, hi)
    if exclude_zero:
        assert not np.any(v == 0)


def test_make_tensor_shapes_and_formats():
    assert make_tensor(2, 3, dtype=jtorch.float32, device="cpu").shape == (2, 3)
    assert make_tensor([2, 3], dtype=jtorch.float32, device="cpu").shape == (2, 3)
    assert make_tensor((), dtype=jtorch.int64, device="cpu").shape == ()
    t = make_tensor(2, 3, 4, 5, dtype=jtorch.float32, device="cpu", memory_format=jtorch.channels_last)
    assert t.is_contiguous(memory_format=jtorch.channels_last) and not t.is_contiguous()
    assert make_tensor(3, dtype=jtorch.float32, device="cpu", requires_grad=True).requires_grad
    assert make_tensor(3, dtype=jtorch.float32, device="meta").is_meta
    big = make_tensor(1000, dtype=jtorch.float64, device="cpu", low=-1e308, high=1e308)  # width past finfo.max
    assert np.isfinite(big.numpy()).all()


@pytest.mark.parametrize("fn, exc", [
    (lambda m: m.testing.make_tensor(2, dtype=m.int32, device="cpu", requires_grad=True), ValueError),
    (lambda m: m.testing.make_tensor(2, dtype=m.float32, device="cpu", low=3, high=1), ValueError),
    (lambda m: m.testing.make_tensor(2, dtype=m.float32, device="cpu", low=float("nan")), ValueError),
    (lambda m: m.testing.make_tensor(2, dtype=m.int8, device="cpu", low=200, high=300), ValueError),
    (lambda m: m.testing.make_tensor(2, 2, dtype=m.float32, device="cpu", noncontiguous=True,
                                     memory_format=m.contiguous_format), ValueError),
])
def test_make_tensor_errors(fn, exc):
    with pytest.raises(exc):
        fn(jtorch)
    torch = optional_torch()
    if torch is not None:
        import torch.testing  # noqa: F401
        assert outcome(fn, jtorch) == outcome(fn, torch)


def test_make_tensor_low_equals_high_warns():
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        make_tensor(2, dtype=jtorch.float32, device="cpu", low=1, high=1)


# ---- the strategies' reach --------------------------------------------------------------------------
def draws(strategy: st.SearchStrategy, n: int = 300) -> list:
    """n derandomized examples of a strategy (what a property test with the house settings sees)."""
    seen: list = []

    @settings(max_examples=n, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        seen.append(x)

    collect()
    return seen


def test_strategies_reach_shapes_dtypes_layouts():
    shapes = draws(jst.shapes())
    assert () in shapes and any(0 in s for s in shapes) and any(1 in s for s in shapes)
    assert max(len(s) for s in shapes) == 4 and max(max(s, default=0) for s in shapes) == 5
    assert set(draws(jst.dtypes(), 200)) == set(jst.ALL_DTYPES)
    assert set(draws(jst.dtypes(bool=False, complex=False), 100)) == set(jst.INTEGRAL + jst.FLOATING)
    assert set(draws(jst.layouts(), 50)) == set(jst.LAYOUTS)
    pairs = draws(jst.broadcastable_shapes(2))
    for (a, b), result in pairs:
        assert np.broadcast_shapes(a, b) == tuple(result)
    assert any(a != b for (a, b), _ in pairs) and any(len(a) != len(b) for (a, b), _ in pairs)
    assert any(() in shapes for shapes, _ in pairs)


def test_strategies_tensors_are_non_contiguous():
    ts = draws(jst.tensors(shape=jst.shapes(min_dims=2, max_dims=3, min_side=2, max_side=3)), 120)
    strides = {layout: [] for layout in jst.LAYOUTS}
    for t in ts:
        s = t.stride()
        kind = ("expanded" if 0 in s else "transposed" if s[-1] != 1 and s[-2] == 1 else
                "strided" if t.storage_offset() == 1 else "contiguous")
        strides[kind].append(t)
        np.testing.assert_array_equal(t.numpy(), np.array(t.numpy()))
    assert all(strides[k] for k in jst.LAYOUTS), {k: len(v) for k, v in strides.items()}
    assert all(not t.is_contiguous() for k in ("transposed", "strided", "expanded") for t in strides[k])


@pytest.mark.parametrize("dtype", jst.ALL_DTYPES, ids=str)
def test_strategies_scalars(dtype):
    for x in draws(jst.scalars(dtype), 30):
        if dtype is jtorch.bool:
            assert type(x) is bool
        elif dtype.is_complex:
            assert type(x) is complex
        elif dtype.is_floating_point:
            assert type(x) is float and np.isfinite(x) and np.float16(x) == x if dtype is jtorch.float16 else True
        else:
            info = jtorch.iinfo(dtype)
            assert type(x) is int and info.min <= x <= info.max


def test_testing_imports_without_hypothesis():
    """hypothesis is optional: jtorch.testing works without it, jtorch.testing.strategies needs it."""
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "import jtorch, jtorch.testing\n"
            "jtorch.testing.assert_close(jtorch.ones(2), jtorch.ones(2))\n"
            "try:\n    import jtorch.testing.strategies\nexcept ImportError:\n    print('needs hypothesis')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "needs hypothesis"


def test_jtorch_testing_is_an_attribute():
    import jtorch as j
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert j.testing.assert_close is assert_close and j.testing.make_tensor is make_tensor
