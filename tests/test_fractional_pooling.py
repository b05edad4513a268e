"""Fractional max pooling (fractional_max_pool2d/3d, FractionalMaxPool2d/3d) against torch where
installed, given the same random samples: values, indices, input gradients, node names; output_ratio;
torch's error texts; gradcheck in float64; meta tensors; sampled windows without given samples."""
from __future__ import annotations

import numpy as np
import pytest
from _torch_oracle import oracle_torch, type_name

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF

CASES = [  # nd, input shape, kernel, output_size, output_ratio
    (2, (2, 3, 9, 8), (2, 3), (5, 4), None),
    (2, (3, 10, 7), 2, None, (0.5, 0.7)),
    (2, (1, 2, 8, 8), 3, 6, None),
    (3, (2, 2, 7, 9, 8), (2, 3, 2), (3, 5, 4), None),
    (3, (2, 6, 6, 7), 2, None, 0.5),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_fractional_max_pool_matches_torch(case, dtype):
    torch = oracle_torch()
    nd, shape, k, osz, ratio = case
    rng = np.random.default_rng(len(shape) + nd)
    x = rng.standard_normal(shape).astype(dtype)
    n = shape[0] if len(shape) == nd + 2 else 1
    s = rng.random((n, shape[-nd - 1], nd)).astype(dtype)
    name = f"fractional_max_pool{nd}d"
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    vt, it = getattr(torch.nn.functional, name)(xt, k, osz, ratio, True, _random_samples=torch.tensor(s))
    vj, ij = getattr(JF, name)(xj, k, osz, ratio, True, _random_samples=jtorch.tensor(s))
    assert tuple(vj.shape) == tuple(vt.shape) and vj.dtype == getattr(jtorch, str(vt.dtype).split(".")[-1])
    np.testing.assert_array_equal(vj.detach().numpy(), vt.detach().numpy())
    np.testing.assert_array_equal(ij.numpy(), it.numpy())
    assert type_name(vj.grad_fn) == type_name(vt.grad_fn)
    g = rng.standard_normal(tuple(vt.shape)).astype(dtype)
    vt.backward(torch.tensor(g))
    vj.backward(jtorch.tensor(g))
    np.testing.assert_allclose(xj.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_modules_match_torch_with_given_samples():
    torch = oracle_torch()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 8, 9))
    s = rng.random((2, 3, 3))
    tm = torch.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.7), _random_samples=torch.tensor(s))
    jm = jnn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.7), _random_samples=jtorch.tensor(s))
    assert repr(jm) == repr(tm)
    np.testing.assert_array_equal(jm(jtorch.tensor(x)).numpy(), tm(torch.tensor(x)).numpy())
    s2 = rng.random((2, 3, 2))
    tm2 = torch.nn.FractionalMaxPool2d((2, 3), output_size=4, return_indices=True, _random_samples=torch.tensor(s2))
    jm2 = jnn.FractionalMaxPool2d((2, 3), output_size=4, return_indices=True, _random_samples=jtorch.tensor(s2))
    np.testing.assert_array_equal(jm2(jtorch.tensor(x[:, :, 0]))[1].numpy(), tm2(torch.tensor(x[:, :, 0]))[1].numpy())
    assert [n for n, _ in jm.named_buffers()] == [n for n, _ in tm.named_buffers()]


def test_random_windows_cover_the_input_and_pick_window_maxima():
    """Without given samples: torch's shapes, every index inside its plane and each value the input
    element at its index (the sampling itself is random)."""
    jtorch.manual_seed(0)
    x = jtorch.randn(2, 3, 11, 10)
    v, i = JF.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    assert tuple(v.shape) == (2, 3, 5, 5)
    assert int(i.min()) >= 0 and int(i.max()) < 110
    picked = x.reshape(2, 3, -1).gather(2, i.reshape(2, 3, -1))
    np.testing.assert_array_equal(picked.numpy(), v.reshape(2, 3, -1).numpy())


def test_gradcheck():
    rng = np.random.default_rng(1)
    x = jtorch.tensor(rng.standard_normal((1, 2, 6, 5, 6))).requires_grad_()
    s = jtorch.tensor(rng.random((1, 2, 3)))
    assert jtorch.autograd.gradcheck(lambda x: JF.fractional_max_pool3d(x, 2, 3, _random_samples=s), (x,))
    assert jtorch.autograd.gradgradcheck(lambda x: JF.fractional_max_pool3d(x, 2, 3, _random_samples=s), (x,))
    y = jtorch.tensor(rng.standard_normal((2, 7, 6))).requires_grad_()
    s2 = jtorch.tensor(rng.random((1, 2, 2)))
    assert jtorch.autograd.gradcheck(lambda y: JF.fractional_max_pool2d(y, 2, (4, 3), _random_samples=s2), (y,))


def _error_cases(lib):
    r, rand, nn = lib.ones, lib.rand, lib.nn
    x = r(2, 3, 9, 8)
    x5 = r(1, 2, 3, 9, 8)
    f2, f3 = lib.nn.functional.fractional_max_pool2d, lib.nn.functional.fractional_max_pool3d
    return [
        lambda: f2(x, 2, (4, 8), _random_samples=rand(2, 3, 2)),
        lambda: f2(x, (9, 2), 4, _random_samples=rand(2, 3, 2)),
        lambda: f2(x[0, 0], 2, 4, _random_samples=rand(2, 3, 2)),
        lambda: f2(r(2, 0, 4, 4), 2, 2, _random_samples=rand(2, 0, 2)),
        lambda: f2(x, 2, 4, _random_samples=rand(2, 3)),
        lambda: f2(x, 2, 4, _random_samples=rand(1, 3, 2)),
        lambda: f2(x, 2, 4, _random_samples=rand(2, 2, 2)),
        lambda: f2(x, 2, 4, _random_samples=rand(2, 3, 3)),
        lambda: f2(x, 2, 4, _random_samples=rand(2, 3, 2, dtype=lib.float64)),
        lambda: f2(x, 2),
        lambda: f2(x, 2, output_ratio=0.5),
        lambda: f2(x, 2, output_ratio=(0.5, 0.5, 0.5)),
        lambda: f3(x5, 2, (2, 4, 4), _random_samples=rand(1, 2, 3)),
        lambda: f3(x5, 2, (1, 8, 4), _random_samples=rand(1, 2, 3)),
        lambda: f3(x5, 2, (1, 4, 7), _random_samples=rand(1, 2, 3)),
        lambda: f3(x[0], 2, (1, 4, 4), _random_samples=rand(1, 2, 3)),
        lambda: f3(x5, 2, (1, 4, 4), _random_samples=rand(1, 2, 2)),
        lambda: f3(x5, 2),
        lambda: nn.FractionalMaxPool2d(2),
        lambda: nn.FractionalMaxPool2d(2, 3, 0.5),
        lambda: nn.FractionalMaxPool2d(2, output_ratio=1.5),
        lambda: nn.FractionalMaxPool3d(0, output_ratio=0.5),
        lambda: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
    ]


def test_error_texts_match_torch():
    torch = oracle_torch()

    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type_name(e), str(e)
        return None

    got = [outcome(c) for c in _error_cases(jtorch)]
    want = [outcome(c) for c in _error_cases(torch)]
    assert all(w is not None for w in want)
    for g, w in zip(got, want):
        assert g == w


def test_meta_tensors_give_torch_shapes():
    torch = oracle_torch()
    got = []
    for lib in (jtorch, torch):
        x = lib.empty(2, 3, 9, 7, 8, device="meta")
        s = lib.empty(2, 3, 3, device="meta")
        v, i = lib.nn.functional.fractional_max_pool3d(x, 2, (4, 3, 5), return_indices=True, _random_samples=s)
        w = lib.nn.functional.fractional_max_pool2d(x[0], 2, output_ratio=(0.5, 0.5))
        got.append([(str(o.device), tuple(o.shape), str(o.dtype).split(".")[-1]) for o in (v, i, w)])
    assert got[0] == got[1]
