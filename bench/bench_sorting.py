"""Sorting: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method and row format).

Rows and targets:
  * 1M float32 ``sort()`` (values and indices; target: >= NumPy's ``np.sort`` throughput, which
    computes values only, with x86-simd-sort's unstable quicksort);
  * 1M float32 ``argsort()`` (target: >= NumPy's ``np.argsort``, also unstable);
  * 1M float32 ``topk(100)`` (target: >= torch's; NumPy's ``argpartition`` + sort reported).
torch's times are reported on every row. The input is a shuffled range (distinct values), so
that NumPy's unstable order agrees with the stable one in the result check.
``python bench/bench_sorting.py`` prints this module's table; ``bench/run_all.py`` includes it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

N = 1 << 20
K = 100


def run() -> dict:
    import jtorch  # noqa: F401  (imported before timing)
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 11

    libs = libraries(torch)

    a = (rng.permutation(N) - N // 2).astype(np.float32) * np.float32(0.5)
    ja = to_jtorch(a)
    ta = torch.from_numpy(a) if torch else None
    rows.append(bench_case("sort() 1M f32", "throughput",
                           libs(lambda: np.sort(a), lambda: ja.sort()[0], lambda: ta.sort()[0]),
                           lambda: np.sort(a), number=1, repeat=rep, nbytes=a.nbytes, target_vs="numpy", target=1.0))
    rows.append(bench_case("argsort() 1M f32", "throughput",
                           libs(lambda: np.argsort(a), lambda: ja.argsort(), lambda: ta.argsort()),
                           lambda: np.argsort(a, kind="stable"), number=1, repeat=rep, nbytes=a.nbytes,
                           target_vs="numpy", target=1.0))
    top = np.sort(a)[::-1][:K].copy()
    rows.append(bench_case(f"topk({K}) 1M f32", "throughput",
                           libs(lambda: np.sort(np.partition(a, -K)[-K:])[::-1], lambda: ja.topk(K)[0],
                                lambda: ta.topk(K)[0]),
                           lambda: top, number=1, repeat=rep, nbytes=a.nbytes,
                           target_vs="torch" if torch else None, target=1.0))
    for r in rows:
        r["group"] = "sorting"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "sorting"])
