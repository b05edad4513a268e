"""Shared helpers of the CUDA reduction and scan tests: run an operator on CPU and on CUDA (the
same jtorch call) and compare."""
from __future__ import annotations

import numpy as np

import jtorch


def as_numpy(r):
    if isinstance(r, (tuple, list)):
        return tuple(as_numpy(v) for v in r)
    assert isinstance(r, jtorch.Tensor)
    return r.cpu().numpy()


def check(fn, x_cpu, rtol=1e-5, atol=1e-6, exact_indices=True):
    """fn(x.cuda()) equals fn(x) on the CPU: values close, dtypes and shapes equal, devices cuda."""
    want = fn(x_cpu)
    got = fn(x_cpu.cuda())
    _check_device(got)
    _compare(as_numpy(got), as_numpy(want), rtol, atol, exact_indices)
    return got


def _check_device(r):
    if isinstance(r, (tuple, list)):
        for v in r:
            _check_device(v)
    else:
        assert r.device.type == "cuda", r.device


def _compare(g, w, rtol, atol, exact_indices):
    if isinstance(w, tuple):
        assert isinstance(g, tuple) and len(g) == len(w)
        for a, b in zip(g, w):
            _compare(a, b, rtol, atol, exact_indices)
        return
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    if w.dtype.kind in "iub" and exact_indices:
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g.astype(w.dtype), w, rtol=rtol, atol=atol, equal_nan=True)


def leaf_pair(shape, seed, dtype=jtorch.float32):
    """A standard-normal leaf tensor on the CPU and its copy on CUDA, both requiring grad."""
    x = jtorch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)
    return x.requires_grad_(), x.detach().cuda().requires_grad_()


def same_forward_backward(fn, *shapes, rtol=1e-5, atol=1e-5, dtype=jtorch.float32):
    """fn on CUDA equals fn on the CPU for leaves of `shapes`, and so do the leaves' gradients of a
    random weighting of the result; a (values, indices) result compares its indices exactly."""
    cpu, gpu = zip(*(leaf_pair(s, i, dtype) for i, s in enumerate(shapes)))
    rc, rg = fn(*cpu), fn(*gpu)
    if isinstance(rc, tuple):
        np.testing.assert_array_equal(rg[1].cpu().numpy(), rc[1].numpy())
        rc, rg = rc[0], rg[0]
    assert rg.device.type == "cuda"
    np.testing.assert_allclose(rg.detach().cpu().numpy(), rc.detach().numpy(), rtol=rtol, atol=atol)
    g = jtorch.tensor(np.random.default_rng(9).standard_normal(tuple(rc.shape)), dtype=dtype)
    rc.backward(g)
    rg.backward(g.cuda())
    for c, d in zip(cpu, gpu):
        np.testing.assert_allclose(d.grad.cpu().numpy(), c.grad.numpy(), rtol=rtol, atol=atol)
