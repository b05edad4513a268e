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
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert str(je.value).replace("jtorch.", "torch.") == str(te.value)


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
    k = jtorch.empty(2, 1, 7, 8, device="meta")
    out, lse = jtorch._scaled_dot_product_flash_attention_for_cpu(q, k, k)
    assert out.shape == (2, 3, 5, 8) and lse.shape == (2, 3, 5) and out.device.type == "meta"
    grads = jtorch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(out, q, k, k, out, lse, 0.0, True)
    assert [tuple(g.shape) for g in grads] == [(2, 3, 5, 8), (2, 1, 7, 8), (2, 1, 7, 8)]
    a = rand((1, 1, 3, 16), np.float64, 0)
    j = F.scaled_dot_product_attention(*(jtorch.tensor(a),) * 3)
    ref = F.scaled_dot_product_attention(*(jtorch.tensor(a),) * 3, scale=1 / math.sqrt(16))
    np.testing.assert_array_equal(j.numpy(), ref.numpy())


# ---- MultiheadAttention ----------------------------------------------------------------------------------

def mha_pair(dtype=np.float64, **kw):
    jm, tm = jtorch.nn.MultiheadAttention(8, 2, **kw), torch.nn.MultiheadAttention(8, 2, **kw)
    if dtype == np.float64:
        jm, tm = jm.double(), tm.double()
    assert [(n, tuple(p.shape)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert list(jm.state_dict()) == list(tm.state_dict())
    rng = np.random.default_rng(11)
    for (n, jp), (_, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        a = rng.standard_normal(tuple(jp.shape)).astype(dtype) * 0.5
        with jtorch.no_grad():
            jp.copy_(jtorch.tensor(a))
        with torch.no_grad():
            tp.copy_(torch.tensor(a))
    return jm, tm


def mha_check(jm, tm, arrays, tol=1e-10, **fkw):
    """Forward (output and weights) and the gradients of the inputs and of every parameter."""
    def conv(lib, v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    js = [jtorch.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    if len(js) == 1:  # self-attention: query is key is value
        js, ts = js * 3, ts * 3
    jo, jw = jm(*js, **{k: conv(jtorch, v) for k, v in fkw.items()})
    to, tw = tm(*ts, **{k: conv(torch, v) for k, v in fkw.items()})
    close(jo, to, tol)
    assert (jw is None) == (tw is None)
    if jw is not None:
        close(jw, tw, tol)
    g = rand(tuple(to.shape), arrays[0].dtype, 9)
    loss_j = (jo * jtorch.tensor(g)).sum() + (jw.sum() if jw is not None else 0)
    loss_t = (to * torch.tensor(g)).sum() + (tw.sum() if tw is not None else 0)
    loss_j.backward(), loss_t.backward()
    for j, t in zip(js, ts):
        close(j.grad, t.grad, tol)
    for (n, jp), (_, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        assert (jp.grad is None) == (tp.grad is None), n
        if jp.grad is not None:
            close(jp.grad, tp.grad, tol)


MHA_OPTIONS = [{}, {"batch_first": True}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True},
               {"add_zero_attn": True}, {"bias": False}, {"add_bias_kv": True, "add_zero_attn": True,
                                                          "batch_first": True}]


@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("kw", MHA_OPTIONS)
def test_mha_options(kw, need_weights, average):
    jm, tm = mha_pair(**kw)
    n, l, s = 3, 4, 5
    shape = (lambda t, e: (n, t, e)) if kw.get("batch_first") else (lambda t, e: (t, n, e))
    arrays = [rand(shape(l, 8), np.float64, 0), rand(shape(s, kw.get("kdim", 8)), np.float64, 1),
              rand(shape(s, kw.get("vdim", 8)), np.float64, 2)]
    mha_check(jm, tm, arrays, need_weights=need_weights, average_attn_weights=average)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", ["kpm_bool", "kpm_float", "attn_bool", "attn_float", "attn_3d", "both",
                                   "causal", "causal_kpm"])
def test_mha_masks(masks, need_weights):
    jm, tm = mha_pair(batch_first=True)
    rng = np.random.default_rng(2)
    kpm = np.zeros((3, 5), bool)
    kpm[0, 3:] = True
    kpm[2, 1] = True
    attn = rng.random((5, 5)) > 0.7
    np.fill_diagonal(attn, False)
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    fkw = {"kpm_bool": {"key_padding_mask": kpm},
           "kpm_float": {"key_padding_mask": np.where(kpm, -np.inf, 0.0)},
           "attn_bool": {"attn_mask": attn},
           "attn_float": {"attn_mask": rand((5, 5), np.float64, 3)},
           "attn_3d": {"attn_mask": rand((6, 5, 5), np.float64, 4)},
           "both": {"attn_mask": attn, "key_padding_mask": kpm},
           "causal": {"attn_mask": causal, "is_causal": True},
           "causal_kpm": {"attn_mask": causal, "is_causal": True, "key_padding_mask": np.where(kpm, -np.inf, 0.0)},
           }[masks]
    mha_check(jm, tm, [rand((3, 5, 8), np.float64, 0)], need_weights=need_weights, **fkw)


def test_mha_unbatched_and_eval_dropout():
    jm, tm = mha_pair(dropout=0.5)
    jm.eval(), tm.eval()
    mha_check(jm, tm, [rand((4, 8), np.float64, 0), rand((5, 8), np.float64, 1), rand((5, 8), np.float64, 2)],
              key_padding_mask=np.array([False, False, True, False, True]))
    mha_check(jm, tm, [rand((4, 8), np.float64, 0)], attn_mask=rand((2, 4, 4), np.float64, 5))


def test_mha_fully_masked_row():
    """need_weights=True computes the softmax explicitly (a fully masked row is NaN); SDPA's gives 0."""
    jm, tm = mha_pair(batch_first=True)
    x = rand((1, 3, 8), np.float64, 0)
    kpm = np.ones((1, 3), bool)
    for nw in (True, False):
        jo = jm(*(jtorch.tensor(x),) * 3, key_padding_mask=jtorch.tensor(kpm), need_weights=nw)[0]
        to = tm(*(torch.tensor(x),) * 3, key_padding_mask=torch.tensor(kpm), need_weights=nw)[0]
        np.testing.assert_array_equal(np.isnan(jo.detach().numpy()), np.isnan(to.detach().numpy()))
        assert np.isnan(jo.detach().numpy()).all() == nw


def test_mha_initialisation_and_repr():
    jtorch.manual_seed(0)
    m = jtorch.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    t = torch.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    assert repr(m) == repr(t)
    assert (m.in_proj_bias == 0).all() and (m.out_proj.bias == 0).all()
    bound = math.sqrt(6 / (16 + 48))  # xavier_uniform_ of (3E, E)
    assert m.in_proj_weight.abs().max().item() <= bound
    assert type(m.out_proj).__name__ == type_name(t.out_proj) == "NonDynamicallyQuantizableLinear"
    assert m.bias_k.shape == (1, 1, 16) and m.bias_k.std().item() > 0
    m2 = jtorch.nn.MultiheadAttention(16, 4)
    assert m2.bias_k is None and m2.in_proj_weight.shape == (48, 16)


@pytest.mark.parametrize("case", range(6))
def test_mha_errors(case):
    def make(lib):
        x = lib.tensor(rand((5, 2, 8), np.float32, 0))
        m = lib.nn.MultiheadAttention(8, 2)
        return [
            lambda: m(x, x, x, is_causal=True),
            lambda: m(x, x, x, attn_mask=lib.zeros(5, 4)),
            lambda: m(x, x, x, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool)),
            lambda: m(x, x, x, attn_mask=lib.zeros(5, 5, dtype=lib.long)),
            lambda: lib.nn.MultiheadAttention(8, 3),
            lambda: lib.nn.MultiheadAttention(0, 3),
        ]
    _raises(make(jtorch)[case], make(torch)[case])


def test_mha_mismatched_mask_warning():
    jm, tm = mha_pair(batch_first=True)
    x = rand((2, 3, 8), np.float64, 0)
    kpm = np.zeros((2, 3), bool)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        jm(*(jtorch.tensor(x),) * 3, key_padding_mask=jtorch.tensor(kpm), attn_mask=jtorch.zeros(3, 3))


def test_multi_head_attention_forward_functional():
    """F.multi_head_attention_forward with separate projection weights and static keys/values."""
    rng = np.random.default_rng(5)
    a = {n: rng.standard_normal(s) for n, s in [("q", (4, 2, 8)), ("k", (5, 2, 8)), ("w", (24, 8)), ("b", (24,)),
                                                  ("ow", (8, 8)), ("ob", (8,)), ("sk", (4, 5, 4)), ("sv", (4, 5, 4))]}

    def run(lib, F_):
        t = {n: lib.tensor(v, requires_grad=True) for n, v in a.items()}
        out, w = F_.multi_head_attention_forward(t["q"], t["k"], t["k"], 8, 2, t["w"], t["b"], None, None, False,
                                                 0.0, t["ow"], t["ob"], static_k=t["sk"], static_v=t["sv"])
        (out.sum() + w.sum()).backward()
        return out, w, t
    jo, jw, jt = run(jtorch, F)
    to, tw, tt = run(torch, TF)
    close(jo, to, 1e-10), close(jw, tw, 1e-10)
    for n in a:
        if tt[n].grad is not None:
            close(jt[n].grad, tt[n].grad, 1e-10)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", [(2, 2, 5, 8), (2, 5, 8)])
def test_sdpa_low_precision(dtype, shape):
    """float16 / bfloat16: computed in float32 and rounded once (the math path upcasts; the fused
    kernel accumulates in float32), node names as torch's."""
    x = rand(shape, np.float32, 0)
    jq = jtorch.tensor(x).to(getattr(jtorch, dtype)).requires_grad_()
    tq = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    jo = F.scaled_dot_product_attention(jq, jq, jq, is_causal=True)
    to = TF.scaled_dot_product_attention(tq, tq, tq, is_causal=True)
    assert str(jo.dtype).replace("jtorch", "torch") == str(to.dtype)
    assert type_name(jo.grad_fn) == type_name(to.grad_fn)
    jo.float().sum().backward(), to.float().sum().backward()
    tol = 2e-2 if dtype == "bfloat16" else 4e-3
    np.testing.assert_allclose(jo.float().detach().numpy(), to.float().detach().numpy(), atol=tol, rtol=tol)
    np.testing.assert_allclose(jq.grad.float().numpy(), tq.grad.float().numpy(), atol=2 * tol, rtol=2 * tol)


def _numpy_sdpa(q, k, v, mask, causal, scale):
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        s = s + np.where(np.tril(np.ones(s.shape[-2:], bool)), 0.0, -np.inf)
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0.0))
    d = e.sum(-1, keepdims=True)
    return (np.where(d > 0, e / np.where(d > 0, d, 1.0), 0.0)) @ v


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 6), st.integers(1, 6), st.sampled_from([1, 4, 7]),
       st.sampled_from([None, "bool", "float"]), st.booleans(), st.integers(0, 2**16))
def test_sdpa_against_numpy(b, h, lq, s, e, mask_kind, causal, seed):
    """Random shapes and options against a NumPy reference (both kernels: the fused one for 4-D inputs)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((b, h, n, e)) for n in (lq, s, s))
    mask = None
    if mask_kind == "bool":
        mask = rng.random((lq, s)) > 0.3
    elif mask_kind == "float":
        mask = rng.standard_normal((b, 1, lq, s))
    if causal and mask is not None:
        mask = None
    got = F.scaled_dot_product_attention(jtorch.tensor(q), jtorch.tensor(k), jtorch.tensor(v),
                                         None if mask is None else jtorch.tensor(mask), is_causal=causal)
    np.testing.assert_allclose(got.numpy(), _numpy_sdpa(q, k, v, mask, causal, 1 / math.sqrt(e)), atol=1e-10,
                               rtol=1e-10)
    got3 = F.scaled_dot_product_attention(jtorch.tensor(q[0]), jtorch.tensor(k[0]), jtorch.tensor(v[0]),
                                          is_causal=causal)
    np.testing.assert_allclose(got3.numpy(), _numpy_sdpa(q[0], k[0], v[0], None, causal, 1 / math.sqrt(e)),
                               atol=1e-10, rtol=1e-10)


def test_sdpa_calls_the_backend_kernels(monkeypatch):
    """When the backend implements attention_forward / attention_backward, the fused operator hands them
    flat contiguous (N, L, E) operands, the additive mask expanded to (N, L, S) and preallocated outputs;
    here a NumPy stand-in fills them and the results must be the math path's."""
    from jtorch.backends import backend
    cpu = backend("cpu")
    calls = []

    def probs(q, k, mask, is_causal, scale):
        s = q.numpy() @ k.numpy().transpose(0, 2, 1) * scale
        if mask is not None:
            s = s + mask.numpy()
        if is_causal:
            s = s + np.where(np.tril(np.ones(s.shape[1:], bool)), 0.0, -np.inf)
        m = s.max(-1, keepdims=True)
        e = np.exp(s - m)
        return e / e.sum(-1, keepdims=True), (m + np.log(e.sum(-1, keepdims=True)))[..., 0]

    def forward(q, k, v, mask, is_causal, scale, out, logsumexp):
        assert all(t.is_contiguous() and t.dim() == 3 for t in (q, k, v))
        assert mask is None or tuple(mask.shape) == (q.size(0), q.size(1), k.size(1))
        calls.append("forward")
        p, lse = probs(q, k, mask, is_causal, scale)
        out.copy_(jtorch.tensor(p @ v.numpy()))
        logsumexp.copy_(jtorch.tensor(lse))

    def backward(grad_out, q, k, v, mask, is_causal, scale, out, logsumexp, grad_q, grad_k, grad_v):
        calls.append("backward")
        p, _ = probs(q, k, mask, is_causal, scale)
        go, vv = grad_out.numpy(), v.numpy()
        ds = p * (go @ vv.transpose(0, 2, 1) - (go * out.numpy()).sum(-1, keepdims=True))
        grad_q.copy_(jtorch.tensor(ds @ k.numpy() * scale))
        grad_k.copy_(jtorch.tensor(ds.transpose(0, 2, 1) @ q.numpy() * scale))
        grad_v.copy_(jtorch.tensor(p.transpose(0, 2, 1) @ go))

    monkeypatch.setattr(cpu, "attention_forward", forward, raising=False)
    monkeypatch.setattr(cpu, "attention_backward", backward, raising=False)
    assert cpu.implements("attention_forward")
    arrays = [rand((2, 4, 5, 8), np.float64, 0), rand((2, 2, 6, 8), np.float64, 1), rand((2, 2, 6, 8), np.float64, 2)]
    m = rand((2, 1, 5, 6), np.float64, 3)
    for kw in ({"is_causal": True}, {"attn_mask": m}):
        js = [jtorch.tensor(a, requires_grad=True) for a in arrays]
        rs = [jtorch.tensor(a, requires_grad=True) for a in arrays]
        jkw = {k: jtorch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        y = F.scaled_dot_product_attention(*js, enable_gqa=True, **jkw)
        ref = jtorch._scaled_dot_product_attention_math(*rs, jkw.get("attn_mask"), 0.0, kw.get("is_causal", False),
                                                         enable_gqa=True)[0]
        np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
        y.sum().backward(), ref.sum().backward()
        for j, r in zip(js, rs):
            np.testing.assert_allclose(j.grad.numpy(), r.grad.numpy(), rtol=1e-10, atol=1e-10)
    assert calls == ["forward", "backward"] * 2


@pytest.mark.parametrize("masks", ["kpm", "attn", "attn_3d"])
def test_mha_eval_fast_path_fully_masked_rows(masks):
    """In evaluation without grad, self-attention with boolean masks runs torch's fast path, whose fully
    masked query rows come out NaN (the module's own path gives the output projection's bias); float masks
    keep the module's path. The TransformerEncoderLayer above it shows the same."""
    rng = np.random.default_rng(1)
    x = rand((3, 5, 8), np.float32, 0)
    kpm = np.zeros((3, 5), bool)
    kpm[2] = True
    kpm[0, 3:] = True
    attn = np.triu(np.ones((5, 5), bool), 1)
    attn[1] = True
    attn3 = rng.random((6, 5, 5)) > 0.8
    attn3[3, 2] = True
    kw = {"kpm": {"key_padding_mask": kpm}, "attn": {"attn_mask": attn}, "attn_3d": {"attn_mask": attn3}}[masks]
    jm, tm = mha_pair(np.float32, batch_first=True)
    jm.eval(), tm.eval()
    for grad in (False, True):
        for as_float in (False, True):
            def conv(lib, v):
                return lib.tensor(np.where(v, -np.inf, 0.0).astype(np.float32) if as_float else v)
            with jtorch.set_grad_enabled(grad):
                jo = jm(*(jtorch.tensor(x),) * 3, need_weights=False, **{k: conv(jtorch, v) for k, v in kw.items()})[0]
            with torch.set_grad_enabled(grad):
                to = tm(*(torch.tensor(x),) * 3, need_weights=False, **{k: conv(torch, v) for k, v in kw.items()})[0]
            j, t = jo.detach().numpy(), to.detach().numpy()
            np.testing.assert_array_equal(np.isnan(j), np.isnan(t))
            ok = ~np.isnan(t)
            np.testing.assert_allclose(j[ok], t[ok], rtol=1e-5, atol=1e-5)
            assert np.isnan(j).any() == (not grad and not as_float)
    if masks == "kpm":
        jl, tl = same_layer(jm)
        with jtorch.no_grad():
            jy = jl(jtorch.tensor(x), src_key_padding_mask=jtorch.tensor(kpm))
        with torch.no_grad():
            ty = tl(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
        np.testing.assert_array_equal(np.isnan(jy.numpy()), np.isnan(ty.numpy()))


def same_layer(_):
    jl = jtorch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    rng = np.random.default_rng(2)
    for jp, tp in zip(jl.parameters(), tl.parameters()):
        a = (rng.standard_normal(tuple(jp.shape)) * 0.3).astype(np.float32)
        with jtorch.no_grad():
            jp.copy_(jtorch.tensor(a))
        with torch.no_grad():
            tp.copy_(torch.tensor(a))
    return jl.eval(), tl.eval()
