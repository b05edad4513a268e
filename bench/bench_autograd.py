"""Autograd: jtorch vs torch (results checked first, warm-up, round-robin rounds, median). NumPy
has no autograd: its column is the same arithmetic without gradients, for scale.

Rows and targets:
  * ``a + b`` on 4-element float32 tensors that do not require grad: time <= 5x torch's (the
    Autograd kernel every operator has must not push the per-call overhead past its target);
  * ``a * b`` on 4-element tensors with requires_grad=True (the node is recorded): <= 5x torch;
  * forward + backward of a 2-layer MLP (64x1000 input, 1000x100 and 100x10 weights, ReLU,
    squared-error sum): <= 1.5x torch, each library timed in its own worker process;
    the same, both libraries in this process: reported;
  * backward of a chain of 1000 small elementwise ops (4 elements; mul, add, sin in turn; the
    graph is kept with retain_graph and run again each call): <= 5x torch.
A row passes only if both the median ratio and the best-round ratio meet the target: torch's time
in the MLP row moves a lot with the state of its thread pool in the round robin (its median was
2.3x its best in one run), which alone would make a median ratio look better than it is.

Why the MLP row uses worker processes: in one process jtorch and torch bring two OpenMP runtimes
(torch's bundled libgomp, the system one behind Numba's pool) and NumPy's OpenBLAS pool (jtorch's
float matmul), and they slow each other: jtorch 1430 us and torch 2000 us in one process against
640-750 us and 450-650 us each alone, and best-round ratios from 0.7x to 1.7x between runs. Users
never load both, so bench/_isolated.py starts one worker per library (each builds ``mlp_case``
from the same seed, checks it against NumPy and warms up), and the rounds ask the workers in
turn, one at a time, with the usual idle gap before each turn and 10 untimed steps at its start
(the pools wake, the caches fill, the machine comes back to speed: _isolated.TURN_WARMUP); a worker answers only once its
thread pools stop spinning (OpenBLAS's, after jtorch's matmuls, for ~110 ms: a core the other
worker would lose). The other rows stay in one process: they are small and single-threaded.
``python bench/bench_autograd.py`` prints the table for this module alone.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from _common import progress, time_round_robin  # noqa: E402
from _isolated import time_isolated  # noqa: E402
from bench_elementwise import QUICK, _row, summary, try_import_torch  # noqa: E402


def _case(rows: list, name: str, fns: dict[str, Callable | None], check: Callable[[str, Any], None], *,
          number: int, repeat: int, target: float | None) -> None:
    """Time `fns` in this process (round robin) and append the judged row; target None: reported."""
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
    rows.append(_judged_row(name, list(fns), times, reasons, has_torch=fns.get("torch") is not None,
                            number=number, repeat=repeat, target=target))


def _judged_row(name: str, libs: list[str], times: dict[str, list[float]], reasons: dict[str, str], *,
                has_torch: bool, number: int, repeat: int, target: float | None) -> dict:
    """The row for per-round `times`: median ratio to torch, and the best-round ratio beside it."""
    results = {lib: summary(times[lib], None) if lib in times else None for lib in libs}
    extra: dict[str, Any] = {"number": number, "repeat": repeat}
    if reasons:
        extra["reason"] = "; ".join(f"{k}: {v}" for k, v in reasons.items())
    row = _row(name, "time", results, target_vs="torch" if has_torch else None, target=target if has_torch else None,
               nbytes=None, extra=extra)
    row["group"] = "autograd"
    jt, th = results.get("jtorch"), results.get("torch")
    if jt and th:  # torch's timings vary with its thread pool's state: judge on the best rounds too
        row["ratio_best"] = jt["min_s"] / th["min_s"]
        if target is not None and row.get("status") == "PASS" and row["ratio_best"] > target:
            row["status"] = "MISS"
            row["reason"] = (f"median ratio {row['ratio']:.2f}x meets the target, but best rounds give "
                             f"{row['ratio_best']:.2f}x (torch's median {th['median_s'] * 1e6:.0f} us against its best "
                             f"{th['min_s'] * 1e6:.0f} us): judged on both")
    return row


def _close(expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-5) -> Callable[[str, Any], None]:
    def check(lib: str, got: Any) -> None:
        g = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got, dtype=np.float64)
        if g.shape != expected.shape or not np.allclose(g, expected, rtol=rtol, atol=atol):
            raise AssertionError(f"{lib}: wrong result")
    return check


def mlp_case(lib: str, n: int, d: int, h: int, o: int, seed: int = 0) -> Callable[[], Any]:
    """One MLP forward + backward step in `lib` ("jtorch" or "torch"), its result checked against
    NumPy first. Module level so that an isolated worker can build it by name (bench/_isolated.py);
    the inputs come from `seed`, so every process builds the same ones."""
    if lib == "jtorch":
        import jtorch as m
    elif lib == "torch":
        m = try_import_torch()
        if m is None:
            raise ImportError("torch is not installed")
    else:
        raise ValueError(f"no MLP case for {lib!r}")
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((n, d)).astype(np.float32)
    w1 = (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32)
    w2 = (rng.standard_normal((h, o)) / np.sqrt(h)).astype(np.float32)
    ts = rng.standard_normal((n, o)).astype(np.float32)
    hidden = np.maximum(xs @ w1, 0)
    X, T = m.from_numpy(xs), m.from_numpy(ts)
    W1, W2 = m.from_numpy(w1.copy()).requires_grad_(), m.from_numpy(w2.copy()).requires_grad_()

    def step() -> Any:
        W1.grad = W2.grad = None
        loss = ((X.mm(W1).relu().mm(W2) - T) ** 2).sum()
        loss.backward()
        return W2.grad

    _close(hidden.T @ (2 * (hidden @ w2 - ts)), rtol=1e-3, atol=1e-2)(lib, step())
    return step


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
    # Judged with each library in its own worker process (bench/_isolated.py); then the same step
    # with both libraries in this process, reported only, to show what they cost each other here.
    # The in-process row runs first so that a cold kernel cache compiles here, where run_all prints
    # each compilation, and the jtorch worker only loads the kernels.
    sizes = dict(zip("ndho", (16, 250, 50, 10) if QUICK else (64, 1000, 100, 10)))
    mlp_name = "MLP fwd+bwd {n}x{d} @ {d}x{h} @ {h}x{o} f32".format(**sizes)
    number, repeat = (5, 5) if QUICK else (20, 15)

    def built(lib: str) -> Callable[[], Any]:  # a failed build raises at _case's first call: a reason
        try:
            return mlp_case(lib, **sizes)
        except Exception as e:
            err = e  # `e` itself is unbound when the except block ends

            def failed() -> Any:
                raise err
            return failed

    in_process: list[dict] = []
    _case(in_process, f"{mlp_name} (both libraries in one process)", {
        "jtorch": built("jtorch"),
        "numpy": None,
        "torch": built("torch") if torch else None,
    }, lambda lib, got: None, number=number, repeat=repeat, target=None)  # mlp_case checked the results
    progress(f"{mlp_name} (one worker process per library)")
    libs = ["jtorch", "torch"] if torch else ["jtorch"]  # no torch here: its column stays empty, as elsewhere
    times, reasons = time_isolated("bench_autograd:mlp_case", libs, sizes, number, repeat)
    rows.append(_judged_row(mlp_name, ["jtorch", "numpy", "torch"], times, reasons, has_torch=torch is not None,
                            number=number, repeat=repeat, target=1.5))
    rows[-1]["processes"] = "one per library"
    rows += in_process

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
        cells = [f"{lib} {r[lib]['median_s'] * 1e6:.0f} ({r[lib]['min_s'] * 1e6:.0f}) us"
                 for lib in ("jtorch", "torch") if r.get(lib)]
        print(r["name"], r["status"], *cells, f"ratio {r.get('ratio') or 0:.2f}x best {r.get('ratio_best') or 0:.2f}x",
              r.get("reason", ""))
    json.dump(res, sys.stdout if "--json" in sys.argv else open("/dev/null", "w"), indent=1, default=str)
