"""Tensors mixed with NumPy arrays and scalars behave as in torch 2.13.

torch's mechanism (torch/_tensor.py) is NumPy's: Tensor has __array_priority__ 1000, __array__ and
__array_wrap__. `t + ndarray` finds Tensor.__add__ refusing the array, so NumPy's reflected
operator computes on `t.__array__()` and wraps the result back into a tensor: the result dtype is
NumPy's promotion (float32 tensor + int64 array -> float64), bool results come back as uint8
(torch's own workaround). `ndarray + t` raises TypeError (NumPy defers to the tensor, whose
reflected operator refuses the array), except `ndarray / t` (reciprocal(t) * ndarray) and
`ndarray == t` (Tensor.__eq__ takes an array as a tensor); `t < ndarray` raises TypeError and
`!=` is Python's identity answer (True) in both orders. NumPy scalars are Python numbers to the operators.
Every case is compared with torch where it is installed, and with NumPy otherwise.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch
from _torch_oracle import live_torch, oracle_torch, type_name
from jtorch.testing import strategies as jst

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "@": operator.matmul,
}
BITWISE = ("&", "|", "^")
# what torch 2.13 does with (tensor OP ndarray) and (ndarray OP tensor), when NumPy takes the array
TENSOR_FIRST_RAISES = ("<", "<=", ">", ">=")  # rich comparisons: both sides defer
ARRAY_FIRST_WORKS = ("/", "==")
NP_DTYPES = [np.dtype(d) for d in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16,
                                   np.float32, np.float64, np.complex64, np.complex128)]


def optional_torch():
    try:
        import torch
    except ImportError:  # torch is an optional oracle
        return None
    return torch


def outcome(fn):
    """What fn() gives, in module-neutral terms: ("tensor", dtype name, shape, values),
    ("ndarray", ...), ("bool", value), or ("error", exception type name)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ("error", type_name(e))
    if type_name(r) == "Tensor":
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), np.array(r.numpy()))
    if isinstance(r, np.ndarray):
        return ("ndarray", str(r.dtype), r.shape, r)
    if isinstance(r, bool):
        return ("bool", r)
    return ("other", type_name(r))


def same(a, b) -> None:
    assert a[:3] == b[:3], (a[:3], b[:3])
    if a[0] in ("tensor", "ndarray"):
        np.testing.assert_allclose(a[3].astype(np.complex128) if a[3].dtype.kind == "c" else a[3].astype(np.float64),
                                   b[3].astype(np.complex128) if b[3].dtype.kind == "c" else b[3].astype(np.float64),
                                   rtol=1e-6, atol=1e-6, equal_nan=True)


def numpy_expectation(op: str, values: np.ndarray, other, tensor_first: bool):
    """What torch gives, derived from NumPy (used where torch is not installed)."""
    if tensor_first and op in TENSOR_FIRST_RAISES:
        return ("error", "TypeError")
    if op == "!=":
        return ("bool", True)
    if not tensor_first and op not in ARRAY_FIRST_WORKS:
        return ("error", "TypeError")
    fn = OPS[op]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            if op == "/" and not tensor_first:  # reciprocal(t) * ndarray
                rec = np.reciprocal(values.astype(np.float32) if values.dtype.kind in "biu" else values)
                r = np.asarray(rec * other)
            else:
                r = np.asarray(fn(values, other) if tensor_first else fn(other, values))
        except Exception as e:  # noqa: BLE001
            return ("error", type_name(e))
    if op == "==" or r.dtype != np.bool_:
        return ("tensor", str(r.dtype if r.dtype != np.bool_ else "bool"), r.shape, r)
    return ("tensor", "uint8", r.shape, r.astype(np.uint8))


@SETTINGS
@given(data=st.data())
def test_tensor_and_ndarray_like_torch(data):
    op = data.draw(st.sampled_from(sorted(OPS)), label="op")
    tensor_first = data.draw(st.booleans(), label="tensor first")
    kinds = "biu" if op in BITWISE else None
    dtypes = [d for d in NP_DTYPES if kinds is None or d.kind in kinds]
    dt, da = (data.draw(st.sampled_from(dtypes), label=n) for n in ("tensor dtype", "array dtype"))
    (st_, sa), _ = data.draw(jst.broadcastable_shapes(2, max_dims=2, max_side=3), label="shapes")
    if op == "@":
        st_, sa = (3,), (3,)
    rng = np.random.default_rng(data.draw(jst.seeds(), label="seed"))
    values = jst.random_values(rng, dt, st_, low=1, high=4)
    other = np.asarray(jst.random_values(rng, da, sa, low=1, high=4))  # 0-dim: an array, not a NumPy scalar
    t, values = jst.with_layout(values, data.draw(jst.layouts(), label="layout"))
    fn = OPS[op]
    mine = outcome(lambda: fn(t, other) if tensor_first else fn(other, t))
    torch = optional_torch()
    if torch is not None:
        tt = torch.from_numpy(np.array(values))
        same(mine, outcome(lambda: fn(tt, other) if tensor_first else fn(other, tt)))
    else:
        same(mine, numpy_expectation(op, values, other, tensor_first))


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.int64(3), np.int32(3), np.uint8(3),
                                    np.complex128(1j)], ids=repr)
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "<", "=="])
@pytest.mark.parametrize("tensor_first", [True, False])
def test_numpy_scalars_are_numbers(scalar, op, tensor_first):
    """np.float64(2) * t: a wrapped number, so the tensor's dtype wins within its category."""
    if op == "<" and isinstance(scalar, np.complexfloating):
        return
    fn = OPS[op]
    t = jtorch.tensor([1, 2, 3], dtype=jtorch.int32)
    mine = outcome(lambda: fn(t, scalar) if tensor_first else fn(scalar, t))
    python = scalar.item()
    as_number = outcome(lambda: fn(t, python) if tensor_first else fn(python, t))
    same(mine, as_number)
    assert mine[0] == "tensor"
    torch = optional_torch()
    if torch is not None:
        tt = torch.tensor([1, 2, 3], dtype=torch.int32)
        same(mine, outcome(lambda: fn(tt, scalar) if tensor_first else fn(scalar, tt)))


@pytest.mark.parametrize("make", [
    lambda m: m.tensor([1, 2, 3], dtype=m.int32) + np.array(2.0),              # 0-d array: NumPy's promotion
    lambda m: m.tensor([1., 2.]) + np.array([1, 2]),                          # float32 + int64 -> float64
    lambda m: m.tensor([True]) + np.array([True]),                            # bool results come back as uint8
    lambda m: m.tensor([1, 2, 3], dtype=m.int32) @ np.array([1, 2, 3], dtype=np.int32),  # 0-d result: a tensor
    lambda m: np.array([1., 2.]) + m.tensor([1., 2.]),                        # TypeError, as torch
    lambda m: np.array([2, 2, 2]) == m.tensor([1, 2, 3]),                     # a bool tensor
    lambda m: m.tensor([1, 2, 3]) != np.array([1, 2, 3]),                     # Python's identity answer
    lambda m: m.tensor([1., 2.]) + np.ones(3),                                # NumPy's broadcast error
    lambda m: np.asarray(m.tensor([1, 2], dtype=m.int16)),
    lambda m: np.asarray(m.tensor([1, 2]), dtype=np.float32),
    lambda m: np.concatenate([m.tensor([1, 2]), m.tensor([3])]),
    lambda m: m.ones(3, device="meta") + np.ones(3),                          # no values to give NumPy
])
def test_cases_like_torch(make):
    mine = outcome(lambda: make(jtorch))
    same(mine, outcome(lambda: make(oracle_torch())))


@pytest.mark.parametrize("make", [
    lambda m: np.add(m.tensor([1, 2], dtype=m.int32), m.tensor([1, 2], dtype=m.int32)),  # ufuncs wrap
    lambda m: np.sin(m.tensor([1., 2.])),
    lambda m: np.equal(m.tensor([1, 2]), np.array([1, 3])),                   # uint8, as torch
    lambda m: np.add(m.tensor(1.), m.tensor(2.)),                             # 0-d: a tensor, not a scalar
    lambda m: np.add.reduce(m.tensor([1, 2, 3])),
    lambda m: np.add(m.tensor([1, 2]), m.tensor([1, 2]), out=np.empty(2, np.int64)),  # out= stays an ndarray
])
def test_ufuncs_like_torch(make):
    mine = outcome(lambda: make(jtorch))
    same(mine, outcome(lambda: make(live_torch("NumPy's ufuncs call torch's array protocol on torch's own tensors"))))


def test_inplace_with_ndarray_rebinds_like_torch():
    """`x += ndarray`: Tensor.__iadd__ refuses the array, so Python computes x + ndarray and rebinds x."""
    x = jtorch.tensor([1., 2., 3.])
    y = x
    x += np.array([1, 1, 1])
    assert x is not y and x.dtype is jtorch.float64 and y.tolist() == [1., 2., 3.]
    assert x.tolist() == [2., 3., 4.]


def test_array_wrap_result_shares_numpy_memory():
    r = jtorch.tensor([1., 2.]) + np.array([1., 1.])
    assert type(r) is jtorch.Tensor and r.tolist() == [2., 3.]
    r.numpy()[0] = 7.0  # a tensor over NumPy's result buffer, as torch.from_numpy gives
    assert r.tolist() == [7., 3.]
