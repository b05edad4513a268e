"""Tensor metadata operations: the per-call cost of making a tensor and of views.

Rows: ``jtorch.empty(4)``, ``t.view(2, 2)`` and ``t[1:]`` on a
4-element tensor, ``t.transpose(0, 1)`` on a 2x2 tensor; NumPy's equivalents (``np.empty(4)``,
``a.reshape(2, 2)``, ``a[1:]``, ``a.T``) and torch's (when installed) in the same run.
Target: jtorch's time <= 5x torch's.

Method: every callable runs once (its result's shape is checked), then ``repeat`` rounds each
time ``number`` back-to-back calls of every library in turn (round robin, so that noise on a
shared machine hits all libraries alike); a row reports the median and min over rounds, and the
ratio of medians jtorch / torch. GC is off while timing.

``run() -> dict`` returns ``{"rows": [...], "notes": [...]}`` (bench/run_all.py's format) and
writes bench/results/tensor.json; ``python bench/bench_tensor.py`` prints the table.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _common import cpu_model, progress, time_round_robin, torch_or_none  # noqa: E402  (bench/ is on sys.path when run)

QUICK = bool(os.environ.get("BENCH_QUICK"))
NUMBER = 2_000 if QUICK else 20_000
REPEAT = 5 if QUICK else 15
TARGET = 5.0  # jtorch time <= 5x torch's
RESULTS = Path(__file__).resolve().parent / "results" / "tensor.json"


def _torch() -> Any:
    return torch_or_none()


def _cases(torch: Any) -> list[tuple[str, tuple, dict[str, Callable[[], Any] | None]]]:
    """(name, expected shape, {library: callable})."""
    import jtorch

    j4 = jtorch.empty(4)
    j22 = jtorch.empty(2, 2)
    a4 = np.empty(4)
    a22 = np.empty((2, 2))
    t4 = torch.empty(4) if torch else None
    t22 = torch.empty(2, 2) if torch else None
    jempty, nempty = jtorch.empty, np.empty
    tempty = torch.empty if torch else None
    return [
        ("empty(4)", (4,), {"jtorch": lambda: jempty(4), "numpy": lambda: nempty(4),
                            "torch": (lambda: tempty(4)) if torch else None}),
        ("t.view(2, 2)", (2, 2), {"jtorch": lambda: j4.view(2, 2), "numpy": lambda: a4.reshape(2, 2),
                                  "torch": (lambda: t4.view(2, 2)) if torch else None}),
        ("t[1:]", (3,), {"jtorch": lambda: j4[1:], "numpy": lambda: a4[1:],
                         "torch": (lambda: t4[1:]) if torch else None}),
        ("t.transpose(0, 1)", (2, 2), {"jtorch": lambda: j22.transpose(0, 1), "numpy": lambda: a22.T,
                                       "torch": (lambda: t22.transpose(0, 1)) if torch else None}),
    ]


def _summary(ts: list[float]) -> dict:
    return {"median_s": statistics.median(ts), "min_s": min(ts), "rounds": len(ts)}


def run(number: int = NUMBER, repeat: int = REPEAT, write: bool = True) -> dict:
    """Time every case; return the rows (and write bench/results/tensor.json)."""
    torch = _torch()
    rows = []
    for name, shape, fns in _cases(torch):
        progress(name)
        live = {}
        reasons = []
        for lib, fn in fns.items():
            if fn is None:
                continue
            try:
                got = tuple(fn().shape)
                if got != shape:
                    raise AssertionError(f"shape {got}, expected {shape}")
                for _ in range(100):  # warm up
                    fn()
                live[lib] = fn
            except Exception as e:  # an operator missing or broken: report the row without it
                reasons.append(f"{lib}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
        times = time_round_robin(live, number, repeat)
        res = {lib: _summary(times[lib]) if lib in times else None for lib in ("jtorch", "numpy", "torch")}
        jt, th, nps = res["jtorch"], res["torch"], res["numpy"]
        vs_torch = jt["median_s"] / th["median_s"] if jt and th else None
        row = {"name": name, "group": "tensor", "kind": "time", "better": "lower",
               "jtorch": jt, "numpy": nps, "torch": th,
               "ratio": vs_torch, "ratio_vs": "torch", "vs_torch": vs_torch,
               "vs_numpy": jt["median_s"] / nps["median_s"] if jt and nps else None,
               "target": {"op": "<=", "value": TARGET, "vs": "torch", "text": f"time <= {TARGET:g}x torch"},
               "status": "SKIP" if vs_torch is None else ("PASS" if vs_torch <= TARGET else "MISS"),
               "number": number, "repeat": repeat}
        if reasons:
            row["reason"] = "; ".join(reasons)
        rows.append(row)
    notes = [f"per-call time, median of {repeat} rounds x {number} calls (round robin); ratio = jtorch / torch"]
    out = {"benchmark": "tensor", "rows": rows, "notes": notes,
           "machine": {"cpu": cpu_model(), "python": platform.python_version(),
                       "torch": getattr(torch, "__version__", None), "numpy": np.__version__,
                       "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None},
           "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    return out


def _us(r: dict | None) -> str:
    return "-" if r is None else f"{r['median_s'] * 1e6:.2f} ({r['min_s'] * 1e6:.2f})"


def print_table(out: dict) -> None:
    print(f"{'operation':<20} {'jtorch us':>14} {'torch us':>14} {'numpy us':>14} {'jt/torch':>9}  target")
    for r in out["rows"]:
        ratio = "-" if r["vs_torch"] is None else f"{r['vs_torch']:.2f}x"
        print(f"{r['name']:<20} {_us(r['jtorch']):>14} {_us(r['torch']):>14} {_us(r['numpy']):>14} {ratio:>9}  "
              f"{r['target']['text']}: {r['status']}")
        if r.get("reason"):
            print(f"    {r['reason']}")
    for n in out["notes"]:
        print(n)
    print(f"machine: {out['machine']['cpu']}, load {out['machine']['loadavg_1_5_15']}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    result = run()
    print_table(result)
    print(f"wrote {RESULTS}")
