"""The fused Adam / AdamW step (`_fused_adam_`, `_fused_adamw_`): the default for contiguous
float32/float64 parameters; its numbers equal the single-tensor loop's bit for bit, its errors are
torch's. (test_optim.py compares the default step, now fused, with torch's trajectories.)"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import jtorch
from jtorch.native import fused_optim

CONFIGS = [dict(amsgrad=a, maximize=m, weight_decay=w)
           for a, m, w in itertools.product((False, True), (False, True), (0.0, 0.1))]


def _run(cls, dtype, steps=6, **kw):
    rng = np.random.default_rng(1)
    ps = [jtorch.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True) for s in ((5, 7), (3,), (2, 2, 3))]
    opt = cls(ps, lr=0.01, **kw)
    for i in range(steps):
        for p in ps:
            p.grad = jtorch.sin(p.detach() * (i + 1)) + 0.3
        opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


@pytest.fixture
def fused_calls(monkeypatch):
    calls = []
    orig = fused_optim._fused_adam

    def spy(adamw, *args, **kwargs):
        calls.append(adamw)
        return orig(adamw, *args, **kwargs)

    monkeypatch.setattr(fused_optim, "_fused_adam", spy)
    return calls


@pytest.mark.parametrize("cls", [jtorch.optim.Adam, jtorch.optim.AdamW])
@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.float64])
def test_fused_default_equals_single_tensor_loop_bitwise(cls, kw, dtype, fused_calls):
    fused, opt = _run(cls, dtype, **kw)
    assert fused_calls == [cls is jtorch.optim.AdamW] * 6  # one call per step for the whole group
    n = len(fused_calls)
    single, _ = _run(cls, dtype, foreach=False, **kw)
    assert len(fused_calls) == n  # foreach=False keeps torch's op-per-line loop
    for a, b in zip(fused, single):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert float(opt.state[opt.param_groups[0]["params"][0]]["step"]) == 6


def _numpy_adam(p, g, m, v, step, lr, b1, b2, eps, wd, f):
    """torch's _single_tensor_adam in float32 NumPy, rounding after every operator."""
    f32 = np.float32
    g = g + f32(wd) * p if wd else g
    w = f32(1 - b1)
    m = m + w * (g - m) if abs(w) < 0.5 else g - (g - m) * (f32(1) - w)
    v = v * f32(b2) + f32(1 - b2) * g * g
    bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
    denom = np.sqrt(v) / f32(bc2 ** 0.5) + f32(eps)
    return p + (f32(-lr / bc1) * m) / denom, m, v


def test_fused_op_matches_numpy_reference():
    rng = np.random.default_rng(2)
    p0, g0 = rng.standard_normal(50).astype(np.float32), rng.standard_normal(50).astype(np.float32)
    p, g = jtorch.tensor(p0), jtorch.tensor(g0)
    m, v = jtorch.zeros(50), jtorch.zeros(50)
    step = jtorch.tensor(0.0)
    rp, rm, rv = p0, np.zeros(50, np.float32), np.zeros(50, np.float32)
    for k in range(1, 4):
        step += 1
        jtorch._fused_adam_([p], [g], [m], [v], [], [step], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.05,
                            eps=1e-8, amsgrad=False, maximize=False)
        rp, rm, rv = _numpy_adam(rp, g0, rm, rv, k, 0.01, 0.9, 0.999, 1e-8, 0.05, None)
        np.testing.assert_allclose(p.numpy(), rp, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(m.numpy(), rm, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(v.numpy(), rv, rtol=1e-6, atol=1e-9)


def _lists(n=1, dtype=jtorch.float32):
    return ([jtorch.ones(3, dtype=dtype) for _ in range(n)], [jtorch.full((3,), 0.5, dtype=dtype) for _ in range(n)],
            [jtorch.zeros(3, dtype=dtype) for _ in range(n)], [jtorch.zeros(3, dtype=dtype) for _ in range(n)],
            [], [jtorch.tensor(1.0) for _ in range(n)])


KW = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)


def test_found_inf_skips_and_grad_scale_unscales():
    ps, gs, ms, vs, mx, st = _lists()
    jtorch._fused_adam_(ps, gs, ms, vs, mx, st, **KW, found_inf=jtorch.tensor(1.0))
    assert ps[0].tolist() == [1.0] * 3 and ms[0].tolist() == [0.0] * 3
    jtorch._fused_adam_(ps, gs, ms, vs, mx, st, **KW, grad_scale=jtorch.tensor(2.0), found_inf=jtorch.tensor(0.0))
    assert gs[0].tolist() == [0.25] * 3  # unscaled in place, as torch's kernel writes it back
    ref = _lists()
    ref[1][0].fill_(0.25)
    jtorch._fused_adam_(*ref, **KW)
    assert ps[0].tolist() == ref[0][0].tolist() and ps[0].tolist() != [1.0] * 3


def test_fused_op_errors():
    ps, gs, ms, vs, mx, st = _lists(2)
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 2 and 1"):
        jtorch._fused_adam_(ps, gs[:1], ms, vs, mx, st, **KW)
    gs[1] = gs[1].double()
    with pytest.raises(RuntimeError, match="params, grads, exp_avgs, and exp_avg_sqs must have same dtype, device"):
        jtorch._fused_adam_(ps, gs, ms, vs, mx, st, **KW)
    ps, gs, ms, vs, mx, st = _lists(1, jtorch.float16)
    with pytest.raises(RuntimeError, match="float32 and float64"):
        jtorch._fused_adamw_(ps, gs, ms, vs, mx, st, **KW)
    ps, gs, ms, vs, mx, st = _lists()
    before = ps[0].tolist()
    ps2 = [jtorch.ones(6)[::2]]
    with pytest.raises(RuntimeError, match="contiguous"):
        jtorch._fused_adam_(ps2, gs, ms, vs, mx, st, **KW)
    assert ps[0].tolist() == before  # checked before anything is written


def test_fused_constructor_errors_are_torchs():
    p = jtorch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        jtorch.optim.Adam([p], fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        jtorch.optim.AdamW([p], fused=True, differentiable=True)
    q = jtorch.zeros(2, dtype=jtorch.int64)
    with pytest.raises(RuntimeError, match=r"`fused=True` requires all the params to be floating point Tensors of "
                                           r"supported devices: \['cuda', 'cpu'\] but jtorch.int64 and cpu"):
        jtorch.optim.Adam([q], fused=True)


def test_non_contiguous_and_half_params_take_the_loop(fused_calls):
    base = jtorch.randn(4, 6)
    p = base[:, ::2].clone().t().requires_grad_()  # non-contiguous leaf
    h = jtorch.randn(3, dtype=jtorch.float16, requires_grad=True)
    q = p.detach().contiguous().requires_grad_()
    opt, ref = jtorch.optim.Adam([p, h], lr=0.1), jtorch.optim.Adam([q], lr=0.1, fused=False)
    for _ in range(3):
        p.grad, q.grad = jtorch.cos(p.detach()), jtorch.cos(q.detach())
        h.grad = jtorch.ones(3, dtype=jtorch.float16)
        opt.step()
        ref.step()
    assert fused_calls == []
    assert np.array_equal(p.detach().numpy(), q.detach().numpy())
    assert h.dtype == jtorch.float16 and (h.detach().float() != 0).all()
