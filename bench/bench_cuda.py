"""CPU against CUDA, in one run: jtorch on the GPU against the GPU's own copy bandwidth, cuBLAS
(through torch CUDA) and torch CUDA; jtorch on the CPU beside it for scale (field ``jtorch_cpu``);
CuPy as a peer where installed (field ``cupy``).

Rows and targets, all on the GPU:
  * 16M float32 add, mul, exp: GB/s >= 0.8x the device-to-device copy bandwidth measured in this run;
  * sum over 4096x4096 float32: GB/s >= 0.7x copy bandwidth; softmax(-1) on 4096x4096: reported;
  * 4096x4096 float32 matmul: time <= 2x cuBLAS's (torch CUDA's mm), i.e. at least 50% of it;
  * 2-layer MLP forward + backward (64x1000 input, 1000x100, 100x10, ReLU, squared error): reported
    against torch CUDA;
  * host -> device and device -> host copies of 64 MB: reported (GB/s);
  * 4-element add latency: time <= 3x torch CUDA's.
Without a GPU (or under the simulator) the module says so and runs the CPU rows only (jtorch CPU
against NumPy and torch for the same workloads), so the run still shows the CPU side of the table.
GPU timings: each timed call runs the work `inner` times and then synchronises the device once.
"""
from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from _common import progress, time_round_robin  # noqa: E402
from bench_elementwise import QUICK, _row, summary, try_import_torch  # noqa: E402

MB64 = 64 * 2**20
# BENCH_CUDA_SMOKE=1 with NUMBA_ENABLE_CUDASIM=1: run the GPU rows' code on tiny sizes under the
# simulator (a check that the module runs; its numbers mean nothing)
SMOKE = bool(os.environ.get("BENCH_CUDA_SMOKE"))


def _gpu() -> "tuple[bool, str]":
    from jtorch.kernels.cuda import driver

    if driver.SIMULATED and SMOKE:
        return True, "simulator smoke test (numbers mean nothing)"
    if driver.SIMULATED:
        return False, "the CUDA simulator is on (NUMBA_ENABLE_CUDASIM): no GPU timings"
    if not driver.is_available():
        return False, "no GPU: numba.cuda finds no CUDA device; CUDA rows not run"
    return True, driver.device_name()


def _peers() -> dict:
    torch = try_import_torch()
    tc = torch if torch is not None and torch.cuda.is_available() and not SMOKE else None
    try:
        import cupy
        cupy.zeros(1)
    except Exception:  # noqa: BLE001 - CuPy is an optional peer
        cupy = None
    if SMOKE:
        cupy = None
    return {"torch": torch, "torch_cuda": tc, "cupy": cupy}


def _synced(fn: Callable, sync: Callable, inner: int) -> Callable:
    def run() -> None:
        for _ in range(inner):
            fn()
        sync()
    return run


def _time(fns: dict[str, Callable], repeat: int) -> dict[str, dict]:
    for f in fns.values():
        f()  # warm-up (compiles on first use)
    t = time_round_robin(fns, 1, repeat)
    return {k: summary(v) for k, v in t.items()}


def _gbps(s: dict, nbytes: int, inner: int) -> dict:
    out = dict(s)
    out["median_s"] /= inner
    out["min_s"] /= inner
    out["gbps"] = nbytes / out["median_s"] / 1e9
    out["gbps_best"] = nbytes / out["min_s"] / 1e9
    return out


def _bandwidth_row(name: str, times: dict, nbytes: int, inner: int, copy_gbps: float, target: "float | None") -> dict:
    jt = _gbps(times["jtorch"], nbytes, inner)
    row = {"name": name, "group": "cuda", "kind": "throughput", "nbytes": nbytes, "jtorch": jt, "numpy": None,
           "torch": _gbps(times["torch"], nbytes, inner) if "torch" in times else None,
           "cupy": _gbps(times["cupy"], nbytes, inner) if "cupy" in times else None,
           "ratio": jt["gbps"] / copy_gbps, "ratio_vs": "copy bw", "better": "higher", "copy_gbps": copy_gbps}
    row["vs_torch"] = (jt["gbps"] / row["torch"]["gbps"]) if row["torch"] else None
    if target is not None:
        row["target"] = {"op": ">=", "value": target, "vs": "copy bw", "text": f"GB/s >= {target:g}x device copy"}
        row["status"] = "PASS" if row["ratio"] >= target else "MISS"
    else:
        row["target"], row["status"] = None, "report"
    return row


def _time_row(name: str, times: dict, inner: int, target: "float | None") -> dict:
    res = {}
    for k, s in times.items():
        s = dict(s)
        s["median_s"] /= inner
        s["min_s"] /= inner
        res[k] = s
    row = _row(name, "time", {"jtorch": res.get("jtorch"), "torch": res.get("torch")},
               target_vs="torch" if "torch" in res else None, target=target if "torch" in res else None, nbytes=None)
    row["group"] = "cuda"
    row["cupy"] = res.get("cupy")
    return row


def gpu_rows(rows: list, peers: dict) -> None:
    import jtorch

    torch, cupy = peers["torch_cuda"], peers["cupy"]
    sync_j = jtorch.cuda.synchronize
    sync_t = torch.cuda.synchronize if torch else None
    sync_c = (lambda: cupy.cuda.Device().synchronize()) if cupy else None
    n = 4096 if SMOKE else (1 << 22) if QUICK else 16 * 2**20
    inner, repeat = (1, 1) if SMOKE else (5, 5) if QUICK else (20, 9)
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    ja, jb = jtorch.from_numpy(a_np).cuda(), jtorch.from_numpy(b_np).cuda()
    jout = jtorch.empty_like(ja)
    ta, tb = (torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()) if torch else (None, None)
    ca, cb = (cupy.asarray(a_np), cupy.asarray(b_np)) if cupy else (None, None)

    progress("device copy bandwidth (reference for the elementwise and sum targets)")
    t = _time({"jtorch": _synced(lambda: jout.copy_(ja), sync_j, inner)}, repeat)
    copy_gbps = _gbps(t["jtorch"], 2 * n * 4, inner)["gbps"]
    if torch:
        tout = torch.empty_like(ta)
        tt = _time({"torch": _synced(lambda: tout.copy_(ta), sync_t, inner)}, repeat)
        copy_gbps = max(copy_gbps, _gbps(tt["torch"], 2 * n * 4, inner)["gbps"])
    rows.append({"name": f"device copy {n * 4 / 2**20:g} MB", "group": "cuda", "kind": "throughput", "nbytes": 2 * n * 4,
                 "jtorch": _gbps(t["jtorch"], 2 * n * 4, inner), "numpy": None, "torch": None, "ratio": None,
                 "target": None, "status": "report", "copy_gbps": copy_gbps})

    for name, jf, tf, cf, nb in [
        ("add", lambda: ja + jb, lambda: ta + tb, lambda: ca + cb, 3 * n * 4),
        ("mul", lambda: ja * jb, lambda: ta * tb, lambda: ca * cb, 3 * n * 4),
        ("exp", lambda: ja.exp(), lambda: ta.exp(), lambda: cupy.exp(ca), 2 * n * 4),
    ]:
        label = f"cuda {n / 2**20:g}M f32 {name}"
        progress(label)
        fns = {"jtorch": _synced(jf, sync_j, inner)}
        if torch:
            fns["torch"] = _synced(tf, sync_t, inner)
        if cupy:
            fns["cupy"] = _synced(cf, sync_c, inner)
        rows.append(_bandwidth_row(label, _time(fns, repeat), nb, inner, copy_gbps, 0.8))

    side = 16 if SMOKE else 1024 if QUICK else 4096
    m_np = rng.standard_normal((side, side)).astype(np.float32)
    jm = jtorch.from_numpy(m_np).cuda()
    tm = torch.from_numpy(m_np).cuda() if torch else None
    cm = cupy.asarray(m_np) if cupy else None
    for label, jf, tf, cf, nb, target in [
        (f"cuda sum {side}x{side} f32", lambda: jm.sum(), lambda: tm.sum(), lambda: cm.sum(), side * side * 4, 0.7),
        (f"cuda softmax(-1) {side}x{side} f32", lambda: jm.softmax(-1), lambda: tm.softmax(-1), None,
         2 * side * side * 4, None),
    ]:
        progress(label)
        fns = {"jtorch": _synced(jf, sync_j, inner)}
        if torch:
            fns["torch"] = _synced(tf, sync_t, inner)
        if cupy and cf is not None:
            fns["cupy"] = _synced(cf, sync_c, inner)
        rows.append(_bandwidth_row(label, _time(fns, repeat), nb, inner, copy_gbps, target))

    label = f"cuda matmul {side}x{side} f32"
    progress(label)
    fns = {"jtorch": _synced(lambda: jm @ jm, sync_j, 2)}
    if torch:
        fns["torch"] = _synced(lambda: tm @ tm, sync_t, 2)
    if cupy:
        fns["cupy"] = _synced(lambda: cm @ cm, sync_c, 2)
    rows.append(_time_row(label + " (vs cuBLAS via torch)", _time(fns, 5), 2, 2.0))

    b_, d_, h_ = (4, 8, 4) if SMOKE else (64, 1000, 100)
    label = f"cuda MLP fwd+bwd {b_}x{d_}->{h_}->10"
    progress(label)
    xs = rng.standard_normal((b_, d_)).astype(np.float32)
    w1 = (rng.standard_normal((d_, h_)) / 30).astype(np.float32)
    w2 = (rng.standard_normal((h_, 10)) / 10).astype(np.float32)
    ys = rng.standard_normal((b_, 10)).astype(np.float32)

    def step(m: Any) -> Callable:
        x, y = m.from_numpy(xs).cuda(), m.from_numpy(ys).cuda()
        p1, p2 = m.from_numpy(w1).cuda().requires_grad_(), m.from_numpy(w2).cuda().requires_grad_()

        def run() -> None:
            p1.grad = p2.grad = None
            loss = ((x @ p1).relu() @ p2 - y).pow(2).sum()
            loss.backward()
        return run

    fns = {"jtorch": _synced(step(jtorch), sync_j, inner)}
    if torch:
        fns["torch"] = _synced(step(torch), sync_t, inner)
    rows.append(_time_row(label, _time(fns, repeat), inner, None))

    progress("cuda 4-element add latency")
    s_np = rng.standard_normal(4).astype(np.float32)
    js = jtorch.from_numpy(s_np).cuda()
    k = 2 if SMOKE else 200
    fns = {"jtorch": _synced(lambda: js + js, sync_j, k)}
    if torch:
        tsm = torch.from_numpy(s_np).cuda()
        fns["torch"] = _synced(lambda: tsm + tsm, sync_t, k)
    rows.append(_time_row("cuda 4-element add (latency)", _time(fns, repeat), k, 3.0))

    host = rng.standard_normal(1024 if SMOKE else MB64 // 4).astype(np.float32)
    jh = jtorch.from_numpy(host)
    jd = jh.cuda()
    mb = f"{host.nbytes / 2**20:g} MB"
    for label, jf in [(f"host->device {mb}", lambda: jh.cuda()), (f"device->host {mb}", lambda: jd.cpu())]:
        progress(label)
        t = _time({"jtorch": _synced(jf, sync_j, 3)}, repeat)
        rows.append({"name": label, "group": "cuda", "kind": "throughput", "nbytes": host.nbytes,
                     "jtorch": _gbps(t["jtorch"], host.nbytes, 3), "numpy": None, "torch": None, "ratio": None,
                     "target": None, "status": "report"})


def cpu_rows(rows: list, peers: dict) -> None:
    """The same workloads on the CPU (jtorch vs NumPy and torch), so a machine without a GPU still
    shows this table's CPU side."""
    import jtorch

    torch = peers["torch"]
    n = (1 << 20) if QUICK else 16 * 2**20
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    ja, jb = jtorch.from_numpy(a), jtorch.from_numpy(b)
    ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
    side = 512 if QUICK else 4096
    m = rng.standard_normal((side, side)).astype(np.float32)
    jm, tm = jtorch.from_numpy(m), (torch.from_numpy(m) if torch else None)
    msmall = side // 4  # a 4096^3 matmul is seconds per call on this CPU: the CPU row uses a quarter side
    mm = np.ascontiguousarray(m[:msmall, :msmall])
    jmm, tmm = jtorch.from_numpy(mm), (torch.from_numpy(mm) if torch else None)
    cases = [
        (f"cpu {n >> 20}M f32 add", lambda: ja + jb, lambda: a + b, lambda: ta + tb),
        (f"cpu {n >> 20}M f32 exp", lambda: ja.exp(), lambda: np.exp(a), lambda: ta.exp()),
        (f"cpu sum {side}x{side} f32", lambda: jm.sum(), lambda: m.sum(), lambda: tm.sum()),
        (f"cpu softmax(-1) {side}x{side} f32", lambda: jm.softmax(-1),
         lambda: np.exp(m - m.max(-1, keepdims=True)) / np.exp(m - m.max(-1, keepdims=True)).sum(-1, keepdims=True),
         lambda: tm.softmax(-1)),
        (f"cpu matmul {msmall}x{msmall} f32", lambda: jmm @ jmm, lambda: mm @ mm, lambda: tmm @ tmm),
    ]
    for label, jf, nf, tf in cases:
        progress(label)
        fns = {"jtorch": jf, "numpy": nf}
        if torch:
            fns["torch"] = tf
        for f in fns.values():
            f()
        t = time_round_robin(fns, 1, 3 if QUICK else 7)
        row = _row(label, "time", {k: summary(v) for k, v in t.items()}, target_vs=None, target=None, nbytes=None)
        row["group"] = "cuda (CPU side)"
        rows.append(row)


def run() -> dict:
    rows: list[dict] = []
    notes: list[str] = []
    has_gpu, what = _gpu()
    peers = _peers()
    if has_gpu:
        notes.append(f"GPU: {what}; torch CUDA {'yes' if peers['torch_cuda'] else 'no'}, "
                     f"CuPy {'yes' if peers['cupy'] else 'no'}")
        gpu_rows(rows, peers)
    else:
        notes.append(what)
        print(f"   {what}", flush=True)
    if not has_gpu or os.environ.get("BENCH_CUDA_CPU_SIDE"):
        cpu_rows(rows, peers)
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all

    run_all.main(["--only", "cuda"])
