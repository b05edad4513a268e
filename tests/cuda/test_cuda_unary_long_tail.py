"""The long-tail elementwise operators on CUDA equal the same jtorch calls on the CPU (tiny sizes: the
simulator runs one thread per element): inverse hyperbolic functions, sgn, signbit, isposinf /
isneginf, deg2rad / rad2deg, angle, the shifts, conj_physical, complex / polar, the real / imag views
of device memory, and the activation operators (hardshrink, threshold, elu family, prelu, leaky_relu,
hardtanh, softplus, mish, hardsigmoid, hardswish, softshrink) and xlogy.
"""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from _compare import check

F32 = jtorch.tensor([-2.5, -0.0, 0.3, 1.5, float("inf"), float("nan")])
POS = jtorch.tensor([1.0, 1.5, 4.0])
INT = jtorch.tensor([-3, 0, 5], dtype=jtorch.int32)
C64 = jtorch.tensor([1 + 2j, 0j, -0.5 + 0.1j])
F = jtorch.nn.functional


@pytest.mark.parametrize("fn, x", [
    (jtorch.asinh, F32), (jtorch.acosh, POS), (lambda t: jtorch.atanh(t / 4), POS), (jtorch.arcsinh, C64),
    (jtorch.sgn, F32), (jtorch.sgn, C64), (jtorch.signbit, F32), (jtorch.signbit, INT), (jtorch.isposinf, F32),
    (jtorch.isneginf, F32), (jtorch.deg2rad, F32), (jtorch.rad2deg, INT), (jtorch.angle, F32), (jtorch.angle, C64),
    (jtorch.conj_physical, C64), (jtorch.square, INT), (jtorch.fix, F32),
    (lambda t: jtorch.hardshrink(t, 0.4), F32), (lambda t: jtorch.threshold(t, 0.2, -1.0), F32),
    (jtorch.celu, F32), (jtorch.selu, F32), (lambda t: jtorch.prelu(t, jtorch.tensor([0.25], device=t.device)), F32),
    (lambda t: F.leaky_relu(t, 0.2), F32), (lambda t: F.hardtanh(t, -1.0, 1.0), F32), (F.relu6, INT),
    (lambda t: F.softplus(t, 2.0, 2.0), F32), (F.mish, F32), (F.hardsigmoid, F32), (F.hardswish, F32),
    (lambda t: F.softshrink(t, 0.4), F32), (lambda t: jtorch.xlogy(t, t.abs()), F32), (lambda t: jtorch.xlogy(t, 2.0), INT),
], ids=lambda v: v.__name__ if callable(v) else str(v.dtype).removeprefix("jtorch."))
def test_unary_matches_cpu(fn, x):
    check(fn, x, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shifts_match_cpu(name):
    a = jtorch.tensor([1, -8, 100, 7], dtype=jtorch.int8)
    b = jtorch.tensor([1, 3, 8, -1], dtype=jtorch.int8)
    want = getattr(jtorch, name)(a, b)
    got = getattr(jtorch, name)(a.cuda(), b.cuda())
    assert got.is_cuda and got.dtype is jtorch.int8
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


def test_complex_and_polar_match_cpu():
    a, b = jtorch.tensor([1.0, 2.0, 0.5]), jtorch.tensor([0.3, -1.0, 3.0])
    for fn in (jtorch.complex, jtorch.polar):
        got, want = fn(a.cuda(), b.cuda()), fn(a, b)
        assert got.is_cuda and got.dtype is jtorch.complex64
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=2e-6)


def test_real_and_imag_are_views_of_device_memory():
    z = C64.cuda()
    z.real.mul_(2)
    z.imag = 5
    r = jtorch.view_as_real(z)
    assert r.is_cuda and r.shape == (3, 2) and z.real.is_cuda
    np.testing.assert_array_equal(z.cpu().numpy(), np.array([2 + 5j, 5j, -1 + 5j], np.complex64))
    np.testing.assert_array_equal(jtorch.view_as_complex(r).cpu().numpy(), z.cpu().numpy())
