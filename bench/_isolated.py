"""Time one case in one worker process per library, interleaved (POSIX: select on pipes).

Why: in one process jtorch and torch bring two OpenMP runtimes (torch's bundled libgomp and the
system one Numba's pool uses) plus NumPy's OpenBLAS pool, and they slow each other down (the
autograd MLP row: jtorch 1430 us and torch 2000 us in one process, 640-750 us and 450-650 us
each alone). Users never load both, so a row can time each library in its own process.

Protocol (one JSON object per line; the worker's replies go on a private copy of its stdout,
and its fd 1 is pointed at stderr so that prints from the libraries cannot break the protocol):
  parent -> worker  {"op": "build", "case": "module:function", "lib": ..., "args": {...},
                     "sys_path": [...], "warmup": W}
      the worker imports `module` and calls ``function(lib, **args)``, which imports its
      library, builds its inputs from a fixed seed, checks one result against NumPy (raising
      when wrong) and returns the step callable; the worker then calls it W more times
  parent -> worker  {"op": "time", "number": N, "warm": W}   -> W untimed calls (the turn's
                     thread pools wake and its caches fill, as in a loop that runs on), then
                     N back-to-back timed calls, GC off
  worker -> parent  {"ok": true, "s": seconds per call} or {"ok": false, "reason": "..."}
The parent runs the rounds: each round asks every live worker in turn (the next permutation of
the libraries, as _common.time_round_robin does, with GAP_S idle before each turn) and waits
for the answer, so only one worker runs at a time. A worker answers only once its own thread
pools have stopped spinning (_wait_idle: OpenBLAS's workers spin ~110 ms after a matmul here, a
whole core that the next worker would otherwise not have), so they never compete for the cores. A
worker that fails (library missing, wrong result, crash, timeout) gets a reason string instead
of timings; every worker is killed when the parent is done, whatever happened.
"""
from __future__ import annotations

import gc
import importlib
import itertools
import json
import os
import select
import subprocess
import sys
import time
from typing import Any, Callable, Sequence

from _common import GAP_S


def _reason(e: BaseException) -> str:
    msg = str(e).splitlines()[0][:120] if str(e) else ""
    return f"{type(e).__name__}: {msg}"


class _Worker:
    """One worker subprocess and its pipes."""

    def __init__(self, lib: str) -> None:
        self.lib = lib
        # stderr is inherited: a worker's tracebacks and warnings show up in the parent's console
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def recv(self, timeout_s: float) -> dict:
        out = self.proc.stdout
        assert out is not None
        # one reply per request, so nothing waits in the text buffer: select on the fd is enough
        if not select.select([out], [], [], timeout_s)[0]:
            raise TimeoutError(f"no answer in {timeout_s:g} s")
        line = out.readline()
        if not line:
            raise EOFError(f"worker exited with code {self.proc.wait()}")
        return json.loads(line)

    def ask(self, msg: dict, timeout_s: float) -> dict:
        self.send(msg)
        reply = self.recv(timeout_s)
        if not reply.get("ok"):
            raise RuntimeError(reply.get("reason", "worker failed"))
        return reply

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()


# Untimed calls at the start of each turn. A worker starts its turn after 150 ms or more idle
# (its own and the other worker's pools must stop spinning), and this machine then takes about
# ten MLP steps to come back to speed, for both libraries (2026-11-25, median per step of 15
# turns after 150 ms idle, steps 1, 2, 3, 5, 10, 20: torch 1361, 691, 613, 502, 469, 435 us;
# jtorch 1500, 862, 739, 677, 634, 614 us). With 3 untimed calls, the timed ones still carried
# that ramp; a loop that runs on has left it long before.
TURN_WARMUP = 10


def time_isolated(case: str, libs: Sequence[str], args: dict[str, Any], number: int, repeat: int, *,
                  warmup: int = 10, turn_warmup: int = TURN_WARMUP, gap_s: float = GAP_S, build_timeout_s: float = 900.0,
                  timeout_s: float = 120.0) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Seconds per call of ``case(lib, **args)``'s step for each lib, each in its own process.

    `case` is "module:function" (a module on this process's sys.path); `args` must be JSON.
    Returns (times, reasons): `repeat` per-round timings for each library that built and ran,
    and a reason string for each that did not. The workers build at the same time (nothing is
    timed then); the rounds then run one worker at a time."""
    times: dict[str, list[float]] = {}
    reasons: dict[str, str] = {}
    workers: dict[str, _Worker] = {}
    try:
        for lib in libs:
            try:
                workers[lib] = _Worker(lib)
                workers[lib].send({"op": "build", "case": case, "lib": lib, "args": args,
                                   "sys_path": sys.path, "warmup": warmup})
            except OSError as e:
                reasons[lib] = _reason(e)
        for lib, w in list(workers.items()):
            try:
                reply = w.recv(build_timeout_s)
                if not reply.get("ok"):
                    raise RuntimeError(reply.get("reason", "worker failed"))
                times[lib] = []
            except Exception as e:
                reasons[lib] = str(e) if isinstance(e, RuntimeError) else _reason(e)
        orders = list(itertools.permutations(times))
        for r in range(repeat if times else 0):
            for lib in orders[r % len(orders)]:
                if lib in reasons:  # failed in an earlier round
                    continue
                time.sleep(gap_s)  # the previous worker's thread pools go idle (see GAP_S)
                try:
                    reply = workers[lib].ask({"op": "time", "number": number, "warm": turn_warmup}, timeout_s)
                    times[lib].append(float(reply["s"]))
                except Exception as e:
                    reasons[lib] = str(e) if isinstance(e, RuntimeError) else _reason(e)
    finally:
        for w in workers.values():
            w.kill()
    return {lib: ts for lib, ts in times.items() if lib not in reasons}, reasons


# ---- the worker side --------------------------------------------------------------------------

def _wait_idle(slice_s: float = 0.02, max_s: float = 1.0) -> None:
    """Sleep until this process's threads stop burning CPU, so that the next worker's turn has the
    cores to itself: after the MLP step, NumPy's OpenBLAS workers (jtorch's matmul) spin for about
    110 ms and torch's OpenMP workers for about 10 ms, far past GAP_S. A slice counts as idle when
    the process used under a quarter of it (process_time may tick in 4 ms steps)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < max_s:
        c0 = time.process_time()
        time.sleep(slice_s)
        if time.process_time() - c0 < slice_s / 4:
            return


def _worker() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)  # replies only
    os.dup2(2, 1)  # anything else written to stdout (a library's prints, C code) goes to stderr
    sys.stdout = sys.stderr
    step: Callable[[], Any] | None = None
    for line in sys.stdin:  # EOF (the parent closed the pipe or died): exit
        msg = json.loads(line)
        try:
            if msg["op"] == "build":
                sys.path[:] = list(dict.fromkeys(msg["sys_path"] + sys.path))  # the parent's modules first
                mod, _, fn = msg["case"].partition(":")
                step = getattr(importlib.import_module(mod), fn)(msg["lib"], **msg["args"])
                for _ in range(msg["warmup"]):
                    step()
                _wait_idle()
                reply: dict[str, Any] = {"ok": True}
            elif msg["op"] == "time":
                assert step is not None, "time before build"
                n = int(msg["number"])
                for _ in range(int(msg.get("warm", 0))):
                    step()
                gc.disable()  # as time_round_robin: no collection inside the timed calls (it
                # runs between batches, untimed, when the next message is parsed)
                try:
                    t0 = time.perf_counter()
                    for _ in range(n):
                        step()
                    reply = {"ok": True, "s": (time.perf_counter() - t0) / n}
                finally:
                    gc.enable()
                _wait_idle()  # untimed: only then does the parent start the next turn
            else:
                reply = {"ok": False, "reason": f"unknown op {msg['op']!r}"}
        except Exception as e:  # say why this library has no number
            reply = {"ok": False, "reason": _reason(e)}
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    _worker()
