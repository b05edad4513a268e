"""The conjugate and negative bits on the CUDA backend: the same fallback as on the CPU, compared with
NumPy; tiny sizes (tests/cuda/conftest.py)."""
from __future__ import annotations

import numpy as np

import jtorch

A = np.array([[1 + 2j, -0.5 + 0.25j], [3 - 1j, 4j]], np.complex64)
B = np.array([[2 - 1j, 1j], [3 + 0j, -1 - 2j]], np.complex64)


def test_conj_view_on_cuda():
    z = jtorch.tensor(A, device="cuda")
    c = z.conj()
    assert c.is_conj() and c.device.type == "cuda" and c[0].is_conj()
    np.testing.assert_allclose((c * jtorch.tensor(B, device="cuda")).cpu().numpy(), np.conj(A) * B, rtol=1e-6)
    np.testing.assert_allclose(c.resolve_conj().cpu().numpy(), np.conj(A))
    np.testing.assert_allclose(c.imag.resolve_neg().cpu().numpy(), -A.imag)
    assert str(c.cpu()) == str(jtorch.tensor(A).conj())


def test_writes_through_a_conj_view_on_cuda():
    z = jtorch.tensor(A, device="cuda")
    c = z.conj()
    c[0, 0] = 5 + 5j
    c[1].add_(1j)
    want = A.copy()
    want[0, 0] = 5 - 5j
    want[1] = np.conj(np.conj(A[1]) + 1j)
    np.testing.assert_allclose(z.cpu().numpy(), want)
