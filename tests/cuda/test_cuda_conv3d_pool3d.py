"""3-d convolution and pooling, max unpooling and LP pooling on CUDA against the same jtorch calls on
the CPU (tiny sizes: the simulator runs one OS thread per CUDA thread): the im2col/col2im and pool
kernels over volumes, forward and backward."""
from __future__ import annotations

import numpy as np

import jtorch
import jtorch.nn.functional as F


def _pair(shape, seed, dtype=jtorch.float32):
    x = jtorch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)
    return x.requires_grad_(), x.detach().cuda().requires_grad_()


def _same(fn, *shapes, rtol=1e-5, atol=1e-5, dtype=jtorch.float32):
    cpu, gpu = zip(*(_pair(s, i, dtype) for i, s in enumerate(shapes)))
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


def test_conv3d_and_conv_transpose3d():
    _same(lambda x, w, b: F.conv3d(x, w, b, (1, 2, 1), 1, (2, 1, 1), 2), (1, 2, 4, 3, 3), (2, 1, 2, 2, 1), (2,))
    _same(lambda x, w: F.conv_transpose3d(x, w, None, 2, 1, 1), (1, 2, 2, 2, 2), (2, 1, 2, 2, 2),
          dtype=jtorch.float64)


def test_max_and_avg_pool3d():
    _same(lambda x: F.max_pool3d(x, 2, 1, 1, (1, 2, 1), ceil_mode=True, return_indices=True), (1, 1, 3, 4, 3))
    _same(lambda x: F.avg_pool3d(x, (2, 3, 2), 2, 1, True, False), (1, 1, 3, 4, 3))
    _same(lambda x: F.avg_pool3d(x, 2, 1, 0, divisor_override=3), (1, 1, 3, 2, 2), dtype=jtorch.float64)


def test_adaptive_pool3d_and_adaptive_max_pool1d():
    _same(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 1, 3, 4, 3))
    _same(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), True), (1, 1, 3, 4, 3))
    _same(lambda x: F.adaptive_max_pool1d(x, 3, True), (1, 2, 7))


def test_max_unpool_and_lp_pool():
    _same(lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2), (1, 1, 4, 4, 2))
    _same(lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2), (1, 2, 6))
    _same(lambda x: F.lp_pool3d(x.abs() + 0.1, 2, 2), (1, 1, 2, 4, 2))


def test_meta_free_shapes_on_cuda():
    x = jtorch.zeros(1, 2, 3, 3, 3, device="cuda")
    assert tuple(F.max_pool3d(x, 2, 1).shape) == (1, 2, 2, 2, 2)
    assert F.avg_pool3d(x, 3).device.type == "cuda"


def test_fractional_max_pool():
    s2 = jtorch.tensor(np.random.default_rng(3).random((1, 2, 2)), dtype=jtorch.float32)
    s3 = jtorch.tensor(np.random.default_rng(4).random((1, 1, 3)), dtype=jtorch.float32)
    _same(lambda x: F.fractional_max_pool2d(x, 2, (3, 2), return_indices=True,
                                            _random_samples=s2.to(x.device)), (1, 2, 5, 4))
    _same(lambda x: F.fractional_max_pool3d(x, 2, (2, 2, 1), return_indices=True,
                                            _random_samples=s3.to(x.device)), (1, 1, 4, 4, 3))
