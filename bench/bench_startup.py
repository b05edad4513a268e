"""Start-up: `import` and the first operator calls in a FRESH Python process.

Each measurement is a new interpreter (``python bench/bench_startup.py --child LIB``) that
times ``import LIB``, then the first calls of ``a * b + a`` and ``exp(a) - b`` on float32 and
float64 tensors, each dtype at a small size (1,000 elements: the serial loop) and at a size
above PyTorch's grain size (131,072 elements: the parallel loop, so starting Numba's thread
pool is included). Inputs are made before the clock starts; everything after ``import`` that
the calls trigger (kernel module generation, Numba cache loads or compiles, thread start-up)
is in "first calls".

jtorch runs against a fresh temporary JTORCH_CACHE_DIR: the first process finds it empty (the
COLD figure: every kernel compiles), the next ones find it filled (the WARM figure, target
<= 200 ms, <= 300 ms where SciPy is installed, with nothing compiled). "Nothing compiled" is
checked three ways, per warm process:
  1. Numba's "numba:compile" event (fired by Dispatcher.compile only when it really compiles,
     never on a cache load) is recorded in the child: count must be 0;
  2. every Numba dispatcher in the loaded jtorch kernel modules reports its
     ``stats.cache_misses`` (must be 0) and ``stats.cache_hits``;
  3. the cache directory's files (name, size, mtime) are listed before and after the
     process: no file may appear or change.
One more warm process (``--diagnose``) starts Numba's CPU target explicitly before the calls and
times it apart: the note "where warm first calls go" splits the figure into Numba's start-up
(registries, and on a machine with SciPy the BLAS probe that imports scipy.linalg) and the
kernel loads. NumPy and torch run the same script (no cache involved) for context.

The import row runs Python with its default bytecode caching (what ``pip install`` and a plain
interpreter give users), after one import that writes the bytecode; where the environment sets
PYTHONDONTWRITEBYTECODE=1 (some containers do), a report row also times the import
as found, compiling jtorch's sources every time.

Import does not grow with the number of operators: a declaration is recorded, and the operator is
registered with the dispatcher, and its bindings generated, on first use. Two more figures show
it: `-X importtime` split by package (one process), and the cost of declaring 1,000 more
operators (synthetic elementwise families and plain declarations) in a fresh process.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (1000, 131072)
WARM_RUNS = 5
IMPORT_RUNS = 7
IMPORT_TARGET_S = 0.500
# Warm first calls: 200 ms in a clean environment; 300 ms where SciPy is installed (Numba's CPU
# target start, when it happens, imports scipy.linalg to probe for BLAS).
TARGET_S = 0.300 if importlib.util.find_spec("scipy") is not None else 0.200
N_DECLARE = 1000


# ---------------------------------------------------------------------------------------------
# child: one fresh process

def _child(lib: str, diagnose: bool = False) -> dict:
    """One fresh process. `diagnose` (jtorch only): start Numba's CPU target explicitly before
    the calls and time it apart, to split "first calls" into Numba start-up and kernel loads."""
    t0 = time.perf_counter()
    if lib == "jtorch":
        import jtorch as m
    elif lib == "torch":
        import torch as m
        m.set_num_threads(2)
    else:
        import numpy as m
    t_import = time.perf_counter() - t0
    import numpy as np

    extra_s = 0.0
    count_compiles = None
    if lib == "jtorch":
        # If jtorch did not import Numba itself, the first call would: charge that to the calls.
        t1 = time.perf_counter()
        numba_preloaded = "numba" in sys.modules
        from numba.core import event
        rec = event.RecordingListener()
        event.register("numba:compile", rec)
        extra_s = 0.0 if numba_preloaded else time.perf_counter() - t1
        count_compiles = lambda: [ev.data["dispatcher"].py_func.__qualname__  # noqa: E731
                                  for _, ev in rec.buffer if ev.is_start]

    rng = np.random.default_rng(0)
    inputs = []
    for dt in (np.float32, np.float64):
        for n in SIZES:
            a_np = rng.standard_normal(n).astype(dt)
            b_np = rng.standard_normal(n).astype(dt)
            if lib == "jtorch":
                sys.path.insert(0, HERE)
                from bench_elementwise import to_jtorch
                a, b = to_jtorch(a_np), to_jtorch(b_np)
            elif lib == "torch":
                a, b = m.from_numpy(a_np), m.from_numpy(b_np)
            else:
                a, b = a_np, b_np
            inputs.append((f"{np.dtype(dt).name}[{n}]", a, b, a_np, b_np))

    exp = m.exp
    diag: dict[str, Any] = {}
    steps = {}
    results = []
    t_calls = time.perf_counter()
    for name, a, b, _, _ in inputs:
        t = time.perf_counter()
        r1 = a * b + a
        r2 = exp(a) - b
        steps[name] = time.perf_counter() - t
        results.append((r1, r2))
    first_calls = time.perf_counter() - t_calls + extra_s
    if diagnose:  # what the calls did not wait for: Numba's full CPU target start
        from numba.core.registry import cpu_target
        diag["scipy_during_calls"] = "scipy.linalg" in sys.modules
        t = time.perf_counter()
        cpu_target.target_context.refresh()
        cpu_target.typing_context.refresh()
        diag["numba_target_start_s"] = time.perf_counter() - t
        diag["scipy_imported_by_numba"] = "scipy.linalg" in sys.modules and not diag["scipy_during_calls"]

    for (name, _, _, a_np, b_np), (r1, r2) in zip(inputs, results):  # the work was real
        got1, got2 = (np.asarray(r) if lib != "jtorch" else r._numpy_view() for r in (r1, r2))
        tol = 1e-5 if a_np.dtype == np.float32 else 1e-12
        if not (np.allclose(got1, a_np * b_np + a_np, rtol=tol) and
                np.allclose(got2, np.exp(a_np) - b_np, rtol=tol, atol=tol)):
            raise AssertionError(f"{lib}: wrong result for {name}")

    out: dict[str, Any] = {"import_s": t_import, "first_calls_s": first_calls, "steps_s": steps,
                           "scipy_linalg_imported": "scipy.linalg" in sys.modules, **diag}
    if lib == "jtorch":
        from numba.core.dispatcher import Dispatcher
        hits = misses = 0
        kernels = []
        for modname, mod in list(sys.modules.items()):
            if not (modname.startswith("jtorch") and mod is not None):
                continue
            for obj in vars(mod).values():
                if isinstance(obj, Dispatcher) and obj.py_func.__module__ == modname:
                    st = obj.stats
                    h, mi = sum(st.cache_hits.values()), sum(st.cache_misses.values())
                    hits, misses = hits + h, misses + mi
                    if h or mi:
                        kernels.append(f"{modname.rsplit('.', 1)[-1]}.{obj.py_func.__name__}")
        out.update(compiled=count_compiles(), cache_hits=hits, cache_misses=misses,
                   kernels_loaded=len(kernels), numba_imported_by_jtorch=numba_preloaded)
    return out


def _declare_child() -> dict:
    """Import jtorch, then time declaring N_DECLARE more operators the ways the families do:
    elementwise families (out=, functional, in-place: 3 operators each) and plain declarations."""
    t0 = time.perf_counter()
    import jtorch
    from jtorch.kernels import scalar_binary as sb
    from jtorch.native.elementwise import elementwise
    from jtorch.native.registry import declare
    from jtorch.structured.tensor_iterator import BINARY_OP
    t_import = time.perf_counter() - t0
    n_fam = N_DECLARE // 4
    t = time.perf_counter()
    for i in range(n_fam):
        elementwise(f"jt_bench{i}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                    functional=f"jt_bench{i}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                    inplace=f"jt_bench{i}_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                    config=BINARY_OP, scalar=sb.add)
    for i in range(N_DECLARE - 3 * n_fam):
        declare(f"jt_bench_plain{i}(Tensor self, int dim=0, *, ScalarType? dtype=None) -> Tensor",
                variants="function, method")
    declare_s = time.perf_counter() - t
    n = len(jtorch.native.registry.declarations)
    return {"import_s": t_import, "declare_s": declare_s, "declared_total": n}


def _bytecode_env(prefix: str) -> dict:
    """The environment with Python's default bytecode caching: a ``pip install`` compiles every
    module, and a plain Python writes ``__pycache__`` on first import. Some containers set
    PYTHONDONTWRITEBYTECODE=1, so that every import compiles jtorch's sources again (about 0.2 s
    of the import on a 2-core machine); the import row measures what users get, in
    a private cache (`prefix`) that the bench removes afterwards."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = prefix
    return env


def _time_import(env: dict | None) -> float | None:
    proc = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import jtorch; "
                           "print(time.perf_counter() - t)"], capture_output=True, text=True, timeout=300, env=env)
    return float(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None


def _import_split(env: dict | None = None) -> dict[str, float]:
    """Self times of one `python -X importtime -c "import jtorch"`, summed by package (ms)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import jtorch"], capture_output=True,
                          text=True, timeout=300, env=env)
    split: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
            continue
        self_us, _, name = line[len("import time:"):].split("|")
        top = name.strip().split(".")[0]
        key = top if top in ("jtorch", "numpy", "numba", "llvmlite", "scipy") else "other"
        split[key] = split.get(key, 0.0) + int(self_us) / 1e3
    return split


# ---------------------------------------------------------------------------------------------
# parent

def _listing(root: str) -> dict[str, tuple[int, int]]:
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            try:
                st = os.stat(p)
            except OSError:
                continue
            files[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return files


def _spawn(lib: str, env: dict | None = None, diagnose: bool = False) -> dict:
    # the children time this checkout's jtorch, installed or not (run_all puts it on sys.path)
    env = dict(os.environ if env is None else env)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", lib]
                          + (["--diagnose"] if diagnose else []),
                          capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
        raise RuntimeError(f"{lib} child failed: {tail[0]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _stats(xs: list[float]) -> dict:
    s = sorted(xs)
    return {"median_s": s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2,
            "min_s": s[0], "rounds": len(s)}


def _row(name: str, cells: dict[str, dict | None], **kw: Any) -> dict:
    row = {"name": name, "group": "startup", "kind": "time", "better": "lower",
           "jtorch": cells.get("jtorch"), "numpy": cells.get("numpy"), "torch": cells.get("torch"),
           "ratio": None, "ratio_vs": "torch", "vs_torch": None, "target": None, "status": "report"}
    jt, th = cells.get("jtorch"), cells.get("torch")
    if jt and th:
        row["ratio"] = row["vs_torch"] = jt["median_s"] / th["median_s"]
    row.update(kw)
    return row


def run() -> dict:
    runs: dict[str, list[dict]] = {}
    notes: list[str] = []
    for lib in ("numpy", "torch"):
        try:
            runs[lib] = [_spawn(lib) for _ in range(3)]
        except Exception as e:
            notes.append(f"{lib} skipped: {e}")

    # import alone, in several fresh processes (no kernel runs, no cache involved)
    pyc = tempfile.mkdtemp(prefix="jtorch-bench-pyc-")
    try:
        env_pyc = _bytecode_env(pyc)
        _time_import(env_pyc)  # the first import writes the bytecode, as on any default Python
        imports = [t for t in (_time_import(env_pyc) for _ in range(IMPORT_RUNS)) if t is not None]
        split = _import_split(env_pyc)
    finally:
        shutil.rmtree(pyc, ignore_errors=True)
    as_found = [t for t in (_time_import(None) for _ in range(3)) if t is not None] \
        if os.environ.get("PYTHONDONTWRITEBYTECODE") else []
    declared = _spawn("declare")

    cache = tempfile.mkdtemp(prefix="jtorch-bench-cache-")
    env = dict(os.environ, JTORCH_CACHE_DIR=cache)
    try:
        try:
            cold = _spawn("jtorch", env)
        except RuntimeError as e:  # an operator still missing: say so, keep the context rows
            return {"rows": [_row(n, {}, status="SKIP", reason=str(e)) for n in
                             ("import jtorch in a fresh process", "first calls, warm cache", "first calls, cold cache")],
                    "notes": notes}
        n_files = len(_listing(cache))
        warm, changed = [], []
        for _ in range(WARM_RUNS):
            before = _listing(cache)
            r = _spawn("jtorch", env)
            after = _listing(cache)
            changed.append(sorted(p for p in after if before.get(p) != after[p]))
            warm.append(r)
        diag = _spawn("jtorch", env, diagnose=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    def cells(key: str, jt: list[dict]) -> dict:
        c = {lib: _stats([r[key] for r in rs]) for lib, rs in runs.items()}
        c["jtorch"] = _stats([r[key] for r in jt])
        return c

    compiled = sorted({q for r in warm for q in r["compiled"]})
    misses = sum(r["cache_misses"] for r in warm)
    new_files = sorted({p for ch in changed for p in ch})
    nothing = not compiled and not misses and not new_files
    first = cells("first_calls_s", warm)
    ok = first["jtorch"]["median_s"] <= TARGET_S and nothing
    reason = None if nothing else (
        f"compiled in a warm process: {compiled or '-'}; cache misses {misses}; "
        f"cache files added/changed: {new_files[:4] or '-'}")
    steps = {k: round(sum(r["steps_s"][k] for r in warm) / len(warm) * 1e3, 1) for k in warm[0]["steps_s"]}
    imp = cells("import_s", warm)
    if imports:
        imp["jtorch"] = _stats(imports)
    imp_ok = imp["jtorch"]["median_s"] <= IMPORT_TARGET_S
    rows = [
        _row("import jtorch in a fresh process", imp, status="PASS" if imp_ok else "MISS",
             target={"op": "<=", "value": IMPORT_TARGET_S, "absolute": True,
                     "text": f"<= {IMPORT_TARGET_S * 1e3:.0f} ms"}, import_split_ms=split),
        *([_row("import jtorch, PYTHONDONTWRITEBYTECODE=1 as found (sources compiled each time)",
                {"jtorch": _stats(as_found)}, reason="this environment forbids bytecode caching; "
                "a pip install or a default Python caches it, as the row above measures")] if as_found else []),
        _row(f"declare {N_DECLARE} more operators", {"jtorch": _stats([declared["declare_s"]])},
             per_operator_us=declared["declare_s"] / N_DECLARE * 1e6),
        _row("first calls, warm cache", first, status="PASS" if ok else "MISS",
             target={"op": "<=", "value": TARGET_S, "absolute": True,
                     "text": f"<= {TARGET_S * 1e3:.0f} ms, 0 compiled"},
             compiles=len(compiled), cache_misses=misses, files_added_or_changed=len(new_files),
             cache_hits_per_process=warm[0]["cache_hits"], steps_ms_mean=steps,
             **({"reason": reason} if reason else {})),
        _row("first calls, cold cache", {"jtorch": _stats([cold["first_calls_s"]]),
                                          **{k: v for k, v in first.items() if k != "jtorch"}},
             compiles=len(cold["compiled"]), cache_files_written=n_files),
    ]
    notes.append(
        f"first calls = a*b+a and exp(a)-b on float32/float64 at {SIZES} elements "
        f"({4 * len(SIZES)} kernel launches per dtype); warm over {WARM_RUNS} fresh processes "
        f"(mean ms per input: {steps})")
    notes.append(
        f"nothing compiled (warm): numba:compile events {len(compiled)}, dispatcher cache_misses "
        f"{misses}, cache_hits {warm[0]['cache_hits']} per process over {warm[0]['kernels_loaded']} "
        f"entry points, cache files added/changed {len(new_files)} (of {n_files} written cold)")
    notes.append(
        f"import jtorch over {len(imports)} fresh processes; -X importtime self times by package (ms, one "
        f"process): " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(split.items(), key=lambda kv: -kv[1])))
    notes.append(
        f"declaring {N_DECLARE} more operators (after import, fresh process): {declared['declare_s'] * 1e3:.1f} ms, "
        f"{declared['declare_s'] / N_DECLARE * 1e6:.1f} us each (nothing parsed or registered until first use)")
    notes.append(
        f"Numba's full CPU target start, which loading cached kernels does not wait for (timed after the "
        f"first calls of one more warm process): {diag['numba_target_start_s'] * 1e3:.0f} ms"
        f"{' (it imported scipy.linalg: numba.np.arraymath probes for BLAS)' if diag['scipy_imported_by_numba'] else ''}"
        f"; scipy.linalg imported during the first calls: {diag['scipy_during_calls']}")
    notes.append(f"cold: {len(cold['compiled'])} Numba compilations, {n_files} cache files written, "
                 f"first calls {cold['first_calls_s']:.2f} s, import {cold['import_s'] * 1e3:.0f} ms")
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        print(json.dumps(_declare_child() if sys.argv[2] == "declare" else
                         _child(sys.argv[2], diagnose="--diagnose" in sys.argv)))
    else:
        sys.path.insert(0, HERE)
        import run_all
        run_all.main(["--only", "startup"])
