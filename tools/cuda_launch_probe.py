"""Where the time of a tiny CUDA operator goes, on a machine with a GPU: one line per layer, from the
raw numba.cuda launch of a prepared kernel up to `a + b` through the dispatcher, each the median of
many synchronised repeats (microseconds). Run: `python tools/cuda_launch_probe.py` (prints a table).

bench_cuda's latency row (4-element add) measures only the top line; this splits it so a change to
one layer (argument packing, device-array construction, allocation, dispatch) can be measured alone.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _median_us(fn: Callable[[], object], sync: Callable[[], None], n: int = 2000) -> float:
    for _ in range(50):
        fn()
    sync()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def _device_array(mem: object) -> object:
    from numba.cuda.cudadrv.devicearray import DeviceNDArray  # absent under the simulator

    return DeviceNDArray((4,), (4,), np.dtype(np.float32), gpu_data=mem)


def main() -> None:
    from numba import cuda

    import jtorch
    from jtorch.kernels.cuda import driver

    if driver.SIMULATED or not driver.is_available():
        raise SystemExit("cuda_launch_probe needs a GPU (timings under the simulator mean nothing)")
    @cuda.jit
    def add(n, a, b, out):
        i = cuda.grid(1)
        if i < n:
            out[i] = a[i] + b[i]

    a, b = jtorch.ones(4, device="cuda"), jtorch.ones(4, device="cuda")
    out = jtorch.empty(4, device="cuda")
    sa: Any = a._storage  # a CUDAStorage: its kernel array and block
    sb: Any = b._storage
    so: Any = out._storage
    da, db, do = sa.data, sb.data, so.data
    ac, bc = a.cpu(), b.cpu()
    sync = cuda.synchronize
    rows = {
        "cuda.synchronize alone": lambda: None,
        "numba launch, 3 device arrays": lambda: add[1, 32](4, da, db, do),
        "DeviceNDArray over a block": lambda: _device_array(sa.block.mem),
        "jtorch.empty(4) on cuda": lambda: jtorch.empty(4, device="cuda"),
        "a.add(b, out=out)": lambda: jtorch.add(a, b, out=out),
        "a + b": lambda: a + b,
        "(a + b) on the CPU, for scale": lambda: ac + bc,
    }
    print(f"GPU: {driver.device_name()}")
    for name, fn in rows.items():
        print(f"{name:40s} {_median_us(fn, sync):9.2f} us")


if __name__ == "__main__":
    main()
