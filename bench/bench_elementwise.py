"""Elementwise operators: jtorch vs NumPy vs torch, timed in one run.

Rows and targets (see bench/README.md):
  * ``a + b`` on two 4-element float32 tensors: the per-call overhead (target: jtorch's time
    <= 5x torch's); likewise ``x * 2`` (a Python number as the other operand);
  * 16M-element float32 ``add`` / ``mul``, functional (allocating the output, as ``a + b`` does)
    and ``out=``: throughput in GB/s (target: >= NumPy's);
  * 4000x4000 float32 plus a 4000-element row vector, plus its own transpose (target: >= NumPy);
  * 16M-element float32 ``exp``, ``tanh``, ``sigmoid`` (reported, no target).

Method: every library's callable is called once and checked against NumPy, then warmed up; the
first jtorch call (kernel compile or cache load) is timed on its own and reported beside the row.
Then ``repeat`` rounds, each timing ``number`` back-to-back calls of every library in turn (round
robin, so that noise on this shared machine hits all three alike, with a 5 ms idle gap before
each library's turn so that the previous library's thread pool is idle: see GAP_S); a row
reports the median and the min over rounds. GC is off while timing.

``run() -> dict`` returns ``{"rows": [...], "notes": [...]}`` in the format documented in
bench/README.md; ``python bench/bench_elementwise.py`` prints the table for this module alone.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable

import numpy as np

from _common import GAP_S, progress, time_round_robin, torch_or_none  # noqa: E402  (bench/ is on sys.path when run)

QUICK = bool(os.environ.get("BENCH_QUICK"))  # smoke test: few repeats, smaller inputs
N_BIG = (1 << 20) if QUICK else 16 * 1024 * 1024
SIDE = 1024 if QUICK else 4000


# ---------------------------------------------------------------------------------------------
# shared helpers (bench_startup and run_all import these too)

def try_import_torch() -> Any:
    """torch with 2 intra-op threads (this machine's core count), or None when not installed."""
    torch = torch_or_none()
    if torch is not None:
        torch.set_num_threads(2)
    return torch


def to_jtorch(arr: np.ndarray) -> Any:
    """A jtorch tensor sharing the memory of the C-contiguous array `arr`: jtorch.from_numpy
    when it exists, else the storage wrapped directly (the benchmark must not depend on the
    factories being finished)."""
    import jtorch
    assert arr.flags.c_contiguous
    if hasattr(jtorch, "from_numpy"):
        return jtorch.from_numpy(arr)
    from jtorch.dtypes import from_numpy_dtype
    from jtorch.storage import CPUStorage
    return jtorch.Tensor._make(CPUStorage(arr.reshape(-1)), arr.shape,
                               tuple(s // arr.itemsize for s in arr.strides), 0,
                               from_numpy_dtype(arr.dtype), jtorch.device("cpu"))


def as_numpy(t: Any) -> np.ndarray:
    """The values of a jtorch/torch tensor or NumPy array, as NumPy (for correctness checks)."""
    if isinstance(t, np.ndarray):
        return t
    if hasattr(t, "_numpy_view"):  # jtorch: a view of the storage, no operator call
        return t._numpy_view()
    return t.numpy()


def summary(ts: list[float], nbytes: int | None = None) -> dict:
    """median/min seconds (and GB/s at each when the bytes moved are known)."""
    med, best = float(np.median(ts)), float(min(ts))
    out = {"median_s": med, "min_s": best, "rounds": len(ts)}
    if nbytes:
        out["gbps"] = nbytes / med / 1e9
        out["gbps_best"] = nbytes / best / 1e9
    return out


def compile_counter() -> Callable[[], int]:
    """A function returning how many Numba compilations ran since this call (numba's own
    "numba:compile" event fires only when a dispatcher really compiles, not on a cache load)."""
    from numba.core import event
    rec = event.RecordingListener()
    event.register("numba:compile", rec)
    return lambda: sum(1 for _, ev in rec.buffer if ev.is_start)


# ---------------------------------------------------------------------------------------------
# rows

def _row(name: str, kind: str, results: dict[str, dict | None], *, target_vs: str | None,
         target: float | None, nbytes: int | None, extra: dict | None = None) -> dict:
    """Build a row. kind "time": ratio = jtorch time / reference time (lower is better);
    kind "throughput": ratio = jtorch GB/s / reference GB/s (higher is better)."""
    jt = results.get("jtorch")

    def ratio(ref: str) -> float | None:
        r = results.get(ref)
        if not jt or not r:
            return None
        if kind == "time":
            return jt["median_s"] / r["median_s"]
        return r["median_s"] / jt["median_s"]

    vs = target_vs or "numpy"
    row = {"name": name, "group": "elementwise", "kind": kind, "nbytes": nbytes,
           "jtorch": jt, "numpy": results.get("numpy"), "torch": results.get("torch"),
           "ratio": ratio(vs), "ratio_vs": vs, "vs_torch": ratio("torch"),
           "better": "lower" if kind == "time" else "higher"}
    if target is not None and target_vs is not None:
        op = "<=" if kind == "time" else ">="
        what = "time" if kind == "time" else "GB/s"
        row["target"] = {"op": op, "value": target, "vs": target_vs,
                         "text": f"{what} {op} {target:g}x {target_vs}"}
        r = row["ratio"]
        if r is None:
            row["status"] = "SKIP"
        else:
            row["status"] = "PASS" if (r <= target if op == "<=" else r >= target) else "MISS"
    else:
        row["target"] = None
        row["status"] = "report" if jt else "SKIP"
    if extra:
        row.update(extra)
    return row


def libraries(torch: Any) -> Callable:
    """libs(np_fn, jt_fn, th_fn) -> the `make` argument of bench_case (torch's column only when
    torch is importable)."""
    def libs(np_fn: Callable, jt_fn: Callable, th_fn: "Callable | None") -> Callable:
        return lambda _: {"jtorch": jt_fn, "numpy": np_fn, "torch": th_fn if torch else None}
    return libs


def first_calls_note(rows: list[dict]) -> str:
    """The note listing each row's first jtorch call (kernel cache load or compile)."""
    firsts = [f"{r['name']} {r['first_call_s'] * 1e3:.1f} ms/{r['first_call_compiles']}"
              for r in rows if r.get("first_call_s") is not None]
    return ("first jtorch call per row, before warm-up (kernel cache load or compile), "
            "ms/number of Numba compilations: " + "; ".join(firsts))


def bench_case(name: str, kind: str, make: Callable[[Any], dict[str, Callable[[], Any]]],
               expected: Callable[[], np.ndarray], *, number: int, repeat: int,
               nbytes: int | None = None, target_vs: str | None = None,
               target: float | None = None, rtol: float = 1e-6, atol: float = 0.0,
               after_torch_s: float = GAP_S) -> dict:
    """Time one operation in every available library; `make(ctx)` returns {library: callable}."""
    progress(name)
    fns = make(None)
    reasons = {}
    first_call_s = compiles = None
    exp = expected()
    checked: dict[str, Callable] = {}
    for lib, fn in fns.items():
        if fn is None:
            continue
        try:
            count = compile_counter() if lib == "jtorch" else None
            t0 = time.perf_counter()
            res = fn()
            dt = time.perf_counter() - t0
            if lib == "jtorch":
                first_call_s, compiles = dt, count()
            got = as_numpy(res)
            if got.shape != exp.shape or not np.allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True):
                err = float(np.nanmax(np.abs(got.astype(np.float64) - exp))) if got.shape == exp.shape else None
                raise AssertionError(f"wrong result (shape {got.shape}, max abs err {err})")
            del res, got
            for _ in range(5 if nbytes else 20):  # warm-up: page in, settle thread pools (the first parallel launches are slow)
                fn()
            checked[lib] = fn
        except Exception as e:  # a missing operator or a failure: skip this library, say why
            reasons[lib] = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
    times = time_round_robin(checked, number, repeat, after_torch_s) if checked else {}
    results = {lib: summary(times[lib], nbytes) if lib in times else None for lib in fns}
    extra: dict = {"number": number, "repeat": repeat}
    if first_call_s is not None:
        extra["first_call_s"] = first_call_s
        extra["first_call_compiles"] = compiles
    if reasons:
        extra["reason"] = "; ".join(f"{k}: {v}" for k, v in reasons.items())
    return _row(name, kind, results, target_vs=target_vs, target=target, nbytes=nbytes, extra=extra)


def _missing(name: str, kind: str, reason: str, **kw: Any) -> dict:
    row = _row(name, kind, {}, target_vs=kw.get("target_vs"), target=kw.get("target"), nbytes=None)
    row["status"] = "SKIP"
    row["reason"] = reason
    return row


def run() -> dict:
    import jtorch
    import numba
    torch = try_import_torch()
    rows: list[dict] = []
    rng = np.random.default_rng(0)
    notes = [f"numba threads {numba.get_num_threads()} ({_threading_layer()}), "
             f"torch threads {torch.get_num_threads() if torch else '-'}, NumPy single-threaded; "
             f"{'QUICK mode: small inputs, few repeats' if QUICK else 'full size'}"]

    libs = libraries(torch)

    # -- small: a + b on 4 elements (per-call overhead) -----------------------------------------
    a4 = rng.standard_normal(4, dtype=np.float32)
    b4 = rng.standard_normal(4, dtype=np.float32)
    ja, jb = to_jtorch(a4), to_jtorch(b4)
    ta, tb = (torch.from_numpy(a4), torch.from_numpy(b4)) if torch else (None, None)
    rows.append(bench_case(
        "a + b, 4 f32", "time",
        libs(lambda: a4 + b4, lambda: ja + jb, lambda: ta + tb),
        lambda: a4 + b4, number=200 if QUICK else 2000, repeat=5 if QUICK else 25,
        target_vs="torch" if torch else None, target=5.0))
    # a Python number as the other operand: the CPU-scalar wrapping and promotion of the set-up
    rows.append(bench_case(
        "x * 2, 4 f32", "time",
        libs(lambda: a4 * 2, lambda: ja * 2, lambda: ta * 2),
        lambda: a4 * 2, number=200 if QUICK else 2000, repeat=5 if QUICK else 25,
        target_vs="torch" if torch else None, target=5.0))

    # -- 16M float32 add / mul --------------------------------------------------------------------
    rep_big = 3 if QUICK else 11
    a = rng.standard_normal(N_BIG, dtype=np.float32)
    b = rng.standard_normal(N_BIG, dtype=np.float32)
    ja, jb = to_jtorch(a), to_jtorch(b)
    ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
    out_np = np.empty_like(a)
    jout = to_jtorch(out_np)
    tout = torch.from_numpy(out_np) if torch else None
    nb3 = 3 * a.nbytes
    big = f"{N_BIG // (1 << 20)}M f32"
    for op, npf in (("add", np.add), ("mul", np.multiply)):
        sym = "+" if op == "add" else "*"
        rows.append(bench_case(
            f"{op} {big} (a {sym} b)", "throughput",
            libs(lambda npf=npf: npf(a, b), lambda sym=sym: ja + jb if sym == "+" else ja * jb,
                 lambda sym=sym: ta + tb if sym == "+" else ta * tb),
            lambda npf=npf: npf(a, b), number=1, repeat=rep_big, nbytes=nb3,
            target_vs="numpy", target=1.0))
    for op, npf in (("add", np.add), ("mul", np.multiply)):
        jf = getattr(jtorch, op)
        tf = getattr(torch, op) if torch else None
        rows.append(bench_case(
            f"{op} {big} out=", "throughput",
            libs(lambda npf=npf: npf(a, b, out=out_np), lambda jf=jf: jf(ja, jb, out=jout),
                 lambda tf=tf: tf(ta, tb, out=tout)),
            lambda npf=npf: npf(a, b), number=1, repeat=rep_big, nbytes=nb3,
            target_vs="numpy", target=1.0))
    del jout, tout, out_np

    # -- 4000x4000 broadcast and transpose --------------------------------------------------------
    x = rng.standard_normal((SIDE, SIDE), dtype=np.float32)
    v = rng.standard_normal(SIDE, dtype=np.float32)
    jx, jv = to_jtorch(x), to_jtorch(v)
    tx, tv = (torch.from_numpy(x), torch.from_numpy(v)) if torch else (None, None)
    sq = f"{SIDE}x{SIDE} f32"
    rows.append(bench_case(
        f"{sq} + row vector", "throughput",
        libs(lambda: x + v, lambda: jx + jv, lambda: tx + tv),
        lambda: x + v, number=1, repeat=rep_big, nbytes=2 * x.nbytes + v.nbytes,
        target_vs="numpy", target=1.0))
    rows.append(bench_case(
        f"{sq} x + x.T", "throughput",
        libs(lambda: x + x.T, lambda: jx + jx.T, lambda: tx + tx.T),
        lambda: x + x.T, number=1, repeat=rep_big, nbytes=3 * x.nbytes,
        target_vs="numpy", target=1.0))
    rows.append(bench_case(
        f"{sq} x + x.t()", "throughput",
        libs(lambda: x + x.T, lambda: jx + jx.t(), lambda: tx + tx.t()),
        lambda: x + x.T, number=1, repeat=rep_big, nbytes=3 * x.nbytes,
        target_vs="numpy", target=1.0))
    del jx, jv, tx, tv, x, v

    # -- 16M float32 transcendental functions (reported) ------------------------------------------
    def np_sigmoid(z: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-z))

    with np.errstate(over="ignore"):
        for op, npf in (("exp", np.exp), ("tanh", np.tanh), ("sigmoid", np_sigmoid)):
            name = f"{op} {big}"
            jf = getattr(jtorch, op, None)
            if jf is None:
                rows.append(_missing(name, "throughput", f"jtorch.{op} does not exist yet"))
                continue
            tf = getattr(torch, op) if torch else None
            # reference in float64 then rounded: checks jtorch's accuracy, not NumPy's
            rows.append(bench_case(
                name, "throughput",
                libs(lambda npf=npf: npf(a), lambda jf=jf: jf(ja), lambda tf=tf: tf(ta)),
                lambda npf=npf: npf(a.astype(np.float64)).astype(np.float32),
                number=1, repeat=rep_big, nbytes=2 * a.nbytes, rtol=1e-5, atol=1e-6))
    notes.append(first_calls_note(rows))
    return {"rows": rows, "notes": notes}


def _threading_layer() -> str:
    import numba
    try:
        return "threading layer " + numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return "threading layer not yet chosen"


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "elementwise"])
