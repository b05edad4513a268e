"""CPU kernel layer: generated elementwise loops, copy/cast, fast float32 math, the disk cache.

Compiles dominate this file's time (Numba: ~0.2 s per serial signature, ~2 s per parallel one,
cached on disk afterwards), so the tests share a few scalar functions and dtypes.
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from jtorch.kernels.cpu import _test_scalar_fns as F
from jtorch.kernels.cpu import fastmath
from jtorch.kernels.cpu.copy_loops import copy
from jtorch.kernels.cpu.loops import GRAIN_SIZE, ArrayOperand, launch

PAR = GRAIN_SIZE + 37  # just above the grain size: the parallel loops, odd chunk boundaries


def operand(buf: np.ndarray, view: np.ndarray) -> ArrayOperand:
    """ArrayOperand for a NumPy view of the 1-D `buf` (dims reversed: dim 0 fastest)."""
    off = (view.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // buf.itemsize
    return ArrayOperand(buf, off, tuple(s // buf.itemsize for s in reversed(view.strides)))


def shape_of(view: np.ndarray) -> tuple[int, ...]:
    return tuple(reversed(view.shape))


def run(fn, out: np.ndarray, out_buf: np.ndarray, inputs: list, extra: tuple = ()) -> None:
    """launch over NumPy views: inputs are (buf, view) pairs or scalars."""
    ops = [operand(out_buf, out)]
    for x in inputs:
        ops.append(operand(*x) if isinstance(x, tuple) else x)
    launch(fn, shape_of(out), ops, extra)


def flat(n: int, dtype, lo=-10.0, hi=10.0, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(dtype)


# ---- launch ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, n", [(np.float32, 1000), (np.float64, 1000), (np.float64, PAR)])
def test_contiguous_with_offsets(dtype, n):
    a, b = flat(n + 5, dtype, seed=1), flat(n + 9, dtype, seed=2)
    out = np.full(n + 3, -1, dtype)
    alpha = dtype(2.5)
    run(F.add, out[3:], out, [(a, a[5:]), (b, b[9:])], (alpha,))
    np.testing.assert_array_equal(out[3:], a[5:] + alpha * b[9:])
    assert (out[:3] == -1).all()


@pytest.mark.parametrize("dims", [(3, 4, 5), (7, 13, 400)])  # serial / parallel
def test_strided_transposed_and_broadcast(dims):
    x_buf = flat(int(np.prod(dims)) + 1, np.float64, seed=3)
    x = x_buf[1:].reshape(dims).transpose(2, 0, 1)            # permuted strides, offset 1
    y_buf = flat(dims[1], np.float64, seed=4)
    y = np.broadcast_to(y_buf[None, None, :], x.shape[:2] + (dims[1],))  # stride-0 dims
    out_buf = np.empty(int(np.prod(dims)))
    out = out_buf.reshape(x.shape)
    run(F.add, out, out_buf, [(x_buf, x), (y_buf, y)], (1.0,))
    np.testing.assert_array_equal(out, x + y)
    # the output itself strided too (every other element of a bigger buffer)
    big = np.zeros(2 * out.size)
    out2 = big[::2].reshape(x.shape)
    run(F.mul, out2, big, [(x_buf, x), (y_buf, y)])
    np.testing.assert_array_equal(out2, x * y)
    assert (big[1::2] == 0).all()


def test_scalar_operands():
    a = flat(100, np.float64, seed=5)
    out = np.empty(100)
    run(F.add, out, out, [(a, a), np.float64(3.0)], (np.float64(2.0),))
    np.testing.assert_array_equal(out, a + 6.0)
    m = a.reshape(10, 10).T                                   # strided, with a scalar first
    out2 = np.empty((10, 10))
    run(F.add, out2, out2.reshape(-1), [np.float64(1.5), (a, m)], (np.float64(1.0),))
    np.testing.assert_array_equal(out2, 1.5 + m)


def test_zero_dim_and_empty():
    a = np.array([7.0, 8.0, 9.0])
    out = np.zeros(4)
    launch(F.mul, (), [ArrayOperand(out, 2, ()), ArrayOperand(a, 1, ()), 3.0])
    assert out.tolist() == [0.0, 0.0, 24.0, 0.0]
    for shape in [(0,), (5, 0), (0, 3, 2)]:
        launch(F.mul, shape, [ArrayOperand(out, 0, (1,) * len(shape)),
                              ArrayOperand(a, 0, (0,) * len(shape)), 3.0])
        assert out.tolist() == [0.0, 0.0, 24.0, 0.0]


@pytest.mark.parametrize("n", [50, PAR])
def test_bool_and_int_outputs(n):
    a, b = flat(n, np.float64, seed=6), flat(n, np.float64, seed=7)
    out = np.empty(n, np.bool_)
    run(F.lt, out, out, [(a, a), (b, b)])
    np.testing.assert_array_equal(out, a < b)
    out_i = np.empty(50, np.int32)                            # float result stored as int
    run(F.mul, out_i, out_i, [(a, a[:50]), (b, b[:50])])
    np.testing.assert_array_equal(out_i, (a[:50] * b[:50]).astype(np.int32))


@pytest.mark.parametrize("n", [64, PAR])
@pytest.mark.parametrize("strided", [False, True])
def test_integer_division_by_zero(n, strided):
    a = np.arange(2 * n, dtype=np.int64) - n
    b = np.arange(2 * n, dtype=np.int64) % 7 + 1
    out = np.empty(2 * n, np.int64)
    step = 2 if strided else 1
    views = [(out, out[::step][:n]), (a, a[::step][:n]), (b, b[::step][:n])]
    run(F.floordiv, views[0][1], out, views[1:])
    np.testing.assert_array_equal(out[::step][:n], a[::step][:n] // b[::step][:n])
    b[::step][n - 3] = 0                                      # last chunk of the parallel split
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        run(F.floordiv, views[0][1], out, views[1:])


def test_float_division_by_zero():
    a = np.array([1.0, -1.0, 0.0, 2.5])
    z = np.zeros(4)
    out = np.empty(4)
    with np.errstate(all="ignore"):
        run(F.div, out, out, [(a, a), (z, z)])
        np.testing.assert_array_equal(out, a / z)
        run(F.floordiv, out, out, [(a, a), (z, z)])
        np.testing.assert_array_equal(out, a // z)


def test_helpers_and_constants_are_reemitted():
    a, b = flat(40, np.float64, seed=8), flat(40, np.float64, seed=9)
    out = np.empty(40)
    run(F.mul_add_half, out, out, [(a, a), (b, b)])
    np.testing.assert_array_equal(out, (a + a) * b + 0.5)


def test_scalar_function_rules():
    out = np.empty(3)
    ops = [ArrayOperand(out, 0, (1,)), ArrayOperand(out, 0, (1,))]
    with pytest.raises(TypeError, match="module-level 'def'"):
        launch(lambda x: x, (3,), ops)
    k = 2.0

    def closure(x):
        return x * k
    with pytest.raises(TypeError, match="closure"):
        launch(closure, (3,), ops)


# ---- fast float32 math ---------------------------------------------------------------------------

def _sigmoid64(d):
    e = np.exp(-np.abs(d))
    return np.where(d >= 0, 1 / (1 + e), e / (1 + e))


_FAST = {"exp": (F.fexp, np.exp), "tanh": (F.ftanh, np.tanh),
         "sigmoid": (F.fsigmoid, _sigmoid64), "log": (F.flog, np.log)}
_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 88.72283, 88.72284, 88.8, 89.0,
                     -87.33654, -87.34, -103.27893, -103.97, -104.0, -150.0, 0.625, -0.625,
                     0.62499994, 9.0, 9.1, 10.0, 1e-30, -1e-30, 1e-45, 1.4e-45, 3.4028235e38,
                     -3.4028235e38, 1.1754944e-38, 0.70710677, 0.7071068, 2.0, 0.5], np.float32)


def _ulps(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    r32 = ref.astype(np.float32)
    sp = np.spacing(np.abs(r32)).astype(np.float64)
    sp = np.where(np.isinf(r32), np.spacing(np.float32(3.4e38)), sp)
    err = np.abs(y.astype(np.float64) - ref) / sp
    same = (y == r32) | (np.isnan(y) & np.isnan(r32))
    return np.where(same, 0.0, err)


@pytest.mark.parametrize("name", list(_FAST))
def test_fastmath_float32_ulps(name):
    fn, ref = _FAST[name]
    bits = (np.arange(2 ** 32 // 1021, dtype=np.uint64) * 1021).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32), _SPECIAL])
    y = np.empty_like(x)
    for s in range(0, x.size, GRAIN_SIZE - 1):  # serial chunks: no parallel compile needed here
        n = min(GRAIN_SIZE - 1, x.size - s)
        launch(fn, (n,), [ArrayOperand(y, s, (1,)), ArrayOperand(x, s, (1,))])
    with np.errstate(all="ignore"):
        err = _ulps(y, ref(x.astype(np.float64)))
    worst = int(np.nanargmax(err))
    assert err[worst] <= 2.0, (name, x[worst], y[worst], err[worst])
    assert not np.isnan(err).any()


def test_fastmath_parallel_and_float64():
    x = flat(PAR, np.float32, -20, 20, seed=10)
    y = np.empty_like(x)
    launch(F.fsigmoid, (PAR,), [ArrayOperand(y, 0, (1,)), ArrayOperand(x, 0, (1,))])
    assert _ulps(y, _sigmoid64(x.astype(np.float64))).max() <= 2.0
    x64 = x.astype(np.float64)
    y64 = np.empty_like(x64)
    launch(F.ftanh, (100,), [ArrayOperand(y64, 0, (1,)), ArrayOperand(x64, 0, (1,))])
    np.testing.assert_allclose(y64[:100], np.tanh(x64[:100]), rtol=4e-16, atol=0)
    assert fastmath.sigmoid(-1000.0) == 0.0 and fastmath.exp(0.0) == 1.0  # Python fallbacks


# ---- copy ------------------------------------------------------------------------------------------

DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


def _source(sd) -> np.ndarray:
    """Values every destination represents the same way NumPy does (no UB casts)."""
    base = np.random.default_rng(11).uniform(0, 100, (6, 10))
    base[0, :3] = [0.0, 1.0, 3.5]
    s = (base + 1j * base[::-1]).astype(sd) if np.dtype(sd).kind == "c" else base.astype(sd)
    return s


def _copy_pairs(pairs) -> list[str]:
    bad = []
    for sd, dd in pairs:
        s = _source(sd)
        buf = s.reshape(-1)
        view = s[::2, 1::3]                                    # strided source
        out_buf = np.full(view.size + 2, 7, dd)
        out = out_buf[2:].reshape(view.shape)
        copy(operand(out_buf, out), operand(buf, view), shape_of(view))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = view.astype(dd)
        if not np.array_equal(out, want):
            bad.append(f"{np.dtype(sd)}->{np.dtype(dd)}: {out.ravel()[:4]} != {want.ravel()[:4]}")
    return bad


def test_copy_all_dtype_pairs():
    """121 compiles on a cold cache: split over two processes (each ~0.4 s per pair)."""
    pairs = list(itertools.product(range(len(DTYPES)), repeat=2))
    halves = [pairs[0::2], pairs[1::2]]
    code = ("import sys, json; sys.path.insert(0, {tests!r}); import test_kernels_cpu as t; "
            "pairs = json.loads(sys.argv[1]); "
            "print(json.dumps(t._copy_pairs([(t.DTYPES[a], t.DTYPES[b]) for a, b in pairs])))")
    code = code.format(tests=os.path.dirname(__file__))
    procs = [subprocess.Popen([sys.executable, "-c", code, json.dumps(h)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for h in halves[1:]]
    bad = _copy_pairs([(DTYPES[a], DTYPES[b]) for a, b in halves[0]])
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
        bad += json.loads(out.strip().splitlines()[-1])
    assert not bad, bad


def test_copy_specials_to_float_kinds():
    vals = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-8, 65504.0, 65520.0, 1e300], np.float64)
    for sd, dd in itertools.product([np.float64, np.float32, np.complex128], [np.float32, np.float16,
                                                                              np.complex64, np.bool_]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            src = vals.astype(sd)
            want = src.astype(dd)
        out = np.empty(vals.size, dd)
        copy(ArrayOperand(out, 0, (1,)), ArrayOperand(src, 0, (1,)), (vals.size,))
        np.testing.assert_array_equal(out, want)
        if dd == np.float16:
            np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))


def _serial_copy(dst: np.ndarray, src: np.ndarray) -> None:
    for s in range(0, src.size, GRAIN_SIZE - 1):  # chunks below the grain: no parallel compile
        n = min(GRAIN_SIZE - 1, src.size - s)
        copy(ArrayOperand(dst, s, (1,)), ArrayOperand(src, s, (1,)), (n,))


def test_float16_conversions_bit_exact():
    h = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)  # every half, NaN payloads too
    out = np.empty(h.size, np.float32)
    _serial_copy(out, h)
    np.testing.assert_array_equal(out.view(np.uint32), h.astype(np.float32).view(np.uint32))
    rng = np.random.default_rng(12)
    f32 = rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    halves = h.astype(np.float32)
    with np.errstate(all="ignore"):
        ties = halves[:-1] + (halves[1:] - halves[:-1]) / 2  # exact midpoints: half to even
    with np.errstate(all="ignore"):
        f64 = np.concatenate([f32.astype(np.float64) * 1.0000001, ties.astype(np.float64),
                              np.ldexp(1.0 + rng.random(5000), rng.integers(-30, 17, 5000))])
    for src in (np.concatenate([f32, halves, ties, _SPECIAL]), f64):
        out16 = np.empty(src.size, np.float16)
        _serial_copy(out16, src)
        with np.errstate(all="ignore"):
            want = src.astype(np.float16)
        np.testing.assert_array_equal(out16.view(np.uint16), want.view(np.uint16))


def test_copy_parallel_strided():
    src = flat(2 * PAR, np.float64, -1e5, 1e5, seed=13)
    out = np.empty(PAR, np.float16)
    copy(ArrayOperand(out, 0, (1,)), ArrayOperand(src, 1, (2,)), (PAR,))
    with np.errstate(over="ignore"):
        want = src[1::2].astype(np.float16)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))


# ---- the disk cache, seen from fresh processes ----------------------------------------------------

_SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from jtorch.kernels.cpu import _test_scalar_fns as F
        from jtorch.kernels.common.cache import KernelCacheWarning
        from jtorch.kernels.cpu.loops import ArrayOperand, launch, _kernels
        a, b, o = np.arange(10.0), np.full(10, 3.0), np.empty(10)
        launch(F.mul, (10,), [ArrayOperand(o, 0, (1,)), ArrayOperand(a, 0, (1,)),
                              ArrayOperand(b, 0, (1,))])
    stats = _kernels[(F.mul, 0b1111, 0)].contig.stats
    print(json.dumps({"ok": bool((o == a * b).all()),
                      "hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values()),
                      "warnings": [str(w.message) for w in caught
                                   if issubclass(w.category, KernelCacheWarning)]}))
""")


def _fresh_process(cache_dir: str) -> dict:
    env = dict(os.environ, JTORCH_CACHE_DIR=cache_dir)
    p = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _files(root: str) -> dict[str, float]:
    return {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime
            for d, _, fs in os.walk(root) for f in fs}


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory) -> str:
    """A cache directory after one process compiled F.mul into it, and a second one hit it."""
    root = str(tmp_path_factory.mktemp("kcache") / "jt")
    first = _fresh_process(root)
    assert first["ok"] and first["misses"] >= 1 and not first["warnings"]
    files = _files(root)
    assert any(f.endswith(".nbc") for f in files) and any(f.endswith(".nbi") for f in files)
    second = _fresh_process(root)
    assert second == {"ok": True, "hits": 1, "misses": 0, "warnings": []}
    assert _files(root) == files  # nothing recompiled, rewritten or added
    return root


def test_second_process_compiles_nothing(warm_cache):
    assert os.path.isdir(warm_cache)


@pytest.mark.parametrize("which", [".nbi", ".nbc"])
def test_corrupt_cache_warns_once(warm_cache, tmp_path, which):
    root = str(tmp_path / "jt")
    shutil.copytree(warm_cache, root)
    for f in _files(root):
        if f.endswith(which):
            with open(f, "wb") as fh:
                fh.write(b"\x80\x04garbage" * 7)
    res = _fresh_process(root)
    assert res["ok"] and res["misses"] == 1 and res["hits"] == 0
    assert len(res["warnings"]) == 1 and "corrupt" in res["warnings"][0]


@pytest.mark.parametrize("how", ["chmod", "not_a_directory"])
def test_unwritable_cache_dir_warns_once(tmp_path, how):
    if how == "chmod":
        if os.geteuid() == 0:
            pytest.skip("root ignores directory permissions (the other case covers it)")
        root = tmp_path / "ro"
        root.mkdir()
        root.chmod(0o500)
    else:
        (tmp_path / "file").write_text("in the way")
        root = tmp_path / "file" / "jt"
    try:
        res = _fresh_process(str(root))
    finally:
        if how == "chmod":
            root.chmod(0o700)
    assert res["ok"] and res["misses"] == 1
    assert len(res["warnings"]) == 1 and "not writable" in res["warnings"][0]
    if how == "chmod":
        assert os.listdir(root) == []


def test_package_kernel_cache_key_follows_callees_in_other_modules():
    """A hand-written kernel calling a function of another jtorch module (kernels/common's row
    bodies and windows) is cached under a key that includes that module's source: Numba itself
    sees only the kernel's own file (numba#1833)."""
    from jtorch.kernels.common.cache import _callees_digest
    from jtorch.kernels.cpu import pool, softmax_backward
    from jtorch.kernels.frontend import module_digest

    assert _callees_digest(softmax_backward._rows.py_func) == module_digest("jtorch.kernels.common.softmax_rows")
    assert module_digest("jtorch.kernels.common.pool_windows") in _callees_digest(pool._max_pool.py_func)
