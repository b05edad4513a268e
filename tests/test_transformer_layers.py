"""TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder/Decoder and Transformer against torch:
parameter names and shapes, values and the gradients of the inputs and of every parameter over the options
(norm_first, batch_first, activation, bias) and masks; the causal-mask detection; the eval-mode nested-tensor
path of TransformerEncoder (padded positions come out as 0.0); reprs, warnings and error texts; and a small
character-level GPT trained for a few steps from the same weights, with the same losses.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
import jtorch.nn as nn
from _torch_oracle import oracle_torch

torch = oracle_torch()
TOL = 1e-9


def rand(shape, dtype=np.float64, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def close(j, t, tol=TOL):
    np.testing.assert_allclose(j.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def same_weights(jm, tm, dtype=np.float64, seed=11, scale=0.3):
    """Both modules in dtype with the same random parameters; their names and shapes must agree."""
    if dtype == np.float64:
        jm, tm = jm.double(), tm.double()
    jn = [(n, tuple(p.shape)) for n, p in jm.named_parameters()]
    assert jn == [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert list(jm.state_dict()) == list(tm.state_dict())
    rng = np.random.default_rng(seed)
    for (n, jp), (_, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        a = (rng.standard_normal(tuple(jp.shape)) * scale).astype(dtype)
        if n.endswith("norm1.weight") or n.endswith("norm2.weight") or n.endswith("norm3.weight"):
            a = a + 1
        with jtorch.no_grad():
            jp.copy_(jtorch.tensor(a))
        with torch.no_grad():
            tp.copy_(torch.tensor(a))
    return jm, tm


def check(jm, tm, arrays, tol=TOL, **kw):
    """Forward values and the gradients of the inputs and every parameter."""
    def conv(lib, v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    js = [jtorch.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    jy = jm(*js, **{k: conv(jtorch, v) for k, v in kw.items()})
    ty = tm(*ts, **{k: conv(torch, v) for k, v in kw.items()})
    close(jy, ty, tol)
    g = rand(tuple(ty.shape), arrays[0].dtype, 9)
    jy.backward(jtorch.tensor(g)), ty.backward(torch.tensor(g))
    for j, t in zip(js, ts):
        close(j.grad, t.grad, tol)
    for (n, jp), (_, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        assert (jp.grad is None) == (tp.grad is None), n
        if jp.grad is not None:
            close(jp.grad, tp.grad, tol)


LAYER_OPTIONS = [{}, {"norm_first": True}, {"batch_first": True}, {"activation": "gelu"},
                 {"activation": "gelu", "norm_first": True, "batch_first": True}, {"bias": False},
                 {"layer_norm_eps": 1e-3}]


def masks(kind, n=2, s=5):
    causal = np.triu(np.full((s, s), -np.inf), 1)
    kpm = np.zeros((n, s), bool)
    kpm[0, 3:] = True
    return {"none": {}, "float": {"src_mask": rand((s, s), np.float64, 3)},
            "bool": {"src_mask": np.triu(np.ones((s, s), bool), 1)},
            "kpm": {"src_key_padding_mask": kpm},
            "causal": {"src_mask": causal, "is_causal": True},
            "mask_kpm": {"src_mask": causal, "src_key_padding_mask": np.where(kpm, -np.inf, 0.0)}}[kind]


@pytest.mark.parametrize("kw", LAYER_OPTIONS)
@pytest.mark.parametrize("mask", ["none", "float", "kpm", "causal"])
def test_encoder_layer(kw, mask):
    jm, tm = same_weights(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw),
                          torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw))
    shape = (2, 5, 8) if kw.get("batch_first") else (5, 2, 8)
    check(jm, tm, [rand(shape, np.float64, 0)], **masks(mask))


@pytest.mark.parametrize("mask", ["bool", "mask_kpm"])
def test_encoder_layer_masks_eval(mask):
    jm, tm = same_weights(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                          torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True))
    jm.eval(), tm.eval()
    check(jm, tm, [rand((2, 5, 8), np.float64, 0)], **masks(mask))
    check(jm, tm, [rand((5, 8), np.float64, 1)])  # unbatched


def test_encoder_layer_callable_activation_and_errors():
    jm, tm = same_weights(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=jtorch.tanh),
                          torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=torch.tanh))
    check(jm, tm, [rand((5, 2, 8), np.float64, 0)])
    assert jm.activation_relu_or_gelu == tm.activation_relu_or_gelu == 0
    assert nn.TransformerEncoderLayer(8, 2, activation=nn.GELU()).activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, activation="relu").activation_relu_or_gelu == 1
    with pytest.raises(RuntimeError, match="^activation should be relu/gelu, not tanh$"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    assert repr(nn.TransformerEncoderLayer(8, 2, 16)) == repr(torch.nn.TransformerEncoderLayer(8, 2, 16))
    assert repr(nn.TransformerDecoderLayer(8, 2, 16)) == repr(torch.nn.TransformerDecoderLayer(8, 2, 16))


@pytest.mark.parametrize("kw", LAYER_OPTIONS)
def test_decoder_layer(kw):
    jm, tm = same_weights(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw),
                          torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw))
    bf = kw.get("batch_first")
    tgt, mem = ((2, 4, 8), (2, 6, 8)) if bf else ((4, 2, 8), (6, 2, 8))
    kpm = np.zeros((2, 6), bool)
    kpm[1, 4:] = True
    check(jm, tm, [rand(tgt, np.float64, 0), rand(mem, np.float64, 1)],
          tgt_mask=np.triu(np.full((4, 4), -np.inf), 1), tgt_is_causal=True, memory_key_padding_mask=kpm)
    check(jm, tm, [rand(tgt, np.float64, 0), rand(mem, np.float64, 1)], memory_mask=rand((4, 6), np.float64, 2))


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("causal", [None, True])
def test_encoder_stack(norm, causal):
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(8) if norm else None)
    jm, tm = same_weights(make(jtorch), make(torch))
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    check(jm, tm, [rand((2, 5, 8), np.float64, 0)], mask=mask, is_causal=causal)


def test_encoder_causal_detection():
    from jtorch.nn.modules.transformer import _detect_is_causal_mask
    m = nn.Transformer.generate_square_subsequent_mask(4)
    assert _detect_is_causal_mask(m, None, 4) is True
    assert _detect_is_causal_mask(m, None, 5) is False
    assert _detect_is_causal_mask(jtorch.zeros(4, 4), None) is False
    assert _detect_is_causal_mask(jtorch.zeros(4, 4), True) is True
    np.testing.assert_array_equal(m.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(4).numpy())
    assert m.dtype == jtorch.float32
    assert nn.Transformer.generate_square_subsequent_mask(3, dtype=jtorch.float64).dtype == jtorch.float64


@pytest.mark.parametrize("kw,reason", [({"norm_first": True}, "encoder_layer.norm_first was True"),
                                       ({"batch_first": False}, "encoder_layer.self_attn.batch_first was not True"
                                                                "(use batch_first for better inference performance)"),
                                       ({"nhead": 1}, "encoder_layer.self_attn.num_heads is odd"),
                                       ({"bias": False}, "encoder_layer.self_attn was passed bias=False")])
def test_encoder_nested_tensor_warning(kw, reason):
    kw = {"batch_first": True, "nhead": 2, **kw}
    with pytest.warns(UserWarning) as rec:
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, dim_feedforward=16, **kw), 1)
    text = f"enable_nested_tensor is True, but self.use_nested_tensor is False because {reason}"
    assert str(rec[0].message) == text
    with pytest.warns(UserWarning) as trec:
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, dim_feedforward=16, **kw), 1)
    assert str(trec[0].message) == text
    assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True


@pytest.mark.parametrize("norm", [False, True])
def test_encoder_eval_padded_positions(norm):
    """In eval without grad, a left-aligned src_key_padding_mask: the padded positions come out 0.0 (before the
    final norm), as torch's nested-tensor path gives; with grad enabled, both compute values there."""
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(8) if norm else None)
    jm, tm = same_weights(make(jtorch), make(torch))
    jm.eval(), tm.eval()
    x = rand((3, 5, 8), np.float64, 0)
    kpm = np.zeros((3, 5), bool)
    kpm[0, 3:] = True
    kpm[1, 1:] = True
    with jtorch.no_grad():
        jy = jm(jtorch.tensor(x), src_key_padding_mask=jtorch.tensor(kpm))
    with torch.no_grad():
        ty = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    close(jy, ty, 1e-6)
    if not norm:
        assert (jy.numpy()[kpm] == 0).all()
    check(jm, tm, [x], src_key_padding_mask=kpm)  # with grad: the modules' own path on both sides
    # not left-aligned: no nested tensor, values at the padded positions
    kpm2 = kpm.copy()
    kpm2[2, 0] = True
    with jtorch.no_grad():
        jy = jm(jtorch.tensor(x), src_key_padding_mask=jtorch.tensor(kpm2))
    with torch.no_grad():
        ty = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm2))
    close(jy, ty, 1e-6)


def test_decoder_stack_and_transformer():
    jm, tm = same_weights(nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True),
                          torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True))
    tgt_mask = np.triu(np.full((4, 4), -np.inf), 1)
    kpm = np.zeros((2, 6), bool)
    kpm[0, 5] = True
    check(jm, tm, [rand((2, 6, 8), np.float64, 0), rand((2, 4, 8), np.float64, 1)], tgt_mask=tgt_mask,
          src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    jm, tm = same_weights(nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, norm_first=True, activation="gelu"),
                          torch.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, norm_first=True, activation="gelu"))
    check(jm, tm, [rand((6, 2, 8), np.float64, 0), rand((4, 2, 8), np.float64, 1)], tgt_mask=tgt_mask)


def test_transformer_initialisation_and_errors():
    jtorch.manual_seed(0)
    m = nn.Transformer(16, 2, 1, 1, 32)
    t = torch.nn.Transformer(16, 2, 1, 1, 32)
    assert repr(m) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    # xavier_uniform_ on every matrix: linear1's (32, 16) bound is sqrt(6 / 48)
    assert m.encoder.layers[0].linear1.weight.abs().max().item() <= (6 / 48) ** 0.5
    assert m.encoder.layers[0].linear1.weight.abs().max().item() > 0.8 * (6 / 48) ** 0.5
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        m(jtorch.randn(5, 2, 16), jtorch.randn(4, 3, 16))
    with pytest.raises(RuntimeError, match="^the feature number of src and tgt must be equal to d_model$"):
        m(jtorch.randn(5, 2, 16), jtorch.randn(4, 2, 8))


# ---- a small character-level GPT, trained in both ----------------------------------------------------------

TEXT = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
        "must be in want of a wife. However little known the feelings or views of such a man may be.")


def gpt(lib, vocab, d=32, heads=4, layers=2):
    """The model's modules (a ModuleDict: no class derived from torch's, so the oracle can record it)."""
    layer = lib.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blocks = lib.nn.TransformerEncoder(layer, layers)
    return lib.nn.ModuleDict({"tok": lib.nn.Embedding(vocab, d), "pos": lib.nn.Embedding(16, d), "blocks": blocks,
                              "ln": lib.nn.LayerNorm(d), "head": lib.nn.Linear(d, vocab)})


def gpt_forward(lib, m, idx):
    t = idx.shape[1]
    x = m["tok"](idx) + m["pos"](lib.arange(t))
    mask = lib.nn.Transformer.generate_square_subsequent_mask(t)
    return m["head"](m["ln"](m["blocks"](x, mask=mask, is_causal=True)))


def test_char_transformer_training_matches_torch():
    chars = sorted(set(TEXT))
    data = np.array([chars.index(c) for c in TEXT], dtype=np.int64)
    jm, tm = same_weights(gpt(jtorch, len(chars)), gpt(torch, len(chars)), dtype=np.float32, scale=0.1)
    jopt = jtorch.optim.AdamW(jm.parameters(), lr=3e-3)
    topt = torch.optim.AdamW(tm.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(6):
        starts = rng.integers(0, len(data) - 17, 8)
        x = np.stack([data[s:s + 16] for s in starts])
        y = np.stack([data[s + 1:s + 17] for s in starts])
        step = []
        for lib, m, opt in ((jtorch, jm, jopt), (torch, tm, topt)):
            logits = gpt_forward(lib, m, lib.tensor(x))
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, len(chars)), lib.tensor(y).reshape(-1))
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step()
            step.append(loss.item())
        losses.append(step)
    jl, tl = np.array(losses).T
    np.testing.assert_allclose(jl, tl, rtol=1e-4)
    assert jl[-1] < jl[0]
