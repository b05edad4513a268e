"""nn.utils.rnn against torch: packing and padding (values, batch_sizes, permutations, gradients through
them), both enforce_sorted ways, recurrent layers over PackedSequences, error texts."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
import jtorch.nn as jnn
from jtorch.nn.utils import rnn as jrnn
from _torch_oracle import oracle_torch

torch = oracle_torch()

RNG = np.random.default_rng(77)


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _same_packed(j, t) -> None:
    np.testing.assert_allclose(j.data.detach().numpy(), t.data.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert j.batch_sizes.tolist() == t.batch_sizes.tolist()
    assert j.batch_sizes.dtype == jtorch.int64 and j.batch_sizes.device.type == "cpu"
    for a, b in ((j.sorted_indices, t.sorted_indices), (j.unsorted_indices, t.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_round_trip(enforce_sorted, batch_first):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = RNG.standard_normal((4, 5, 2) if batch_first else (5, 4, 2))
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    jp = jrnn.pack_padded_sequence(jx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    _same_packed(jp, tp)
    tpad, tl = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first=batch_first, padding_value=-1.5, total_length=6)
    jpad, jl = jrnn.pad_packed_sequence(jp, batch_first=batch_first, padding_value=-1.5, total_length=6)
    np.testing.assert_array_equal(jpad.detach().numpy(), tpad.detach().numpy())
    assert jl.tolist() == tl.tolist() and jl.dtype == jtorch.int64
    w = RNG.standard_normal(tuple(tpad.shape))
    (tpad * torch.tensor(w)).sum().backward()
    (jpad * jtorch.tensor(w)).sum().backward()
    np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    seqs = [RNG.standard_normal((n, 3)) for n in (2, 4, 1)]
    t = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first, padding_value=7.0,
                                        padding_side=side)
    j = jrnn.pad_sequence([jtorch.tensor(s) for s in seqs], batch_first=batch_first, padding_value=7.0,
                          padding_side=side)
    np.testing.assert_array_equal(j.numpy(), t.numpy())


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_and_unpack(enforce_sorted):
    lens = (4, 3, 1) if enforce_sorted else (3, 4, 1)
    seqs = [RNG.standard_normal((n, 2)) for n in lens]
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=enforce_sorted)
    jp = jrnn.pack_sequence([jtorch.tensor(s) for s in seqs], enforce_sorted=enforce_sorted)
    _same_packed(jp, tp)
    for a, b in zip(jrnn.unpack_sequence(jp), torch.nn.utils.rnn.unpack_sequence(tp)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    padded = RNG.standard_normal((2, 4, 3))
    got = jrnn.unpad_sequence(jtorch.tensor(padded), jtorch.tensor([4, 2]), batch_first=True)
    want = torch.nn.utils.rnn.unpad_sequence(torch.tensor(padded), torch.tensor([4, 2]), batch_first=True)
    assert [g.numpy().tolist() for g in got] == [w.numpy().tolist() for w in want]


def test_invert_permutation_and_packed_sequence_methods():
    p = jtorch.tensor([2, 0, 3, 1])
    assert jrnn.invert_permutation(p).tolist() == torch.nn.utils.rnn.invert_permutation(
        torch.tensor([2, 0, 3, 1])).tolist()
    assert jrnn.invert_permutation(None) is None
    jp = jrnn.pack_sequence([jtorch.ones(3, 2), jtorch.ones(1, 2)])
    assert isinstance(jp, tuple) and jp._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert jp.to(jtorch.float32) is jp
    d = jp.double()
    assert d.data.dtype == jtorch.float64 and d.batch_sizes is jp.batch_sizes
    assert not jp.is_cuda and jp.cpu() is jp


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_layers_over_packed_sequences(cls, enforce_sorted):
    torch.manual_seed(0)
    kw = {"num_layers": 2, "bidirectional": True}
    tm, jm = getattr(torch.nn, cls)(3, 4, **kw).double(), getattr(jnn, cls)(3, 4, **kw).double()
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    lengths = [6, 4, 4, 2] if enforce_sorted else [4, 6, 2, 4]
    x = RNG.standard_normal((6, 4, 3))
    h0 = RNG.standard_normal((4, 4, 4))
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    th, jh = torch.tensor(h0, requires_grad=True), jtorch.tensor(h0, requires_grad=True)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    jp = jrnn.pack_padded_sequence(jx, lengths, enforce_sorted=enforce_sorted)
    if cls == "LSTM":
        tout, (thn, _) = tm(tp, (th, th * 0.5))
        jout, (jhn, _) = jm(jp, (jh, jh * 0.5))
    else:
        tout, thn = tm(tp, th)
        jout, jhn = jm(jp, jh)
    assert isinstance(jout, jrnn.PackedSequence)
    _same_packed(jout, tout)
    np.testing.assert_allclose(jhn.detach().numpy(), thn.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = RNG.standard_normal(tuple(tout.data.shape))
    wh = RNG.standard_normal(tuple(thn.shape))
    ((tout.data * torch.tensor(w)).sum() + (thn * torch.tensor(wh)).sum()).backward()
    ((jout.data * jtorch.tensor(w)).sum() + (jhn * jtorch.tensor(wh)).sum()).backward()
    np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jh.grad.numpy(), th.grad.numpy(), rtol=1e-10, atol=1e-12)
    for p, q in zip(jm.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


def _cases(lib):
    r = lib.nn.utils.rnn
    return [
        lambda: r.pack_padded_sequence(lib.zeros(4, 3, 2), [2, 3, 1]),
        lambda: r.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2]),
        lambda: r.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2, 0]),
        lambda: r.pack_sequence([lib.zeros(1, 2), lib.zeros(3, 2)]),
        lambda: r.pad_packed_sequence(r.pack_sequence([lib.zeros(3, 2)]), total_length=2),
        lambda: r.pad_sequence([lib.zeros(2)], padding_side="middle"),
        lambda: r.pad_sequence(3),
    ]


def test_error_texts():
    for j, t in zip(_cases(jtorch), _cases(torch)):
        assert _errors(j) == _errors(t)
