"""A character-level transformer language model, trained on Python's own source (no download).

    python examples/char_transformer.py                    # on jtorch
    python examples/char_transformer.py --torch            # the same program on PyTorch
    python examples/char_transformer.py --model handwritten  # the same GPT from Linear/LayerNorm/SDPA

The text is the source of a few pure-Python standard-library modules (textwrap, string, this). The model is
a small GPT: token and position embeddings, pre-norm GELU nn.TransformerEncoderLayer blocks under a causal
mask (or the same blocks written by hand with F.scaled_dot_product_attention), a final LayerNorm and a
linear head; AdamW, cross-entropy, gradient clipping. After training it samples text with top-k and
torch.multinomial. `make_model`, `batch` and `train_step` are what bench/bench_attention.py times.
"""
from __future__ import annotations

import argparse
import inspect
import math
import os
import sys
import time
from types import ModuleType
from typing import Any

import numpy as np


def load_library(use_torch: bool) -> ModuleType:
    if use_torch:
        import torch
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        import jtorch as torch
    return torch


def corpus() -> str:
    """Text that ships with Python: the source of a few pure-Python modules."""
    import contextlib
    import io
    import string
    import textwrap

    with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints the Zen of Python
        import this
    return "".join(inspect.getsource(m) for m in (textwrap, string, this))


def make_model(torch: ModuleType, vocab: int, d_model: int = 128, nhead: int = 4, layers: int = 4,
               context: int = 128, handwritten: bool = False, dropout: float = 0.0) -> Any:
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        """One pre-norm transformer block written by hand: x + attn(ln1(x)), then x + mlp(ln2(x))."""

        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.fc1, self.fc2 = nn.Linear(d_model, 4 * d_model), nn.Linear(4 * d_model, d_model)

        def forward(self, x: Any) -> Any:
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, nhead, c // nhead).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.context = context
            self.tok = nn.Embedding(vocab, d_model)
            self.pos = nn.Embedding(context, d_model)
            if handwritten:
                self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            else:
                layer = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, dropout=dropout,
                                                   activation="gelu", batch_first=True, norm_first=True)
                self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.ln = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, idx: Any) -> Any:
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(torch.arange(t))
            if handwritten:
                x = self.blocks(x)
            else:
                mask = nn.Transformer.generate_square_subsequent_mask(t)
                x = self.blocks(x, mask=mask, is_causal=True)
            return self.head(self.ln(x))

    return GPT()


def batch(data: np.ndarray, rng: np.random.Generator, size: int, context: int) -> tuple[np.ndarray, np.ndarray]:
    starts = rng.integers(0, len(data) - context - 1, size)
    x = np.stack([data[s:s + context] for s in starts])
    y = np.stack([data[s + 1:s + context + 1] for s in starts])
    return x, y


def train_step(torch: ModuleType, model: Any, opt: Any, x: Any, y: Any) -> Any:
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def sample(torch: ModuleType, model: Any, start: list[int], n: int, top_k: int, temperature: float = 0.8) -> list:
    """n tokens after `start`: each drawn with multinomial from the top_k most likely ones."""
    idx = torch.tensor([start])
    model.eval()
    with torch.no_grad():
        for _ in range(n):
            logits = model(idx[:, -model.context:])[:, -1, :] / temperature
            v, _ = torch.topk(logits, top_k)
            logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
            nxt = torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
    model.train()
    return idx[0].tolist()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torch", action="store_true", help="run on PyTorch instead of jtorch")
    p.add_argument("--model", choices=["layers", "handwritten"], default="layers")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--context", type=int, default=64)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--sample", type=int, default=300, help="characters to generate after training")
    p.add_argument("--top-k", type=int, default=10)
    a = p.parse_args(argv)
    torch = load_library(a.torch)
    torch.manual_seed(0)
    text = corpus()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    print(f"{'torch' if a.torch else 'jtorch'}: {len(text)} characters, vocabulary {len(chars)}")
    model = make_model(torch, len(chars), a.d_model, a.heads, a.layers, a.context, a.model == "handwritten")
    print(f"model: {sum(q.numel() for q in model.parameters())} parameters ({a.model})")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for step in range(1, a.steps + 1):
        x, y = batch(data, rng, a.batch, a.context)
        loss = train_step(torch, model, opt, torch.from_numpy(x), torch.from_numpy(y))
        if step == 1 or step % 20 == 0 or step == a.steps:
            el = time.perf_counter() - t0
            print(f"step {step:4d}  loss {loss.item():.4f}  (uniform: {math.log(len(chars)):.2f})  {el:.1f}s")
    print(f"trained {a.steps} steps in {time.perf_counter() - t0:.1f}s")
    out = sample(torch, model, [stoi[c] for c in "def "], a.sample, a.top_k)
    print("---- sample ----")
    print("".join(chars[i] for i in out))


if __name__ == "__main__":
    main()
