"""einsum and tensordot against NumPy in float64 (and torch when installed): random equations with
broadcasting, ellipses, implicit outputs, repeated labels (diagonals, traces) and empty dims over
every dtype torch takes; the sublist and list forms and contraction paths; tensordot with int,
list and tensor dims, out=; and torch's error texts."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
from _matmul_support import NUMERIC, check, jt, operand
from _torch_oracle import oracle_torch

LABELS = "abcdAB"


@st.composite
def einsum_problems(draw) -> tuple[str, list[tuple], int]:
    """(equation, operand shapes, terms per output element) for 1-3 operands: labels repeat within
    an operand (diagonals) and across operands (contractions), size-1 dims broadcast, an ellipsis
    covers broadcasting dims, and the output is implicit or an explicit permutation of a subset."""
    n_ops = draw(st.integers(1, 3))
    size = {c: draw(st.integers(0, 3) if draw(st.integers(0, 9)) == 0 else st.integers(1, 4)) for c in LABELS}
    use_ellipsis = draw(st.booleans())
    ell = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))] if use_ellipsis else []
    terms, shapes, used = [], [], set()
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(LABELS), min_size=0, max_size=3))
        shape = []
        for i, c in enumerate(labels):
            repeated = labels.count(c) > 1
            shape.append(1 if not repeated and size[c] > 1 and draw(st.integers(0, 4)) == 0 else size[c])
        term = "".join(labels)
        if use_ellipsis and draw(st.booleans()):
            k = draw(st.integers(0, len(ell)))
            own = [1 if draw(st.integers(0, 3)) == 0 else s for s in ell[len(ell) - k:]]
            pos = draw(st.integers(0, len(labels)))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + own + shape[pos:]
        terms.append(term)
        shapes.append(tuple(shape))
        used.update(labels)
    lhs = ",".join(terms)
    if draw(st.booleans()):
        equation = lhs
    else:
        out = draw(st.permutations(sorted(used)))[:draw(st.integers(0, len(used)))]
        rhs = "".join(out)
        if any("..." in t for t in terms) and draw(st.booleans()):
            pos = draw(st.integers(0, len(rhs)))
            rhs = rhs[:pos] + "..." + rhs[pos:]
        equation = lhs + "->" + rhs
    if "->" in equation:
        rhs = equation.partition("->")[2]
        summed = [c for c in used if c not in rhs]
        ell_summed = "..." not in rhs
    else:  # implicit: the labels seen once are the output
        summed = [c for c in used if lhs.count(c) > 1]
        ell_summed = False
    terms = math.prod(size[c] for c in summed) * (math.prod(ell) if ell_summed else 1)
    return equation, shapes, terms + n_ops + 1


def _ref(equation: str):
    """np.einsum, which cannot sum over ellipsis dims: those go to the front of the output and are
    summed after."""
    lhs, arrow, rhs = equation.partition("->")
    if not arrow or "..." in rhs or "..." not in lhs:
        return lambda *arrays: np.einsum(equation, *arrays, optimize=False)

    def ref(*arrays):
        nell = max(a.ndim - len(t.replace("...", "")) for a, t in zip(arrays, lhs.split(",")) if "..." in t)
        r = np.einsum(lhs + "->..." + rhs, *arrays, optimize=False)
        return r.sum(axis=tuple(range(nell)))

    return ref


@settings(max_examples=200, deadline=None, derandomize=True)
@given(problem=einsum_problems(), dtype=st.sampled_from(NUMERIC), layout=st.sampled_from(["contiguous", "transposed",
                                                                                          "strided"]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_einsum_matches_numpy(problem, dtype, layout, seed) -> None:
    equation, shapes, terms = problem
    rng = np.random.default_rng(seed)
    ops = [operand(rng, dtype, s, layout) for s in shapes]
    tensors, arrays = [t for t, _ in ops], [a for _, a in ops]
    try:
        r = jtorch.einsum(equation, *tensors)
    except RuntimeError as e:
        # integer sums promote to int64 (as torch.sum does), which bmm then refuses to mix with the
        # other operand's dtype: torch raises the same error
        assert dtype.kind in "iu" and "expected scalar type" in str(e) and "Long" in str(e), (equation, shapes, e)
        torch = oracle_torch()
        with pytest.raises(RuntimeError) as info:
            torch.einsum(equation, *[torch.from_numpy(np.array(a, order="C")) for a in arrays])
        assert str(info.value) == str(e)
        return
    got = np.dtype(r.dtype.numpy)
    if got != dtype:
        # integer sums give int64 while products of the narrower dtype wrap first: modulo the
        # input dtype's width the result is exact, and it is torch's bit for bit
        assert dtype.kind in "iu" and got == np.int64, (equation, got)
        check(r.numpy().astype(dtype), dtype, _ref(equation), arrays, terms, (equation, shapes))
        torch = oracle_torch()
        t = torch.einsum(equation, *[torch.from_numpy(np.array(a, order="C")) for a in arrays])
        np.testing.assert_array_equal(r.numpy(), t.numpy())
        return
    # each pairwise contraction rounds to the dtype (float16 too), as torch's do
    check(r, got, _ref(equation), arrays, terms, (equation, shapes, layout), rounded_steps=len(shapes))
    meta = jtorch.einsum(equation, *[jtorch.empty(s, dtype=jt(dtype), device="meta") for s in shapes])
    assert meta.is_meta and meta.shape == r.shape and meta.dtype == r.dtype


@pytest.mark.parametrize("equation, shapes", [
    ("ij->i", [(2, 3)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij,k->i", [(2, 3), (4,)]), ("i,i->", [(3,), (3,)]),
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("i,j->ij", [(2,), (3,)]), ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 1, 3), (2, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("...i,...i", [(2, 3), (3,)]),
])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.bool_, np.float16, np.complex64])
def test_einsum_dtypes_match_torch(equation, shapes, dtype) -> None:
    """The result dtype (sums of integers and bools give int64) and bool's refusal, as torch."""
    torch = oracle_torch()
    arrays = [np.ones(s, dtype) for s in shapes]
    try:
        expected = torch.einsum(equation, *[torch.from_numpy(a) for a in arrays])
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e)) as info:
            jtorch.einsum(equation, *[jtorch.from_numpy(a) for a in arrays])
        assert str(info.value) == str(e)
        return
    r = jtorch.einsum(equation, *[jtorch.from_numpy(a) for a in arrays])
    assert str(r.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(r.numpy(), expected.numpy())


def test_einsum_forms_and_paths() -> None:
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    ja, jb, jc = (jtorch.from_numpy(x) for x in (a, b, c))
    ref = a @ b @ c
    np.testing.assert_allclose(jtorch.einsum("ij,jk,kl->il", ja, jb, jc).numpy(), ref)
    np.testing.assert_allclose(jtorch.einsum("ij,jk,kl->il", [ja, jb, jc]).numpy(), ref)
    np.testing.assert_allclose(jtorch.einsum(ja, [0, 1], jb, [1, 2], jc, [2, 3], [0, 3]).numpy(), ref)
    np.testing.assert_allclose(jtorch.einsum(ja, [0, Ellipsis], jb, [Ellipsis, 2]).numpy(),
                               np.einsum("a...,...c", a, b))
    for path in ([1, 2, 0, 1], [0, 1, 0, 1], [2, 1, 1, 0]):
        np.testing.assert_allclose(jtorch.ops.aten.einsum(" i j , j k,kl -> i l", [ja, jb, jc], path=path).numpy(), ref)
    v = jtorch.from_numpy(a).t()  # einsum of one operand without sums returns a view
    r = jtorch.einsum("ij->ji", v)
    assert r.data_ptr() == v.data_ptr() and r.stride() == (3, 1)


def _library_einsum_errors():
    return [
        (lambda L: L.einsum("ij", L.ones(2, 3), L.ones(3)),
         "einsum(): more operands were provided than specified in the equation"),
        (lambda L: L.einsum("i,j", L.ones(2)), "einsum(): fewer operands were provided than specified in the equation"),
        (lambda L: L.einsum("i.j", L.ones(2, 3)), "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
        (lambda L: L.einsum("...i...", L.ones(2, 3)),
         "einsum(): found '.' for operand 0 for which an ellipsis was already found"),
        (lambda L: L.einsum("i1", L.ones(2, 3)),
         "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
        (lambda L: L.einsum("ij->i2", L.ones(2, 3)),
         "einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in [a-zA-Z]"),
        (lambda L: L.einsum("ijk", L.ones(2, 3)), "einsum(): the number of subscripts in the equation (3) does not "
         "match the number of dimensions (2) for operand 0 and no ellipsis was given"),
        (lambda L: L.einsum("ijk...", L.ones(2, 3)), "einsum(): the number of subscripts in the equation (3) is more "
                                                     "than the number of dimensions (2) for operand 0"),
        (lambda L: L.einsum("ij->ii", L.ones(2, 3)),
         "einsum(): output subscript i appears more than once in the output"),
        (lambda L: L.einsum("ij->k", L.ones(2, 3)),
         "einsum(): output subscript k does not appear in the equation for any input operand"),
        (lambda L: L.einsum("...ij->...i...", L.ones(2, 3)),
         "einsum(): found '.' for output but an ellipsis (...) was already found"),
        (lambda L: L.einsum("ij->.i", L.ones(2, 3)),
         "einsum(): found '.' for output that is not part of any ellipsis (...)"),
        (lambda L: L.einsum("ij,jk", L.ones(2, 3), L.ones(4, 5)),
         "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3"),
        (lambda L: L.einsum("ii", L.ones(2, 3)),
         "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
        (lambda L: L.einsum("...,...", L.ones(2, 3), L.ones(4, 3)), "einsum(): dimension 0 covered by ellipsis in "
         "operand 1has size 4 which does not broadcast with previously seen ellipsis with size 2 for the respective "
         "dimension"),
        (lambda L: L.einsum("ij,jk->ik", L.ones(2, 3), L.ones(3, 4, dtype=L.float64)),
         "expected scalar type Float but found Double"),
        (lambda L: L.ops.aten.einsum("i,i,i", [L.ones(2)] * 3, path=[0, 1]),
         "einsum(): expected contraction path given in path parameter to have size 4 but got 2"),
        (lambda L: L.ops.aten.einsum("i,i,i", [L.ones(2)] * 3, path=[1, 1, 0, 1]),
         "einsum(): invalid contraction (1, 1) cannot contract an operand with itself"),
        (lambda L: L.ops.aten.einsum("i,i,i", [L.ones(2)] * 3, path=[0, 3, 0, 1]),
         "einsum(): invalid contraction (0, 3) operand index is out of bounds"),
        (lambda L: L.ops.aten.einsum("i", [], path=None), "einsum(): must provide at least one operand"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4, dtype=L.float64), dims=1),
         "both inputs should have same dtype"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=([1], [0, 1])),
         "both dimension lists should have same length"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(4, 4), dims=([1], [0])),
         "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 in dim 0"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=-1), "tensordot expects dims >= 0, but got dims=-1"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=3),
         "tensordot expects dims < ndim_a or ndim_b, but got dims=3"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=1.5), "tensordot expects dims to be int or "
         "tuple[list[int], list[int]] or list[list[int]] containing two lists, but got dims=1.5"),
        (lambda L: L.tensordot(L.ones(3, 3), L.ones(3, 3), dims=([0, 0], [0, 1])),
         "dim 0 appears multiple times in the list of dims"),
        (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=1, out=L.ones(2, 4, dtype=L.float64)),
         "tensordot: Expected the output tensor to have dtype Float, but got an output tensor with dtype Double"),
        (lambda L: L.tensordot(L.ones(2, 3, dtype=L.bool), L.ones(3, 4, dtype=L.bool), dims=1),
         "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
        (lambda L: L.einsum("i,i->", L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool)),
         "\"bmm\" not implemented for 'Bool'"),
    ]


ERRORS = _library_einsum_errors()


@pytest.mark.parametrize("call, message", ERRORS, ids=[m[:50] for _, m in ERRORS])
def test_error_texts(call, message) -> None:
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        call(jtorch)
    assert str(info.value) == message


@pytest.mark.parametrize("call, message", ERRORS, ids=[m[:50] for _, m in ERRORS])
def test_error_texts_match_torch(call, message) -> None:
    torch = oracle_torch()
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        call(torch)
    assert str(info.value) == message


def test_python_level_errors() -> None:
    with pytest.raises(ValueError, match=r"^einsum\(\): must specify the equation string and at least one operand"):
        jtorch.einsum("i")
    with pytest.raises(ValueError, match=r"^einsum\(\): subscript in subscript list is not within the valid range"):
        jtorch.einsum(jtorch.ones(2), [52])
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], "
                                         r"but got 5\)$"):
        jtorch.tensordot(jtorch.ones(2, 3), jtorch.ones(3, 4), dims=([5], [0]))


# ---- tensordot ---------------------------------------------------------------------------------------------
@st.composite
def tensordot_problems(draw) -> tuple[tuple, tuple, object, tuple]:
    """Shapes of a and b, a `dims` argument (int, lists with negative dims, or a tensor), and the
    contracted dims as NumPy's tensordot takes them."""
    nc = draw(st.integers(0, 3))
    contracted = [draw(st.integers(0, 4)) for _ in range(nc)]
    free_a = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    free_b = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    form = draw(st.sampled_from(["int", "lists", "tensor"]))
    if form == "int":
        return tuple(free_a + contracted), tuple(contracted + free_b), nc, (list(range(-nc, 0)), list(range(nc)))
    na, nb = len(free_a) + nc, len(free_b) + nc
    pos_a = draw(st.permutations(range(na)))[:nc]
    pos_b = draw(st.permutations(range(nb)))[:nc]
    sa, sb = [0] * na, [0] * nb
    rest_a, rest_b = iter(free_a), iter(free_b)
    for i in range(na):
        sa[i] = contracted[pos_a.index(i)] if i in pos_a else next(rest_a)
    for i in range(nb):
        sb[i] = contracted[pos_b.index(i)] if i in pos_b else next(rest_b)
    dims_a = [d - na if draw(st.booleans()) else d for d in pos_a]
    dims_b = [d - nb if draw(st.booleans()) else d for d in pos_b]
    dims = (dims_a, dims_b) if form == "lists" else jtorch.tensor([dims_a, dims_b], dtype=jtorch.int64) if nc else (
        [], [])
    return tuple(sa), tuple(sb), dims, (list(pos_a), list(pos_b))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(problem=tensordot_problems(), dtype=st.sampled_from(NUMERIC),
       layouts=st.tuples(*[st.sampled_from(["contiguous", "transposed", "strided"])] * 2), out=st.booleans(),
       seed=st.integers(0, 2 ** 32 - 1))
def test_tensordot_matches_numpy(problem, dtype, layouts, out, seed) -> None:
    sa, sb, dims, np_axes = problem
    rng = np.random.default_rng(seed)
    a, av = operand(rng, dtype, sa, layouts[0])
    b, bv = operand(rng, dtype, sb, layouts[1])
    if out:
        o = jtorch.empty(0, dtype=jt(dtype))
        r = jtorch.tensordot(a, b, dims=dims, out=o)
        assert r is o
    else:
        r = jtorch.tensordot(a, b, dims=dims)
    terms = math.prod(sa[d] for d in np_axes[0]) + 2
    check(r, dtype, lambda x, y: np.tensordot(x, y, axes=np_axes), [av, bv], terms, (sa, sb, dims))


def test_tensordot_broadcast_dims_keep_the_dtype() -> None:
    """A contracted dim of size 1 on one side sums the other side at once, in its own dtype."""
    a = jtorch.from_numpy(np.arange(6, dtype=np.int8).reshape(2, 3) * 50)
    r = jtorch.tensordot(a, jtorch.ones(1, 4, dtype=jtorch.int8), dims=([1], [0]))
    assert r.dtype == jtorch.int8
    expected = (np.arange(6).reshape(2, 3) * 50).sum(1, keepdims=True).astype(np.int8) * np.ones((1, 4), np.int8)
    np.testing.assert_array_equal(r.numpy(), expected)
    r = jtorch.tensordot(jtorch.ones(2, 3), jtorch.ones(3, 4), dims=jtorch.tensor(1))
    assert r.tolist() == [[3.0] * 4] * 2
