"""Matrix products: jtorch vs NumPy vs torch, timed in one run (the method of bench_elementwise:
results checked against NumPy first, warm-up, round-robin rounds, median (min)).

Rows and targets:
  * ``a @ b`` 1024x1024 float32: throughput, target >= 0.9x NumPy's (both call OpenBLAS);
  * ``a @ b`` 512x512 int64: target >= NumPy's (NumPy has no integer BLAS: a naive loop; jtorch
    runs a Numba ikj kernel);
  * ``a @ b`` 64x64 float32: per-call overhead, target jtorch's time <= 5x torch's;
  * reported: bmm and the same product through einsum, float16 (computed in float32), int32.
    The row alternating a matmul with a parallel add (two thread pools in one process) is in
    bench_threads.py, with its target.

GFLOP/s (2*M*N*K / median time) of every row are in the notes.
``python bench/bench_matmul.py`` prints the table for this module alone.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from _common import AFTER_TORCH_MATMUL_S  # noqa: E402
from bench_elementwise import QUICK, bench_case, to_jtorch, try_import_torch  # noqa: E402


def _gflops(row: dict, flops: float) -> str:
    parts = []
    for lib in ("jtorch", "numpy", "torch"):
        cell = row.get(lib)
        if cell:
            parts.append(f"{lib} {flops / cell['median_s'] / 1e9:.1f}")
    return f"{row['name']}: " + ", ".join(parts)


def run() -> dict:
    import jtorch
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    rows: list[dict] = []
    notes: list[str] = []

    def case(name: str, arrays: list[np.ndarray], np_fn: Callable, jt_fn: Callable, th_fn: Callable | None,
             flops: float, *, number: int, repeat: int, kind: str = "throughput", target_vs: str | None = None,
             target: float | None = None, rtol: float = 1e-4, atol: float = 1e-4,
             expected: Callable[[], np.ndarray] | None = None) -> None:
        js = [to_jtorch(x) for x in arrays]
        ts = [torch.from_numpy(x) for x in arrays] if torch else None
        libs = {"jtorch": lambda: jt_fn(*js), "numpy": lambda: np_fn(*arrays),
                "torch": (lambda: th_fn(*ts)) if torch and th_fn else None}
        row = bench_case(name, kind, lambda _: libs, expected or (lambda: np_fn(*arrays)), number=number,
                         repeat=repeat, target_vs=target_vs, target=target, rtol=rtol, atol=atol,
                         after_torch_s=AFTER_TORCH_MATMUL_S)
        row["group"] = "matmul"
        row["gflops"] = {lib: flops / row[lib]["median_s"] / 1e9 for lib in ("jtorch", "numpy", "torch")
                         if row.get(lib)}
        rows.append(row)
        notes.append(_gflops(row, flops))

    def mat(shape: tuple, dtype: Any) -> np.ndarray:
        if np.dtype(dtype).kind in "iu":
            return rng.integers(-100, 100, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    matmul = lambda p, q: p @ q  # noqa: E731
    big = 256 if QUICK else 1024
    a, b = mat((big, big), np.float32), mat((big, big), np.float32)
    case(f"a @ b {big}x{big} f32", [a, b], matmul, matmul, matmul, 2.0 * big ** 3, number=1,
         repeat=5 if QUICK else 15, target_vs="numpy", target=0.9, rtol=1e-3, atol=1e-2)

    n = 128 if QUICK else 512
    a, b = mat((n, n), np.int64), mat((n, n), np.int64)
    case(f"a @ b {n}x{n} i64", [a, b], matmul, matmul, matmul, 2.0 * n ** 3, number=1, repeat=3 if QUICK else 5,
         target_vs="numpy", target=1.0, rtol=0, atol=0)

    a, b = mat((64, 64), np.float32), mat((64, 64), np.float32)
    case("a @ b 64x64 f32", [a, b], matmul, matmul, matmul, 2.0 * 64 ** 3, number=200 if QUICK else 1000,
         repeat=5 if QUICK else 21, kind="time", target_vs="torch" if torch else None, target=5.0 if torch else None)

    bsz, m = (8, 64) if QUICK else (32, 128)
    a, b = mat((bsz, m, m), np.float32), mat((bsz, m, m), np.float32)
    case(f"bmm {bsz}x{m}x{m} f32", [a, b], matmul, lambda p, q: jtorch.bmm(p, q),
         (lambda p, q: torch.bmm(p, q)) if torch else None, 2.0 * bsz * m ** 3, number=5, repeat=11)
    case(f"einsum bij,bjk->bik {bsz}x{m}x{m} f32", [a, b], lambda p, q: np.einsum("bij,bjk->bik", p, q, optimize=True),
         lambda p, q: jtorch.einsum("bij,bjk->bik", p, q),
         (lambda p, q: torch.einsum("bij,bjk->bik", p, q)) if torch else None, 2.0 * bsz * m ** 3, number=5, repeat=11)

    n = 128 if QUICK else 256
    a, b = mat((n, n), np.float16), mat((n, n), np.float16)
    case(f"a @ b {n}x{n} f16", [a, b], matmul, matmul, matmul, 2.0 * n ** 3, number=1, repeat=5, rtol=1e-2, atol=0.5,
         expected=lambda: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))
    a, b = mat((n, n), np.int32), mat((n, n), np.int32)
    case(f"a @ b {n}x{n} i32", [a, b], matmul, matmul, matmul, 2.0 * n ** 3, number=1, repeat=5, rtol=0, atol=0)

    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "matmul"])
