"""nn.RNN / nn.LSTM / nn.GRU, the cells and torch's recurrent functions against torch: the same weights
copied in, the same inputs; outputs, final states and the gradients of the input, of h_0/c_0 and of every
parameter compared; parameter names and shapes, default initialisation, checkpoints both ways, error texts."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _torch_oracle import live_torch, oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn as jnn

torch = oracle_torch()

RNG = np.random.default_rng(2024)


def _copy_weights(jmod, tmod) -> None:
    jmod.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _run_both(cls: str, args: tuple, kw: dict, x: np.ndarray, h0=None, c0=None):
    """Forward both modules (float64), backward a weighted sum of every output; compare everything."""
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(*args, **kw).double()
    jm = getattr(jnn, cls)(*args, **kw).double()
    assert [(n, tuple(p.shape)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    _copy_weights(jm, tm)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    th = [torch.tensor(h, requires_grad=True) for h in (h0, c0) if h is not None]
    jh = [jtorch.tensor(h, requires_grad=True) for h in (h0, c0) if h is not None]
    if cls == "LSTM":
        tout, (thn, tcn) = tm(tx, tuple(th) if th else None)
        jout, (jhn, jcn) = jm(jx, tuple(jh) if jh else None)
        touts, jouts = [tout, thn, tcn], [jout, jhn, jcn]
    else:
        tout, thn = tm(tx, th[0] if th else None)
        jout, jhn = jm(jx, jh[0] if jh else None)
        touts, jouts = [tout, thn], [jout, jhn]
    loss_t, loss_j = 0, 0
    for t, j in zip(touts, jouts):
        assert tuple(t.shape) == tuple(j.shape)
        _close(j.detach().numpy(), t.detach().numpy())
        w = RNG.standard_normal(tuple(t.shape))
        loss_t = loss_t + (t * torch.tensor(w)).sum()
        loss_j = loss_j + (j * jtorch.tensor(w)).sum()
    loss_t.backward()
    loss_j.backward()
    _close(jx.grad.numpy(), tx.grad.numpy())
    for a, b in zip(jh, th):
        _close(a.grad.numpy(), b.grad.numpy())
    for p, q in zip(jm.parameters(), tm.parameters()):
        _close(p.grad.numpy(), q.grad.numpy())


CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
    ("RNN", {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {"bias": False}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 3, "bidirectional": True}),
    ("LSTM", {"proj_size": 3, "batch_first": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True, "bias": False}),
]


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=[f"{c}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
                                                  for c, kw in CONFIGS])
def test_layers_match_torch(cls, kw):
    In, H, L, N = 4, 5, 6, 3
    x = RNG.standard_normal((N, L, In) if kw.get("batch_first") else (L, N, In))
    D = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    hout = kw.get("proj_size") or H
    _run_both(cls, (In, H), kw, x)  # default (zero) initial states
    h0 = RNG.standard_normal((D * layers, N, hout))
    c0 = RNG.standard_normal((D * layers, N, H)) if cls == "LSTM" else None
    _run_both(cls, (In, H), kw, x, h0, c0)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_unbatched_input(cls):
    x = RNG.standard_normal((5, 3))
    _run_both(cls, (3, 4), {}, x)
    h0 = RNG.standard_normal((2, 4))
    _run_both(cls, (3, 4), {"num_layers": 2}, x, h0, RNG.standard_normal((2, 4)) if cls == "LSTM" else None)


def test_float32_values():
    torch.manual_seed(0)
    tm, jm = torch.nn.LSTM(8, 16, num_layers=2), jnn.LSTM(8, 16, num_layers=2)
    _copy_weights(jm, tm)
    x = RNG.standard_normal((7, 4, 8)).astype(np.float32)
    tout, _ = tm(torch.tensor(x))
    jout, _ = jm(jtorch.tensor(x))
    assert jout.dtype == jtorch.float32
    np.testing.assert_allclose(jout.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_parameter_names_and_default_init(cls):
    torch.manual_seed(0)
    kw = {"num_layers": 2, "bidirectional": True}
    if cls == "LSTM":
        kw["proj_size"] = 3
    tm, jm = getattr(torch.nn, cls)(6, 8, **kw), getattr(jnn, cls)(6, 8, **kw)
    assert list(jm.state_dict()) == list(tm.state_dict())
    assert [tuple(v.shape) for v in jm.state_dict().values()] == [tuple(v.shape) for v in tm.state_dict().values()]
    assert jm._flat_weights_names == list(tm._flat_weights_names)
    assert repr(jm) == repr(tm)
    bound = 1 / math.sqrt(8)
    values = np.concatenate([p.detach().numpy().ravel() for p in jm.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.std() > bound / 2  # uniform(-b, b) has std b/sqrt(3)
    assert all(len(a) == len(b) for a, b in zip(jm.all_weights, tm.all_weights))


def test_checkpoint_round_trip():
    torch.manual_seed(0)
    jtorch.manual_seed(0)  # jtorch's initial weights go to torch: the same each run
    jm = jnn.GRU(3, 4, num_layers=2, bidirectional=True)
    tm = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in jm.state_dict().items()})
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(jm(jtorch.tensor(x))[0].detach().numpy(), tm(torch.tensor(x))[0].detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    jm2 = jnn.GRU(3, 4, num_layers=2, bidirectional=True)
    _copy_weights(jm2, tm)
    for (n, a), (_, b) in zip(jm.state_dict().items(), jm2.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), n


def test_flatten_parameters_and_to():
    m = jnn.LSTM(3, 4)
    m.flatten_parameters()
    m = m.double()
    assert m._flat_weights[0].dtype == jtorch.float64 and m._flat_weights[0] is m.weight_ih_l0
    out, _ = m(jtorch.randn(2, 1, 3, dtype=jtorch.float64))
    assert out.dtype == jtorch.float64


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(cls, bias):
    torch.manual_seed(0)
    tm, jm = getattr(torch.nn, cls)(3, 5, bias=bias).double(), getattr(jnn, cls)(3, 5, bias=bias).double()
    assert [(n, tuple(p.shape)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    _copy_weights(jm, tm)
    for batched in (True, False):
        shape = (4, 3) if batched else (3,)
        hshape = (4, 5) if batched else (5,)
        x = RNG.standard_normal(shape)
        hs = [RNG.standard_normal(hshape) for _ in range(2 if cls == "LSTMCell" else 1)]
        tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
        th = [torch.tensor(h, requires_grad=True) for h in hs]
        jh = [jtorch.tensor(h, requires_grad=True) for h in hs]
        tr = tm(tx, tuple(th) if cls == "LSTMCell" else th[0])
        jr = jm(jx, tuple(jh) if cls == "LSTMCell" else jh[0])
        tr, jr = (list(tr), list(jr)) if cls == "LSTMCell" else ([tr], [jr])
        w = [RNG.standard_normal(hshape) for _ in tr]
        sum((t * torch.tensor(a)).sum() for t, a in zip(tr, w)).backward()
        sum((j * jtorch.tensor(a)).sum() for j, a in zip(jr, w)).backward()
        for t, j in zip(tr, jr):
            _close(j.detach().numpy(), t.detach().numpy())
        _close(jx.grad.numpy(), tx.grad.numpy())
        for a, b in zip(jh, th):
            _close(a.grad.numpy(), b.grad.numpy())
        for p, q in zip(jm.parameters(), tm.parameters()):
            _close(p.grad.numpy(), q.grad.numpy())
            p.grad = None
            q.grad = None
    assert repr(jm) == repr(tm)


def test_torch_namespace_functions():
    x = RNG.standard_normal((4, 2, 3))
    h = RNG.standard_normal((1, 2, 5))
    c = RNG.standard_normal((1, 2, 5))
    for name, G in (("lstm", 4), ("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)):
        ws = [RNG.standard_normal(s) for s in ((G * 5, 3), (G * 5, 5), (G * 5,), (G * 5,))]
        hx_t = [torch.tensor(h), torch.tensor(c)] if name == "lstm" else torch.tensor(h)
        hx_j = [jtorch.tensor(h), jtorch.tensor(c)] if name == "lstm" else jtorch.tensor(h)
        rt = getattr(torch, name)(torch.tensor(x), hx_t, [torch.tensor(w) for w in ws], True, 1, 0.0, False, False,
                                  False)
        rj = getattr(jtorch, name)(jtorch.tensor(x), hx_j, [jtorch.tensor(w) for w in ws], True, 1, 0.0, False,
                                   False, False)
        assert len(rt) == len(rj)
        for a, b in zip(rj, rt):
            _close(a.numpy(), b.numpy())
        cx_t = [torch.tensor(h[0]), torch.tensor(c[0])] if name == "lstm" else torch.tensor(h[0])
        cx_j = [jtorch.tensor(h[0]), jtorch.tensor(c[0])] if name == "lstm" else jtorch.tensor(h[0])
        ct = getattr(torch, name + "_cell")(torch.tensor(x[0]), cx_t, *[torch.tensor(w) for w in ws])
        cj = getattr(jtorch, name + "_cell")(jtorch.tensor(x[0]), cx_j, *[jtorch.tensor(w) for w in ws])
        ct, cj = (ct, cj) if name == "lstm" else ((ct,), (cj,))
        assert len(ct) == len(cj)
        for a, b in zip(cj, ct):
            _close(a.numpy(), b.numpy())


def test_dropout_between_layers():
    m = jnn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = jtorch.randn(6, 2, 3)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())  # no dropout in evaluation
    m.train()
    jtorch.manual_seed(1)
    c, _ = m(x)
    jtorch.manual_seed(2)
    d, _ = m(x)
    assert not np.array_equal(c.detach().numpy(), d.detach().numpy())  # dropout draws between the layers
    m1 = jnn.GRU(3, 4, num_layers=1)
    m1.train()
    e, _ = m1(x)
    f, _ = m1(x)
    assert np.array_equal(e.detach().numpy(), f.detach().numpy())  # no dropout after the last layer


def _error_cases(lib):
    nn = lib.nn
    cases = [
        lambda: nn.RNN(3, 4, nonlinearity="gelu"),
        lambda: nn.GRU(3, 4, proj_size=2),
        lambda: nn.RNN(3, 4, proj_size=2),
        lambda: nn.LSTM(3, 4, proj_size=4),
        lambda: nn.LSTM(3, 4, proj_size=-1),
        lambda: nn.LSTM(3, 0),
        lambda: nn.LSTM(0, 3),
        lambda: nn.LSTM(3, 4, num_layers=0),
        lambda: nn.LSTM(3, 4, dropout=1.5),
        lambda: nn.LSTM(3, 4, bias=1),
        lambda: nn.LSTM(3, 4.0),
        lambda: nn.LSTM(3, 4)(lib.zeros(2, 2, 7)),
        lambda: nn.LSTM(3, 4)(lib.zeros(1, 2, 2, 3)),
        lambda: nn.GRU(3, 4)(lib.zeros(1, 2, 2, 3)),
        lambda: nn.RNN(3, 4)(lib.zeros(1, 2, 2, 3)),
        lambda: nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 3, 4), lib.zeros(1, 2, 4))),
        lambda: nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 3, 4))),
        lambda: nn.GRU(3, 4)(lib.zeros(5, 2, 3), lib.zeros(1, 3, 4)),
        lambda: nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(2, 4), lib.zeros(2, 4))),
        lambda: nn.LSTM(3, 4)(lib.zeros(5, 3), (lib.zeros(1, 1, 4), lib.zeros(1, 1, 4))),
        lambda: nn.GRU(3, 4)(lib.zeros(5, 2, 3), lib.zeros(2, 4)),
        lambda: nn.GRU(3, 4)(lib.zeros(5, 3), lib.zeros(1, 1, 4)),
        lambda: nn.LSTM(3, 4)(lib.zeros(5, 2, 3, dtype=lib.float64)),
        lambda: nn.LSTMCell(3, 4)(lib.zeros(1, 2, 3)),
        lambda: nn.GRUCell(3, 4)(lib.zeros(2, 3), lib.zeros(1, 2, 4)),
        lambda: nn.RNNCell(3, 4)(lib.zeros(1, 2, 3)),
        lambda: nn.LSTMCell(3, 4)(lib.zeros(2, 3), (lib.zeros(1, 2, 4), lib.zeros(2, 4))),
        lambda: nn.LSTMCell(3, 4)(lib.zeros(2, 5)),
        lambda: nn.GRUCell(3, 4)(lib.zeros(2, 3), lib.zeros(3, 4)),
        lambda: nn.RNNCell(3, 4)(lib.zeros(2, 3), lib.zeros(2, 5)),
        lambda: nn.LSTMCell(3, 4)(lib.zeros(2, 3), (lib.zeros(2, 4), lib.zeros(1, 4))),
        lambda: lib.lstm_cell(lib.zeros(2, 3), [lib.zeros(2, 4)], lib.zeros(16, 3), lib.zeros(16, 4)),
    ]
    return cases


def test_error_texts():
    for j, t in zip(_error_cases(jtorch), _error_cases(torch)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _errors(j)
            assert got is not None
            assert (got[0], got[1].replace("jtorch.", "torch.")) == _errors(t)  # jtorch's dtypes print as jtorch.*


def test_dropout_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        jnn.LSTM(3, 4, dropout=0.5)
    assert [str(x.message) for x in w] == [
        "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers "
        "greater than 1, but got dropout=0.5 and num_layers=1"]


def test_one_node_per_layer_and_direction():
    m = jnn.LSTM(3, 4, num_layers=2, bidirectional=True)
    out, _ = m(jtorch.randn(5, 2, 3))
    names = set()
    todo = [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n.name() in names:
            continue
        names.add(n.name())
        todo += [f for f, _ in n.next_functions]
    assert "FusedRnnLayerBackward0" in names


@settings(max_examples=20, deadline=None)
@given(mode=st.sampled_from(["RNN", "GRU", "LSTM"]), layers=st.integers(1, 2), bidir=st.booleans(),
       batch_first=st.booleans(), L=st.integers(1, 4), N=st.integers(1, 3), proj=st.booleans())
def test_hypothesis_options(mode, layers, bidir, batch_first, L, N, proj):
    live_torch("hypothesis draws its inputs anew")
    kw = {"num_layers": layers, "bidirectional": bidir, "batch_first": batch_first}
    if mode == "LSTM" and proj:
        kw["proj_size"] = 2
    x = RNG.standard_normal((N, L, 3) if batch_first else (L, N, 3))
    _run_both(mode, (3, 4), kw, x)


def test_lstm_language_model_trains_like_torch():
    """A small LSTM word model, identical initial weights, a few SGD steps with clipping: the same losses."""
    V, E, H, B, T = 50, 16, 32, 4, 8

    def model(lib):
        return [lib.nn.Embedding(V, E), lib.nn.LSTM(E, H, num_layers=2), lib.nn.Linear(H, V)]

    torch.manual_seed(0)
    tm, jm = model(torch), model(jtorch)
    for a, b in zip(jm, tm):
        _copy_weights(a, b)
    data = np.random.default_rng(7).integers(0, V, size=(6, T + 1, B))  # its own stream: tests before it draw from RNG
    losses = []
    for lib, (emb, rnn, lin) in ((torch, tm), (jtorch, jm)):
        params = [p for m in (emb, rnn, lin) for p in m.parameters()]
        opt = lib.optim.SGD(params, lr=0.5)
        h = None
        out = []
        for step in range(6):
            x = lib.tensor(data[step, :-1])
            y = lib.tensor(data[step, 1:])
            hidden, h = rnn(emb(x), h)
            logits = lin(hidden)
            h = (h[0].detach(), h[1].detach())
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(params, 0.25)
            opt.step()
            out.append(loss.item())
        losses.append(out)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
    assert losses[0][-1] != losses[0][0]
