"""The shape long tail on CUDA at tiny sizes: unfold and its backward (an index_add_ on the device),
the *_scatter operators, in-place view operators, addr / addbmm / renorm, logspace and range equal
the CPU's."""
from __future__ import annotations

import warnings

import numpy as np

import jtorch


def _same(make) -> None:
    c, g = make("cpu"), make("cuda")
    assert g.device.type == "cuda"
    np.testing.assert_allclose(g.cpu().numpy(), c.numpy(), rtol=1e-6, atol=1e-6)
    assert g.dtype == c.dtype


def test_unfold_and_its_backward(cuda) -> None:
    def grad_of(dev: str) -> jtorch.Tensor:
        x = jtorch.arange(10.0, device=dev).requires_grad_()
        u = x.unfold(0, 3, 2)
        (u * jtorch.arange(12.0, device=dev).view(4, 3)).sum().backward()
        return x.grad

    _same(lambda d: jtorch.arange(12.0, device=d).view(3, 4).unfold(1, 2, 1))
    _same(grad_of)


def test_scatters_and_inplace_views(cuda) -> None:
    _same(lambda d: jtorch.slice_scatter(jtorch.zeros(3, 4, device=d), jtorch.ones(3, 2, device=d), 1, 1, 4, 2))
    _same(lambda d: jtorch.diagonal_scatter(jtorch.zeros(3, 3, device=d), jtorch.arange(3.0, device=d)))
    _same(lambda d: jtorch.select_scatter(jtorch.zeros(2, 3, device=d), jtorch.ones(3, device=d), 0, 1))
    _same(lambda d: jtorch.arange(6.0, device=d).view(2, 3).transpose_(0, 1).contiguous())


def test_products_and_ranges(cuda) -> None:
    _same(lambda d: jtorch.addr(jtorch.ones(2, 3, device=d), jtorch.arange(2.0, device=d),
                                jtorch.arange(3.0, device=d), beta=2, alpha=0.5))
    _same(lambda d: jtorch.addbmm(jtorch.ones(2, 2, device=d), jtorch.ones(2, 2, 3, device=d),
                                  jtorch.ones(2, 3, 2, device=d)))
    _same(lambda d: jtorch.renorm(jtorch.arange(6.0, device=d).view(2, 3), 2, 0, 1.0))
    _same(lambda d: jtorch.logspace(0, 2, 5, device=d))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(lambda d: jtorch.range(0, 2, 0.5, device=d))
