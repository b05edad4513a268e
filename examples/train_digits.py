"""Train an MLP and a small CNN on scikit-learn's digits (8x8 images, bundled: no download).

    python examples/train_digits.py            # on jtorch
    python examples/train_digits.py --torch    # the same program on PyTorch (for the bench)

DataLoader + CrossEntropyLoss + Adam; a progress bar per epoch, then the epoch's loss and
train/test accuracy; each model must reach >= 95% test accuracy. The trained model is saved
with save() (PyTorch's checkpoint format), reloaded into a fresh model and evaluated again.
`run(...)` is the program as a function: bench/bench_nn.py times it for both libraries.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
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


def make_model(torch: ModuleType, kind: str) -> Any:
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(  # 1x8x8 -> 16x4x4 -> 32x2x2 -> 10
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def digits_split(seed: int = 0, test_fraction: float = 0.2) -> tuple[np.ndarray, ...]:
    """The same train/test split for both libraries (a NumPy permutation)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)[:, None]  # N x 1 x 8 x 8, in [0, 1]
    y = d.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


class ProgressBar:
    """A one-line progress bar on stderr (no tqdm dependency)."""

    def __init__(self, total: int, prefix: str, enabled: bool = True, width: int = 30) -> None:
        self.total, self.prefix, self.enabled, self.width = total, prefix, enabled, width
        self.start = time.perf_counter()

    def update(self, done: int, loss: float) -> None:
        if not self.enabled:
            return
        filled = int(self.width * done / self.total)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        sys.stderr.write(f"\r{self.prefix} [{'#' * filled}{'.' * (self.width - filled)}] "
                         f"{done}/{self.total} loss {loss:.4f} {rate:.0f} it/s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * (len(self.prefix) + self.width + 40) + "\r")
            sys.stderr.flush()


def evaluate(torch: ModuleType, model: Any, loader: Any) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += int((model(xb).argmax(1) == yb).sum().item())
            total += len(yb)
    return correct / total


def train_one(torch: ModuleType, kind: str, data: tuple, epochs: int, lr: float, batch_size: int,
              seed: int, checkpoint: str, verbose: bool) -> dict[str, Any]:
    x_train, y_train, x_test, y_test = data
    if kind == "mlp":  # the MLP sees 64 features; the CNN sees 1x8x8 images
        x_train, x_test = x_train.reshape(len(x_train), 64), x_test.reshape(len(x_test), 64)
    torch.manual_seed(seed)
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
    train_ds = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    test_ds = TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test))
    g = torch.Generator()
    g.manual_seed(seed)
    train_loader = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=g)
    test_loader = DataLoader(test_ds, batch_size=256)

    model = make_model(torch, kind)
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    t0 = time.perf_counter()
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        bar = ProgressBar(len(train_loader), f"{kind} epoch {epoch:2d}/{epochs}", enabled=verbose)
        running = seen = 0.0
        correct = 0
        for i, (xb, yb) in enumerate(train_loader, 1):
            optimizer.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(yb)
            seen += len(yb)
            correct += int((out.argmax(1) == yb).sum().item())
            bar.update(i, running / seen)
        bar.close()
        test_acc = evaluate(torch, model, test_loader)
        history.append((running / seen, correct / seen, test_acc))
        if verbose:
            print(f"{kind} epoch {epoch:2d}/{epochs}  loss {running / seen:.4f}  "
                  f"train acc {100 * correct / seen:5.1f}%  test acc {100 * test_acc:5.1f}%", flush=True)
    train_s = time.perf_counter() - t0

    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epochs,
                "test_acc": history[-1][2]}, checkpoint)
    ckpt = torch.load(checkpoint)  # weights_only=True: tensors, dicts and numbers only
    fresh = make_model(torch, kind)
    fresh.load_state_dict(ckpt["model"])
    fresh_opt = torch.optim.Adam(fresh.parameters(), lr=lr)
    fresh_opt.load_state_dict(ckpt["optimizer"])
    reloaded_acc = evaluate(torch, fresh, test_loader)
    if verbose:
        print(f"{kind}: saved {checkpoint} ({os.path.getsize(checkpoint)} bytes), reloaded: "
              f"test acc {100 * reloaded_acc:.1f}% (trained model {100 * history[-1][2]:.1f}%)", flush=True)
    return {"model": kind, "epochs": epochs, "train_s": train_s, "final_loss": history[-1][0],
            "test_acc": history[-1][2], "reloaded_test_acc": reloaded_acc, "checkpoint": checkpoint}


def run(use_torch: bool = False, models: tuple[str, ...] = ("mlp", "cnn"), epochs: dict | None = None,
        lr: float = 3e-3, batch_size: int = 64, seed: int = 0, out_dir: str | None = None,
        verbose: bool = True) -> dict[str, Any]:
    """The whole program; returns per-model results and the total wall time."""
    t0 = time.perf_counter()
    torch = load_library(use_torch)
    epochs = {"mlp": 20, "cnn": 10, **(epochs or {})}
    data = digits_split(seed)
    out_dir = out_dir or tempfile.mkdtemp(prefix="digits_")
    lib = "torch" if use_torch else "jtorch"
    results = {}
    for kind in models:
        results[kind] = train_one(torch, kind, data, epochs[kind], lr, batch_size, seed,
                                  os.path.join(out_dir, f"digits_{kind}_{lib}.pt"), verbose)
    return {"library": lib, "results": results, "total_s": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of jtorch")
    ap.add_argument("--models", default="mlp,cnn", help="comma-separated: mlp, cnn")
    ap.add_argument("--epochs-mlp", type=int, default=20)
    ap.add_argument("--epochs-cnn", type=int, default=10)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out-dir", default=None, help="where the checkpoints go (default: a new temp dir)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.torch, tuple(m for m in a.models.split(",") if m), {"mlp": a.epochs_mlp, "cnn": a.epochs_cnn},
              a.lr, a.batch_size, a.seed, a.out_dir, not a.quiet)
    ok = True
    for kind, r in res["results"].items():
        met = r["test_acc"] >= 0.95 and r["reloaded_test_acc"] == r["test_acc"]
        ok &= met
        print(f"{res['library']} {kind}: test accuracy {100 * r['test_acc']:.1f}% "
              f"(reloaded {100 * r['reloaded_test_acc']:.1f}%), training {r['train_s']:.1f} s  "
              f"[{'OK' if met else 'BELOW 95% OR RELOAD MISMATCH'}]")
    print(f"{res['library']}: total {res['total_s']:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
