"""The thread policy (jtorch/kernels/cpu/threads.py): set/get_num_threads as in torch, identical
results with 1 and 2 threads, the busy-machine fallback (serial for a while after a late parallel
launch), errors raised inside parallel chunks, and a lazy pool start that leaves the
environment as it found it. No timing assertions: speed is bench/bench_threads.py's business."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import jtorch
from jtorch.kernels.cpu import loops, threads
from jtorch.kernels.cpu.threads import CHUNK_FAILED, GRAIN_SIZE
from _torch_oracle import oracle_torch

BIG = 3 * GRAIN_SIZE + 7   # parallel (2 chunks on 2 threads), odd chunk boundaries
POOL = int(numba.config.NUMBA_NUM_THREADS)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
start_serial_period = threads.note_late  # the real one: `spy` makes launches' own reports no-ops


@pytest.fixture(autouse=True)
def _policy():
    """Every test starts and ends with the default thread count and no serial periods."""
    saved = threads._requested
    threads.reset()
    yield
    threads._requested, threads._threads = saved, 0
    threads.reset()


@pytest.fixture
def spy(monkeypatch):
    """Records the chunk count of every parallel launch loops.py makes; `calls.inline` counts
    the loops run serially through the parallel entry point. Late launches do not start serial
    periods here: on a loaded machine they would, and the counts would vary."""
    class Calls(list):
        inline = 0
    calls = Calls()
    monkeypatch.setattr(threads, "note_late", lambda numel, lost_ns: None)

    def counted(parallel):
        def run(total, nchunks, *args):
            if nchunks > 1:
                calls.append(nchunks)
            else:
                calls.inline += 1
            return parallel(total, nchunks, *args)
        return run

    real_for, real_launch = loops.parallel_for, loops.launch_parallel
    monkeypatch.setattr(loops, "parallel_for", lambda serial, parallel, total, *args, **kw:
                        real_for(serial, counted(parallel), total, *args, **kw))
    monkeypatch.setattr(loops, "launch_parallel", lambda serial, parallel, total, n, *args, **kw:
                        real_launch(serial, counted(parallel), total, n, *args, **kw))
    return calls


# ---- set_num_threads / get_num_threads ---------------------------------------------------------

def test_default_is_numbas_pool_and_set_get_round_trip() -> None:
    assert jtorch.get_num_threads() == POOL
    jtorch.set_num_threads(1)
    assert jtorch.get_num_threads() == 1 and type(jtorch.get_num_threads()) is int
    jtorch.set_num_threads(np.int64(3))
    assert jtorch.get_num_threads() == 3 and type(jtorch.get_num_threads()) is int
    jtorch.set_num_threads(POOL + 5)  # like torch, the value is kept; loops use Numba's pool
    assert jtorch.get_num_threads() == POOL + 5
    assert threads.num_chunks(10 * (POOL + 5) * GRAIN_SIZE) == POOL


BAD = [(0, RuntimeError, "set_num_threads expects a positive integer"),
       (-1, RuntimeError, "set_num_threads expects a positive integer"),
       (-(2 ** 31), RuntimeError, "set_num_threads expects a positive integer"),
       (True, RuntimeError, "set_num_threads expects an int, but got bool"),
       (2.5, RuntimeError, "set_num_threads expects an int, but got float"),
       ("2", RuntimeError, "set_num_threads expects an int, but got str"),
       (None, RuntimeError, "set_num_threads expects an int, but got NoneType"),
       ([2], RuntimeError, "set_num_threads expects an int, but got list"),
       (np.float64(2), RuntimeError, "set_num_threads expects an int, but got numpy.float64"),
       (np.True_, RuntimeError, "set_num_threads expects an int, but got numpy.bool"),
       (2 ** 31, ValueError, "Overflow when unpacking long"),
       (-(2 ** 31) - 1, ValueError, "Overflow when unpacking long"),
       (np.int64(2 ** 40), ValueError, "Overflow when unpacking long"),
       (np.uint64(2 ** 63), ValueError, "Overflow when unpacking long long")]


@pytest.mark.parametrize("value,exc,msg", BAD, ids=[repr(b[0]) for b in BAD])
def test_set_num_threads_rejects_like_torch(value, exc, msg) -> None:
    with pytest.raises(exc) as e:
        jtorch.set_num_threads(value)
    assert str(e.value) == msg
    assert jtorch.get_num_threads() == POOL  # unchanged


def test_set_num_threads_errors_match_torch() -> None:
    torch = oracle_torch()
    saved = torch.get_num_threads()
    try:
        for value, exc, msg in BAD:
            with pytest.raises(exc) as e:
                torch.set_num_threads(value)
            assert str(e.value) == msg, value
    finally:
        torch.set_num_threads(saved)


def test_one_thread_makes_every_loop_serial(spy) -> None:
    x = np.arange(BIG, dtype=np.float32)
    t = jtorch.from_numpy(x)
    m = jtorch.from_numpy(np.arange(BIG - 7, dtype=np.float32).reshape(3, -1))
    c = m.t().contiguous()
    spy.clear()  # contiguous() copied in parallel
    jtorch.set_num_threads(1)
    assert threads.num_chunks(10 ** 9) == 1
    r = t + t
    s = m.t() + c  # one transposed operand: the strided loop
    assert spy == [] and spy.inline == 2  # serial, inside the one compiled entry point
    np.testing.assert_array_equal(r.numpy(), x + x)
    np.testing.assert_array_equal(s.numpy(), 2 * m.numpy().T)
    if POOL >= 2:
        jtorch.set_num_threads(2)
        t + t
        m.t() + c
        assert spy == [2, 2]


# ---- same results with 1 and 2 threads ----------------------------------------------------------

CASES = [
    ("add f32", np.float32, lambda a, b: jtorch.add(a, b, alpha=3), lambda a, b: a + np.float32(3) * b),
    ("mul f64 strided", np.float64, lambda a, b: a.t() * b.t().contiguous(), lambda a, b: a.T * b.T),
    ("sub int64 broadcast", np.int64, lambda a, b: a - b[0], lambda a, b: a - b[0]),
    ("floor_divide int64", np.int64, jtorch.floor_divide, np.floor_divide),
]


@pytest.mark.parametrize("name,dtype,op,ref", CASES, ids=[c[0] for c in CASES])
def test_results_identical_with_one_and_two_threads(name, dtype, op, ref) -> None:
    rng = np.random.default_rng(1)
    shape = (331, 301)  # 99631 elements: 3 chunks' worth, odd sizes
    if np.dtype(dtype).kind == "f":
        x, y = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    else:
        x, y = rng.integers(-1000, 1000, shape, dtype=dtype), rng.integers(1, 50, shape, dtype=dtype)
    a, b = jtorch.from_numpy(x), jtorch.from_numpy(y)
    results = []
    for n in (1, 2):
        jtorch.set_num_threads(n)
        results.append(op(a, b).numpy())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], ref(x, y))


# ---- the busy-machine fallback ------------------------------------------------------------------

class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_late_launch_makes_that_size_and_smaller_serial_for_a_while(monkeypatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(threads, "_clock", clock)
    n = 1 << 20
    assert threads.num_chunks(n) == min(POOL, n // GRAIN_SIZE)
    threads.note_late(n, 2_000_000)  # lost 2 ms: serial for LATE_RATIO x 2 ms
    period = threads.LATE_RATIO * 2e-3
    assert threads.serial_period_left(n) == pytest.approx(period)
    assert threads.num_chunks(n) == 1 and threads.num_chunks(GRAIN_SIZE) == 1  # smaller too
    assert threads.num_chunks(4 * n) == min(POOL, 4 * n // GRAIN_SIZE)       # larger not
    clock.t += period + 1e-6
    assert threads.num_chunks(n) == min(POOL, n // GRAIN_SIZE)
    # the probe right after the period is late again: the period doubles, up to SERIAL_MAX_S
    periods = []
    for _ in range(12):
        threads.note_late(n, 2_000_000)
        periods.append(threads.serial_period_left(n))
        clock.t += periods[-1] + 1e-6
    assert periods[:3] == pytest.approx([2 * period, 4 * period, 8 * period])
    assert max(periods) == periods[-1] == threads.SERIAL_MAX_S
    # a late launch long after the last one starts from the short period again
    clock.t += 100.0
    threads.note_late(n, 1000)
    assert threads.serial_period_left(n) == pytest.approx(threads.SERIAL_MIN_S)


def test_static_num_chunks_ignores_serial_periods() -> None:
    n = 1 << 20
    start_serial_period(n, 10 ** 9)
    assert threads.num_chunks(n) == 1
    assert threads.static_num_chunks(n) == min(POOL, n // GRAIN_SIZE)
    assert threads.static_num_chunks(GRAIN_SIZE - 1) == 1
    jtorch.set_num_threads(1)
    assert threads.static_num_chunks(n) == 1


def test_parallel_for_protocol(monkeypatch) -> None:
    if POOL < 2:
        pytest.skip("Numba's pool has one thread: nothing runs in parallel")
    ran: list[str] = []

    def serial(start, stop, tag):
        ran.append(f"serial {start} {stop} {tag}")

    def on_time(total, nchunks, tag):
        ran.append(f"parallel {total} {nchunks} {tag}")
        return 5

    def late(total, nchunks, tag):
        ran.append("late")
        return -3_000_000

    n = 4 * GRAIN_SIZE
    threads.parallel_for(serial, on_time, n, "x")
    assert ran == [f"parallel {n} {min(POOL, 4)} x"]
    threads.parallel_for(serial, on_time, 2, "x", work=n)  # nchunks never above the items
    assert ran[-1] == "parallel 2 2 x"
    late_before = threads.late_launches
    threads.parallel_for(serial, late, n, "x")
    assert threads.late_launches == late_before + 1
    assert threads.serial_period_left(n) == 0  # one late launch among fast ones: noise
    threads.parallel_for(serial, on_time, n, "x")
    threads.parallel_for(serial, late, n, "x")  # two of the last three: a busy machine
    assert threads.late_launches == late_before + 2
    assert threads.serial_period_left(n) > 0
    threads.parallel_for(serial, on_time, n, "y")  # now serial, inside the parallel entry point
    assert ran[-1] == f"parallel {n} 1 y"
    threads.parallel_for(serial, on_time, GRAIN_SIZE - 1, "z")  # under the grain: the serial one
    assert ran[-1] == f"serial 0 {GRAIN_SIZE - 1} z"

    threads.reset()

    def failed(total, nchunks, tag):
        return CHUNK_FAILED

    def raising(start, stop, tag):
        raise ZeroDivisionError("from the serial rerun")

    with pytest.raises(ZeroDivisionError, match="from the serial rerun"):
        threads.parallel_for(raising, failed, n, "x")
    with pytest.raises(RuntimeError, match="a parallel chunk failed but the serial loop did not"):
        threads.parallel_for(serial, failed, n, "x")


def test_results_correct_during_a_serial_period(spy) -> None:
    x = np.random.default_rng(2).standard_normal((400, 333)).astype(np.float32)
    t = jtorch.from_numpy(x)
    t * 2, t.t() * 2  # compile first: a cold compile outlasts the longest serial period (1 s)
    spy.clear()
    spy.inline = 0
    start_serial_period(x.size, 10 ** 9)  # a long serial period for this size and below
    np.testing.assert_array_equal((t * 2).numpy(), x * 2)
    np.testing.assert_array_equal((t.t() * 2).numpy(), x.T * 2)
    assert spy == [] and spy.inline == 2
    threads.reset()
    np.testing.assert_array_equal((t * 2).numpy(), x * 2)
    assert spy == ([threads.num_chunks(x.size)] if POOL >= 2 else [])


def test_generated_parallel_entry_point_returns_its_timing() -> None:
    """The generated parallel entry points return serial estimate - region time (ns)."""
    x = np.ones(BIG, np.float32)
    t = jtorch.from_numpy(x)
    t + t  # loads the kernel
    key = next(key for key in loops._kernels if key[0].__name__ == "add" and key[1] == 0b1111)
    out = np.empty_like(x)
    g = loops._kernels[key].contig_par(BIG, 2, out, 0, x, 0, x, 0, np.float32(1))
    np.testing.assert_array_equal(out, x + x)
    assert isinstance(g, int) and g != CHUNK_FAILED
    assert abs(g) < 10 ** 10  # nanoseconds, of either sign


# ---- errors inside parallel chunks --------------------------------------------------------------

@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("serial_period", [False, True], ids=["parallel", "fallback"])
def test_integer_division_by_zero_in_a_chunk_raises_torchs_error(layout, serial_period, spy) -> None:
    x = np.arange(1, 2 * BIG + 1, dtype=np.int64).reshape(2, BIG)
    y = np.full_like(x, 3)
    y[1, BIG - 2] = 0  # in the last chunk
    a, b = jtorch.from_numpy(x), jtorch.from_numpy(y)
    if layout == "strided":
        a, b = a.t(), b.t().contiguous()
    spy.clear()
    if serial_period:
        start_serial_period(x.size, 10 ** 9)
    with pytest.raises(RuntimeError) as e:
        a // b
    assert str(e.value) == "ZeroDivisionError"
    assert (spy == []) == (serial_period or POOL < 2)


def test_integer_division_by_zero_matches_torch() -> None:
    torch = oracle_torch()
    x = np.arange(1, BIG + 1, dtype=np.int64)
    y = np.ones_like(x)
    y[-1] = 0
    with pytest.raises(RuntimeError) as expected:
        torch.from_numpy(x) // torch.from_numpy(y)
    with pytest.raises(RuntimeError) as got:
        jtorch.from_numpy(x) // jtorch.from_numpy(y)
    assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))


# ---- start-up: lazy pool, environment left alone ------------------------------------------------

_PROBE = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import jtorch
    from numba.np.ufunc import parallel
    from jtorch.kernels.cpu import threads
    out = {"after_import": parallel._is_initialized}
    t = jtorch.from_numpy(np.ones(1000, np.float32))
    t + t
    out["after_small"] = parallel._is_initialized
    if len(sys.argv) > 1:
        jtorch.set_num_threads(int(sys.argv[1]))
    big = jtorch.from_numpy(np.ones(200000, np.float32))
    import numba
    tls_before = numba.get_num_threads() if len(sys.argv) > 2 else None  # starts Numba's pool
    r = big + big
    out["after_big"] = parallel._is_initialized
    out["ok"] = bool((r.numpy() == 2).all())
    out["tls"] = [tls_before, numba.get_num_threads()]
    out["set_by_jtorch"] = threads._start_env
    out["env"] = {k: os.environ.get(k) for k in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "KMP_BLOCKTIME")}
    out["late"] = threads.late_launches
    print(json.dumps(out))
""")


def _probe(env: dict, *args: str) -> dict:
    full = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "KMP_BLOCKTIME")}
    full.update(env)
    full["PYTHONPATH"] = ROOT + os.pathsep + full.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", _PROBE, *args], env=full, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def test_pool_starts_lazily_and_the_environment_is_restored() -> None:
    out = _probe({})
    assert not out["after_import"] and not out["after_small"] and out["after_big"] and out["ok"]
    layer_is_omp = out["set_by_jtorch"] == {"GOMP_SPINCOUNT": threads.SPIN_COUNT}
    assert layer_is_omp
    assert out["env"] == {"GOMP_SPINCOUNT": None, "OMP_WAIT_POLICY": None, "KMP_BLOCKTIME": None}


def test_users_omp_settings_are_kept() -> None:
    out = _probe({"OMP_WAIT_POLICY": "ACTIVE"})
    assert out["set_by_jtorch"] == {} and out["env"]["OMP_WAIT_POLICY"] == "ACTIVE"
    assert out["env"]["GOMP_SPINCOUNT"] is None and out["ok"]


def test_fewer_chunks_than_pool_threads_restore_numbas_thread_count() -> None:
    """With a pool of 4, jtorch.set_num_threads(3): a launch runs Numba with 3 threads and puts
    the caller's Numba setting (4) back."""
    out = _probe({"NUMBA_NUM_THREADS": "4"}, "3", "numba first")
    assert out["ok"] and out["tls"] == [4, 4]
    assert out["set_by_jtorch"] == {}  # Numba's pool was started before jtorch's first loop


@pytest.fixture
def blas_products(monkeypatch):
    """(fake clock, product(ns), macs, BLAS threads): product(ns) reports one 64x1000x100 float
    product of `ns` on every BLAS thread to the policy, the clock running meanwhile."""
    if not threads._Blas.probed:  # probing again would read the thread count a small product left (1)
        threads._probe_blas()
    if threads._Blas.set_threads is None or threads._Blas.full < 2:
        pytest.skip("NumPy's BLAS is not an OpenBLAS jtorch can steer, or it has one thread")
    clock = FakeClock()
    monkeypatch.setattr(threads, "_clock", clock)
    monkeypatch.setattr(threads._Blas, "best", {})
    macs = 64 * 1000 * 100
    full = threads._Blas.full

    def product(ns: int) -> None:  # one product of `ns`, the clock running meanwhile
        clock.t += ns * 1e-9
        threads.note_blas(macs, full, ns)

    return clock, product, macs, full


def test_late_blas_products_put_blas_on_one_thread(blas_products) -> None:
    """A float product on every BLAS thread that runs slower than threads x its best time per
    multiply-add (a busy machine) counts as late: two of three late start a serial period, during
    which products of that size (and smaller) get one BLAS thread, and jtorch's loops one chunk."""
    clock, product, macs, full = blas_products
    assert threads.blas_threads_for(macs) == full
    product(100_000)                                        # 0.1 ms: the best so far
    clock.t += threads.BLAS_WARMUP_S                        # (the first products wake the workers)
    product(150_000)                                        # a little slower: not late
    assert threads.blas_threads_for(macs) == full
    product(7_000_000)                                      # 7 ms: late
    assert threads.blas_threads_for(macs) == full           # one late product is noise
    product(7_000_000)                                      # two of the last three: serial
    assert threads.blas_threads_for(macs) == 1 and threads.blas_threads_for(macs // 4) == 1
    assert threads.num_chunks(1 << 20) == 1
    clock.t += threads.serial_period_left(macs) + 1e-6
    assert threads.blas_threads_for(macs) == full


def test_first_blas_product_after_idle_is_not_judged(blas_products) -> None:
    """A multi-thread product after BLAS_IDLE_S without one pays its workers' wake-up: it and
    those of the next BLAS_WARMUP_S are not counted as late, so a burst that starts slow does not
    put BLAS on one thread; the products after that are judged as before."""
    clock, product, macs, full = blas_products
    product(100_000)                                        # the best so far
    for burst in range(3):
        clock.t += 10 * threads.BLAS_IDLE_S                 # idle: the workers went to sleep
        for _ in range(5):
            product(400_000)                                # waking: 4x the best, not judged
        assert threads.blas_threads_for(macs) == full, burst
        clock.t += threads.BLAS_WARMUP_S
        product(7_000_000)                                  # late, but alone among the last three
        for _ in range(3):
            product(100_000)
        assert threads.blas_threads_for(macs) == full, burst
    product(7_000_000)
    product(7_000_000)                                      # a second late one among three: serial
    assert threads.blas_threads_for(macs) == 1


def test_matmul_reports_its_blas_time(monkeypatch) -> None:
    from jtorch.kernels.cpu import matmul
    seen = []
    monkeypatch.setattr(matmul, "note_blas", lambda macs, n, ns: seen.append((macs, n, ns)))
    a = np.random.default_rng(0).standard_normal((128, 256)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((256, 128)).astype(np.float32)
    got = (jtorch.tensor(a) @ jtorch.tensor(b)).numpy()
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-3)
    if not threads._Blas.probed:  # probing again would read the thread count a small product left (1)
        threads._probe_blas()
    if threads._Blas.set_threads is not None and threads._Blas.full > 1:  # big enough to be timed
        assert seen and seen[-1][0] == 128 * 256 * 128 and seen[-1][1] == threads._Blas.full and seen[-1][2] > 0
