"""Fast paths that skip the general machinery for common shapes must give what it gives:
reductions over some dims of a small contiguous input (no iterator), elementwise calls on 0-dim
tensors, addmm into its output, Linear's column-major weight gradient, AccumulateGrad taking a
view's storage, cached index-map geometry, and overload resolution of jtorch.ops packets."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from jtorch.kernels.cpu import reduce as cpu_reduce
from jtorch.structured.fast_path import FAST_PATHS  # False under JTORCH_NO_FAST_PATHS=1: none may run

DIMS = [0, 1, 2, 3, -1, (0, 2), (1, 3), (1, 2), (0, 1, 3), (0, 3)]


@pytest.fixture
def masked_calls(monkeypatch):
    calls = []
    orig = cpu_reduce._reduce_dims

    def spy(*args):
        r = orig(*args)
        calls.append(r)
        return r

    monkeypatch.setattr(cpu_reduce, "_reduce_dims", spy)
    return calls


@pytest.mark.parametrize("dims", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_over_some_dims_equal_numpy(dims, keepdim, masked_calls):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    x = jtorch.tensor(a)
    np.testing.assert_allclose(x.sum(dims, keepdim=keepdim).numpy(), a.sum(dims, keepdims=keepdim), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.mean(dims, keepdim=keepdim).numpy(), a.mean(dims, keepdims=keepdim), rtol=1e-5, atol=1e-6)
    assert np.array_equal(x.amax(dims, keepdim=keepdim).numpy(), a.max(dims, keepdims=keepdim))
    assert np.array_equal(x.amin(dims, keepdim=keepdim).numpy(), a.min(dims, keepdims=keepdim))
    np.testing.assert_allclose(x.var(dims, keepdim=keepdim).numpy(), a.var(dims, ddof=1, keepdims=keepdim), rtol=1e-4)
    i = jtorch.tensor(rng.integers(-50, 50, (3, 4, 5, 6)))
    assert np.array_equal(i.sum(dims, keepdim=keepdim).numpy(), i.numpy().sum(dims, keepdims=keepdim))
    b = x > 0
    assert np.array_equal(b.any(dims, keepdim=keepdim).numpy() if isinstance(dims, int) else
                          b.amax(dims, keepdim=keepdim).numpy(), (a > 0).any(dims, keepdims=keepdim))
    assert (True in masked_calls) == FAST_PATHS  # the fast path did run (and only where it may)


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1])
def test_selecting_reductions_over_one_dim(dim, masked_calls):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    x = jtorch.tensor(a)
    v, k = x.max(dim)
    assert np.array_equal(v.numpy(), a.max(dim)) and np.array_equal(k.numpy(), a.argmax(dim))
    assert np.array_equal(x.argmin(dim).numpy(), a.argmin(dim))
    assert np.array_equal(x.argmax(dim, keepdim=True).numpy(), np.expand_dims(a.argmax(dim), dim))
    assert (True in masked_calls) == FAST_PATHS


def test_reduction_fast_path_leaves_other_layouts_to_the_iterator():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = jtorch.tensor(a)
    out = jtorch.empty(12)[::2]  # a non-contiguous out=
    jtorch.sum(x, 0, out=out)
    assert out.tolist() == a.sum(0).tolist()
    assert x.t().sum(1).tolist() == a.sum(0).tolist()  # non-contiguous input
    h = x.half()
    assert h.sum(0).dtype == jtorch.float16 and h.sum(0).tolist() == a.sum(0).tolist()
    assert x.sum(1, dtype=jtorch.float64).dtype == jtorch.float64
    assert jtorch.ones(2, 1, 3).sum((0, 2)).tolist() == [6.0]


def test_zero_dim_elementwise_fast_path():
    s = jtorch.tensor(3.0)
    i = jtorch.tensor(2)
    d = jtorch.tensor(1.5, dtype=jtorch.float64)
    s += 1
    assert s.item() == 4.0 and s.dtype == jtorch.float32 and s.dim() == 0
    assert (s + i).dtype == jtorch.float32 and (s + i).item() == 6.0
    assert (s + d).dtype == jtorch.float64 and (i / 2).dtype == jtorch.float32
    assert (-s).item() == -4.0 and (i + 1.5).item() == 3.5 and (i + i).dtype == jtorch.int64
    b = jtorch.tensor(True)
    assert (b + b).dtype == jtorch.bool
    q = jtorch.tensor(5, dtype=jtorch.int8)
    q += 3
    assert q.dtype == jtorch.int8 and q.item() == 8
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i += 1.5


def test_addmm_into_out_and_in_place():
    rng = np.random.default_rng(2)
    m1, m2, bias = (rng.standard_normal(s).astype(np.float32) for s in ((5, 4), (4, 3), (3,)))
    ref = m1 @ m2 + bias
    A, B, C = jtorch.tensor(m1), jtorch.tensor(m2), jtorch.tensor(bias)
    np.testing.assert_allclose(jtorch.addmm(C, A, B).numpy(), ref, rtol=1e-6)
    self = jtorch.tensor(np.broadcast_to(bias, (5, 3)).copy())
    self.addmm_(A, B)  # self is out: the product cannot be written first
    np.testing.assert_allclose(self.numpy(), ref, rtol=1e-6)
    nan = jtorch.full((3,), float("nan"))
    assert jtorch.addmm(nan, A, B).isnan().all()  # beta=1 adds self: NaN propagates
    assert not jtorch.addmm(nan, A, B, beta=0).isnan().any()


def test_linear_weight_gradient_is_contiguous_and_owned():
    lin = jtorch.nn.Linear(4, 3)
    x = jtorch.randn(5, 4)
    lin(x).sum().backward()
    g = lin.weight.grad
    assert g.is_contiguous() and g._base is None
    np.testing.assert_allclose(g.numpy(), np.ones((5, 3), np.float32).T @ x.numpy(), rtol=1e-6)
    # a column-major mat1 gets a column-major gradient, as torch's mm_mat1_backward makes it
    a = jtorch.randn(4, 6).t().requires_grad_()
    b = jtorch.randn(4, 2)
    a.mm(b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.ones((6, 2), np.float32) @ b.numpy().T, rtol=1e-6)


def test_accumulate_grad_takes_a_view_only_when_nothing_else_holds_its_base():
    w = jtorch.randn(4, 3).t().clone().requires_grad_()  # a column-major leaf
    base = jtorch.randn(4, 3)
    g = base.t()
    assert g._stride == w._stride and g._base is base
    w.backward(g)  # the incoming gradient is a view of a tensor the caller still holds
    assert w.grad.tolist() == g.tolist()
    base.fill_(0)
    assert w.grad.abs().sum().item() > 0  # copied, not aliased to the caller's tensor


def test_gather_and_scatter_add_with_cached_geometry():
    rng = np.random.default_rng(3)
    for shape in ((6, 5), (3, 4, 5), (6, 5)):
        a = rng.standard_normal(shape).astype(np.float32)
        idx = rng.integers(0, shape[-1], shape[:-1] + (3,))
        x, i = jtorch.tensor(a), jtorch.tensor(idx)
        assert np.array_equal(x.gather(-1, i).numpy(), np.take_along_axis(a, idx, -1))
        z = jtorch.zeros(shape)
        z.scatter_add_(-1, i, jtorch.ones(idx.shape))
        ref = np.zeros(shape, np.float32)
        np.put_along_axis(ref, idx, 0, -1)
        for pos in np.ndindex(idx.shape):
            ref[pos[:-1] + (idx[pos],)] += 1
        assert np.array_equal(z.numpy(), ref)


def test_overload_packet_picks_the_fitting_overload_and_words_errors():
    g, h = jtorch.randn(3), jtorch.randn(3)
    out = jtorch.ops.aten.threshold_backward(g, h, 0)
    assert out.tolist() == jtorch.where(h > 0, g, 0).tolist()
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'self'"):
        jtorch.ops.aten.threshold_backward(g, "x", 0)


# ---- one element expanded (a sum's gradient) read as a scalar by the fast set-up -------------------
@pytest.mark.parametrize("case", ["mul", "rmul", "sub", "int_elem", "f64_elem", "inplace", "broadcasting", "where"])
def test_expanded_element_operand(case, monkeypatch):
    """`g.expand(shape) * x` takes TensorIterator's fast set-up reading g's one element; the value
    and dtype are the general path's (an expanded float64 element promotes a float32 array, being a
    tensor with dims; a 0-dim one would not)."""
    from jtorch.structured import tensor_iterator

    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    x = jtorch.tensor(a)
    builds = []
    orig = tensor_iterator.TensorIterator.build
    monkeypatch.setattr(tensor_iterator.TensorIterator, "build", lambda self, c: builds.append(1) or orig(self, c))
    if case == "mul":
        got, want, fast = jtorch.tensor(1.5).expand(4, 5) * x, np.float32(1.5) * a, True
    elif case == "rmul":
        got, want, fast = x * jtorch.tensor(-2.0).expand(4, 5), a * np.float32(-2.0), True
    elif case == "sub":
        got, want, fast = jtorch.tensor(3.0).expand(4, 5) - x, np.float32(3.0) - a, True
    elif case == "int_elem":
        got, want, fast = x * jtorch.tensor(3).expand(4, 5), a * np.float32(3), True
    elif case == "f64_elem":
        got, want, fast = x * jtorch.tensor(0.1, dtype=jtorch.float64).expand(4, 5), a.astype(np.float64) * 0.1, False
    elif case == "inplace":
        got = x.clone()
        got.mul_(jtorch.tensor(0.5).expand(4, 5))
        want, fast = a * np.float32(0.5), True
    elif case == "broadcasting":  # the element expands to fewer dims than the result: general path
        got, want, fast = jtorch.tensor(2.0).expand(5) * x, a * np.float32(2.0), False
    else:
        got = jtorch.tensor(1.0).expand(4, 5) + jtorch.tensor(2.0).expand(4, 5)  # no array: general path
        want, fast = np.full((4, 5), 3.0, np.float32), False
    assert got.dtype == jtorch.tensor(want).dtype and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    assert (not builds) == (fast and FAST_PATHS)


# ---- out= whose tensor fits: the fast set-up writes it directly --------------------------------------
def test_out_variant_fast_and_general_agree(monkeypatch):
    from jtorch.structured import tensor_iterator

    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    x, y = jtorch.tensor(a), jtorch.tensor(b)
    builds = []
    orig = tensor_iterator.TensorIterator.build
    monkeypatch.setattr(tensor_iterator.TensorIterator, "build", lambda self, c: builds.append(1) or orig(self, c))
    out = jtorch.empty(3, 4)
    v = out._version
    assert jtorch.add(x, y, alpha=2, out=out) is out and (not builds) == FAST_PATHS
    np.testing.assert_array_equal(out.numpy(), a + np.float32(2) * b)
    assert out._version == v + 1                       # ADInplaceOrView bumps it above the kernel
    jtorch.mul(x, 3, out=out)                          # an array and a Python number
    np.testing.assert_array_equal(out.numpy(), a * np.float32(3))
    z = x.clone()
    jtorch.sub(z, y, out=z)                            # out is an input: allowed, as in torch
    np.testing.assert_array_equal(z.numpy(), a - b)
    assert (not builds) == FAST_PATHS
    # what the fast set-up leaves to the general path: resizing, another dtype, a strided out,
    # a partial overlap, and their errors and warnings
    big = jtorch.zeros(12)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        jtorch.add(big[1:5], big[6:10], out=big[0:4])  # contiguous, right shape, partial overlap
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        jtorch.add(x, y, out=jtorch.empty(3, 4, dtype=jtorch.int64))
    o64 = jtorch.empty(3, 4, dtype=jtorch.float64)
    jtorch.add(x, y, out=o64)
    np.testing.assert_array_equal(o64.numpy(), (a + b).astype(np.float64))
    ot = jtorch.empty(4, 3).t()
    jtorch.add(x, y, out=ot)
    np.testing.assert_array_equal(ot.numpy(), a + b)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        jtorch.add(x, y, out=jtorch.empty(2))
    assert len(builds) >= 3


def test_plans_for_scalar_arguments_are_cached_by_type_and_bits():
    """The fast set-up caches its checked plan per dtype and argument values; the key keeps 1,
    1.0 and True apart (alpha's checks differ) and -0.0 apart from 0.0 (the results differ)."""
    x = jtorch.tensor([0.5, 2.0, -1.0])
    for value, sign in ((0.0, [False, False, False]), (-0.0, [True, False, True]), (0.0, [False, False, False])):
        got = jtorch.nn.functional.threshold(x, 1.0, value).numpy()
        assert list(np.signbit(got)) == sign
        np.testing.assert_array_equal(got, np.where(x.numpy() > 1.0, x.numpy(), value))
    a = jtorch.ones(2)
    np.testing.assert_array_equal(jtorch.add(a, a, alpha=1).numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^Boolean alpha only supported for Boolean results\.$"):
        jtorch.add(a, a, alpha=True)
    i = jtorch.ones(2, dtype=jtorch.int64)
    np.testing.assert_array_equal(jtorch.add(i, i, alpha=2).numpy(), [3, 3])
    with pytest.raises(RuntimeError, match=r"^For integral input tensors, argument alpha must not be a floating"):
        jtorch.add(i, i, alpha=2.0)
    np.testing.assert_array_equal(jtorch.add(i, i, alpha=2).numpy(), [3, 3])
    g, y = jtorch.tensor([1.0, 2.0, 3.0]), jtorch.tensor([0.0, 1.0, -2.0])
    for t in (0, 0.5, -1.0, 0):  # ReluBackward0's call, threshold varying
        want = np.where(y.numpy() <= t, 0.0, g.numpy())
        np.testing.assert_array_equal(jtorch.ops.aten.threshold_backward.default(g, y, t).numpy(), want)
