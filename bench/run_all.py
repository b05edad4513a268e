"""Run every benchmark module in one process, print one table, save JSON (and a plot).

    python bench/run_all.py                      # everything (a few minutes on 2 cores)
    python bench/run_all.py --only elementwise   # one module (names without "bench_")
    BENCH_QUICK=1 python bench/run_all.py        # smoke test: small inputs, few repeats

Writes bench/results/results.json (rows + machine info) and, when matplotlib is importable,
bench/results/results.png (bench/plot.py). A module that is missing or fails is skipped with
the reason printed; the others still run. Row format: bench/README.md.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from typing import Any
from _common import cpu_model, show_compilations, torch_or_none  # noqa: E402  (bench/ is on sys.path when run)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODULES = ["elementwise", "reductions", "scans", "matmul", "joining", "indexing", "sorting", "comparing", "autograd", "nn",
           "threads", "startup", "dispatcher", "tensor", "cuda", "statistics", "random",
           "sdpa", "recurrent", "attention"]
for p in (HERE, ROOT):  # run as a script from anywhere; jtorch from this checkout if not installed
    if p not in sys.path:
        sys.path.insert(0 if p == HERE else len(sys.path), p)


# ---------------------------------------------------------------------------------------------
# machine description

def _version(mod: str) -> str | None:
    try:
        return importlib.import_module(mod).__version__
    except Exception:
        return None


def machine_info() -> dict:
    info: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": _version("numpy"), "numba": _version("numba"), "torch": _version("torch"),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    if hasattr(os, "getloadavg"):  # other work on a shared machine shows up here
        info["loadavg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    try:
        with open("/proc/meminfo") as f:
            info["mem_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        import numba
        info["numba_threads"] = numba.get_num_threads()
        info["numba_threading_layer"] = numba.threading_layer()
    except Exception:
        pass
    try:
        import torch
        info["torch_threads"] = torch.get_num_threads()
    except Exception:
        pass
    try:  # read-only: which commit the figures belong to
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True, timeout=5).stdout.strip()
        info["tree_dirty"] = bool(subprocess.run(["git", "-C", ROOT, "status", "--porcelain"],
                                                 capture_output=True, text=True, timeout=5).stdout.strip())
    except Exception:
        pass
    return info


# ---------------------------------------------------------------------------------------------
# rows: accept bench/README.md's format, and simpler shapes from other modules

def normalize(module: str, result: Any) -> tuple[list[dict], list[str]]:
    """Rows and notes from a module's run() result."""
    notes: list[str] = []
    if isinstance(result, dict) and isinstance(result.get("rows"), list):
        rows, notes = result["rows"], list(result.get("notes", []))
    elif isinstance(result, dict) and isinstance(result.get("results"), dict):
        rows, notes = _from_timings(module, result)
    elif isinstance(result, list):
        rows = result
    elif isinstance(result, dict):
        rows = []
        for k, v in result.items():
            if isinstance(v, dict):
                r = dict(v)
                r.setdefault("name", str(k))
            elif isinstance(v, (int, float)):
                r = {"name": str(k), "jtorch": v}
            else:
                r = {"name": str(k), "value": str(v)}
            rows.append(r)
    else:
        raise TypeError(f"run() returned {type(result).__name__}, expected a dict")
    out = []
    for r in rows:
        r = dict(r)
        r.setdefault("group", module)
        if "status" not in r:
            if isinstance(r.get("pass"), bool):
                r["status"] = "PASS" if r["pass"] else "MISS"
            else:
                r["status"] = "report"
        out.append(r)
    return out, notes


LIBS = ("jtorch", "numpy", "torch")


def _from_timings(module: str, result: dict) -> tuple[list[dict], list[str]]:
    """Rows from {"results": {"<lib>_<what>": {"median_us", "min_us"}}, "target_us",
    "meets_target", "ratio_to_<x>": r} (bench_dispatcher's shape): one row per timing, in the
    column its prefix names (others are context rows); the target goes on the first jtorch row."""
    rows: list[dict] = []
    target_done = False
    for key, v in result["results"].items():
        if not isinstance(v, dict) or "median_us" not in v:
            continue
        lib, _, what = key.partition("_")
        col = lib if lib in LIBS else "jtorch"
        cell = {"median_s": v["median_us"] * 1e-6, "min_s": v.get("min_us", v["median_us"]) * 1e-6}
        row: dict[str, Any] = {"name": f"{key}" if lib in LIBS else f"{key} (context)",
                               col: cell, "kind": "time", "better": "lower"}
        if lib == "jtorch" and not target_done and "target_us" in result:
            target_done = True
            row["target"] = {"op": "<=", "value": result["target_us"] * 1e-6, "absolute": True,
                             "text": f"<= {result['target_us']:g} us"}
            if isinstance(result.get("meets_target"), bool):
                row["status"] = "PASS" if result["meets_target"] else "MISS"
            if isinstance(result.get("ratio_to_torch_add"), (int, float)):
                row["vs_torch"] = result["ratio_to_torch_add"]
        rows.append(row)
    notes = [f"{k} = {v:.3g}" for k, v in result.items()
             if k.startswith("ratio") and isinstance(v, (int, float))]
    if result.get("what"):
        notes.insert(0, str(result["what"]))
    return rows, notes


def _fmt_time(s: float, unit_of: float | None = None) -> str:
    ref = s if unit_of is None else unit_of
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if ref >= scale or scale == 1e-9:
            v = s / scale
            txt = f"{v:.3g}" if v < 100 else f"{v:.0f}"
            return txt if unit_of is not None else f"{txt} {unit}"
    return str(s)


def fmt_cell(v: Any, row: dict) -> str:
    if v is None:
        return "-"
    if isinstance(v, dict):
        if "gbps" in v:
            return f"{v['gbps']:.1f} GB/s ({v['gbps_best']:.1f})"
        if "peak_bytes" in v:  # a memory row: its cells hold bytes (ranked through median_s)
            return f"{v['peak_bytes'] / 1e6:.1f} MB"
        if "median_s" in v:
            med = v["median_s"]
            return f"{_fmt_time(med)} ({_fmt_time(v['min_s'], med)})" if "min_s" in v else _fmt_time(med)
        return json.dumps(v)[:24]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    unit = row.get("unit")
    if unit in (None, "s"):
        return _fmt_time(float(v))
    return f"{v:.3g} {unit}"


def _fmt_ratio(v: Any) -> str:
    return f"{v:.2f}x" if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def _fmt_target(t: Any) -> str:
    if t is None:
        return "-"
    if isinstance(t, dict):
        return str(t.get("text") or f"{t.get('op', '')} {t.get('value', '')}")
    return str(t)


COLUMNS = ("name", "jtorch", "numpy", "torch", "ratio", "vs torch", "target", "result")


def table(rows: list[dict]) -> str:
    """One fixed-width table; a row's reason (a skip, a failure, how it was judged) follows under it."""
    cells = [[str(r.get("name", "?")), fmt_cell(r.get("jtorch"), r), fmt_cell(r.get("numpy"), r),
              fmt_cell(r.get("torch"), r),
              _fmt_ratio(r.get("ratio")) + (f" {r['ratio_vs']}" if r.get("ratio") is not None
                                            and r.get("ratio_vs") else ""),
              _fmt_ratio(r.get("vs_torch")), _fmt_target(r.get("target")), str(r.get("status", ""))]
             for r in rows]
    widths = [max(len(c[i]) for c in cells + [list(COLUMNS)]) for i in range(len(COLUMNS))]
    line = lambda c: "  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip()  # noqa: E731
    out = [line(list(COLUMNS)), line(["-" * w for w in widths])]
    group = None
    for r, c in zip(rows, cells):
        if r.get("group") != group:
            group = r.get("group")
            out.append(f"[{group}]")
        out.append(line(c))
    notes = [f"  {r.get('name')}: {r['reason']}" for r in rows if r.get("reason")]
    if notes:
        out += ["", "about these rows:"] + notes
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[],
                    help=f"module(s) to run, of {', '.join(MODULES)} (repeat or comma-separate)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="results directory")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    only = [m for o in args.only for m in o.split(",") if m]
    names = only or MODULES

    t_all = time.perf_counter()
    show_compilations()  # a cold kernel cache compiles for minutes: say which kernel, as it happens
    if torch_or_none() is None:
        pass  # said once, with the install command; the torch columns stay empty
    rows: list[dict] = []
    notes: list[str] = []
    modules: dict[str, dict] = {}
    for name in names:
        t0 = time.perf_counter()
        print(f"== bench_{name} ...", flush=True)
        try:
            mod = importlib.import_module(f"bench_{name}")
        except ModuleNotFoundError as e:
            if e.name != f"bench_{name}":
                raise
            modules[name] = {"status": "skipped", "reason": f"bench/bench_{name}.py not present"}
            print(f"   skipped: bench/bench_{name}.py not present", flush=True)
            continue
        except Exception as e:
            modules[name] = {"status": "failed", "reason": f"import: {type(e).__name__}: {e}"}
            print(f"   skipped: importing bench_{name} failed:\n{traceback.format_exc()}", flush=True)
            continue
        try:
            mrows, mnotes = normalize(name, mod.run())
        except Exception as e:
            modules[name] = {"status": "failed", "reason": f"{type(e).__name__}: {e}",
                             "seconds": time.perf_counter() - t0}
            print(f"   skipped: bench_{name}.run() failed:\n{traceback.format_exc()}", flush=True)
            continue
        rows += mrows
        notes += [f"{name}: {n}" for n in mnotes]
        modules[name] = {"status": "ok", "seconds": round(time.perf_counter() - t0, 1)}
        print(f"   {len(mrows)} rows in {time.perf_counter() - t0:.1f} s", flush=True)

    machine = machine_info()  # after the runs: numba's threading layer is chosen by then
    print()
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, python {machine['python']}, "
          f"numpy {machine['numpy']}, numba {machine['numba']}, torch {machine['torch']}; "
          f"{machine['date']}")
    print("cells: median over rounds (best in parentheses); ratio: time ratio when the target is "
          "on time, throughput ratio (jtorch GB/s / other's) otherwise")
    print()
    print(table(rows))
    if notes:
        print()
        print("\n".join(notes))
    total = time.perf_counter() - t_all
    print(f"\ntotal {total:.0f} s")

    result = {"machine": machine, "modules": modules, "rows": rows, "notes": notes,
              "seconds": round(total, 1)}
    os.makedirs(args.out, exist_ok=True)
    name = "results" if not only else "results-" + "-".join(only)
    path = os.path.join(args.out, name + ".json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1, default=str)
    print(f"wrote {os.path.relpath(path)}")
    if not args.no_plot:
        import plot
        png = plot.plot(result, os.path.join(args.out, name + ".png"))
        print(f"wrote {os.path.relpath(png)}" if png else "no plot: matplotlib is not importable, or no row has a ratio")
    return result


if __name__ == "__main__":
    main()
