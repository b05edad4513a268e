"""arange and linspace on CUDA compute their values on the device (kernels/cuda/ranges.py, the
`range` stub) and equal the CPU's to the bit, for every dtype."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from jtorch.backends import backend

INT = [jtorch.int64, jtorch.int32, jtorch.int8, jtorch.uint8]
FLOAT = [jtorch.float16, jtorch.float32, jtorch.float64]


def equal(make):
    c, g = make("cpu"), make("cuda")
    assert g.device.type == "cuda"
    g = g.cpu()
    assert g.dtype == c.dtype and g.shape == c.shape
    np.testing.assert_array_equal(g.numpy(), c.numpy())


def test_cuda_computes_ranges_on_the_device_and_cpu_on_the_host():
    assert backend("cuda").implements("arange") and backend("cuda").implements("linspace")
    assert not backend("cpu").implements("arange")  # the CPU path stays the host computation


@pytest.mark.parametrize("dtype", INT + FLOAT)
def test_arange(dtype):
    cases = [(0, 10, 1), (1, 40, 3), (7, -2, -2)] if not dtype.is_floating_point else \
        [(0, 10, 1), (-3.5, 4.2, 0.3), (0.1, 9.7, 0.1), (5, -5, -0.7), (1e3, 1e3 + 1, 1 / 7)]
    for s, e, st in cases:
        if dtype is jtorch.uint8 and min(s, e) < 0:
            continue
        equal(lambda d: jtorch.arange(s, e, st, dtype=dtype, device=d))
    equal(lambda d: jtorch.arange(5, dtype=dtype, device=d))
    equal(lambda d: jtorch.arange(0, dtype=dtype, device=d))  # empty


def test_arange_default_dtypes_and_out():
    equal(lambda d: jtorch.arange(7, device=d))
    equal(lambda d: jtorch.arange(0.5, 3, 0.25, device=d))
    for dev in ("cuda",):
        out = jtorch.zeros(10, dtype=jtorch.float64).to(dev)[::2]  # a strided out
        jtorch.arange(0, 2.5, 0.5, out=out)
        np.testing.assert_array_equal(out.cpu().numpy(), np.arange(0, 2.5, 0.5))
    out = jtorch.empty(0, dtype=jtorch.int64).cuda()
    jtorch.arange(3, 9, out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(3, 9))


@pytest.mark.parametrize("dtype", [jtorch.int64, jtorch.int16] + FLOAT + [jtorch.complex64, jtorch.complex128])
def test_linspace(dtype):
    cases = [(0, 10, 7), (-3.3, 4.1, 11), (1, 1, 3), (2.5, -7.25, 9), (0, 1, 2), (0, 1, 1), (0, 1, 0)]
    if dtype.is_complex:
        cases.append((1 + 2j, -3.3 - 1j, 7))
    for s, e, n in cases:
        equal(lambda d: jtorch.linspace(s, e, n, dtype=dtype, device=d))


def test_linspace_out_strided_and_tensor_bounds():
    out = jtorch.zeros(12, dtype=jtorch.float32).cuda()[1::2]
    jtorch.linspace(-1, 1, 6, out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), jtorch.linspace(-1, 1, 6).numpy())
    equal(lambda d: jtorch.linspace(jtorch.tensor(0.5), jtorch.tensor(2.0), 5, device=d))
