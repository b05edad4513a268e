"""Samplers with parameters: multinomial, poisson, binomial, _standard_gamma, _sample_dirichlet,
cauchy_, log_normal_, geometric_, randperm's shuffle and random.fork_rng. Distribution statistics
over 1e5+ draws (means and variances within a few standard errors, chi-square tests for categorical
draws and permutations), reproducibility per seed and per generator, dtypes, and torch's error
texts compared literally through the oracle."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch

N = 200_000
Z = 5.0  # standard errors allowed


def npv(t: jtorch.Tensor) -> np.ndarray:
    return np.array(t.numpy(), copy=True)


@pytest.fixture(autouse=True)
def _restore_default_generator():
    state = jtorch.get_rng_state()
    yield
    jtorch.set_rng_state(state)


def assert_moments(x: np.ndarray, mean: float, var: float, mu4: float | None = None) -> None:
    """Sample mean and variance within Z standard errors (mu4: the 4th central moment, for the
    variance's error; a normal's 3 var^2 when not given)."""
    n = x.size
    assert abs(x.mean() - mean) <= Z * math.sqrt(var / n) + 1e-12, (x.mean(), mean)
    m4 = 3 * var * var if mu4 is None else mu4
    assert abs(x.var() - var) <= Z * math.sqrt(max(m4 - var * var, 0.0) / n) + 1e-12, (x.var(), var)


def chi_square_ok(counts: np.ndarray, expected: np.ndarray) -> bool:
    """The chi-square statistic below its 1e-6 upper quantile (Wilson-Hilferty approximation)."""
    k = counts.size - 1
    stat = float(((counts - expected) ** 2 / expected).sum())
    z = 4.753  # the standard normal's 1 - 1e-6 quantile
    crit = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    return stat < crit


# ---- multinomial --------------------------------------------------------------------------------------------
P = np.array([0.05, 0.1, 0.15, 0.2, 0.0, 0.3, 0.2], np.float64)


@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.float64])
def test_multinomial_with_replacement_chi_square(dtype):
    jtorch.manual_seed(3)
    w = jtorch.tensor(P * 7.0, dtype=dtype)  # unnormalized weights
    s = jtorch.multinomial(w, N, replacement=True)
    assert s.dtype == jtorch.int64 and s.shape == (N,)
    counts = np.bincount(npv(s), minlength=P.size)
    assert counts[4] == 0
    nz = P > 0
    assert chi_square_ok(counts[nz], N * P[nz])


def test_multinomial_2d_rows_are_their_own_distributions():
    jtorch.manual_seed(4)
    rows = np.stack([P, P[::-1], np.full(P.size, 1.0)])
    s = npv(jtorch.tensor(rows).multinomial(N // 2, True))
    assert s.shape == (3, N // 2)
    for r in range(3):
        q = rows[r] / rows[r].sum()
        counts = np.bincount(s[r], minlength=P.size)
        assert chi_square_ok(counts[q > 0], s.shape[1] * q[q > 0]) and counts[q == 0].sum() == 0


def test_multinomial_without_replacement():
    jtorch.manual_seed(5)
    rows = 20_000
    w = jtorch.tensor(np.tile(P, (rows, 1)))
    s = npv(jtorch.multinomial(w, 3))
    assert s.shape == (rows, 3)
    assert all(len(set(r)) == 3 for r in s[:2000])  # distinct within a row
    assert not (s == 4).any()  # a zero weight is never drawn while others remain
    nz = P > 0
    first = np.bincount(s[:, 0], minlength=P.size)
    assert chi_square_ok(first[nz], rows * P[nz])  # the first draw follows p
    # the second draw given the first: p renormalized without the first's category
    second = np.bincount(s[s[:, 0] == 5, 1], minlength=P.size)
    q = P.copy()
    q[5] = 0
    q /= q.sum()
    assert chi_square_ok(second[q > 0], second.sum() * q[q > 0])
    # all of them: a permutation of the categories
    full = npv(jtorch.multinomial(jtorch.ones(2, 5), 5))
    assert (np.sort(full, axis=1) == np.arange(5)).all()


def test_multinomial_one_sample_and_out():
    jtorch.manual_seed(6)
    out = jtorch.empty(0, dtype=jtorch.int64)
    r = jtorch.multinomial(jtorch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), 1, out=out)
    assert r is out and out.shape == (2, 1) and out.tolist() == [[1], [0]]
    r = jtorch.multinomial(jtorch.tensor([0.0, 0.0, 2.0]), 4, True, out=out)
    assert out.shape == (4,) and out.tolist() == [2, 2, 2, 2]
    assert jtorch.multinomial(jtorch.ones(0, 3), 2).shape == (0, 2)


# ---- poisson, binomial, gamma, dirichlet -----------------------------------------------------------------------
@pytest.mark.parametrize("lam", [0.0, 0.5, 4.0, 30.0, 1000.0])
def test_poisson_moments(lam):
    jtorch.manual_seed(7)
    x = npv(jtorch.poisson(jtorch.full((N,), lam)))
    assert (x == np.floor(x)).all() and (x >= 0).all()
    assert_moments(x, lam, lam, lam * (1 + 3 * lam))


@pytest.mark.parametrize("count, prob", [(5.0, 0.3), (100.0, 0.3), (100.0, 0.9), (1000.0, 0.02), (7.0, 0.0),
                                         (7.0, 1.0), (0.0, 0.5)])
def test_binomial_moments(count, prob):
    jtorch.manual_seed(8)
    x = npv(jtorch.binomial(jtorch.full((N,), count), jtorch.full((1,), prob)))
    assert x.shape == (N,) and (x >= 0).all() and (x <= count).all()
    var = count * prob * (1 - prob)
    mu4 = var * (1 + 3 * (count - 2) * prob * (1 - prob)) if var else 0.0
    assert_moments(x, count * prob, var, mu4)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 4.5, 50.0])
def test_standard_gamma_moments(alpha):
    jtorch.manual_seed(9)
    x = npv(jtorch._standard_gamma(jtorch.full((N,), alpha, dtype=jtorch.float64)))
    assert (x > 0).all()
    assert_moments(x, alpha, alpha, 3 * alpha * alpha + 6 * alpha)


def test_standard_gamma_clamps_to_the_smallest_normal():
    x = jtorch._standard_gamma(jtorch.tensor([0.0, -1.0, float("nan"), 1e-30]))
    assert npv(x).tolist() == [np.finfo(np.float32).tiny] * 4


def test_standard_gamma_grad_matches_torch():
    torch = oracle_torch()
    rng = np.random.default_rng(0)
    alpha = np.concatenate([rng.uniform(0.05, 3, 200), rng.uniform(3, 30, 200)])
    x = np.concatenate([rng.uniform(0.01, 3, 200), rng.uniform(0.5, 40, 200)])
    for dt in ("float32", "float64"):
        a, v = alpha.astype(dt), x.astype(dt)
        want = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(v)).numpy()
        got = npv(jtorch._standard_gamma_grad(jtorch.tensor(a), jtorch.tensor(v)))
        np.testing.assert_allclose(got, want, rtol=1e-5 if dt == "float32" else 1e-12)


def test_standard_gamma_backward_is_the_reparameterized_gradient():
    alpha = jtorch.tensor([0.5, 2.0, 9.0], dtype=jtorch.float64, requires_grad=True)
    x = jtorch._standard_gamma(alpha)
    assert type(x.grad_fn).__name__ == "StandardGammaBackward0"
    x.sum().backward()
    want = jtorch._standard_gamma_grad(alpha.detach(), x.detach())
    assert np.array_equal(npv(alpha.grad), npv(want))
    # d x / d alpha at a fixed CDF value: a finite difference of the inverse CDF agrees
    from math import lgamma

    def cdf(a, v):  # the regularized lower incomplete gamma by its series
        s, term, k = 0.0, 1.0 / a, 0
        while term > 1e-17 * s or k < 5:
            s += term
            k += 1
            term *= v / (a + k)
        return s * math.exp(a * math.log(v) - v - lgamma(a))

    for a, v, g in zip([0.5, 2.0, 9.0], npv(x.detach()), npv(want)):
        h = 1e-6
        dcdf = (cdf(a + h, v) - cdf(a - h, v)) / (2 * h)
        dv = 1e-6 * max(v, 1e-3)
        pdf = (cdf(a, v + dv) - cdf(a, v - dv)) / (2 * dv)
        assert abs(-dcdf / pdf - g) <= 2e-3 * max(1.0, abs(g))


def test_sample_dirichlet():
    jtorch.manual_seed(10)
    alpha = np.array([0.5, 1.0, 3.0])
    x = npv(jtorch._sample_dirichlet(jtorch.tensor(np.tile(alpha, (N, 1)))))
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    a0 = alpha.sum()
    for i, a in enumerate(alpha):
        m = a / a0
        assert_moments(x[:, i], m, m * (1 - m) / (a0 + 1), 1.0 / 16)  # a bound on a [0, 1] variable's 4th moment
    s = jtorch._sample_dirichlet(jtorch.tensor(2.0))
    assert s.item() == np.nextafter(np.float32(1), np.float32(0))


# ---- in-place samplers -------------------------------------------------------------------------------------------
def test_cauchy_quartiles():
    jtorch.manual_seed(11)
    x = npv(jtorch.empty(N, dtype=jtorch.float64).cauchy_(2.0, 3.0))
    se = math.sqrt(0.25 * 0.75 / N)
    for q, at in ((0.25, -1.0), (0.5, 2.0), (0.75, 5.0)):
        assert abs((x < at).mean() - q) <= Z * se


def test_log_normal_moments_of_the_log():
    jtorch.manual_seed(12)
    x = npv(jtorch.empty(N).log_normal_(0.5, 0.75))
    assert (x > 0).all()
    assert_moments(np.log(x.astype(np.float64)), 0.5, 0.75 ** 2)


@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.int64, jtorch.int16])
def test_geometric_moments(dtype):
    jtorch.manual_seed(13)
    p = 0.3
    x = npv(jtorch.empty(N, dtype=dtype).geometric_(p)).astype(np.float64)
    assert x.min() >= 1 and (x == np.floor(x)).all()
    var = (1 - p) / p ** 2
    assert_moments(x, 1 / p, var, var * (9 - 9 * p + p * p) / p ** 2)


# ---- randperm ---------------------------------------------------------------------------------------------------
def test_randperm_chi_square_of_small_permutations():
    jtorch.manual_seed(14)
    g = jtorch.Generator().manual_seed(1)
    perms = [tuple(jtorch.randperm(4, generator=g).tolist()) for _ in range(4800)]
    index = {p: i for i, p in enumerate(sorted(set(perms)))}
    assert len(index) == 24
    counts = np.bincount([index[p] for p in perms], minlength=24)
    assert chi_square_ok(counts, np.full(24, 200.0))


def test_randperm_large_is_uniform_over_positions():
    jtorch.manual_seed(15)
    n = N
    p = npv(jtorch.randperm(n))
    assert (np.sort(p) == np.arange(n)).all()
    cells = (np.arange(n) * 10 // n) * 10 + p * 10 // n  # (position decile, value decile)
    assert chi_square_ok(np.bincount(cells, minlength=100), np.full(100, n / 100))


# ---- reproducibility, generators, dtypes -----------------------------------------------------------------------
SAMPLERS = {
    "multinomial_r": lambda g: jtorch.multinomial(jtorch.tensor(P), 50, True, generator=g),
    "multinomial": lambda g: jtorch.multinomial(jtorch.tensor(np.tile(P, (4, 1))), 3, generator=g),
    "poisson": lambda g: jtorch.poisson(jtorch.full((50,), 12.0), generator=g),
    "binomial": lambda g: jtorch.binomial(jtorch.full((50,), 40.0), jtorch.full((50,), 0.4), generator=g),
    "gamma": lambda g: jtorch._standard_gamma(jtorch.full((50,), 0.7), generator=g),
    "dirichlet": lambda g: jtorch._sample_dirichlet(jtorch.ones(10, 3), generator=g),
    "cauchy": lambda g: jtorch.empty(50).cauchy_(generator=g),
    "log_normal": lambda g: jtorch.empty(50).log_normal_(generator=g),
    "geometric": lambda g: jtorch.empty(50).geometric_(0.2, generator=g),
    "randperm": lambda g: jtorch.randperm(50, generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_reproducible_per_seed_and_generator(name):
    f = SAMPLERS[name]
    a = npv(f(jtorch.Generator().manual_seed(21)))
    b = npv(f(jtorch.Generator().manual_seed(21)))
    assert np.array_equal(a, b)
    g = jtorch.Generator().manual_seed(21)
    f(g)
    assert not np.array_equal(npv(f(g)), a)  # the generator moved on
    jtorch.manual_seed(5)
    c = npv(f(None))
    jtorch.manual_seed(5)
    assert np.array_equal(npv(f(None)), c)


def test_parallel_chunks_do_not_change_the_numbers():
    x = jtorch.full((300_000,), 3.0)
    a = npv(jtorch.poisson(x, generator=jtorch.Generator().manual_seed(2)))
    n = jtorch.get_num_threads()
    try:
        jtorch.set_num_threads(1)
        b = npv(jtorch.poisson(x, generator=jtorch.Generator().manual_seed(2)))
    finally:
        jtorch.set_num_threads(n)
    assert np.array_equal(a, b)


DTYPE_CASES = [
    "torch.poisson(torch.ones(3, dtype=torch.float16))",
    "torch.poisson(torch.ones(3, dtype=torch.float64))",
    "torch.binomial(torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))",
    "torch._standard_gamma(torch.ones(2, 3, dtype=torch.float64))",
    "torch._sample_dirichlet(torch.ones(2, 3, dtype=torch.float64))",
    "torch.multinomial(torch.ones(3, dtype=torch.float16), 2)",
    "torch.multinomial(torch.ones(2, 3, dtype=torch.float64), 4, True)",
    "torch.empty(3, dtype=torch.int8).geometric_(0.5)",
    "torch.empty(3, dtype=torch.float16).log_normal_()",
    "torch.empty(3, dtype=torch.float64).cauchy_()",
]


@pytest.mark.parametrize("src", DTYPE_CASES)
def test_dtypes_and_shapes_match_torch(src):
    torch = oracle_torch()
    want = eval(src, {"torch": torch})
    got = eval(src, {"torch": jtorch})
    assert str(got.dtype).replace("jtorch", "torch") == str(want.dtype) and tuple(got.shape) == tuple(want.shape)


def test_autograd_nodes_match_torch():
    torch = oracle_torch()
    for src in ("torch.poisson(x)", "torch._standard_gamma(x)", "torch.binomial(x, x * 0 + 0.5)",
                "torch._sample_dirichlet(x)", "torch.multinomial(x, 1)"):
        want = eval(src, {"torch": torch, "x": torch.ones(3, requires_grad=True)}).grad_fn
        got = eval(src, {"torch": jtorch, "x": jtorch.ones(3, requires_grad=True)}).grad_fn
        assert (want is None) == (got is None), src
        if want is not None:
            assert type(got).__name__ == want.name() or got.name() == want.name(), src


META_CASES = [
    "torch.multinomial(torch.ones(3, device='meta'), 5)",
    "torch.multinomial(torch.ones(3, device='meta'), 0)",
    "torch.multinomial(torch.ones(2, 3, device='meta'), 2, True)",
    "torch.poisson(torch.ones(2, 3, device='meta'))",
    "torch._standard_gamma(torch.ones(3, device='meta'))",
]


@pytest.mark.parametrize("src", META_CASES)
def test_meta_results_match_torch(src):
    torch = oracle_torch()
    want = eval(src, {"torch": torch})
    got = eval(src, {"torch": jtorch})
    assert got.is_meta and str(got.dtype).replace("jtorch", "torch") == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)


def test_fork_rng_restores_the_cpu_state():
    jtorch.manual_seed(3)
    with jtorch.random.fork_rng():
        inside = npv(jtorch.rand(4))
        jtorch.manual_seed(99)
        jtorch.rand(2)
    assert np.array_equal(npv(jtorch.rand(4)), inside)
    with jtorch.random.fork_rng(enabled=False):
        a = npv(jtorch.rand(4))
    assert not np.array_equal(npv(jtorch.rand(4)), a)
    with pytest.raises(RuntimeError, match=r"^torch has no module of `xpu`"):
        with jtorch.random.fork_rng(device_type="xpu"):
            pass


# ---- errors ----------------------------------------------------------------------------------------------------------
ERRORS = [
    "torch.multinomial(torch.tensor([1.0, -1.0]), 1)",
    "torch.multinomial(torch.tensor([1.0, float('nan')]), 2)",
    "torch.multinomial(torch.tensor([[1.0, 1.0], [0.0, 0.0]]), 1)",
    "torch.multinomial(torch.tensor([1.0, -1.0]), 2, True)",
    "torch.multinomial(torch.tensor([1.0, float('nan')]), 2, True)",
    "torch.multinomial(torch.tensor([1.0, float('inf')]), 2, True)",
    "torch.multinomial(torch.tensor([[1.0, 1.0], [0.0, 0.0]]), 3, True)",
    "torch.multinomial(torch.tensor([[0.0, 0.0], [-1.0, 0.0]]), 3, True)",
    "torch.multinomial(torch.tensor([1.0, 1.0]), 3)",
    "torch.multinomial(torch.tensor([1.0, 1.0]), 0)",
    "torch.multinomial(torch.tensor([1, 1]), 1)",
    "torch.multinomial(torch.tensor(1.0), 1)",
    "torch.multinomial(torch.ones(2, 2, 2), 1)",
    "torch.multinomial(torch.ones(3, 0), 1, True)",
    "torch.multinomial(torch.ones(3, 0), 2, True)",
    "torch.multinomial(torch.ones(3), 1, out=torch.empty(2, dtype=torch.int32))",
    "torch.multinomial(torch.ones(2, 2, 2, device='meta'), 2)",
    "torch.poisson(torch.tensor([-1.0, 2.0]))",
    "torch.poisson(torch.tensor([float('nan')]))",
    "torch.poisson(torch.tensor([1, 2]))",
    "torch.binomial(torch.tensor([10, 2]), torch.tensor([0.5, 0.5]))",
    "torch.binomial(torch.tensor([10.0, 2.0]), torch.tensor([1, 1]))",
    "torch.binomial(torch.tensor([10.0, 2.0]), torch.tensor([0.5, 0.5], dtype=torch.float64))",
    "torch.binomial(torch.tensor([10.0, 2.0]), torch.tensor([0.5, 0.5, 0.5]))",
    "torch.binomial(torch.ones(3, device='meta'), torch.ones(3, device='meta'))",
    "torch._standard_gamma(torch.tensor([1, 2]))",
    "torch._standard_gamma(torch.ones(2, dtype=torch.float16))",
    "torch._standard_gamma_grad(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "torch._standard_gamma_grad(torch.tensor([1, 2]), torch.tensor([1, 1]))",
    "torch._standard_gamma_grad(torch.ones(3, device='meta'), torch.ones(3, device='meta'))",
    "torch._sample_dirichlet(torch.tensor([1, 2]))",
    "torch._sample_dirichlet(torch.ones(3, device='meta'))",
    "torch.empty(3).cauchy_(0, 0)",
    "torch.empty(3).cauchy_(0, -1.5)",
    "torch.empty(3, dtype=torch.int64).cauchy_()",
    "torch.empty(3, dtype=torch.int16).cauchy_(0, 0)",
    "torch.empty(3, dtype=torch.complex64).cauchy_()",
    "torch.empty(3, device='meta').cauchy_(0, -1)",
    "torch.empty(3).log_normal_(0, 0)",
    "torch.empty(3, dtype=torch.int64).log_normal_()",
    "torch.empty(3, device='meta').log_normal_(0, -1)",
    "torch.empty(3).geometric_(0)",
    "torch.empty(3).geometric_(1)",
    "torch.empty(3).geometric_(1.5)",
    "torch.empty(3, dtype=torch.bool).geometric_(0.5)",
    "torch.empty(3, dtype=torch.complex64).geometric_(0.5)",
    "torch.empty(3, device='meta').geometric_(1.5)",
    "torch.empty(3, device='meta', dtype=torch.bool).geometric_(0.5)",
    "torch.empty(3, device='meta', dtype=torch.int64).log_normal_()",
    "torch.empty(3, device='meta', dtype=torch.int64).cauchy_()",
]


@pytest.mark.parametrize("src", ERRORS)
def test_error_texts_match_torch(src):
    torch = oracle_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as tt:
            eval(src, {"torch": torch})
        with pytest.raises(Exception) as jt:
            eval(src, {"torch": jtorch})
    assert type(jt.value).__name__ == type(tt.value).__name__
    assert str(jt.value).replace("jtorch", "torch") == str(tt.value)
