"""Binary and ternary arithmetic operators (add, sub, mul, div and its rounding modes, floor_divide,
remainder, fmod, pow, atan2, hypot, lerp, addcmul, addcdiv, bitwise_and/or/xor) against NumPy
references (and torch when installed): every dtype PyTorch's CPU kernels take, broadcastable shapes
with 0-dim and empty tensors, non-contiguous inputs, Python scalars on either side, out= and
in-place variants, meta tensors, the parallel path, and PyTorch's error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
from _elementwise_support import (
    ALL, COMPLEX, FLOATS, INTEGRAL, INTS, REAL, Case, assert_close, check_against_numpy, check_meta,
    check_out_and_inplace, compute_dtype, ndtype, np_errstate, random_values, ref_lerp, ref_pow,
    ref_trunc_div, tensor, to_numpy,
)
from _torch_oracle import oracle_torch, type_name

NUMERIC = INTS + FLOATS + COMPLEX            # no bool
INTS_FLOATS = INTS + FLOATS                  # real, no bool
INT_DIVISOR = {1: dict(nonzero="integral")}  # integer division by zero raises (tested below)

CASES = [
    Case("add", lambda a, b: a + 2 * b, kwargs=dict(alpha=2)),
    Case("sub", lambda a, b: a - 2 * b, kwargs=dict(alpha=2), dtypes=NUMERIC),
    Case("mul", lambda a, b: a * b),
    Case("div", lambda a, b: a / b, flavour="float", values={"all": dict(specials=True)}),
    Case("div_trunc", ref_trunc_div, fn="div", kwargs=dict(rounding_mode="trunc"), dtypes=INTS_FLOATS,
         values=INT_DIVISOR),
    Case("div_floor", np.floor_divide, fn="div", kwargs=dict(rounding_mode="floor"), dtypes=INTS_FLOATS,
         values=INT_DIVISOR),
    Case("floor_divide", np.floor_divide, dtypes=INTS_FLOATS, values=INT_DIVISOR),
    Case("remainder", np.remainder, dtypes=INTS_FLOATS, values={1: dict(nonzero="integral", specials=True)}),
    Case("fmod", np.fmod, dtypes=INTS_FLOATS, values={1: dict(nonzero="integral", specials=True)}),
    Case("pow", ref_pow, dtypes=NUMERIC, values={0: dict(low=-4, high=4), 1: dict(low=-2, high=5)}),
    Case("atan2", np.arctan2, flavour="float", dtypes=REAL, values={"all": dict(specials=True)}),
    Case("hypot", np.hypot, dtypes=FLOATS, values={"all": dict(specials=True)}),
    Case("lerp", lambda a, b: ref_lerp(a, b, 0.3), args=(0.3,), dtypes=FLOATS + COMPLEX, mixed=False),
    Case("lerp_big_weight", lambda a, b: ref_lerp(a, b, 1.25), fn="lerp", args=(1.25,), dtypes=FLOATS + COMPLEX,
         mixed=False),
    Case("lerp_tensor", ref_lerp, fn="lerp", arity=3, dtypes=FLOATS + COMPLEX, mixed=False, exact_out=True,
         values={2: dict(low=-1, high=1.5)}),
    Case("addcmul", lambda a, b, c: a + 2 * b * c, kwargs=dict(value=2), arity=3, dtypes=NUMERIC),
    Case("addcdiv", lambda a, b, c: a + 0.5 * b / c, kwargs=dict(value=0.5), arity=3, dtypes=FLOATS + COMPLEX,
         values={2: dict(nonzero=True)}),
    Case("bitwise_and", np.bitwise_and, dtypes=INTEGRAL),
    Case("bitwise_or", np.bitwise_or, dtypes=INTEGRAL),
    Case("bitwise_xor", np.bitwise_xor, dtypes=INTEGRAL),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=8, deadline=None, derandomize=True)
@given(data=st.data())
def test_matches_numpy(case: Case, data) -> None:
    check_against_numpy(case, data)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=st.data())
def test_out_and_inplace(case: Case, data) -> None:
    check_out_and_inplace(case, data)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_meta_tensors(case: Case, data) -> None:
    check_meta(case, data)


# ---- Python scalars, on either side -----------------------------------------------------------------
SCALAR_OPS = {
    # name: (call(tensor, scalar), reflected call(scalar, tensor) or None, reference, flavour, kernel dtypes)
    "add": (lambda t, s: t + s, lambda s, t: s + t, np.add, "binary", ALL),
    "sub": (lambda t, s: t - s, lambda s, t: s - t, np.subtract, "binary", NUMERIC),
    "mul": (lambda t, s: t * s, lambda s, t: s * t, np.multiply, "binary", ALL),
    "div": (lambda t, s: t / s, lambda s, t: s / t, np.true_divide, "float", ALL),
    "floor_divide": (lambda t, s: t // s, lambda s, t: s // t, np.floor_divide, "binary", INTS_FLOATS),
    "remainder": (lambda t, s: t % s, lambda s, t: s % t, np.remainder, "binary", INTS_FLOATS),
    "fmod": (lambda t, s: jtorch.fmod(t, s), None, np.fmod, "binary", INTS_FLOATS),
    "pow": (lambda t, s: t ** s, lambda s, t: s ** t, ref_pow, "binary", NUMERIC),
    "bitwise_and": (lambda t, s: t & s, lambda s, t: s & t, np.bitwise_and, "binary", INTEGRAL),
    "bitwise_xor": (lambda t, s: t ^ s, lambda s, t: s ^ t, np.bitwise_xor, "binary", INTEGRAL),
}


def _scalar_strategy(kind: str) -> st.SearchStrategy:
    return {"bool": st.booleans(), "int": st.integers(1, 5), "float": st.sampled_from([0.5, 2.0, -1.5, 3.25]),
            "complex": st.sampled_from([1 + 1j, -0.5 + 2j])}[kind]


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(data=st.data())
def test_python_scalars(name: str, data) -> None:
    call, rcall, ref, flavour, dtypes = SCALAR_OPS[name]
    kinds = ["bool", "int", "float", "complex"]
    d = data.draw(st.sampled_from(list(dtypes)), label="dtype")
    kind = data.draw(st.sampled_from(kinds), label="scalar kind")
    value = data.draw(_scalar_strategy(kind), label="scalar")
    if name == "sub" and kind == "bool":
        return  # an error, tested below
    if value is False and name not in ("add", "mul", "bitwise_and", "bitwise_xor"):
        value = True  # no integer division by zero, no complex 0 ** 0
    reflected = rcall is not None and data.draw(st.booleans(), label="reflected")
    shape = data.draw(st.sampled_from([(), (3,), (2, 3)]), label="shape")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    a = random_values(rng, d, shape, low=1 if name in ("pow",) or reflected else -5, high=5,
                      nonzero="integral")
    t, a = tensor(a, data.draw(st.sampled_from(["contiguous", "transposed"]), label="layout"))
    common = jtorch.result_type(t, value)
    if flavour == "float" and not (common.is_floating_point or common.is_complex):
        common = jtorch.get_default_dtype()
    if ndtype(common) not in dtypes or (name == "pow" and not reflected and kind in ("int", "bool")
                                        and value < 0):
        return  # error cases are tested below
    r = rcall(value, t) if reflected else call(t, value)
    assert r.dtype is common, (r.dtype, common)
    cd = compute_dtype(ndtype(common))
    with np_errstate(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, s = a.astype(cd), np.array(value).astype(cd)  # a wrapped number is converted like a C cast
        expected = (ref(s, x) if reflected else ref(x, s)).astype(ndtype(common))
    assert_close(to_numpy(r), np.asarray(expected).reshape(shape), (name, value, reflected))


def test_reflected_operators_swap_the_operands() -> None:
    t = jtorch.tensor([1, 2, 4])
    assert (2 - t).tolist() == [1, 0, -2] and (2 ** t).tolist() == [2, 4, 16]
    assert (8 // t).tolist() == [8, 4, 2] and (7 % t).tolist() == [0, 1, 3]
    assert (2 / t).dtype is jtorch.float32 and (2 / t).tolist() == [2.0, 1.0, 0.5]
    assert (np.float32(2) - t).tolist() == [1, 0, -2]
    assert (2.5 ** jtorch.tensor([2])).dtype is jtorch.float32
    assert jtorch.pow(2, t).tolist() == [2, 4, 16] and jtorch.remainder(7, t).tolist() == [0, 1, 3]
    assert jtorch.bitwise_and(3, t).tolist() == [1, 2, 0]
    assert (2 ** jtorch.tensor([-1])).tolist() == [0]  # pow.Scalar goes through pow.Tensor_Tensor
    assert jtorch.rsub(t, 5, alpha=2).tolist() == [3, 1, -3]
    assert t.__rsub__("a") is NotImplemented
    with pytest.raises(TypeError):
        "a" - t


def test_inplace_dunders_write_into_self() -> None:
    t = jtorch.tensor([1.0, 2.0, 4.0])
    u = t
    t += 1
    t -= 0.5
    t *= 2
    t /= 2
    t **= 2
    t //= 1
    t %= 5
    assert t is u and t.tolist() == [2.0, 1.0, 0.0] and t._version == 7
    i = jtorch.tensor([6, 5])
    i &= 3
    i |= 8
    i ^= 1
    assert i.tolist() == [11, 8]


def test_pow_special_exponents() -> None:
    f = jtorch.tensor([0.0, -2.0, 4.0, float("nan")])
    assert_close(to_numpy(f ** 0), np.ones(4, np.float32))        # fill_(1), even for NaN
    assert_close(to_numpy(f ** 1), to_numpy(f))
    assert_close(to_numpy(f ** 2), np.array([0, 4, 16, np.nan], np.float32))
    assert_close(to_numpy(f ** 3), np.array([0, -8, 64, np.nan], np.float32))
    assert_close(to_numpy(f ** 0.5), np.array([0, np.nan, 2, np.nan], np.float32))
    assert_close(to_numpy(f ** -1), np.array([np.inf, -0.5, 0.25, np.nan], np.float32))
    with np_errstate():
        assert_close(to_numpy(f ** -1.5), np.power(to_numpy(f), np.float32(-1.5)))
    b = jtorch.tensor([True, False])
    assert (b ** True).dtype is jtorch.bool and (b ** 2).dtype is jtorch.int64
    assert (jtorch.tensor([0j]) ** 0).tolist() == [1 + 0j]
    assert (jtorch.tensor([3], dtype=jtorch.int8) ** 7).tolist() == [-117]  # wraps like C
    assert jtorch.pow(jtorch.tensor([1, -1, 2, 0, -1]), jtorch.tensor([-1, -3, -2, -1, -2])).tolist() == [1, -1, 0, 0, 1]
    assert (jtorch.tensor([2, 3]) ** 2.0).dtype is jtorch.float32
    assert (jtorch.tensor([2, 3], dtype=jtorch.int32) ** jtorch.tensor(2.0, dtype=jtorch.float64)).dtype is jtorch.float64
    assert (jtorch.tensor([1.0]) ** (1 + 1j)).dtype is jtorch.complex64


def test_division_special_values() -> None:
    a = jtorch.tensor([-7.0, 7.0, 1.0, -1.0, 0.0, -0.5])
    b = jtorch.tensor([2.0, -2.0, 0.0, 0.0, 0.0, 1.0])
    assert_close(to_numpy(jtorch.div(a, b, rounding_mode="floor")), np.array([-4, -4, np.inf, -np.inf, np.nan, -1], np.float32))
    trunc = to_numpy(jtorch.div(a, b, rounding_mode="trunc"))
    assert_close(trunc, np.array([-3, -3, np.inf, -np.inf, np.nan, -0.0], np.float32))
    assert np.signbit(trunc[5])
    r = to_numpy(jtorch.remainder(jtorch.tensor([-7.0, 7.0, -0.0, 5.0, -5.0]), jtorch.tensor([2.0, -2.0, 2.0, np.inf, np.inf])))
    assert_close(r, np.array([1, -1, -0.0, 5, np.inf], np.float32))
    assert np.signbit(r[2])  # PyTorch keeps fmod's zero (Python's % would give +0.0)
    assert jtorch.fmod(jtorch.tensor([-7, 7]), jtorch.tensor([2, -2])).tolist() == [-1, 1]
    assert jtorch.remainder(jtorch.tensor([-7, 7]), jtorch.tensor([2, -2])).tolist() == [1, -1]
    i8 = jtorch.tensor([-128], dtype=jtorch.int8)
    assert jtorch.div(i8, jtorch.tensor([-1], dtype=jtorch.int8), rounding_mode="floor").tolist() == [-128]
    assert jtorch.div(jtorch.tensor([1, 2]), jtorch.tensor([0, 1])).tolist() == [float("inf"), 2.0]


@pytest.mark.parametrize("call", [
    lambda a, b: jtorch.div(a, b, rounding_mode="floor"), lambda a, b: jtorch.div(a, b, rounding_mode="trunc"),
    jtorch.floor_divide, jtorch.remainder, jtorch.fmod, lambda a, b: a // b, lambda a, b: a % b,
], ids=["div_floor", "div_trunc", "floor_divide", "remainder", "fmod", "floordiv", "mod"])
def test_integer_division_by_zero_raises(call) -> None:
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        call(jtorch.tensor([1, 2]), jtorch.tensor([0, 1]))


def test_parallel_path_matches_numpy() -> None:
    """Above PyTorch's grain size (32768 elements) the loops run in parallel chunks."""
    rng = np.random.default_rng(0)
    x = random_values(rng, np.float32, (300, 300))
    y = random_values(rng, np.float32, (300, 300), nonzero=True)
    a, b = jtorch.from_numpy(x.copy()), jtorch.from_numpy(y.copy())
    assert_close(to_numpy(jtorch.add(a, b, alpha=3)), x + 3 * y)
    assert_close(to_numpy(jtorch.remainder(a.t(), b)), np.remainder(x.T, y))  # strided, parallel
    i = jtorch.from_numpy(rng.integers(-9, 9, (300, 300)).astype(np.int32))
    j = jtorch.from_numpy(np.where(np.arange(90000).reshape(300, 300) == 89999, 0, 3).astype(np.int32))
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        jtorch.floor_divide(i, j)  # the zero is in the last chunk


def test_empty_and_zero_dim() -> None:
    e = jtorch.empty(0, 3)
    assert (e + jtorch.ones(3)).shape == (0, 3) and jtorch.pow(e, 2).shape == (0, 3)
    z = jtorch.tensor(3) * jtorch.tensor(2.5)
    assert z.shape == () and z.dtype is jtorch.float32 and z.item() == 7.5
    assert jtorch.addcmul(jtorch.tensor(1.0), jtorch.tensor(2.0), jtorch.tensor([3.0, 4.0])).tolist() == [7.0, 9.0]


def test_float16_computes_in_float32() -> None:
    x = np.array([1000.0, 0.1, 65000.0], np.float16)
    t = jtorch.from_numpy(x)
    r = jtorch.add(t, t, alpha=2)
    assert r.dtype is jtorch.float16
    with np_errstate():  # 65000 * 3 overflows float16, as in torch
        assert_close(to_numpy(r), (x.astype(np.float32) * 3).astype(np.float16))
    assert to_numpy(jtorch.lerp(t, t * 2, 0.5)).dtype == np.float16


# ---- error texts (checked against torch) --------------------------------------------------------------
def _raises(exc: type, message: str):
    import re

    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_error_texts() -> None:
    f, i, b = jtorch.tensor([1.0, 2.0]), jtorch.tensor([1, 2]), jtorch.tensor([True, False])
    with _raises(RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead."):
        b - b
    with _raises(RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                               "trying to invert a mask, use the `~` or `logical_not()` operator instead."):
        f - True
    with _raises(RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead."):
        True - b
    with _raises(RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."):
        jtorch.sub(i, i, alpha=1.5)
    with _raises(RuntimeError, "Boolean alpha only supported for Boolean results."):
        jtorch.add(f, f, alpha=True)
    with _raises(RuntimeError, "For non-complex input tensors, argument alpha must not be a complex number."):
        jtorch.add(f, f, alpha=1j)
    with _raises(RuntimeError, "value cannot be converted to type int8_t without overflow"):
        jtorch.add(jtorch.tensor([1], dtype=jtorch.int8), 1, alpha=1000)
    with _raises(RuntimeError, "value cannot be converted to type float without overflow"):
        jtorch.addcmul(f, f, f, value=1e300)
    with _raises(RuntimeError, "Integers to negative integer powers are not allowed."):
        i ** -1
    with _raises(RuntimeError, "Integers to negative integer powers are not allowed."):
        i.pow_(-2)
    with _raises(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'foo'"):
        jtorch.div(f, f, rounding_mode="foo")
    with _raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                               "dimension 0"):
        jtorch.add(jtorch.ones(3), jtorch.ones(4))
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        jtorch.add(f, f, out=jtorch.empty(2, dtype=jtorch.int64))
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        jtorch.tensor([1, 2]).div_(2)
    with _raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        jtorch.tensor([1, 2]).pow_(2.5)
    with _raises(RuntimeError, "output with shape [2] doesn't match the broadcast shape [2, 2]"):
        jtorch.ones(2).add_(jtorch.ones(2, 2))
    with _raises(RuntimeError, "expected dtype float for `end` but got dtype long int"):
        jtorch.lerp(f, i, 0.5)
    with _raises(RuntimeError, "expected dtype float for `weight` but got dtype double"):
        jtorch.lerp(f, f, jtorch.tensor([0.5, 1.0], dtype=jtorch.float64))
    with _raises(RuntimeError, "Found dtype Double but expected Float"):
        jtorch.lerp(f, f, f, out=jtorch.empty(2, dtype=jtorch.float64))
    with _raises(RuntimeError, "Integer division with addcdiv is no longer supported, and in a future  release "
                               "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                               "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
                               ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                               "float inputs. The future addcdiv behavior is just the latter implementation: "
                               "(input + value * tensor1 / tensor2), for all dtypes."):
        jtorch.addcdiv(f, i, i)


@pytest.mark.parametrize("call,message", [
    (lambda: jtorch.bitwise_and(jtorch.ones(2), jtorch.ones(2)), "\"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda: jtorch.tensor([1, 2]) | 2.5, "\"bitwise_or_cpu\" not implemented for 'Float'"),
    (lambda: jtorch.div(jtorch.tensor([True]), jtorch.tensor([True]), rounding_mode="trunc"),
     "\"div_trunc_cpu\" not implemented for 'Bool'"),
    (lambda: jtorch.tensor([1j]) // jtorch.tensor([1j]), "\"div_floor_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.tensor([True]) % jtorch.tensor([True]), "\"remainder_cpu\" not implemented for 'Bool'"),
    (lambda: jtorch.fmod(jtorch.tensor([1j]), 2), "\"fmod_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.tensor([True]) ** jtorch.tensor([True]), "\"pow\" not implemented for 'Bool'"),
    (lambda: jtorch.atan2(jtorch.tensor([1j]), jtorch.tensor([1j])), "\"atan2_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: jtorch.hypot(jtorch.tensor([1]), jtorch.tensor([1])), "\"hypot_cpu\" not implemented for 'Long'"),
    (lambda: jtorch.lerp(jtorch.tensor([1]), jtorch.tensor([1]), 1), "\"lerp_kernel_scalar\" not implemented for 'Long'"),
    (lambda: jtorch.addcmul(jtorch.tensor([True]), jtorch.tensor([True]), jtorch.tensor([True])),
     "\"addcmul_cpu_out\" not implemented for 'Bool'"),
], ids=range(11))
def test_dtype_not_implemented(call, message) -> None:
    with _raises(NotImplementedError, message):
        call()


def test_dtype_checks_skip_meta_tensors() -> None:
    """The dtype dispatch belongs to CPU kernels: on meta tensors PyTorch returns the metadata."""
    m = jtorch.empty(2, device="meta")
    assert jtorch.bitwise_and(m, m).dtype is jtorch.float32 and jtorch.hypot(m.long(), m.long()).shape == (2,)


def test_memory_overlap() -> None:
    x = jtorch.ones(4)
    with _raises(RuntimeError, "unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation."):
        jtorch.ones(1).expand(4).add_(x)
    with _raises(RuntimeError, "unsupported operation: some elements of the input tensor and the written-to tensor "
                               "refer to a single memory location. Please clone() the tensor before performing the "
                               "operation."):
        jtorch.mul(x[:3], 2, out=x[1:])


def test_aliases_and_variants_follow_torch() -> None:
    f = jtorch.tensor([1.0, 4.0])
    assert jtorch.subtract(f, 1, alpha=2).tolist() == [-1.0, 2.0] and jtorch.multiply(f, 2).tolist() == [2.0, 8.0]
    assert jtorch.divide(f, 3, rounding_mode="floor").tolist() == [0.0, 1.0]
    assert jtorch.true_divide(jtorch.tensor([1]), 2).tolist() == [0.5]
    assert jtorch.arctan2(f, f).tolist() == jtorch.atan2(f, f).tolist()
    for name in ("add_", "sub_", "div_", "pow_", "lerp_", "addcmul_", "hypot_", "bitwise_and_"):
        assert hasattr(jtorch.Tensor, name) and not hasattr(jtorch, name), name
    assert not hasattr(jtorch.Tensor, "rsub") and hasattr(jtorch, "rsub")


# ---- the same expressions in torch and jtorch ------------------------------------------------------------
ORACLE = """\
m.pow(m.tensor([True]), 2)
m.pow(m.tensor([True]), False)
m.pow(2.5, m.tensor([1, 2]))
m.pow(f, 2, out=m.empty(2, dtype=m.float64))
m.pow(i8, 2, out=m.empty(2, dtype=m.float64))
m.pow(i8, 1000)
m.pow(2.5, m.tensor([2, 3]), out=m.empty(2, dtype=m.int64))
m.div(i, 2, rounding_mode='floor')
i // 2.5
2.5 % i
m.add(b, b, alpha=2)
m.add(c, c, alpha=1j)
m.rsub(i, i, alpha=2)
m.atan2(f, 2)
m.bitwise_and(b, 3)
i & True
m.addcmul(i, i, i, value=1.5)
m.addcmul(u8, u8, u8, value=-1)
m.addcmul(i8, i8, f)
m.tensor([1, 2]).addcdiv_(f, f)
m.lerp(f, f, m.tensor(0.5, dtype=m.float64))
m.lerp(f, f, 0.5 + 1j)
m.lerp(f, f, 0.5, out=m.empty(2, dtype=m.float64))
m.remainder(2, i, out=m.empty(2))
m.fmod(f, f, out=m.empty(2, dtype=m.int32))
m.hypot(f, i)
m.divide(i, 2, rounding_mode='trunc')
f.true_divide_(2)
"""


def test_same_outcome_as_torch() -> None:
    torch = oracle_torch()

    def run(m, expr):
        env = dict(m=m, f=m.tensor([1.0, 2.0]), i=m.tensor([1, 2]), b=m.tensor([True, False]),
                   i8=m.tensor([1, 2], dtype=m.int8), u8=m.tensor([1, 2], dtype=m.uint8), c=m.tensor([1 + 1j, 2 - 1j]))
        try:
            r = eval(expr, env)
        except Exception as e:  # noqa: BLE001 - comparing errors is the point
            return type_name(e), str(e).split("\n")[0]
        return str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()

    for expr in ORACLE.strip().splitlines():
        assert run(jtorch, expr) == run(torch, expr), expr
