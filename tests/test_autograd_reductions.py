"""Gradients of reductions, scans, softmax and matrix products (jtorch/autograd/derivatives_reductions.py):
gradcheck (and gradgradcheck where torch's formula is twice differentiable) in float64 over
hypothesis-drawn small shapes (0-dim, size-1, negative dims, keepdim both ways, non-contiguous
leaves), ties for max/amax, zeros for prod/cumprod/norm, and gradients and node names against torch.

Some double backwards (and the CompositeImplicitAutograd matrix products) go through operators whose
entries live in the other parts of the table (scatter, flip, sign, pow, views): `needs` names them.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtorch
from jtorch.autograd import gradcheck, gradgradcheck
from jtorch.autograd.load import table
from _torch_oracle import can_answer, oracle_torch

torch = oracle_torch()

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INF = math.inf


# ---- helpers ---------------------------------------------------------------------------------------
def needs(*entries: str) -> None:
    """The entries of other parts of the table this check goes through (fails, naming them, if absent)."""
    missing = [e for e in entries if e not in table()]
    assert not missing, f"needs the derivative entries {missing} (another part of the table)"


def distinct(shape: Sequence[int], seed: int, lo: float = -2.0) -> np.ndarray:
    """Values at least 0.1 apart (no ties, so max/median/kthvalue are differentiable)."""
    n = math.prod(shape)
    rng = np.random.default_rng(seed)
    return (rng.permutation(n) * 0.13 + lo + rng.uniform(0, 0.02, n)).reshape(shape)


def leaf(a: np.ndarray, layout: str) -> Any:
    """A float64 jtorch leaf holding `a`, contiguous or not ('transposed', 'strided')."""
    if layout == "transposed" and a.ndim >= 2:
        t = jtorch.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
    elif layout == "strided" and a.ndim >= 1:
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
        big[..., ::2] = a
        t = jtorch.tensor(big)[..., ::2]
    else:
        t = jtorch.tensor(a)
    assert np.array_equal(t.numpy(), a, equal_nan=True)
    return t.detach().requires_grad_()


def first(out: Any) -> Any:
    return out[0] if isinstance(out, (tuple, list)) else out


def against_torch(jf: Callable, tf: Callable, arrays: Sequence[np.ndarray], layouts: Sequence[str] = (),
                  check: bool = True, grad_grad: bool = False, name: bool = True, seed: int = 0) -> None:
    """gradcheck (and gradgradcheck) of jf, then jf's gradients and node name against tf's."""
    layouts = list(layouts) + ["contiguous"] * (len(arrays) - len(layouts))
    jin = [leaf(a, lay) for a, lay in zip(arrays, layouts)]
    if check:
        assert gradcheck(lambda *x: first(jf(*x)), jin)
    if grad_grad:
        assert gradgradcheck(lambda *x: first(jf(*x)), jin)
    if not can_answer():  # hypothesis drew the inputs and torch is absent: gradcheck was the float64 reference
        return
    tin = [torch.tensor(a, requires_grad=True) for a in arrays]
    jo, to = first(jf(*jin)), first(tf(*tin))
    assert tuple(jo.shape) == tuple(to.shape) and jo.dtype.name == str(to.dtype).split(".")[1]
    go = np.random.default_rng(seed).standard_normal(tuple(to.shape))
    jg = jtorch.autograd.grad(jo, jin, jtorch.tensor(go).to(jo.dtype), allow_unused=True)
    tg = torch.autograd.grad(to, tin, torch.tensor(go).to(to.dtype), allow_unused=True)
    for a, b in zip(jg, tg):
        assert (a is None) == (b is None), (a, b)
        if a is not None:
            assert a.dtype.name == str(b.dtype).split(".")[1]
            np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-7, atol=1e-9, equal_nan=True)
    if name:
        assert jo.grad_fn.name() == to.grad_fn.name()


def lib_pair(fn: Callable) -> tuple[Callable, Callable]:
    """fn(lib, *tensors) for both libraries."""
    return (lambda *x: fn(jtorch, *x)), (lambda *x: fn(torch, *x))


@st.composite
def shape_and_dims(draw: Callable, min_side: int = 1, max_dims: int = 3, max_side: int = 3) -> tuple:
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), max_size=max_dims)))
    n = max(len(shape), 1)
    dims = draw(st.lists(st.integers(-n, n - 1), unique_by=lambda d: d % n, min_size=1, max_size=n))
    return shape, dims, draw(st.booleans()), draw(st.sampled_from(["contiguous", "transposed", "strided"]))


# ---- sums, means, var/std, norms, logsumexp, amax/amin ----------------------------------------------
DIM_REDUCTIONS = {
    "sum": (lambda L, x, d, k: x.sum(d, keepdim=k), True, ()),
    "nansum": (lambda L, x, d, k: x.nansum(d, keepdim=k), True, ()),
    "mean": (lambda L, x, d, k: x.mean(d, keepdim=k), True, ()),
    "nanmean": (lambda L, x, d, k: x.nanmean(d, keepdim=k), True, ()),
    "var": (lambda L, x, d, k: x.var(d, keepdim=k), True, ()),
    "var_correction0": (lambda L, x, d, k: x.var(d, correction=0, keepdim=k), True, ()),
    "std": (lambda L, x, d, k: x.std(d, unbiased=False, keepdim=k), True, ()),
    "var_mean": (lambda L, x, d, k: sum(L.var_mean(x, d, correction=0, keepdim=k)), True, ()),
    "std_mean": (lambda L, x, d, k: L.std_mean(x, d, correction=0, keepdim=k)[0] * 2
                 + L.std_mean(x, d, correction=0, keepdim=k)[1], True, ()),
    "logsumexp": (lambda L, x, d, k: x.logsumexp(d, keepdim=k), True, ()),
    "amax": (lambda L, x, d, k: x.amax(d, keepdim=k), True, ()),
    "amin": (lambda L, x, d, k: x.amin(d, keepdim=k), True, ()),
    "norm2": (lambda L, x, d, k: L.linalg.vector_norm(x, 2, d, k), True, ()),
    "norm1": (lambda L, x, d, k: x.norm(1, d, k), True, ("sign",)),
    "norm3": (lambda L, x, d, k: x.norm(3, d, k), True, ("pow.Tensor_Scalar", "abs")),
    "norm_half": (lambda L, x, d, k: x.norm(0.5, d, k), True, ("pow.Tensor_Scalar", "sign")),
    "norm_inf": (lambda L, x, d, k: L.linalg.vector_norm(x, INF, d, k), True, ("sign", "abs")),
}


@pytest.mark.parametrize("name", sorted(DIM_REDUCTIONS))
@SETTINGS
@given(case=shape_and_dims(), seed=st.integers(0, 2**16))
def test_dim_reductions(name: str, case: tuple, seed: int) -> None:
    shape, dims, keepdim, layout = case
    fn, _, gg_needs = DIM_REDUCTIONS[name]
    if len(shape) == 0:
        dims = [dims[0] % 1]  # a 0-dim tensor takes dim 0 / -1
    if name.startswith("var") or name.startswith("std"):  # ignore degenerate (dof <= 0) draws here
        n = math.prod(shape[d] for d in set(d % max(len(shape), 1) for d in dims)) if shape else 1
        if n < 2:
            dims = None if shape and math.prod(shape) >= 2 else dims
            if dims is not None:
                return
    jf, tf = lib_pair(lambda L, x: fn(L, x, dims, keepdim))
    needs(*gg_needs)
    grad_grad = not name.startswith(("amax", "amin", "norm_inf"))
    against_torch(jf, tf, [distinct(shape, seed)], [layout], grad_grad=grad_grad)


@pytest.mark.parametrize("name, fn", [
    ("sum", lambda L, x: x.sum()), ("mean", lambda L, x: x.mean()), ("prod", lambda L, x: x.prod()),
    ("var", lambda L, x: x.var()), ("std", lambda L, x: x.std()), ("max", lambda L, x: x.max()),
    ("min", lambda L, x: x.min()), ("median", lambda L, x: x.median()), ("norm", lambda L, x: x.norm()),
    ("var_mean", lambda L, x: L.var_mean(x)[0] + L.var_mean(x)[1]), ("nansum", lambda L, x: x.nansum()),
    ("nanmean", lambda L, x: x.nanmean()), ("norm_p3", lambda L, x: x.norm(3)),
    ("amax_all", lambda L, x: x.amax()), ("aminmax", lambda L, x: L.aminmax(x)[0] - L.aminmax(x)[1] * 3),
    ("aminmax_dim", lambda L, x: L.aminmax(x, dim=-1, keepdim=True)[1]),
    ("aten_norm_scalar", lambda L, x: L.ops.aten.norm.Scalar(x, 3)),
    ("aten_norm_dtype", lambda L, x: L.ops.aten.norm.ScalarOpt_dtype(x, 2, dtype=L.float64)),
    ("aten_norm_dim_dtype", lambda L, x: L.ops.aten.norm.ScalarOpt_dim_dtype(x, 1.5, [-1], True, dtype=L.float64)),
])
@pytest.mark.parametrize("shape, layout", [((), "contiguous"), ((1,), "contiguous"), ((3, 4), "transposed"),
                                           ((2, 3), "strided")])
def test_full_reductions(name: str, fn: Callable, shape: tuple, layout: str) -> None:
    if name in ("var", "std", "var_mean") and math.prod(shape) < 2:
        return  # degenerate: covered by test_var_std_degenerate
    jf, tf = lib_pair(fn)
    grad_grad = name in ("sum", "mean", "var", "std", "max", "min", "median", "norm", "var_mean", "nansum", "prod")
    against_torch(jf, tf, [distinct(shape, 3)], [layout], grad_grad=grad_grad)


def test_sum_mean_prod_with_dtype_and_float32() -> None:
    """A dtype= argument: the gradient comes back in the input's dtype; a float32 smoke test."""
    for fn in (lambda L, x: x.sum(dtype=L.float32), lambda L, x: x.sum(0, dtype=L.float32),
               lambda L, x: x.mean(dtype=L.float32), lambda L, x: x.prod(1, dtype=L.float32),
               lambda L, x: x.cumsum(0, dtype=L.float32), lambda L, x: x.cumprod(1, dtype=L.float32),
               lambda L, x: x.nansum(dtype=L.float32)):
        against_torch(*lib_pair(fn), [distinct((2, 3), 1)], check=False)
    for fn in (lambda L, x: L.linalg.vector_norm(x, 3, dtype=L.float64), lambda L, x: x.sum(dtype=L.float64),
               lambda L, x: x.norm(2, -1, dtype=L.float64)):  # a wider dtype= than the input's
        against_torch(*lib_pair(fn), [distinct((2, 3), 1).astype(np.float32)], check=False)
    a = distinct((3, 4), 2).astype(np.float32)
    for fn in (lambda L, x: x.sum(), lambda L, x: x.softmax(-1).var(0).sum(), lambda L, x: (x @ x.t()).logsumexp(1).sum(),
               lambda L, x: x.cumprod(1).amax(), lambda L, x: x.max(0)[0].norm()):
        x, y = jtorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        fn(jtorch, x).backward()
        fn(torch, y).backward()
        assert x.grad.dtype is jtorch.float32
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=2e-5, atol=1e-6)


def test_ties_split_evenly() -> None:
    """max()/min()/amax/amin/median() share the gradient among ties; norm inf among the largest |x|."""
    a = np.array([[1.0, 3.0, 3.0], [3.0, -3.0, 0.5]])
    for fn in (lambda L, x: x.max(), lambda L, x: x.min(), lambda L, x: x.amax(), lambda L, x: x.amax(1),
               lambda L, x: x.amin((0, 1), keepdim=True), lambda L, x: x.median(), lambda L, x: x.max(1)[0],
               lambda L, x: L.linalg.vector_norm(x, INF), lambda L, x: L.aminmax(x)[1],
               lambda L, x: x.cummax(1)[0], lambda L, x: x.mode(1)[0]):
        against_torch(*lib_pair(fn), [a], check=False)
    x = jtorch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_nan_and_zero_cases() -> None:
    """NaN selects in max(); the zero vector's 2-norm has gradient 0; p=0 gives no gradient."""
    nan = np.array([1.0, np.nan, 2.0, np.nan])
    for fn in (lambda L, x: x.max(), lambda L, x: x.nansum(), lambda L, x: x.nanmean(), lambda L, x: x.amax()):
        against_torch(*lib_pair(fn), [nan], check=False)
    z = np.array([[0.0, 0.0], [1.0, -2.0]])
    for fn in (lambda L, x: x.norm(dim=1), lambda L, x: x.norm(), lambda L, x: x.norm(1, 1), lambda L, x: x.norm(3, 1),
               lambda L, x: x.norm(0.5, 1), lambda L, x: x.std(1), lambda L, x: x.norm(0)):
        against_torch(*lib_pair(fn), [z], check=False)
    x = jtorch.tensor(z, requires_grad=True)
    x.norm(0).backward()
    assert x.grad is None


def test_var_std_degenerate() -> None:
    """dof <= 0: NaN where self equals its mean, infinity elsewhere (var_backward), as torch."""
    for a in (np.array([2.0]), np.array(1.5), np.array([1.0, 2.0])):
        for fn in (lambda L, x: x.var(), lambda L, x: x.var(correction=a.size), lambda L, x: x.std(correction=a.size),
                   lambda L, x: L.var_mean(x, correction=a.size)[0]):
            with warnings.catch_warnings():  # the degrees-of-freedom warning (tested with the forward)
                warnings.simplefilter("ignore")
                against_torch(*lib_pair(fn), [a], check=False)


# ---- prod with zeros ------------------------------------------------------------------------------
@pytest.mark.parametrize("a", [np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]]),
                               np.array([[0.0, 2.0], [3.0, -1.0]]), np.array([0.0]), np.array(0.0)])
def test_prod_with_zeros(a: np.ndarray) -> None:
    """prod is a polynomial: gradcheck holds at zeros, once (O(n) path) and twice (grad-mode path)."""
    fns = [lambda L, x: x.prod()] + ([lambda L, x: x.prod(-1), lambda L, x: x.prod(0, keepdim=True)] if a.ndim else [])
    for fn in fns:
        against_torch(*lib_pair(fn), [a], grad_grad=True)


# ---- scans and softmax --------------------------------------------------------------------------------
SCANS = {
    "cumsum": (lambda L, x, d: x.cumsum(d), ()),
    "cumprod": (lambda L, x, d: x.cumprod(d), ()),
    "logcumsumexp": (lambda L, x, d: x.logcumsumexp(d), ("flip",)),
    "cummax": (lambda L, x, d: x.cummax(d)[0], ("scatter_add",)),
    "cummin": (lambda L, x, d: x.cummin(d)[0], ("scatter_add",)),
    "softmax": (lambda L, x, d: x.softmax(d), ()),
    "log_softmax": (lambda L, x, d: x.log_softmax(d), ()),
    "_softmax": (lambda L, x, d: L._softmax(x, d, False), ()),
    "_log_softmax": (lambda L, x, d: L._log_softmax(x, d, False), ()),
}


@pytest.mark.parametrize("name", sorted(SCANS))
@SETTINGS
@given(case=shape_and_dims(), seed=st.integers(0, 2**16), zeros=st.booleans())
def test_scans_and_softmax(name: str, case: tuple, seed: int, zeros: bool) -> None:
    shape, dims, _, layout = case
    fn, gg_needs = SCANS[name]
    a = distinct(shape, seed)
    if zeros and name == "cumprod" and a.size:
        a.reshape(-1)[np.random.default_rng(seed).integers(0, a.size, 2)] = 0.0
    d = dims[0]
    jf, tf = lib_pair(lambda L, x: fn(L, x, d))
    needs(*gg_needs)
    against_torch(jf, tf, [a], [layout], grad_grad=True)


def test_cumprod_zero_patterns() -> None:
    """One, two and leading/trailing zeros along the scanned dim, both backward paths."""
    a = np.array([[1.0, 0.0, 2.0, 0.0, 3.0], [0.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 0.0],
                  [0.0, 0.0, 2.0, 1.0, 1.5]])
    against_torch(*lib_pair(lambda L, x: x.cumprod(1)), [a], grad_grad=True)
    against_torch(*lib_pair(lambda L, x: x.cumprod(0)), [a], ["transposed"])


def test_empty_inputs() -> None:
    for shape, fn in [((0,), lambda L, x: x.sum()), ((2, 0), lambda L, x: x.mean(1)), ((0, 3), lambda L, x: x.prod(0)),
                      ((0, 2), lambda L, x: x.cumsum(0)), ((0, 2), lambda L, x: x.cumprod(1)),
                      ((2, 0), lambda L, x: x.softmax(1)), ((0, 2), lambda L, x: x.logsumexp(1)),
                      ((3, 0), lambda L, x: x.mm(x.t()))]:
        a = np.zeros(shape)
        against_torch(*lib_pair(fn), [a], check=False)


def test_value_selecting_reductions() -> None:
    """max.dim/min.dim/median.dim/kthvalue/mode: the gradient goes to the index; indices have no grad."""
    a = distinct((3, 4), 5)
    for d in (0, -1):
        for k in (False, True):
            for fn in (lambda L, x: x.max(d, k), lambda L, x: x.min(d, keepdim=k), lambda L, x: x.median(d, k),
                       lambda L, x: x.kthvalue(2, d, k), lambda L, x: x.mode(d, k)):
                against_torch(*lib_pair(fn), [a], ["strided"])
    for fn in (lambda L, x: x.max(0), lambda L, x: x.kthvalue(1, -1), lambda L, x: x.median(0)):
        against_torch(*lib_pair(fn), [np.array(1.5)])  # 0-dim
    x = jtorch.tensor(a, requires_grad=True)
    for vals, idx in (x.max(1), x.cummin(0), x.median(0), x.kthvalue(2), x.mode(0), x.min(0)):
        assert vals.requires_grad and not idx.requires_grad and idx.grad_fn is None
    needs("scatter.src", "gather")
    gradgradcheck(lambda x: x.max(1)[0], [leaf(a, "contiguous")])
    gradgradcheck(lambda x: x.kthvalue(2, 0, True)[0], [leaf(a, "transposed")])


# ---- matrix products --------------------------------------------------------------------------------
def test_matrix_products() -> None:
    r = np.random.default_rng(7)
    n = r.standard_normal
    cases = [
        (lambda L, a, b: a.mm(b), [n((3, 4)), n((4, 2))], ["transposed", "strided"]),
        (lambda L, s, a, b: L.addmm(s, a, b), [n((3, 2)), n((3, 4)), n((4, 2))], ["strided", "transposed"]),
        (lambda L, s, a, b: L.addmm(s, a, b, beta=0.5, alpha=-2), [n((2,)), n((3, 4)), n((4, 2))], []),
        (lambda L, s, a, b: L.addmm(s, a, b, beta=0), [n((1, 1)), n((3, 4)), n((4, 2))], []),
        (lambda L, a, b: a.bmm(b), [n((2, 3, 4)), n((2, 4, 2))], ["transposed", "strided"]),
        (lambda L, s, a, b: L.baddbmm(s, a, b, beta=2, alpha=0.5), [n((3, 1)), n((2, 3, 4)), n((2, 4, 2))], []),
        (lambda L, s, a, b: L.addmv(s, a, b, beta=-1, alpha=3), [n(()), n((3, 4)), n((4,))], ["", "transposed"]),
        (lambda L, a, b: a.mv(b), [n((3, 4)), n((4,))], ["transposed", "strided"]),
        (lambda L, a, b: a.dot(b), [n((4,)), n((4,))], ["strided"]),
        (lambda L, a, b: a.vdot(b), [n((4,)), n((4,))], []),
    ]
    # mv's and addmv's formulas call ger (CompositeImplicitAutograd: outer through views)
    # and a broadcast self's gradient is summed and reshaped (sum_to): both need the view entries
    needs("_reshape_alias", "view", "unsqueeze")
    for fn, arrays, layouts in cases:
        against_torch(*lib_pair(fn), arrays, [lay or "contiguous" for lay in layouts], grad_grad=True)


def test_inplace_variants_use_the_functional_entry() -> None:
    r = np.random.default_rng(8)
    s, a, b = r.standard_normal((3, 2)), r.standard_normal((3, 4)), r.standard_normal((4, 2))

    def fn(L: Any, s: Any, a: Any, b: Any) -> Any:
        y = s * 1.0
        y.addmm_(a, b, alpha=2)
        y.cumsum_(0)
        return y

    against_torch(*lib_pair(fn), [s, a, b], name=False)
    jy = fn(jtorch, *[jtorch.tensor(v, requires_grad=True) for v in (s, a, b)])
    assert jy.grad_fn.name() == "CumsumBackward0"


# ---- CompositeImplicitAutograd matrix products: through their decompositions -------------------------
MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)), ((2, 3, 4), (4, 2)),
                 ((4,), (2, 4, 2)), ((2, 3, 4), (4,)), ((3, 4), (2, 4, 2)), ((2, 1, 3, 4), (3, 4, 2)),
                 ((4, 3, 5), (5, 2)), ((5,), (4, 5, 2)), ((4, 3, 5), (5,)), ((3, 5), (4, 5, 2)),
                 ((2, 1, 3, 5), (4, 5, 2))]


@pytest.mark.parametrize("s1, s2", MATMUL_SHAPES)
def test_matmul_differentiates_through_its_decomposition(s1: tuple, s2: tuple) -> None:
    """Every shape case of matmul, the folding ones of tests/test_matmul.py included; either operand
    alone requiring grad (the fold depends on which does)."""
    needs("_unsafe_view", "_reshape_alias", "view", "expand", "squeeze.dim", "unsqueeze")
    r = np.random.default_rng(9)
    a, b = r.standard_normal(s1), r.standard_normal(s2)
    against_torch(*lib_pair(lambda L, x, y: L.matmul(x, y)), [a, b], name=False)
    for which in (0, 1):
        jx, jy = jtorch.tensor(a), jtorch.tensor(b)
        tx, ty = torch.tensor(a), torch.tensor(b)
        (jx if which == 0 else jy).requires_grad_()
        (tx if which == 0 else ty).requires_grad_()
        g = r.standard_normal(tuple(torch.matmul(tx, ty).shape))
        (jtorch.matmul(jx, jy) * jtorch.tensor(g)).sum().backward()
        (torch.matmul(tx, ty) * torch.tensor(g)).sum().backward()
        got, want = (jx.grad, tx.grad) if which == 0 else (jy.grad, ty.grad)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_outer_einsum_tensordot_trace() -> None:
    needs("_reshape_alias", "_unsafe_view", "view", "expand", "permute", "diagonal", "squeeze.dim", "unsqueeze")
    r = np.random.default_rng(10)
    n = r.standard_normal
    for fn, arrays in [(lambda L, a, b: L.outer(a, b), [n((3,)), n((4,))]),
                       (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [n((3, 4)), n((4, 2))]),
                       (lambda L, a, b: L.einsum("bij,bjk->bik", a, b), [n((2, 3, 4)), n((2, 4, 2))]),
                       (lambda L, a, b: L.einsum("i,i->", a, b), [n((4,)), n((4,))]),
                       (lambda L, a: L.einsum("ii->i", a), [n((3, 3))]),
                       (lambda L, a, b: L.tensordot(a, b, 1), [n((3, 4)), n((4, 2))]),
                       (lambda L, a, b: L.tensordot(a, b, ([0, 1], [1, 0])), [n((3, 4)), n((4, 3))]),
                       (lambda L, a: a.trace(), [n((3, 4))])]:
        against_torch(*lib_pair(fn), arrays, name=False)


def test_max_min_other_are_maximum_minimum() -> None:
    """max(a, b) / min(a, b) are CompositeImplicitAutograd over maximum / minimum, as in torch."""
    needs("maximum", "minimum")
    r = np.random.default_rng(11)
    for fn in (lambda L, a, b: L.max(a, b), lambda L, a, b: L.min(a, b), lambda L, a, b: a.max(b)):
        against_torch(*lib_pair(fn), [r.standard_normal((3, 4)), r.standard_normal((4,))])


def test_node_names_and_saved_values() -> None:
    x = jtorch.tensor(distinct((2, 3), 4), requires_grad=True)
    names = {"SumBackward0": x.sum(), "SumBackward1": x.sum(0), "MeanBackward0": x.mean(),
             "MeanBackward1": x.mean(1), "MaxBackward1": x.max(), "MaxBackward0": x.max(0)[0],
             "ProdBackward0": x.prod(), "ProdBackward1": x.prod(1), "VarBackward0": x.var(0),
             "StdBackward0": x.std(), "VarMeanBackward0": jtorch.var_mean(x)[0], "NormBackward0":
             jtorch.ops.aten.norm.Scalar(x), "LinalgVectorNormBackward0": x.norm(), "SoftmaxBackward0": x.softmax(0),
             "LogSoftmaxBackward0": x.log_softmax(1), "MmBackward0": x.mm(x.t()), "CumsumBackward0": x.cumsum(0),
             "AminmaxBackward0": jtorch.aminmax(x)[0], "DivBackward0": x.nanmean()}
    for want, y in names.items():
        assert y.grad_fn.name() == want
    assert x.softmax(0).grad_fn._saved_result is not None


@pytest.mark.parametrize("name, fn", [("sum", lambda b: b.sum()), ("mean", lambda b: b.mean()),
                                      ("sum_dim", lambda b: b.sum(0)), ("mean_dim", lambda b: b.mean(0, True)),
                                      ("cumsum", lambda b: b.cumsum(0))])
def test_sum_mean_cumsum_keep_only_their_input_s_shape(name: str, fn: Callable) -> None:
    """As torch's SumBackward0 saves self_sym_sizes, not self: the input is freed once nothing
    else holds it, and backward still gives the right gradient (float64 input, float32 result)."""
    import gc
    import weakref

    a = jtorch.ones(2, 3, dtype=jtorch.float64, requires_grad=True)
    b = a * 2
    ref = weakref.ref(b)
    y = fn(b) if name != "sum" else b.sum(dtype=jtorch.float32)
    del b
    gc.collect()
    assert ref() is None, name
    y.sum().backward()
    expect = {"sum": 2.0, "mean": 2.0 / 6, "sum_dim": 2.0, "mean_dim": 2.0 / 2, "cumsum": None}[name]
    if expect is None:
        expect = 2.0 * np.array([[2, 2, 2], [1, 1, 1]], np.float64)
    assert a.grad.dtype is jtorch.float64
    np.testing.assert_allclose(a.grad.numpy(), np.broadcast_to(expect, (2, 3)), rtol=1e-15)
