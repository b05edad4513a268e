"""Gather / index_select / masked_fill: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's
method and row format).

Rows and targets:
  * 4000x4000 float32 ``gather(1, idx)``, random int64 indices (target: >= NumPy's ``take_along_axis``);
  * 4000x4000 float32 ``index_select(0, idx)``, 4000 random rows (target: >= NumPy's ``take(axis=0)``);
  * 4000x4000 float32 ``masked_fill(mask, 0)``, random mask (target: >= NumPy's ``where(mask, 0, x)``).
torch's figures are reported beside them. Every result is checked against NumPy first.
``python bench/bench_indexing.py`` prints this module's table; ``bench/run_all.py`` includes it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

SIDE = 1024 if QUICK else 4000


def run() -> dict:
    import jtorch  # noqa: F401  (imported before timing)
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 11

    libs = libraries(torch)

    x = rng.random((SIDE, SIDE), dtype=np.float32)
    jx = to_jtorch(x)
    tx = torch.from_numpy(x) if torch else None
    sq = f"{SIDE}x{SIDE} f32"

    idx = rng.integers(0, SIDE, (SIDE, SIDE))
    jidx, tidx = to_jtorch(idx), (torch.from_numpy(idx) if torch else None)
    rows.append(bench_case(f"{sq} gather(1, idx)", "throughput",
                           libs(lambda: np.take_along_axis(x, idx, 1), lambda: jx.gather(1, jidx),
                                lambda: tx.gather(1, tidx)),
                           lambda: np.take_along_axis(x, idx, 1), number=1, repeat=rep, nbytes=x.nbytes,
                           target_vs="numpy", target=1.0))

    rows_idx = rng.integers(0, SIDE, SIDE)
    jr, tr = to_jtorch(rows_idx), (torch.from_numpy(rows_idx) if torch else None)
    rows.append(bench_case(f"{sq} index_select(0, idx)", "throughput",
                           libs(lambda: np.take(x, rows_idx, axis=0), lambda: jx.index_select(0, jr),
                                lambda: tx.index_select(0, tr)),
                           lambda: np.take(x, rows_idx, axis=0), number=1, repeat=rep, nbytes=x.nbytes,
                           target_vs="numpy", target=1.0))

    mask = rng.integers(0, 2, (SIDE, SIDE)).astype(bool)
    jm, tm = to_jtorch(mask), (torch.from_numpy(mask) if torch else None)
    zero = np.float32(0)
    rows.append(bench_case(f"{sq} masked_fill(mask, 0)", "throughput",
                           libs(lambda: np.where(mask, zero, x), lambda: jx.masked_fill(jm, 0.0),
                                lambda: tx.masked_fill(tm, 0.0)),
                           lambda: np.where(mask, zero, x), number=1, repeat=rep, nbytes=x.nbytes,
                           target_vs="numpy", target=1.0))
    for r in rows:
        r["group"] = "indexing"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "indexing"])
