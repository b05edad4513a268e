"""aten::nll_loss_forward / nll_loss_backward and aten::_softmax_backward_data /
_log_softmax_backward_data (jtorch/native/loss.py, jtorch/native/scans.py): values against NumPy
references written from the definitions, and against torch's own operators where torch is
installed; torch's node names; gradients and second derivatives (gradcheck / gradgradcheck)."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F

aten = jtorch.ops.aten
try:
    import torch
except ImportError:  # the NumPy references still run
    torch = None
RED = {"none": 0, "mean": 1, "sum": 2}


def nll_reference(x: np.ndarray, t: np.ndarray, w: "np.ndarray | None", reduction: int, ignore: int):
    """(output, total_weight) from the definition, in float64."""
    x2 = x.reshape(-1, x.shape[-1]).astype(np.float64)
    t1 = t.reshape(-1)
    keep = t1 != ignore
    wt = np.where(keep, (w[np.where(keep, t1, 0)] if w is not None else 1.0), 0.0)
    loss = -x2[np.arange(len(t1)), np.where(keep, t1, 0)] * wt
    if reduction == 0:
        return (loss if x.ndim == 2 else loss.reshape(())), 0.0
    total = wt.sum()
    with np.errstate(invalid="ignore"):  # every target ignored: 0 / 0 is NaN, as in torch
        return (loss.sum() / total if reduction == 1 else loss.sum()), total


CASES = [((6, 5), None, -100), ((6, 5), "w", -100), ((6, 5), None, 2), ((6, 5), "w", 3), ((5,), None, -100),
         ((0, 4), None, -100), ((7, 1), "w", -100)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape,weighted,ignore", CASES)
def test_nll_loss_forward_backward(shape, weighted, ignore, reduction, dtype):
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    x = rng.standard_normal(shape).astype(dtype)
    n = shape[0] if len(shape) == 2 else 1
    t = rng.integers(0, shape[-1], n)
    if ignore >= 0 and n > 1:
        t[::2] = ignore
    t = t if len(shape) == 2 else np.array(t[0])
    w = rng.random(shape[-1]).astype(dtype) + 0.5 if weighted else None
    r = RED[reduction]
    jw = jtorch.tensor(w) if w is not None else None
    out, tw = aten.nll_loss_forward(jtorch.tensor(x), jtorch.tensor(t), jw, r, ignore)
    ref, ref_tw = nll_reference(x, t, w, r, ignore)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.numpy(), ref, rtol=tol, atol=tol)
    assert out.dtype == jtorch.tensor(x).dtype and tuple(out.shape) == np.shape(ref)
    if r:
        np.testing.assert_allclose(float(tw), ref_tw, rtol=tol)
    # backward: d output / d x for a random upstream gradient, against the definition
    g = rng.standard_normal(np.shape(ref)).astype(dtype)
    gi = aten.nll_loss_backward(jtorch.tensor(g), jtorch.tensor(x), jtorch.tensor(t), jw, r, ignore, tw)
    expect = np.zeros((n, shape[-1]))
    t1 = np.asarray(t).reshape(-1)
    for i, k in enumerate(t1):
        if k != ignore:
            wk = w[k] if w is not None else 1.0
            expect[i, k] = -wk * (g.reshape(-1)[i] if r == 0 else (g / ref_tw if r == 1 else g))
    np.testing.assert_allclose(gi.numpy().reshape(n, shape[-1]), expect, rtol=tol, atol=tol)
    if torch is not None:
        tout, ttw = torch.ops.aten.nll_loss_forward(torch.tensor(x), torch.tensor(t),
                                                     torch.tensor(w) if w is not None else None, r, ignore)
        np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=tol, atol=tol)
        if r:
            np.testing.assert_allclose(tw.numpy(), ttw.numpy(), rtol=tol)


def test_nll_loss_half_and_byte_targets():
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float16)
    out, _ = aten.nll_loss_forward(jtorch.tensor(x), jtorch.tensor(np.array([0, 2, 1, 1], np.uint8)), None, 2, -100)
    assert out.dtype == jtorch.float16
    ref = -x.astype(np.float32)[np.arange(4), [0, 2, 1, 1]].sum()
    np.testing.assert_allclose(float(out), ref, rtol=1e-3)


def test_nll_loss_errors():
    x = jtorch.zeros(3, 4)
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        aten.nll_loss_forward(x, jtorch.tensor([0, 7, 1]), None, 1, -100)
    with pytest.raises(IndexError, match=r"^Target -2 is out of bounds\.$"):
        aten.nll_loss_forward(x, jtorch.tensor([0, 1, -2]), None, 0, -100)
    with pytest.raises(RuntimeError, match=r"^input tensor should be 1D or 2D$"):
        aten.nll_loss_forward(jtorch.zeros(2, 3, 4), jtorch.tensor([0, 1]), None, 1, -100)
    with pytest.raises(RuntimeError, match=r"^size mismatch \(got input: \[3, 4\], target: \[2\]\)$"):
        aten.nll_loss_forward(x, jtorch.tensor([0, 1]), None, 1, -100)
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 4 classes or no classes "
                                           r"but got weight tensor of shape: \[3\]"):
        aten.nll_loss_forward(x, jtorch.tensor([0, 1, 2]), jtorch.ones(3), 1, -100)
    with pytest.raises(IndexError, match=r"^Target 9 is out of bounds\.$"):
        aten.nll_loss_backward(jtorch.tensor(1.0), x, jtorch.tensor([0, 9, 1]), None, 1, -100, jtorch.tensor(3.0))
    with pytest.raises(RuntimeError, match=r"^expected target dtype to be Long or Byte, but got Int$"):
        aten.nll_loss_forward(x, jtorch.tensor([0, 1, 2], dtype=jtorch.int32), None, 1, -100)


def test_cross_entropy_records_torchs_nodes():
    x = jtorch.randn(4, 3, requires_grad=True)
    loss = F.cross_entropy(x, jtorch.tensor([0, 2, 1, 1]))
    assert type(loss.grad_fn).__name__ == "NllLossBackward0"
    assert [type(n).__name__ for n, _ in loss.grad_fn.next_functions] == ["LogSoftmaxBackward0"]
    g, = jtorch.autograd.grad(loss, x, create_graph=True)
    names = set()
    stack = [g.grad_fn]
    while stack:
        n = stack.pop()
        if n is not None and type(n).__name__ not in names:
            names.add(type(n).__name__)
            stack += [m for m, _ in n.next_functions]
    assert {"LogSoftmaxBackwardDataBackward0", "NllLossBackwardBackward0"} <= names


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_gradcheck(reduction, weighted):
    rng = np.random.default_rng(3)
    x = jtorch.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    t = jtorch.tensor([0, 3, -100, 2, 1])
    w = jtorch.tensor(rng.random(4) + 0.5) if weighted else None
    fn = lambda a: F.cross_entropy(a, t, weight=w, reduction=reduction)  # noqa: E731
    assert jtorch.autograd.gradcheck(fn, (x,))
    assert jtorch.autograd.gradgradcheck(fn, (x,))


def softmax_backward_reference(g: np.ndarray, out: np.ndarray, dim: int, log: bool) -> np.ndarray:
    if log:
        return g - np.exp(out) * g.sum(dim, keepdims=True)
    return out * (g - (g * out).sum(dim, keepdims=True))


@pytest.mark.parametrize("log", [True, False])
@pytest.mark.parametrize("shape,dim", [((5, 7), 1), ((5, 7), 0), ((3, 4, 5), 1), ((3, 4, 5), -1), ((6,), 0),
                                       ((), 0), ((0, 3), 1), ((300, 257), 1)])
def test_softmax_backward_data(shape, dim, log):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    jx = jtorch.tensor(x)
    out = jx.log_softmax(dim) if log else jx.softmax(dim)
    g = rng.standard_normal(shape)
    op = aten._log_softmax_backward_data if log else aten._softmax_backward_data
    got = op(jtorch.tensor(g), out, dim, jtorch.float64)
    np.testing.assert_allclose(got.numpy(), softmax_backward_reference(g, out.numpy(), dim, log), rtol=1e-12,
                               atol=1e-12)
    if torch is not None:
        tout = torch.tensor(x).log_softmax(dim) if log else torch.tensor(x).softmax(dim)
        top = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
        np.testing.assert_allclose(got.numpy(), top(torch.tensor(g), tout, dim, torch.float64).numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_softmax_backward_data_non_contiguous_and_input_dtype():
    rng = np.random.default_rng(6)
    x = jtorch.tensor(rng.standard_normal((6, 4)).astype(np.float32)).t()  # (4, 6), column-major
    out = x.log_softmax(1)
    g = jtorch.tensor(rng.standard_normal((6, 4)).astype(np.float32)).t()
    got = aten._log_softmax_backward_data(g, out, 1, jtorch.float16)  # half_to_float's backward: back to half
    assert got.dtype == jtorch.float16
    ref = softmax_backward_reference(g.numpy(), out.numpy(), 1, True)
    np.testing.assert_allclose(got.numpy().astype(np.float32), ref, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("log", [True, False])
def test_softmax_gradgradcheck(log):
    x = jtorch.tensor(np.random.default_rng(8).standard_normal((3, 5)), requires_grad=True)
    fn = (lambda a: a.log_softmax(1)) if log else (lambda a: a.softmax(0))
    assert jtorch.autograd.gradcheck(fn, (x,))
    assert jtorch.autograd.gradgradcheck(fn, (x,))
