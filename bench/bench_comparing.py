"""Comparing whole tensors: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method).

Rows (reported, no target):
  * 4M-element float32 ``isclose`` (throughput; torch's isclose is the same composite of
    elementwise operators), against NumPy's and torch's;
  * 4M-element float32 ``allclose`` and ``equal``, against NumPy's ``allclose`` / ``array_equal``;
  * ``isclose`` of 4 float32 elements: per-call overhead (about ten operator calls).
``python bench/bench_comparing.py`` prints this module's table.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from bench_elementwise import QUICK, bench_case, libraries, to_jtorch, try_import_torch

N_BIG = (1 << 20) if QUICK else 4 * 1024 * 1024


def run() -> dict:
    import jtorch  # noqa: F401  (imported before timing)
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 11

    libs = libraries(torch)

    a = rng.random(N_BIG, dtype=np.float32)
    b = a + (rng.random(N_BIG, dtype=np.float32) * 2e-5).astype(np.float32)
    ja, jb = to_jtorch(a), to_jtorch(b)
    ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
    big = f"{N_BIG // (1 << 20)}M f32"
    ref = np.isclose(a, b)
    rows.append(bench_case(f"isclose {big}", "throughput",
                           libs(lambda: np.isclose(a, b), lambda: jtorch.isclose(ja, jb),
                                lambda: torch.isclose(ta, tb)),
                           lambda: ref, number=1, repeat=rep, nbytes=2 * a.nbytes, target_vs=None))
    rows.append(bench_case(f"allclose {big}", "throughput",
                           libs(lambda: np.asarray(np.allclose(a, b)), lambda: np.asarray(jtorch.allclose(ja, jb)),
                                lambda: np.asarray(torch.allclose(ta, tb))),
                           lambda: np.asarray(bool(ref.all())), number=1, repeat=rep, nbytes=2 * a.nbytes,
                           target_vs=None))
    c = a.copy()
    jc = to_jtorch(c)
    tc = torch.from_numpy(c) if torch else None
    rows.append(bench_case(f"equal {big}", "throughput",
                           libs(lambda: np.asarray(np.array_equal(a, c)), lambda: np.asarray(jtorch.equal(ja, jc)),
                                lambda: np.asarray(torch.equal(ta, tc))),
                           lambda: np.asarray(True), number=1, repeat=rep, nbytes=2 * a.nbytes,
                           target_vs=None))
    s, s2 = a[:4].copy(), b[:4].copy()
    js, js2 = to_jtorch(s), to_jtorch(s2)
    ts, ts2 = (torch.from_numpy(s), torch.from_numpy(s2)) if torch else (None, None)
    rows.append(bench_case("isclose 4 f32", "time",
                           libs(lambda: np.isclose(s, s2), lambda: jtorch.isclose(js, js2),
                                lambda: torch.isclose(ts, ts2)),
                           lambda: np.isclose(s, s2), number=100 if QUICK else 500, repeat=5 if QUICK else 15,
                           target_vs=None))
    for r in rows:
        r["group"] = "comparing"
    notes: list[Any] = []
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "comparing"])
