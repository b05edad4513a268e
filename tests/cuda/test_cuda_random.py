"""CUDA random sampling: a Philox4x32-10 stream per seed (repeatable, advancing), values in
range, moments of 10k samples, exact bernoulli at p = 0 and 1, permutations."""
from __future__ import annotations

import numpy as np
import pytest
from numba import cuda as ncuda

import jtorch
from jtorch.kernels.common import samplers
from jtorch.kernels.cuda import driver, random

N = 10_000


def host(t):
    return t.cpu().numpy()


def reference(counter: int, seed: int) -> tuple:
    """Philox4x32-10 of a 64-bit counter keyed by a 64-bit seed, in Python integers."""
    m32 = 0xFFFFFFFF
    c = [counter & m32, counter >> 32, 0, 0]
    k0, k1 = seed & m32, (seed >> 32) & m32
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & m32, (k1 + 0xBB67AE85) & m32
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & m32, (p0 >> 32) ^ c[3] ^ k1, p0 & m32]
    return tuple(c)


@ncuda.jit
def _philox_words(counters, k0, k1, out):
    for i in range(ncuda.grid(1), counters.shape[0], ncuda.gridsize(1)):
        w = random.philox(counters[i], k0, k1)
        for q in range(4):
            out[i, q] = w[q]


def test_philox_known_answer_and_device_function():
    # Random123's known-answer test for Philox4x32-10: counter 0, key 0
    assert reference(0, 0) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    seed = 0x1234_5678_9ABC_DEF0
    counters = np.array([0, 1, 2 ** 32 + 5, 2 ** 64 - 1], np.uint64)
    out = np.zeros((4, 4), np.uint64)
    driver.launch(_philox_words, 4, counters, np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32), out)
    for i, c in enumerate(counters):
        assert tuple(int(v) for v in out[i]) == reference(int(c), seed)


def _cpu_words(block: int, seed: int) -> tuple:
    """Block `block` of seed's stream from the CPU samplers' Philox, called on the host."""
    m = samplers.MASK
    c = np.uint64(block)
    return tuple(int(w) for w in samplers.philox(c & m, c >> samplers.S32, np.uint64(0), np.uint64(0),
                                                 np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)))


def test_cuda_draws_are_the_shared_samplers_philox_blocks():
    seed = 0x0123_4567_89AB_CDEF
    g = jtorch.Generator("cuda").manual_seed(seed)
    single = host(jtorch.rand(6, device="cuda", generator=g))  # blocks 0, 1: 24 bits of each word
    want = [w >> 8 for b in (0, 1) for w in _cpu_words(b, seed)][:6]
    np.testing.assert_array_equal(single, np.array(want, np.float64) * 2.0 ** -24)
    double = host(jtorch.rand(3, device="cuda", dtype=jtorch.float64, generator=g))  # blocks 2, 3: 53 bits a pair
    words = _cpu_words(2, seed) + _cpu_words(3, seed)
    want = [((words[2 * i] << 32 | words[2 * i + 1]) >> 11) * 2.0 ** -53 for i in range(3)]
    np.testing.assert_array_equal(double, np.array(want))
    assert g._offset == 4


@pytest.mark.parametrize("seeder", ["manual_seed", "cuda_manual_seed", "generator"])
def test_seeded_streams_repeat_and_advance(seeder):
    def draws(seed):
        if seeder == "generator":
            g = jtorch.Generator("cuda").manual_seed(seed)
            return [host(jtorch.rand(7, device="cuda", generator=g)), host(jtorch.randn(5, device="cuda", generator=g))]
        (jtorch.manual_seed if seeder == "manual_seed" else jtorch.cuda.manual_seed)(seed)
        return [host(jtorch.rand(7, device="cuda")), host(jtorch.randn(5, device="cuda"))]

    a, b, c = draws(11), draws(11), draws(12)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    again = draws(11)[0]
    np.testing.assert_array_equal(again, a[0])
    g = jtorch.Generator("cuda").manual_seed(3)
    x, y = host(jtorch.rand(9, device="cuda", generator=g)), host(jtorch.rand(9, device="cuda", generator=g))
    assert not np.array_equal(x, y)  # two draws in a row differ


def test_default_generator_is_the_cuda_one():
    jtorch.manual_seed(5)
    x = host(jtorch.rand(6, device="cuda"))
    g = jtorch.Generator("cuda").manual_seed(5)
    np.testing.assert_array_equal(x, host(jtorch.rand(6, device="cuda", generator=g)))


def test_cpu_generator_for_cuda_tensor_raises():
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        jtorch.rand(3, device="cuda", generator=jtorch.Generator())


@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.float64, jtorch.float16])
def test_uniform_range_and_moments(dtype):
    jtorch.manual_seed(0)
    x = host(jtorch.rand(N, device="cuda", dtype=dtype)).astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.std() - np.sqrt(1 / 12)) < 0.01
    y = host(jtorch.empty(300, device="cuda", dtype=dtype).uniform_(-3, 5)).astype(np.float64)
    assert y.min() >= -3 and y.max() <= 5 and y.min() < -2 and y.max() > 4
    assert len(np.unique(y)) > 250


def test_uniform_layouts_and_complex():
    t = jtorch.zeros((6, 4), device="cuda").t()  # non-contiguous
    t.uniform_(2, 3)
    v = host(t)
    assert v.shape == (4, 6) and (v >= 2).all() and (v < 3).all()
    c = host(jtorch.rand(200, device="cuda", dtype=jtorch.complex64))
    assert c.dtype == np.complex64 and (c.real >= 0).all() and (c.imag < 1).all() and c.imag.std() > 0.2
    z = jtorch.zeros((), device="cuda").uniform_()
    assert 0 <= float(z.cpu()) < 1
    e = jtorch.empty((0, 3), device="cuda").uniform_()
    assert tuple(e.shape) == (0, 3)


@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.float64])
def test_normal_moments(dtype):
    jtorch.manual_seed(1)
    x = host(jtorch.randn(N, device="cuda", dtype=dtype))
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 0.04 and abs(x.std() - 1) < 0.04
    y = host(jtorch.normal(3.0, 0.5, (N,), device="cuda", dtype=dtype))
    assert abs(y.mean() - 3) < 0.02 and abs(y.std() - 0.5) < 0.02
    h = host(jtorch.randn(100, device="cuda", dtype=jtorch.float16))
    assert h.dtype == np.float16 and np.isfinite(h).all()


def test_normal_tensor_mean():
    m = jtorch.tensor(np.arange(6, dtype=np.float32) * 10).cuda()
    y = host(jtorch.normal(m, 0.01))
    np.testing.assert_allclose(y, np.arange(6) * 10, atol=0.1)


def test_exponential():
    jtorch.manual_seed(2)
    x = host(jtorch.empty(N, device="cuda").exponential_(2.0))
    assert (x >= 0).all() and np.isfinite(x).all()
    assert abs(x.mean() - 0.5) < 0.02
    d = host(jtorch.empty(N, device="cuda", dtype=jtorch.float64).exponential_())
    assert abs(d.mean() - 1) < 0.04


def test_randint():
    jtorch.manual_seed(3)
    x = host(jtorch.randint(-4, 7, (2000,), device="cuda"))
    assert x.dtype == np.int64 and x.min() == -4 and x.max() == 6
    assert abs(x.mean() - 1) < 0.2
    for dtype in (jtorch.int8, jtorch.uint8, jtorch.int32, jtorch.float32):
        y = host(jtorch.randint(0, 3, (300,), device="cuda", dtype=dtype))
        assert set(np.unique(y).tolist()) == {0, 1, 2}
    b = host(jtorch.empty(200, device="cuda", dtype=jtorch.bool).random_())
    assert set(b.tolist()) == {False, True}
    big = host(jtorch.randint(-2 ** 40, 2 ** 40, (500,), device="cuda"))  # 64-bit draws
    assert big.min() >= -2 ** 40 and big.max() < 2 ** 40 and big.std() > 2 ** 38
    full = host(jtorch.empty(500, dtype=jtorch.int64, device="cuda").random_(-2 ** 63, None))
    assert (full < 0).any() and (full > 0).any() and np.abs(full.astype(np.float64)).max() > 2 ** 61
    u8 = host(jtorch.empty(400, dtype=jtorch.uint8, device="cuda").random_())
    assert u8.max() > 240 and u8.min() < 15


def test_bernoulli():
    ones = host(jtorch.empty(500, device="cuda").bernoulli_(1.0))
    zeros = host(jtorch.empty(500, device="cuda").bernoulli_(0.0))
    assert (ones == 1).all() and (zeros == 0).all()
    jtorch.manual_seed(4)
    x = jtorch.empty((40, 50), device="cuda")
    x.bernoulli_(0.5)  # dropout-like
    v = host(x)
    assert set(np.unique(v).tolist()) == {0.0, 1.0} and abs(v.mean() - 0.5) < 0.03
    p = jtorch.tensor(np.array([0.0, 1.0, 0.25], np.float32)).cuda()
    draws = host(jtorch.bernoulli(p.expand(3000, 3)))  # a broadcast (stride-0) p
    np.testing.assert_array_equal(draws[:, 0], 0)
    np.testing.assert_array_equal(draws[:, 1], 1)
    assert abs(draws[:, 2].mean() - 0.25) < 0.03
    t = jtorch.empty((3, 4), device="cuda", dtype=jtorch.float64).t()
    t.bernoulli_(jtorch.tensor(np.array([1.0, 0.0, 1.0], np.float32)).cuda())  # p broadcast along dim 0
    np.testing.assert_array_equal(host(t), np.tile([1.0, 0.0, 1.0], (4, 1)))
    b = host(jtorch.bernoulli(jtorch.full((300,), 0.3, device="cuda"), p=0.9))
    assert 0.8 < b.mean() < 1.0
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        jtorch.empty(3, device="cuda").bernoulli_(jtorch.tensor([0.5, 1.5, 0.2]).cuda())


def test_randperm():
    jtorch.manual_seed(6)
    for n in (0, 1, 2, 37, 100):
        p = host(jtorch.randperm(n, device="cuda"))
        assert p.dtype == np.int64
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    a, b = host(jtorch.randperm(50, device="cuda")), host(jtorch.randperm(50, device="cuda"))
    assert not np.array_equal(a, b)
    g = jtorch.Generator("cuda").manual_seed(9)
    c = host(jtorch.randperm(50, device="cuda", generator=g))
    np.testing.assert_array_equal(c, host(jtorch.randperm(50, device="cuda", generator=g.manual_seed(9))))
    f = host(jtorch.randperm(20, device="cuda", dtype=jtorch.float32))
    np.testing.assert_array_equal(np.sort(f), np.arange(20, dtype=np.float32))
    o = jtorch.empty(5, dtype=jtorch.int32, device="cuda")
    jtorch.randperm(9, out=o)
    np.testing.assert_array_equal(np.sort(host(o)), np.arange(9))


def test_rand_like_family():
    x = jtorch.zeros((4, 5), device="cuda", dtype=jtorch.float64)
    r = jtorch.rand_like(x)
    assert r.device.type == "cuda" and r.dtype == jtorch.float64 and (host(r) < 1).all()
    n = jtorch.randn_like(x)
    assert host(n).std() > 0.3
    i = jtorch.randint_like(x, 3, 8)
    assert host(i).min() >= 3 and host(i).max() < 8
