"""nn.init: gains and fans equal torch's, seeded draws reproducible, distributions with torch's
parameters (bounds, mean, std over a large tensor), error texts as torch's."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import jtorch
import jtorch.nn as jnn
from jtorch.nn import init
from _torch_compare import error_of
from _torch_oracle import oracle_torch

SHAPE = (256, 128, 3)  # fan_in = 384, fan_out = 768: large enough for 1% statistics


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                                  ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",)])
def test_calculate_gain_matches_torch(args):
    torch = oracle_torch()
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


@pytest.mark.parametrize("args", [("foo",), ("leaky_relu", "x"), ("leaky_relu", True)])
def test_calculate_gainerror_of(args):
    torch = oracle_torch()
    assert error_of(lambda: init.calculate_gain(*args)) == error_of(lambda: torch.nn.init.calculate_gain(*args))


def test_fans():
    assert init._calculate_fan_in_and_fan_out(jtorch.empty(5, 4)) == (4, 5)
    assert init._calculate_fan_in_and_fan_out(jtorch.empty(*SHAPE)) == (384, 768)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2"):
        init._calculate_fan_in_and_fan_out(jtorch.empty(3))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(jtorch.empty(3, 3), mode="fan_avg")


def _stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def _uniform_ok(t, bound):
    mean, std, lo, hi = _stats(t)
    assert -bound <= lo and hi <= bound and hi > 0.99 * bound and lo < -0.99 * bound
    assert abs(mean) < 0.01 * bound and abs(std - bound / math.sqrt(3)) < 0.01 * bound


def _normal_ok(t, std_expected, mean_expected=0.0):
    mean, std, _, _ = _stats(t)
    assert abs(mean - mean_expected) < 0.01 * std_expected and abs(std - std_expected) < 0.01 * std_expected


def test_uniform_normal_constant():
    jtorch.manual_seed(0)
    _uniform_ok(init.uniform_(jtorch.empty(*SHAPE), -2.0, 2.0), 2.0)
    _normal_ok(init.normal_(jtorch.empty(*SHAPE), 1.5, 3.0), 3.0, 1.5)
    assert init.constant_(jtorch.empty(2), 0.25).tolist() == [0.25, 0.25]
    assert init.ones_(jtorch.empty(2)).tolist() == [1.0, 1.0] and init.zeros_(jtorch.ones(2)).tolist() == [0.0, 0.0]


def test_initialisers_run_under_no_grad_and_return_their_tensor():
    p = jnn.Parameter(jtorch.empty(4, 4))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_, init.orthogonal_,
               init.trunc_normal_, init.zeros_, init.eye_):
        assert fn(p) is p
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_seeded_draws_are_reproducible():
    jtorch.manual_seed(7)
    a = init.kaiming_normal_(jtorch.empty(30, 20)).numpy().copy()
    jtorch.manual_seed(7)
    np.testing.assert_array_equal(init.kaiming_normal_(jtorch.empty(30, 20)).numpy(), a)
    g = jtorch.Generator().manual_seed(7)
    b = init.uniform_(jtorch.empty(5), generator=g).numpy().copy()
    g.manual_seed(7)
    np.testing.assert_array_equal(init.uniform_(jtorch.empty(5), generator=g).numpy(), b)


@pytest.mark.parametrize("gain", [1.0, 2.0])
def test_xavier(gain):
    jtorch.manual_seed(1)
    std = gain * math.sqrt(2.0 / (384 + 768))
    _uniform_ok(init.xavier_uniform_(jtorch.empty(*SHAPE), gain=gain), math.sqrt(3.0) * std)
    _normal_ok(init.xavier_normal_(jtorch.empty(*SHAPE), gain=gain), std)


@pytest.mark.parametrize("a,mode,nl", [(0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
                                       (0, "fan_out", "relu"), (0.1, "fan_in", "tanh")])
def test_kaiming(a, mode, nl):
    jtorch.manual_seed(2)
    fan = 384 if mode == "fan_in" else 768
    std = init.calculate_gain(nl, a) / math.sqrt(fan)
    _uniform_ok(init.kaiming_uniform_(jtorch.empty(*SHAPE), a=a, mode=mode, nonlinearity=nl), math.sqrt(3.0) * std)
    _normal_ok(init.kaiming_normal_(jtorch.empty(*SHAPE), a=a, mode=mode, nonlinearity=nl), std)


def test_kaiming_zero_element_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(jtorch.empty(0, 3))


def test_trunc_normal_matches_torch_distribution():
    torch = oracle_torch()
    jtorch.manual_seed(3)
    torch.manual_seed(3)
    j = init.trunc_normal_(jtorch.empty(*SHAPE), mean=0.2, std=0.5, a=-0.5, b=1.0).numpy()
    t = torch.nn.init.trunc_normal_(torch.empty(*SHAPE), mean=0.2, std=0.5, a=-0.5, b=1.0).numpy()
    assert j.min() >= -0.5 and j.max() <= 1.0
    assert abs(j.mean() - t.mean()) < 0.01 and abs(j.std() - t.std()) < 0.01
    # the erfinv used inside agrees with torch's
    y = np.linspace(-0.999, 0.999, 41).astype(np.float32)
    np.testing.assert_allclose(init._erfinv_(jtorch.tensor(y)).numpy(), torch.erfinv(torch.tensor(y)).numpy(),
                               rtol=2e-6, atol=2e-6)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.trunc_normal_(jtorch.empty(3), mean=5.0, std=1.0, a=-1.0, b=1.0)
    assert "mean is more than 2 std from [a, b] in nn.init.trunc_normal_" in str(w[0].message)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 2, 2)])
def test_orthogonal(shape):
    jtorch.manual_seed(4)
    w = init.orthogonal_(jtorch.empty(*shape), gain=2.0).numpy().reshape(shape[0], -1)
    if w.shape[0] >= w.shape[1]:
        np.testing.assert_allclose(w.T @ w, 4.0 * np.eye(w.shape[1]), atol=1e-5)
    else:
        np.testing.assert_allclose(w @ w.T, 4.0 * np.eye(w.shape[0]), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(jtorch.empty(3))


def test_eye_and_dirac_match_torch():
    torch = oracle_torch()
    np.testing.assert_array_equal(init.eye_(jtorch.empty(3, 5)).numpy(), torch.nn.init.eye_(torch.empty(3, 5)).numpy())
    for shape, groups in [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 1, 3, 3), 1)]:
        np.testing.assert_array_equal(init.dirac_(jtorch.empty(*shape), groups).numpy(),
                                      torch.nn.init.dirac_(torch.empty(*shape), groups).numpy())
    assert error_of(lambda: init.eye_(jtorch.empty(2))) == error_of(lambda: torch.nn.init.eye_(torch.empty(2)))
    assert error_of(lambda: init.dirac_(jtorch.empty(3, 2, 2), 2)) == \
        error_of(lambda: torch.nn.init.dirac_(torch.empty(3, 2, 2), 2))


def test_deprecated_aliases_warn():
    with pytest.warns(FutureWarning, match="`nn.init.normal` is now deprecated in favor of `nn.init.normal_`."):
        init.normal(jtorch.empty(2))
