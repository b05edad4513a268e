"""Shared by the bench modules: the machine description and the round-robin timer."""
from __future__ import annotations

import gc
import itertools
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
# torch's OpenMP workers keep spinning after a big parallel call (a 1024x1024 matmul): the next
# library's BLAS matmul still ran 15% slower after 5 ms, not after 50 ms; bench_matmul asks for
# that. Not everywhere: after 50 ms idle, the next 2-thread reduction ran 10-30% slower here.
AFTER_TORCH_MATMUL_S = 0.05


def time_round_robin(fns: dict[str, Callable[[], Any]], number: int, repeat: int,
                     after_torch_s: float = GAP_S) -> dict[str, list[float]]:
    """Seconds per call for each callable: `repeat` rounds of `number` calls, libraries in turn.

    Each round takes the next permutation of the libraries, so each follows each other one
    equally often (a rotation would keep who-follows-whom): a library's thread pool still busy
    after its turn slows whoever comes next (torch's OpenMP workers after its 1024x1024 matmul
    cost the next library's matmul 15% here, unless `after_torch_s` is longer), and a fixed
    order would charge that to one library."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    orders = list(itertools.permutations(fns))
    previous = None
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for r in range(repeat):
            for name in orders[r % len(orders)]:
                fn = fns[name]
                time.sleep(after_torch_s if previous == "torch" else GAP_S)
                previous = name
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                times[name].append((time.perf_counter() - t0) / number)
    finally:
        if gc_was:
            gc.enable()
    return times


# ---- progress: which row is running, and when kernels compile (no silent minute) ----------------
def progress(name: str) -> None:
    """Announce a row before timing it (run_all prints module headers; this names the row)."""
    print(f"   - {name}", flush=True)


_compile_notices = None


def show_compilations() -> None:
    """Print a line whenever Numba starts compiling a kernel (a cold kernel cache compiles each
    kernel once; later runs load them from disk). Installed once per process by run_all."""
    global _compile_notices
    if _compile_notices is not None:
        return
    try:
        from numba.core import event
    except ImportError:
        return

    class _Notice(event.Listener):
        def __init__(self) -> None:
            self.depth = 0

        def on_start(self, ev: Any) -> None:
            self.depth += 1
            if self.depth == 1:  # only the outermost compile: callees compile inside it
                disp = (ev.data or {}).get("dispatcher")
                fn = getattr(disp, "py_func", None)
                mod = (getattr(fn, "__module__", "") or "").rsplit(".", 1)[-1]
                name = f"{mod}.{getattr(fn, '__name__', '?')}" if fn is not None else "a kernel"
                print(f"     compiling {name} (once; later runs load it from the kernel cache)", flush=True)

        def on_end(self, ev: Any) -> None:
            self.depth -= 1

    _compile_notices = _Notice()
    event.register("numba:compile", _compile_notices)


def torch_or_none(_said: list = []) -> Any:  # noqa: B006  (the list remembers that we said it)
    """torch if importable; else None, saying once how to add it (its columns stay empty)."""
    try:
        import torch
        return torch
    except ImportError:
        if not _said:
            _said.append(True)
            print("   note: torch is not installed, so the torch columns are empty. Add it with:\n"
                  "         pip install torch==2.13.0", flush=True)
        return None
