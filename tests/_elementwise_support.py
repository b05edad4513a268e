"""Helpers shared by tests/test_binary_ops.py and tests/test_comparison_ops.py: dtypes, hypothesis
strategies for broadcastable shapes and layouts and jtorch tensors of any layout over NumPy values
(all from jtorch.testing.strategies, which users' property tests use too),
NumPy references computed as PyTorch computes (in the compute dtype: float16 through float32), and
dtype-aware comparison."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

import jtorch

from jtorch.testing import strategies as jst
from jtorch.testing.strategies import random_values  # noqa: F401  (re-exported for the test files)

BOOL = tuple(jst.numpy_dtype(d) for d in jst.BOOL)
INTS = tuple(jst.numpy_dtype(d) for d in jst.INTEGRAL)
FLOATS = tuple(jst.numpy_dtype(d) for d in jst.FLOATING)
COMPLEX = tuple(jst.numpy_dtype(d) for d in jst.COMPLEX)
REAL = BOOL + INTS + FLOATS
ALL = REAL + COMPLEX
INTEGRAL = BOOL + INTS
LAYOUTS = jst.LAYOUTS


def jdtype(d: Any) -> jtorch.dtype:
    return jtorch.dtypes.from_numpy_dtype(np.dtype(d))


def ndtype(d: jtorch.dtype) -> np.dtype:
    return np.dtype(d.numpy)


def compute_dtype(d: np.dtype) -> np.dtype:
    """The dtype CPU kernels compute in: float16 goes through float32, as in PyTorch (opmath)."""
    return np.dtype(np.float32) if d == np.float16 else np.dtype(d)


# ---- tensors of any layout, hypothesis strategies: jtorch.testing.strategies ----------------------------
def _c_array(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy (np.ascontiguousarray would turn a 0-dim array into a 1-dim one)."""
    return np.array(a, order="C", copy=True)


def tensor(values: np.ndarray, layout: str = "contiguous") -> tuple[jtorch.Tensor, np.ndarray]:
    """A jtorch tensor holding `values` in `layout`, and the values it holds (jst.with_layout)."""
    return jst.with_layout(values, layout)


def to_numpy(t: jtorch.Tensor) -> np.ndarray:
    return np.array(t.numpy())


def shapes(num_shapes: int, max_dims: int = 3, max_side: int = 4) -> st.SearchStrategy:
    """Broadcastable input shapes (0-dim and empty included) -> (input shapes, result shape)."""
    return jst.broadcastable_shapes(num_shapes, max_dims=max_dims, max_side=max_side)


layouts = jst.layouts()
seeds = jst.seeds()


# ---- comparison ------------------------------------------------------------------------------------------
def tolerance(dtype: np.dtype) -> dict:
    dtype = np.dtype(dtype)
    if dtype in (np.float16,):
        return dict(rtol=2e-3, atol=1e-3)
    if dtype in (np.float32, np.complex64):
        return dict(rtol=1e-5, atol=1e-6)
    return dict(rtol=1e-12, atol=1e-14)


def assert_close(actual: np.ndarray, expected: np.ndarray, context: Any = "") -> None:
    """Same dtype and shape; integers and bools exactly, floats within their dtype's tolerance with
    NaN (and infinity) positions matching."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype, context)
    assert actual.shape == expected.shape, (actual.shape, expected.shape, context)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=str(context))
        return
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), equal_nan=True,
                               err_msg=str(context), **tolerance(actual.dtype))


# ---- NumPy references: computed in the compute dtype, the way PyTorch's kernels compute -----------------
def np_errstate() -> Any:
    return np.errstate(all="ignore")


def ref_trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    q = a // b
    return q + ((a % b != 0) & ((a < 0) != (b < 0))).astype(q.dtype)


def ref_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """std::pow for floats; c10's powi for integers (wrapping, negative exponents give 0 or +-1)."""
    if a.dtype.kind not in "biu":
        return np.power(a, b)
    bits = a.dtype.itemsize * 8

    def powi(x: int, y: int) -> int:
        if y < 0:
            return 1 if x == 1 else (-1 if y % 2 else 1) if x == -1 else 0
        r = pow(int(x), int(y), 1 << bits)
        return r - (1 << bits) if a.dtype.kind == "i" and r >= 1 << (bits - 1) else r

    out = np.frompyfunc(powi, 2, 1)(a, b)
    return np.asarray(out, dtype=object).astype(a.dtype) if np.ndim(out) else a.dtype.type(out)


def ref_lerp(a: np.ndarray, b: np.ndarray, w: Any) -> np.ndarray:
    one = np.ones((), dtype=np.result_type(a, w) if np.ndim(w) else a.dtype)
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (one - w))


def ref_clamp(a: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    if lo is not None:
        a = np.maximum(a, lo)
    if hi is not None:
        a = np.minimum(a, hi)
    return a


@dataclass
class Case:
    """One operator as the property tests see it: `fn(*tensors, *args, **kwargs)` on jtorch or torch
    (and `fn_` as a method for the in-place variant), its NumPy reference on arrays in the compute
    dtype, the dtypes its kernel takes and how its result dtype follows (TensorIterator flavour:
    binary, float (integers compute in the default float dtype), compare (bool results), same (all
    inputs of one dtype))."""

    name: str
    ref: Callable[..., np.ndarray]
    fn: str = ""
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    dtypes: Sequence[np.dtype] = ALL
    flavour: str = "binary"
    arity: int = 2
    values: dict = field(default_factory=dict)  # random_values arguments: {input index or "all": {...}}
    has_inplace: bool = True
    mixed: bool = True                           # inputs may differ in dtype
    exact_out: bool = False                      # out= must have the result dtype (no cast)

    def __post_init__(self) -> None:
        self.fn = self.fn or self.name

    def call(self, m: Any, *tensors: Any, **kw: Any) -> Any:
        return getattr(m, self.fn)(*tensors, *self.args, **self.kwargs, **kw)

    @property
    def inplace(self) -> Callable | None:
        if not self.has_inplace:
            return None
        return lambda self_, *rest: getattr(self_, self.fn + "_")(*rest, *self.args, **self.kwargs)

    def __repr__(self) -> str:
        return self.name


def common_dtype(flavour: str, tensors: Sequence[jtorch.Tensor]) -> jtorch.dtype:
    """The dtype the operator computes in, by PyTorch's TensorIterator flavours."""
    d = jtorch.result_type(*tensors) if len(tensors) == 2 else jtorch.promotion.result_type_many(*tensors)
    if flavour == "float" and not (d.is_floating_point or d.is_complex):
        d = jtorch.get_default_dtype()
    if flavour == "same":
        d = tensors[0].dtype
    return d


def result_dtype(flavour: str, common: jtorch.dtype) -> jtorch.dtype:
    return jtorch.bool if flavour == "compare" else common


def reference(case: Case, arrays: Sequence[np.ndarray], common: jtorch.dtype) -> np.ndarray:
    """case.ref on the inputs converted to the compute dtype, as the result dtype."""
    cd = compute_dtype(ndtype(common))
    with np_errstate(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = case.ref(*[np.asarray(a).astype(cd) for a in arrays])
    return np.asarray(r).astype(ndtype(result_dtype(case.flavour, common)))


# ---- the property checks both test files run per operator ------------------------------------------
def optional_torch() -> Any:
    try:
        import torch
    except ImportError:  # torch is an optional oracle
        return None
    return torch


def draw_inputs(data: Any, case: Case, *, result_layouts: bool = True) -> tuple[list, list, tuple]:
    """Tensors (random dtypes from the case's, mostly one dtype; random layouts) and their values."""
    input_shapes, result_shape = data.draw(shapes(case.arity), label="shapes")
    d0 = data.draw(st.sampled_from(list(case.dtypes)), label="dtype")
    dts = [d0] * case.arity
    if case.mixed and case.arity > 1 and data.draw(st.integers(0, 3), label="mix") == 0:
        dts[data.draw(st.integers(0, case.arity - 1), label="which")] = data.draw(
            st.sampled_from(list(case.dtypes)), label="other dtype")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    tensors, arrays = [], []
    for i, (shape, d) in enumerate(zip(input_shapes, dts)):
        values = random_values(rng, d, shape, **case.values.get(i, case.values.get("all", {})))
        t, v = tensor(values, data.draw(layouts, label=f"layout {i}"))
        tensors.append(t)
        arrays.append(v)
    if ndtype(common_dtype(case.flavour, tensors)) not in case.dtypes:  # a mix the kernel has no case for
        tensors = [tensor(a.astype(d0))[0] for a in arrays]
        arrays = [a.astype(d0) for a in arrays]
    return tensors, arrays, result_shape


def check_against_numpy(case: Case, data: Any) -> None:
    """The functional variant: result dtype by PyTorch's rules, values by the NumPy reference (and by
    torch itself when it is installed)."""
    tensors, arrays, result_shape = draw_inputs(data, case)
    common = common_dtype(case.flavour, tensors)
    result = case.call(jtorch, *tensors)
    assert result.dtype is result_dtype(case.flavour, common), (result.dtype, common)
    assert tuple(result.shape) == tuple(result_shape)
    actual = to_numpy(result)
    assert_close(actual, reference(case, arrays, common), case)
    torch = optional_torch()
    if torch is not None:
        expected = case.call(torch, *[torch.from_numpy(_c_array(a)) for a in arrays])
        assert_close(actual, expected.numpy(), ("torch", case))


def check_out_and_inplace(case: Case, data: Any) -> None:
    """out= of another dtype the result casts to safely (and of the wrong shape: PyTorch's
    resize warning), and the in-place variant where self has the broadcast shape."""
    tensors, arrays, result_shape = draw_inputs(data, case)
    common = common_dtype(case.flavour, tensors)
    rdt = result_dtype(case.flavour, common)
    expected = reference(case, arrays, common)
    out_dts = [ndtype(rdt)] if case.exact_out else [d for d in ALL if jtorch.can_cast(rdt, jdtype(d))]
    out_dt = data.draw(st.sampled_from(out_dts), label="out dtype")
    wrong_shape = data.draw(st.booleans(), label="wrong out shape")
    out = jtorch.empty((3, 5) if wrong_shape else tuple(result_shape), dtype=jdtype(out_dt))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = case.call(jtorch, *tensors, out=out)
    assert r is out and tuple(out.shape) == tuple(result_shape)
    resized = [x for x in w if "was resized since it had shape [3, 5]" in str(x.message)]
    assert len(resized) == (1 if wrong_shape and tuple(result_shape) != (3, 5) else 0)
    with np_errstate(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(to_numpy(out), expected.astype(out_dt), (case, "out"))
    if case.inplace is None or tuple(arrays[0].shape) != tuple(result_shape) or tensors[0].stride().count(0):
        return
    self = tensors[0]
    if not jtorch.can_cast(rdt, self.dtype):
        with _raises(RuntimeError, f"result type {_NAME[common]} can't be cast to the desired output type "
                                   f"{_NAME[self.dtype]}"):
            case.inplace(self, *tensors[1:])
        return
    v = self._version
    r = case.inplace(self, *tensors[1:])
    assert r is self and self._version == v + 1
    with np_errstate(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(to_numpy(self), expected.astype(ndtype(self.dtype)), (case, "in-place"))


def check_meta(case: Case, data: Any) -> None:
    tensors, arrays, result_shape = draw_inputs(data, case)
    meta = [jtorch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta") for t in tensors]
    r = case.call(jtorch, *meta)
    assert r.device.type == "meta" and tuple(r.shape) == tuple(result_shape)
    assert r.dtype is result_dtype(case.flavour, common_dtype(case.flavour, tensors))


_NAME = {jdtype(d): n for d, n in zip(ALL, ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "Float",
                                             "Double", "ComplexFloat", "ComplexDouble"))}


class _raises:
    """pytest.raises with an exact message."""

    def __init__(self, exc: type, message: str) -> None:
        self.exc, self.message = exc, message

    def __enter__(self) -> None:
        return None

    def __exit__(self, et: Any, e: Any, tb: Any) -> bool:
        assert et is not None, f"did not raise {self.exc.__name__}: {self.message}"
        assert issubclass(et, self.exc) and str(e) == self.message, (et, str(e), self.message)
        return True
