"""Padding, upsampling, grid sampling and the pixel/channel shuffles on CUDA against the same jtorch
calls on the CPU (tiny sizes: the simulator runs one OS thread per CUDA thread), forward and backward."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F


def _pair(shape, seed, dtype=jtorch.float32, lo=None):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) if lo is None else rng.uniform(lo, -lo, shape)
    x = jtorch.tensor(a, dtype=dtype)
    return x.requires_grad_(), x.detach().cuda().requires_grad_()


def _same(fn, *inputs, rtol=1e-5, atol=1e-5, dtype=jtorch.float32):
    cpu, gpu = zip(*(_pair(s, i, dtype, lo) for i, (s, lo) in enumerate(inputs)))
    rc, rg = fn(*cpu), fn(*gpu)
    assert rg.device.type == "cuda" and rg.grad_fn.name() == rc.grad_fn.name()
    np.testing.assert_allclose(rg.detach().cpu().numpy(), rc.detach().numpy(), rtol=rtol, atol=atol)
    g = jtorch.tensor(np.random.default_rng(9).standard_normal(tuple(rc.shape)), dtype=dtype)
    rc.backward(g)
    rg.backward(g.cuda())
    for c, d in zip(cpu, gpu):
        np.testing.assert_allclose(d.grad.cpu().numpy(), c.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(mode):
    _same(lambda x: F.pad(x, (1, 2, 1, 0), mode=mode), ((1, 2, 3, 3), None))


@pytest.mark.parametrize("mode,shape", [("nearest", (1, 1, 3)), ("linear", (1, 1, 3)), ("bicubic", (1, 1, 2, 3)),
                                        ("trilinear", (1, 1, 2, 2, 2))])
def test_interpolate(mode, shape):
    kw = {} if mode == "nearest" else dict(align_corners=False)
    _same(lambda x: F.interpolate(x, scale_factor=1.5, mode=mode, **kw), (shape, None), dtype=jtorch.float64)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_and_affine_grid(mode):
    _same(lambda x, g: F.grid_sample(x, g, mode, "reflection", False), ((1, 1, 3, 3), None), ((1, 2, 2, 2), -1.2))
    _same(lambda t: F.affine_grid(t, [1, 1, 2, 3], align_corners=False), ((1, 2, 3), None))


def test_shuffles():
    _same(lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2) * 2, ((1, 4, 2, 2), None))
    _same(lambda x: F.channel_shuffle(x, 2), ((1, 4, 2), None))


@pytest.mark.parametrize("dtype", [jtorch.int32, jtorch.bool, jtorch.float16])
def test_pad_and_nearest_keep_the_dtype(dtype):
    x = jtorch.tensor(np.arange(12).reshape(1, 2, 6) % 3).to(dtype)
    replicate = "constant" if dtype is jtorch.bool else "replicate"  # torch refuses bool replication
    for fn in (lambda t: F.pad(t, (2, 1), mode=replicate), lambda t: F.pad(t, (1, 2), mode="circular"),
               lambda t: F.interpolate(t, scale_factor=1.5) if dtype is not jtorch.bool else t):
        rc, rg = fn(x), fn(x.cuda())
        assert rg.dtype is rc.dtype and rg.device.type == "cuda"
        np.testing.assert_array_equal(rg.cpu().numpy(), rc.numpy())


def test_the_cuda_backend_resamples_in_one_pass():
    from jtorch.backends import backend
    assert backend("cuda").implements("resample")
