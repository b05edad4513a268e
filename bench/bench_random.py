"""Random sampling: jtorch vs NumPy vs torch, timed in one run (bench_elementwise's method and row format).

Rows (target: >= torch's throughput on each):
  * ``multinomial`` of 1M draws with replacement from 1000 categories;
  * ``multinomial`` of 100 draws without replacement from each of 2000 rows of 1000 categories;
  * ``randperm(1M)``;
  * ``poisson`` of 16M rates (4M in quick mode), rate 5 (the product-of-uniforms sampler) and rate
    50 (transformed rejection).
NumPy's column is its Generator's nearest call (``choice``, ``permutation``, ``poisson``). Samples
differ between libraries, so the timed calls return a constant; each library's samples are checked
once before timing (the right shape and range, and a mean within a few standard errors).
``python bench/bench_random.py`` prints this module's table; ``bench/run_all.py`` includes it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_elementwise import QUICK, bench_case, first_calls_note, libraries, to_jtorch, try_import_torch

DONE = np.zeros(1)


def _checked(fn: Callable[[], Any], check: Callable[[np.ndarray], None]) -> Callable[[], np.ndarray]:
    """`fn` with its first result checked; every call returns DONE (samples differ by library)."""
    seen = [False]

    def run() -> np.ndarray:
        res = fn()
        if not seen[0]:
            seen[0] = True
            check(np.asarray(res.numpy() if hasattr(res, "numpy") else res))
        return DONE
    return run


def _mean_check(mean: float, var: float, shape: tuple) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:
        assert x.shape == shape, x.shape
        se = math.sqrt(var / x.size)
        assert abs(float(x.astype(np.float64).mean()) - mean) < 6 * se, (x.mean(), mean)
    return check


def _perm_check(n: int) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:
        assert x.shape == (n,) and (np.sort(x) == np.arange(n)).all()
    return check


def _distinct_rows(rows: int, k: int, ncat: int) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:
        assert x.shape == (rows, k) and x.min() >= 0 and x.max() < ncat
        s = np.sort(x, axis=1)
        assert (s[:, 1:] != s[:, :-1]).all()
    return check


def run() -> dict:
    import jtorch  # noqa: F401  (imported before timing)
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    jtorch.manual_seed(0)
    if torch:
        torch.manual_seed(0)
    rows: list[dict] = []
    rep = 3 if QUICK else 7
    libs = libraries(torch)

    def case(name: str, np_fn: Callable, jt_fn: Callable, th_fn: Callable | None, check: Callable,
             nbytes: int) -> None:
        rows.append(bench_case(name, "throughput",
                               libs(_checked(np_fn, check), _checked(jt_fn, check),
                                    _checked(th_fn, check) if torch else None),
                               lambda: DONE, number=1, repeat=rep, nbytes=nbytes,
                               target_vs="torch" if torch else None, target=1.0))

    # multinomial with replacement: 1M draws from 1000 categories (uniform weights: the mean is known)
    ncat, draws = 1000, 1 << 20
    w = np.ones(ncat, np.float32)
    jw = to_jtorch(w)
    tw = torch.from_numpy(w) if torch else None
    pw = w.astype(np.float64) / w.sum()
    case("multinomial 1M draws, 1000 cats, replacement",
         lambda: rng.choice(ncat, draws, p=pw), lambda: jtorch.multinomial(jw, draws, True),
         lambda: torch.multinomial(tw, draws, True), _mean_check((ncat - 1) / 2, (ncat ** 2 - 1) / 12, (draws,)),
         draws * 8)

    # multinomial without replacement: 100 of 1000 categories from each of 2000 rows
    nrows, k = 2000, 100
    w2 = rng.random((nrows, ncat), dtype=np.float32) + np.float32(0.01)
    jw2 = to_jtorch(w2)
    tw2 = torch.from_numpy(w2) if torch else None

    def np_race() -> np.ndarray:  # the exponential race, as torch draws without replacement
        with np.errstate(divide="ignore"):
            return np.argsort(-(w2 / rng.standard_exponential(w2.shape, dtype=np.float32)), axis=1)[:, :k]

    case("multinomial 2000x1000, 100 without replacement", np_race,
         lambda: jtorch.multinomial(jw2, k), lambda: torch.multinomial(tw2, k), _distinct_rows(nrows, k, ncat),
         w2.nbytes)

    n = 1 << 20
    case("randperm(1M)", lambda: rng.permutation(n), lambda: jtorch.randperm(n), lambda: torch.randperm(n),
         _perm_check(n), n * 8)

    m = (1 << 22) if QUICK else (1 << 24)
    for lam in (5.0, 50.0):
        r = np.full(m, lam, np.float32)
        jr = to_jtorch(r)
        tr = torch.from_numpy(r) if torch else None
        case(f"poisson {m >> 20}M, rate {lam:g}", lambda r=r: rng.poisson(r).astype(np.float32),
             lambda jr=jr: jtorch.poisson(jr), lambda tr=tr: torch.poisson(tr), _mean_check(lam, lam, (m,)), r.nbytes)

    for row in rows:
        row["group"] = "random"
    notes: list[Any] = [first_calls_note(rows)]
    return {"rows": rows, "notes": notes}


if __name__ == "__main__":
    import run_all
    run_all.main(["--only", "random"])
