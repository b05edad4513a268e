"""bfloat16 on CUDA equals the same jtorch calls on the CPU (which tests/test_bfloat16.py compares
with torch): transfers, casts both ways through the kernels' conversion helpers, fill, elementwise
operators and reductions (computed in float32), item. Tiny sizes: the simulator is slow."""
from __future__ import annotations

import numpy as np

import jtorch

VALUES = np.array([0.0, -0.0, 1.00390625, 1.01171875, -2.5, 3.3961e38, 1e-40, -1e-42, np.inf, -np.inf, np.nan,
                   0.1, 65504.0, -3.3], dtype=np.float32)


def bits(t: jtorch.Tensor) -> list:
    """The float32 values of a CPU or CUDA bfloat16 tensor (exact), NaN as a string to compare."""
    return ["nan" if v != v else v for v in t.cpu().float().reshape(-1).tolist()]


def test_transfers_and_casts_match_the_cpu(cuda):
    f = jtorch.from_numpy(VALUES)
    want = f.bfloat16()
    assert bits(want.to(cuda)) == bits(want)  # host -> device -> host keeps the bit patterns
    assert bits(f.to(cuda).bfloat16()) == bits(want)  # float32 -> bfloat16 rounded in the kernel
    assert bits(f.double().to(cuda).bfloat16()) == bits(f.double().bfloat16())
    assert bits(f.half().to(cuda).bfloat16()) == bits(f.half().bfloat16())
    d = want.to(cuda)
    for dt in (jtorch.float32, jtorch.float64, jtorch.float16, jtorch.bool):
        got, exp = d.to(dt).cpu(), want.to(dt)
        np.testing.assert_array_equal(got.numpy(), exp.numpy())
    i = jtorch.tensor([0, 7, -300, 1 << 20], device=cuda)
    assert bits(i.bfloat16()) == bits(i.cpu().bfloat16())
    assert d[2].item() == want[2].item()


def test_fill_and_factories_match_the_cpu(cuda):
    assert bits(jtorch.full((3,), 1.7, dtype=jtorch.bfloat16, device=cuda)) == \
        bits(jtorch.full((3,), 1.7, dtype=jtorch.bfloat16))
    assert bits(jtorch.zeros(2, dtype=jtorch.bfloat16, device=cuda)) == [0.0, 0.0]
    assert bits(jtorch.ones(2, dtype=jtorch.bfloat16, device=cuda)) == [1.0, 1.0]
    assert bits(jtorch.arange(0, 4, 0.37, dtype=jtorch.bfloat16, device=cuda)) == \
        bits(jtorch.arange(0, 4, 0.37, dtype=jtorch.bfloat16))
    assert bits(jtorch.linspace(-3.3, 7.1, 11, dtype=jtorch.bfloat16, device=cuda)) == \
        bits(jtorch.linspace(-3.3, 7.1, 11, dtype=jtorch.bfloat16))


def test_operators_and_reductions_match_the_cpu(cuda):
    a = jtorch.from_numpy(np.array([1.1, -2.3, 3.7, 0.4, 5.5, -6.1], np.float32)).bfloat16()
    b = jtorch.from_numpy(np.array([3.3, 2.2, -1.05, 1.9, 0.7, 2.6], np.float32)).bfloat16()
    da, db = a.to(cuda), b.to(cuda)
    for got, want in ((da + db, a + b), (da * db, a * b), (da / db, a / b), (da - 1.1, a - 1.1),
                      (da * 1.1, a * 1.1), (jtorch.maximum(da, db), jtorch.maximum(a, b)), (da.abs(), a.abs()),
                      (da.sum(), a.sum()), (da.amax(), a.amax()), (da.cumsum(0), a.cumsum(0))):
        assert got.dtype is jtorch.bfloat16 and got.is_cuda
        assert bits(got) == bits(want)
    assert (da > db).cpu().tolist() == (a > b).tolist()
    assert da.argmax().item() == a.argmax().item()


def test_products_sorting_and_indexing_match_the_cpu(cuda):
    a = jtorch.from_numpy(np.array([[1.1, 2.5, -0.7], [-3.3, 0.5, 4.25]], np.float32)).bfloat16()
    d = a.to(cuda)
    idx = jtorch.tensor([[2, 0], [1, 1]])
    for got, want in ((d @ d.t(), a @ a.t()), (d.sort(1).values, a.sort(1).values),
                      (d.gather(1, idx.to(cuda)), a.gather(1, idx)),
                      (d.index_select(1, idx[0].to(cuda)), a.index_select(1, idx[0]))):
        assert got.dtype is jtorch.bfloat16 and got.is_cuda
        assert bits(got) == bits(want)
