"""broadcast_tensors, broadcast_shapes, meshgrid ("ij"/"xy", the warning without indexing),
cartesian_prod, combinations (r, with_replacement), tril_indices and triu_indices against NumPy
and itertools; error types and texts against torch.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import jtorch
from _reduction_support import ALL, LAYOUTS, SETTINGS, check_error, make, np_of, values

seeds = st.integers(0, 2 ** 32 - 1)


@SETTINGS
@given(bs=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=3),
       dt=st.sampled_from(ALL), layout=st.sampled_from(LAYOUTS), seed=seeds)
def test_broadcast_tensors_and_shapes(bs: object, dt: np.dtype, layout: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pairs = [make(values(rng, dt, s), layout) for s in bs.input_shapes]
    got = jtorch.broadcast_tensors(*[p[0] for p in pairs])
    ref = np.broadcast_arrays(*[p[1] for p in pairs])
    for g, r, (t, _) in zip(got, ref, pairs):
        np.testing.assert_array_equal(np_of(g), r)
        assert g._storage is t._storage  # views
    assert jtorch.broadcast_shapes(*bs.input_shapes) == bs.result_shape
    assert isinstance(jtorch.broadcast_shapes(*bs.input_shapes), jtorch.Size)


@SETTINGS
@given(sizes=st.lists(st.integers(0, 4), min_size=1, max_size=4), zero_dim=st.booleans(), dt=st.sampled_from(ALL),
       indexing=st.sampled_from(["ij", "xy"]), seed=seeds)
def test_meshgrid_cartesian_prod(sizes: list, zero_dim: bool, dt: np.dtype, indexing: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrs = [values(rng, dt, (n,)) for n in sizes]
    if zero_dim:
        arrs[0] = values(rng, dt, ())
    ts = [jtorch.from_numpy(np.array(a)) for a in arrs]
    got = jtorch.meshgrid(*ts, indexing=indexing)
    ref = np.meshgrid(*[np.atleast_1d(a) for a in arrs], indexing=indexing)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(np_of(g), r)
    assert [tuple(g.shape) for g in jtorch.meshgrid(ts, indexing=indexing)] == [r.shape for r in ref]
    if not zero_dim:
        cp = jtorch.cartesian_prod(*ts)
        expected = np.array(list(itertools.product(*arrs)), dtype=dt).reshape(-1, len(arrs))
        np.testing.assert_array_equal(np_of(cp), expected if len(arrs) > 1 else arrs[0])


def test_meshgrid_warns_without_indexing() -> None:
    import jtorch.native.grids as grids

    grids._warned = False
    a = jtorch.arange(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x, y = jtorch.meshgrid(a, a)
        jtorch.meshgrid(a, a)
    msgs = [str(m.message) for m in w]
    assert msgs == ["torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."]
    assert x.stride() == (1, 0) and y.stride() == (0, 1)  # "ij"


@SETTINGS
@given(n=st.integers(0, 6), r=st.integers(0, 4), repl=st.booleans(), dt=st.sampled_from(ALL), seed=seeds)
def test_combinations(n: int, r: int, repl: bool, dt: np.dtype, seed: int) -> None:
    a = values(np.random.default_rng(seed), dt, (n,))
    got = jtorch.combinations(jtorch.from_numpy(a), r, repl)
    if r == 0:
        assert got.shape == (0,) and got.dtype == jtorch.from_numpy(a).dtype
        return
    pick = itertools.combinations_with_replacement if repl else itertools.combinations
    expected = np.array([[a[i] for i in c] for c in pick(range(n), r)], dtype=dt).reshape(-1, r)
    np.testing.assert_array_equal(np_of(got), expected)


@SETTINGS
@given(row=st.integers(0, 6), col=st.integers(0, 6), offset=st.integers(-7, 7),
       dtype=st.sampled_from([None, jtorch.int32, jtorch.int64]))
def test_tril_triu_indices(row: int, col: int, offset: int, dtype: object) -> None:
    kw = {} if dtype is None else {"dtype": dtype}
    for name in ("tril", "triu"):
        got = getattr(jtorch, name + "_indices")(row, col, offset, **kw)
        ref = np.stack(getattr(np, name + "_indices")(row, offset, col)).reshape(2, -1)
        assert got.dtype == (dtype or jtorch.int64)
        np.testing.assert_array_equal(got.numpy(), ref)
        m = getattr(jtorch, name + "_indices")(row, col, offset, device="meta", **kw)
        assert m.is_meta and m.shape == got.shape


@pytest.mark.parametrize("fn, exc, text", [
    (lambda T: T.broadcast_tensors(T.ones(2), T.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda T: T.broadcast_shapes((2,), (3,)), RuntimeError,
     "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had (3,); but expected "
     "shape should be broadcastable to [2]"),
    (lambda T: T.broadcast_shapes((-1,), (3,)), ValueError, "Attempting to broadcast a dimension with negative length!"),
    (lambda T: T.meshgrid(T.arange(3), T.arange(2.), indexing="ij"), RuntimeError,
     "meshgrid expects all tensors to have the same dtype"),
    (lambda T: T.meshgrid(T.arange(3), T.arange(3), indexing="foo"), RuntimeError,
     'torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo'),
    (lambda T: T.meshgrid(indexing="ij"), RuntimeError, "meshgrid expects a non-empty TensorList"),
    (lambda T: T.cartesian_prod(T.ones(2, 2)), RuntimeError, "Expect a 1D vector, but got shape [2, 2]"),
    (lambda T: T.cartesian_prod(), RuntimeError, "meshgrid expects a non-empty TensorList"),
    (lambda T: T.combinations(T.arange(3), -1), RuntimeError, "Expect a non-negative number, but got -1"),
    (lambda T: T.combinations(T.tensor(1)), RuntimeError, "Expect a 1D vector, but got shape []"),
    (lambda T: T.tril_indices(-1, 3), RuntimeError, "row must be non-negative, got-1"),
    (lambda T: T.triu_indices(3, -1), RuntimeError, "col must be non-negative, got-1"),
    (lambda T: T.tril_indices(3, 3, dtype=T.float32), NotImplementedError, "\"tril_indices\" not implemented for 'Float'"),
    (lambda T: T.triu_indices(3, 3, dtype=T.int16), NotImplementedError, "\"triu_indices\" not implemented for 'Short'"),
])
def test_errors(fn: object, exc: type, text: str) -> None:
    check_error(fn, exc, text)
