"""nn.Embedding's options and nn.EmbeddingBag / F.embedding_bag / torch.embedding_bag against torch:
values, gradients of the weight and of per_sample_weights, torch's auxiliary returns, node names,
error types and texts, module parameters and repr, meta tensors."""
from __future__ import annotations

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn.functional as JF

torch = oracle_torch()
TF = torch.nn.functional

IDX = [1, 2, 4, 4, 3, 0, 2]
OFFSETS = [0, 2, 2, 5]


def _weight(rows: int = 5, cols: int = 3, seed: int = 0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, cols)).astype(dtype)


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("jtorch.tensor.Tensor", "torch.Tensor").replace("jtorch", "torch")
    return None


def _bag_both(lib, F, w: np.ndarray, psw: np.ndarray | None, **kw):
    weight = lib.tensor(w, requires_grad=True)
    p = None if psw is None else lib.tensor(psw, requires_grad=True)
    out = F.embedding_bag(lib.tensor(kw.pop("idx", IDX)), weight, kw.pop("offsets", lib.tensor(OFFSETS)),
                          per_sample_weights=p, **kw)
    r = np.linspace(-1, 1, int(np.prod(tuple(out.shape)))).reshape(tuple(out.shape)).astype(w.dtype)
    (out * lib.tensor(r)).sum().backward()
    return out, weight.grad, None if p is None else p.grad


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag_values_and_gradients(mode, padding_idx, include_last_offset):
    w = _weight()
    kw = dict(mode=mode, padding_idx=padding_idx, include_last_offset=include_last_offset)
    offsets = OFFSETS + [len(IDX)] if include_last_offset else OFFSETS  # the last offset ends the last bag
    jo, jg, _ = _bag_both(jtorch, JF, w, None, offsets=jtorch.tensor(offsets), **kw)
    to, tg, _ = _bag_both(torch, TF, w, None, offsets=torch.tensor(offsets), **kw)
    np.testing.assert_allclose(jo.detach().numpy(), to.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(jg.numpy(), tg.numpy(), rtol=1e-6, atol=1e-6)
    assert jo.grad_fn.name() == to.grad_fn.name() == "EmbeddingBagBackward0"


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_per_sample_weights_gradients(padding_idx):
    w, psw = _weight(seed=1), np.linspace(0.5, 2.0, len(IDX)).astype(np.float32)
    jo, jg, jp = _bag_both(jtorch, JF, w, psw, mode="sum", padding_idx=padding_idx)
    to, tg, tp = _bag_both(torch, TF, w, psw, mode="sum", padding_idx=padding_idx)
    for a, b in ((jo.detach(), to.detach()), (jg, tg), (jp, tp)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_two_dimensional_input_float64(mode):
    w = _weight(6, 4, seed=2, dtype=np.float64)
    idx = [[0, 5, 5], [2, 1, 3]]
    jo, jg, _ = _bag_both(jtorch, JF, w, None, idx=idx, offsets=None, mode=mode)
    to, tg, _ = _bag_both(torch, TF, w, None, idx=idx, offsets=None, mode=mode)
    assert jo.dtype == jtorch.float64
    np.testing.assert_allclose(jo.detach().numpy(), to.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(jg.numpy(), tg.numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_and_int32_indices(mode):
    # torch's CPU loop divides by counts[sorted_indices[group number]] rather than the group's own count
    # (EmbeddingBag.cpp), which differs from the documented scaling (and from torch's embedding) unless
    # the i-th sorted index is i for each distinct index i: these are, so the comparison checks the documented scaling
    idx, offsets = [2, 0, 1, 2, 2], [0, 3, 3]
    w = _weight(seed=3)
    outs = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        weight = lib.tensor(w, requires_grad=True)
        out = F.embedding_bag(lib.tensor(idx, dtype=lib.int32), weight, lib.tensor(offsets, dtype=lib.int32),
                              mode=mode, scale_grad_by_freq=True)
        out.sum().backward()
        outs.append((out.detach().numpy(), weight.grad.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_torch_embedding_bag_auxiliary_returns(mode, padding_idx):
    w = _weight(seed=4)
    got = [[x.tolist() for x in lib.embedding_bag(lib.tensor(w, requires_grad=True), lib.tensor(IDX),
                                                   lib.tensor(OFFSETS), False, mode, False, None, False,
                                                   padding_idx)[1:]]
           for lib in (jtorch, torch)]
    assert got[0] == got[1]


def test_max_mode_ties_pick_the_first_index():
    w = np.array([[1.0, 2.0], [1.0, 0.5], [3.0, 2.0]], dtype=np.float32)
    got = [lib.embedding_bag(lib.tensor(w, requires_grad=True), lib.tensor([1, 0, 2, 0, 1]), lib.tensor([0, 2]),
                             False, 2, False, None, False, None)[3].tolist() for lib in (jtorch, torch)]
    assert got[0] == got[1]


def test_max_norm_renormalises_looked_up_rows():
    w = _weight(seed=5) * 3
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        weight = lib.tensor(w)
        out = F.embedding_bag(lib.tensor(IDX[:4]), weight, lib.tensor([0, 2]), max_norm=1.5, mode="sum")
        res.append((out.numpy(), weight.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5)


def test_double_backward_refused_as_torch():
    w, psw = _weight(seed=6), np.linspace(1, 2, len(IDX)).astype(np.float32)
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        weight, p = lib.tensor(w, requires_grad=True), lib.tensor(psw, requires_grad=True)
        out = F.embedding_bag(lib.tensor(IDX), weight, lib.tensor(OFFSETS), mode="sum", per_sample_weights=p)
        gw, gp = lib.autograd.grad((out ** 2).sum(), (weight, p), create_graph=True)
        res.append((gw.detach().numpy(), gp.detach().numpy(), gw.grad_fn.name(), gp.grad_fn.name(),
                    _errors(lambda lib=lib, gw=gw, p=p: lib.autograd.grad(gw.sum(), p, retain_graph=True)),
                    _errors(lambda lib=lib, gp=gp, weight=weight: lib.autograd.grad(gp.sum(), weight))))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5, atol=1e-6)
    assert res[0][2:] == res[1][2:]


_ERRORS = {
    "float indices": lambda T, F, w: T.embedding_bag(w, T.tensor(IDX).float(), T.tensor(OFFSETS)),
    "float offsets": lambda T, F, w: T.embedding_bag(w, T.tensor(IDX), T.tensor(OFFSETS).float()),
    "first offset": lambda T, F, w: T.embedding_bag(w, T.tensor(IDX), T.tensor([1, 2])),
    "last offset": lambda T, F, w: T.embedding_bag(w, T.tensor(IDX), T.tensor([0, 8])),
    "psw mean aten": lambda T, F, w: T.embedding_bag(w, T.tensor(IDX), T.tensor(OFFSETS), False, 1, False,
                                                     T.ones(7)),
    "psw mean": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), per_sample_weights=T.ones(7)),
    "mode": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), mode="foo"),
    "psw shape": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), mode="sum",
                                                 per_sample_weights=T.ones(6)),
    "2d with offsets": lambda T, F, w: F.embedding_bag(T.tensor(IDX).view(7, 1), w, T.tensor(OFFSETS)),
    "3d input": lambda T, F, w: F.embedding_bag(T.tensor(IDX).view(7, 1, 1), w),
    "no offsets": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w),
    "2d offsets": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS).view(2, 2)),
    "1d weight": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w.view(15)),
    "index too big": lambda T, F, w: F.embedding_bag(T.tensor([1, 9]), w, T.tensor([0])),
    "negative index": lambda T, F, w: F.embedding_bag(T.tensor([1, -1]), w, T.tensor([0])),
    "padding too big": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), padding_idx=5),
    "padding too small": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), padding_idx=-6),
    "int weight": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w.int(), T.tensor(OFFSETS)),
    "psw dtype": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w.double(), T.tensor(OFFSETS), mode="sum",
                                                 per_sample_weights=T.ones(7)),
    "max scale": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), mode="max",
                                                 scale_grad_by_freq=True),
    "max sparse": lambda T, F, w: F.embedding_bag(T.tensor(IDX), w, T.tensor(OFFSETS), mode="max", sparse=True),
    "module padding": lambda T, F, w: T.nn.EmbeddingBag(5, 3, padding_idx=7),
    "pretrained 1d": lambda T, F, w: T.nn.EmbeddingBag.from_pretrained(T.ones(3)),
}


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_errors_match_torch(case):
    w = _weight(seed=7)
    fn = _ERRORS[case]
    assert _errors(lambda: fn(jtorch, JF, jtorch.tensor(w))) == _errors(lambda: fn(torch, TF, torch.tensor(w)))


def test_module_parameters_repr_and_from_pretrained():
    for lib in (jtorch, torch):
        lib.manual_seed(0)
    jm, tm = jtorch.nn.EmbeddingBag(5, 3, padding_idx=-2, mode="max"), torch.nn.EmbeddingBag(5, 3, padding_idx=-2,
                                                                                               mode="max")
    assert repr(jm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert jm.weight[3].detach().tolist() == [0.0, 0.0, 0.0] and jm.padding_idx == tm.padding_idx
    jtorch.manual_seed(1)
    w = jtorch.nn.EmbeddingBag(1000, 10).weight.detach()
    assert abs(float(w.mean())) < 0.05 and abs(float(w.std()) - 1) < 0.05  # N(0, 1)
    pre = _weight(seed=8)
    for freeze in (True, False):
        jb = jtorch.nn.EmbeddingBag.from_pretrained(jtorch.tensor(pre), freeze=freeze, mode="sum")
        tb = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(pre), freeze=freeze, mode="sum")
        assert jb.weight.requires_grad == tb.weight.requires_grad
        idx = [[0, 1], [4, 4]]
        np.testing.assert_allclose(jb(jtorch.tensor(idx)).detach().numpy(), tb(torch.tensor(idx)).detach().numpy(),
                                   rtol=1e-6)
    jm.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    i, o = [0, 3, 1], [0, 1]
    np.testing.assert_allclose(jm(jtorch.tensor(i), jtorch.tensor(o)).detach().numpy(),
                               tm(torch.tensor(i), torch.tensor(o)).detach().numpy(), rtol=1e-6)


def test_meta_tensors_give_shapes_and_dtypes():
    w = jtorch.empty(5, 3, device="meta", dtype=jtorch.float64)
    for mode in (0, 1, 2):
        out, o2b, size, mi = jtorch.embedding_bag(w, jtorch.empty(7, dtype=jtorch.int64, device="meta"),
                                                  jtorch.empty(4, dtype=jtorch.int64, device="meta"), False, mode)
        assert out.device.type == "meta" and tuple(out.shape) == (4, 3) and out.dtype == jtorch.float64
        assert tuple(size.shape) == (4,)
        assert tuple(mi.shape) == ((4, 3) if mode == 2 else (4,))


# ---- nn.Embedding's options --------------------------------------------------------------------------
@pytest.mark.parametrize("opts", [dict(padding_idx=1), dict(padding_idx=-1, scale_grad_by_freq=True),
                                  dict(scale_grad_by_freq=True), dict(max_norm=1.0), dict(max_norm=0.5, norm_type=1.0),
                                  dict(sparse=False)])
def test_embedding_options_values_gradients_and_weights(opts):
    w = _weight(6, 4, seed=9) * 2
    idx = [[1, 5, 1], [3, 1, 0]]
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        weight = lib.tensor(w, requires_grad=True)
        out = F.embedding(lib.tensor(idx), weight, **opts)
        r = np.arange(out.numel(), dtype=np.float32).reshape(tuple(out.shape))
        (out * lib.tensor(r)).sum().backward()
        res.append((out.detach().numpy(), weight.grad.numpy(), weight.detach().numpy()))
        assert out.grad_fn.name() == "EmbeddingBackward0"
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_embedding_module_options_and_from_pretrained():
    pre = _weight(4, 2, seed=10)
    for kw in (dict(padding_idx=2), dict(max_norm=0.3, scale_grad_by_freq=True), dict(sparse=True)):
        jm = jtorch.nn.Embedding.from_pretrained(jtorch.tensor(pre), freeze=False, **kw)
        tm = torch.nn.Embedding.from_pretrained(torch.tensor(pre), freeze=False, **kw)
        assert repr(jm) == repr(tm)
        np.testing.assert_allclose(jm(jtorch.tensor([2, 0, 2])).detach().numpy(),
                                   tm(torch.tensor([2, 0, 2])).detach().numpy(), rtol=1e-6)


def test_embedding_sparse_forward_matches_and_backward_refuses():
    m = jtorch.nn.Embedding(4, 3, sparse=True)
    out = m(jtorch.tensor([0, 3]))
    np.testing.assert_array_equal(out.detach().numpy(), m.weight.detach().numpy()[[0, 3]])
    with pytest.raises(NotImplementedError, match="sparse"):
        out.sum().backward()


# ---- against a NumPy reference over shapes and options ---------------------------------------------------
def _reference(w: np.ndarray, idx: list, offsets: list, mode: str, padding_idx, r: np.ndarray):
    """(output, gradient of sum(output * r) to the weight) by the definition: each bag's rows, padding left
    out, summed, averaged or maximised (the first maximum takes the gradient); empty bags give zeros."""
    out, grad = np.zeros((len(offsets), w.shape[1])), np.zeros_like(w)
    ends = offsets[1:] + [len(idx)]
    for b, (lo, hi) in enumerate(zip(offsets, ends)):
        members = [i for i in idx[lo:hi] if i != padding_idx]
        if not members:
            continue
        rows = w[members]
        if mode == "max":
            first = rows.argmax(0)
            out[b] = rows.max(0)
            for d, k in enumerate(first):
                grad[members[k], d] += r[b, d]
            continue
        scale = 1.0 / len(members) if mode == "mean" else 1.0
        out[b] = rows.sum(0) * scale
        for i in members:
            grad[i] += r[b] * scale
    return out, grad


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_embedding_bag_matches_numpy(data):
    rows, dim, n = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 3)), data.draw(st.integers(0, 8))
    idx = data.draw(st.lists(st.integers(0, rows - 1), min_size=n, max_size=n))
    offsets = [0] + sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    mode = data.draw(st.sampled_from(["sum", "mean", "max"]))
    padding_idx = data.draw(st.none() | st.integers(0, rows - 1))
    rng = np.random.default_rng(rows * 100 + n)
    w, r = rng.standard_normal((rows, dim)), rng.standard_normal((len(offsets), dim))
    weight = jtorch.tensor(w, requires_grad=True)
    out = JF.embedding_bag(jtorch.tensor(idx, dtype=jtorch.int64), weight, jtorch.tensor(offsets), mode=mode,
                           padding_idx=padding_idx)
    (out * jtorch.tensor(r)).sum().backward()
    want_out, want_grad = _reference(w, idx, offsets, mode, padding_idx, r)
    np.testing.assert_allclose(out.detach().numpy(), want_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weight.grad.numpy(), want_grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_half_precision_weights(dtype, mode):
    w = _weight(seed=11)
    res = []
    for lib, F in ((jtorch, JF), (torch, TF)):
        weight = lib.tensor(w).to(getattr(lib, dtype)).requires_grad_()
        out = F.embedding_bag(lib.tensor(IDX), weight, lib.tensor(OFFSETS), mode=mode)
        out.float().sum().backward()
        res.append((str(out.dtype).replace("jtorch", "torch"), out.detach().float().numpy(),
                    weight.grad.float().numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-2, atol=1e-2)


def test_embedding_bag_sparse_forward_matches_and_backward_refuses():
    m = jtorch.nn.EmbeddingBag(4, 3, mode="sum", sparse=True)
    out = m(jtorch.tensor([0, 3, 3]), jtorch.tensor([0, 1]))
    w = m.weight.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), [w[0], w[3] * 2], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="sparse"):
        out.sum().backward()
