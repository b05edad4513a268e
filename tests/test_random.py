"""Random numbers: jtorch.Generator and the default generator, reproducibility per seed (functional and
in-place paths agree), generator isolation, distribution sanity over 100k samples, bounds, meta
tensors, the dispatcher's handling of Generator arguments and PyTorch's error texts."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import jtorch
from jtorch import dispatcher
from jtorch.keyset import DispatchKey, DispatchKeySet
from jtorch.storage import MetaStorage
from _torch_oracle import oracle_torch

N = 100_000
FLOATS = [jtorch.float16, jtorch.float32, jtorch.float64]


def npv(t: jtorch.Tensor) -> np.ndarray:
    return np.array(t.numpy(), copy=True)


@pytest.fixture(autouse=True)
def _restore_default_generator():
    state = jtorch.get_rng_state()
    yield
    jtorch.set_rng_state(state)


# ---- Generator --------------------------------------------------------------------------------------
def test_generator_basics():
    g = jtorch.Generator()
    assert g.device == jtorch.device("cpu") and g._is_generator
    assert g.initial_seed() == 67280421310721  # c10::default_rng_seed_val
    assert g.manual_seed(7) is g and g.initial_seed() == 7
    assert jtorch.Generator("cpu").initial_seed() == 67280421310721
    assert DispatchKeySet(raw=g._key_set) == DispatchKeySet(DispatchKey.CPU)  # the backend key only
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64 and g.initial_seed() == s


def test_seeds_wrap_and_errors():
    assert jtorch.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
    assert jtorch.manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    assert jtorch.manual_seed(1.5).initial_seed() == 1  # torch.manual_seed takes int(seed)
    with pytest.raises(ValueError, match=r"^Overflow when unpacking long long$"):
        jtorch.manual_seed(2 ** 64)
    with pytest.raises(ValueError, match=r"^Overflow when unpacking long long$"):
        jtorch.manual_seed(-(2 ** 63) - 1)
    with pytest.raises(RuntimeError, match=r"^manual_seed expected a long, but got bool$"):
        jtorch.Generator().manual_seed(True)
    with pytest.raises(RuntimeError, match=r"^manual_seed expected a long, but got float$"):
        jtorch.Generator().manual_seed(1.5)
    with pytest.raises(RuntimeError, match=r"^META device type not an accelerator\.$"):
        jtorch.Generator("meta")


def test_cuda_generator_without_cuda():
    if jtorch.cuda.is_available():
        pytest.skip("CUDA present")
    with pytest.raises(RuntimeError, match=r"^Found no NVIDIA driver on your system"):
        jtorch.Generator("cuda")


def test_default_generator_functions():
    assert jtorch.manual_seed(3) is jtorch.default_generator
    assert jtorch.initial_seed() == 3
    s = jtorch.seed()
    assert jtorch.initial_seed() == s
    import jtorch.random as jr

    assert jr.default_generator is jtorch.default_generator and jr.manual_seed is jtorch.manual_seed


def test_state_round_trip_reproduces_the_stream():
    g = jtorch.Generator().manual_seed(11)
    jtorch.rand(5, generator=g)
    state = g.get_state()
    assert state.dtype is jtorch.uint8 and state.dim() == 1
    a = npv(jtorch.randn(100, generator=g))
    g.manual_seed(999)
    assert g.set_state(state) is g
    assert g.initial_seed() == 11
    np.testing.assert_array_equal(npv(jtorch.randn(100, generator=g)), a)
    other = jtorch.Generator().set_state(state)  # a state moves between generators
    np.testing.assert_array_equal(npv(jtorch.randn(100, generator=other)), a)


def test_rng_state_of_the_default_generator():
    jtorch.manual_seed(5)
    st = jtorch.get_rng_state()
    a = npv(jtorch.rand(10))
    jtorch.set_rng_state(st)
    np.testing.assert_array_equal(npv(jtorch.rand(10)), a)


def test_set_state_errors():
    g = jtorch.Generator()
    with pytest.raises(TypeError, match=r"^expected a torch\.ByteTensor, but got int$"):
        g.set_state(5)
    with pytest.raises(TypeError, match=r"^RNG state must be a torch\.ByteTensor$"):
        g.set_state(jtorch.zeros(3))
    with pytest.raises(RuntimeError, match=r"^Expected a CPUGeneratorImplState of size \d+ but found the input RNG "
                                           r"state size to be 3$"):
        g.set_state(jtorch.zeros(3, dtype=jtorch.uint8))


def test_generator_pickles_with_its_state():
    g = jtorch.Generator().manual_seed(21)
    jtorch.rand(3, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert h.initial_seed() == 21
    np.testing.assert_array_equal(npv(jtorch.rand(8, generator=h)), npv(jtorch.rand(8, generator=g)))


# ---- reproducibility and isolation -----------------------------------------------------------------------
SAMPLERS = {
    "rand": lambda g: jtorch.rand(50, generator=g),
    "randn": lambda g: jtorch.randn(5, 10, generator=g),
    "randint": lambda g: jtorch.randint(-5, 5, (50,), generator=g),
    "randperm": lambda g: jtorch.randperm(50, generator=g),
    "normal_": lambda g: jtorch.empty(50).normal_(2.0, 3.0, generator=g),
    "uniform_": lambda g: jtorch.empty(50, dtype=jtorch.float64).uniform_(-1, 1, generator=g),
    "random_": lambda g: jtorch.empty(50, dtype=jtorch.int32).random_(generator=g),
    "bernoulli_": lambda g: jtorch.empty(50).bernoulli_(0.3, generator=g),
    "bernoulli": lambda g: jtorch.bernoulli(jtorch.full((50,), 0.5), generator=g),
    "exponential_": lambda g: jtorch.empty(50).exponential_(2.0, generator=g),
    "normal": lambda g: jtorch.normal(1.0, 2.0, (50,), generator=g),
    "rand_like": lambda g: jtorch.rand_like(jtorch.empty(50), generator=g),
    "randint_like": lambda g: jtorch.randint_like(jtorch.empty(50), 3, 9, generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values(name):
    a = npv(SAMPLERS[name](jtorch.Generator().manual_seed(1234)))
    b = npv(SAMPLERS[name](jtorch.Generator().manual_seed(1234)))
    c = npv(SAMPLERS[name](jtorch.Generator().manual_seed(4321)))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_default_generator_reproducible_per_manual_seed(name):
    jtorch.manual_seed(77)
    a = npv(SAMPLERS[name](None))
    jtorch.manual_seed(77)
    np.testing.assert_array_equal(npv(SAMPLERS[name](None)), a)


def test_functional_and_inplace_paths_agree():
    pairs = [
        (lambda: jtorch.rand(40), lambda: jtorch.empty(40).uniform_()),
        (lambda: jtorch.randn(40, dtype=jtorch.float64), lambda: jtorch.empty(40, dtype=jtorch.float64).normal_()),
        (lambda: jtorch.randint(3, 17, (40,)), lambda: jtorch.empty(40, dtype=jtorch.int64).random_(3, 17)),
        (lambda: jtorch.randint(17, (40,)), lambda: jtorch.empty(40, dtype=jtorch.int64).random_(17)),
        (lambda: jtorch.rand_like(jtorch.empty(40)), lambda: jtorch.empty(40).uniform_(0, 1)),
        (lambda: jtorch.randn_like(jtorch.empty(40)), lambda: jtorch.empty(40).normal_(0, 1)),
        (lambda: jtorch.normal(2.0, 3.0, (40,)), lambda: jtorch.empty(40).normal_(2.0, 3.0)),
        (lambda: jtorch.bernoulli(jtorch.full((40,), 0.25)), lambda: jtorch.empty(40).bernoulli_(0.25)),
        (lambda: jtorch.rand(40, out=jtorch.empty(0)), lambda: jtorch.empty(40).uniform_()),
    ]
    for functional, inplace in pairs:
        jtorch.manual_seed(2024)
        a = npv(functional())
        jtorch.manual_seed(2024)
        np.testing.assert_array_equal(a, npv(inplace()))


def test_generators_are_isolated():
    jtorch.manual_seed(10)
    expected = npv(jtorch.rand(20))
    jtorch.manual_seed(10)
    g = jtorch.Generator().manual_seed(10)
    private = npv(jtorch.rand(20, generator=g))
    jtorch.rand(5, generator=g)  # a private generator does not advance the default one
    np.testing.assert_array_equal(npv(jtorch.rand(20)), expected)
    np.testing.assert_array_equal(private, expected)  # same seed, same stream
    g1, g2 = jtorch.Generator().manual_seed(1), jtorch.Generator().manual_seed(1)
    jtorch.rand(7, generator=g1)
    assert not np.array_equal(npv(jtorch.rand(5, generator=g1)), npv(jtorch.rand(5, generator=g2)))


def test_consecutive_draws_differ():
    g = jtorch.Generator().manual_seed(0)
    assert not np.array_equal(npv(jtorch.rand(10, generator=g)), npv(jtorch.rand(10, generator=g)))


# ---- distributions ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_uniform_range_and_moments(dtype):
    g = jtorch.Generator().manual_seed(1)
    x = npv(jtorch.rand(N, dtype=dtype, generator=g)).astype(np.float64)
    assert x.min() >= 0.0 and x.max() < 1.0 and jtorch.rand(3, dtype=dtype).dtype is dtype
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.std() - 12 ** -0.5) < 0.01
    y = npv(jtorch.empty(N, dtype=dtype).uniform_(-3.0, 5.0, generator=g)).astype(np.float64)
    assert y.min() >= -3.0 and y.max() <= 5.0 and abs(y.mean() - 1.0) < 0.05
    assert len(np.unique(y)) > 1000


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_moments(dtype):
    g = jtorch.Generator().manual_seed(2)
    x = npv(jtorch.randn(N, dtype=dtype, generator=g)).astype(np.float64)
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    y = npv(jtorch.empty(N, dtype=dtype).normal_(5.0, 0.5, generator=g)).astype(np.float64)
    assert abs(y.mean() - 5) < 0.02 and abs(y.std() - 0.5) < 0.02
    z = npv(jtorch.normal(-1.0, 2.0, (N,), dtype=dtype, generator=g)).astype(np.float64)
    assert abs(z.mean() + 1) < 0.05 and abs(z.std() - 2) < 0.05


def test_complex_rand_and_randn():
    g = jtorch.Generator().manual_seed(3)
    c = npv(jtorch.rand(N, dtype=jtorch.complex64, generator=g))
    assert c.dtype == np.complex64 and 0 <= c.real.min() and c.real.max() < 1 and 0 <= c.imag.min() < c.imag.max() < 1
    z = npv(jtorch.randn(N, dtype=jtorch.complex128, generator=g))
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.02  # E|z|^2 = 1: each part has variance 1/2
    assert abs(z.real.std() - 2 ** -0.5) < 0.01 and abs(z.imag.std() - 2 ** -0.5) < 0.01


@pytest.mark.parametrize("dtype", [jtorch.int64, jtorch.int32, jtorch.int8, jtorch.uint8, jtorch.float32,
                                   jtorch.float16, jtorch.float64])
def test_randint_bounds(dtype):
    g = jtorch.Generator().manual_seed(4)
    x = npv(jtorch.randint(-3 if dtype is not jtorch.uint8 else 0, 7, (N,), dtype=dtype, generator=g))
    lo = -3 if dtype is not jtorch.uint8 else 0
    assert set(np.unique(x).tolist()) == set(range(lo, 7))
    counts = np.bincount((x - lo).astype(np.int64))
    assert counts.min() > N / (7 - lo) * 0.9
    assert jtorch.randint(5, (2, 3)).dtype is jtorch.int64 and jtorch.randint(5, (2, 3)).shape == (2, 3)


def test_randint_like_and_random_ranges():
    g = jtorch.Generator().manual_seed(5)
    x = npv(jtorch.randint_like(jtorch.empty(N, dtype=jtorch.int16), 4, generator=g))
    assert x.dtype == np.int16 and set(np.unique(x).tolist()) == {0, 1, 2, 3}
    bits = {jtorch.float16: 2 ** 11, jtorch.float32: 2 ** 24, jtorch.float64: 2 ** 53, jtorch.uint8: 255,
            jtorch.int8: 127, jtorch.int16: 2 ** 15 - 1, jtorch.int32: 2 ** 31 - 1, jtorch.int64: 2 ** 63 - 1,
            jtorch.bool: 1}
    for dtype, top in bits.items():  # random_(): [0, 2^digits] for floats, [0, max] for integers
        v = npv(jtorch.empty(N, dtype=dtype).random_(generator=g))
        assert v.min() >= 0 and v.max() <= top
        assert v.max() > top * 0.9
    v = npv(jtorch.empty(N, dtype=jtorch.int8).random_(-100, None, generator=g))  # [from, max]
    assert v.min() == -100 and v.max() == 127
    v = npv(jtorch.empty(N).random_(5, generator=g))  # random_(to): [0, to)
    assert set(np.unique(v).tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    v = npv(jtorch.empty(N, dtype=jtorch.int64).random_(-(2 ** 63), None, generator=g))  # the whole int64 range
    assert v.min() < -(2 ** 61) and v.max() > 2 ** 61
    v = npv(jtorch.empty(N, dtype=jtorch.int64).random_(-(2 ** 62), 2 ** 62, generator=g))
    assert v.min() >= -(2 ** 62) and v.max() < 2 ** 62 and v.min() < -(2 ** 61) and v.max() > 2 ** 61


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
@pytest.mark.parametrize("dtype", [jtorch.int64, jtorch.int32, jtorch.float32, jtorch.float16])
def test_randperm_is_a_permutation(n, dtype):
    p = jtorch.randperm(n, dtype=dtype)
    assert p.dtype is dtype and p.shape == (n,)
    assert sorted(npv(p).astype(np.int64).tolist()) == list(range(n))


def test_randperm_mixes():
    g = jtorch.Generator().manual_seed(6)
    perms = np.stack([npv(jtorch.randperm(5, generator=g)) for _ in range(2000)])
    first = np.bincount(perms[:, 0], minlength=5)
    assert first.min() > 300  # each value leads about 400 times in 2000


def test_bernoulli_and_exponential_moments():
    g = jtorch.Generator().manual_seed(7)
    b = npv(jtorch.empty(N).bernoulli_(0.3, generator=g))
    assert set(np.unique(b).tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    p = jtorch.tensor([0.0, 1.0, 0.5])
    draws = np.stack([npv(jtorch.bernoulli(p, generator=g)) for _ in range(400)])
    assert (draws[:, 0] == 0).all() and (draws[:, 1] == 1).all() and 0.4 < draws[:, 2].mean() < 0.6
    i = npv(jtorch.empty(N, dtype=jtorch.int32).bernoulli_(jtorch.full((N,), 0.75), generator=g))
    assert i.dtype == np.int32 and abs(i.mean() - 0.75) < 0.01
    e = npv(jtorch.empty(N, dtype=jtorch.float64).exponential_(4.0, generator=g))
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.01


def test_normal_tensor_overloads():
    g = jtorch.Generator().manual_seed(8)
    mean = jtorch.arange(4.0).reshape(4, 1)
    x = jtorch.normal(mean, jtorch.zeros(3), generator=g)
    assert x.shape == (4, 3) and (npv(x) == np.arange(4.0).reshape(4, 1)).all()  # std 0: the means
    y = npv(jtorch.normal(jtorch.full((N,), 3.0), 2.0, generator=g))
    assert abs(y.mean() - 3) < 0.05 and abs(y.std() - 2) < 0.05
    z = npv(jtorch.normal(-2.0, jtorch.full((N,), 0.5), generator=g))
    assert abs(z.mean() + 2) < 0.02 and abs(z.std() - 0.5) < 0.02


def test_in_place_samplers_respect_strides_and_bump_versions():
    base = jtorch.zeros(6, 4)
    view = base.t()[1:3]
    view.uniform_(5, 6)
    v = npv(base)
    assert ((v[:, 1:3] >= 5) & (v[:, 1:3] < 6)).all() and (v[:, [0, 3]] == 0).all()
    assert base._version == 1
    base.normal_()
    assert base._version == 2
    assert jtorch.rand(3)._version == 0 and jtorch.randperm(3)._version == 0


# ---- meta tensors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: jtorch.rand(3, 4, device="meta"), lambda: jtorch.randn(5, dtype=jtorch.float16, device="meta"),
    lambda: jtorch.randint(0, 10, (4,), device="meta"), lambda: jtorch.randperm(7, device="meta"),
    lambda: jtorch.rand_like(jtorch.empty(2, device="meta")), lambda: jtorch.randn_like(jtorch.empty(2), device="meta"),
    lambda: jtorch.normal(0.0, 1.0, (3,), device="meta"), lambda: jtorch.rand(2, generator=jtorch.Generator(),
                                                                              device="meta"),
    lambda: jtorch.bernoulli(jtorch.empty(3, device="meta")), lambda: jtorch.empty(3, device="meta").random_(2, 5),
])
def test_meta_samplers_allocate_nothing(make):
    t = make()
    assert t.is_meta and isinstance(t._storage, MetaStorage)


def test_meta_checks():
    m = jtorch.empty(3, device="meta")
    assert m.uniform_(3, 1) is m and m.random_(3, 1) is m  # PyTorch's meta kernels do not check these
    with pytest.raises(RuntimeError, match=r"^normal expects std >= 0\.0, but found std -1\.0$"):
        m.normal_(0, -1)
    assert jtorch.randperm(5, device="meta").dtype is jtorch.int64


# ---- the dispatcher and the bindings ------------------------------------------------------------------
def test_generator_argument_contributes_its_key():
    g = jtorch.Generator()
    ks = dispatcher.compute_keyset(jtorch.ops.aten.rand.generator, ((2,),), {"generator": g})
    assert ks.highest_priority_type_id() == DispatchKey.BackendSelect
    assert ks.has(DispatchKey.CPU)
    assert jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::rand.generator", "BackendSelect")
    assert jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::randperm", "BackendSelect")


def test_rand_with_generator_dispatch_trace(capsys, clean_dispatch_state):
    g = jtorch.Generator()
    dispatcher.set_dispatch_trace(True)
    try:
        jtorch.rand(2, generator=g)
    finally:
        dispatcher.set_dispatch_trace(False)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "[call] op=[aten::rand.generator], key=[BackendSelect]"
    assert err[1] == " [redispatch] op=[aten::rand.generator], key=[CPU]"
    assert "  [call] op=[aten::uniform_], key=[CPU]" in err  # below ADInplaceOrView: a fresh tensor


def test_binding_overloads():
    g = jtorch.Generator().manual_seed(1)
    assert jtorch.randint(10, (3,), generator=g).shape == (3,)
    assert jtorch.randint(2, 10, (3,), generator=g, dtype=jtorch.int16).dtype is jtorch.int16
    assert jtorch.rand(2, 3, generator=g).shape == (2, 3)
    out = jtorch.empty(0, dtype=jtorch.int32)
    assert jtorch.randint(0, 5, (4,), out=out) is out and out.shape == (4,)
    assert jtorch.randperm(4, out=jtorch.empty(0, dtype=jtorch.int64)).shape == (4,)
    with pytest.raises(TypeError, match=r"^randn\(\) received an invalid combination of arguments"):
        jtorch.randn(3, generator=5)


# ---- errors ----------------------------------------------------------------------------------------------
ERRORS = [
    ("torch.randint(5, 2, (3,))", RuntimeError, r"^random_ expects 'from' to be less than 'to', but got from=5 >= to=2$"),
    ("torch.randint(-1, (3,))", RuntimeError, r"^random_ expects 'from' to be less than 'to', but got from=0 >= to=-1$"),
    ("torch.randint(0, 300, (3,), dtype=torch.uint8)", RuntimeError, r"^to - 1 is out of bounds for unsigned char$"),
    ("torch.randint(0, 2 ** 40, (3,), dtype=torch.int32)", RuntimeError, r"^to - 1 is out of bounds for int$"),
    ("torch.empty(3, dtype=torch.uint8).random_(-1, 5)", RuntimeError, r"^from is out of bounds for unsigned char$"),
    ("torch.empty(3, dtype=torch.int16).random_(-2 ** 62, 5)", RuntimeError, r"^from is out of bounds for short int$"),
    ("torch.empty(3, dtype=torch.bool).random_(0, 3)", RuntimeError, r"^to - 1 is out of bounds for bool$"),
    ("torch.empty(3, dtype=torch.float16).random_(-70000, 70000)", RuntimeError,
     r"^from is out of bounds for c10::Half$"),
    ("torch.empty(3, dtype=torch.complex64).random_(4)", RuntimeError,
     r"^check_random_bounds handles only integral, floating-point and boolean types$"),
    ("torch.empty(3, dtype=torch.complex64).random_()", NotImplementedError,
     r"^\"random_kernel_cpu\" not implemented for 'ComplexFloat'$"),
    ("torch.empty(3).uniform_(5, 2)", RuntimeError,
     r"^uniform_ expects to return a \[from, to\) range, but found from=5 > to=2$"),
    ("torch.empty(3).uniform_(0, float('inf'))", RuntimeError, r"^to is out of bounds for float$"),
    ("torch.empty(3, dtype=torch.complex64).uniform_(-1e300, 0)", RuntimeError, r"^from is out of bounds for float$"),
    ("torch.empty(3).uniform_(-3e38, 3e38)", RuntimeError,
     r"^uniform_ expects to-from <= std::numeric_limits<Float>::max\(\), but found to=3e\+38 and from=-3e\+38 which "
     r"result in to-from to exceed the limit$"),
    ("torch.empty(3, dtype=torch.int32).uniform_()", NotImplementedError,
     r"^\"check_uniform_bounds\" not implemented for 'Int'$"),
    ("torch.rand(2, dtype=torch.int64)", NotImplementedError, r"^\"check_uniform_bounds\" not implemented for 'Long'$"),
    ("torch.empty(3).normal_(0, -1)", RuntimeError, r"^normal expects std >= 0\.0, but found std -1$"),
    ("torch.randn(2, dtype=torch.int64)", NotImplementedError, r"^\"normal_kernel_cpu\" not implemented for 'Long'$"),
    ("torch.normal(torch.zeros(2), -1.0)", RuntimeError, r"^normal expects std >= 0\.0, but found std -1$"),
    ("torch.normal(1.0, torch.full((2,), -1.0))", RuntimeError, r"^normal expects all elements of std >= 0\.0$"),
    ("torch.empty(3).bernoulli_(1.5)", RuntimeError, r"^bernoulli_ expects p to be in \[0, 1\], but got p=1\.5$"),
    ("torch.empty(3).bernoulli_(torch.tensor([0.5, 1.5, 0.2]))", RuntimeError,
     r"^Expected p_in >= 0 && p_in <= 1 to be true, but got false\."),
    ("torch.empty(3).bernoulli_(torch.tensor([0.5, 0.5]))", RuntimeError,
     r"^The expanded size of the tensor \(3\) must match the existing size \(2\) at non-singleton dimension 0\.  "
     r"Target sizes: \[3\]\.  Tensor sizes: \[2\]$"),
    ("torch.bernoulli(torch.tensor([1, 0, 1]))", NotImplementedError,
     r"^\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'$"),
    ("torch.empty(3, dtype=torch.complex64).bernoulli_()", NotImplementedError,
     r"^\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'$"),
    ("torch.empty(3).exponential_(0)", RuntimeError, r"^exponential_ expects lambda > 0\.0, but found lambda=0$"),
    ("torch.empty(3, dtype=torch.int32).exponential_()", RuntimeError,
     r"^Exponential distribution is a continuous probability distribution\. dtype must be a floating point but you "
     r"specified Int$"),
    ("torch.randperm(-1)", RuntimeError, r"^Trying to create tensor with negative dimension -1: \[-1\]$"),
    ("torch.randperm(300, dtype=torch.uint8)", RuntimeError, r"^value cannot be converted to type uint8_t without overflow$"),
    ("torch.randperm(3000, dtype=torch.float16)", RuntimeError, r"^n cannot be greater than 2049 for Half type\.$"),
    ("torch.randperm(5, dtype=torch.bool)", NotImplementedError, r"^\"randperm\" not implemented for 'Bool'$"),
    ("torch.rand(2, -1)", RuntimeError, r"^Trying to create tensor with negative dimension -1: \[2, -1\]$"),
]


@pytest.mark.parametrize("src, exc, pattern", ERRORS)
def test_error_texts(src, exc, pattern):
    with pytest.raises(exc, match=pattern):
        eval(src, {"torch": jtorch})


@pytest.mark.parametrize("src, exc, pattern", ERRORS)
def test_error_texts_match_torch(src, exc, pattern):
    torch = oracle_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as tt:
            eval(src, {"torch": torch})
    assert str(tt.value) == str(pytest.raises(exc, eval, src, {"torch": jtorch}).value).replace("jtorch", "torch")


def test_empty_tensors_skip_the_range_checks_they_come_after():
    assert jtorch.empty(0).normal_(0, 1).shape == (0,)
    with pytest.raises(RuntimeError, match=r"^uniform_ expects to return a \[from, to\) range"):
        jtorch.empty(0).uniform_(5, 2)  # checked before the empty return
    with pytest.raises(RuntimeError, match=r"^random_ expects 'from' to be less than 'to'"):
        jtorch.empty(0, dtype=jtorch.complex64).random_(2, 1)


def test_random_precision_warning():
    with pytest.warns(UserWarning, match=r"^to - 1 is out of bounds \[-\(2\^24\), 2\^24\]\. Due to precision limitations "
                                         r"float can support discrete uniform distribution only within this range\. "
                                         r"This warning will become an error in version 1\.7 release, please fix the "
                                         r"code in advance$"):
        jtorch.randint(2 ** 30, (2,), dtype=jtorch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.randint(2 ** 24 + 1, (2,), dtype=jtorch.float32)  # to - 1 == 2^24: in range
