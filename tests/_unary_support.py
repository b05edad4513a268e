"""What tests/test_unary_ops.py knows about each unary operator: its NumPy reference, the dtypes
PyTorch's CPU kernels take, how the result dtype follows (TensorIterator flavour), its variants,
and helpers that build jtorch tensors of any layout over NumPy buffers."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import jtorch
from jtorch.tensor import Tensor

BOOL = (np.bool_,)
INTS = (np.uint8, np.int8, np.int16, np.int32, np.int64)
FLOATS = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)
ALL = BOOL + INTS + FLOATS + COMPLEX
J = {np.dtype(d): getattr(jtorch, np.dtype(d).name if d is not np.bool_ else "bool") for d in ALL}


def jdtype(d: Any) -> jtorch.dtype:
    return J[np.dtype(d)]


def ndtype(d: jtorch.dtype) -> np.dtype:
    return d.numpy


# ---- NumPy references (computed in float64 / complex128, or in the integer dtype itself) ------
def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x.astype(np.float64)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _logit(x: np.ndarray, eps: float | None = None) -> np.ndarray:
    if eps is not None and eps >= 0:
        x = np.where(x < eps, eps, np.where(x > 1 - eps, 1 - eps, x))
    return np.log(x / (1 - x))


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return x * 0.5 * (1 + _erf(x / math.sqrt(2)))


def _sign(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.bool_:
        return x.copy()
    return np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype) if x.dtype.kind == "f" else np.sign(x)


def _integral_identity(fn: Callable) -> Callable:
    """floor/ceil/trunc/round of an integer tensor is a copy (NumPy would go through float64)."""
    return lambda x: x.copy() if x.dtype.kind in "iub" else fn(x)


def _round_decimals(x: np.ndarray, decimals: int, compute: np.dtype) -> np.ndarray:
    """torch's formula in the compute dtype (float32 for float16): rint(x * 10^d) / 10^d."""
    xc = x.astype(compute)
    with np.errstate(over="ignore"):
        p = compute.type(10.0 ** abs(decimals))
    return (np.rint(xc * p) / p) if decimals > 0 else (np.rint(xc / p) * p)


@dataclass(frozen=True)
class UnaryOp:
    name: str
    ref: Callable[..., np.ndarray]
    kind: str                                   # "float" (UNARY_FLOAT_OP), "keep" (UNARY_OP), "bool"
    dtypes: tuple = ALL                         # input dtypes torch's CPU kernel takes
    method: bool = True                         # Tensor.<name>
    inplace: str = "function, method"           # variants of <name>_ ("" if none)
    out: bool = True
    rtol32: float = 1e-5                        # float32 / complex64 tolerance (float16 is looser)
    atol: float = 0.0
    complex_scale: float = 3.0                  # magnitude of complex inputs (see test docstring)
    extras: tuple = field(default=())           # keyword-argument sets to try

    def result_dtype(self, d: np.dtype) -> np.dtype:
        d = np.dtype(d)
        if self.kind == "bool":
            return np.dtype(np.bool_)
        if self.name == "abs" and d.kind == "c":
            return np.dtype(np.float32 if d == np.complex64 else np.float64)
        if self.kind == "float" and d.kind in "biu":
            return jtorch.get_default_dtype().numpy
        return d


def _op(name: str, ref: Callable, kind: str, **kw: Any) -> UnaryOp:
    return UnaryOp(name, ref, kind, **kw)


NOT_BOOL = INTS + FLOATS + COMPLEX
REAL_NOT_BOOL = INTS + FLOATS
OPS: dict[str, UnaryOp] = {o.name: o for o in [
    _op("neg", np.negative, "keep", dtypes=NOT_BOOL),
    _op("abs", np.abs, "keep", dtypes=NOT_BOOL),
    _op("sign", _sign, "keep", dtypes=BOOL + REAL_NOT_BOOL, inplace="method"),
    _op("reciprocal", lambda x: 1 / x, "float"),
    _op("sqrt", np.sqrt, "float"),
    _op("rsqrt", lambda x: 1 / np.sqrt(x), "float"),
    _op("exp", np.exp, "float"),
    _op("exp2", np.exp2, "float"),
    _op("expm1", np.expm1, "float"),
    _op("log", np.log, "float"),
    _op("log2", np.log2, "float"),
    _op("log10", np.log10, "float"),
    _op("log1p", np.log1p, "float"),
    _op("sin", np.sin, "float"),
    _op("cos", np.cos, "float"),
    _op("tan", np.tan, "float"),
    _op("asin", np.arcsin, "float"),
    _op("acos", np.arccos, "float"),
    _op("atan", np.arctan, "float"),
    _op("sinh", np.sinh, "float"),
    _op("cosh", np.cosh, "float"),
    _op("tanh", np.tanh, "float"),
    _op("sigmoid", _sigmoid, "float"),
    _op("logit", _logit, "float", dtypes=BOOL + INTS + FLOATS, extras=({}, {"eps": 0.2}, {"eps": -1.0}, {"eps": 0.0})),
    _op("relu", lambda x: np.maximum(x, np.zeros((), x.dtype)), "keep", dtypes=REAL_NOT_BOOL, out=False),
    _op("gelu", _gelu, "keep", dtypes=FLOATS, method=False, inplace="function", atol=2e-6,
        extras=({}, {"approximate": "tanh"})),
    _op("silu", lambda x: x / (1 + np.exp(-x)), "keep", dtypes=FLOATS + COMPLEX, method=False,
        inplace="function", atol=1e-7),
    _op("erf", _erf, "float", dtypes=BOOL + INTS + FLOATS),
    _op("floor", _integral_identity(np.floor), "keep", dtypes=REAL_NOT_BOOL),
    _op("ceil", _integral_identity(np.ceil), "keep", dtypes=REAL_NOT_BOOL),
    _op("round", _integral_identity(np.rint), "keep", dtypes=REAL_NOT_BOOL),
    _op("trunc", _integral_identity(np.trunc), "keep", dtypes=REAL_NOT_BOOL),
    _op("frac", lambda x: x - np.trunc(x), "keep", dtypes=FLOATS),
    _op("isnan", np.isnan, "bool", inplace="", out=False),
    _op("isinf", np.isinf, "bool", inplace="", out=False),
    _op("isfinite", np.isfinite, "bool", inplace="", out=False),
    _op("logical_not", np.logical_not, "bool", inplace="method"),
    _op("bitwise_not", np.invert, "keep", dtypes=BOOL + INTS, inplace="method"),
    _op("nan_to_num", np.nan_to_num, "keep",
        extras=({}, {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}, {"posinf": 1e300})),
]}


def call_ref(op: UnaryOp, x: np.ndarray, kwargs: dict) -> np.ndarray:
    """The expected result of op(x, **kwargs) in op.result_dtype(x.dtype)."""
    res = op.result_dtype(x.dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if op.name == "nan_to_num":
            return np.nan_to_num(x, **kwargs).astype(res) if x.dtype != np.float16 else _nan_to_num_f16(x, kwargs)
        if op.kind == "bool" or (op.kind == "keep" and x.dtype.kind in "biu"):
            return np.asarray(op.ref(x, **kwargs)).astype(res)
        # float-valued results: compute in the compute dtype's values, at double precision
        compute = np.dtype(np.float32) if x.dtype == np.float16 else res
        if op.name == "abs" and x.dtype.kind == "c":
            compute = x.dtype
        xv = x.astype(compute)
        hi = xv.astype(np.complex128 if xv.dtype.kind == "c" else np.float64)
        if op.name == "round" and kwargs:
            d = kwargs["decimals"]
            return (_round_decimals(x, d, compute) if d else np.rint(hi)).astype(res)
        return np.asarray(op.ref(hi, **kwargs)).astype(res)


def _nan_to_num_f16(x: np.ndarray, kw: dict) -> np.ndarray:
    # torch converts the replacement values straight to Half (1e300 -> inf), NumPy's
    # nan_to_num would clip them first
    f = np.finfo(np.float16)
    nan, pos, neg = kw.get("nan", 0.0), kw.get("posinf", float(f.max)), kw.get("neginf", float(f.min))
    out = x.copy()
    out[np.isnan(x)] = np.float16(nan)
    out[np.isposinf(x)] = np.float16(pos)
    out[np.isneginf(x)] = np.float16(neg)
    return out


def tolerances(op: UnaryOp, res: np.dtype) -> tuple[float, float]:
    res = np.dtype(res)
    if res.kind in "biu":
        return 0.0, 0.0
    if res in (np.float16,):
        return 2e-3, max(op.atol, 1e-3)
    if res in (np.float32, np.complex64):
        return op.rtol32, op.atol
    return 1e-12, op.atol * 1e-6


def assert_matches(actual: np.ndarray, expected: np.ndarray, op: UnaryOp, context: str = "",
                   computed: np.dtype | None = None) -> None:
    """Equal dtypes and shapes; values exact for integers, else within the tolerance of the dtype
    the result was `computed` in (before a cast into an out= of another dtype)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype, context)
    assert actual.shape == expected.shape, (actual.shape, expected.shape, context)
    rtol, atol = tolerances(op, expected.dtype if computed is None else computed)
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=context)
    else:
        wide = np.complex128 if expected.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=context)


# ---- tensors over NumPy buffers, in any layout ------------------------------------------------
def from_view(base: np.ndarray, view: np.ndarray) -> Tensor:
    """A jtorch tensor with the layout of NumPy `view` over (a copy of) `base`'s buffer."""
    assert base.flags.c_contiguous
    flat = base.reshape(-1).copy()
    isz = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // isz
    strides = tuple(s // isz for s in view.strides)
    if view.size == 0:  # NumPy gives empty arrays zero strides; torch keeps contiguous ones
        strides = _contiguous(view.shape)
    return Tensor._make(jtorch.storage.CPUStorage(flat), tuple(view.shape), strides, offset,
                        jdtype(base.dtype), jtorch.device("cpu"))


def _contiguous(shape: tuple) -> tuple:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def to_numpy(t: Tensor) -> np.ndarray:
    return t._numpy_view().copy()


LAYOUTS = ("contiguous", "transposed", "sliced", "expanded")


def make_layout(values: np.ndarray, layout: str) -> tuple[Tensor, np.ndarray]:
    """(tensor, its values as a NumPy array) with `values`' shape in the given layout."""
    shape = values.shape
    if layout == "transposed" and len(shape) >= 2:
        base = np.ascontiguousarray(values.T)
        view = base.T
    elif layout == "sliced" and len(shape) >= 1:
        base = np.zeros((shape[0] * 2 + 1,) + shape[1:], values.dtype)
        view = base[1::2]
        view[...] = values
    elif layout == "expanded" and len(shape) >= 1 and 0 not in shape:
        base = np.ascontiguousarray(values[:1])
        view = np.broadcast_to(base, shape)
    else:
        base = np.ascontiguousarray(values)
        view = base
    return from_view(base, view), np.array(view)
