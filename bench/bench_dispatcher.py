"""Time the dispatcher alone: a no-op operator with two tensor arguments.

    python bench/bench_dispatcher.py            # prints a table, writes bench/results/dispatcher.json

`run()` returns the same numbers as a dict (for bench/run_all.py). The operator is
`<ns>::noop(Tensor a, Tensor b) -> Tensor` with a kernel at CPU that returns its first argument;
the arguments are stand-in tensors carrying a plain CPU tensor's key set (CPU, ADInplaceOrView,
AutogradCPU, AutocastCPU), so every call does the full work of Dispatcher::call: key extraction,
TLS include/exclude, the fallthrough mask (BackendSelect, ADInplaceOrView, AutogradCPU, AutocastCPU
are all skipped), the table lookup and the kernel call. For context the same run times an empty
two-argument Python function (the floor for any Python-level dispatch) and, when torch is
importable, torch's `a + b` on 4-element tensors.
"""
from __future__ import annotations

import itertools
import json
import os
import platform
import statistics
import sys
import time
import timeit
from pathlib import Path
from _common import cpu_model  # noqa: E402  (bench/ is on sys.path when run)

NUMBER = 100_000
REPEAT = 15
TARGET_US = 1.0
RESULTS = Path(__file__).resolve().parent / "results" / "dispatcher.json"

_counter = itertools.count()


class _StandIn:
    """What the dispatcher reads from a tensor: its key set."""

    __slots__ = ("_key_set",)

    def __init__(self, key_set: int) -> None:
        self._key_set = key_set


def _per_call_us(stmt: str, env: dict, number: int, repeat: int) -> dict:
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(number=min(number, 10_000))  # warm up
    samples = [t / number * 1e6 for t in timer.repeat(repeat=repeat, number=number)]
    return {"median_us": statistics.median(samples), "min_us": min(samples), "samples_us": samples}


def run(number: int = NUMBER, repeat: int = REPEAT, write: bool = True) -> dict:
    """Time jtorch's dispatcher (and the context numbers); return and optionally save them."""
    import jtorch
    from jtorch.keyset import DispatchKey as DK
    from jtorch.keyset import DispatchKeySet
    from jtorch.library import Library

    ns = f"jt_bench_{os.getpid()}_{next(_counter)}"
    lib = Library(ns, "DEF")
    try:
        lib.define("noop(Tensor a, Tensor b) -> Tensor")
        lib.impl("noop", lambda a, b: a, "CPU")
        keys = int(DispatchKeySet([DK.CPU, DK.ADInplaceOrView, DK.AutogradCPU, DK.AutocastCPU]))
        a, b = _StandIn(keys), _StandIn(keys)
        op = getattr(jtorch.ops, ns).noop.default
        assert op(a, b) is a, "the no-op kernel was not reached"
        if jtorch.dispatcher._trace or jtorch.dispatcher._observers:
            print("warning: dispatch trace or observers are on; timing the instrumented path", file=sys.stderr)
        results = {"jtorch_noop": _per_call_us("op(a, b)", {"op": op, "a": a, "b": b}, number, repeat)}
    finally:
        lib._destroy()

    def py_floor(x, y):
        return x

    results["python_call"] = _per_call_us("f(a, b)", {"f": py_floor, "a": 1, "b": 2}, number, repeat)
    torch_version = None
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch_version = torch.__version__
        ta, tb = torch.ones(4), torch.ones(4)
        results["torch_add_4"] = _per_call_us("a + b", {"a": ta, "b": tb}, number, repeat)

    med = results["jtorch_noop"]["median_us"]
    out = {
        "benchmark": "dispatcher",
        "what": "jtorch.ops.<ns>.noop.default(a, b): two stand-in CPU tensors, kernel at CPU returns a",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpu": cpu_model(), "python": platform.python_version(), "platform": platform.platform()},
        "torch_version": torch_version,
        "timeit": {"number": number, "repeat": repeat},
        "results": results,
        "target_us": TARGET_US,
        "meets_target": med <= TARGET_US,
        "ratio_to_python_call": med / results["python_call"]["median_us"],
        "ratio_to_torch_add": (med / results["torch_add_4"]["median_us"]) if "torch_add_4" in results else None,
    }
    if write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    return out


def _print_table(out: dict) -> None:
    rows = [("jtorch dispatcher, no-op op(a, b)", "jtorch_noop"),
            ("Python call f(a, b) (floor)", "python_call"),
            ("torch a + b, 4 elements", "torch_add_4")]
    print(f"{'benchmark':<36} {'median µs':>10} {'min µs':>8}")
    for label, key in rows:
        r = out["results"].get(key)
        if r is not None:
            print(f"{label:<36} {r['median_us']:>10.3f} {r['min_us']:>8.3f}")
    t = out["timeit"]
    print(f"timeit number={t['number']} repeat={t['repeat']}; machine: {out['machine']['cpu']}, "
          f"Python {out['machine']['python']}")
    if out["ratio_to_torch_add"] is not None:
        print(f"jtorch no-op / torch add: {out['ratio_to_torch_add']:.2f}x")
    print(f"jtorch no-op / Python call: {out['ratio_to_python_call']:.2f}x")
    verdict = "meets" if out["meets_target"] else "MISSES"
    print(f"target <= {out['target_us']} µs per call (median): {verdict}")


def main() -> int:
    out = run()
    _print_table(out)
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
