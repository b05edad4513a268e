"""Convolution and pooling on CUDA against the same jtorch calls on the CPU (tiny sizes: the
simulator runs one OS thread per CUDA thread): every kernel of the im2col and pool stubs, forward
and backward, and the modules."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _compare import same_forward_backward
import jtorch.nn as jnn
import jtorch.nn.functional as F


def test_unfold_fold():
    same_forward_backward(lambda x: F.unfold(x, (2, 3), 1, 1, (2, 1)), (1, 2, 4, 3))
    same_forward_backward(lambda c: F.fold(c, (4, 3), 2, 1, 0, 1), (1, 8, 6))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=(1, 2), groups=2)])
def test_conv2d(kw):
    same_forward_backward(lambda x, w, b: F.conv2d(x, w, b, **kw), (1, 2, 4, 5), (2, 2 // kw.get("groups", 1), 2, 2), (2,))


def test_conv_transpose2d_and_conv1d():
    same_forward_backward(lambda x, w: F.conv_transpose2d(x, w, None, 2, 1, 1), (1, 2, 3, 2), (2, 1, 2, 2))
    same_forward_backward(lambda x, w: F.conv1d(x, w, None, 1, "same"), (1, 2, 5), (2, 2, 3), dtype=jtorch.float64)


def test_max_pool2d_with_indices():
    same_forward_backward(lambda x: F.max_pool2d(x, 2, return_indices=True), (1, 2, 4, 4))
    same_forward_backward(lambda x: F.max_pool2d(x, 3, 2, 1, 2, ceil_mode=True, return_indices=True), (1, 1, 5, 4),
          dtype=jtorch.float64)


def test_avg_pool2d():
    same_forward_backward(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 5, 4))
    same_forward_backward(lambda x: F.avg_pool2d(x, 2, 1, 1, divisor_override=3), (1, 1, 3, 3), dtype=jtorch.float64)


def test_adaptive_avg_pool2d():
    same_forward_backward(lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (1, 2, 5, 4))


def test_adaptive_max_pool2d():
    same_forward_backward(lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True), (1, 2, 5, 4))


def test_modules_on_cuda():
    jtorch.manual_seed(0)
    m = jnn.Sequential(jnn.Conv2d(1, 2, 3, padding=1), jnn.MaxPool2d(2), jnn.AvgPool2d(1))
    x = jtorch.randn(1, 1, 4, 4)
    want = m(x)
    m = m.cuda()
    got = m(x.cuda())
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_inf_in_average_pooling_and_fold():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = np.inf
    for fn in (lambda t: F.avg_pool2d(t, 2, 1), lambda t: F.adaptive_avg_pool2d(t, 3),
               lambda t: F.fold(t.reshape(1, 4, 4), (3, 3), 2)):
        t = jtorch.tensor(x)
        np.testing.assert_array_equal(fn(t.cuda()).cpu().numpy(), fn(t).numpy())
