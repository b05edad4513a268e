"""bfloat16: 16-bit storage computed in float32, against torch (values bit for bit where torch
computes in float and rounds once; one bfloat16 ulp where float32 math libraries or summation
orders may differ before the rounding)."""
from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
from _torch_oracle import live_torch, oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

# values around bfloat16's rounding: ties to even, carries into the exponent, NaN, infinities,
# subnormals, overflow to inf, the largest finite value
SPECIAL = np.array([0.0, -0.0, 1.0, 1.00390625, 1.01171875, 1.0078125, 1.99609375, -2.5, 3.3895314e38,
                    3.3961e38, 1e39 * 0, 1e-40, -1e-42, 9.1835e-41, np.inf, -np.inf, np.nan, 65504.0,
                    0.1, 1.1, -3.3, 123456.789], dtype=np.float32)
RNG = np.random.default_rng(7)
DATA = (RNG.standard_normal((4, 6)) * 3).astype(np.float32)
OTHER = (RNG.standard_normal((4, 6)) * 2 + 0.5).astype(np.float32)
POS = (np.abs(DATA) + 0.25).astype(np.float32)


def pair(torch, arr: np.ndarray):
    return jtorch.from_numpy(arr).bfloat16(), torch.from_numpy(arr).bfloat16()


def dtype_name(t) -> str:
    return str(t.dtype).rpartition(".")[2]


def same(j, t, ulps: int = 0) -> None:
    """j (jtorch) has t's (torch's) dtype and values: bit for bit, or within `ulps` bfloat16 ulps."""
    assert str(j.dtype).rpartition(".")[2] == dtype_name(t)
    want = t.float().numpy() if t.dtype != "torch.bool" else t.numpy()
    got = j.float().numpy() if j.dtype is not jtorch.bool else j.numpy()
    if ulps == 0:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=ulps * 2.0 ** -7, atol=1e-30)


# ---- the dtype ---------------------------------------------------------------------------------------
def test_dtype_attributes_and_finfo_match_torch():
    torch = oracle_torch()
    d, td = jtorch.bfloat16, torch.bfloat16
    assert repr(d) == "jtorch.bfloat16" and d.itemsize == td.itemsize == 2
    assert (d.is_floating_point, d.is_signed, d.is_complex) == (td.is_floating_point, td.is_signed, td.is_complex)
    assert str(d.to_real()) == str(td.to_real()).replace("torch", "jtorch")
    assert str(d.to_complex()) == str(td.to_complex()).replace("torch", "jtorch")
    fj, ft = jtorch.finfo(d), torch.finfo(td)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(fj, attr) == getattr(ft, attr), attr
    assert repr(fj) == repr(ft)
    assert pickle.loads(pickle.dumps(d)) is d and copy.deepcopy(d) is d


def test_promotion_matches_torch():
    torch = oracle_torch()
    others = ("bool", "uint8", "int8", "int64", "float16", "float32", "float64", "complex64", "uint16", "uint64")
    for name in others:
        want = torch.promote_types(torch.bfloat16, getattr(torch, name))
        assert str(jtorch.promote_types(jtorch.bfloat16, getattr(jtorch, name))).rpartition(".")[2] == \
            str(want).rpartition(".")[2], name
    j, t = pair(torch, DATA)
    for jo, to in ((1, 1), (1.5, 1.5), (True, True), (1j, 1j)):
        assert dtype_name(t + to) == str((j + jo).dtype).rpartition(".")[2]
    for name in ("float16", "float32", "int64", "uint8"):
        jo, to = jtorch.ones(6, dtype=getattr(jtorch, name)), torch.ones(6, dtype=getattr(torch, name))
        same(j + jo, t + to)
        same(j + jo[0], t + to[0])  # a 0-dim operand of another category
    assert jtorch.result_type(j, 2.5) is jtorch.bfloat16


# ---- conversions -------------------------------------------------------------------------------------
def test_casts_round_to_nearest_even_as_torch():
    torch = oracle_torch()
    for src in ("float32", "float64", "float16", "int64", "int32", "uint8", "bool"):
        arr = SPECIAL.astype(np.float64) if src == "float64" else SPECIAL
        if src not in ("float32", "float64"):
            with np.errstate(invalid="ignore", over="ignore"):
                arr = np.nan_to_num(SPECIAL, posinf=7, neginf=-7).clip(-1000, 1000).astype(src)
        j = jtorch.from_numpy(np.ascontiguousarray(arr)).to(jtorch.bfloat16)
        t = torch.from_numpy(np.ascontiguousarray(arr)).to(torch.bfloat16)
        same(j, t)
        for dst in ("float32", "float64", "float16", "int64", "uint8", "bool"):
            if dst in ("int64", "uint8") and src in ("float32", "float64"):
                continue  # inf/nan to integers: undefined behaviour in C++
            same(j.to(getattr(jtorch, dst)), t.to(getattr(torch, dst)))
    j, t = pair(torch, DATA)
    same(j.bfloat16(), t.bfloat16())
    assert j.bfloat16() is j and j.to(jtorch.bfloat16) is j  # no copy when nothing changes, as torch


def test_tensor_data_tolist_item_and_numpy():
    torch = oracle_torch()
    vals = [1.1, 2.5, -3.3, 1e39, -1e39, 3.3895e38, 1e-40]
    j, t = jtorch.tensor(vals, dtype=jtorch.bfloat16), torch.tensor(vals, dtype=torch.bfloat16)
    same(j, t)
    assert j.tolist() == t.tolist()
    assert j[0].item() == t[0].item() and type(j[0].item()) is float
    assert jtorch.tensor(2.5, dtype=jtorch.bfloat16).item() == 2.5
    with pytest.raises(TypeError) as e:
        j.numpy()
    with pytest.raises(TypeError) as et:
        t.numpy()
    assert str(e.value) == str(et.value) == "Got unsupported ScalarType BFloat16"
    s = jtorch.tensor([1.1], dtype=jtorch.bfloat16)[0]
    assert float(s) == t[0].item() and bool(s)


def test_printing_matches_torch():
    torch = oracle_torch()
    cases = [SPECIAL[:8], DATA, np.array([1.0, 2.0, 3.0], np.float32), np.array(3.14159, np.float32),
             np.array([1e10, 1e-5], np.float32), np.zeros((0,), np.float32)]
    for arr in cases:
        j, t = pair(torch, np.ascontiguousarray(arr))
        assert repr(j) == repr(t).replace("torch.", "jtorch."), arr


def test_factories_match_torch():
    torch = oracle_torch()
    jb, tb = jtorch.bfloat16, torch.bfloat16
    same(jtorch.zeros(3, dtype=jb), torch.zeros(3, dtype=tb))
    same(jtorch.ones(2, 2, dtype=jb), torch.ones(2, 2, dtype=tb))
    same(jtorch.full((3,), 1.7, dtype=jb), torch.full((3,), 1.7, dtype=tb))
    same(jtorch.eye(3, dtype=jb), torch.eye(3, dtype=tb))
    same(jtorch.arange(0, 40, 0.37, dtype=jb), torch.arange(0, 40, 0.37, dtype=tb))
    same(jtorch.arange(300, dtype=jb), torch.arange(300, dtype=tb))
    same(jtorch.linspace(-3.3, 7.1, 11, dtype=jb), torch.linspace(-3.3, 7.1, 11, dtype=tb))
    same(jtorch.linspace(0, 1000, 77, dtype=jb), torch.linspace(0, 1000, 77, dtype=tb))
    j, t = pair(torch, DATA)
    same(jtorch.zeros_like(j), torch.zeros_like(t))
    same(j.clone().fill_(2.3), t.clone().fill_(2.3))
    same(j.new_full((2,), -0.1), t.new_full((2,), -0.1))


# ---- operators ---------------------------------------------------------------------------------------
EXACT_UNARY = ("neg", "abs", "sqrt", "floor", "ceil", "trunc", "round", "reciprocal", "relu", "sign", "frac",
               "isnan", "isinf", "nan_to_num")
CLOSE_UNARY = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "erf", "log1p", "expm1", "atan")


def test_unary_operators_match_torch():
    torch = oracle_torch()
    j, t = pair(torch, DATA)
    jp, tp = pair(torch, POS)
    for name in EXACT_UNARY:
        same(getattr(jtorch, name)(j), getattr(torch, name)(t))
    for name in CLOSE_UNARY:
        same(getattr(jtorch, name)(jp), getattr(torch, name)(tp), ulps=1)
    js, ts = pair(torch, SPECIAL)
    for name in ("neg", "abs", "isnan", "isinf", "nan_to_num", "sign"):
        same(getattr(jtorch, name)(js), getattr(torch, name)(ts))


def test_binary_operators_match_torch():
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, DATA), pair(torch, OTHER)
    for name in ("add", "sub", "mul", "div", "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "ge",
                 "remainder", "fmod", "floor_divide"):
        same(getattr(jtorch, name)(ja, jb), getattr(torch, name)(ta, tb))
    # alpha is read as a bfloat16 and fused (torch's vectorized loop); torch's scalar tail loop of a
    # row shorter than a vector rounds differently, hence one ulp
    same(jtorch.add(ja, jb, alpha=0.3), torch.add(ta, tb, alpha=0.3), ulps=1)
    same(ja + 1.1, ta + 1.1)  # add reads a Python float as a bfloat16 (TensorIterator's conversion)
    same(ja * 1.1, ta * 1.1)  # mul reads a Python float in float32, not rounded to bfloat16 first
    same(ja / 3, ta / 3)
    same(2.5 - ja, 2.5 - ta)
    same(ja ** 2, ta ** 2)
    same(jtorch.pow(abs(ja), jb), torch.pow(abs(ta), tb), ulps=1)
    same(jtorch.atan2(ja, jb), torch.atan2(ta, tb), ulps=1)
    same(jtorch.where(ja > jb, ja, jb), torch.where(ta > tb, ta, tb))
    same(jtorch.where(ja > 0, ja, 0.5), torch.where(ta > 0, ta, 0.5))
    same(ja.clamp(-0.5, 0.7), ta.clamp(-0.5, 0.7))
    same(jtorch.lerp(ja, jb, 0.3), torch.lerp(ta, tb, 0.3))
    same(jtorch.addcmul(ja, ja, jb, value=0.5), torch.addcmul(ta, ta, tb, value=0.5))
    # in place and out=
    jc, tc = ja.clone(), ta.clone()
    jc.mul_(jb).add_(1.25)
    tc.mul_(tb).add_(1.25)
    same(jc, tc)
    jo, to = jtorch.empty(0, dtype=jtorch.bfloat16), torch.empty(0, dtype=torch.bfloat16)
    same(jtorch.add(ja, jb, out=jo), torch.add(ta, tb, out=to))
    jf, tf = jtorch.empty(4, 6), torch.empty(4, 6)  # a float32 out of bfloat16 operands
    same(jtorch.mul(ja, jb, out=jf), torch.mul(ta, tb, out=tf))
    jh, th = jtorch.ones(4, 6, dtype=jtorch.bfloat16), torch.ones(4, 6, dtype=torch.bfloat16)
    jh += jtorch.from_numpy(OTHER)  # a float32 operand, computed in float32, rounded into bfloat16
    th += torch.from_numpy(OTHER)
    same(jh, th)


def test_reductions_match_torch():
    torch = oracle_torch()
    j, t = pair(torch, DATA)
    for name in ("sum", "mean", "amax", "amin", "argmax", "argmin", "max", "min", "all", "any", "count_nonzero"):
        same(getattr(j, name)(), getattr(t, name)(), ulps=1)
        if name not in ("max", "min", "count_nonzero"):
            same(getattr(j, name)(1), getattr(t, name)(1), ulps=1)
    for name in ("prod", "var", "std", "norm", "logsumexp", "nansum"):
        args = (1,) if name == "logsumexp" else ()
        same(getattr(j, name)(*args), getattr(t, name)(*args), ulps=1)
    same(j.sum(0, dtype=jtorch.float32), t.sum(0, dtype=torch.float32), ulps=1)
    same(j.max(1).values, t.max(1).values)
    same(j.max(1).indices, t.max(1).indices)
    for name in ("cumsum", "cumprod", "softmax", "log_softmax", "logcumsumexp"):
        same(getattr(j, name)(1), getattr(t, name)(1), ulps=1)
    big = (RNG.random(70000).astype(np.float32) + 0.5)  # the parallel path, float32 accumulation
    jb, tb = pair(torch, big)
    same(jb.sum(), tb.sum(), ulps=1)
    same(jb.mean(), tb.mean(), ulps=1)


def test_matmul_family_matches_torch():
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, DATA), pair(torch, OTHER)
    same(ja @ jb.t(), ta @ tb.t(), ulps=1)
    same(jtorch.mm(ja.t(), jb), torch.mm(ta.t(), tb), ulps=1)
    same(jtorch.mv(ja, jb[0]), torch.mv(ta, tb[0]), ulps=1)
    same(jtorch.dot(ja[0], jb[0]), torch.dot(ta[0], tb[0]), ulps=1)
    same(jtorch.bmm(ja.view(2, 2, 6), jb.view(2, 6, 2)), torch.bmm(ta.view(2, 2, 6), tb.view(2, 6, 2)), ulps=1)
    same(jtorch.addmm(ja[:, :4], ja, jb.t(), beta=0.5, alpha=2),
         torch.addmm(ta[:, :4], ta, tb.t(), beta=0.5, alpha=2), ulps=1)
    jw, tw = pair(torch, OTHER[:3])
    same(jtorch.nn.functional.linear(ja, jw, jw[:, 0]), torch.nn.functional.linear(ta, tw, tw[:, 0]), ulps=1)


def test_sorting_indexing_and_joining_match_torch():
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, DATA), pair(torch, OTHER)
    for name in ("sort", "argsort", "msort"):
        same(getattr(jtorch, name)(ja) if name != "sort" else ja.sort().values,
             getattr(torch, name)(ta) if name != "sort" else ta.sort().values)
    same(ja.topk(2).values, ta.topk(2).values)
    same(ja.kthvalue(2, 1).values, ta.kthvalue(2, 1).values)
    same(ja.median(), ta.median())
    same(jtorch.unique(ja.round()), torch.unique(ta.round()))
    ji, ti = jtorch.tensor([[0, 2], [1, 1], [3, 0], [2, 2]]), torch.tensor([[0, 2], [1, 1], [3, 0], [2, 2]])
    same(ja.gather(1, ji), ta.gather(1, ti))
    same(ja.scatter_add(1, ji, jb[:, :2]), ta.scatter_add(1, ti, tb[:, :2]))
    same(ja.index_add(0, ji[:, 0], jb), ta.index_add(0, ti[:, 0], tb))
    same(ja.index_fill(1, ji[0], -1.5), ta.index_fill(1, ti[0], -1.5))
    same(ja.index_select(1, ji[0]), ta.index_select(1, ti[0]))
    same(ja[ji[:, 0]], ta[ti[:, 0]])
    same(ja.masked_fill(ja > 0, 0.3), ta.masked_fill(ta > 0, 0.3))
    same(ja[ja > 0], ta[ta > 0])
    jc, tc = ja.clone(), ta.clone()
    jc[ji[:, 0], 1] = 7.1
    tc[ti[:, 0], 1] = 7.1
    same(jc, tc)
    same(jtorch.cat([ja, jb]), torch.cat([ta, tb]))
    same(jtorch.stack([ja, jb], 1), torch.stack([ta, tb], 1))
    same(jtorch.searchsorted(ja[0].sort().values, jb[0]), torch.searchsorted(ta[0].sort().values, tb[0]))
    same(ja.flip(1), ta.flip(1))
    same(ja.t().contiguous(), ta.t().contiguous())
    same(jtorch.nonzero(ja > 0), torch.nonzero(ta > 0))


def test_nn_functions_match_torch():
    torch = oracle_torch()
    ja, ta = pair(torch, DATA)
    F, TF = jtorch.nn.functional, torch.nn.functional
    same(F.gelu(ja), TF.gelu(ta), ulps=1)
    same(F.silu(ja), TF.silu(ta), ulps=1)
    same(F.softmax(ja, -1), TF.softmax(ta, -1), ulps=1)
    same(F.layer_norm(ja, (6,)), TF.layer_norm(ta, (6,)), ulps=2)
    same(F.dropout(ja, 0.0), TF.dropout(ta, 0.0))


def test_convolution_pooling_and_losses_match_torch():
    torch = oracle_torch()
    x = (RNG.standard_normal((2, 3, 6, 6))).astype(np.float32)
    w = (RNG.standard_normal((4, 3, 3, 3))).astype(np.float32)
    (jx, tx), (jw, tw) = pair(torch, x), pair(torch, w)
    F, TF = jtorch.nn.functional, torch.nn.functional
    same(F.conv2d(jx, jw, padding=1), TF.conv2d(tx, tw, padding=1), ulps=1)
    same(F.max_pool2d(jx, 2), TF.max_pool2d(tx, 2))
    same(F.avg_pool2d(jx, 2), TF.avg_pool2d(tx, 2), ulps=1)
    same(F.adaptive_avg_pool2d(jx, 1), TF.adaptive_avg_pool2d(tx, 1), ulps=1)
    same(F.adaptive_avg_pool2d(jx, (4, 3)), TF.adaptive_avg_pool2d(tx, (4, 3)), ulps=1)  # the windowed kernel
    ja, ta = pair(torch, DATA)
    jt, tt = jtorch.tensor([1, 0, 4, 2]), torch.tensor([1, 0, 4, 2])
    same(F.cross_entropy(ja, jt), TF.cross_entropy(ta, tt), ulps=1)
    jx.requires_grad_(True)
    tx.requires_grad_(True)
    F.max_pool2d(F.conv2d(jx, jw), 2).sum().backward()
    TF.max_pool2d(TF.conv2d(tx, tw), 2).sum().backward()
    # torch's col2im adds the patches into bfloat16 storage, rounding at every add; jtorch sums them
    # in float32 and rounds once: equal to a few ulps of the gradient's scale
    g, want = jx.grad.float().numpy(), tx.grad.float().numpy()
    np.testing.assert_allclose(g, want, rtol=2.0 ** -7, atol=2.0 ** -6 * float(np.abs(want).max()))
    assert jx.grad.dtype is jtorch.bfloat16
    jx.grad = tx.grad = None
    F.adaptive_avg_pool2d(jx, (4, 3)).sum().backward()
    TF.adaptive_avg_pool2d(tx, (4, 3)).sum().backward()
    same(jx.grad, tx.grad, ulps=1)
    jtorch.manual_seed(0)
    lin = jtorch.nn.Linear(6, 3).bfloat16()
    assert lin.weight.dtype is jtorch.bfloat16 and lin(ja).dtype is jtorch.bfloat16


def test_autograd_through_bfloat16_matches_torch():
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, DATA), pair(torch, OTHER)
    ja.requires_grad_(True)
    ta.requires_grad_(True)
    ((ja * jb).sin().sum()).backward()
    ((ta * tb).sin().sum()).backward()
    same(ja.grad, ta.grad, ulps=1)
    assert ja.grad.dtype is jtorch.bfloat16


def test_random_sampling_gives_bfloat16_values():
    jtorch.manual_seed(0)
    for x in (jtorch.rand(1000, dtype=jtorch.bfloat16), jtorch.randn(1000, dtype=jtorch.bfloat16),
              jtorch.empty(1000, dtype=jtorch.bfloat16).uniform_(-2, 3)):
        assert x.dtype is jtorch.bfloat16
        v = np.array(x.tolist(), np.float32)
        bits = v.view(np.uint32)
        assert (bits & 0xFFFF == 0).all()  # every value is a bfloat16
    u = np.array(jtorch.rand(20000, dtype=jtorch.bfloat16).tolist())
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.02


# ---- pickling and checkpoints ------------------------------------------------------------------------
def test_pickle_and_deepcopy_round_trip():
    j = jtorch.from_numpy(SPECIAL).bfloat16()
    for k in (pickle.loads(pickle.dumps(j)), copy.deepcopy(j)):
        assert k.dtype is jtorch.bfloat16
        np.testing.assert_array_equal(k.float().numpy(), j.float().numpy())


def test_checkpoint_round_trip_in_jtorch():
    j = jtorch.from_numpy(SPECIAL).bfloat16()
    buf = io.BytesIO()
    jtorch.save({"w": j, "view": j[2:5]}, buf)
    k = jtorch.load(io.BytesIO(buf.getvalue()))
    assert k["w"].dtype is jtorch.bfloat16
    np.testing.assert_array_equal(k["w"].float().numpy(), j.float().numpy())
    assert k["view"].storage_offset() == 2 and k["view"].tolist() == j[2:5].tolist()


def test_checkpoints_both_directions_with_torch():
    torch = live_torch("torch reads and writes the checkpoint bytes")
    t = torch.from_numpy(SPECIAL).bfloat16()
    buf = io.BytesIO()
    torch.save({"w": t, "view": t[2:5]}, buf)
    k = jtorch.load(io.BytesIO(buf.getvalue()))
    assert k["w"].dtype is jtorch.bfloat16
    np.testing.assert_array_equal(k["w"].float().numpy(), t.float().numpy())
    out = io.BytesIO()
    jtorch.save(k, out)
    back = torch.load(io.BytesIO(out.getvalue()))
    assert back["w"].dtype == torch.bfloat16
    assert torch.equal(back["w"].view(torch.int16), t.view(torch.int16))
    assert back["view"].storage_offset() == 2


# ---- properties --------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=40))
def test_rounding_matches_the_bit_formula(vals):
    """float32 -> bfloat16 is round-to-nearest-even on the bit pattern; NaN stays NaN (NumPy oracle)."""
    a = np.array(vals, np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32) << 16
    want = np.where(np.isnan(a), np.float32(np.nan), want.astype(np.uint32).view(np.float32))
    got = np.array(jtorch.from_numpy(a).bfloat16().tolist(), np.float32)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 7), st.sampled_from(["add", "mul", "sub", "div", "maximum"]),
       st.integers(0, 2 ** 31 - 1))
def test_binary_shapes_match_torch_live(rows, cols, op, seed):
    torch = live_torch("hypothesis draws the shapes and values")
    r = np.random.default_rng(seed)
    a = (r.standard_normal((rows, cols)) * 10).astype(np.float32)
    b = (r.standard_normal((1, cols)) * 10).astype(np.float32)  # broadcast along rows
    j = getattr(jtorch, op)(jtorch.from_numpy(a).bfloat16(), jtorch.from_numpy(b).bfloat16())
    t = getattr(torch, op)(torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16())
    np.testing.assert_array_equal(np.array(j.float().tolist(), np.float32), t.float().numpy())


def test_kernel_conversion_helpers_are_exact():
    """The arithmetic conversions CUDA kernels compile (jtorch/kernels/bfloat16.py), compiled here by
    Numba's CPU target: every bit pattern to float32, and float32 to bits as the bit formula rounds."""
    import numba

    from jtorch.kernels import bfloat16 as helpers
    from jtorch.kernels.cpu import codegen  # noqa: F401  (registers the helpers for the CPU target)
    from jtorch.scalar import float32_to_bfloat16_bits

    @numba.njit
    def widen(h, out):
        for i in range(h.size):
            out[i] = helpers.bfloat16_to_float(h[i])

    @numba.njit
    def narrow(x, out):
        for i in range(x.size):
            out[i] = helpers.float_to_bfloat16(x[i])

    h = np.arange(65536, dtype=np.uint16)
    f = np.empty(h.size, np.float32)
    widen(h, f)
    want = (h.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(f.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.isnan(f[np.isnan(want)]).all()
    finite = want[np.isfinite(want)]
    with np.errstate(over="ignore"):
        x = np.concatenate([want, np.nextafter(finite, np.float32(np.inf)), np.nextafter(finite, np.float32(-np.inf)),
                            (finite.view(np.uint32) + np.uint32(0x8000)).view(np.float32), SPECIAL])
    out = np.empty(x.size, np.uint16)
    narrow(x, out)
    np.testing.assert_array_equal(out, float32_to_bfloat16_bits(x))
