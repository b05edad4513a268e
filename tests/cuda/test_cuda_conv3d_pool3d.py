"""3-d convolution and pooling, max unpooling and LP pooling on CUDA against the same jtorch calls on
the CPU (tiny sizes: the simulator runs one OS thread per CUDA thread): the im2col/col2im and pool
kernels over volumes, forward and backward."""
from __future__ import annotations

import numpy as np

import jtorch
from _compare import same_forward_backward
import jtorch.nn.functional as F


def test_conv3d_and_conv_transpose3d():
    same_forward_backward(lambda x, w, b: F.conv3d(x, w, b, (1, 2, 1), 1, (2, 1, 1), 2), (1, 2, 4, 3, 3), (2, 1, 2, 2, 1), (2,))
    same_forward_backward(lambda x, w: F.conv_transpose3d(x, w, None, 2, 1, 1), (1, 2, 2, 2, 2), (2, 1, 2, 2, 2),
          dtype=jtorch.float64)


def test_max_and_avg_pool3d():
    same_forward_backward(lambda x: F.max_pool3d(x, 2, 1, 1, (1, 2, 1), ceil_mode=True, return_indices=True), (1, 1, 3, 4, 3))
    same_forward_backward(lambda x: F.avg_pool3d(x, (2, 3, 2), 2, 1, True, False), (1, 1, 3, 4, 3))
    same_forward_backward(lambda x: F.avg_pool3d(x, 2, 1, 0, divisor_override=3), (1, 1, 3, 2, 2), dtype=jtorch.float64)


def test_adaptive_pool3d_and_adaptive_max_pool1d():
    same_forward_backward(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 1, 3, 4, 3))
    same_forward_backward(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), True), (1, 1, 3, 4, 3))
    same_forward_backward(lambda x: F.adaptive_max_pool1d(x, 3, True), (1, 2, 7))


def test_max_unpool_and_lp_pool():
    same_forward_backward(lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2), (1, 1, 4, 4, 2))
    same_forward_backward(lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2), (1, 2, 6))
    same_forward_backward(lambda x: F.lp_pool3d(x.abs() + 0.1, 2, 2), (1, 1, 2, 4, 2))


def test_meta_free_shapes_on_cuda():
    x = jtorch.zeros(1, 2, 3, 3, 3, device="cuda")
    assert tuple(F.max_pool3d(x, 2, 1).shape) == (1, 2, 2, 2, 2)
    assert F.avg_pool3d(x, 3).device.type == "cuda"


def test_fractional_max_pool():
    s2 = jtorch.tensor(np.random.default_rng(3).random((1, 2, 2)), dtype=jtorch.float32)
    s3 = jtorch.tensor(np.random.default_rng(4).random((1, 1, 3)), dtype=jtorch.float32)
    same_forward_backward(lambda x: F.fractional_max_pool2d(x, 2, (3, 2), return_indices=True,
                                            _random_samples=s2.to(x.device)), (1, 2, 5, 4))
    same_forward_backward(lambda x: F.fractional_max_pool3d(x, 2, (2, 2, 1), return_indices=True,
                                            _random_samples=s3.to(x.device)), (1, 1, 4, 4, 3))
