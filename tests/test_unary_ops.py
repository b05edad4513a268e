"""Unary elementwise operators against NumPy (and torch when installed): values for every dtype
PyTorch's CPU kernels take, in every layout (contiguous, transposed, sliced, expanded, 0-dim,
empty), through every variant (function, method, in-place, out= incl. another dtype and resize);
result dtypes per TensorIterator flavour; meta tensors; PyTorch's error texts; float32 accuracy
of exp / tanh / sigmoid in ulps.

Complex inputs are kept to moderate magnitudes without inf/NaN parts: the special-value rules of
complex functions (C99 Annex G in torch's std::complex, NumPy's npymath, Numba's cmath) differ
between the three, and that is not what these tests are about.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jtorch
from _unary_support import (ALL, FLOATS, LAYOUTS, OPS, assert_matches, call_ref, from_view, jdtype,
                            make_layout, to_numpy)

from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def tensor(values, dtype=None) -> jtorch.Tensor:
    a = np.ascontiguousarray(np.array(values, dtype=dtype))
    return from_view(a, a)


def values_for(dtype: np.dtype, shape: tuple, rng: np.random.Generator, name: str) -> np.ndarray:
    """Values that exercise an operator: full integer ranges, floats of every magnitude with
    NaN / inf / signed zeros, complex numbers of moderate size."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = rng.integers(max(info.min, -20), min(info.max, 20), n, endpoint=True)
        full = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        return np.where(rng.random(n) < 0.5, small, full).astype(dtype).reshape(shape)
    real = np.float32 if dtype in (np.float16, np.complex64) else np.float64
    if dtype.kind == "c":
        scale = OPS[name].complex_scale
        v = rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n)
        v[rng.random(n) < 0.1] = 0
        return v.astype(dtype).reshape(shape)
    if name in ("logit", "asin", "acos"):
        v = rng.uniform(-0.25, 1.25, n)
    else:
        top = 4 if dtype == np.float16 else 8
        v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, top, n)
        half = rng.random(n) < 0.5
        v[half] = rng.uniform(-4, 4, half.sum())
    v[rng.random(n) < 0.2] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -2.5, 1.0]))
    with np.errstate(over="ignore"):
        return v.astype(real).astype(dtype).reshape(shape)


def extras_for(name: str, dtype: np.dtype) -> tuple:
    op = OPS[name]
    if name == "round" and np.dtype(dtype).kind == "f":
        return ({}, {"decimals": 2}, {"decimals": -1}, {"decimals": 0})
    return op.extras or ({},)


def call(name: str, variant: str, t: jtorch.Tensor, kwargs: dict, out: jtorch.Tensor | None = None):
    if variant == "function":
        return getattr(jtorch, name)(t, **kwargs)
    if variant == "method":
        return getattr(t, name)(**kwargs)
    if variant == "inplace_method":
        return getattr(t, name + "_")(**kwargs)
    if variant == "inplace_function":
        return getattr(jtorch, name + "_")(t, **kwargs)
    assert variant == "out"
    return getattr(jtorch, name)(t, **kwargs, out=out)


def _variants(name: str, dtype: np.dtype, layout: str) -> list[str]:
    op = OPS[name]
    v = ["function"] + (["method"] if op.method else [])
    same = op.result_dtype(dtype) == np.dtype(dtype) or name == "logical_not"
    if op.inplace and same and layout != "expanded":
        v += ["inplace_" + k.strip() for k in op.inplace.split(",")]
    if op.out:
        v.append("out")
    return v


def _out_dtype(name: str, dtype: np.dtype, res: np.dtype, rng: np.random.Generator) -> np.dtype:
    """An out= dtype torch accepts: the result's, or another where the flavour casts into it."""
    op = OPS[name]
    if rng.random() < 0.5:
        return res
    if name == "logical_not":
        return np.dtype(rng.choice([np.int32, np.float32, np.uint8]))
    if op.kind == "float" and res == np.float32:
        return np.dtype(rng.choice([np.float64, np.complex64]))
    if name == "abs" and dtype.kind == "c":
        return np.dtype(np.float64)
    return res  # UNARY_OP: out= must have the input's dtype


@pytest.mark.parametrize("name", sorted(OPS))
@SETTINGS
@given(data=st.data())
def test_matches_numpy(name, data):
    op = OPS[name]
    dtype = np.dtype(data.draw(st.sampled_from(op.dtypes), label="dtype"))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), label="shape")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    kwargs = data.draw(st.sampled_from(extras_for(name, dtype)), label="kwargs")
    variant = data.draw(st.sampled_from(_variants(name, dtype, layout)), label="variant")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    t, x = make_layout(values_for(dtype, shape, rng, name), layout)
    expected = call_ref(op, x, kwargs)
    context = f"{name}({dtype}, {layout}, {kwargs}) {variant}"
    if variant.startswith("inplace"):
        version = t._version
        r = call(name, variant, t, kwargs)
        assert r is t and t._version == version + 1
        assert_matches(to_numpy(t), expected.astype(dtype), op, context)
        return
    if variant == "out":
        out_dt = _out_dtype(name, dtype, expected.dtype, rng)
        resize = rng.random() < 0.3 and expected.size > 0
        out = tensor(np.zeros((3,) if resize else expected.shape, out_dt))
        version = out._version
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = call(name, variant, t, kwargs, out)
        assert r is out and out._version == version + 1
        assert out.shape == expected.shape
        assert any("was resized" in str(m.message) for m in w) == (resize and expected.shape != (3,))
        assert_matches(to_numpy(out), expected.astype(out_dt), op, context, computed=expected.dtype)
        return
    r = call(name, variant, t, kwargs)
    assert r.dtype is jdtype(op.result_dtype(dtype)) and tuple(r.shape) == x.shape
    assert_matches(to_numpy(r), expected, op, context)


# ---- float32 accuracy of the vectorized exp / tanh / sigmoid ---------------------------------
def _ulp_sweep() -> np.ndarray:
    """Every 4096th float32 bit pattern (all magnitudes, both signs), a dense grid where the
    functions change fastest, the overflow / underflow thresholds, and the special values."""
    bits = np.arange(0, 2 ** 32, 4096, dtype=np.uint64).astype(np.uint32)
    spread = bits.view(np.float32)
    dense = np.linspace(-20, 20, 400_001, dtype=np.float32)
    edges = []
    for e in (88.72284, -87.33654, -103.27893, -103.972, 89.0, -104.0, 9.0, 10.0, 0.625, 1e-4, 0.0):
        c = np.float32(e)
        edges.append(c + np.arange(-200, 201, dtype=np.float32) * np.spacing(c) if c else np.zeros(1, np.float32))
    f = np.finfo(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, f.max, -f.max, f.tiny, -f.tiny, f.smallest_subnormal,
                         -f.smallest_subnormal, 1.0, -1.0], np.float32)
    return np.concatenate([spread, dense, *edges, specials])


def _ulp_error(actual: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|actual - exact| in units of the float32 spacing at the exact value (subnormal spacing
    below the normal range); NaN / inf must agree exactly (reported as 0 or inf)."""
    rounded = exact.astype(np.float32)
    special = ~np.isfinite(rounded) | ~np.isfinite(actual)
    same_special = (np.isnan(rounded) & np.isnan(actual)) | (rounded == actual)
    spacing = np.spacing(np.abs(rounded).astype(np.float32)).astype(np.float64)
    err = np.abs(actual.astype(np.float64) - exact) / spacing
    return np.where(special, np.where(same_special, 0.0, np.inf), err)


@pytest.mark.parametrize("name, ref", [
    ("exp", np.exp), ("tanh", np.tanh), ("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x)))])
def test_float32_accuracy_in_ulps(name, ref):
    x = _ulp_sweep()
    with np.errstate(all="ignore"):
        exact = ref(x.astype(np.float64))
        actual = to_numpy(getattr(jtorch, name)(tensor(x)))  # > 32768 elements: the parallel loop
        err = _ulp_error(actual, exact)
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"{name}({x[worst]!r}) = {actual[worst]!r}, exact {exact[worst]!r}: {err[worst]} ulp"
    assert np.array_equal(np.signbit(actual[x == 0]), np.signbit(exact[x == 0].astype(np.float32)))


# ---- layouts and paths beyond the small property tests --------------------------------------
def test_large_strided_input_takes_the_parallel_strided_loop():
    base = np.random.default_rng(0).standard_normal((200, 300)).astype(np.float32)
    t = from_view(base, base.T)
    np.testing.assert_allclose(to_numpy(jtorch.exp(t)), np.exp(base.T), rtol=3e-7)
    r = jtorch.neg(t)
    assert r.stride() == (1, 300)  # the output follows the input's layout (TensorIterator's permutation)
    np.testing.assert_array_equal(to_numpy(r), -base.T)


def test_expanded_input_that_needs_a_cast():
    base = np.array([1, 2], np.int64)
    t = from_view(base, np.broadcast_to(base, (3, 2)))
    np.testing.assert_allclose(to_numpy(jtorch.exp(t)), np.exp(np.broadcast_to(base, (3, 2))), rtol=1e-6)


def test_default_dtype_decides_integer_promotion():
    t = tensor([0, 1, 2])
    old = jtorch.get_default_dtype()
    jtorch.set_default_dtype(jtorch.float64)
    try:
        r = jtorch.exp(t)
    finally:
        jtorch.set_default_dtype(old)
    assert r.dtype is jtorch.float64
    np.testing.assert_allclose(to_numpy(r), np.exp([0.0, 1.0, 2.0]), rtol=1e-15)


def test_float16_computes_in_float32_and_rounds_once():
    x = np.array([-2.5, 0.1, 3.0, 11.0, np.nan, -np.inf], np.float16)
    r = jtorch.exp(tensor(x))
    assert r.dtype is jtorch.float16
    np.testing.assert_array_equal(to_numpy(r), np.exp(x.astype(np.float32)).astype(np.float16))


def test_special_values():
    f = np.float32
    nan, inf = float("nan"), float("inf")
    cases = {
        "sign": ([0.0, -0.0, nan, -inf, 3.0], [0.0, 0.0, 0.0, -1.0, 1.0]),
        "round": ([0.5, 1.5, 2.5, -0.5, -2.5, 2.4999998], [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]),
        "frac": ([1.5, -1.5, inf, -inf, nan], [0.5, -0.5, nan, nan, nan]),
        "relu": ([-1.0, nan, 0.0, 2.0, -inf], [0.0, nan, 0.0, 2.0, 0.0]),
        "logit": ([0.0, 1.0, 0.5, 2.0, nan], [-inf, inf, 0.0, nan, nan]),
        "rsqrt": ([0.0, -0.0, inf, -1.0], [inf, -inf, 0.0, nan]),
        "reciprocal": ([0.0, -0.0, inf], [inf, -inf, 0.0]),
        "expm1": ([1e-10, -inf, inf], [1e-10, -1.0, inf]),
        "log1p": ([-1.0, 1e-10, -2.0], [-inf, 1e-10, nan]),
    }
    for name, (x, want) in cases.items():
        got = to_numpy(getattr(jtorch, name)(tensor(x, f)))
        np.testing.assert_array_equal(got, np.array(want, f), err_msg=name)
        w = np.array(want, f)
        np.testing.assert_array_equal(np.signbit(got[w == w]), np.signbit(w[w == w]), err_msg=name)
    got = to_numpy(jtorch.logit(tensor([0.0, 0.1, 0.5, 1.0, 1.5, -1.0, nan], f), eps=0.7))
    np.testing.assert_allclose(got, np.log(np.array([0.7, 0.7, 0.7, 0.3, 0.3, 0.7, nan]) /
                                            np.array([0.3, 0.3, 0.3, 0.7, 0.7, 0.3, nan])), rtol=1e-6)


def test_complex_zero_and_branch_cuts():
    z = tensor([0j, -4 + 0j, complex(-4, -0.0)], np.complex64)
    r = to_numpy(jtorch.reciprocal(z))[0]
    assert np.isinf(r.real) and np.isnan(r.imag)  # 1 / 0j = inf+nanj (c10::complex and NumPy)
    np.testing.assert_array_equal(to_numpy(jtorch.sqrt(z))[1:], np.array([2j, -2j], np.complex64))
    assert to_numpy(jtorch.abs(z)).dtype == np.float32


def test_integer_rounding_is_a_copy():
    x = np.array([2 ** 62 + 1, -(2 ** 53) - 1, 7], np.int64)
    for name in ("floor", "ceil", "round", "trunc"):
        r = getattr(jtorch, name)(tensor(x))
        assert r.dtype is jtorch.int64
        np.testing.assert_array_equal(to_numpy(r), x)


def test_dunders():
    x = np.array([[1, -2], [3, 0]], np.int32)
    t = tensor(x)
    np.testing.assert_array_equal(to_numpy(-t), -x)
    np.testing.assert_array_equal(to_numpy(abs(t)), np.abs(x))
    np.testing.assert_array_equal(to_numpy(~t), ~x)
    b = tensor([True, False])
    np.testing.assert_array_equal(to_numpy(~b), [False, True])
    c = tensor([3 + 4j], np.complex128)
    assert abs(c).dtype is jtorch.float64 and to_numpy(abs(c))[0] == 5.0


def test_logical_not_writes_its_output_dtype():
    x = np.array([0.0, 1.5, -0.0, np.nan], np.float32)
    out = tensor(np.zeros(4, np.int32))
    jtorch.logical_not(tensor(x), out=out)
    np.testing.assert_array_equal(to_numpy(out), [1, 0, 1, 0])
    t = tensor(x)
    t.logical_not_()
    assert t.dtype is jtorch.float32
    np.testing.assert_array_equal(to_numpy(t), [1.0, 0.0, 1.0, 0.0])


def test_nan_to_num_defaults_are_the_dtype_limits():
    x = [float("nan"), float("inf"), -float("inf"), 1.0]
    for dt in FLOATS:
        f = np.finfo(dt)
        r = to_numpy(jtorch.nan_to_num(tensor(x, dt)))
        np.testing.assert_array_equal(r, np.array([0.0, f.max, f.min, 1.0], dt))
    c = to_numpy(jtorch.nan_to_num(tensor([complex(float("nan"), float("inf"))], np.complex64), nan=2.0))
    np.testing.assert_array_equal(c, np.array([complex(2.0, np.finfo(np.float32).max)], np.complex64))
    i = tensor([1, 2])
    r = jtorch.nan_to_num(i, nan=5.0)
    assert r.dtype is jtorch.int64 and r._storage is not i._storage
    np.testing.assert_array_equal(to_numpy(r), [1, 2])


# ---- meta tensors ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OPS))
def test_meta_tensors_give_shape_and_dtype(name):
    op = OPS[name]
    for d in ALL:
        t = jtorch.empty(2, 3, dtype=jdtype(d), device="meta")
        if name == "neg" and d is np.bool_:
            with pytest.raises(RuntimeError, match="Negation"):
                jtorch.neg(t)
            continue
        r = getattr(jtorch, name)(t)  # unsupported dtypes too: the dtype dispatch is the kernel's
        assert r.device.type == "meta" and tuple(r.shape) == (2, 3)
        assert r.dtype is jdtype(op.result_dtype(d)), (name, d)
        if op.out:
            out = jtorch.empty(0, dtype=jdtype(op.result_dtype(d)), device="meta")
            assert getattr(jtorch, name)(t, out=out) is out and tuple(out.shape) == (2, 3)


@pytest.mark.parametrize("name", sorted(OPS))
def test_meta_dtypes_and_errors_match_torch(name):
    for d in ALL:
        if (name, d) == ("frac", np.bool_):
            continue  # torch's meta frac is the decomposition self - trunc(self): bool subtraction's error
        jt = jtorch.empty(3, dtype=jdtype(d), device="meta")
        tt = torch.empty(3, dtype=getattr(torch, jdtype(d).name), device="meta")
        _same_outcome(lambda: _call(jtorch, name, jt), lambda: _call(torch, name, tt), f"{name} {d} meta")


# ---- dtype support and error texts, against torch -------------------------------------------
def _call(lib, name, t, **kw):
    fn = getattr(lib, name, None)
    if fn is None:  # torch keeps gelu / silu in torch._C._nn
        fn = getattr(lib._C._nn, name)
    return fn(t, **kw)


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type_name(e), str(e).split("\n")[0]
    return "ok", str(r.dtype).split(".")[-1]


def _same_outcome(jf, tf, context):
    j, t = _outcome(jf), _outcome(tf)
    assert j == t, context


@pytest.mark.parametrize("name", sorted(OPS))
def test_supported_dtypes(name):
    """Every dtype PyTorch's kernel takes works; every other raises (empty tensors: no compiling)."""
    op = OPS[name]
    for d in ALL:
        r = _outcome(lambda: getattr(jtorch, name)(tensor(np.zeros(0, d))))
        if d in op.dtypes:
            assert r == ("ok", op.result_dtype(d).name), (name, d, r)
        else:
            assert r[0] in ("NotImplementedError", "RuntimeError"), (name, d, r)


@pytest.mark.parametrize("name", sorted(OPS))
def test_dtype_outcomes_match_torch(name):
    for d in ALL:
        jt = tensor(np.zeros(0, d))
        tt = torch.zeros(0, dtype=getattr(torch, jdtype(d).name))
        _same_outcome(lambda: _call(jtorch, name, jt), lambda: _call(torch, name, tt), f"{name} {d}")
        for kw in extras_for(name, d)[1:]:
            _same_outcome(lambda: _call(jtorch, name, jt, **kw), lambda: _call(torch, name, tt, **kw),
                          f"{name} {d} {kw}")


def _errors(lib, T):
    """(label, thunk) pairs that raise in torch; T(values, dtype-name) builds a tensor."""
    f32, i64, b, c64 = T([1.5], "float32"), T([1], "int64"), T([True], "bool"), T([1j], "complex64")
    nn = lib._C._nn if lib is torch else lib
    return [
        ("neg bool", lambda: lib.neg(b)), ("-bool", lambda: -b), ("neg_ bool", lambda: b.neg_()),
        ("sign complex", lambda: lib.sign(c64)),
        ("exp_ int", lambda: i64.exp_()),
        ("exp int out=long", lambda: lib.exp(i64, out=T([0], "int64"))),
        ("exp complex out=float", lambda: lib.exp(c64, out=T([0.0], "float32"))),
        ("neg out dtype", lambda: lib.neg(f32, out=T([0], "int64"))),
        ("floor out dtype", lambda: lib.floor(i64, out=T([0.0], "float32"))),
        ("bitwise_not float", lambda: lib.bitwise_not(f32)), ("~float", lambda: ~f32),
        ("gelu approximate", lambda: nn.gelu(f32, approximate="exact")),
        ("gelu int", lambda: nn.gelu(i64)), ("silu int", lambda: nn.silu(i64)),
        ("relu bool", lambda: lib.relu(b)), ("relu_ bool", lambda: b.relu_()),
        ("relu complex", lambda: lib.relu(c64)),
        ("round decimals int", lambda: lib.round(i64, decimals=2)),
        ("round decimals=0 int", lambda: lib.round(i64, decimals=0)),
        ("round complex", lambda: lib.round(c64)), ("floor complex", lambda: lib.floor(c64)),
        ("floor bool", lambda: lib.floor(b)), ("frac int", lambda: lib.frac(i64)),
        ("abs_ complex", lambda: c64.abs_()), ("abs bool", lambda: lib.abs(b)),
        ("abs complex out=long", lambda: lib.abs(c64, out=T([0], "int64"))),
        ("abs complex64 out=complex128", lambda: lib.abs(c64, out=T([0j], "complex128"))),
        ("abs float out=complex", lambda: lib.abs(f32, out=T([0j], "complex64"))),
        ("erf complex", lambda: lib.erf(c64)), ("logit complex", lambda: lib.logit(c64)),
        ("nan_to_num out dtype", lambda: lib.nan_to_num(f32, out=T([0.0], "float64"))),
        ("sigmoid_ int", lambda: i64.sigmoid_()),
        ("logical_not_ expanded", lambda: T([1.0], "float32").expand(3).logical_not_()),
        ("exp_ expanded", lambda: T([1.0], "float32").expand(3).exp_()),
        ("exp of a number", lambda: lib.exp(1.0)),
    ]


EXPECTED_ERRORS = {
    "neg bool": ("RuntimeError", "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                 "to invert a mask, use the `~` or `logical_not()` operator instead."),
    "sign complex": ("NotImplementedError", "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                     "Please use torch.sgn instead."),
    "exp_ int": ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
    "exp complex out=float": ("RuntimeError",
                              "result type ComplexFloat can't be cast to the desired output type Float"),
    "exp of a number": ("TypeError", "exp(): argument 'input' (position 1) must be Tensor, not float"),
    "neg out dtype": ("RuntimeError", "Found dtype Long but expected Float"),
    "bitwise_not float": ("NotImplementedError", "\"bitwise_not_cpu\" not implemented for 'Float'"),
    "gelu approximate": ("RuntimeError", "approximate argument must be either none or tanh."),
    "relu bool": ("RuntimeError", "Boolean inputs not supported for relu"),
    "relu complex": ("NotImplementedError", "clamp is not supported for complex types"),
    "round decimals int": ("NotImplementedError", "\"round_cpu\" not implemented for 'Long'"),
    "round decimals=0 int": ("NotImplementedError", "\"round_vml_cpu\" not implemented for 'Long'"),
    "floor complex": ("NotImplementedError", "floor is not supported for complex inputs"),
    "abs_ complex": ("RuntimeError", "In-place abs is not supported for complex tensors."),
    "abs complex out=long": ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
    "abs complex64 out=complex128": ("RuntimeError", "Found dtype ComplexDouble but expected ComplexFloat"),
    "nan_to_num out dtype": ("RuntimeError", "nan_to_num: dtype of out: Double should be same as input: Float"),
    "exp_ expanded": ("RuntimeError", "unsupported operation: more than one element of the written-to tensor refers "
                      "to a single memory location. Please clone() the tensor before performing the operation."),
}


def _jt(values, dtype):
    return tensor(values, np.dtype(dtype))


def test_error_texts():
    outcomes = {label: _outcome(f) for label, f in _errors(jtorch, _jt)}
    for label, want in EXPECTED_ERRORS.items():
        assert outcomes[label] == want, label
    assert all(o[0] != "ok" for o in outcomes.values()), outcomes


def test_error_texts_match_torch():
    tt = lambda v, d: torch.tensor(v, dtype=getattr(torch, d))  # noqa: E731
    for (label, jf), (_, tf) in zip(_errors(jtorch, _jt), _errors(torch, tt)):
        if label in KNOWN_DIFFERENCES:
            assert _outcome(tf) == KNOWN_DIFFERENCES[label][0] and _outcome(jf) == KNOWN_DIFFERENCES[label][1]
            continue
        _same_outcome(jf, tf, label)


# (torch's outcome, jtorch's outcome) where jtorch differs on purpose or for now
KNOWN_DIFFERENCES = {
    # torch's Tensor.__invert__ checks the dtype before dispatching; jtorch binds the dunder to
    # bitwise_not, whose dtype dispatch raises instead (the binding generator has no such check)
    "~float": (("TypeError", "~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
               ("NotImplementedError", "\"bitwise_not_cpu\" not implemented for 'Float'")),
}


def test_partial_overlap_of_out_and_input():
    t = tensor(np.arange(6, dtype=np.float32))
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        jtorch.exp(t[:4], out=t[2:])
    r = jtorch.exp(t, out=t)  # full overlap is allowed (in-place through out=)
    np.testing.assert_allclose(to_numpy(r), np.exp(np.arange(6, dtype=np.float32)), rtol=3e-7)


def test_cast_into_the_output_bumps_the_version_once():
    out = tensor(np.zeros(2, np.float64))
    v = out._version
    jtorch.exp(tensor(np.ones(2, np.float32)), out=out)
    t = tensor(np.ones(2, np.float16))
    w = t._version
    t.exp_()
    assert (out._version - v, t._version - w) == (1, 1)  # as in torch


def test_out_with_zero_elements_resizes_silently():
    out = tensor(np.zeros(0, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.sqrt(tensor(np.ones((2, 2), np.float32)), out=out)
    assert tuple(out.shape) == (2, 2) and to_numpy(out).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_resize_warning_text():
    out = tensor(np.zeros(3, np.float32))
    with pytest.warns(UserWarning) as w:
        jtorch.floor(tensor(np.ones(2, np.float32)), out=out)
    assert str(w[0].message).startswith(
        "An output with one or more elements was resized since it had shape [3], which does not match the "
        "required output shape [2]. This behavior is deprecated")


def test_no_out_or_inplace_where_torch_has_none():
    t = tensor([1.0])
    for name in ("isnan", "isinf", "isfinite", "relu"):
        if name != "relu":
            assert not hasattr(jtorch.Tensor, name + "_") and not hasattr(jtorch, name + "_")
        with pytest.raises(TypeError):
            getattr(jtorch, name)(t, out=tensor([0.0]))


# ---- bindings as torch has them --------------------------------------------------------------
def _bound(lib, cls, name):
    return (hasattr(lib, name), hasattr(cls, name), hasattr(lib, name + "_"), hasattr(cls, name + "_"))


@pytest.mark.parametrize("name", sorted(OPS))
def test_variants(name):
    op = OPS[name]
    inplace = {v.strip() for v in op.inplace.split(",") if v.strip()}
    want = (True, op.method, "function" in inplace, "method" in inplace)
    assert _bound(jtorch, jtorch.Tensor, name) == want
    if torch is not None:
        got = _bound(torch._C._nn if name in ("gelu", "silu") else torch, torch.Tensor, name)
        assert got == want  # jtorch binds gelu / silu on jtorch itself (no torch._C._nn yet)
