"""uint16/uint32/uint64 operator calls, for the CPU and CUDA differentials (tests/test_unsigned_dtypes.py,
tests/cuda/test_cuda_unsigned_dtypes.py):
each case is f(T, a, b) for a module T (jtorch or torch) and two 2x3 tensors a, b on one device; index and
mask tensors are made on that device. No jtorch import: a GPU machine's torch runs these alone too."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

A = [[1, 2, 3], [4, 5, 6]]
B = [[3, 2, 1], [1, 1, 2]]


def _i(T: Any, a: Any, data: Any) -> Any:
    return T.tensor(data, device=a.device)


CASES: dict[str, Callable[..., Any]] = {
    # elementwise families
    "add": lambda T, a, b: a + b,
    "add_scalar": lambda T, a, b: a + 1,
    "sub": lambda T, a, b: a - b,
    "rsub": lambda T, a, b: 1 - a,
    "mul": lambda T, a, b: a * b,
    "div": lambda T, a, b: a / b,
    "div_floor": lambda T, a, b: T.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda T, a, b: T.div(a, b, rounding_mode="trunc"),
    "floor_divide": lambda T, a, b: a // b,
    "remainder": lambda T, a, b: a % b,
    "fmod": lambda T, a, b: T.fmod(a, b),
    "pow": lambda T, a, b: a ** 2,
    "pow_tensor": lambda T, a, b: a ** b,
    "eq": lambda T, a, b: a == b,
    "ne": lambda T, a, b: a != b,
    "lt": lambda T, a, b: a < b,
    "le": lambda T, a, b: a <= b,
    "gt_scalar": lambda T, a, b: a > 1,
    "ge": lambda T, a, b: a >= b,
    "maximum": lambda T, a, b: T.maximum(a, b),
    "max_other": lambda T, a, b: T.max(a, b),
    "minimum": lambda T, a, b: T.minimum(a, b),
    "fmax": lambda T, a, b: T.fmax(a, b),
    "fmin": lambda T, a, b: T.fmin(a, b),
    "bitwise_and": lambda T, a, b: a & b,
    "bitwise_or": lambda T, a, b: a | b,
    "bitwise_xor": lambda T, a, b: a ^ b,
    "bitwise_not": lambda T, a, b: ~a,
    "lshift": lambda T, a, b: T.bitwise_left_shift(a, 1),
    "rshift": lambda T, a, b: T.bitwise_right_shift(a, 1),
    "logical_and": lambda T, a, b: T.logical_and(a, b),
    "logical_or": lambda T, a, b: T.logical_or(a, b),
    "logical_xor": lambda T, a, b: T.logical_xor(a, b),
    "logical_not": lambda T, a, b: T.logical_not(a),
    "hypot": lambda T, a, b: T.hypot(a, b),
    "abs": lambda T, a, b: T.abs(a),
    "neg": lambda T, a, b: -a,
    "sign": lambda T, a, b: T.sign(a),
    "sgn": lambda T, a, b: T.sgn(a),
    "frac": lambda T, a, b: T.frac(a),
    "sqrt": lambda T, a, b: T.sqrt(a),
    "lerp": lambda T, a, b: T.lerp(a, b, 0.5),
    "clamp": lambda T, a, b: a.clamp(1, 3),
    "clamp_tensor": lambda T, a, b: T.clamp(a, b, b),
    "clamp_min": lambda T, a, b: a.clamp_min(1),
    "clamp_min_tensor": lambda T, a, b: a.clamp_min(b),
    "clamp_max": lambda T, a, b: a.clamp_max(3),
    "clamp_max_tensor": lambda T, a, b: a.clamp_max(b),
    "addcmul": lambda T, a, b: T.addcmul(a, a, b),
    "where": lambda T, a, b: T.where(a == b, a, b),
    # reductions and scans
    "sum": lambda T, a, b: a.sum(),
    "sum_dim": lambda T, a, b: a.sum(1),
    "prod": lambda T, a, b: a.prod(),
    "cumsum": lambda T, a, b: a.cumsum(1),
    "cumprod": lambda T, a, b: a.cumprod(1),
    "max": lambda T, a, b: a.max(),
    "max_dim": lambda T, a, b: a.max(1),
    "min": lambda T, a, b: a.min(),
    "min_dim": lambda T, a, b: a.min(1),
    "amax": lambda T, a, b: a.amax(0),
    "amin": lambda T, a, b: a.amin(1),
    "aminmax": lambda T, a, b: T.aminmax(a),
    "argmax": lambda T, a, b: a.argmax(),
    "argmin": lambda T, a, b: a.argmin(1),
    "mean": lambda T, a, b: a.mean(),
    "var": lambda T, a, b: a.var(),
    "median": lambda T, a, b: a.median(),
    "nanmedian": lambda T, a, b: a.nanmedian(),
    "mode": lambda T, a, b: a.mode(),
    "topk": lambda T, a, b: a.topk(1),
    "kthvalue": lambda T, a, b: a.kthvalue(1),
    "cummax": lambda T, a, b: a.cummax(1),
    "cummin": lambda T, a, b: a.cummin(1),
    "nonzero": lambda T, a, b: a.nonzero(),
    "count_nonzero": lambda T, a, b: T.count_nonzero(a),
    "any": lambda T, a, b: a.any(),
    "all": lambda T, a, b: a.all(1),
    "equal": lambda T, a, b: T.equal(a, b),
    "histc": lambda T, a, b: T.histc(a, 3),
    "bincount": lambda T, a, b: T.bincount(a[0]),
    "sort": lambda T, a, b: a.sort(1).values,
    "argsort": lambda T, a, b: a.argsort(1),
    "unique": lambda T, a, b: T.unique(a),
    "relu": lambda T, a, b: T.relu(a),
    "softmax": lambda T, a, b: T.softmax(a, 1),
    "log_softmax": lambda T, a, b: T.log_softmax(a, 1),
    # shape, indexing
    "trace": lambda T, a, b: T.trace(a[:, :2]),
    "tril": lambda T, a, b: T.tril(a),
    "triu": lambda T, a, b: T.triu(a),
    "flip_outer": lambda T, a, b: a.flip(0),
    "flip_inner": lambda T, a, b: a.flip(1),
    "cat": lambda T, a, b: T.cat([a, b]),
    "stack": lambda T, a, b: T.stack([a, b]),
    "clone": lambda T, a, b: a.clone(),
    "t_contig": lambda T, a, b: a.t().contiguous(),
    "fill_": lambda T, a, b: a.clone().fill_(9),
    "masked_fill": lambda T, a, b: a.masked_fill(a == b, 0),
    "gather": lambda T, a, b: a.gather(1, _i(T, a, [[0], [1]])),
    "scatter": lambda T, a, b: a.scatter(1, _i(T, a, [[0], [1]]), b),
    "scatter_add": lambda T, a, b: a.scatter_add(1, _i(T, a, [[0], [1]]), b),
    "scatter_reduce": lambda T, a, b: a.scatter_reduce(1, _i(T, a, [[0], [1]]), b, "amax"),
    "index_select": lambda T, a, b: a.index_select(1, _i(T, a, [2, 0])),
    "index": lambda T, a, b: a[_i(T, a, [1, 0])],
    "index_add": lambda T, a, b: a.index_add(1, _i(T, a, [0, 2]), b[:, :2]),
    "index_fill": lambda T, a, b: a.index_fill(1, _i(T, a, [0]), 7),
    "index_copy": lambda T, a, b: a.index_copy(1, _i(T, a, [0, 2]), b[:, :2]),
    "index_put": lambda T, a, b: a.index_put((_i(T, a, [0]),), b[0, 0]),
    "setitem": lambda T, a, b: a.clone().__setitem__(_i(T, a, [0]), 5),
    "take": lambda T, a, b: a.take(_i(T, a, [0, 2])),
    "put": lambda T, a, b: a.put(_i(T, a, [0, 2]), b[0, :2]),
    "masked_select": lambda T, a, b: a.masked_select(a == b),
    "masked_scatter": lambda T, a, b: a.masked_scatter(a == b, b),
    "isin": lambda T, a, b: T.isin(a, b),
    "searchsorted": lambda T, a, b: T.searchsorted(a[0], b[0]),
    "bucketize": lambda T, a, b: T.bucketize(b[0], a[0]),
    # products
    "mm": lambda T, a, b: T.mm(a, b.t()),
    "addmm": lambda T, a, b: T.addmm(a[:, :2], a, b.t()),
    "dot": lambda T, a, b: T.dot(a[0], b[0]),
    "mv": lambda T, a, b: T.mv(a, b[0]),
    "bmm": lambda T, a, b: T.bmm(a[None], b.t()[None]),
    "baddbmm": lambda T, a, b: T.baddbmm(a[None, :, :2], a[None], b.t()[None]),
    # factories and random
    "arange": lambda T, a, b: T.arange(3, dtype=a.dtype, device=a.device),
    "linspace": lambda T, a, b: T.linspace(0, 4, 5, dtype=a.dtype, device=a.device),
    "logspace": lambda T, a, b: T.logspace(0, 2, 3, dtype=a.dtype, device=a.device),
    "eye": lambda T, a, b: T.eye(2, dtype=a.dtype, device=a.device),
    "randperm": lambda T, a, b: T.randperm(3, dtype=a.dtype, device=a.device).sort().values,
    "rand": lambda T, a, b: T.rand(2, dtype=a.dtype, device=a.device),
    "uniform_": lambda T, a, b: a.clone().uniform_(0, 1),
    "random_": lambda T, a, b: a.clone().random_(0, 1),
}


def outcome(fn: Callable[..., Any], *args: Any) -> Any:
    """(dtype name, values) of fn(*args)'s tensor, a plain value, or (exception type, first line of its text)."""
    try:
        r = fn(*args)
    except (RuntimeError, NotImplementedError, TypeError, ValueError, OverflowError, IndexError) as e:
        return [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    if isinstance(r, tuple):
        r = r[0]
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return [str(r.dtype).rpartition(".")[2], r.tolist()]
    return r
