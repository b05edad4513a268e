"""Joining: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method and row format).

Rows and targets:
  * ``cat`` of ten 1M-element float32 tensors along dim 0 (target: >= NumPy's ``concatenate``);
  * ``cat`` of ten 1000x100 float32 tensors along dim 1 (target: >= NumPy's ``concatenate``).

Every library's result is checked against NumPy first; then round-robin rounds as in
bench_elementwise. ``python bench/bench_joining.py`` prints this module's table;
``bench/run_all.py --only joining`` runs it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

N = (1 << 17) if QUICK else 1_000_000


def run() -> dict:
    import jtorch
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 15

    libs = libraries(torch)

    for shape, dim in (((N,), 0), ((1000, 100), 1)):
        xs = [rng.random(shape, dtype=np.float32) for _ in range(10)]
        js = [to_jtorch(x) for x in xs]
        ts = [torch.from_numpy(x) for x in xs] if torch else None
        name = f"cat 10x{'x'.join(map(str, shape))} f32 dim {dim}"
        nbytes = 2 * sum(x.nbytes for x in xs)  # read and written once
        rows.append(bench_case(name, "throughput",
                               libs(lambda x=xs, d=dim: np.concatenate(x, d), lambda j=js, d=dim: jtorch.cat(j, d),
                                    lambda t=ts, d=dim: torch.cat(t, d)),
                               lambda x=xs, d=dim: np.concatenate(x, d), number=1, repeat=rep, nbytes=nbytes,
                               target_vs="numpy", target=1.0))
    for r in rows:
        r["group"] = "joining"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "joining"])
