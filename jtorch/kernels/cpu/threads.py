"""The process's one thread policy for jtorch's CPU kernels.

Every parallel CPU loop (elementwise, reduce, scan, integer matmul, ...) asks :func:`num_chunks`
how many chunks to split its work into (1: serial, on the calling thread) and runs through
:func:`parallel_for`, which times each parallel launch.

* Size: PyTorch's rule, serial below ``GRAIN_SIZE`` elements, else one chunk per thread, each at
  least a grain.
* Threads: ``set_num_threads`` / ``get_num_threads`` as torch's, one process-wide value (default:
  Numba's pool size); BLAS threads are separate.
* A busy machine: a launch that lost to its serial estimate (nchunks x its shortest chunk, timed by
  :mod:`chunk_clock`) in two of the last three launches of a size class makes loops of that size and
  smaller run serially for ``LATE_RATIO`` times the time lost (doubling while probes keep losing,
  between ``SERIAL_MIN_S`` and ``SERIAL_MAX_S``). Float matmuls on BLAS threads are judged alike
  (:func:`note_blas`).
* Two pools: Numba's OpenMP workers and OpenBLAS's starve each other when they spin. When jtorch
  starts Numba's pool and the user set none of ``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT``,
  ``KMP_BLOCKTIME``, it sets ``GOMP_SPINCOUNT`` (``SPIN_COUNT``) for that start only.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

GRAIN_SIZE = 32768

# GNU OpenMP spin-wait before a worker sleeps, in spin iterations (libgomp's default is 300000,
# milliseconds of spinning). Measured on 2 cores: bench/bench_threads.py, bench/README.md.
SPIN_COUNT = "1000"
_OMP_KNOBS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")

# Serial fallback after a late parallel launch (see the module doc).
LATE_RATIO = 20.0
SERIAL_MIN_S = 0.01
SERIAL_MAX_S = 1.0
_MAX_STRIKES = 8

# What a parallel entry point returns when a chunk raised (exceptions cannot leave a prange).
CHUNK_FAILED = -(1 << 63)

_lock = threading.Lock()
_clock = time.perf_counter  # seconds; tests replace it
_requested: int | None = None   # set_num_threads' value (None: the default)
_pool = 0                       # Numba's pool size (NUMBA_NUM_THREADS), known without starting it
_started = False                # Numba's pool started (by _start)
_threads = 0                    # min(requested or pool, pool): chunks per launch at most; 0: unknown
_start_env: dict[str, str] = {}  # what _start set for libgomp (reported by the bench)

# Per size class (numel.bit_length()): serial until this _clock() time; consecutive late
# launches; when the last serial period set by a late launch ends, and its length.
_until = [0.0] * 65
_strikes = [0] * 65
_last_until = [0.0] * 65
_last_period = [0.0] * 65
_serial_until_max = 0.0         # max(_until): the fast path checks nothing when it is past
_recent: list[list[int]] = [[] for _ in range(65)]  # per size class: the last launches' gains (ns)
late_launches = 0               # parallel launches that lost to their serial estimate (bench)


# ---------------------------------------------------------------------------------------------
# torch's API


def _type_name(value: Any) -> str:
    """CPython's tp_name, as torch's messages print it (``float``, ``numpy.float64``)."""
    t = type(value)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # heap types: the bare name
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def set_num_threads(n: int) -> None:
    """Sets the number of threads used for intraop parallelism on CPU (every jtorch CPU loop).

    As torch: an int (not bool), positive; the value is process-wide. Numba's pool size
    (``NUMBA_NUM_THREADS``) caps the threads actually used; BLAS threads are unchanged.
    """
    import numpy as np

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_threads expects an int, but got {_type_name(n)}")
    if isinstance(n, np.integer) and not -(1 << 63) <= int(n) < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    n = int(n)
    if not -(1 << 31) <= n < (1 << 31):
        raise ValueError("Overflow when unpacking long")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    global _requested, _threads
    with _lock:
        _requested = n
        _threads = 0  # recomputed by the next loop


def get_num_threads() -> int:
    """Returns the number of threads used for parallelizing CPU operations."""
    if _requested is not None:
        return _requested
    import numba  # the pool's size is known without starting the pool

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set by numba.config at import


# Inter-op threads (torch's pool for jit.fork and the like): jtorch runs no inter-op work, so the
# value is only kept; as in torch it can be set once, and only before any inter-op work.
_interop: int | None = None


def _physical_cores() -> int:
    """TaskThreadPoolBase::defaultNumThreads: the physical cores when hyperthreading doubles them."""
    logical = os.cpu_count() or 1
    try:
        with open("/proc/cpuinfo") as f:
            cores, phys = set(), ""
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "physical id":
                    phys = value.strip()
                elif key == "core id":
                    cores.add((phys, value.strip()))
        return len(cores) if 0 < len(cores) < logical else logical
    except OSError:
        return logical


def set_num_interop_threads(n: int) -> None:
    """Sets the number of threads used for interop parallelism (once, before any interop work)."""
    global _interop
    import numpy as np

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {_type_name(n)}")
    n = int(n)
    if not -(1 << 31) <= n < (1 << 31):
        raise ValueError("Overflow when unpacking long")
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    with _lock:
        if _interop is not None:
            raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                               "set_num_interop_threads called")
        _interop = n


def get_num_interop_threads() -> int:
    """Returns the number of threads used for inter-op parallelism on CPU."""
    return _interop if _interop is not None else _physical_cores()


def _init_threads() -> int:
    global _pool, _threads
    import numba

    _pool = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # as above
    _threads = min(_requested or _pool, _pool)
    return _threads


def _start() -> None:
    """Start Numba's pool (once), with this module's OpenMP wait policy."""
    global _started
    with _lock:
        if _started:
            return
        import numba
        from numba.np.ufunc import parallel

        mine = {}
        if not (any(k in os.environ for k in _OMP_KNOBS) or getattr(parallel, "_is_initialized", True)):
            mine = {"GOMP_SPINCOUNT": SPIN_COUNT}
        os.environ.update(mine)
        try:
            numba.get_num_threads()  # launches the pool: libgomp reads its environment now
        finally:
            for k, v in mine.items():
                if os.environ.get(k) == v:
                    del os.environ[k]
        _start_env.update(mine)
        _started = True


# ---------------------------------------------------------------------------------------------
# the policy


def num_chunks(numel: int, grain: int = GRAIN_SIZE) -> int:
    """Chunks for a parallel loop over `numel` units of work (1: run serially).

    Honours set_num_threads and the busy-machine fallback. Use it only to decide how to run,
    never to decide values (a sum's rounding must not depend on the machine's load).
    """
    if numel < grain:
        return 1
    n = _threads or _init_threads()
    if n <= 1:
        return 1
    if not _started:
        _start()
    if _serial_until_max and _in_serial_period(numel):
        return 1
    return min(n, -(-numel // grain))


def static_num_chunks(numel: int, grain: int = GRAIN_SIZE) -> int:
    """PyTorch's split alone (grain size and thread count, no busy-machine fallback), for code
    whose values follow the chunking, as torch's arange does (it rounds per chunk)."""
    if numel < grain:
        return 1
    return min(_threads or _init_threads(), -(-numel // grain))


def _in_serial_period(numel: int) -> bool:
    global _serial_until_max
    now = _clock()
    if now >= _serial_until_max:
        _serial_until_max = 0.0
        return False
    return now < _until[min(numel.bit_length(), 64)]


def note_gain(numel: int, gain_ns: int) -> None:
    """A parallel launch over `numel` ran `gain_ns` faster than its serial estimate (negative:
    slower). Two late launches among the last three of its size class start a serial period."""
    global late_launches
    r = _recent[min(numel.bit_length(), 64)]
    r.append(gain_ns)
    if len(r) > 3:
        del r[0]
    if gain_ns >= 0:
        return
    late_launches += 1
    lost = [-g for g in r if g < 0]
    if len(lost) >= 2:
        r.clear()  # the probe after the serial period starts a fresh count
        note_late(numel, sum(lost) // len(lost))


def note_late(numel: int, lost_ns: int) -> None:
    """A parallel launch over `numel` ran `lost_ns` longer than its serial estimate: run loops of
    this size class and smaller serially for a while (see the module doc)."""
    global _serial_until_max
    b = min(numel.bit_length(), 64)
    now = _clock()
    with _lock:
        # a probe that is late right after the previous period escalates; an isolated one not
        if now - _last_until[b] > 2 * _last_period[b] + SERIAL_MIN_S:
            _strikes[b] = 0
        s = _strikes[b] = min(_strikes[b] + 1, _MAX_STRIKES)
        period = max(SERIAL_MIN_S, LATE_RATIO * lost_ns * 1e-9) * (1 << (s - 1))
        period = min(SERIAL_MAX_S, period)
        until = now + period
        _last_until[b] = until
        _last_period[b] = period
        for i in range(b + 1):  # smaller loops gain less from threads: at least as late
            if _until[i] < until:
                _until[i] = until
        _serial_until_max = max(_serial_until_max, until)


def reset() -> None:
    """Forget the busy-machine state (tests, benchmarks)."""
    global _serial_until_max
    with _lock:
        for lst in (_until, _last_until, _last_period):
            lst[:] = [0.0] * len(lst)
        for r in _recent:
            r.clear()
        _strikes[:] = [0] * len(_strikes)
        _serial_until_max = 0.0
        _Blas.last_end = _Blas.woke = float("-inf")


def serial_period_left(numel: int) -> float:
    """Seconds loops over `numel` units stay serial because of late launches (0: parallel)."""
    return max(0.0, _until[min(numel.bit_length(), 64)] - _clock())


# ---------------------------------------------------------------------------------------------
# launching


def _numba_tls() -> tuple[Callable[[], int], Callable[[int], None]]:
    """Numba's per-thread thread-count getter/setter, the raw ones when available (0.25 us
    against 1.4 us for the public functions, which re-check that the pool started)."""
    from numba.np.ufunc import parallel

    get, put = getattr(parallel, "_get_num_threads", None), getattr(parallel, "_set_num_threads", None)
    if get is None or put is None:
        import numba
        return numba.get_num_threads, numba.set_num_threads
    return get, put


_tls_fns: tuple[Callable[[], int], Callable[[int], None]] | None = None


def parallel_for(serial: Callable[..., Any], parallel: Callable[..., int], total: int,
                 *args: Any, work: int | None = None) -> None:
    """Run a loop over `total` items the way the policy says (at::parallel_for's role).

    ``serial(0, total, *args)`` runs it on the calling thread (loops under the grain size);
    ``parallel(total, nchunks, *args)`` runs it as `nchunks` chunks in a prange (1: serially,
    inline) and returns its serial estimate minus the region's
    time, in ns (:mod:`chunk_clock`): nchunks x its shortest chunk's time for equal chunks, else
    their sum; 0 when it does not time itself. Or CHUNK_FAILED when a chunk raised: the serial
    loop then reruns to raise the real exception. `work` (default `total`) is what the grain
    size is compared with, e.g. multiply-adds for a matmul.
    """
    w = total if work is None else work
    if w < GRAIN_SIZE:
        serial(0, total, *args)
        return
    launch_parallel(serial, parallel, total, min(num_chunks(w), total), *args, work=work)


def launch_parallel(serial: Callable[..., Any], parallel: Callable[..., int], total: int,
                    nchunks: int, *args: Any, work: int | None = None) -> None:
    """The parallel half of :func:`parallel_for`, for a caller that sized buffers by the
    `nchunks` it got from :func:`num_chunks` (1: the parallel entry point runs it serially)."""
    if nchunks <= 1:
        # serial, but through the parallel entry point (it runs one chunk inline): the loops big
        # enough to go parallel compile one function, whichever way the busy-machine policy
        # sent them in the process that compiled it, so a warm process compiles nothing
        if not _started:
            _start()  # loading a parallel function starts Numba's pool: with our wait policy
        parallel(total, 1, *args)
        return
    if nchunks < _pool:
        gain = _with_numba_threads(nchunks, parallel, total, args)
    else:
        gain = parallel(total, nchunks, *args)
    if gain < 0:
        _lost(gain, serial, total, args, work)
    else:
        note_gain(total if work is None else work, gain)


def _with_numba_threads(nchunks: int, parallel: Callable[..., int], total: int, args: tuple) -> int:
    """Run `parallel` with Numba using `nchunks` threads (it would wake its whole pool for a
    prange of fewer iterations), then give the calling thread its Numba setting back."""
    global _tls_fns
    if _tls_fns is None:
        _tls_fns = _numba_tls()
    get, put = _tls_fns
    prev = get()
    put(nchunks)
    try:
        return parallel(total, nchunks, *args)
    finally:
        put(prev)


def _lost(gain: int, serial: Callable[..., Any], total: int, args: tuple, work: int | None) -> None:
    if gain == CHUNK_FAILED:
        serial(0, total, *args)  # raises the chunk's exception
        raise RuntimeError("a parallel chunk failed but the serial loop did not")
    note_gain(total if work is None else work, gain)


# ---- BLAS threads for small products ------------------------------------------------------------
# NumPy's OpenBLAS splits even a 64x64x128 product over its threads; on a small machine whose
# other pool (Numba's) has just run, its workers then wait for a core: in a training step such
# products took 2 ms at the 90th percentile (20 ms at worst) against 18 us alone. Products below
# SMALL_BLAS_MACS multiply-adds run on one BLAS thread (torch too keeps small GEMMs serial); the
# thread count goes back for bigger ones. OpenBLAS is found in the process's mapped libraries
# (NumPy's wheel bundles it with a prefixed symbol); without it this does nothing.
# Bigger products run on every BLAS thread and are timed (note_blas): OpenBLAS's threads wait for
# each other too, and with one other busy process on 2 cores a 64x1000x100 product took 7 ms
# instead of 0.1 (an MLP step 11x slower, torch's 2x). A product slower than its thread count
# times its best time per multiply-add counts as a late launch of the busy-machine policy, and
# its serial periods put BLAS on one thread as they put jtorch's loops on one.
SMALL_BLAS_MACS = 1 << 21


class _Blas:
    probed = False
    set_threads: Any = None
    full = 1
    current = 0  # 0: unknown
    best: dict = {}  # size class (macs.bit_length()) -> best ns per multiply-add on `full` threads
    last_end = float("-inf")  # _clock() when the last timed (multi-thread) product ended
    woke = float("-inf")      # _clock() when a product last started after BLAS_IDLE_S idle


# A multi-thread product that starts BLAS_IDLE_S or more after the previous one ended found
# NumPy's BLAS workers asleep (OpenBLAS's spin for about 110 ms here): it and the products of the
# next BLAS_WARMUP_S are not judged. After 150 ms idle, an MLP's 64x1000x100 products took 280-430
# us, then 205-250 for the next two and about 200 for two more, against a best of 122-145 (the
# machine wakes up over about a millisecond). Judged, they made two late products of three at the
# start of nearly every burst (10-14 serial periods in 15 bursts of 23 steps, the steps 10%
# slower: 678-714 against 629-636 us).
BLAS_IDLE_S = 0.05
BLAS_WARMUP_S = 0.003


def _probe_blas() -> None:
    _Blas.probed = True
    try:
        import ctypes

        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f
                            if "openblas" in line.lower() and line.split()[-1].startswith("/")})
        for path in paths:
            lib = ctypes.CDLL(path)
            for suffix in ("", "64_"):
                for prefix in ("scipy_openblas", "openblas"):
                    setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                    getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                    if setter is not None and getter is not None:
                        getter.restype = ctypes.c_int
                        _Blas.full = max(1, int(getter()))
                        _Blas.current = _Blas.full
                        setter.argtypes = [ctypes.c_int]
                        _Blas.set_threads = setter
                        return
    except Exception:
        _Blas.set_threads = None


def blas_threads_for(macs: int) -> int:
    """Set NumPy's BLAS thread count for a product of `macs` multiply-adds (one thread when small,
    or while the busy-machine policy runs this size serially); returns it (0: not steered)."""
    if not _Blas.probed:
        _probe_blas()
    if _Blas.set_threads is None:
        return 0
    want = 1 if macs < SMALL_BLAS_MACS or (_serial_until_max and _in_serial_period(macs)) else _Blas.full
    if want != _Blas.current:
        _Blas.set_threads(want)
        _Blas.current = want
    return want


def note_blas(macs: int, threads: int, elapsed_ns: int) -> None:
    """A product of `macs` multiply-adds took `elapsed_ns` on `threads` BLAS threads: its serial
    estimate is threads x the best time per multiply-add seen for its size class (note_gain),
    except in the BLAS_WARMUP_S after a product found the workers asleep (see BLAS_IDLE_S)."""
    b = macs.bit_length()
    per = elapsed_ns / macs
    best = _Blas.best.get(b)
    if best is None or per < best:
        _Blas.best[b] = best = per
    now = _clock()
    start = now - elapsed_ns * 1e-9
    if start - _Blas.last_end > BLAS_IDLE_S:  # its workers were asleep
        _Blas.woke = start
    _Blas.last_end = now
    if start - _Blas.woke > BLAS_WARMUP_S:
        note_gain(macs, int(threads * best * macs) - elapsed_ns)
