"""scaled_dot_product_attention against torch: values and the gradients of query, key, value (and of a
float mask that requires grad) for bool and float masks, is_causal, scale, enable_gqa, leading batch dims
and broadcasting; which kernel runs (the node names), a fully masked row, error texts; the fused CPU
operator against the math path. MultiheadAttention and multi_head_attention_forward: parameter layouts,
values, every gradient, weights, masks, errors.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import jtorch
import jtorch.nn.functional as F
from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()
TF = torch.nn.functional
TOL = {np.float32: 2e-5, np.float64: 1e-10}


def rand(shape, dtype=np.float64, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def close(j, t, tol):
    np.testing.assert_allclose(j.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def run_both(arrays, grads, jfn, tfn, tol, mask=None):
    """Values and gradients of every input in `grads`; returns the two results."""
    js = [jtorch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    ts = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    jy, ty = jfn(*js), tfn(*ts)
    close(jy, ty, tol)
    g = rand(tuple(ty.shape), arrays[0].dtype, 9)
    jy.backward(jtorch.tensor(g)), ty.backward(torch.tensor(g))
    for i in grads:
        close(js[i].grad, ts[i].grad, tol)
    return jy, ty


def sdpa_case(qs, ks, vs, dtype, **kw):
    arrays = [rand(qs, dtype, 0), rand(ks, dtype, 1), rand(vs, dtype, 2)]
    jy, ty = run_both(arrays, (0, 1, 2), lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw),
                      lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **kw), TOL[dtype])
    assert type_name(jy.grad_fn) == type_name(ty.grad_fn)
    assert jy.stride() == ty.stride()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8)),     # 4-D: the fused kernel
                                    ((3, 5, 8), (3, 7, 8), (3, 7, 6)),              # 3-D, Ev != E: math
                                    ((2, 2, 2, 4, 8), (2, 2, 2, 6, 8), (2, 2, 2, 6, 8)),  # 5-D
                                    ((2, 3, 5, 8), (1, 3, 6, 8), (1, 3, 6, 8)),     # broadcast batch
                                    ((4, 8), (6, 8), (6, 8))])                      # 2-D
def test_sdpa_shapes(shapes, dtype):
    sdpa_case(*shapes, dtype)


@pytest.mark.parametrize("kw", [{"is_causal": True}, {"scale": 0.3}, {"scale": -0.5},
                                {"is_causal": True, "scale": 2.0}])
@pytest.mark.parametrize("shape", [(2, 2, 5, 4), (2, 5, 4), (2, 2, 5, 7)])
def test_sdpa_causal_scale(shape, kw):
    ks = shape[:-2] + (6, shape[-1])
    sdpa_case(shape, ks, ks, np.float64, **kw)


@pytest.mark.parametrize("mask_shape", [(5, 6), (1, 6), (2, 1, 5, 6), (2, 3, 5, 6), (3, 5, 6), (5, 1)])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_masks(mask_shape, kind):
    rng = np.random.default_rng(4)
    if kind == "bool":
        m = rng.random(mask_shape) > 0.3
        jm, tm = jtorch.tensor(m), torch.tensor(m)
    else:
        m = rand(mask_shape, np.float64, 5)
        m[rng.random(mask_shape) > 0.7] = -np.inf
        jm, tm = jtorch.tensor(m), torch.tensor(m)
    arrays = [rand((2, 3, 5, 4), np.float64, 0), rand((2, 3, 6, 4), np.float64, 1), rand((2, 3, 6, 4), np.float64, 2)]
    jy, ty = run_both(arrays, (0, 1, 2), lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=jm),
                      lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, attn_mask=tm), 1e-10)
    assert type_name(jy.grad_fn) == type_name(ty.grad_fn)


def test_sdpa_float_mask_gradient():
    """A mask that requires grad takes the math path and receives its gradient."""
    arrays = [rand((2, 3, 5, 4), np.float64, 0), rand((2, 3, 6, 4), np.float64, 1), rand((2, 3, 6, 4), np.float64, 2),
              rand((5, 6), np.float64, 3)]
    jy, ty = run_both(arrays, (0, 1, 2, 3), lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
                      lambda q, k, v, m: TF.scaled_dot_product_attention(q, k, v, attn_mask=m), 1e-10)
    assert type_name(jy.grad_fn) == type_name(ty.grad_fn) == "UnsafeViewBackward0"


@pytest.mark.parametrize("shape", [(2, 4, 5, 8), (4, 5, 8)])
def test_sdpa_gqa(shape):
    ks = shape[:-3] + (2, 6, 8)
    sdpa_case(shape, ks, ks, np.float64, enable_gqa=True)
    sdpa_case(shape, ks, ks, np.float64, enable_gqa=True, is_causal=True)


@pytest.mark.parametrize("shape", [(1, 2, 3, 4), (2, 3, 4)])
def test_sdpa_fully_masked_row_is_zero(shape):
    m = np.array([[True, True], [False, False], [True, False]])
    arrays = [rand(shape, np.float32, 0), rand(shape[:-2] + (2, 4), np.float32, 1),
              rand(shape[:-2] + (2, 4), np.float32, 2)]
    jy, ty = run_both(arrays, (0, 1, 2),
                      lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=jtorch.tensor(m)),
                      lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(m)), 2e-6)
    assert not np.isnan(jy.detach().numpy()).any()
    assert (jy.detach().numpy()[..., 1, :] == 0).all()


def test_sdpa_dropout():
    """Dropout takes the math path (torch's CPU does): dropped weights are zero, kept ones are scaled by 1/(1-p);
    p=1 gives zeros; gradients flow."""
    jtorch.manual_seed(0)
    q = jtorch.randn(2, 2, 5, 4, requires_grad=True)
    y = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    tq = torch.tensor(q.detach().numpy(), requires_grad=True)
    assert type_name(y.grad_fn) == type_name(TF.scaled_dot_product_attention(tq, tq, tq, dropout_p=0.5).grad_fn)
    y.sum().backward()
    assert q.grad is not None and q.grad.shape == q.shape
    assert (F.scaled_dot_product_attention(q, q, q, dropout_p=1.0) == 0).all()
    # with the math path's explicit dropout_mask, the result is torch's
    arrays = [rand((2, 2, 5, 4), np.float64, 0), rand((2, 2, 6, 4), np.float64, 1), rand((2, 2, 6, 4), np.float64, 2)]
    dm = np.random.default_rng(3).random((2, 2, 5, 6)) > 0.4
    run_both(arrays, (0, 1, 2),
             lambda q, k, v: jtorch._scaled_dot_product_attention_math(q, k, v, None, 0.4, False, jtorch.tensor(dm))[0],
             lambda q, k, v: torch._scaled_dot_product_attention_math(q, k, v, None, 0.4, False, torch.tensor(dm))[0],
             1e-10)


def test_sdpa_fused_operator_matches_math():
    """The fused CPU operator's output and log-sum-exp against the math path, causal, masked, gqa."""
    q, k, v = (jtorch.tensor(rand(s, np.float64, i)) for i, s in enumerate([(2, 4, 9, 8), (2, 2, 11, 8),
                                                                             (2, 2, 11, 8)]))
    m = jtorch.tensor(rand((9, 11), np.float64, 7))
    for kw in ({}, {"is_causal": True}, {"attn_mask": m}):
        out, lse = jtorch._scaled_dot_product_flash_attention_for_cpu(q, k, v, **kw)
        ref, w = jtorch._scaled_dot_product_attention_math(q, k, v, kw.get("attn_mask"), 0.0,
                                                           kw.get("is_causal", False), enable_gqa=True)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
        tq, tk, tv = (torch.tensor(t.numpy()) for t in (q, k, v))
        tkw = {"attn_mask": torch.tensor(m.numpy())} if "attn_mask" in kw else dict(kw)
        tout, tlse = torch._scaled_dot_product_flash_attention_for_cpu(tq, tk, tv, **tkw)
        np.testing.assert_allclose(lse.numpy(), tlse.numpy(), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-10, atol=1e-10)


def test_sdpa_fused_choice():
    r = jtorch.randn
    for args, kw in [((r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 8)), {}),
                     ((r(3, 4, 8), r(3, 5, 8), r(3, 5, 8)), {}),
                     ((r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 8)), {"dropout_p": 0.1}),
                     ((r(2, 4, 4, 8), r(2, 2, 5, 8), r(2, 2, 5, 8)), {"enable_gqa": True}),
                     ((r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 6)), {})]:
        t = [torch.tensor(a.numpy()) for a in args]
        assert jtorch._fused_sdp_choice(*args, **kw) == torch._fused_sdp_choice(*t, **kw)


def _raises(fn_j, fn_t):
    with pytest.raises(Exception) as je:
        fn_j()
    with pytest.raises(Exception) as te:
        fn_t()
    assert type(je.value) is type(te.value)
    assert str(je.value) == str(te.value)


@pytest.mark.parametrize("case", range(8))
def test_sdpa_errors(case):
    def make(lib):
        r = lambda *s: lib.tensor(rand(s, np.float32, len(s)))  # noqa: E731
        return [
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 3, 4), r(2, 3, 4), r(2, 3, 4),
                                                                   attn_mask=lib.zeros(3, 3), is_causal=True),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 2, 3, 4), r(2, 2, 3, 4).double(),
                                                                   r(2, 2, 3, 4)),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(4), r(4), r(4)),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 2, 3, 4), r(2, 2, 3, 4), r(2, 2, 3, 4),
                                                                   attn_mask=lib.zeros(3, 3, dtype=lib.long)),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 2, 3, 4), r(2, 2, 3, 4), r(2, 2, 3, 4),
                                                                   attn_mask=lib.zeros(3, 3, dtype=lib.float64)),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 4, 3, 4), r(2, 3, 3, 4), r(2, 3, 3, 4),
                                                                   enable_gqa=True),
            lambda: lib.nn.functional.scaled_dot_product_attention(r(2, 4, 3, 4), r(2, 4, 3, 4), r(2, 4, 3, 4),
                                                                   dropout_p=1.5),
            lambda: lib._scaled_dot_product_flash_attention_for_cpu(r(1, 3, 4), r(1, 3, 4), r(1, 3, 4)),
        ]
    _raises(make(jtorch)[case], make(torch)[case])


def test_sdpa_meta_and_scale_default():
    q = jtorch.empty(2, 3, 5, 8, device="meta")
    y = F.scaled_dot_product_attention(q, q, q[..., :6])
    assert y.shape == (2, 3, 5, 6) and y.device.type == "meta"
    a = rand((1, 1, 3, 16), np.float64, 0)
    j = F.scaled_dot_product_attention(*(jtorch.tensor(a),) * 3)
    ref = F.scaled_dot_product_attention(*(jtorch.tensor(a),) * 3, scale=1 / math.sqrt(16))
    np.testing.assert_array_equal(j.numpy(), ref.numpy())
