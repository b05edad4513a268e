"""CUDA reductions (kernels/cuda/reduce.py) against the CPU result of the same jtorch operator,
under the simulator or on a GPU: dtypes, dims (None, int, tuple, negative), keepdim, strided
input, 0-dim and empty input, out=, ties and NaN for the selecting reductions, long rows split
over several blocks (the two-pass path), autograd."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
from _compare import check

rng = np.random.default_rng(0)


def data(shape, dtype):
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def inputs(dtype):
    """Contiguous, transposed, sliced (non-contiguous) 2-D and 3-D inputs."""
    a = jtorch.tensor(data((3, 5), dtype))
    b = jtorch.tensor(data((2, 3, 4), dtype))
    return [("c3", b), ("t2", a.t()), ("s2", a[:, ::2])]


DIMS = [None, -1, (0, 1)]
FLOATS = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("dim", DIMS)
def test_sum(dtype, dim):
    for i, (_, x) in enumerate(inputs(dtype)):
        if dim is None:
            check(lambda t: t.sum(), x)
        else:
            check(lambda t: t.sum(dim, keepdim=i == 1), x)
    check(lambda t: t.sum(0), x)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("dim", [None, -2])
def test_prod_mean_nansum(dtype, dim):
    for _, x in inputs(dtype):
        kw = {} if dim is None else {"dim": dim}
        check(lambda t: t.prod(**({"dim": dim} if dim is not None and isinstance(dim, int) else {})), x, rtol=1e-4)
        check(lambda t: t.nansum(**kw), x)
        if np.dtype(dtype).kind == "f":
            check(lambda t: t.mean(**kw), x)


def test_nansum_with_nan():
    x = jtorch.tensor(np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 3.5]], np.float32))
    check(lambda t: t.nansum(), x)
    check(lambda t: t.nansum(1), x)
    check(lambda t: t.sum(1), x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [None, -1])
def test_var_std(dtype, dim):
    for _, x in inputs(dtype)[1:]:
        for correction in (0, 2):
            check(lambda t: jtorch.var(t, dim, correction=correction), x, rtol=1e-4)
            check(lambda t: jtorch.std(t, dim, correction=correction, keepdim=True), x, rtol=1e-4)
        check(lambda t: jtorch.var_mean(t, dim), x, rtol=1e-4)
        check(lambda t: jtorch.std_mean(t, dim, keepdim=True), x, rtol=1e-4)


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, float("inf"), -float("inf")])
def test_norm(ord):
    for _, x in inputs(np.float32)[1:]:
        check(lambda t: jtorch.linalg.vector_norm(t, ord), x, rtol=1e-4)
        check(lambda t: jtorch.linalg.vector_norm(t, ord, dim=1), x, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("dim", [None, 0, (0, 1)])
def test_amax_amin(dtype, dim):
    for _, x in inputs(dtype):
        d = () if dim is None else dim
        check(lambda t: jtorch.amax(t, d), x)
        check(lambda t: jtorch.amin(t, d, keepdim=True), x)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("dim", [0, -1])
def test_max_min_dim_argmax_argmin(dtype, dim):
    for i, (_, x) in enumerate(inputs(dtype)):
        keepdim = i == 1
        check(lambda t: t.max(dim, keepdim), x)
        check(lambda t: t.min(dim, keepdim), x)
        check(lambda t: t.argmax(dim, keepdim), x)
        check(lambda t: t.argmin(dim, keepdim), x)
        if dim == 0:
            check(lambda t: t.argmax(), x)
            check(lambda t: t.min(), x)


def test_selecting_ties_take_the_first_index():
    # integer ties everywhere, rows long enough to spread over threads and slices
    x = jtorch.tensor(np.array([[1, 3, 3, 2] * 5, [5] * 20, [0, 7] * 10], np.int64))
    for dim in (0, 1):
        check(lambda t: t.max(dim), x)
        check(lambda t: t.argmin(dim), x)
    check(lambda t: t.argmax(), x)
    y = jtorch.tensor(np.full(40, 2.0, np.float32))
    assert y.cuda().argmax().item() == 0
    assert y.cuda().argmin().item() == 0


def test_selecting_nan_propagates_first_nan_index():
    a = rng.standard_normal((3, 20)).astype(np.float32)
    a[0, 7] = a[0, 15] = np.nan
    a[2, 19] = np.nan
    x = jtorch.tensor(a)
    for dim in (0, 1):
        check(lambda t: t.max(dim), x)
        check(lambda t: t.argmin(dim), x)
        check(lambda t: jtorch.amax(t, dim), x)
    check(lambda t: t.argmax(), x)
    b = np.full(30, -np.inf, np.float32)
    check(lambda t: t.argmax(), jtorch.tensor(b))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_all_any_count_nonzero(dtype):
    for i, (_, x) in enumerate(inputs(dtype)):
        dim = (None, 0, -1)[i]
        kw = {} if dim is None else {"dim": dim}
        check(lambda t: t.all(**kw), x)
        check(lambda t: t.any(**kw), x)
        check(lambda t: jtorch.count_nonzero(t, **kw), x)
    check(lambda t: jtorch.count_nonzero(t, (0, 1)), x)


@pytest.mark.parametrize("dim", [0, (0, 1)])
def test_logsumexp(dim):
    for _, x in inputs(np.float32)[:2] + inputs(np.float64)[2:]:
        check(lambda t: jtorch.logsumexp(t, dim), x, rtol=1e-5)
        check(lambda t: jtorch.logsumexp(t, dim, keepdim=True), x, rtol=1e-5)
    x = jtorch.tensor(np.array([[0.0, -np.inf], [np.inf, 1.0], [-np.inf, 2.0]], np.float32))
    check(lambda t: jtorch.logsumexp(t, 1), x)


def test_aminmax():
    for _, x in inputs(np.float32)[:2] + inputs(np.int64)[2:]:
        check(lambda t: jtorch.aminmax(t), x)
        check(lambda t: jtorch.aminmax(t, dim=1, keepdim=True), x)


def test_median():
    a = rng.integers(0, 4, (3, 7)).astype(np.float32)  # ties: the stable rank's index
    a[2, 3] = np.nan
    a[2, 6] = np.nan
    for x in (jtorch.tensor(a), jtorch.tensor(a).t(), jtorch.tensor(np.nan_to_num(a).astype(np.int64))):
        check(lambda t: t.median(), x)
        check(lambda t: t.median(0), x)
        check(lambda t: t.median(-1, keepdim=True), x)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_long_rows_split_into_slices(dtype):
    """Rows longer than a block's threads times MIN_PER_THREAD go through partials + finish."""
    x = jtorch.tensor(data((3, 30), dtype))
    y = jtorch.tensor(data((100,), dtype))
    for t in (x, x.t()):
        check(lambda u: u.sum(1), t, rtol=1e-5, atol=1e-4)
        check(lambda u: u.sum(0), t, rtol=1e-5, atol=1e-4)
        check(lambda u: u.max(1), t)
        check(lambda u: u.argmin(0), t)
    check(lambda u: u.sum(), y, rtol=1e-5, atol=1e-4)
    check(lambda u: u.argmax(), y)
    check(lambda u: u.prod(), jtorch.tensor(np.ones(100, dtype)))
    if np.dtype(dtype).kind == "f":
        check(lambda u: u.mean(), y, rtol=1e-5, atol=1e-5)
        check(lambda u: u.var(), y, rtol=1e-4)


def test_zero_dim_and_empty():
    s = jtorch.tensor(np.float32(2.5))
    for fn in (lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.mean(), lambda t: t.amax(),
               lambda t: t.argmax(), lambda t: t.max(0), lambda t: t.prod(), lambda t: t.all(),
               lambda t: jtorch.logsumexp(t, 0), lambda t: t.median()):
        check(fn, s)
    e = jtorch.tensor(np.zeros((0, 3), np.float32))
    for fn in (lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.sum(1), lambda t: t.prod(0), lambda t: t.mean(0),
               lambda t: t.amax(1), lambda t: t.bool().all(0), lambda t: t.bool().any(), lambda t: jtorch.count_nonzero(t.bool(), 0),
               lambda t: t.max(1), lambda t: t.nansum(0)):
        check(fn, e)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        e.cuda().amax(0)


def test_float16_sum_mean_max():
    a = (rng.standard_normal((4, 33)) * 3).astype(np.float16)
    x = jtorch.tensor(a)
    for fn in (lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.sum(0), lambda t: t.mean(1),
               lambda t: t.amax(0), lambda t: t.max(1), lambda t: t.argmin(1)):
        check(fn, x, rtol=2e-3, atol=2e-2)
    got = x.cuda().sum(1).cpu().numpy().astype(np.float64)  # float32 accumulation, one rounding
    np.testing.assert_allclose(got, a.astype(np.float64).sum(1), rtol=2e-3, atol=1e-2)


def test_out_and_dtype():
    x = jtorch.tensor(data((3, 5), np.float32))
    xc = x.cuda()
    o = jtorch.empty(0, device="cuda") if hasattr(jtorch, "empty") else None
    r = jtorch.sum(xc, 1, out=o)
    assert r is o
    np.testing.assert_allclose(o.cpu().numpy(), x.sum(1).numpy(), rtol=1e-6)
    o64 = xc.sum(1).to(jtorch.float64)
    jtorch.sum(xc, 0, dtype=jtorch.float64, out=o64)
    np.testing.assert_allclose(o64.cpu().numpy(), x.sum(0, dtype=jtorch.float64).numpy(), rtol=1e-6)
    vals = jtorch.empty(0, device="cuda")
    idx = jtorch.empty(0, dtype=jtorch.int64, device="cuda")
    jtorch.max(xc, 1, out=(vals, idx))
    w = x.max(1)
    np.testing.assert_array_equal(vals.cpu().numpy(), w[0].numpy())
    np.testing.assert_array_equal(idx.cpu().numpy(), w[1].numpy())
    ob = jtorch.empty((3, 5), device="cuda")[:, 1]  # a strided output
    jtorch.mean(xc, 1, out=ob)
    np.testing.assert_allclose(ob.cpu().numpy(), x.mean(1).numpy(), rtol=1e-6)
    check(lambda t: t.sum(1, dtype=jtorch.float64), x)
    check(lambda t: t.sum(dtype=jtorch.int64), jtorch.tensor(data((3, 5), np.int32)))


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_hypothesis_sum_amax(shape, d):
    x = jtorch.tensor(rng.standard_normal(shape).astype(np.float32))
    dim = d.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = d.draw(st.booleans())
    check(lambda t: t.sum(dim, keepdim=keepdim), x)
    check(lambda t: t.max(dim, keepdim=keepdim), x)


def test_autograd_sum_mean():
    a = rng.standard_normal((3, 4)).astype(np.float32)
    grads = []
    for dev in ("cpu", "cuda"):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        y = (x.sum(1) * jtorch.tensor([1.0, 2.0, 3.0]).to(dev)).sum() + x.mean(0).sum() + x.amax()
        y.backward()
        grads.append(x.grad.cpu().numpy())
        assert x.grad.device.type == dev
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


def test_complex():
    a = (rng.standard_normal((3, 9)) + 1j * rng.standard_normal((3, 9))).astype(np.complex64)
    x = jtorch.tensor(a)
    for fn in (lambda t: t.sum(1), lambda t: t.mean(), lambda t: t.prod(0), lambda t: t.var(1),
               lambda t: jtorch.linalg.vector_norm(t, 2, dim=0), lambda t: jtorch.logsumexp(t, 1)):
        check(fn, x, rtol=1e-5, atol=1e-5)
