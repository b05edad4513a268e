"""The backends' attention kernels (attention_forward / attention_backward), called directly: blocked
online-softmax results against softmax(q kᵀ * scale + mask) v in float64 NumPy and its analytic
gradients, and the fully masked rows against torch's CPU flash attention."""
from __future__ import annotations

import os
import zlib

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch.backends import backend

CPU = backend("cpu")
TOL = {np.float32: (2e-5, 2e-5), np.float64: (1e-11, 1e-11)}


def _reference(q, k, v, mask, causal, scale, do):
    """out, logsumexp and (dq, dk, dv) in float64; a fully masked row's weights are 0 (torch's flash kernel)."""
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    s = q @ k.transpose(0, 2, 1) * scale
    if mask is not None:
        s = s + mask
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    dead = np.isneginf(mx)
    e = np.exp(s - np.where(dead, 0.0, mx))
    total = e.sum(-1, keepdims=True)
    p = np.where(dead, 0.0, e / np.where(dead, 1.0, total))
    out = p @ v
    lse = np.where(dead, 0.0, mx + np.log(np.where(dead, 1.0, total)))[..., 0]
    dv = p.transpose(0, 2, 1) @ do
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale
    return out, lse, (ds @ k, ds.transpose(0, 2, 1) @ q, dv)


def _run(dtype, q, k, v, mask, causal, scale, do, dev=CPU):
    """Both kernels on jtorch tensors; returns out, logsumexp, (grad_q, grad_k, grad_v) as arrays."""
    jq, jk, jv, jdo = (jtorch.from_numpy(np.ascontiguousarray(x)) for x in (q, k, v, do))
    N, L, _ = q.shape
    jm = None if mask is None else jtorch.from_numpy(mask).expand(N, L, k.shape[1])
    jdt = jtorch.float32 if dtype == np.float32 else jtorch.float64
    out = jtorch.empty(N, L, v.shape[2], dtype=jdt)
    lse = jtorch.empty(N, L, dtype=jdt)
    dev.attention_forward(jq, jk, jv, jm, causal, scale, out, lse)
    grads = [jtorch.full(x.shape, 7.0, dtype=jdt) for x in (q, k, v)]  # every element must be written
    dev.attention_backward(jdo, jq, jk, jv, jm, causal, scale, out, lse, *grads)
    return out.numpy(), lse.numpy(), tuple(g.numpy() for g in grads)


def _inputs(rng, dtype, N, L, S, E, Ev, mask_kind):
    q, k = rng.standard_normal((N, L, E)), rng.standard_normal((N, S, E))
    v, do = rng.standard_normal((N, S, Ev)), rng.standard_normal((N, L, Ev))
    mask = None
    if mask_kind == "float":  # per head, with -inf entries
        mask = np.where(rng.random((N, L, S)) < 0.3, -np.inf, rng.standard_normal((N, L, S)))
    elif mask_kind == "broadcast":  # (1, L, S) expanded over N: zero stride
        mask = np.where(rng.random((1, L, S)) < 0.3, -np.inf, 0.5 * rng.standard_normal((1, L, S)))
    cast = [None if x is None else x.astype(dtype) for x in (q, k, v, mask, do)]
    return cast


def _check(dtype, q, k, v, mask, causal, scale, do):
    rtol, atol = TOL[dtype]
    out, lse, grads = _run(dtype, q, k, v, mask, causal, scale, do)
    r_out, r_lse, r_grads = _reference(q, k, v, mask, causal, scale, do)
    assert out.dtype == dtype and lse.dtype == dtype
    np.testing.assert_allclose(out, r_out, rtol=rtol, atol=atol)
    np.testing.assert_allclose(lse, r_lse, rtol=rtol, atol=atol)
    for name, g, r in zip("qkv", grads, r_grads):
        np.testing.assert_allclose(g, r, rtol=rtol * 10, atol=atol * 10, err_msg=f"grad_{name}")


# (N, L, S, E, Ev): odd sizes, several query blocks (32 below L=192, 64 from 192, 256 from 768 or without
# a causal mask when there are enough of them) and key blocks (512), S != L, Ev != E, more queries than keys.
SHAPES = [(3, 37, 45, 8, 5), (2, 200, 600, 16, 16), (6, 300, 530, 8, 8), (1, 800, 530, 8, 12), (2, 70, 20, 4, 4)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mask_kind", [None, "float", "broadcast"])
def test_kernels_match_the_softmax_reference(dtype, shape, causal, mask_kind):
    rng = np.random.default_rng(zlib.crc32(repr((shape, causal, mask_kind)).encode()))
    N, L, S, E, Ev = shape
    q, k, v, mask, do = _inputs(rng, dtype, N, L, S, E, Ev, mask_kind)
    _check(dtype, q, k, v, mask, causal, 0.3 if mask_kind else 1 / np.sqrt(E), do)


def test_large_scores_do_not_overflow():
    """The online softmax subtracts the running max: scores of several hundred stay finite."""
    rng = np.random.default_rng(3)
    q, k, v, _, do = _inputs(rng, np.float32, 2, 40, 700, 8, 8, None)
    _check(np.float32, q * 30, k * 30, v, None, False, 1.0, do)


def test_fully_masked_rows_match_torchs_flash_kernel():
    """Rows whose every score is -inf: torch's CPU flash attention gives out 0 and logsumexp 0 (its
    docstring's math reference gives NaN), and zero gradients; the other rows are unaffected,
    including a row whose first key block is masked and a later one is not."""
    torch = oracle_torch()
    rng = np.random.default_rng(5)
    N, L, S, E = 2, 6, 530, 4
    q, k, v, _, do = _inputs(rng, np.float32, N, L, S, E, E, None)
    mask = np.zeros((N, L, S), np.float32)
    mask[0, 1] = -np.inf
    mask[1, 4] = -np.inf
    mask[0, 3, :512] = -np.inf  # only the second key block takes part
    out, lse, grads = _run(np.float32, q, k, v, mask, False, 0.5, do)

    tq, tk, tv = (torch.tensor(x[None]).requires_grad_() for x in (q, k, v))
    t_out, t_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        tq, tk, tv, attn_mask=torch.tensor(mask[None]), scale=0.5)[:2]
    t_out.backward(torch.tensor(do[None]))
    np.testing.assert_allclose(out, t_out.detach().numpy()[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lse, t_lse.numpy()[0], rtol=1e-5, atol=1e-6)
    for g, t in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(g, t.grad.numpy()[0], rtol=1e-4, atol=1e-5)
    assert not np.isnan(out).any() and (out[0, 1] == 0).all() and (lse[1, 4] == 0)
    assert (grads[0][0, 1] == 0).all() and (grads[0][1, 4] == 0).all()


def test_empty_sizes():
    """No queries: nothing is written; no keys: zero output and zero gradients."""
    q, k, v, do = np.ones((2, 3, 4), np.float32), np.ones((2, 0, 4), np.float32), np.ones((2, 0, 5), np.float32), \
        np.ones((2, 3, 5), np.float32)
    out, lse, grads = _run(np.float32, q, k, v, None, False, 0.5, do)
    assert (out == 0).all() and (lse == 0).all() and (grads[0] == 0).all()


@settings(max_examples=25, deadline=None)
@given(N=st.integers(1, 3), L=st.integers(1, 80), S=st.integers(1, 80), E=st.integers(1, 9), Ev=st.integers(1, 9),
       causal=st.booleans(), mask_kind=st.sampled_from([None, "float", "broadcast"]), seed=st.integers(0, 2**16))
def test_shapes_against_numpy(N, L, S, E, Ev, causal, mask_kind, seed):
    rng = np.random.default_rng(seed)
    q, k, v, mask, do = _inputs(rng, np.float64, N, L, S, E, Ev, mask_kind)
    _check(np.float64, q, k, v, mask, causal, 1 / np.sqrt(E), do)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_product_loops_match_numpy(dtype):
    """The kernels' block products without SciPy (Numba's np.dot needs it): plain loops, for the layouts
    the kernels pass (a row-major block times a transposed one, and a transposed block times a row-major one)."""
    from jtorch.kernels.cpu.attention import _mm_loops

    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((7, 5)).astype(dtype), rng.standard_normal((9, 5)).astype(dtype)
    c = rng.standard_normal((7, 3)).astype(dtype)
    for x, y in ((a, b.T), (a.T, c), (a, np.ascontiguousarray(b.T))):
        out = np.full((x.shape[0], y.shape[1]), np.nan, dtype)
        _mm_loops(x, y, out)
        np.testing.assert_allclose(out, x @ y, rtol=TOL[dtype][0], atol=TOL[dtype][1])


def test_other_dtypes_are_refused():
    """float16/bfloat16 are the caller's to compute in float32 (as torch's opmath); the kernel says so."""
    x = jtorch.ones(1, 2, 2, dtype=jtorch.float16)
    with pytest.raises(TypeError, match="attention kernels take float32 or float64, got float16"):
        CPU.attention_forward(x, x, x, None, False, 1.0, jtorch.empty_like(x), jtorch.empty(1, 2))


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(field)


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's /proc/self/clear_refs")
def test_memory_stays_linear_in_the_sequence_length():
    """L = S = 6000: one (L, S) float32 score matrix would be 144 MB; forward and backward together add
    far less at their peak (blocks of at most 256 x 512 per task), read as the resident-set peak."""
    rng = np.random.default_rng(11)
    L, E = 6000, 4
    q, k, v, _, do = _inputs(rng, np.float32, 1, L, L, E, E, None)
    small = [x[:, :64] for x in (q, k, v, do)]
    _run(np.float32, *small[:3], None, True, 0.5, small[3])  # kernels loaded, every thread's BLAS warm
    try:
        with open("/proc/self/clear_refs", "w") as f:  # resets VmHWM to the current resident size
            f.write("5")
    except OSError:
        pytest.skip("cannot reset the resident-set peak here")
    before = _status_bytes("VmRSS")
    out, lse, grads = _run(np.float32, q, k, v, None, True, 0.5, do)
    added = _status_bytes("VmHWM") - before
    assert added < 40 * 2**20, added
    assert np.isfinite(out).all() and np.isfinite(grads[1]).all()


def test_nan_scores_match_torchs_flash_kernel():
    """A NaN in a query row makes that row's every score NaN: torch's flash kernel then gives 0 (its max
    skips NaN, as for a fully masked row); a NaN in one key makes the other rows NaN."""
    torch = oracle_torch()
    rng = np.random.default_rng(13)
    q, k, v, _, do = _inputs(rng, np.float32, 1, 3, 5, 4, 4, None)
    q[0, 1, 2] = np.nan
    k_nan = k.copy()
    k_nan[0, 3, 1] = np.nan
    for keys in (k, k_nan):
        out, lse, _ = _run(np.float32, q, keys, v, None, False, 0.5, do)
        t_out, t_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            *(torch.tensor(x[None]) for x in (q, keys, v)), scale=0.5)[:2]
        np.testing.assert_allclose(out, t_out.numpy()[0], rtol=1e-5, atol=1e-6, equal_nan=True)
        np.testing.assert_allclose(lse, t_lse.numpy()[0], rtol=1e-5, atol=1e-6, equal_nan=True)
