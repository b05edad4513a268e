"""CUDA scans and row normalisers (kernels/cuda/scan.py) against the CPU result of the same
jtorch operator: cumsum, cumprod, logcumsumexp, cummax, cummin, softmax, log_softmax; dtypes,
dims (negative too), strided input, rows shorter and longer than a block (the thread-per-row and
the tiled block-per-row kernels), 0-dim and empty, out= and in-place, float16, autograd."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _compare import check

rng = np.random.default_rng(1)


def data(shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-3, 4, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def inputs(dtype):
    """Rows of 3 (thread per row) and of 11 (blocks, several tiles), contiguous and strided."""
    a = jtorch.tensor(data((3, 11), dtype))
    b = jtorch.tensor(data((2, 3, 4), dtype))
    return [a, a.t(), b, b.transpose(0, 2)[:, ::2]]


SCANS = ["cumsum", "cumprod", "logcumsumexp"]


@pytest.mark.parametrize("name", SCANS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_scans(name, dtype):
    if name == "logcumsumexp" and dtype == np.int64:
        with pytest.raises(RuntimeError, match="logcumsumexp"):
            jtorch.tensor(data((3,), dtype)).cuda().logcumsumexp(0)
        return
    for x in inputs(dtype):
        for dim in (0, -1):
            check(lambda t: getattr(t, name)(dim), x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_indexed_scans(name, dtype):
    for x in inputs(dtype):  # small integers: many ties (the LAST index, as torch)
        for dim in (0, -1):
            check(lambda t: getattr(jtorch, name)(t, dim), x)
    a = rng.standard_normal((2, 13)).astype(np.float32)
    a[0, 3] = a[0, 9] = np.nan
    a[1, 12] = np.nan
    for x in (jtorch.tensor(a), jtorch.tensor(a).t()):
        check(lambda t: getattr(jtorch, name)(t, 1 if x.shape[0] == 2 else 0), x)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax(name, dtype):
    for x in inputs(dtype):
        for dim in (0, -1):
            check(lambda t: getattr(jtorch, name)(t, dim), x, rtol=1e-5, atol=1e-6)
    a = np.array([[1.0, np.inf, 2.0, 0.5, 3.0], [np.nan, 1.0, 2.0, 3.0, 4.0], [-np.inf, 0, 1, 2, 3]], dtype)
    check(lambda t: getattr(jtorch, name)(t, 1), jtorch.tensor(a))


def test_softmax_dtype_argument():
    x = jtorch.tensor(data((3, 6), np.float32))
    check(lambda t: jtorch.softmax(t, 1, dtype=jtorch.float64), x)
    check(lambda t: jtorch.log_softmax(t, 0, dtype=jtorch.float64), x)


def test_float16():
    a = data((3, 9), np.float16)
    x = jtorch.tensor(a)
    for dim in (0, 1):
        check(lambda t: jtorch.softmax(t, dim), x, rtol=2e-3, atol=1e-3)
        check(lambda t: jtorch.log_softmax(t, dim), x, rtol=2e-3, atol=2e-3)
        check(lambda t: t.cumsum(dim), x, rtol=2e-3, atol=1e-2)
    got = jtorch.softmax(x.cuda(), 1).cpu().numpy().astype(np.float64)
    e = np.exp(a.astype(np.float64) - a.astype(np.float64).max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-3)


def test_zero_dim_and_empty():
    s = jtorch.tensor(np.float32(1.5))
    for fn in (lambda t: t.cumsum(0), lambda t: t.cumprod(0), lambda t: t.logcumsumexp(0), lambda t: jtorch.cummax(t, 0),
               lambda t: jtorch.softmax(t, 0), lambda t: jtorch.log_softmax(t, -1)):
        check(fn, s)
    e = jtorch.tensor(np.zeros((0, 4), np.float32))
    for dim in (0, 1):
        for fn in (lambda t: t.cumsum(dim), lambda t: jtorch.cummin(t, dim), lambda t: jtorch.softmax(t, dim)):
            check(fn, e)


def test_out_and_inplace():
    x = jtorch.tensor(data((3, 7), np.float32))
    xc = x.cuda()
    o = jtorch.empty(0, device="cuda")
    jtorch.cumsum(xc, 1, out=o)
    np.testing.assert_allclose(o.cpu().numpy(), x.cumsum(1).numpy(), rtol=1e-6)
    v, i = jtorch.empty(0, device="cuda"), jtorch.empty(0, dtype=jtorch.int64, device="cuda")
    jtorch.cummax(xc, 0, out=(v, i))
    w = jtorch.cummax(x, 0)
    np.testing.assert_array_equal(v.cpu().numpy(), w[0].numpy())
    np.testing.assert_array_equal(i.cpu().numpy(), w[1].numpy())
    y = xc.clone()
    y.cumsum_(1)
    np.testing.assert_allclose(y.cpu().numpy(), x.cumsum(1).numpy(), rtol=1e-6)
    z = xc.t().clone().t()  # a column-major copy: in place along a strided dim
    z.cumprod_(0)
    np.testing.assert_allclose(z.cpu().numpy(), x.cumprod(0).numpy(), rtol=1e-6)
    check(lambda t: t.cumsum(1, dtype=jtorch.float64), x)
    check(lambda t: t.cumsum(0), jtorch.tensor(data((3, 4), np.int32)))
    check(lambda t: t.cumsum(0), jtorch.tensor(rng.random((5,)) > 0.5))


@pytest.mark.parametrize("op", ["sum", "softmax", "log_softmax", "cumsum", "mean"])
def test_autograd(op):
    a = rng.standard_normal((3, 6)).astype(np.float32)
    w = rng.standard_normal((3, 6)).astype(np.float32)
    grads = []
    for dev in ("cpu", "cuda"):
        x = jtorch.tensor(a).to(dev).requires_grad_()
        wt = jtorch.tensor(w).to(dev)
        if op in ("sum", "mean"):
            y = getattr(x, op)(1)
            loss = (y * wt[:, 0]).sum()
        else:
            y = getattr(jtorch, op)(x, 1) if op != "cumsum" else x.cumsum(1)
            loss = (y * wt).sum()
        loss.backward()
        assert x.grad.device.type == dev
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_complex():
    a = (rng.standard_normal((3, 9)) + 1j * rng.standard_normal((3, 9))).astype(np.complex64)
    x = jtorch.tensor(a)
    for dim in (0, 1):
        check(lambda t: t.cumsum(dim), x, rtol=1e-5, atol=1e-5)
        check(lambda t: t.cumprod(dim), x, rtol=1e-4, atol=1e-5)
        check(lambda t: t.logcumsumexp(dim), x, rtol=1e-5, atol=1e-5)
