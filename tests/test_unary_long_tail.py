"""The elementwise long tail against torch 2.13 (recorded) and NumPy: acosh / asinh / atanh and the
trigonometric aliases (arccos ... arctanh, absolute, negative, fix), sgn, signbit, isposinf / isneginf,
isreal, deg2rad / rad2deg, angle, square, positive and the bitwise shifts: result dtypes for every dtype,
values, the in-place and out= forms, torch's error texts, meta tensors, autograd nodes and gradients.

Values are compared on a few dtypes only (each dtype compiles its own loop); which dtypes an operator
takes is compared on empty tensors, which compile nothing.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jtorch
from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()

DTYPES = ("bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128")
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

UNARY = ("acosh", "asinh", "atanh", "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh", "absolute",
         "negative", "fix", "square", "sgn", "signbit", "isposinf", "isneginf", "isreal", "deg2rad", "rad2deg",
         "angle", "positive")
ALIASES = {"arccos": "acos", "arcsin": "asin", "arctan": "atan", "arccosh": "acosh", "arcsinh": "asinh",
           "arctanh": "atanh", "absolute": "abs", "negative": "neg", "fix": "trunc"}
INPLACE = ("acosh_", "asinh_", "atanh_", "arccos_", "arcsin_", "arctan_", "arccosh_", "arcsinh_", "arctanh_",
           "negative_", "fix_", "square_", "deg2rad_", "rad2deg_")
INPLACE_METHOD_ONLY = ("absolute_", "sgn_")
OUT = ("acosh", "asinh", "atanh", "arccos", "arccosh", "absolute", "negative", "fix", "square", "sgn", "signbit",
       "isposinf", "isneginf", "deg2rad", "rad2deg", "angle")

FLOATS = [-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 1.5, 3.0, float("inf"), float("-inf"), float("nan")]
INTS = [-3, -1, 0, 1, 2, 5]
COMPLEX = [1 + 2j, -0.5 + 0.1j, 0j, 3 - 1j, -2 - 0.5j]


def values(dtype: str) -> np.ndarray:
    if dtype == "bool":
        return np.array([True, False, True])
    if dtype.startswith("complex"):
        return np.array(COMPLEX, dtype)
    if dtype.startswith("float"):
        return np.array(FLOATS, dtype)
    return np.array([v for v in INTS if dtype != "uint8" or v >= 0], dtype)


def outcome(fn, lib):
    """fn(lib) as ('ok', dtype, shape, values) or (exception type, first line of its text)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type_name(e), str(e).split("\n")[0]
    if isinstance(r, (bool, int, float)):
        return "ok", r
    return "ok", str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.detach().numpy())


def assert_same(got, want, context=""):
    if not (got[0] == want[0] == "ok" and len(got) == len(want) == 4):
        assert got == want, context
        return
    assert got[:3] == want[:3], (got, want, context)
    a, b = got[3], want[3]
    if True:
        if a.dtype.kind in "biu":
            np.testing.assert_array_equal(a, b, err_msg=context)
        else:
            rtol = {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6}.get(str(a.dtype), 1e-13)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-30, equal_nan=True, err_msg=context)


def same_as_torch(fn, context=""):
    assert_same(outcome(fn, jtorch), outcome(fn, torch), context)


# ---- which dtypes each operator takes, and its result dtype (empty tensors: nothing compiles) ---------------
@pytest.mark.parametrize("name", UNARY)
def test_dtype_outcomes_match_torch(name):
    for d in DTYPES:
        same_as_torch(lambda T: getattr(T, name)(T.zeros(0, dtype=getattr(T, d))), f"{name} {d}")


@pytest.mark.parametrize("name", ("bitwise_left_shift", "bitwise_right_shift"))
def test_shift_dtype_outcomes_match_torch(name):
    for d in DTYPES:
        same_as_torch(lambda T: getattr(T, name)(T.zeros(0, dtype=getattr(T, d)), T.zeros(0, dtype=getattr(T, d))),
                      f"{name} {d}")
        same_as_torch(lambda T: getattr(T, name)(T.zeros(0, dtype=getattr(T, d)), 1), f"{name} {d} scalar")


# ---- values ---------------------------------------------------------------------------------------------
VALUE_DTYPES = ("int64", "float32", "float64", "complex64")


@pytest.mark.parametrize("name", UNARY)
def test_values_match_torch(name):
    for d in VALUE_DTYPES:
        x = values(d)
        same_as_torch(lambda T: getattr(T, name)(T.tensor(x)), f"{name} {d}")


def test_values_of_bool_and_small_integer_inputs():
    for name in ("sgn", "signbit", "square", "angle", "isposinf", "deg2rad", "isreal"):
        for d in ("bool", "int8"):
            same_as_torch(lambda T: getattr(T, name)(T.tensor(values(d))), f"{name} {d}")


def test_float16_values():
    x = values("float16")
    for name in ("asinh", "acosh", "atanh", "sgn", "signbit", "deg2rad", "rad2deg", "angle", "square"):
        same_as_torch(lambda T: getattr(T, name)(T.tensor(x)), name)


@pytest.mark.parametrize("alias, name", sorted(ALIASES.items()))
def test_aliases_compute_their_operator(alias, name):
    x = jtorch.tensor([0.3, -0.7, 2.5])
    np.testing.assert_array_equal(getattr(jtorch, alias)(x).numpy(), getattr(jtorch, name)(x).numpy())
    np.testing.assert_array_equal(getattr(x, alias)().numpy(), getattr(x, name)().numpy())


@pytest.mark.parametrize("name", INPLACE + INPLACE_METHOD_ONLY)
def test_inplace_matches_torch(name):
    for d in ("float32", "int64"):
        x = values(d)

        def call(T):
            t = T.tensor(x)
            fn = getattr(t, name)
            r = fn() if name in INPLACE_METHOD_ONLY else getattr(T, name)(t)
            if T is jtorch:
                assert r is t
            return t
        same_as_torch(call, f"{name} {d}")


def test_inplace_method_only_forms_have_no_function():
    for name in INPLACE_METHOD_ONLY:
        assert hasattr(jtorch, name) == hasattr(torch, name), name


@pytest.mark.parametrize("name", OUT)
def test_out_matches_torch(name):
    for d, out_d in (("float32", "float32"), ("float32", "float64"), ("int64", "float32"), ("int64", "int64"),
                     ("float32", "bool"), ("complex64", "float32"), ("float64", "int32")):
        x = values(d)

        def call(T):
            out = T.empty(0, dtype=getattr(T, out_d))
            r = getattr(T, name)(T.tensor(x), out=out)
            if T is jtorch:
                assert r is out
            return out
        same_as_torch(call, f"{name} {d} -> {out_d}")


def test_square_promotes_bool_to_int64_and_positive_is_self():
    for T in (jtorch,):
        b = T.tensor([True, False])
        assert T.square(b).dtype is T.int64
        x = T.tensor([1.0, -2.0])
        assert T.positive(x) is x and +x is x
    same_as_torch(lambda T: T.positive(T.tensor([True])))
    same_as_torch(lambda T: T.tensor([1.0, 2.0]).square_())
    same_as_torch(lambda T: T.tensor([1, 2]).square_())


def test_error_texts_match_torch():
    for call in (
        lambda T: T.signbit(T.tensor([1j])),
        lambda T: T.isposinf(T.tensor([1j])),
        lambda T: T.isneginf(T.tensor([1.0]), out=T.empty(1)),
        lambda T: T.rad2deg(T.tensor([1j])),
        lambda T: T.deg2rad(T.tensor([1j]), out=T.empty(1, dtype=T.complex64)),
        lambda T: T.tensor([1]).rad2deg_(),
        lambda T: T.tensor([1j]).deg2rad_(),
        lambda T: T.tensor([1j]).absolute_(),
        lambda T: T.negative(T.tensor([True])),
        lambda T: T.fix(T.tensor([True])),
        lambda T: T.fix(T.tensor([1j])),
        lambda T: T.acosh(T.tensor([1.0]), out=T.empty(1, dtype=T.int64)),
        lambda T: T.tensor([1]).acosh_(),
        lambda T: T.angle(T.tensor([1j]), out=T.empty(1, dtype=T.int64)),
        lambda T: T.sgn(T.tensor([1.0]), out=T.empty(1, dtype=T.int64)),
        lambda T: T.bitwise_left_shift(T.tensor([1.0]), 1),
        lambda T: T.bitwise_right_shift(T.tensor([True]), T.tensor([True])),
        lambda T: T.tensor([1], dtype=T.int32).bitwise_left_shift_(T.tensor([1])),
    ):
        same_as_torch(call)


# ---- shifts: torch's rules for shifts by a negative amount or by the width or more -----------------------
@pytest.mark.parametrize("d", ("uint8", "int8", "int16", "int32", "int64"))
def test_shift_values_match_torch(d):
    bits = np.dtype(d).itemsize * 8
    info = np.iinfo(d)
    a = np.array([1, 3, info.max, info.min, 100 % (info.max + 1), 5, 7, info.max // 3], d)
    b = np.array([1, 2, bits - 1, 1, bits, bits + 3, 0, 3], d)
    if info.min < 0:
        b[5] = -1
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        same_as_torch(lambda T: getattr(T, name)(T.tensor(a), T.tensor(b)), f"{name} {d}")
        same_as_torch(lambda T: getattr(T.tensor(a), name)(2), f"{name} {d} scalar")


def test_shift_forms_match_torch():
    a, b = np.array([1, -8, 12], np.int64), np.array([2, 1, 65], np.int64)
    same_as_torch(lambda T: T.bitwise_left_shift(3, T.tensor(b)))
    same_as_torch(lambda T: T.bitwise_right_shift(-64, T.tensor(b)))
    same_as_torch(lambda T: T.tensor(a).bitwise_left_shift_(T.tensor(b)))
    same_as_torch(lambda T: T.tensor(a).bitwise_right_shift_(1))
    same_as_torch(lambda T: T.bitwise_left_shift(T.tensor(a), T.tensor(b), out=T.empty(0, dtype=T.int64)))
    same_as_torch(lambda T: T.bitwise_left_shift(T.tensor([True, False]), 3))
    same_as_torch(lambda T: T.bitwise_left_shift(T.tensor(a, dtype=T.int8), T.tensor([[1], [2]], dtype=T.int16)))


def _shift_reference(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """torch's c10 lshift / rshift in NumPy."""
    bits = a.dtype.itemsize * 8
    bad = (b < 0) | (b >= bits)
    safe = np.where(bad, 0, b).astype(a.dtype)
    with np.errstate(over="ignore"):
        if left:
            return np.where(bad, 0, np.left_shift(a, safe)).astype(a.dtype)
        fill = np.right_shift(a, bits - 1) if a.dtype.kind == "i" else np.zeros_like(a)
        return np.where(bad, fill, np.right_shift(a, safe)).astype(a.dtype)


@SETTINGS
@given(data=st.data(), dtype=st.sampled_from([np.int8, np.int32, np.int64, np.uint8]), left=st.booleans())
def test_shifts_against_numpy(data, dtype, left):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
    a = data.draw(hnp.arrays(dtype, shape))
    b = data.draw(hnp.arrays(dtype, hnp.broadcastable_shapes(shape, max_dims=3, max_side=4),
                             elements=st.integers(-3 if np.dtype(dtype).kind == "i" else 0, 70)))
    got = (jtorch.bitwise_left_shift if left else jtorch.bitwise_right_shift)(jtorch.tensor(a), jtorch.tensor(b))
    a2, b2 = np.broadcast_arrays(a, b)
    np.testing.assert_array_equal(got.numpy(), _shift_reference(a2, b2, left))


@SETTINGS
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                    elements=st.floats(-1e6, 1e6)),
       which=st.sampled_from(["asinh", "acosh", "atanh", "deg2rad", "rad2deg", "signbit", "angle"]))
def test_float64_values_against_numpy(x, which):
    t = jtorch.tensor(x)
    with np.errstate(all="ignore"):
        ref = {"asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "deg2rad": np.deg2rad,
               "rad2deg": np.rad2deg, "signbit": np.signbit, "angle": np.angle}[which](x)
    got = getattr(jtorch, which)(t).numpy()
    assert got.dtype == np.asarray(ref).dtype and got.shape == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-14, equal_nan=True)


def test_non_contiguous_inputs():
    base = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 + 1.5
    same_as_torch(lambda T: T.acosh(T.tensor(base).t()))
    same_as_torch(lambda T: T.signbit(T.tensor(base - 2)[:, ::2]))
    same_as_torch(lambda T: T.tensor(base).t().deg2rad_())


# ---- meta tensors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNARY)
def test_meta(name):
    for d in ("int64", "float32", "complex64"):
        def call(T):
            r = getattr(T, name)(T.empty(2, 3, dtype=getattr(T, d), device="meta"))
            return str(r.dtype), tuple(r.shape), str(r.device)
        try:
            want = ("ok",) + call(torch)
        except Exception as e:  # noqa: BLE001
            want = (type_name(e), str(e).split("\n")[0])
        try:
            got = ("ok",) + call(jtorch)
        except Exception as e:  # noqa: BLE001
            got = (type(e).__name__, str(e).split("\n")[0])
        assert got[0] == want[0] and (got[0] != "ok" or (got[1].split(".")[-1], got[2:]) ==
                                      (want[1].split(".")[-1], want[2:])), (name, d, got, want)


# ---- autograd -------------------------------------------------------------------------------------------
GRAD = {"acosh": [1.5, 2.0, 4.0], "asinh": [-1.5, 0.3, 2.0], "atanh": [-0.5, 0.1, 0.7],
        "arccosh": [1.5, 2.0, 4.0], "arctan": [-1.5, 0.3, 2.0], "sgn": [-1.5, 0.3, 2.0], "deg2rad": [-1.5, 0.3, 2.0],
        "rad2deg": [-1.5, 0.3, 2.0], "angle": [-1.5, 0.3, 2.0], "square": [-1.5, 0.3, 2.0],
        "negative": [-1.5, 0.3, 2.0], "fix": [-1.5, 0.3, 2.0], "absolute": [-1.5, 0.3, 2.0],
        "positive": [-1.5, 0.3, 2.0]}


@pytest.mark.parametrize("name", sorted(GRAD))
def test_gradients_and_nodes_match_torch(name):
    x, w = np.array(GRAD[name]), np.array([0.5, -2.0, 1.25])

    def run(T):
        t = T.tensor(x, requires_grad=True)
        y = getattr(T, name)(t)
        node = y.grad_fn.name() if y.grad_fn is not None else None
        (g,) = T.autograd.grad((y * T.tensor(w)).sum(), t)
        return node, g.numpy(force=True)  # torch's sgn of real x: a ZeroTensor

    (jn, jg), (tn, tg) = run(jtorch), run(torch)
    assert jn == tn
    np.testing.assert_allclose(jg, tg, rtol=1e-13)


@pytest.mark.parametrize("name", ["acosh", "asinh", "atanh", "deg2rad", "rad2deg", "square", "angle", "sgn"])
def test_gradcheck(name):
    x = jtorch.tensor(GRAD.get(name, [-1.5, 0.3, 2.0]), dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(getattr(jtorch, name), (x,))
    assert jtorch.autograd.gradgradcheck(getattr(jtorch, name), (x,))


def test_inplace_inverse_hyperbolic_has_no_derivative():
    for name in ("acosh_", "asinh_", "atanh_"):
        def run(T):
            x = T.tensor([1.5, 2.0], requires_grad=True)
            y = x * 1
            getattr(y, name)()
            try:
                y.sum().backward()
            except Exception as e:  # noqa: BLE001
                return type_name(e), str(e).split("\n")[0]
            return "ok", None
        assert run(jtorch) == run(torch), name


def test_bool_results_carry_no_history():
    x = jtorch.tensor([1.0, -2.0], requires_grad=True)
    for name in ("signbit", "isposinf", "isneginf", "isreal"):
        r = getattr(jtorch, name)(x)
        assert r.grad_fn is None and not r.requires_grad, name
