"""Matrix products (matmul and `@`, mm, bmm, mv, dot, vdot, addmm, addmv, baddbmm and their in-place
and out= forms, outer, ger) against NumPy in float64 (and torch when installed): every dtype torch's
CPU kernels take, 1-D / 2-D / batched broadcasting with empty dims and K = 0, non-contiguous
operands, out= with torch's resize warning, meta tensors, and torch's error texts."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
from _matmul_support import LAYOUTS, NUMERIC, check, dtype_ids, jt, operand, values, wide
from _torch_oracle import oracle_torch

FLOATING = tuple(d for d in NUMERIC if d.kind in "fc")
RESIZE_WARNING = "An output with one or more elements was resized since it had shape"


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@st.composite
def matmul_shapes(draw) -> tuple[tuple, tuple, int]:
    """Shapes of two matmul operands (1-D, 2-D or batched, batch dims broadcasting, sizes 0..5)
    and the length K of their sums."""
    d1, d2 = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    side = st.integers(0, 5)
    n, k, p = draw(side), draw(side), draw(side)
    nb = max(d1 - 2, d2 - 2, 0)
    batch = [draw(st.integers(0, 3)) for _ in range(nb)]

    def batch_of(d: int) -> tuple:
        own = batch[nb - max(d - 2, 0):]
        return tuple(1 if draw(st.booleans()) else s for s in own)

    s1 = batch_of(d1) + ((n, k) if d1 >= 2 else (k,))
    s2 = batch_of(d2) + ((k, p) if d2 >= 2 else (k,))
    return s1, s2, k


def _out_expectation(s1: tuple, s2: tuple, result: tuple) -> tuple:
    """The shape torch resizes an out= tensor to first: [1, p] for 1-D @ 2-D (squeezed after)."""
    return (1, s2[1]) if len(s1) == 1 and len(s2) == 2 else result


# ---- matmul ------------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None, derandomize=True)
@given(shapes=matmul_shapes(), dtype=st.sampled_from(NUMERIC), layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 2),
       form=st.sampled_from(["function", "method", "operator", "out", "out_empty", "out_wrong"]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_matmul_matches_numpy(shapes, dtype, layouts, form, seed) -> None:
    s1, s2, k = shapes
    rng = _rng(seed)
    a, av = operand(rng, dtype, s1, layouts[0])
    b, bv = operand(rng, dtype, s2, layouts[1])
    expected_shape = np.matmul(np.empty(s1), np.empty(s2)).shape
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if form == "function":
            r = jtorch.matmul(a, b)
        elif form == "method":
            r = a.matmul(b)
        elif form == "operator":
            r = a @ b
        else:
            out_shape = {"out": expected_shape, "out_empty": (0,), "out_wrong": (3, 1)}[form]
            out = jtorch.empty(out_shape, dtype=jt(dtype))
            r = jtorch.matmul(a, b, out=out)
            assert r is out
    check(r, dtype, np.matmul, [av, bv], k, (s1, s2, layouts))
    resized = [w for w in caught if RESIZE_WARNING in str(w.message)]
    if form.startswith("out"):
        first = _out_expectation(s1, s2, expected_shape)
        expect_warning = math.prod(out_shape) != 0 and tuple(out_shape) != first
        assert len(resized) == int(expect_warning), (s1, s2, out_shape, [str(w.message) for w in caught])
    else:
        assert not resized
    m = jtorch.matmul(jtorch.empty(s1, dtype=jt(dtype), device="meta"),
                      jtorch.empty(s2, dtype=jt(dtype), device="meta"))
    assert m.is_meta and tuple(m.shape) == expected_shape and m.dtype == jt(dtype)


@pytest.mark.parametrize("s1, s2", [((4, 3, 5), (5, 2)), ((5,), (4, 5, 2)), ((4, 3, 5), (5,)), ((3, 5), (4, 5, 2)),
                                    ((2, 1, 3, 5), (4, 5, 2))])
def test_matmul_fold_with_requires_grad(s1, s2) -> None:
    """The smaller operand needing grad sends ATen through the fold; the values are the same."""
    rng = _rng(0)
    for which in (0, 1):
        a, av = operand(rng, np.dtype(np.float64), s1, "contiguous")
        b, bv = operand(rng, np.dtype(np.float64), s2, "contiguous")
        (a if which == 0 else b).requires_grad_(True)
        check(jtorch.matmul(a, b), np.dtype(np.float64), np.matmul, [av, bv], s1[-1])


def test_matmul_out_is_resized_and_written_through_views() -> None:
    rng = _rng(1)
    a, av = operand(rng, np.dtype(np.float32), (4, 3, 5), "contiguous")
    b, bv = operand(rng, np.dtype(np.float32), (4, 5, 2), "contiguous")
    out = jtorch.empty(4, 2, 3, dtype=jtorch.float32).transpose(1, 2)  # not viewable as (4, 3, 2) rows
    assert jtorch.matmul(a, b, out=out) is out
    check(out, np.dtype(np.float32), np.matmul, [av, bv], 5)
    v = jtorch.empty(3)
    with pytest.warns(UserWarning, match=r"had shape \[3\], which does not match the required output shape \[1, 2\]"):
        jtorch.matmul(jtorch.ones(4), jtorch.ones(4, 2), out=v)
    assert tuple(v.shape) == (2,) and v.tolist() == [4.0, 4.0]


def test_matmul_out_dtype_and_grad_errors() -> None:
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        jtorch.matmul(jtorch.ones(2, 3), jtorch.ones(3, 2), out=jtorch.empty(2, 2, dtype=jtorch.float64))
    with pytest.raises(RuntimeError, match=r"^result dtype Double does not match input dtype Float$"):
        jtorch.matmul(jtorch.ones(3), jtorch.ones(3), out=jtorch.empty((), dtype=jtorch.float64))
    a = jtorch.ones(2, 3).requires_grad_()
    with pytest.raises(RuntimeError, match=r"^matmul\(\): functions with out=\.\.\. arguments don't support automatic "
                                           r"differentiation, but one of the arguments requires grad\.$"):
        jtorch.matmul(a, jtorch.ones(3, 2), out=jtorch.empty(2, 2))


def test_matmul_dunders() -> None:
    a = jtorch.ones(2, 3)
    assert (a @ jtorch.ones(3)).tolist() == [3.0, 3.0]
    assert jtorch.ones(3).__rmatmul__(a).tolist() == [3.0, 3.0]
    assert a.__matmul__(2) is NotImplemented and a.__rmatmul__(2) is NotImplemented
    assert a.__rmatmul__(np.ones((4, 2))) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        2 @ a
    with pytest.raises(TypeError, match="unsupported operand"):
        a @ 2
    with pytest.raises(TypeError, match="unsupported operand"):
        np.ones((4, 2)) @ a


# ---- mm, bmm, mv, dot, vdot --------------------------------------------------------------------------------
_PRODUCTS = {
    # name: (shapes (n, k, p, batch) -> operand shapes, reference, result shape)
    "mm": (lambda n, k, p, b: ((n, k), (k, p)), np.matmul),
    "bmm": (lambda n, k, p, b: ((b, n, k), (b, k, p)), np.matmul),
    "mv": (lambda n, k, p, b: ((n, k), (k,)), np.matmul),
    "dot": (lambda n, k, p, b: ((k,), (k,)), np.dot),
    "vdot": (lambda n, k, p, b: ((k,), (k,)), np.vdot),
}


@pytest.mark.parametrize("name", list(_PRODUCTS))
@settings(max_examples=40, deadline=None, derandomize=True)
@given(dtype=st.sampled_from(NUMERIC), sizes=st.tuples(*[st.integers(0, 6)] * 4),
       layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 2), form=st.sampled_from(["function", "method", "out"]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_products_match_numpy(name, dtype, sizes, layouts, form, seed) -> None:
    shapes, ref = _PRODUCTS[name]
    s1, s2 = shapes(*sizes)
    rng = _rng(seed)
    a, av = operand(rng, dtype, s1, layouts[0])
    b, bv = operand(rng, dtype, s2, layouts[1])
    if form == "function":
        r = getattr(jtorch, name)(a, b)
    elif form == "method":
        r = getattr(a, name)(b)
    else:
        out = jtorch.empty(0, dtype=jt(dtype))
        r = getattr(jtorch, name)(a, b, out=out)
        assert r is out
    check(r, dtype, ref, [av, bv], sizes[1], (name, s1, s2, layouts))
    meta = getattr(jtorch, name)(jtorch.empty(s1, dtype=jt(dtype), device="meta"),
                                 jtorch.empty(s2, dtype=jt(dtype), device="meta"))
    assert meta.is_meta and meta.shape == r.shape and meta.dtype == r.dtype


@pytest.mark.parametrize("dtype", [np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.int8)], ids=dtype_ids)
def test_integer_products_take_the_parallel_path_exactly(dtype) -> None:
    """Large enough for several chunks; integers are exact (wrapping for int8)."""
    from jtorch.kernels.cpu.matmul_int import MAC_GRAIN

    rng = _rng(2)
    a, av = operand(rng, dtype, (3, 96, 160), "contiguous")
    b, bv = operand(rng, dtype, (3, 160, 80), "transposed")
    assert 96 * 160 * 80 > MAC_GRAIN  # more than one chunk for mm, and for bmm
    check(jtorch.bmm(a, b), dtype, np.matmul, [av, bv], 160)
    check(jtorch.mm(a[1], b[2]), dtype, np.matmul, [av[1], bv[2]], 160)


def test_float16_computes_in_float32() -> None:
    """Sums of float16 products round once at the end (PyTorch's opmath), not at every step."""
    a = jtorch.full((1, 4096), 1.0, dtype=jtorch.float16)
    b = jtorch.full((4096, 1), 1.0, dtype=jtorch.float16)
    assert jtorch.mm(a, b).item() == 4096.0  # a float16 accumulator stalls at 2048
    assert jtorch.dot(a[0], b[:, 0]).item() == 4096.0
    assert jtorch.mv(a, b[:, 0]).item() == 4096.0


def test_empty_contraction_gives_zeros_for_every_dtype() -> None:
    for d in NUMERIC + (np.dtype(np.bool_),):
        t = jt(d)
        assert jtorch.mm(jtorch.empty(2, 0, dtype=t), jtorch.empty(0, 3, dtype=t)).tolist() == [[0] * 3] * 2
        assert jtorch.bmm(jtorch.empty(1, 2, 0, dtype=t), jtorch.empty(1, 0, 3, dtype=t)).tolist() == [[[0] * 3] * 2]
        assert jtorch.matmul(jtorch.empty(4, 2, 0, dtype=t), jtorch.empty(0, 1, dtype=t)).tolist() == [[[0]] * 2] * 4
        if d != np.bool_:
            assert jtorch.dot(jtorch.empty(0, dtype=t), jtorch.empty(0, dtype=t)).item() == 0
            assert jtorch.mv(jtorch.empty(2, 0, dtype=t), jtorch.empty(0, dtype=t)).tolist() == [0, 0]


# ---- addmm, addmv, baddbmm ------------------------------------------------------------------------------
_ADD = {
    # name: (operand shapes from (n, k, p, b), output shape, self shapes that broadcast)
    "addmm": (lambda n, k, p, b: ((n, k), (k, p)), lambda n, k, p, b: (n, p)),
    "addmv": (lambda n, k, p, b: ((n, k), (k,)), lambda n, k, p, b: (n,)),
    "baddbmm": (lambda n, k, p, b: ((b, n, k), (b, k, p)), lambda n, k, p, b: (b, n, p)),
}


def _self_shape(name: str, full: tuple, pick: int) -> tuple:
    """A shape of `self` that broadcasts to `full` (addmv's self is 1-D or a single element)."""
    if name == "addmv":
        return [full, (1,), ()][pick % 3]
    return [full, full[1:], (1,) * len(full), ()][pick % 4]


@pytest.mark.parametrize("name", list(_ADD))
@settings(max_examples=50, deadline=None, derandomize=True)
@given(dtype=st.sampled_from(NUMERIC), sizes=st.tuples(*[st.integers(0, 5)] * 4),
       layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 3), pick=st.integers(0, 11),
       scalars=st.sampled_from([(1, 1), (0, 1), (2, 0), (0, 0), (-1, 3), (0.5, -1.5), (2j, 1 - 1j)]),
       form=st.sampled_from(["function", "method", "inplace", "out"]), seed=st.integers(0, 2 ** 32 - 1))
def test_add_products_match_numpy(name, dtype, sizes, layouts, pick, scalars, form, seed) -> None:
    beta, alpha = scalars
    if dtype.kind != "c" and (isinstance(beta, complex) or isinstance(alpha, complex)):
        beta, alpha = 2, -1
    if dtype.kind in "iu" and (isinstance(beta, float) or isinstance(alpha, float)):
        beta, alpha = 3, -2
    shapes, out_shape = _ADD[name]
    s1, s2 = shapes(*sizes)
    full = out_shape(*sizes)
    rng = _rng(seed)
    self_shape = full if form == "inplace" else _self_shape(name, full, pick)
    s, sv = operand(rng, dtype, self_shape, layouts[0] if form != "inplace" else "contiguous")
    if dtype.kind == "f" and beta == 0 and sv.size:  # beta == 0 ignores self, NaN included
        s.fill_(float("nan"))
        sv = np.full_like(sv, np.nan)
    a, av = operand(rng, dtype, s1, layouts[1])
    b, bv = operand(rng, dtype, s2, layouts[2])
    kw = dict(beta=beta, alpha=alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # addmv of an empty matrix may resize (see below)
        if form == "function":
            r = getattr(jtorch, name)(s, a, b, **kw)
        elif form == "method":
            r = getattr(s, name)(a, b, **kw)
        elif form == "inplace":
            r = getattr(s, name + "_")(a, b, **kw)
            assert r is s
        else:
            out = jtorch.empty(full, dtype=jt(dtype))
            r = getattr(jtorch, name)(s, a, b, out=out, **kw)
            assert r is out

    if name == "addmv" and beta != 0 and av.size == 0:
        # torch's addmv writes beta * self with mul_out(result, self, beta): the result takes
        # self's shape (resized, with the resize warning when it had elements)
        full = self_shape

    def ref(sv, av, bv, beta=beta, alpha=alpha):
        prod = np.zeros(full, av.dtype) if av.size == 0 else np.matmul(av, bv)
        return alpha * prod + (beta * np.broadcast_to(sv, full) if beta != 0 else 0)

    check(r, dtype, ref, [sv, av, bv], sizes[1] + 2, (name, s1, s2, self_shape, scalars, form),
          magnitude=lambda sv, av, bv: ref(sv, av, bv, abs(beta), abs(alpha)))


def test_alpha_zero_does_not_read_the_product() -> None:
    """BLAS semantics: alpha == 0 leaves a and b unread, so inf * 0 makes no NaN."""
    r = jtorch.addmm(jtorch.full((2, 2), 3.0), jtorch.full((2, 3), float("inf")), jtorch.ones(3, 2), beta=2, alpha=0)
    assert r.tolist() == [[6.0, 6.0], [6.0, 6.0]]


def test_empty_contraction_scales_self() -> None:
    s = jtorch.full((2, 2), 3.0)
    assert jtorch.addmm(s, jtorch.empty(2, 0), jtorch.empty(0, 2), beta=2).tolist() == [[6.0] * 2] * 2
    assert jtorch.addmm(jtorch.full((2, 2), float("nan")), jtorch.empty(2, 0), jtorch.empty(0, 2),
                        beta=0).tolist() == [[0.0] * 2] * 2
    assert jtorch.baddbmm(jtorch.full((1, 2, 2), 3.0), jtorch.empty(1, 2, 0), jtorch.empty(1, 0, 2),
                          beta=-1).tolist() == [[[-3.0] * 2] * 2]
    assert jtorch.addmv(jtorch.full((2,), 3, dtype=jtorch.int8), jtorch.empty(2, 0, dtype=jtorch.int8),
                        jtorch.empty(0, dtype=jtorch.int8), beta=3.5).tolist() == [9, 9]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Char$"):
        jtorch.addmm(jtorch.ones(2, 2, dtype=jtorch.int8), jtorch.empty(2, 0, dtype=jtorch.int8),
                     jtorch.empty(0, 2, dtype=jtorch.int8), beta=3.5)


def test_scalar_conversions() -> None:
    i8 = dict(dtype=jtorch.int8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8_t without overflow$"):
        jtorch.addmm(jtorch.ones(2, 2, **i8), jtorch.ones(2, 3, **i8), jtorch.ones(3, 2, **i8), alpha=300)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
        jtorch.addmm(jtorch.ones(2, 2), jtorch.ones(2, 3), jtorch.ones(3, 2), beta=1e300)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
        jtorch.addmm(jtorch.ones(2, 2), jtorch.ones(2, 3), jtorch.ones(3, 2), alpha=1j)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type c10::Half without overflow$"):
        jtorch.addmv(jtorch.ones(2, dtype=jtorch.half), jtorch.ones(2, 3, dtype=jtorch.half),
                     jtorch.ones(3, dtype=jtorch.half), alpha=1e6)
    # addmm and baddbmm convert to the compute type (float32 for float16), addmv to the dtype
    r = jtorch.addmm(jtorch.ones(1, 1, dtype=jtorch.half), jtorch.ones(1, 1, dtype=jtorch.half),
                     jtorch.ones(1, 1, dtype=jtorch.half), alpha=1e6, beta=-1e6 + 1)
    assert r.item() == 1.0
    # float scalars truncate for integral tensors (Scalar::to<int64_t>)
    assert jtorch.addmm(jtorch.ones(2, 2, dtype=jtorch.int64), jtorch.ones(2, 3, dtype=jtorch.int64),
                        jtorch.ones(3, 2, dtype=jtorch.int64), alpha=1.5, beta=2.7).tolist() == [[5, 5], [5, 5]]


def test_inplace_and_out_checks() -> None:
    with pytest.raises(RuntimeError, match=r"^Bad in-place call: input tensor size \[4\] and output tensor size "
                                           r"\[2, 4\] should match$"):
        jtorch.ones(4).addmm_(jtorch.ones(2, 3), jtorch.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"^Bad in-place call: input tensor size \[1\] and output tensor size "
                                           r"\[2\] should match$"):
        jtorch.addmv_(jtorch.ones(1), jtorch.ones(2, 3), jtorch.ones(3))
    with pytest.raises(RuntimeError, match=r"^Bad in-place call: input tensor size \[1, 2, 2\] and output tensor "
                                           r"size \[2, 2, 2\] should match$"):
        jtorch.ones(1, 2, 2).baddbmm_(jtorch.ones(2, 2, 3), jtorch.ones(2, 3, 2))
    for name, args in [("addmm", (jtorch.ones(2, 2), jtorch.ones(2, 3), jtorch.ones(3, 2))),
                       ("mm", (jtorch.ones(2, 3), jtorch.ones(3, 2))),
                       ("bmm", (jtorch.ones(1, 2, 3), jtorch.ones(1, 3, 2))),
                       ("baddbmm", (jtorch.ones(1, 2, 2), jtorch.ones(1, 2, 3), jtorch.ones(1, 3, 2))),
                       ("addmv", (jtorch.ones(2), jtorch.ones(2, 3), jtorch.ones(3)))]:
        with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
            getattr(jtorch, name)(*args, out=jtorch.empty(0, dtype=jtorch.float64))
        out = jtorch.empty(7)
        with pytest.warns(UserWarning, match=r"had shape \[7\], which does not match the required output shape"):
            getattr(jtorch, name)(*args, out=out)
    out = jtorch.empty(5)
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required output shape \[\]"):
        jtorch.dot(jtorch.ones(3), jtorch.ones(3), out=out)
    assert out.shape == () and out.item() == 3.0


# ---- outer, ger ----------------------------------------------------------------------------------------------
@settings(max_examples=20, deadline=None, derandomize=True)
@given(dtype=st.sampled_from(NUMERIC), mixed=st.sampled_from([None, np.dtype(np.float64), np.dtype(np.int16)]),
       n=st.integers(0, 4), m=st.integers(0, 4), seed=st.integers(0, 2 ** 32 - 1), fn=st.sampled_from(["outer", "ger"]))
def test_outer_promotes_like_mul(dtype, mixed, n, m, seed, fn) -> None:
    """outer is reshape + mul: mul's promotion (its dtype pairs are mul's tests' business; a few
    mixed pairs here keep the compiled loops few)."""
    dtypes = (dtype, mixed or dtype)
    rng = _rng(seed)
    a, av = operand(rng, dtypes[0], (n,), "strided")
    b, bv = operand(rng, dtypes[1], (m,), "contiguous")
    r = getattr(jtorch, fn)(a, b)
    expected = jtorch.result_type(a, b)
    assert r.dtype == expected
    ref = np.multiply.outer(wide(av), wide(bv))
    check(r, np.dtype(expected.numpy), lambda x: x, [ref.astype(np.dtype(expected.numpy))], 1)
    assert getattr(a, fn)(b).shape == (n, m)


def test_outer_errors_and_ger_warning() -> None:
    with pytest.raises(RuntimeError, match="^outer: Expected 1-D argument self, but got 2-D$"):
        jtorch.outer(jtorch.ones(2, 3), jtorch.ones(3))
    with pytest.raises(RuntimeError, match="^outer: Expected 1-D argument vec2, but got 0-D$"):
        jtorch.outer(jtorch.ones(3), jtorch.ones(()))
    assert jtorch.outer(jtorch.ones(2, dtype=jtorch.bool), jtorch.ones(3, dtype=jtorch.bool)).dtype == jtorch.bool
    with pytest.warns(UserWarning, match="^torch.ger is deprecated and will be removed in a future PyTorch release. "
                                         "Use torch.outer instead.$"):
        jtorch.ger(jtorch.ones(3), jtorch.ones(2), out=jtorch.empty(3, 2))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        jtorch.outer(jtorch.ones(3), jtorch.ones(2), out=jtorch.empty(3, 2, dtype=jtorch.int64))


# ---- errors ------------------------------------------------------------------------------------------------------
def _t(*shape, dtype="float32", device="cpu"):
    return lambda lib: lib.ones(*shape, dtype=getattr(lib, dtype), device=device)


# (call on a library, exception type, message); the texts are torch 2.13's, checked against torch below
ERRORS = [
    (lambda L: L.ones(2, 3) @ L.ones(4, 5), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    (lambda L: L.ones(4) @ L.ones(3, 5), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (1x4 and 3x5)"),
    (lambda L: L.ones(3) @ L.ones(4), RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have "
     "the same number of elements, but got 3 and 4 elements respectively"),
    (lambda L: L.ones(2, 3) @ L.ones(4), RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)"),
    (lambda L: L.ones(10, 2, 3) @ L.ones(10, 4, 5), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [10, 3] but got: [10, 4]."),
    (lambda L: L.ones(10, 2, 3) @ L.ones(7, 3, 5), RuntimeError,
     "The size of tensor a (10) must match the size of tensor b (7) at non-singleton dimension 0"),
    (lambda L: L.ones(()) @ L.ones(3), RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    (lambda L: L.matmul(L.ones(3), L.ones(())), RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 1D and 0D"),
    (lambda L: L.ones(2, 3) @ L.ones(3, 4, dtype=L.float64), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda L: L.mm(L.ones(0, 3), L.ones(3, 4, dtype=L.float64)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda L: L.ones(2, 3, dtype=L.bool) @ L.ones(3, 4, dtype=L.bool), NotImplementedError,
     "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (lambda L: L.ones(3, dtype=L.bool) @ L.ones(3, dtype=L.bool), NotImplementedError,
     "\"dot\" not implemented for 'Bool'"),
    (lambda L: L.vdot(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)), NotImplementedError,
     "\"dot\" not implemented for 'Bool'"),
    (lambda L: L.ones(2, 3, dtype=L.bool) @ L.ones(3, dtype=L.bool), NotImplementedError,
     "\"addmv_impl_cpu\" not implemented for 'Bool'"),
    (lambda L: L.bmm(L.ones(2, 2, 3, dtype=L.bool), L.ones(2, 3, 2, dtype=L.bool)), NotImplementedError,
     "\"bmm\" not implemented for 'Bool'"),
    (lambda L: L.bmm(L.ones(2, 20, 30, dtype=L.bool), L.ones(2, 30, 20, dtype=L.bool)), NotImplementedError,
     "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (lambda L: L.baddbmm(L.ones(2, 2, 2, dtype=L.bool), L.ones(2, 2, 3, dtype=L.bool), L.ones(2, 3, 2, dtype=L.bool)),
     NotImplementedError, "\"baddbmm\" not implemented for 'Bool'"),
    (lambda L: L.addmv(L.ones(2, dtype=L.bool), L.ones(2, 3, dtype=L.bool), L.ones(3, dtype=L.bool)),
     NotImplementedError, "\"addmv_impl_cpu\" not implemented for 'Bool'"),
    (lambda L: L.ones(5, 2, 3) @ L.ones(5, 3, 4, dtype=L.float64), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda L: L.bmm(L.ones(2, 20, 30), L.ones(2, 30, 20, dtype=L.float64)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda L: L.bmm(L.ones(2, 20, 30), L.ones(2, 30, 20, dtype=L.int64)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != long int"),
    (lambda L: L.ones(2, 3) @ L.ones(3, dtype=L.float64), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda L: L.ones(3) @ L.ones(3, dtype=L.float64), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda L: L.mm(L.ones(3), L.ones(3, 2)), RuntimeError, "self must be a matrix"),
    (lambda L: L.mm(L.ones(2, 3), L.ones(3)), RuntimeError, "mat2 must be a matrix"),
    (lambda L: L.bmm(L.ones(2, 3), L.ones(3, 2)), RuntimeError, "batch1 must be a 3D tensor"),
    (lambda L: L.bmm(L.ones(1, 2, 3), L.ones(3, 2)), RuntimeError, "batch2 must be a 3D tensor"),
    (lambda L: L.mv(L.ones(3), L.ones(3)), RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1"),
    (lambda L: L.mv(L.ones(()), L.ones(3)), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda L: L.dot(L.ones(2, 3), L.ones(3)), RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
    (lambda L: L.vdot(L.ones(3, dtype=L.complex64), L.ones(4, dtype=L.complex64)), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 "
     "elements respectively"),
    (lambda L: L.addmm(L.ones(2, 4, dtype=L.float64), L.ones(2, 3), L.ones(3, 4)), RuntimeError,
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda L: L.addmm(L.ones(2, 4), L.ones(2, 3, dtype=L.float64), L.ones(3, 4)), RuntimeError,
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda L: L.addmm(L.ones(2, 4), L.ones(3), L.ones(3, 4)), RuntimeError, "mat1 must be a matrix, got 1-D tensor"),
    (lambda L: L.addmm(L.ones(2, 4), L.ones(2, 3), L.ones(1, 3, 4)), RuntimeError,
     "mat2 must be a matrix, got 3-D tensor"),
    (lambda L: L.addmm(L.ones(3, 4), L.ones(2, 3), L.ones(3, 4)), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  "
     "Target sizes: [2, 4].  Tensor sizes: [3, 4]"),
    (lambda L: L.addmm(L.ones(1, 2, 4), L.ones(2, 3), L.ones(3, 4)), RuntimeError,
     "expand(torch.FloatTensor{[1, 2, 4]}, size=[2, 4]): the number of sizes provided (2) must be greater or equal to "
     "the number of dimensions in the tensor (3)"),
    (lambda L: L.ones(2, 4, dtype=L.float64).addmm_(L.ones(2, 3), L.ones(3, 4)), RuntimeError,
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda L: L.baddbmm(L.ones(2, 2, 2, dtype=L.float64), L.ones(2, 2, 3), L.ones(2, 3, 2)), RuntimeError,
     "Input dtypes must be the same, got: input double, batch1: float, batch2: float"),
    (lambda L: L.baddbmm(L.ones(2, 2, 2), L.ones(2, 2, 3), L.ones(2, 3, 2, dtype=L.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda L: L.baddbmm(L.ones(3), L.ones(2, 2, 3), L.ones(2, 3, 2)), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 2.  Target "
     "sizes: [2, 2, 2].  Tensor sizes: [3]"),
    (lambda L: L.baddbmm(L.ones(2, 2, 2), L.ones(3), L.ones(2, 3, 2)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda L: L.baddbmm(L.ones(2, 2, 2), L.ones(2, 2, 3), L.ones(2, 4, 2)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    (lambda L: L.addmv(L.ones(3), L.ones(2, 3), L.ones(3)), RuntimeError,
     "size mismatch, got input (3), mat (2x3), vec (3)"),
    (lambda L: L.addmv(L.ones(2, 1), L.ones(2, 3), L.ones(3)), RuntimeError,
     "vector + matrix @ vector expected, got 2, 2, 1"),
    (lambda L: L.addmv(L.ones(()), L.ones(2, 3), L.ones(4)), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda L: L.addmv(L.ones(2, dtype=L.float64), L.ones(2, 3), L.ones(3)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Float"),
    (lambda L: L.mv(L.ones(2, 3), L.ones(3), out=L.ones(2, dtype=L.float64)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Float"),
    (lambda L: L.dot(L.ones(3), L.ones(3), out=L.ones((), dtype=L.float64)), RuntimeError,
     "result dtype Double does not match input dtype Float"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS, ids=[e[2][:50] for e in ERRORS])
def test_error_texts(call, exc, message) -> None:
    with pytest.raises(exc) as info:
        call(jtorch)
    assert str(info.value) == message


@pytest.mark.parametrize("call, exc, message", ERRORS, ids=[e[2][:50] for e in ERRORS])
def test_error_texts_match_torch(call, exc, message) -> None:
    torch = oracle_torch()
    with pytest.raises(exc) as info:
        call(torch)
    assert str(info.value) == message


def test_integer_results_match_torch() -> None:
    """Wrapping integer arithmetic, alpha/beta included, bit for bit as torch computes it."""
    torch = oracle_torch()
    rng = _rng(3)
    for d in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        dt = np.dtype(d)
        s, a, b = values(rng, dt, (3, 5)), values(rng, dt, (3, 4)), values(rng, dt, (4, 5))
        r = jtorch.addmm(jtorch.from_numpy(s), jtorch.from_numpy(a), jtorch.from_numpy(b), beta=3, alpha=-2)
        t = torch.addmm(torch.from_numpy(s), torch.from_numpy(a), torch.from_numpy(b), beta=3, alpha=-2)
        np.testing.assert_array_equal(r.numpy(), t.numpy())
        np.testing.assert_array_equal((jtorch.from_numpy(a) @ jtorch.from_numpy(b)).numpy(),
                                      (torch.from_numpy(a) @ torch.from_numpy(b)).numpy())


def test_meta_skips_the_cpu_kernel_checks() -> None:
    """PyTorch checks m1/m2 dtypes and dispatches on the dtype inside its CPU kernel, so meta
    tensors get shapes for calls that fail on the CPU."""
    m = dict(device="meta")
    r = jtorch.mm(jtorch.ones(2, 3, **m), jtorch.ones(3, 4, dtype=jtorch.float64, **m))
    assert r.is_meta and r.shape == (2, 4) and r.dtype == jtorch.float32
    r = jtorch.mm(jtorch.ones(2, 3, dtype=jtorch.bool, **m), jtorch.ones(3, 4, dtype=jtorch.bool, **m))
    assert r.is_meta and r.dtype == jtorch.bool
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x4\)$"):
        jtorch.mm(jtorch.ones(2, 3, **m), jtorch.ones(4, 4, **m))
