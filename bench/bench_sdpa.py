"""scaled_dot_product_attention on the CPU: jtorch's blocked online-softmax kernels against torch's CPU flash
attention (torch.nn.functional.scaled_dot_product_attention), each library in its own worker process
(bench/_isolated.py: two OpenMP runtimes in one process slow each other down).

Rows and targets (batch 8, 8 heads, L = S = 512, E = 64, float32; causal and not):
  * `sdpa kernel ...`: the CPU backend's attention_forward (+ attention_backward), jtorch tensors in and
    out, against torch's F.scaled_dot_product_attention (+ backward): jtorch time <= 1.25x torch;
  * `F.sdpa ...`: the same through jtorch.nn.functional.scaled_dot_product_attention with autograd, where
    it exists (a SKIP row with the reason otherwise): <= 1.25x torch;
  * `sdpa peak memory L=S=4096`: batch 1, 8 heads, E=64, float32, forward and forward+backward: the peak
    resident memory a call adds, read in a fresh process per library (Linux: VmHWM of /proc/self/status,
    reset through /proc/self/clear_refs before the call, minus VmRSS then, after glibc's malloc_trim so
    that freed heap pages are not silently reused; a warm-up call at a small size loads the kernels
    first). Outputs and gradients count. Target: <= 2x torch's.
``python bench/bench_sdpa.py`` prints the table for this module alone.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import progress  # noqa: E402
from _isolated import time_isolated  # noqa: E402
from bench_autograd import _judged_row  # noqa: E402
from bench_elementwise import QUICK, _row, try_import_torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (2, 4, 256, 64) if QUICK else (8, 8, 512, 64)  # batch, heads, L = S, E
TARGET = 1.25
MEM_TARGET = 2.0


def _library(lib: str) -> Any:
    if lib == "jtorch":
        import jtorch as m
        return m
    m = try_import_torch()
    if m is None:
        raise ImportError("torch is not installed")
    return m


def _reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    s = q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def sdpa_case(lib: str, path: str, backward: bool, causal: bool, shape: list[int], seed: int = 0,
              check: bool = True) -> Callable[[], Any]:
    """One attention call (forward, or forward + backward) in `lib`; `path` "kernel" calls jtorch's CPU
    backend methods on jtorch tensors, "functional" goes through F.scaled_dot_product_attention (torch:
    always). Its forward result is checked against float64 NumPy first (when `check`)."""
    m = _library(lib)
    B, H, L, E = shape
    rng = np.random.default_rng(seed)
    q, k, v, do = (rng.standard_normal((B, H, L, E)).astype(np.float32) for _ in range(4))
    scale = 1 / np.sqrt(E)
    if lib == "jtorch" and path == "kernel":
        from jtorch.backends import backend

        cpu = backend("cpu")
        N = B * H
        jq, jk, jv, jdo = (m.from_numpy(x.reshape(N, L, E)) for x in (q, k, v, do))

        def step() -> Any:  # outputs allocated per call, as torch's are
            out, lse = m.empty(N, L, E), m.empty(N, L)
            cpu.attention_forward(jq, jk, jv, None, causal, scale, out, lse)
            if backward:
                grads = [m.empty(N, L, E) for _ in range(3)]
                cpu.attention_backward(jdo, jq, jk, jv, None, causal, scale, out, lse, *grads)
            return out.view(B, H, L, E)
    else:
        F = m.nn.functional
        if not hasattr(F, "scaled_dot_product_attention"):
            raise AttributeError(f"{lib}.nn.functional has no scaled_dot_product_attention")
        tq, tk, tv = (m.from_numpy(x.copy()).requires_grad_(backward) for x in (q, k, v))
        tdo = m.from_numpy(do)

        def step() -> Any:
            if backward:
                for t in (tq, tk, tv):
                    t.grad = None
            o = F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
            if backward:
                o.backward(tdo)
            return o
    if check:
        got = step().detach().numpy()
        if not np.allclose(got, _reference(q, k, v, causal), rtol=1e-4, atol=1e-5):
            raise AssertionError(f"{lib}: wrong attention output")
    return step


# ---- peak memory, in a fresh process per library -----------------------------------------------------
def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no {field} in /proc/self/status")


def _peak_worker(lib: str, path: str, backward: bool, shape: list[int]) -> None:
    """Prints the peak resident bytes one call adds (the kernels are loaded by a small call first)."""
    B, H, L, E = shape
    # load / compile the kernels, on several heads so that every thread has run a block product
    sdpa_case(lib, path, backward, False, [1, 4, 128, E], check=False)()
    step = sdpa_case(lib, path, backward, False, shape, check=False)
    import ctypes
    import gc

    gc.collect()
    try:  # freed heap memory back to the system: its reuse would hide what the call allocates
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open("/proc/self/clear_refs", "w") as f:  # resets VmHWM to the current RSS
        f.write("5")
    before = _status("VmRSS")
    step()
    print(json.dumps({"peak_extra": _status("VmHWM") - before}))


def _peak(lib: str, path: str, backward: bool, shape: list[int]) -> tuple[int | None, str | None]:
    code = (f"import sys; sys.path[:0] = {[HERE] + sys.path!r}; import bench_sdpa; "
            f"bench_sdpa._peak_worker({lib!r}, {path!r}, {backward!r}, {shape!r})")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["failed"])[-1][:160]
        return int(json.loads(r.stdout.strip().splitlines()[-1])["peak_extra"]), None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def _memory_row(name: str, backward: bool, shape: list[int]) -> dict:
    progress(name)
    torch = try_import_torch()
    jt, jreason = _peak("jtorch", "kernel", backward, shape)
    th, treason = (_peak("torch", "functional", backward, shape) if torch is not None else (None, "not installed"))
    results = {"jtorch": None if jt is None else {"median_s": jt, "min_s": jt, "peak_bytes": jt},
               "numpy": None,
               "torch": None if th is None else {"median_s": th, "min_s": th, "peak_bytes": th}}
    row = _row(name, "time", results, target_vs="torch" if torch is not None else None,
               target=MEM_TARGET if torch is not None else None, nbytes=None,
               extra={"measure": "peak resident bytes added by one call (VmHWM after clear_refs, minus VmRSS)"})
    if row.get("target"):
        row["target"]["text"] = f"peak memory <= {MEM_TARGET:g}x torch"
    reasons = [f"{k}: {v}" for k, v in (("jtorch", jreason), ("torch", treason)) if v]
    if reasons:
        row["reason"] = "; ".join(reasons)
    row["group"] = "sdpa"
    return row


def run() -> dict:
    torch = try_import_torch()
    rows: list[dict] = []
    notes: list[str] = []
    B, H, L, E = SHAPE
    libs = ["jtorch", "torch"] if torch else ["jtorch"]
    number, repeat = (2, 3) if QUICK else (2, 7)
    try:
        import jtorch

        has_f = hasattr(jtorch.nn.functional, "scaled_dot_product_attention")
    except Exception:
        has_f = False
    for path in ("kernel", "functional"):
        for backward in (False, True):
            for causal in (False, True):
                what = ("fwd+bwd" if backward else "fwd") + (" causal" if causal else "")
                label = "sdpa kernel" if path == "kernel" else "F.sdpa"
                name = f"{label} {B}x{H}x{L}x{E} f32 {what}"
                if path == "functional" and not has_f:
                    row = _row(name, "time", {"jtorch": None, "numpy": None, "torch": None}, target_vs="torch",
                               target=TARGET, nbytes=None,
                               extra={"reason": "jtorch.nn.functional has no scaled_dot_product_attention"})
                    row["status"], row["group"] = "SKIP", "sdpa"
                    rows.append(row)
                    continue
                progress(name)
                args = {"path": path, "backward": backward, "causal": causal, "shape": list(SHAPE)}
                # a call takes 50-500 ms: one untimed call per turn wakes the pools (not _isolated's 10)
                times, reasons = time_isolated("bench_sdpa:sdpa_case", libs, args, number, repeat, warmup=2,
                                               turn_warmup=1)
                row = _judged_row(name, ["jtorch", "numpy", "torch"], times, reasons, has_torch=torch is not None,
                                  number=number, repeat=repeat, target=TARGET)
                row["group"] = "sdpa"
                row["processes"] = "one per library"
                rows.append(row)
    mem_shape = [1, 2, 1024, 64] if QUICK else [1, 8, 4096, 64]
    for backward in (False, True):
        rows.append(_memory_row(f"sdpa peak memory {'x'.join(map(str, mem_shape))} f32 "
                                f"{'fwd+bwd' if backward else 'fwd'}", backward, mem_shape))
    notes.append("torch's side of every row is torch.nn.functional.scaled_dot_product_attention (its CPU flash "
                 "attention kernel); jtorch's kernel rows call the CPU backend's attention_forward/backward")
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    for r in run()["rows"]:
        ratio = r.get("ratio")
        print(f"{r['name']:<48} {r['status']:<6} {'' if ratio is None else f'{ratio:.2f}x'} {r.get('reason', '')}")
