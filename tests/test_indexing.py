"""Tensor.__getitem__ / __setitem__ and the index / index_put_ operators: views for basic indices,
copies for advanced ones, NumPy's results (hypothesis), PyTorch's errors, Meta shapes, versions."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch import dtypes as D
from jtorch.device import CPU
from jtorch.storage import CPUStorage
from jtorch.tensor import Tensor, contiguous_strides
from _torch_oracle import oracle_torch


def J(a) -> Tensor:
    a = np.array(a, order="C")
    return Tensor._make(CPUStorage(a.reshape(-1)), a.shape, contiguous_strides(a.shape), 0,
                        D.from_numpy_dtype(a.dtype), CPU)


def N(t: Tensor) -> np.ndarray:
    return t._numpy_view()


def arange(*shape: int, dtype=np.float64) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


# ---- basic indexing: views -------------------------------------------------------------------------
BASIC = [
    1, -1, slice(1, None), slice(None, None, 2), slice(-5, 100, 3), (0, 1), (slice(None), 2), (None,), None,
    Ellipsis, (Ellipsis, 1), (1, Ellipsis, None), (None, 0, None, slice(1, 3)), (), (slice(None),) * 3,
    (Ellipsis, None), (0, 0, 0), (slice(2, 1),), (np.int64(1), np.int32(-2)), slice(np.int64(1), None),
]


@pytest.mark.parametrize("index", BASIC, ids=[repr(i) for i in BASIC])
def test_basic_indexing_is_a_view(index):
    a = arange(3, 4, 5)
    x = J(a)
    v = x[index]
    ref = a[index]
    assert tuple(v.shape) == ref.shape
    np.testing.assert_array_equal(N(v), ref)
    assert v._base is x and v._vc is x._vc and v.untyped_storage() is x.untyped_storage()
    assert v is not x
    # NumPy's strides, except for size-1 dims whose stride is arbitrary
    assert [st for n, st in zip(v.shape, v.stride()) if n > 1] == [s // 8 for n, s in zip(ref.shape, ref.strides) if n > 1]
    N(x)[...] = -a  # the view sees writes to its base
    np.testing.assert_array_equal(N(v), (-a)[index])


def test_basic_indexing_strides_match_torch():
    torch = oracle_torch()
    a = arange(3, 4, 5)
    x, t = J(a), torch.from_numpy(a.copy())
    for index in BASIC:
        if isinstance(index, tuple) and any(isinstance(i, np.integer) for i in index):
            continue
        v, tv = x[index], t[index]
        assert tuple(v.shape) == tuple(tv.shape), index
        assert v.stride() == tv.stride() and v.storage_offset() == tv.storage_offset(), index


def test_bool_and_0dim_indices():
    a = arange(2, 3)
    x = J(a)
    assert tuple(x[True].shape) == (1, 2, 3) and x[True]._base is None  # an index op: a copy
    assert tuple(x[False].shape) == (0, 2, 3)
    assert tuple(x[J(np.array(True))].shape) == (1, 2, 3)
    assert tuple(x[J(np.array(False))].shape) == (0, 2, 3)
    v = x[J(np.array(1))]  # a 0-dim integer tensor selects: a view
    assert v._base is x
    np.testing.assert_array_equal(N(v), a[1])
    s = J(np.array(5.0))
    assert tuple(s[...].shape) == () and s[...]._base is s
    assert tuple(s[None].shape) == (1,)
    assert tuple(s[True].shape) == (1,)
    assert tuple(s[()].shape) == ()
    w = x[np.array(1)]  # 0-dim NumPy integer array: select as well
    assert w._base is x


# ---- advanced indexing: copies ---------------------------------------------------------------------
ADVANCED = [
    [0, 2], [[0, 1], [2, 2]], (slice(None), [1, 0]), ([0, 2], [1, 3]), ([0], slice(None), [4, 1]),
    (0, slice(None), [0, 1]), ([1], 1, slice(None)), ([[0], [2]], [1, 3]), (Ellipsis, [0, -1]),
    ([0, 1], None, [1, 2]), (None, [1], slice(1, 3), [[0], [2]]), ([True, False, True],),
    (slice(None), [True, False, True, True]), (1, [], slice(None)),
]


def _to_torch_semantics(a: np.ndarray, index) -> np.ndarray:
    """NumPy result of `index` read as PyTorch does: ints (and 0-dim integer indices) select first,
    as basic indices; the advanced indices then apply to what is left."""
    if isinstance(index, list) and any(isinstance(i, (list, slice)) or i is None or i is Ellipsis for i in index):
        index = tuple(index)  # the legacy NumPy heuristic PyTorch keeps
    index = index if isinstance(index, tuple) else (index,)
    specified = sum(np.asarray(i).ndim if np.asarray(i).dtype == bool and not isinstance(i, bool) else 1
                    for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))
    k1, k2 = [], []
    for i in index:
        if i is Ellipsis:
            k1 += [slice(None)] * (a.ndim - specified)
            k2 += [slice(None)] * (a.ndim - specified)
        elif i is None:
            k1.append(None)
            k2.append(slice(None))
        elif isinstance(i, bool):
            k1.append(None)
            k2.append(np.array([0] if i else [], dtype=np.int64))
        elif isinstance(i, (int, np.integer)) or (isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype != bool):
            k1.append(int(i))
        elif isinstance(i, slice):
            k1.append(i)
            k2.append(slice(None))
        else:
            arr = np.asarray(i)
            if arr.dtype != bool:
                arr = arr.astype(np.int64)
            k1 += [slice(None)] * max(arr.ndim if arr.dtype == bool else 1, 0)
            k2.append(arr)
    return a[tuple(k1) + (Ellipsis,)], tuple(k2)


def numpy_getitem(a: np.ndarray, index) -> np.ndarray:
    basic, rest = _to_torch_semantics(a, index)
    return basic[rest] if any(not isinstance(r, slice) for r in rest) else basic[rest].copy()


@pytest.mark.parametrize("index", ADVANCED, ids=[repr(i) for i in ADVANCED])
def test_advanced_indexing_copies(index):
    a = arange(3, 4, 5)
    x = J(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the non-tuple sequence deprecation
        r = x[index]
    ref = numpy_getitem(a, index)
    assert tuple(r.shape) == ref.shape
    np.testing.assert_array_equal(N(r), ref)
    assert r._base is None and r.untyped_storage() is not x.untyped_storage() and r.is_contiguous()


@pytest.mark.parametrize("index", ADVANCED, ids=[repr(i) for i in ADVANCED])
def test_advanced_indexing_matches_torch(index):
    torch = oracle_torch()
    a = arange(3, 4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r, tr = J(a)[index], torch.from_numpy(a.copy())[index]
    assert tuple(r.shape) == tuple(tr.shape)
    np.testing.assert_array_equal(N(r), tr.numpy())


def test_int_with_advanced_follows_torch_not_numpy():
    a = arange(2, 3, 4)
    r = J(a)[0, :, [0, 1]]
    assert tuple(r.shape) == (3, 2)  # NumPy gives (2, 3): it broadcasts the int with the list
    np.testing.assert_array_equal(N(r), a[0][:, [0, 1]])


def test_masks_cover_their_dims():
    a = arange(2, 3, 4)
    m = np.array([[True, False, True], [False, True, True]])
    x = J(a)
    np.testing.assert_array_equal(N(x[J(m), 1]), a[m, 1])
    np.testing.assert_array_equal(N(x[J(m), None, 1]), a[m, None, 1])
    np.testing.assert_array_equal(N(x[J(m)]), a[m])
    np.testing.assert_array_equal(N(x[:, J(m[0])]), a[:, m[0]])
    np.testing.assert_array_equal(N(x[m]), a[m])  # a NumPy mask
    np.testing.assert_array_equal(N(x[J(a > 10)]), a[a > 10])
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        r = x[J(m.astype(np.uint8))]
    np.testing.assert_array_equal(N(r), a[m])


def test_sequence_heuristics():
    a = arange(3, 4)
    x = J(a)
    np.testing.assert_array_equal(N(x[[0, 2]]), a[[0, 2]])
    np.testing.assert_array_equal(N(x[[0.0, 2.0]]), a[[0, 2]])  # floats in a list become longs
    assert tuple(x[[]].shape) == (0, 4)
    np.testing.assert_array_equal(N(x[[True, False, True]]), a[[True, False, True]])
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing is deprecated"):
        r = x[[0, slice(None)]]  # a list holding a slice means a tuple
    np.testing.assert_array_equal(N(r), a[0, :])
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        r = x[[[0, 1], [1, 1]]]
    np.testing.assert_array_equal(N(r), a[[0, 1], [1, 1]])
    np.testing.assert_array_equal(N(x[np.array([2, 0])]), a[[2, 0]])
    np.testing.assert_array_equal(N(x[J(np.array([2, 0], dtype=np.int32))]), a[[2, 0]])
    np.testing.assert_array_equal(N(x[(J(np.array([[1], [0]])), J(np.array([0, 1, 3])))]), a[[[1], [0]], [0, 1, 3]])


def _err(f):
    with pytest.raises(Exception) as e:
        f()
    return type(e.value), str(e.value)


GETITEM_ERRORS = [
    (lambda x: x[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[-4], IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[None, 5], IndexError, "index 5 is out of bounds for dimension 1 with size 3"),
    (lambda x: x[1, :, 7], IndexError, "index 7 is out of bounds for dimension 2 with size 5"),
    (lambda x: x[:, [7]], IndexError, "index 7 is out of bounds for dimension 0 with size 4"),
    (lambda x: x[[0], :, [-6]], IndexError, "index -6 is out of bounds for dimension 1 with size 5"),
    (lambda x: x[[5], :, [1]], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[1, 1, 1, 1], IndexError, "too many indices for tensor of dimension 3"),
    (lambda x: x[0][0][0][0], IndexError,
     "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a "
     "0-dim tensor to a number"),
    (lambda x: x[0, 0, 0][1:], IndexError, "slice() cannot be applied to a 0-dim tensor."),
    (lambda x: x[0, 0, 0][:, None], IndexError, "too many indices for tensor of dimension 0"),
    (lambda x: x[::-1], ValueError, "step must be greater than zero"),
    (lambda x: x[:, ::-2], ValueError, "step must be greater than zero"),
    (lambda x: x[::0], ValueError, "slice step cannot be zero"),
    (lambda x: x[1.5], IndexError,
     "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got float)"),
    (lambda x: x[{1: 2}], IndexError,
     "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got dict)"),
    (lambda x: x[1.5:], TypeError, "slice indices must be integers or None or have an __index__ method"),
    (lambda x: x[J(np.array([1.0]))], IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda x: x[J(np.array([1], dtype=np.int16))], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda x: x[J(np.array([True, False]))], IndexError,
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4, 5] at index 0"),
    (lambda x: x[:, J(np.ones((4, 4), bool))], IndexError,
     "The shape of the mask [4, 4] at index 1 does not match the shape of the indexed tensor [3, 4, 5] at index 2"),
    (lambda x: x[[0, 1], [0, 1, 2]], IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
    (lambda x: x[[[True]]], IndexError,
     "The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [3, 4, 5] at index 0"),
]


@pytest.mark.parametrize("i", range(len(GETITEM_ERRORS)))
def test_getitem_errors(i):
    f, exc, msg = GETITEM_ERRORS[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _err(lambda: f(J(arange(3, 4, 5)))) == (exc, msg)


def test_getitem_errors_are_torchs():
    torch = oracle_torch()
    for f, exc, msg in GETITEM_ERRORS:
        g = dict(f.__globals__, J=lambda a: torch.from_numpy(np.array(a, order="C")))
        tf = type(f)(f.__code__, g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _err(lambda: tf(torch.from_numpy(arange(3, 4, 5)))) == (exc, msg)


def test_index_operator_errors():
    x = J(arange(3))
    index = jtorch.ops.aten.index.Tensor
    assert _err(lambda: index(x, [J(np.array([0])), J(np.array([0]))])) == (
        IndexError, "too many indices for tensor of dimension 1 (got 2)")
    assert _err(lambda: index(x, [])) == (IndexError, "at least one index must be provided")
    m = jtorch.empty(3, device="meta")
    assert _err(lambda: index(x, [jtorch.empty(1, dtype=jtorch.int64, device="meta")]))[0] is RuntimeError


# ---- meta ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", BASIC + ADVANCED + [J(np.array([True, False, True])), (Ellipsis, J(arange(5) > 2))],
                         ids=[repr(i) for i in BASIC + ADVANCED] + ["mask", "mask2"])
def test_getitem_on_meta(index):
    a = arange(3, 4, 5)
    m = jtorch.empty(3, 4, 5, dtype=jtorch.float64, device="meta")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r, ref = m[index], J(a)[index]
    assert r.is_meta and tuple(r.shape) == tuple(ref.shape) and r.stride() == ref.stride()


def test_setitem_on_meta():
    m = jtorch.empty(3, 4, device="meta")
    v = m._version
    m[0] = 1.0
    m[:, 1:] = jtorch.empty(3, 3, device="meta")
    m[[0, 2]] = 2.0
    m[J(np.array([True, False, True]))] = jtorch.empty(4, device="meta")
    assert m._version == v + 4
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast"):
        m[[0, 2]] = jtorch.empty(3, device="meta")
    with pytest.raises(TypeError, match="can't assign a str to a torch.meta.FloatTensor"):
        m[0] = "a"


# ---- setitem ---------------------------------------------------------------------------------------
def test_setitem_basic_writes_through_view_and_bumps_version():
    a = arange(3, 4)
    x = J(a)
    v = x[1:]
    assert x._version == v._version == 0
    x[0] = 1.0
    assert x._version == v._version == 1
    x[:, 1] = J(np.array([7.0, 8.0, 9.0]))
    x[1:, ::2] = J(np.array([[-1.0, -2.0]]))  # broadcast
    x[None, 2, None] = J(np.ones((1, 1, 1, 4)))  # leading 1s of the value are dropped
    x[False] = 5.0  # nothing
    a[0] = 1
    a[:, 1] = [7, 8, 9]
    a[1:, ::2] = [[-1, -2]]
    a[2] = 1
    np.testing.assert_array_equal(N(x), a)
    assert x._version == 4
    x[True] = 3.0
    assert (N(x) == 3).all() and x._version == 5


def test_setitem_converts_dtype():
    x = J(np.zeros(4, dtype=np.int64))
    x[0] = 1.7
    x[1:3] = J(np.array([2.5, 3.5]))
    x[[3]] = 9
    assert N(x).tolist() == [1, 2, 3, 9]
    f = J(np.zeros(3))
    f[[0, 1]] = True
    f[2] = np.int32(4)
    f[J(np.array([False, False, True]))] = J(np.array(5))  # one mask and one value: masked_fill converts
    assert N(f).tolist() == [1.0, 1.0, 5.0]


def test_setitem_advanced_bumps_version_and_copies_values():
    x = J(np.zeros((3, 4)))
    v = x.t()
    x[[0, 2], 1:3] = J(np.array([[1.0, 2.0]]))
    assert v._version == 1
    x[J(np.array([True, False, True]))] = 4.0
    assert v._version == 2
    expect = np.zeros((3, 4))
    expect[[0, 2], 1:3] = [[1, 2]]
    expect[[True, False, True]] = 4
    np.testing.assert_array_equal(N(x), expect)


SETITEM_ERRORS = [
    (lambda x: x.__setitem__([0], J(np.ones(3, dtype=np.int64))), RuntimeError,
     "Index put requires the source and destination dtypes match, got Double for the destination and Long for the "
     "source."),
    (lambda x: x.__setitem__([0], J(np.ones(2))), RuntimeError,
     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1, 3]"),
    (lambda x: x.__setitem__(0, J(np.ones(2))), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  Target "
     "sizes: [3].  Tensor sizes: [2]"),
    (lambda x: x.__setitem__(0, J(np.ones((2, 1, 3)))), RuntimeError,
     "expand(torch.DoubleTensor{[2, 1, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
     "the number of dimensions in the tensor (3)"),
    (lambda x: x.__setitem__(5, 1.0), IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda x: x.__setitem__([5], 1.0), IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda x: x.__setitem__(slice(None, None, -1), 1.0), ValueError, "step must be greater than zero"),
    (lambda x: x.__setitem__(0, "a"), TypeError, "can't assign a str to a torch.DoubleTensor"),
    (lambda x: x.__setitem__(False, None), TypeError, "can't assign a NoneType to a torch.DoubleTensor"),
    (lambda x: x.__setitem__(0, [1.0]), TypeError, "can't assign a list to a torch.DoubleTensor"),
    (lambda x: x.__setitem__(0, np.float32(1.0)), TypeError, "can't assign a numpy.float32 to a torch.DoubleTensor"),
    (lambda x: x.__setitem__([0, 1], x[1]), RuntimeError,
     "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
     "location. Please clone() the tensor before performing the operation."),
    (lambda x: x.__setitem__(J(np.array([True, False, True])), J(np.ones(2))), IndexError,
     "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0"),
]


@pytest.mark.parametrize("i", range(len(SETITEM_ERRORS)))
def test_setitem_errors(i):
    f, exc, msg = SETITEM_ERRORS[i]
    assert _err(lambda: f(J(arange(2, 3)))) == (exc, msg)


def test_setitem_errors_are_torchs():
    torch = oracle_torch()
    for f, exc, msg in SETITEM_ERRORS:
        g = dict(f.__globals__, J=lambda a: torch.from_numpy(np.array(a, order="C")))
        tf = type(f)(f.__code__, g)
        assert _err(lambda: tf(torch.from_numpy(arange(2, 3)))) == (exc, msg)


def test_delitem():
    with pytest.raises(TypeError, match="Tensor does not support deleting items"):
        del J(arange(3))[0]


def test_index_put_operators():
    x = J(np.zeros((2, 3)))
    idx = (J(np.array([0, 0, 1])),)
    r = jtorch.index_put(x, idx, J(np.array(5.0)), accumulate=True)
    assert N(r).tolist() == [[10.0] * 3, [5.0] * 3] and (N(x) == 0).all() and x._version == 0
    y = x.index_put_([None, J(np.array([2, 2]))], J(np.array([1.0, 2.0])), True)
    assert y is x and x._version == 1
    assert N(x).tolist() == [[0.0, 0.0, 3.0], [0.0, 0.0, 3.0]]
    jtorch.index_put_(x, [J(np.array([1])), J(np.array([0]))], J(np.array([4.0])))
    assert N(x)[1, 0] == 4.0 and x._version == 2
    with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors is deprecated"):
        e = J(np.zeros(3)).expand(2, 3)
        e[[0]] = 1.0


# ---- hypothesis: random index expressions against NumPy --------------------------------------------
@st.composite
def index_case(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    items = []
    dim = 0
    used_ellipsis = False
    adv_kind = draw(st.sampled_from(["int", "mask", "none"]))
    bshape = draw(st.sampled_from([(1,), (2,), (3,), (2, 1), (1, 3), (2, 3)]))
    n_mask = 0
    while True:
        left = ndim - dim
        choices = ["none", "stop"]
        if left:
            choices += ["int", "slice", "slice", "tint"]
            if adv_kind == "int":
                choices += ["intarr", "list"]
            if adv_kind == "mask" and n_mask == 0:
                choices += ["mask"]
        if not used_ellipsis:
            choices += ["ellipsis"]
        if adv_kind != "none":
            choices += ["bool"] if draw(st.integers(0, 5)) == 0 else []
        c = draw(st.sampled_from(choices))
        if c == "stop" or len(items) > 6:
            break
        if c == "none":
            items.append(("none",))
        elif c == "ellipsis":
            used_ellipsis = True
            # the Ellipsis stands for some dims: the following items index the trailing ones
            take = draw(st.integers(0, left))
            dim += take
            items.append(("ellipsis",))
        elif c == "bool":
            items.append(("bool", draw(st.booleans())))
        else:
            n = shape[dim]
            if c in ("int", "tint"):
                if n == 0:
                    continue
                items.append((c, draw(st.integers(-n, n - 1))))
                dim += 1
            elif c == "slice":
                start = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
                stop = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
                step = draw(st.one_of(st.none(), st.integers(1, 3)))
                items.append(("slice", slice(start, stop, step)))
                dim += 1
            elif c in ("intarr", "list"):
                if n == 0:
                    continue
                shp = tuple(b if draw(st.booleans()) else 1 for b in bshape)
                shp = shp[draw(st.integers(0, len(shp) - 1)):]
                vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(shp)), max_size=int(np.prod(shp))))
                items.append((c, np.array(vals, dtype=np.int64).reshape(shp)))
                dim += 1
            elif c == "mask":
                k = draw(st.integers(1, min(2, left)))
                m = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[dim:dim + k])),
                                           max_size=int(np.prod(shape[dim:dim + k])))), dtype=bool)
                items.append(("mask", m.reshape(shape[dim:dim + k])))
                n_mask += 1
                dim += k
    while used_ellipsis and dim < ndim:  # the Ellipsis must stand for exactly the dims it skipped
        items.append(("slice", slice(None)))
        dim += 1
    return shape, items


def build_index(items, as_tensor: bool):
    """The index expression for jtorch (tensors as jtorch tensors or lists) and for the oracle."""
    ours, oracle = [], []
    for it in items:
        kind = it[0]
        if kind == "none":
            ours.append(None)
            oracle.append(None)
        elif kind == "ellipsis":
            ours.append(Ellipsis)
            oracle.append(Ellipsis)
        elif kind == "bool":
            ours.append(it[1])
            oracle.append(it[1])
        elif kind == "int":
            ours.append(it[1])
            oracle.append(it[1])
        elif kind == "tint":
            ours.append(J(np.array(it[1])))
            oracle.append(np.array(it[1]))
        elif kind == "slice":
            ours.append(it[1])
            oracle.append(it[1])
        elif kind == "intarr":
            ours.append(J(it[1]) if as_tensor else it[1])
            oracle.append(it[1])
        elif kind == "list":
            ours.append(it[1].tolist())
            oracle.append(it[1])
        elif kind == "mask":
            ours.append(J(it[1]))
            oracle.append(it[1])
    return tuple(ours), tuple(oracle)


@settings(max_examples=300, deadline=None)
@given(index_case(), st.booleans())
def test_random_getitem_matches_numpy(case, as_tensor):
    if case is None:
        return
    shape, items = case
    a = arange(*shape)
    x = J(a)
    ours, oracle = build_index(items, as_tensor)
    try:
        ref = numpy_getitem(a, oracle)
    except IndexError:
        with pytest.raises(IndexError):
            x[ours]
        return
    r = x[ours]
    assert tuple(r.shape) == ref.shape
    np.testing.assert_array_equal(N(r), ref)
    advanced = any(it[0] in ("intarr", "list", "mask", "bool") for it in items)
    assert (r._base is None) == advanced
    if not advanced:
        assert r._base is x
    m = jtorch.empty(shape, dtype=jtorch.float64, device="meta")[ours]
    assert tuple(m.shape) == ref.shape


@settings(max_examples=60, deadline=None)
@given(index_case())
def test_random_getitem_matches_torch(case):
    torch = oracle_torch()
    if case is None:
        return
    shape, items = case
    a = arange(*shape)
    ours, _ = build_index(items, True)
    theirs = tuple(torch.from_numpy(N(i).copy()) if isinstance(i, Tensor) else i for i in ours)
    try:
        tr = torch.from_numpy(a.copy())[theirs]
    except IndexError as e:
        with pytest.raises(IndexError):
            J(a)[ours]
        return
    r = J(a)[ours]
    assert tuple(r.shape) == tuple(tr.shape)
    np.testing.assert_array_equal(N(r), tr.numpy())


@settings(max_examples=300, deadline=None)
@given(index_case(), st.data())
def test_random_setitem_matches_numpy(case, data):
    if case is None:
        return
    shape, items = case
    a = arange(*shape)
    x = J(a.copy())
    ours, oracle = build_index(items, data.draw(st.booleans()))
    try:
        target_shape = numpy_getitem(a, oracle).shape
    except IndexError:
        return
    if data.draw(st.booleans()):
        value = data.draw(st.floats(-100, 100, allow_nan=False))
        np_value = value
    else:  # a value that broadcasts to the indexed shape, possibly with leading 1s
        vshape = tuple(s if data.draw(st.booleans()) else 1 for s in target_shape)
        vshape = vshape[data.draw(st.integers(0, len(vshape))):]
        vshape = (1,) * data.draw(st.integers(0, 2)) + vshape
        np_value = -1.0 - np.arange(int(np.prod(vshape)), dtype=np.float64).reshape(vshape)
        value = J(np_value)
    basic, rest = _to_torch_semantics(a, oracle)  # a view of `a`: writing it writes `a`
    if isinstance(np_value, np.ndarray):  # PyTorch drops a value's leading 1s (NumPy cannot, into 0-dim)
        k = 0
        while k < np_value.ndim and np_value.shape[k] == 1:
            k += 1
        np_value = np_value.reshape(np_value.shape[k:])
    basic[rest] = np_value
    before = x._version
    x[ours] = value
    np.testing.assert_array_equal(N(x), a)
    assert x._version == before + 1  # one write, through whichever operator


def test_random_setitem_false_is_noop():
    x = J(arange(3))
    x[False] = 1.0
    assert x._version == 0 and N(x).tolist() == [0.0, 1.0, 2.0]


def test_masked_fill_path_reads_overlapping_value():
    x = J(np.array([0.0, 4.0, 0.0]))
    x[J(np.array([True, False, True]))] = x[1]  # one mask, a one-element value: read out first
    assert N(x).tolist() == [4.0, 4.0, 4.0]


def test_meta_mask_on_meta_is_data_dependent():
    m = jtorch.empty(3, device="meta")
    mask = jtorch.empty(3, dtype=jtorch.bool, device="meta")
    with pytest.raises(NotImplementedError, match="torch.nonzero"):
        m[mask]
    assert tuple(m[J(np.array([True, False, True]))].shape) == (2,)  # a CPU mask: its values are known


def test_indexing_goes_through_the_dispatcher():
    from jtorch.dispatcher import add_observer

    x = J(arange(3, 4))
    calls: list[str] = []
    with add_observer(lambda name, ks, args, kwargs: calls.append(name)):
        x[1:]
        x[1]
        x[None, ..., ::2]
        x[[0, 2]]
        x[0] = 1.0
        x[:, 1] = J(np.zeros(3))
        x[[1], 2:] = 5.0
    assert calls[:3] == ["aten::slice.Tensor", "aten::select.int", "aten::unsqueeze"]
    assert "aten::index.Tensor" in calls
    assert calls.count("aten::index_put_") == 1 and "aten::copy_" in calls and "aten::fill_.Scalar" in calls


def test_bounds_are_checked_only_where_indices_broadcast_to_something():
    x = J(np.zeros((3, 2)))
    empty = J(np.zeros(0, dtype=np.int64))
    assert tuple(x[[5], empty].shape) == (0,)  # as PyTorch: nothing is read, nothing is checked
    x[[5], empty] = 1.0
    assert x._version == 1 and (N(x) == 0).all()
