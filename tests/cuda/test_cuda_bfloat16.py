"""bfloat16 on CUDA equals the same jtorch calls on the CPU (which tests/test_bfloat16.py compares
with torch): transfers, casts both ways through the kernels' conversion helpers, fill, elementwise
operators and reductions (computed in float32), item; convolutions, pooling and losses with their
gradients. Tiny sizes: the simulator is slow."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F

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


# ---- nn: convolution, pooling and losses in bfloat16, values and gradients -----------------------------------
_RNG = np.random.default_rng(7)
_IMG = _RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
_SEQ = _RNG.standard_normal((1, 2, 6)).astype(np.float32)
_W2 = _RNG.standard_normal((3, 2, 2, 2)).astype(np.float32)
_WT = _RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
_W1 = _RNG.standard_normal((3, 2, 3)).astype(np.float32)
_LOGITS = _RNG.standard_normal((4, 3)).astype(np.float32)
_TARGET = np.array([0, 2, 1, 1])

NN_CASES = {
    "conv1d": (_SEQ, lambda x, w, t: F.conv1d(x, w, padding=1), _W1),
    "conv2d": (_IMG, lambda x, w, t: F.conv2d(x, w, stride=1, padding=1), _W2),
    "conv_transpose2d": (_IMG, lambda x, w, t: F.conv_transpose2d(x, w, stride=2), _WT),
    "max_pool2d": (_IMG, lambda x, w, t: F.max_pool2d(x, 2, stride=1), None),
    "avg_pool2d": (_IMG, lambda x, w, t: F.avg_pool2d(x, 2, padding=1), None),
    "adaptive_avg_pool2d": (_IMG, lambda x, w, t: F.adaptive_avg_pool2d(x, (2, 3)), None),
    "adaptive_max_pool2d": (_IMG, lambda x, w, t: F.adaptive_max_pool2d(x, 2), None),
    "mse_loss": (_LOGITS, lambda x, w, t: F.mse_loss(x, x.detach() * 0.5), None),
    "cross_entropy": (_LOGITS, lambda x, w, t: F.cross_entropy(x, t), None),
    "cross_entropy_smoothed": (_LOGITS, lambda x, w, t: F.cross_entropy(x, t, label_smoothing=0.1), None),
    "nll_loss": (_LOGITS, lambda x, w, t: F.nll_loss(F.log_softmax(x, 1), t), None),
    "bce_with_logits": (_LOGITS, lambda x, w, t: F.binary_cross_entropy_with_logits(x, x.detach().sigmoid()), None),
    "binary_cross_entropy": (_LOGITS, lambda x, w, t: F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()),
                             None),
    "smooth_l1_loss": (_LOGITS, lambda x, w, t: F.smooth_l1_loss(x, x.detach() * 0.5), None),
    "huber_loss": (_LOGITS, lambda x, w, t: F.huber_loss(x, x.detach() * 0.5, delta=0.5), None),
    "l1_loss": (_LOGITS, lambda x, w, t: F.l1_loss(x, x.detach() * 0.5), None),
    "kl_div": (_LOGITS, lambda x, w, t: F.kl_div(F.log_softmax(x, 1), x.detach().softmax(1),
                                                 reduction="batchmean"), None),
}


def _run(name, device):
    data, fn, weight = NN_CASES[name]
    x = jtorch.from_numpy(data).bfloat16().to(device).requires_grad_()
    w = None if weight is None else jtorch.from_numpy(weight).bfloat16().to(device).requires_grad_()
    out = fn(x, w, jtorch.from_numpy(_TARGET).to(device))
    out.backward(jtorch.ones_like(out))
    return out, x.grad, (None if w is None else w.grad)


@pytest.mark.parametrize("name", list(NN_CASES))
def test_nn_values_and_gradients_match_the_cpu(cuda, name):
    got, want = _run(name, cuda), _run(name, "cpu")
    for g, c in zip(got, want):
        if c is None:
            continue
        assert g.dtype is jtorch.bfloat16 and g.is_cuda and g.shape == c.shape
        # the kernels accumulate in float32 in other orders: one bfloat16 rounding step apart at most
        np.testing.assert_allclose(g.detach().cpu().float().numpy(), c.detach().float().numpy(),
                                   rtol=2 ** -7, atol=2 ** -7)
