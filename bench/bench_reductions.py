"""Reductions: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method and row format).

Rows and targets:
  * 16M-element float32 ``sum()``: throughput in GB/s (target: >= NumPy's; torch's reported);
  * 4000x4000 float32 ``sum(0)`` and ``sum(1)`` (target: >= NumPy's ``sum(axis=0/1)``);
  * 16M-element float32 ``argmax()`` (target: >= NumPy's ``argmax``);
  * 4000x4000 float32 ``amax(1)`` (target: >= NumPy's ``max(axis=1)``);
  * ``sum()`` of 4 float32 elements: the per-call overhead (target: jtorch's time <= 5x torch's).

Every library's result is checked against NumPy first (sums against the float64 sum, within 1e-5
relative: NumPy's own float32 sum(0) is a plain running sum); then round-robin rounds as in
bench_elementwise (`time_round_robin`). ``python bench/bench_reductions.py`` prints this module's
table; ``bench/run_all.py`` includes it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

N_BIG = (1 << 20) if QUICK else 16 * 1024 * 1024
SIDE = 1024 if QUICK else 4000


def run() -> dict:
    import jtorch  # noqa: F401  (imported before timing: start-up is bench_startup's business)
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 11

    libs = libraries(torch)

    a = rng.random(N_BIG, dtype=np.float32)
    ja = to_jtorch(a)
    ta = torch.from_numpy(a) if torch else None
    big = f"{N_BIG // (1 << 20)}M f32"
    exact = a.astype(np.float64).sum()
    rows.append(bench_case(f"sum() {big}", "throughput", libs(lambda: np.asarray(a.sum()), lambda: ja.sum(),
                                                                lambda: ta.sum()),
                           lambda: np.asarray(np.float32(exact)), number=1, repeat=rep, nbytes=a.nbytes,
                           target_vs="numpy", target=1.0, rtol=1e-5))
    rows.append(bench_case(f"argmax() {big}", "throughput", libs(lambda: np.asarray(a.argmax()), lambda: ja.argmax(),
                                                                   lambda: ta.argmax()),
                           lambda: np.asarray(a.argmax()), number=1, repeat=rep, nbytes=a.nbytes,
                           target_vs="numpy", target=1.0))

    x = rng.random((SIDE, SIDE), dtype=np.float32)
    jx = to_jtorch(x)
    tx = torch.from_numpy(x) if torch else None
    sq = f"{SIDE}x{SIDE} f32"
    x64 = x.astype(np.float64)
    for dim in (0, 1):
        ref = x64.sum(dim).astype(np.float32)
        rows.append(bench_case(f"{sq} sum({dim})", "throughput",
                               libs(lambda d=dim: x.sum(d), lambda d=dim: jx.sum(d), lambda d=dim: tx.sum(d)),
                               lambda r=ref: r, number=1, repeat=rep, nbytes=x.nbytes, target_vs="numpy",
                               target=1.0, rtol=1e-5))
    rows.append(bench_case(f"{sq} amax(1)", "throughput",
                           libs(lambda: x.max(axis=1), lambda: jx.amax(1), lambda: tx.amax(1)),
                           lambda: x.max(axis=1), number=1, repeat=rep, nbytes=x.nbytes, target_vs="numpy",
                           target=1.0))

    s4 = rng.random(4, dtype=np.float32)
    js4 = to_jtorch(s4)
    ts4 = torch.from_numpy(s4) if torch else None
    rows.append(bench_case("sum() 4 f32", "time",
                           libs(lambda: np.asarray(s4.sum()), lambda: js4.sum(), lambda: ts4.sum()),
                           lambda: np.asarray(np.float32(s4.astype(np.float64).sum())), number=200 if QUICK else 2000,
                           repeat=5 if QUICK else 25, target_vs="torch" if torch else None, target=5.0,
                           rtol=1e-6))
    for r in rows:
        r["group"] = "reductions"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "reductions"])
