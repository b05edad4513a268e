"""Shared by the bench modules: the machine description and the round-robin timer."""
from __future__ import annotations

import gc
import platform
import time
from typing import Any, Callable


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# Idle time before each library's turn. torch and Numba each run their own OpenMP runtime; on 2
# cores, a Numba parallel loop started right after a torch one fought torch's still-spinning
# workers and took up to 12x longer (72 ms instead of 6 ms for the row-vector broadcast),
# an artefact of timing two thread pools in one process. 1 ms of sleep was enough here.
GAP_S = 0.005


def time_round_robin(fns: dict[str, Callable[[], Any]], number: int, repeat: int
                     ) -> dict[str, list[float]]:
    """Seconds per call for each callable: `repeat` rounds of `number` calls, libraries in turn."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for name, fn in fns.items():
                time.sleep(GAP_S)
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                times[name].append((time.perf_counter() - t0) / number)
    finally:
        if gc_was:
            gc.enable()
    return times
