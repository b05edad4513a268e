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
