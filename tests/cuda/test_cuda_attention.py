"""scaled_dot_product_attention and MultiheadAttention on CUDA against the same jtorch calls on the CPU
(tiny sizes: the simulator runs one OS thread per CUDA thread). CUDA runs the math path (matmul,
_safe_softmax, matmul), so this checks that path's operators on the device, forward and backward."""
from __future__ import annotations

import numpy as np

import jtorch
from _compare import same_forward_backward
import jtorch.nn.functional as F


def test_sdpa_causal_and_masked():
    same_forward_backward(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (1, 2, 3, 2), (1, 2, 3, 2),
          (1, 2, 3, 2))
    mask = np.array([[True, False, True], [False, False, False]])
    same_forward_backward(lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=jtorch.tensor(mask, device=q.device)), (1, 2, 2), (1, 3, 2), (1, 3, 2))


def test_sdpa_gqa_choice():
    q = jtorch.zeros(1, 2, 2, 2, device="cuda")
    assert jtorch._fused_sdp_choice(q, q, q) == 0  # the math path off the CPU
    same_forward_backward(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), (1, 2, 2, 2), (1, 1, 2, 2),
          (1, 1, 2, 2))


def test_multihead_attention_module():
    jtorch.manual_seed(0)
    m = jtorch.nn.MultiheadAttention(4, 2, batch_first=True)
    mc = jtorch.nn.MultiheadAttention(4, 2, batch_first=True)
    mc.load_state_dict(m.state_dict())
    mc = mc.cuda()
    x = jtorch.tensor(np.random.default_rng(0).standard_normal((1, 2, 4)), dtype=jtorch.float32)
    out, w = m(x, x, x)
    outc, wc = mc(x.cuda(), x.cuda(), x.cuda())
    np.testing.assert_allclose(outc.detach().cpu().numpy(), out.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(wc.detach().cpu().numpy(), w.detach().numpy(), rtol=1e-5, atol=1e-5)
