"""Autograd: jtorch vs torch, timed in one run (results checked first, warm-up, round-robin rounds,
median). NumPy has no autograd: its column is the same arithmetic without gradients, for scale.

Rows (targets from the autograd issue):
  * ``a + b`` on 4-element float32 tensors that do not require grad: time <= 5x torch's (the
    Autograd kernel every operator now has must not push the per-call overhead past its target);
  * ``a * b`` on 4-element tensors with requires_grad=True (the node is recorded): <= 5x torch;
  * forward + backward of a 2-layer MLP (64x1000 input, 1000x100 and 100x10 weights, ReLU,
    squared-error sum): <= 1.5x torch;
  * backward of a chain of 1000 small elementwise ops (4 elements; mul, add, sin in turn; the
    graph is kept with retain_graph and run again each call): <= 5x torch.
A row passes only if both the median ratio and the best-round ratio meet the target: torch's time
in the MLP row moves a lot with the state of its thread pool in the round robin (its median was
2.3x its best in one run), which alone would make a median ratio look better than it is.
``python bench/bench_autograd.py`` prints the table for this module alone.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from _common import progress, time_round_robin  # noqa: E402
from bench_elementwise import QUICK, _row, summary, try_import_torch  # noqa: E402


def _case(rows: list, name: str, fns: dict[str, Callable | None], check: Callable[[str, Any], None], *,
          number: int, repeat: int, target: float) -> None:
    progress(name)
    live = {k: f for k, f in fns.items() if f is not None}
    reasons = {}
    for lib, fn in list(live.items()):
        try:
            check(lib, fn())
            for _ in range(10):
                fn()
        except Exception as e:  # say why a library has no number
            reasons[lib] = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
            del live[lib]
    times = time_round_robin(live, number, repeat) if live else {}
    results = {lib: summary(times[lib], None) if lib in times else None for lib in fns}
    extra = {"number": number, "repeat": repeat}
    if reasons:
        extra["reason"] = "; ".join(f"{k}: {v}" for k, v in reasons.items())
    has_torch = fns.get("torch") is not None
    row = _row(name, "time", results, target_vs="torch" if has_torch else None, target=target if has_torch else None,
               nbytes=None, extra=extra)
    row["group"] = "autograd"
    jt, th = results.get("jtorch"), results.get("torch")
    if jt and th:  # torch's timings vary with its thread pool's state: judge on the best rounds too
        row["ratio_best"] = jt["min_s"] / th["min_s"]
        if row.get("status") == "PASS" and row["ratio_best"] > target:
            row["status"] = "MISS"
            row["reason"] = (f"median ratio {row['ratio']:.2f}x meets the target, but best rounds give "
                             f"{row['ratio_best']:.2f}x (torch's median {th['median_s'] * 1e6:.0f} us against its best "
                             f"{th['min_s'] * 1e6:.0f} us): judged on both")
    rows.append(row)


def _close(expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-5) -> Callable[[str, Any], None]:
    def check(lib: str, got: Any) -> None:
        g = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got, dtype=np.float64)
        if g.shape != expected.shape or not np.allclose(g, expected, rtol=rtol, atol=atol):
            raise AssertionError(f"{lib}: wrong result")
    return check


def run() -> dict:
    import jtorch
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    mods = {"jtorch": jtorch, "torch": torch}

    # -- 4-element a + b without grad, a * b with grad ------------------------------------------------
    x, y = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    plain = {lib: (m.from_numpy(x.copy()), m.from_numpy(y.copy())) if m else None for lib, m in mods.items()}
    _case(rows, "a + b, 4 f32, no grad", {
        "jtorch": lambda: plain["jtorch"][0] + plain["jtorch"][1],
        "numpy": lambda: x + y,
        "torch": (lambda: plain["torch"][0] + plain["torch"][1]) if torch else None,
    }, _close(x + y), number=2000 if QUICK else 20000, repeat=5 if QUICK else 15, target=5.0)

    rg = {lib: (m.from_numpy(x.copy()).requires_grad_(), m.from_numpy(y.copy()).requires_grad_()) if m else None
          for lib, m in mods.items()}
    _case(rows, "a * b, 4 f32, requires_grad", {
        "jtorch": lambda: rg["jtorch"][0] * rg["jtorch"][1],
        "numpy": lambda: x * y,
        "torch": (lambda: rg["torch"][0] * rg["torch"][1]) if torch else None,
    }, _close(x * y), number=2000 if QUICK else 20000, repeat=5 if QUICK else 15, target=5.0)

    # -- 2-layer MLP, forward + backward ---------------------------------------------------------------
    n, d, h, o = (16, 250, 50, 10) if QUICK else (64, 1000, 100, 10)
    xs = rng.standard_normal((n, d)).astype(np.float32)
    w1 = (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32)
    w2 = (rng.standard_normal((h, o)) / np.sqrt(h)).astype(np.float32)
    ts = rng.standard_normal((n, o)).astype(np.float32)
    ref_w2_grad = np.maximum(xs @ w1, 0).T @ (2 * (np.maximum(xs @ w1, 0) @ w2 - ts))

    def mlp(m: Any) -> Callable[[], Any]:
        X, T = m.from_numpy(xs), m.from_numpy(ts)
        W1, W2 = m.from_numpy(w1.copy()).requires_grad_(), m.from_numpy(w2.copy()).requires_grad_()

        def step() -> Any:
            W1.grad = W2.grad = None
            loss = ((X.mm(W1).relu().mm(W2) - T) ** 2).sum()
            loss.backward()
            return W2.grad
        return step

    _case(rows, f"MLP fwd+bwd {n}x{d} @ {d}x{h} @ {h}x{o} f32", {
        "jtorch": mlp(jtorch),
        "numpy": None,
        "torch": mlp(torch) if torch else None,
    }, _close(ref_w2_grad, rtol=1e-3, atol=1e-2), number=5 if QUICK else 20, repeat=5 if QUICK else 15, target=1.5)

    # -- backward of a 1000-op chain --------------------------------------------------------------------
    length = 200 if QUICK else 1000
    x0 = rng.standard_normal(4)

    def chain(m: Any) -> Callable[[], Any]:
        a = m.tensor(x0, dtype=m.float32, requires_grad=True)
        t = a
        for i in range(length):
            t = t * 1.001 if i % 3 == 0 else (t + 0.5 if i % 3 == 1 else t.sin())
        out = t.sum()

        def back() -> Any:
            a.grad = None
            out.backward(retain_graph=True)
            return a.grad
        return back

    ref = chain(torch)() if torch else None
    _case(rows, f"backward of a {length}-op chain, 4 f32", {
        "jtorch": chain(jtorch),
        "numpy": None,
        "torch": chain(torch) if torch else None,
    }, (lambda lib, got: None) if ref is None else _close(ref.numpy().astype(np.float64), rtol=1e-4, atol=1e-6),
        number=3 if QUICK else 10, repeat=5 if QUICK else 15, target=5.0)

    notes = ["NumPy's column is the same arithmetic without gradients (NumPy has no autograd), for scale."]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import json
    import sys

    res = run()
    for r in res["rows"]:
        print(r["name"], r["status"], r.get("ratio"), r.get("reason", ""))
    json.dump(res, sys.stdout if "--json" in sys.argv else open("/dev/null", "w"), indent=1, default=str)
