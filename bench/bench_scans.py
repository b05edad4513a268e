"""Scans and row normalisers: jtorch vs NumPy vs torch, timed in one run.

Rows and targets:
  * 4096x4096 float32 ``softmax(x, -1)`` and ``log_softmax(x, -1)``: throughput in GB/s
    (target: jtorch >= torch); NumPy is the three-pass formula in float32 (reported);
  * the same softmax along dim 0 (the rows side by side; reported);
  * 16M-element float32 ``cumsum`` (reported): NumPy accumulates in float32, torch and jtorch in
    float64 (PyTorch's CPU accumulate type), so the results are checked against a float64
    cumsum with a tolerance NumPy's float32 sum meets.

Method: bench_elementwise.bench_case (each result checked against a float64 reference, warm-up,
round-robin rounds, median and min); nominal bytes are the input read once plus the output
written. ``python bench/bench_scans.py`` prints the table for this module alone.
"""
from __future__ import annotations

import os

import numpy as np

from bench_elementwise import bench_case, first_calls_note, libraries, to_jtorch, try_import_torch  # noqa: E402  (bench/ on sys.path)

QUICK = bool(os.environ.get("BENCH_QUICK"))
SIDE = 1024 if QUICK else 4096
N_SCAN = (1 << 20) if QUICK else 16 * 1024 * 1024


def _np_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    e /= e.sum(axis=dim, keepdims=True)
    return e


def _np_log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    s = x - x.max(axis=dim, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=dim, keepdims=True))


def run() -> dict:
    import jtorch
    import numba
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 11

    libs = libraries(torch)

    x = rng.standard_normal((SIDE, SIDE), dtype=np.float32)
    jx = to_jtorch(x)
    tx = torch.from_numpy(x) if torch else None
    x64 = x.astype(np.float64)
    sq = f"{SIDE}x{SIDE} f32"
    for name, npf in (("softmax", _np_softmax), ("log_softmax", _np_log_softmax)):
        jf, tf = getattr(jtorch, name), getattr(torch, name) if torch else None
        rows.append(bench_case(
            f"{name} {sq} dim -1", "throughput",
            libs(lambda npf=npf: npf(x, -1), lambda jf=jf: jf(jx, -1), lambda tf=tf: tf(tx, -1)),
            lambda npf=npf: npf(x64, -1), number=1, repeat=rep, nbytes=2 * x.nbytes,
            target_vs="torch" if torch else None, target=1.0, rtol=1e-5, atol=1e-5))
    rows.append(bench_case(
        f"softmax {sq} dim 0", "throughput",
        libs(lambda: _np_softmax(x, 0), lambda: jtorch.softmax(jx, 0), lambda: torch.softmax(tx, 0)),
        lambda: _np_softmax(x64, 0), number=1, repeat=rep, nbytes=2 * x.nbytes, rtol=1e-5, atol=1e-6))
    del jx, tx, x64, x

    a = rng.standard_normal(N_SCAN, dtype=np.float32)
    ja = to_jtorch(a)
    ta = torch.from_numpy(a) if torch else None
    rows.append(bench_case(
        f"cumsum {N_SCAN // (1 << 20)}M f32", "throughput",
        libs(lambda: np.cumsum(a), lambda: jtorch.cumsum(ja, 0), lambda: torch.cumsum(ta, 0)),
        lambda: np.cumsum(a, dtype=np.float64), number=1, repeat=rep, nbytes=2 * a.nbytes,
        rtol=1e-4, atol=1.0))
    for r in rows:
        r["group"] = "scans"
    notes = [f"numba threads {numba.get_num_threads()}, torch threads {torch.get_num_threads() if torch else '-'}, "
             "NumPy single-threaded; cumsum is serial in all three (one row)",
             first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "scans"])
