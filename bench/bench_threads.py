"""Thread policy: jtorch's parallel loops on a busy machine and beside NumPy's BLAS pool.

Rows and targets (see bench/README.md):
  * ``a + b`` on 100k, 4M and 16M float32 tensors, machine as found ("idle" rows, for comparison;
    target for 16M: GB/s >= NumPy's, as in bench_elementwise);
  * the same ``a + b`` on 100k and 4M float32 while every core is kept busy by another process
    (``python -c "while True: pass"``, one per usable core, started and stopped here): the
    time ratio to NumPy in the WORST of three repeats (target <= 1.25x); beside the 100k row, a
    report row times a skeletal Python dispatch of the same loop in the same rounds (a binding, a
    key-set table, an autograd check, allocation: what any Python dispatcher costs at least);
  * a loop alternating a 256x256 float32 matmul with a 1M-element ``a + b``, 100 times, against
    the sum of each loop alone (target <= 1.25x, worst of three repeats). The matmul is
    ``jtorch.matmul`` when it exists, else ``np.matmul`` on the tensors' ``.numpy()`` views (the
    same BLAS call jtorch's float matmul makes); the row's name says which. The NumPy column is
    the same loop with ``np.add`` (context: NumPy alone has one pool).

Method: jtorch and NumPy are timed on the same buffers, interleaved: each repeat is many rounds,
each round a batch of jtorch calls then a batch of NumPy calls (order swapped every round), so
load changes hit both alike; a repeat's figure is its total time over its calls. Busy rows warm
up under load first (that is when the serial fallback learns). The alternating row's repeat is
6 rounds of the three 100-iteration loops (add alone, matmul alone, alternating) in rotating
order, 20 ms apart. GC is off while timing the add rows.

    python bench/bench_threads.py              # this module alone (writes results-threads.json)
    BENCH_QUICK=1 python bench/bench_threads.py
    BENCH_NO_FALLBACK=1 ...                    # measure without the busy-machine fallback
    BENCH_CHUNKS_PER_THREAD=4 ...              # measure more chunks than threads
"""
from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import time
from typing import Any, Callable, Iterator

import numpy as np

from bench_elementwise import to_jtorch  # noqa: E402  (bench/ is on sys.path when run)

QUICK = bool(os.environ.get("BENCH_QUICK"))
NO_FALLBACK = bool(os.environ.get("BENCH_NO_FALLBACK"))
PER_THREAD = int(os.environ.get("BENCH_CHUNKS_PER_THREAD", "1"))
REPEATS = 3
REPEAT_S = 0.15 if QUICK else 0.6    # seconds of each library's calls per repeat
BATCH_S = 0.004                      # seconds per batch of calls within a round
ALT_ROUNDS = 2 if QUICK else 6       # rounds of (add loop, matmul loop, alternating loop) per repeat


def _say(msg: str) -> None:
    print(f"   {msg}", file=sys.stderr, flush=True)


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


@contextlib.contextmanager
def busy_cores(n: int) -> Iterator[list[subprocess.Popen]]:
    """`n` processes spinning in pure Python, stopped on exit (whatever happens)."""
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                          stdin=subprocess.DEVNULL))
        time.sleep(0.3)  # let them reach the scheduler's steady state
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def _per_call(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return max(time.perf_counter() - t0, 1e-7)


def interleaved(fns: dict[str, Callable[[], Any]], seconds: float) -> dict[str, float]:
    """Seconds per call of each callable over about `seconds` of its calls, in rounds of small
    batches, libraries alternating (order swapped every round)."""
    number = {k: max(1, int(BATCH_S / _per_call(f))) for k, f in fns.items()}
    total = {k: 0.0 for k in fns}
    calls = {k: 0 for k in fns}
    names = list(fns)
    gc_was = gc.isenabled()
    gc.disable()
    try:
        r = 0
        while min(total.values()) < seconds:
            for k in (names if r % 2 == 0 else names[::-1]):
                f, n = fns[k], number[k]
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                total[k] += time.perf_counter() - t0
                calls[k] += n
            r += 1
    finally:
        if gc_was:
            gc.enable()
    return {k: total[k] / calls[k] for k in fns}


def _warm(fns: dict[str, Callable[[], Any]], seconds: float) -> None:
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for f in fns.values():
            f()


def _cell(ts: list[float], nbytes: int | None = None) -> dict:
    med = float(np.median(ts))
    out = {"median_s": med, "min_s": float(min(ts)), "rounds": len(ts), "repeats_s": ts}
    if nbytes:
        out["gbps"], out["gbps_best"] = nbytes / med / 1e9, nbytes / min(ts) / 1e9
    return out


def _late() -> int:
    from jtorch.kernels.cpu import threads
    return getattr(threads, "late_launches", 0)


def _reset() -> None:
    from jtorch.kernels.cpu import threads
    if hasattr(threads, "reset"):  # each row starts with no serial period
        threads.reset()


def _floor_add(a: np.ndarray, b: np.ndarray) -> "Callable[[], Any] | None":
    """`a + b` through a skeletal Python dispatch: a binding, a key-set table lookup, an autograd
    check, then jtorch's own compiled loop into a fresh array wrapped in a slotted record. It makes
    none of the checks (shapes, dtypes, devices, strides, overlap) nor any of TensorIterator's
    decisions: what any Python dispatcher costs at least, to read jtorch's row against."""
    import threading
    from jtorch.kernels import scalar_binary
    from jtorch.kernels.cpu import loops

    # add's contiguous kernels keyed (scalar fn, operand bits, ...): 0b1111 is a leading 1, then the
    # output and both inputs arrays (loops.arrays_runner), the kernel jtorch's `a + b` runs
    k = next((v for key, v in loops._kernels.items() if key[0] is scalar_binary.add and key[1] == 0b1111), None)
    if k is None:
        return None
    one, n = np.float32(1), a.shape[0]
    tls = threading.local()
    tls.included, tls.excluded, tls.grad = 0, -1, True

    class Rec:
        __slots__ = ("data", "ks", "requires_grad")

        def __init__(self, data: np.ndarray) -> None:
            self.data, self.ks, self.requires_grad = data, 0b1010, False

    def cpu(x: Rec, y: Rec) -> Rec:
        o = np.empty(n, np.float32)
        k.contig(0, n, o, 0, x.data, 0, y.data, 0, one)
        return Rec(o)

    def autograd(ks: int, x: Rec, y: Rec) -> Rec:
        if tls.grad and (x.requires_grad or y.requires_grad):
            raise NotImplementedError
        return table[(ks & 0b0011).bit_length()](x, y)

    table = [None, None, cpu, None, autograd]

    def call(x: Rec, y: Rec) -> Rec:
        ks = (x.ks | y.ks | tls.included) & tls.excluded
        return table[ks.bit_length()](ks, x, y)

    ra, rb = Rec(a), Rec(b)
    assert np.array_equal(call(ra, rb).data, a + b)
    return lambda: call(ra, rb) if isinstance(rb, Rec) else None


def _add_row(n: int, busy: int, rng: np.random.Generator, floor: bool = False) -> "dict | list[dict]":
    """`a + b` on n float32: jtorch vs NumPy, `busy` spinning processes beside; with `floor`, also
    a report row for the skeletal dispatch of `_floor_add`, timed in the same rounds."""
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    ja, jb = to_jtorch(a), to_jtorch(b)
    got = (ja + jb).numpy()
    assert np.array_equal(got, a + b), "jtorch a + b differs from NumPy"
    fns = {"jtorch": lambda: ja + jb, "numpy": lambda: a + b}
    skeletal = _floor_add(a, b) if floor else None
    if skeletal is not None:
        fns["floor"] = skeletal
    _warm(fns, 0.05)  # kernel load, page-in
    size = f"{n / 1e6:g}M" if n >= 1e6 else f"{n // 1000}k"
    name = f"a + b, {size} f32, " + (f"{busy} busy processes" if busy else "machine as found")
    _say(f"{name} (load {_load()}) ...")
    _reset()
    late0 = _late()
    load0 = _load()
    reps: dict[str, list[float]] = {k: [] for k in fns}
    with busy_cores(busy) if busy else contextlib.nullcontext():
        if busy:
            _warm(fns, 0.3)  # the fallback learns here, as it would in a real run
        for _ in range(REPEATS):
            t = interleaved(fns, REPEAT_S)
            for k in reps:
                reps[k].append(t[k])
    ratios = [j / p for j, p in zip(reps["jtorch"], reps["numpy"])]
    nbytes = 3 * a.nbytes
    row: dict[str, Any] = {"name": name, "group": "threads", "nbytes": nbytes,
                           "jtorch": _cell(reps["jtorch"], None if busy else nbytes),
                           "numpy": _cell(reps["numpy"], None if busy else nbytes), "torch": None,
                           "repeat_ratios": [round(r, 3) for r in ratios],
                           "late_launches": _late() - late0, "load_before": load0, "load_after": _load()}
    if busy:  # time ratio, worst repeat
        row.update(kind="time", better="lower", ratio=max(ratios), ratio_vs="numpy",
                   target={"op": "<=", "value": 1.25, "vs": "numpy",
                           "text": "time <= 1.25x numpy, worst of 3 repeats"})
        row["status"] = "PASS" if max(ratios) <= 1.25 else "MISS"
    else:  # throughput ratio (higher is better), median repeat
        r = float(np.median(reps["numpy"]) / np.median(reps["jtorch"]))
        row.update(kind="throughput", better="higher", ratio=r, ratio_vs="numpy")
        if n >= 16_000_000:
            row["target"] = {"op": ">=", "value": 1.0, "vs": "numpy", "text": "GB/s >= 1x numpy"}
            row["status"] = "PASS" if r >= 1.0 else "MISS"
        else:
            row["target"], row["status"] = None, "report"
    _say(f"  jtorch/numpy per repeat: {', '.join(f'{x:.2f}' for x in ratios)}; "
         f"late parallel launches {row['late_launches']}")
    if "floor" not in reps:
        return row
    fr = [f / p for f, p in zip(reps["floor"], reps["numpy"])]
    _say(f"  skeletal dispatch/numpy per repeat: {', '.join(f'{x:.2f}' for x in fr)}")
    return [row, {"name": name + ", skeletal Python dispatch (no checks; the floor)", "group": "threads",
                  "kind": "time", "better": "lower", "jtorch": _cell(reps["floor"]), "numpy": row["numpy"],
                  "torch": None, "ratio": max(fr), "ratio_vs": "numpy", "target": None, "status": "report",
                  "repeat_ratios": [round(x, 3) for x in fr]}]


def _alternating_row(rng: np.random.Generator) -> dict:
    """100 x (256x256 f32 matmul; 1M a + b) against the two loops alone."""
    import jtorch
    n, side, iters = 1 << 20, 256, 100
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    A = rng.standard_normal((side, side), dtype=np.float32)
    B = rng.standard_normal((side, side), dtype=np.float32)
    ja, jb, jA, jB = to_jtorch(a), to_jtorch(b), to_jtorch(A), to_jtorch(B)
    if hasattr(jtorch, "matmul"):
        mm_label = "jtorch.matmul"
        jmm: Callable[[], Any] = lambda: jtorch.matmul(jA, jB)  # noqa: E731
    else:
        mm_label = "np.matmul on .numpy() views"
        An, Bn = jA.numpy(), jB.numpy()
        jmm = lambda: np.matmul(An, Bn)  # noqa: E731
    assert np.allclose(np.asarray(jmm() if mm_label.startswith("np") else jmm().numpy()), A @ B,
                       rtol=1e-4, atol=1e-3)
    libs = {"jtorch": (lambda: ja + jb, jmm), "numpy": (lambda: a + b, lambda: np.matmul(A, B))}
    name = f"alternate {side}x{side} f32 matmul ({mm_label}) and 1M a + b, x{iters}"
    _say(f"{name} (load {_load()}) ...")

    def loop(*fs: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        for _ in range(iters):
            for f in fs:
                f()
        return time.perf_counter() - t0

    _reset()
    late0 = _late()
    out: dict[str, dict] = {}
    ratios: dict[str, list[float]] = {}
    for lib, (add, mm) in libs.items():
        loop(add, mm)  # warm-up
        phases = {"add": (add,), "mm": (mm,), "alt": (add, mm)}
        reps: dict[str, list[float]] = {k: [] for k in phases}
        for _ in range(REPEATS):
            total = {k: 0.0 for k in phases}
            for r in range(ALT_ROUNDS):  # the three loops in turn, order rotating: same noise
                names = list(phases)[r % 3:] + list(phases)[:r % 3]
                for k in names:
                    time.sleep(0.02)  # each loop starts with both pools asleep
                    total[k] += loop(*phases[k])
            for k in phases:
                reps[k].append(total[k] / ALT_ROUNDS / iters)
        ratios[lib] = [t / (x + y) for t, x, y in zip(reps["alt"], reps["add"], reps["mm"])]
        out[lib] = _cell(reps["alt"])
        out[lib]["alone_add_s"] = float(np.median(reps["add"]))
        out[lib]["alone_mm_s"] = float(np.median(reps["mm"]))
        out[lib]["repeat_ratios"] = [round(r, 3) for r in ratios[lib]]
        _say(f"  {lib}: alternating / (add alone + matmul alone) per repeat: "
             f"{', '.join(f'{r:.2f}' for r in ratios[lib])} (add alone "
             f"{out[lib]['alone_add_s'] * 1e3:.3f} ms, matmul alone {out[lib]['alone_mm_s'] * 1e3:.3f} ms, "
             f"pair {out[lib]['median_s'] * 1e3:.3f} ms)")
    worst = max(ratios["jtorch"])
    return {"name": name, "group": "threads", "kind": "time", "better": "lower",
            "jtorch": out["jtorch"], "numpy": out["numpy"], "torch": None,
            "ratio": worst, "ratio_vs": "own loops alone",
            "target": {"op": "<=", "value": 1.25, "vs": "alone",
                       "text": "alternating <= 1.25x sum alone, worst of 3"},
            "status": "PASS" if worst <= 1.25 else "MISS", "late_launches": _late() - late0,
            "numpy_ratio": max(ratios["numpy"])}


def run() -> dict:
    import jtorch  # noqa: F401
    import numba
    from jtorch.kernels.cpu import threads
    if NO_FALLBACK:
        threads.note_late = lambda numel, lost_ns: None  # measure the loops without the fallback
    if PER_THREAD > 1:  # the "more chunks than threads" remedy, with Numba handing out one at a time
        plain = threads.num_chunks
        threads.num_chunks = lambda numel, grain=threads.GRAIN_SIZE: (  # type: ignore[assignment]
            1 if plain(numel, grain) <= 1 else min(PER_THREAD * plain(numel, grain), -(-numel // grain)))
        numba.set_parallel_chunksize(1)
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    t0 = time.perf_counter()
    for n in (100_000, 4_000_000, (1 << 20) if QUICK else 16_000_000):
        rows.append(_add_row(n, 0, rng))
    for n in (100_000, 4_000_000):
        r = _add_row(n, _cores(), rng, floor=n == 100_000)
        rows += r if isinstance(r, list) else [r]
    rows.append(_alternating_row(rng))
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "not started"
    env = {k: os.environ[k] for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME",
                                      "NUMBA_THREADING_LAYER", "OPENBLAS_NUM_THREADS") if k in os.environ}
    nthreads = jtorch.get_num_threads() if hasattr(jtorch, "get_num_threads") else numba.get_num_threads()
    notes = [f"jtorch threads {nthreads}, numba layer {layer}, "
             f"set by jtorch for the pool start: {getattr(threads, '_start_env', None) or 'nothing'}, "
             f"user environment: {env or 'none'}; busy rows: {_cores()} spinning processes; "
             f"fallback {'OFF (BENCH_NO_FALLBACK)' if NO_FALLBACK else 'on'}; "
             f"{f'{PER_THREAD} chunks per thread, chunksize 1; ' if PER_THREAD > 1 else ''}"
             f"{'QUICK' if QUICK else 'full'}; {time.perf_counter() - t0:.0f} s",
             "per-repeat ratios and late parallel launches are in the JSON rows"]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run_all
    run_all.main(["--only", "threads", "--no-plot", *sys.argv[1:]])
