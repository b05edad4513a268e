"""CUDA samplers with parameters (multinomial, poisson, binomial, _standard_gamma and its gradient,
_sample_dirichlet, cauchy_, log_normal_, geometric_): the kernels draw exactly what the shared
scalar samplers give for the generator's Philox stream, repeat per seed, advance, follow their
distributions (tiny sizes: the simulator), and check their arguments as the CPU does."""
from __future__ import annotations

import math

import numpy as np
import pytest

import jtorch
from jtorch.kernels.common import samplers as sr

N = 2000


def host(t):
    return t.cpu().numpy()


def _key(seed: int) -> tuple:
    return np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)


@pytest.mark.parametrize("kind", ["poisson", "binomial", "gamma"])
def test_samples_are_the_shared_samplers_on_the_generators_stream(kind):
    seed = 0x1234_5678_9ABC
    g = jtorch.Generator("cuda").manual_seed(seed)
    a = np.array([0.5, 3.0, 12.0, 40.0, 0.0, 7.5], np.float64)
    b = np.array([0.3, 0.9, 0.5, 0.05, 0.5, 0.2], np.float64)
    ta, tb = jtorch.tensor(a).cuda(), jtorch.tensor(b).cuda()
    if kind == "poisson":
        got = host(jtorch.poisson(ta, generator=g))
        want = [sr.poisson(*_key(seed), np.uint64(i), v) for i, v in enumerate(a)]
    elif kind == "binomial":
        got = host(jtorch.binomial(ta, tb, generator=g))
        want = [sr.binomial(*_key(seed), np.uint64(i), c, p) for i, (c, p) in enumerate(zip(a, b))]
    else:
        got = host(jtorch._standard_gamma(ta, generator=g))
        want = [max(sr.gamma(*_key(seed), np.uint64(i), v), np.finfo(np.float64).tiny) for i, v in enumerate(a)]
    np.testing.assert_array_equal(got, np.array(want))
    # the next launch starts past this one's counters
    again = host(jtorch.poisson(ta, generator=g))
    np.testing.assert_array_equal(again, [sr.poisson(*_key(seed), np.uint64(6 + i), v) for i, v in enumerate(a)])


def test_seeds_repeat_and_streams_advance():
    x = jtorch.full((50,), 4.0, device="cuda")
    jtorch.manual_seed(3)
    a = host(jtorch.poisson(x))
    b = host(jtorch.poisson(x))
    jtorch.manual_seed(3)
    np.testing.assert_array_equal(host(jtorch.poisson(x)), a)
    assert not np.array_equal(a, b)


def _moments_ok(x, mean, var):
    se = math.sqrt(var / x.size)
    return abs(x.mean() - mean) < 5 * se and abs(x.var() - var) < 5 * var * math.sqrt(4 / x.size) + 1e-12


def test_distributions():
    jtorch.manual_seed(4)
    assert _moments_ok(host(jtorch.poisson(jtorch.full((N,), 20.0, device="cuda"))), 20.0, 20.0)
    assert _moments_ok(host(jtorch.binomial(jtorch.full((N,), 30.0, device="cuda"),
                                            jtorch.full((1,), 0.6, device="cuda"))), 18.0, 7.2)
    assert _moments_ok(host(jtorch._standard_gamma(jtorch.full((N,), 2.5, device="cuda"))), 2.5, 2.5)
    d = host(jtorch._sample_dirichlet(jtorch.ones(300, 3, device="cuda")))
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-6)
    assert abs(d.mean() - 1 / 3) < 0.03


def test_multinomial():
    jtorch.manual_seed(5)
    p = np.array([0.1, 0.0, 0.6, 0.3])
    s = host(jtorch.multinomial(jtorch.tensor(p).cuda(), N, True))
    counts = np.bincount(s, minlength=4)
    assert counts[1] == 0
    for c, q in zip(counts, p):
        assert abs(c - N * q) < 5 * math.sqrt(N * q * (1 - q)) + 1e-9
    r = host(jtorch.multinomial(jtorch.tensor(np.tile(p, (40, 1))).cuda(), 3))
    assert r.shape == (40, 3) and not (r == 1).any()
    assert (np.sort(r, axis=1)[:, 1:] != np.sort(r, axis=1)[:, :-1]).all()
    with pytest.raises(RuntimeError, match=r"^invalid multinomial distribution \(encountering probability entry < 0\)$"):
        jtorch.multinomial(jtorch.tensor([1.0, -1.0]).cuda(), 2, True)
    with pytest.raises(RuntimeError, match=r"^probability tensor contains either `inf`, `nan` or element < 0$"):
        jtorch.multinomial(jtorch.tensor([1.0, float("nan")]).cuda(), 1)


def test_in_place_samplers():
    jtorch.manual_seed(6)
    c = host(jtorch.empty(N, device="cuda").cauchy_(1.0, 2.0))
    assert abs((c < 1.0).mean() - 0.5) < 0.06 and abs((c < 3.0).mean() - 0.75) < 0.06
    ln = host(jtorch.empty(N, device="cuda", dtype=jtorch.float64).log_normal_(0.2, 0.5))
    assert _moments_ok(np.log(ln), 0.2, 0.25)
    g = host(jtorch.empty(N, device="cuda", dtype=jtorch.int32).geometric_(0.4))
    assert g.dtype == np.int32 and g.min() >= 1 and _moments_ok(g.astype(np.float64), 2.5, 0.6 / 0.16)
    with pytest.raises(RuntimeError, match=r"^geometric_ expects p to be in \(0, 1\), but got p=1\.5$"):
        jtorch.empty(3, device="cuda").geometric_(1.5)


def test_standard_gamma_grad_matches_the_cpu():
    a = np.array([0.3, 1.5, 4.0, 12.0, 20.0])
    x = np.array([0.2, 1.0, 5.0, 12.5, 3.0])
    want = host(jtorch._standard_gamma_grad(jtorch.tensor(a), jtorch.tensor(x)))
    got = host(jtorch._standard_gamma_grad(jtorch.tensor(a).cuda(), jtorch.tensor(x).cuda()))
    np.testing.assert_allclose(got, want, rtol=1e-12)
