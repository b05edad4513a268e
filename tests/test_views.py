"""View operators: shared storage and version counter, `_base`, strides equal to NumPy's and
PyTorch's, Meta tensors, PyTorch's error texts, and hypothesis chains of views against NumPy."""
from __future__ import annotations

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


# ---- helpers ---------------------------------------------------------------------------------------
def J(a: np.ndarray) -> Tensor:
    """A jtorch CPU tensor holding a copy of `a` (independent of the factory operators)."""
    a = np.array(a, order="C")
    return Tensor._make(CPUStorage(a.reshape(-1)), a.shape, contiguous_strides(a.shape), 0,
                        D.from_numpy_dtype(a.dtype), CPU)


def N(t: Tensor) -> np.ndarray:
    """The NumPy view of a CPU tensor's memory."""
    return t._numpy_view()


def np_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def check_same(t: Tensor, a: np.ndarray) -> None:
    """Same values, shape and (when `a` is a view) element strides as the NumPy result."""
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(N(t), a)


def in_torch(f, torch):
    """The same lambda with `jtorch` (and the J helper) meaning torch: one test text, two libraries."""
    g = dict(f.__globals__, jtorch=torch, J=lambda arr: torch.from_numpy(np.array(arr, order="C")))
    return type(f)(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)


def arange(*shape: int, dtype=np.float64) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return np.arange(n, dtype=dtype).reshape(shape)


# ---- ops, with their NumPy equivalents (a view in NumPy as well) ----------------------------------
VIEW_CASES = [
    # (name, jtorch op, numpy op)
    ("view", lambda x: x.view(4, 6), lambda a: a.reshape(4, 6)),
    ("view-1", lambda x: x.view(-1, 2), lambda a: a.reshape(-1, 2)),
    ("reshape", lambda x: x.reshape(2, 12), lambda a: a.reshape(2, 12)),
    ("jtorch.reshape", lambda x: jtorch.reshape(x, (24,)), lambda a: a.reshape(24)),
    ("transpose", lambda x: x.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
    ("jtorch.transpose", lambda x: jtorch.transpose(x, -1, 1), lambda a: a.swapaxes(-1, 1)),
    ("swapaxes", lambda x: x.swapaxes(0, 1), lambda a: a.swapaxes(0, 1)),
    ("swapdims", lambda x: jtorch.swapdims(x, 0, 1), lambda a: a.swapaxes(0, 1)),
    ("permute", lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("permute-tuple", lambda x: jtorch.permute(x, (1, -1, 0)), lambda a: a.transpose(1, 2, 0)),
    ("T", lambda x: x[0].T, lambda a: a[0].T),
    ("mT", lambda x: x.mT, lambda a: a.swapaxes(-1, -2)),
    ("expand", lambda x: x.expand(3, 2, 3, 4), lambda a: np.broadcast_to(a, (3, 2, 3, 4))),
    ("expand-1", lambda x: x[:, :1].expand(-1, 5, -1), lambda a: np.broadcast_to(a[:, :1], (2, 5, 4))),
    ("broadcast_to", lambda x: jtorch.broadcast_to(x[:1], (4, 3, 4)), lambda a: np.broadcast_to(a[:1], (4, 3, 4))),
    ("squeeze", lambda x: x[:1, :, None].squeeze(), lambda a: a[:1, :, None].squeeze()),
    ("squeeze.dim", lambda x: x[:1].squeeze(0), lambda a: a[:1].squeeze(0)),
    ("squeeze.dim-noop", lambda x: x.squeeze(1), lambda a: a),
    ("squeeze.dims", lambda x: x[:1, :, None].squeeze((0, 2)), lambda a: a[:1, :, None].squeeze((0, 2))),
    ("unsqueeze", lambda x: x.unsqueeze(1), lambda a: np.expand_dims(a, 1)),
    ("unsqueeze-1", lambda x: x.unsqueeze(-1), lambda a: np.expand_dims(a, -1)),
    ("flatten", lambda x: x.flatten(), lambda a: a.reshape(-1)),
    ("flatten-1", lambda x: jtorch.flatten(x, 1), lambda a: a.reshape(2, 12)),
    ("unflatten", lambda x: x.unflatten(2, (2, -1)), lambda a: a.reshape(2, 3, 2, 2)),
    ("narrow", lambda x: x.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    ("narrow-neg", lambda x: jtorch.narrow(x, 1, -2, 2), lambda a: a[:, 1:3]),
    ("select", lambda x: x.select(1, -1), lambda a: a[:, -1]),
    ("unbind", lambda x: x.unbind(2)[3], lambda a: a[:, :, 3]),
    ("split", lambda x: x.split(3, 2)[1], lambda a: a[:, :, 3:]),
    ("split.sizes", lambda x: x.split([1, 2], 1)[1], lambda a: a[:, 1:]),
    ("split_with_sizes", lambda x: jtorch.split_with_sizes(x, [3, 1], 2)[0], lambda a: a[:, :, :3]),
    ("chunk", lambda x: x.chunk(3, 2)[1], lambda a: a[:, :, 2:4]),
    ("movedim", lambda x: x.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1)),
    ("movedim.intlist", lambda x: jtorch.movedim(x, (0, 1), (2, 0)), lambda a: np.moveaxis(a, (0, 1), (2, 0))),
    ("moveaxis", lambda x: x.moveaxis(2, 0), lambda a: np.moveaxis(a, 2, 0)),
    ("diagonal", lambda x: x.diagonal(), lambda a: a.diagonal()),
    ("diagonal-off", lambda x: jtorch.diagonal(x, 1, 1, 2), lambda a: a.diagonal(1, 1, 2)),
    ("diagonal-neg", lambda x: x.diagonal(-1, 2, 0), lambda a: a.diagonal(-1, 2, 0)),
    ("as_strided", lambda x: x.as_strided((3, 3), (2, 5), 1),
     lambda a: np.lib.stride_tricks.as_strided(a.reshape(-1)[1:], (3, 3), (16, 40))),
    ("t", lambda x: x[0].t(), lambda a: a[0].T),
    ("t-1d", lambda x: x[0, 0].t(), lambda a: a[0, 0]),
    ("view_as", lambda x: x.view_as(J(np.zeros((6, 4)))), lambda a: a.reshape(6, 4)),
    ("reshape_as", lambda x: x.reshape_as(J(np.zeros((4, 6)))), lambda a: a.reshape(4, 6)),
    ("expand_as", lambda x: x[0].expand_as(x), lambda a: np.broadcast_to(a[0], a.shape)),
]


@pytest.mark.parametrize("name,op,npop", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_matches_numpy_and_shares_memory(name, op, npop):
    a = arange(2, 3, 4)
    x = J(a)
    v = op(x)
    ref = npop(N(x))
    check_same(v, ref)
    assert np.shares_memory(ref, N(x)) and np.may_share_memory(N(v), N(x))
    assert v.stride() == np_strides(ref)
    assert v.untyped_storage() is x.untyped_storage()
    assert v._base is x
    assert v._vc is x._vc
    assert v.is_contiguous() == ref.flags.c_contiguous or ref.size <= 1 or 0 in ref.shape
    # a write through the base is seen by the view and vice versa
    N(x)[...] = -N(x)
    check_same(v, npop(N(x)))
    if not any(s == 0 for s in v.stride()):  # not broadcast: every element written once
        N(v)[...] = 100 + N(v)
        np.testing.assert_array_equal(npop(N(x)), N(v))


@pytest.mark.parametrize("name,op,npop", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_matches_torch(name, op, npop):
    torch = oracle_torch()
    a = arange(2, 3, 4)
    x, tx = J(a), torch.from_numpy(a.copy())

    v, tv = op(x), in_torch(op, torch)(tx)
    assert tuple(v.shape) == tuple(tv.shape)
    assert v.stride() == tv.stride()
    assert v.storage_offset() == tv.storage_offset()
    assert v.is_contiguous() == tv.is_contiguous()
    np.testing.assert_array_equal(N(v), tv.numpy())


def test_view_of_view_base_is_root_and_versions_shared():
    x = J(arange(4, 4))
    v = x[1:].t().t().view(12)[2:]
    assert v._base is x
    assert x._base is None
    w = x.view(16)
    u = w.unflatten(0, (4, 4))
    assert u._base is x
    before = x._version
    v.fill_(1.0)  # an in-place write through a view moves the one shared counter
    assert x._version == w._version == u._version == v._version == before + 1
    x[0] = 5.0
    assert v._version == before + 2


def test_write_through_view_visible_in_base():
    x = J(arange(3, 4))
    v = x[1:, ::2]
    v.fill_(-1.0)
    expect = arange(3, 4)
    expect[1:, ::2] = -1
    np.testing.assert_array_equal(N(x), expect)
    y = x.t()
    y[0] = 7.0  # column 0 of x
    expect[:, 0] = 7
    np.testing.assert_array_equal(N(x), expect)


def test_unbind_split_chunk_results():
    x = J(arange(5, 2))
    parts = x.split(2)
    assert [tuple(p.shape) for p in parts] == [(2, 2), (2, 2), (1, 2)]
    assert all(p._base is x for p in parts)
    assert [tuple(p.shape) for p in x.chunk(3)] == [(2, 2), (2, 2), (1, 2)]
    assert [tuple(p.shape) for p in x.chunk(6)] == [(1, 2)] * 5
    assert [tuple(p.shape) for p in J(np.zeros((0, 2))).chunk(3)] == [(0, 2)] * 3
    assert [tuple(p.shape) for p in J(np.zeros((0, 2))).split(0)] == [(0, 2)]
    assert len(x.split(10)) == 1
    rows = x.unbind()
    assert isinstance(rows, tuple) and len(rows) == 5
    np.testing.assert_array_equal(N(rows[3]), arange(5, 2)[3])
    assert [N(r).tolist() for r in x] == arange(5, 2).tolist()  # __iter__ is unbind(0)
    assert isinstance(jtorch.split(x, [1, 4]), tuple)


def test_reshape_copies_when_it_cannot_view():
    x = J(arange(3, 4))
    xt = x.t()
    r = xt.reshape(12)
    np.testing.assert_array_equal(N(r), arange(3, 4).T.reshape(12))
    assert r.untyped_storage() is not x.untyped_storage()
    assert r._base is None and r.is_contiguous()
    r2 = xt.reshape(4, 3)  # same shape: a view
    assert r2._base is x
    with pytest.raises(RuntimeError, match="Use .reshape"):
        xt.view(12)


def test_flatten_same_dim_returns_self_and_0dim():
    x = J(arange(2, 3))
    assert x.flatten(1, 1) is x
    s = J(np.array(3.0))
    assert tuple(s.flatten().shape) == (1,)
    assert tuple(s.unsqueeze(0).shape) == (1,)
    assert tuple(s.squeeze().shape) == () and tuple(s.squeeze(0).shape) == ()
    assert tuple(s.t().shape) == ()
    assert tuple(s.view(1, 1).shape) == (1, 1) and s.view(1, 1).stride() == (1, 1)
    assert tuple(s.expand(2, 3).shape) == (2, 3) and s.expand(2, 3).stride() == (0, 0)
    assert tuple(jtorch.movedim(s, 0, 0).shape) == ()
    assert tuple(s.reshape(()).shape) == ()


def test_empty_tensor_views():
    torch = oracle_torch()
    for shape, new in [((0, 3), (3, 0)), ((0, 3), (-1,)), ((2, 0, 3), (0, 6)), ((0,), (0, 5, 0))]:
        x, t = J(np.zeros(shape)), torch.zeros(shape)
        assert x.view(new).stride() == t.view(new).stride()
        assert tuple(x.view(new).shape) == tuple(t.view(new).shape)
    x, t = J(np.zeros((0, 3))), torch.zeros((0, 3))
    assert x.t().view(3, 0).stride() == t.t().view(3, 0).stride()


def test_view_dtype():
    a = arange(2, 4, dtype=np.float32)
    x = J(a)
    v = x.view(jtorch.int32)
    assert v.dtype is jtorch.int32 and v._vc is x._vc and v._base is None
    np.testing.assert_array_equal(N(v), a.view(np.int32))
    h = x.view(jtorch.int16)
    assert tuple(h.shape) == (2, 8) and h.stride() == (8, 1)
    np.testing.assert_array_equal(N(h), a.view(np.int16))
    d = x.view(jtorch.float64)
    assert tuple(d.shape) == (2, 2)
    np.testing.assert_array_equal(N(d), a.view(np.float64))
    d.fill_(0.0)  # the reinterpreted tensor writes the same memory
    assert (N(x) == 0).all() and x._version == 1
    m = jtorch.empty(2, 4, device="meta").view(jtorch.float64)
    assert tuple(m.shape) == (2, 2) and m.is_meta


VIEW_ERRORS = [
    (lambda x: x.t().view(6), RuntimeError,
     "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
     "contiguous subspaces). Use .reshape(...) instead."),
    (lambda x: x.view(4), RuntimeError, "shape '[4]' is invalid for input of size 6"),
    (lambda x: x[0, :2].view(3), RuntimeError, "shape '[3]' is invalid for input of size 2"),
    (lambda x: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda x: x.view(-1, 4), RuntimeError, "shape '[-1, 4]' is invalid for input of size 6"),
    (lambda x: x.view(-2, 3), RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
    (lambda x: x.view(0, -1), RuntimeError, "shape '[0, -1]' is invalid for input of size 6"),
    (lambda x: J(np.zeros((0, 3))).view(0, -1), RuntimeError,
     "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any "
     "value and is ambiguous"),
    (lambda x: x.reshape(5), RuntimeError, "shape '[5]' is invalid for input of size 6"),
    (lambda x: x.transpose(0, 5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: x.expand(3), RuntimeError,
     "expand(torch.DoubleTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
     "the number of dimensions in the tensor (2)"),
    (lambda x: x[0].expand(2, 2), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  Target "
     "sizes: [2, 2].  Tensor sizes: [3]"),
    (lambda x: x[:, :2].expand(2, 3), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 1.  Target "
     "sizes: [2, 3].  Tensor sizes: [2, 2]"),
    (lambda x: x.expand(-1, 2, 3), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda x: jtorch.broadcast_to(x, (3,)), RuntimeError,
     "expand(torch.DoubleTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
     "the number of dimensions in the tensor (2)"),
    (lambda x: jtorch.empty(2, 3, device="meta").expand(3), RuntimeError,
     "expand(MetaFloatType{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the "
     "number of dimensions in the tensor (2)"),
    (lambda x: x.expand(-2, 3), RuntimeError,
     "The expanded size of the tensor (-2) must match the existing size (2) at non-singleton dimension 0.  Target "
     "sizes: [-2, 3].  Tensor sizes: [2, 3]"),
    (lambda x: x[:1].expand(-2, 3), RuntimeError, "numel: integer multiplication overflow"),
    (lambda x: x.permute(0), RuntimeError,
     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
     "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"),
    (lambda x: x.permute(0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
    (lambda x: x.permute(0, 5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: x.narrow(0, 1, 5), RuntimeError, "start (1) + length (5) exceeds dimension size (2)."),
    (lambda x: x.narrow(0, 3, 0), IndexError, "start out of range (expected to be in range of [-2, 2], but got 3)"),
    (lambda x: x.narrow(0, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (lambda x: J(np.array(1.0)).narrow(0, 0, 1), RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    (lambda x: x.select(0, 5), IndexError, "select(): index 5 out of range for tensor of size [2, 3] at dimension 0"),
    (lambda x: x.select(1, -4), IndexError, "select(): index -4 out of range for tensor of size [2, 3] at dimension 1"),
    (lambda x: J(np.array(1.0)).select(0, 0), IndexError, "select() cannot be applied to a 0-dim tensor."),
    (lambda x: x.unsqueeze(3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.squeeze(5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: x.squeeze((0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda x: x.flatten(1, 0), RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim"),
    (lambda x: x.unflatten(1, (2, 2)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda x: x.unflatten(-1, (4, -1)), RuntimeError,
     "unflatten: Provided sizes [4, -1] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda x: x.unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda x: x.split(0), RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 2"),
    (lambda x: x.split(-1), RuntimeError, "split expects split_size be non-negative, but got split_size=-1"),
    (lambda x: J(np.array(1.0)).split(1), RuntimeError, "split expects at least a 1-dimensional tensor"),
    (lambda x: x.split_with_sizes([1, 1], 1), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 1), but got "
     "split_sizes=[1, 1]"),
    (lambda x: x.split([4, -2], 1), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[4, -2]"),
    (lambda x: x.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda x: J(np.array(1.0)).chunk(1), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    (lambda x: x.movedim((0, 1), (1,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as "
     "destination ([1] dims)"),
    (lambda x: x.movedim((0, 0), (1, 0)), RuntimeError, "movedim: repeated dim in `source` ([0, 0])"),
    (lambda x: x.movedim((0, 1), (1, 1)), RuntimeError, "movedim: repeated dim in `destination` ([1, 1])"),
    (lambda x: x.diagonal(0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    (lambda x: x.diagonal(0, 0, -2), RuntimeError, "diagonal dimensions cannot be identical 0, -2"),
    (lambda x: x.as_strided((3, 3), (1, 1), 5), RuntimeError,
     "setStorage: sizes [3, 3], strides [1, 1], storage offset 5, and itemsize 8 requiring a storage size of 80 are "
     "out of bounds for storage of size 48"),
    (lambda x: x.as_strided((3, 3), (-1, 1)), RuntimeError,
     "as_strided: Negative strides are not supported at the moment, got strides: [-1, 1]"),
    (lambda x: x.as_strided((3,), (1, 1)), RuntimeError, "mismatch in length of strides and shape"),
    (lambda x: x.as_strided((2,), (1,), -1), RuntimeError, "Tensor: invalid storage offset -1"),
    (lambda x: J(np.zeros((2, 2, 2))).t(), RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda x: x.unbind(5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: J(np.array(1.0)).unbind(0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: x.view(jtorch.int16).t().view(jtorch.float32), RuntimeError,
     "self.stride(-1) must be 1 to view Short as Float (different element sizes), but got 12"),
    (lambda x: x.view(jtorch.int8)[:, 1:].view(jtorch.int16), RuntimeError,
     "self.size(-1) must be divisible by 2 to view Char as Short (different element sizes), but got 23"),
    (lambda x: x.view(jtorch.int8)[:, 1:3].view(jtorch.int16), RuntimeError,
     "self.storage_offset() must be divisible by 2 to view Char as Short (different element sizes), but got 1"),
    (lambda x: x[0, 0].view(jtorch.float32), RuntimeError,
     "self.dim() cannot be 0 to view Double as Float (different element sizes)"),
]


@pytest.mark.parametrize("i", range(len(VIEW_ERRORS)))
def test_view_errors(i):
    f, exc, msg = VIEW_ERRORS[i]
    x = J(arange(2, 3))
    with pytest.raises(exc) as e:
        f(x)
    assert str(e.value) == msg


def test_error_texts_are_torchs():
    """The texts above are PyTorch's: the same lambdas raise the same messages in torch."""
    torch = oracle_torch()
    for f, exc, msg in VIEW_ERRORS:
        g = dict(f.__globals__, jtorch=torch, J=lambda arr: torch.from_numpy(np.array(arr, order="C")))
        with pytest.raises(exc) as e:
            type(f)(f.__code__, g)(torch.from_numpy(arange(2, 3)))
        assert str(e.value) == msg


def test_bindings_like_torch():
    # functions torch exposes; Tensor-only methods; operators torch binds no Python name for
    for name in ("reshape", "transpose", "t", "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "narrow",
                 "select", "unbind", "split", "split_with_sizes", "chunk", "movedim", "moveaxis", "diagonal",
                 "as_strided", "broadcast_to", "swapaxes", "swapdims"):
        assert callable(getattr(jtorch, name)), name
    for name in ("view", "view_as", "expand", "expand_as", "reshape_as"):
        assert hasattr(Tensor, name) and not hasattr(jtorch, name), name
    assert not hasattr(jtorch, "alias")
    assert jtorch.ops.aten.slice.Tensor is not None and jtorch.ops.aten.alias.default is not None
    x = J(arange(2, 3))
    assert tuple(jtorch.ops.aten.slice.Tensor(x, 1, 1).shape) == (2, 2)
    assert jtorch.ops.aten.alias.default(x)._base is x


@pytest.mark.parametrize("name,op,npop", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_views_on_meta(name, op, npop):
    x = J(arange(2, 3, 4))
    m = jtorch.empty(2, 3, 4, dtype=jtorch.float64, device="meta")
    v, mv = op(x), op(m)
    assert mv.is_meta and tuple(mv.shape) == tuple(v.shape)
    assert mv.stride() == v.stride() and mv.storage_offset() == v.storage_offset()
    assert mv._base is m


def test_reshape_copy_on_meta():
    m = jtorch.empty(3, 4, device="meta")
    r = m.t().reshape(12)
    assert r.is_meta and tuple(r.shape) == (12,) and r._base is None


# ---- hypothesis: chains of views against NumPy -------------------------------------------------------
@st.composite
def view_chain(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    steps = draw(st.lists(st.tuples(st.sampled_from(
        ["transpose", "permute", "unsqueeze", "squeeze", "select", "slice", "expand", "reshape", "view",
         "flatten", "diagonal", "movedim", "narrow", "split", "t"]), st.randoms(use_true_random=False)),
        max_size=6))
    return shape, steps


def _apply(step: str, rnd, x: Tensor, a: np.ndarray):
    """One random view op on jtorch tensor x and the NumPy array a; None when it does not apply."""
    nd = a.ndim
    if step == "transpose" and nd:
        d0, d1 = rnd.randrange(-nd, nd), rnd.randrange(-nd, nd)
        return x.transpose(d0, d1), a.swapaxes(d0, d1)
    if step == "permute":
        p = list(range(nd))
        rnd.shuffle(p)
        return x.permute(*p) if p else x.permute(()), a.transpose(p)
    if step == "unsqueeze":
        d = rnd.randrange(-nd - 1, nd + 1)
        return x.unsqueeze(d), np.expand_dims(a, d)
    if step == "squeeze":
        if nd and rnd.random() < 0.5:
            d = rnd.randrange(nd)
            return x.squeeze(d), (a.squeeze(d) if a.shape[d] == 1 else a)
        return x.squeeze(), a.squeeze()
    if step == "select" and nd:
        d = rnd.randrange(nd)
        if a.shape[d]:
            i = rnd.randrange(-a.shape[d], a.shape[d])
            return x.select(d, i), a[(slice(None),) * d + (i, Ellipsis)]  # a 0-dim view, not a scalar
    if step == "slice" and nd:
        d = rnd.randrange(nd)
        n = a.shape[d]
        s = slice(rnd.randrange(-n - 2, n + 3), rnd.randrange(-n - 2, n + 3), rnd.randrange(1, 4))
        return x[(slice(None),) * d + (s,)], a[(slice(None),) * d + (s,)]
    if step == "expand":
        new = [rnd.choice([s, 3]) if s == 1 else s for s in a.shape]
        lead = [rnd.randrange(0, 3) for _ in range(rnd.randrange(0, 2))]
        return x.expand(*lead, *new) if lead or new else x.expand(()), np.broadcast_to(a, tuple(lead + new))
    if step in ("reshape", "view"):
        # a random factorisation of numel
        n = a.size
        target = [n] if n else [0]
        if n > 1 and rnd.random() < 0.7:
            f = [k for k in range(1, n + 1) if n % k == 0]
            k = rnd.choice(f)
            target = [k, n // k]
        if rnd.random() < 0.3:
            target.insert(rnd.randrange(len(target) + 1), 1)
        if step == "view":
            try:
                ref = a.view()
                ref.shape = tuple(target)  # NumPy raises where a copy would be needed
            except AttributeError:
                with pytest.raises(RuntimeError, match="view size is not compatible"):
                    x.view(target)
                return None
            return x.view(target), ref
        r = x.reshape(target)
        return r, a.reshape(target)
    if step == "flatten" and nd:
        s = rnd.randrange(nd)
        e = rnd.randrange(s, nd)
        shape = a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:]
        return x.flatten(s, e), a.reshape(shape)
    if step == "diagonal" and nd >= 2:
        d1, d2 = rnd.sample(range(nd), 2)
        off = rnd.randrange(-3, 4)
        return x.diagonal(off, d1, d2), a.diagonal(off, d1, d2)
    if step == "movedim" and nd:
        s, d = rnd.randrange(nd), rnd.randrange(nd)
        return x.movedim(s, d), np.moveaxis(a, s, d)
    if step == "narrow" and nd:
        d = rnd.randrange(nd)
        n = a.shape[d]
        start = rnd.randrange(0, n + 1)
        length = rnd.randrange(0, n - start + 1)
        return x.narrow(d, start, length), a[(slice(None),) * d + (slice(start, start + length),)]
    if step == "split" and nd:
        d = rnd.randrange(nd)
        n = a.shape[d]
        if n:
            size = rnd.randrange(1, n + 1)
            parts = x.split(size, d)
            k = rnd.randrange(len(parts))
            return parts[k], a[(slice(None),) * d + (slice(k * size, (k + 1) * size),)]
    if step == "t" and nd <= 2:
        return x.t(), a.T
    return None


@settings(max_examples=150, deadline=None)
@given(view_chain())
def test_random_view_chains_match_numpy(chain):
    shape, steps = chain
    base_np = arange(*shape)
    x = J(base_np)
    a = base_view = N(x)  # NumPy views of the same memory follow along
    for step, rnd in steps:
        r = _apply(step, rnd, x, a)
        if r is None:
            continue
        x, a = r
        assert tuple(x.shape) == a.shape, step
        np.testing.assert_array_equal(N(x), a)
        if a.size > 1 and np.shares_memory(a, base_view):
            # NumPy made a view: so did we, with the same strides (those of size-1 dims are arbitrary)
            assert np.shares_memory(N(x), base_view), step
            assert _canon(x.shape, x.stride()) == _canon(a.shape, np_strides(a)), step
            assert x.is_contiguous() == _torch_contiguous(a.shape, np_strides(a))


def _canon(shape, strides):
    return tuple(st for s, st in zip(shape, strides) if s > 1)


def _torch_contiguous(shape, strides):
    expected = 1
    for s, st in zip(reversed(shape), reversed(strides)):
        if s == 0:
            return True
        if s != 1 and st != expected:
            return False
        expected *= s
    return True


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_random_as_strided_matches_numpy(shape, data):
    storage = arange(30)
    x = J(storage)
    nd = len(shape)
    strides = tuple(data.draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd)))
    extent = 1 + sum((s - 1) * t for s, t in zip(shape, strides))
    offset = data.draw(st.integers(0, 30 - extent)) if extent <= 30 else None
    if offset is None:
        with pytest.raises(RuntimeError, match="out of bounds for storage of size 240"):
            x.as_strided(shape, strides)
        return
    v = x.as_strided(shape, strides, offset)
    ref = np.lib.stride_tricks.as_strided(storage[offset:], tuple(shape), tuple(8 * s for s in strides))
    check_same(v, ref)
    assert v.stride() == strides and v.storage_offset() == offset and v._base is x
