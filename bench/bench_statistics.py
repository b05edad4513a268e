"""Statistics: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method and row format).

Rows and targets:
  * ``quantile`` of 4M float32 at q = 0.3, 0.5, 0.9 (target: >= torch's throughput; torch sorts
    the whole input, as jtorch's composite does with its radix sort; NumPy's ``np.quantile``,
    which selects with ``np.partition``, reported).
``python bench/bench_statistics.py`` prints this module's table; ``bench/run_all.py`` includes it.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

N = 4 * 1000 * 1000


def run() -> dict:
    import jtorch
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 7
    libs = libraries(torch)

    n = N // 16 if QUICK else N
    a = rng.standard_normal(n).astype(np.float32)
    q = np.array([0.3, 0.5, 0.9], dtype=np.float32)
    ja, jq = to_jtorch(a), to_jtorch(q)
    ta, tq = (torch.from_numpy(a), torch.from_numpy(q)) if torch else (None, None)
    want = np.quantile(a.astype(np.float64), q.astype(np.float64)).astype(np.float32)
    rows.append(bench_case(f"quantile(3 q) {n // 1000_000 or n / 1e6:g}M f32", "throughput",
                           libs(lambda: np.quantile(a, q), lambda: jtorch.quantile(ja, jq),
                                lambda: torch.quantile(ta, tq)),
                           lambda: want, number=1, repeat=rep, nbytes=a.nbytes,
                           target_vs="torch" if torch else None, target=1.0))
    for r in rows:
        r["group"] = "statistics"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "statistics"])
