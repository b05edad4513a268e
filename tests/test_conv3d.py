"""3-d convolutions (conv3d, conv_transpose3d, Conv3d, ConvTranspose3d) against torch where installed
(same weights and inputs: outputs and the gradients of input, weight and bias, autograd node names,
error texts, reprs) and against finite differences (gradcheck, gradgradcheck); meta tensors and
default initialisation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_oracle import oracle_torch, type_name

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF

TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}


def _np(t) -> np.ndarray:
    return t.detach().numpy()


def _compare(torch, fn_t, fn_j, arrays, dtype):
    """Outputs and the gradients of every array input (of sum(out * g) for a random g)."""
    ts = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    js = [None if a is None else jtorch.tensor(a).requires_grad_() for a in arrays]
    rt, rj = fn_t(*ts), fn_j(*js)
    assert tuple(rj.shape) == tuple(rt.shape)
    assert rj.dtype == getattr(jtorch, str(rt.dtype).split(".")[-1])
    np.testing.assert_allclose(_np(rj), _np(rt), **TOL[dtype])
    g = np.random.default_rng(7).standard_normal(tuple(rt.shape)).astype(dtype)
    rt.backward(torch.tensor(g))
    rj.backward(jtorch.tensor(g))
    assert type_name(rj.grad_fn) == type_name(rt.grad_fn)
    for t, j in zip(ts, js):
        if t is not None:
            np.testing.assert_allclose(_np(j.grad), t.grad.numpy(), **TOL[dtype])


CONV3D = [  # stride, padding, dilation, groups, kernel
    (1, 0, 1, 1, (3, 3, 3)),
    (2, 1, 1, 2, (3, 2, 3)),
    ((1, 2, 3), (0, 1, 2), (2, 1, 1), 1, (2, 3, 2)),
    (1, 2, 2, 2, (2, 2, 2)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV3D)
def test_conv3d_matches_torch(case, dtype):
    torch = oracle_torch()
    s, p, d, g, k = case
    rng = np.random.default_rng(sum(k) + g)
    x = rng.standard_normal((2, 4, 6, 7, 8)).astype(dtype)
    w = rng.standard_normal((6, 4 // g, *k)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)
    _compare(torch, lambda x, w, b: torch.nn.functional.conv3d(x, w, b, s, p, d, g),
             lambda x, w, b: JF.conv3d(x, w, b, s, p, d, g), [x, w, b], dtype)


CONV_T3D = [  # stride, padding, output_padding, dilation, groups, kernel
    (1, 0, 0, 1, 1, (3, 3, 3)),
    (2, 1, 1, 1, 2, (3, 2, 3)),
    (2, 1, 1, 2, 1, (2, 3, 2)),
    ((1, 2, 3), (0, 1, 2), (0, 1, 0), (2, 1, 1), 1, (3, 3, 3)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV_T3D)
def test_conv_transpose3d_matches_torch(case, dtype):
    torch = oracle_torch()
    s, p, op, d, g, k = case
    rng = np.random.default_rng(sum(k) + g + 1)
    x = rng.standard_normal((2, 4, 3, 4, 5)).astype(dtype)
    w = rng.standard_normal((4, 6 // g, *k)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)
    _compare(torch, lambda x, w, b: torch.nn.functional.conv_transpose3d(x, w, b, s, p, op, g, d),
             lambda x, w, b: JF.conv_transpose3d(x, w, b, s, p, op, g, d), [x, w, b], dtype)


def test_torch_namespace_unbatched_and_padding_strings():
    torch = oracle_torch()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 4, 6))  # unbatched (C, D, H, W)
    w = rng.standard_normal((3, 2, 2, 3, 2))
    _compare(torch, lambda x, w: torch.conv3d(x, w, None, 1, 1), lambda x, w: jtorch.conv3d(x, w, None, 1, 1),
             [x, w], np.float64)
    _compare(torch, lambda x, w: torch.nn.functional.conv3d(x, w, padding="same", dilation=(1, 2, 1)),
             lambda x, w: JF.conv3d(x, w, padding="same", dilation=(1, 2, 1)), [x, w], np.float64)
    _compare(torch, lambda x, w: torch.nn.functional.conv3d(x, w, padding="valid"),
             lambda x, w: JF.conv3d(x, w, padding="valid"), [x, w], np.float64)
    wt = rng.standard_normal((2, 3, 2, 2, 2))
    _compare(torch, lambda x, w: torch.conv_transpose3d(x, w, None, 2, 1, 1),
             lambda x, w: jtorch.conv_transpose3d(x, w, None, 2, 1, 1), [x, wt], np.float64)


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    x = jtorch.tensor(rng.standard_normal((1, 2, 4, 3, 4))).requires_grad_()
    w = jtorch.tensor(rng.standard_normal((4, 1, 2, 2, 3))).requires_grad_()
    b = jtorch.tensor(rng.standard_normal(4)).requires_grad_()

    def conv(x, w, b):
        return JF.conv3d(x, w, b, (2, 1, 1), (1, 0, 1), (1, 2, 1), 2)

    def conv_t(x, w, b):
        return JF.conv_transpose3d(x, w, b, (2, 1, 2), (1, 0, 1), (1, 0, 0), 2, (1, 2, 1))

    wt = jtorch.tensor(rng.standard_normal((2, 2, 2, 2, 3))).requires_grad_()
    for f, args in ((conv, (x, w, b)), (conv_t, (x, wt, b))):
        assert jtorch.autograd.gradcheck(f, args)
        assert jtorch.autograd.gradgradcheck(f, args)


def _error_cases(lib, F):
    r = lib.ones
    return [
        lambda: F.conv3d(r(1, 2, 2, 4, 4), r(3, 2, 3, 3, 3)),
        lambda: F.conv3d(r(2, 4, 4), r(3, 2, 3, 3, 3)),
        lambda: F.conv3d(r(1, 4, 4, 4, 4), r(3, 2, 3, 3, 3)),
        lambda: F.conv3d(r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3), r(4)),
        lambda: F.conv3d(r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3), stride=0),
        lambda: F.conv3d(r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3), stride=(1, 1)),
        lambda: F.conv3d(r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3), padding="same", stride=2),
        lambda: F.conv3d(r(1, 2, 4, 4, 4, dtype=lib.float64), r(3, 2, 3, 3, 3)),
        lambda: F.conv_transpose3d(r(1, 2, 4, 4, 4), r(2, 3, 3, 3, 3), stride=2, output_padding=2),
        lambda: F.conv_transpose3d(r(1, 3, 4, 4, 4), r(2, 3, 3, 3, 3)),
        lambda: F.conv_transpose3d(r(1, 4, 4), r(2, 3, 3, 3, 3)),
    ]


def test_error_texts_match_torch():
    torch = oracle_torch()

    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type_name(e), str(e)
        return None

    got = [outcome(c) for c in _error_cases(jtorch, JF)]
    want = [outcome(c) for c in _error_cases(torch, torch.nn.functional)]
    assert all(w is not None for w in want)
    assert got == want


@pytest.mark.parametrize("cls,args,kw", [
    ("Conv3d", (4, 6, 3), dict(stride=2, padding=1)),
    ("Conv3d", (4, 6, (2, 3, 2)), dict(groups=2, dilation=(2, 1, 1), padding=1, bias=False)),
    ("Conv3d", (4, 6, 3), dict(padding="same", padding_mode="zeros")),
    ("ConvTranspose3d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1)),
    ("ConvTranspose3d", (4, 6, (2, 2, 3)), dict(stride=(1, 2, 1), groups=2, dilation=(1, 1, 2))),
])
def test_modules_match_torch(cls, args, kw):
    torch = oracle_torch()
    tm = getattr(torch.nn, cls)(*args, **kw).double()
    jm = getattr(jnn, cls)(*args, **kw).double()
    assert repr(jm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(6).standard_normal((2, args[0], 5, 6, 4))
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    yt, yj = tm(xt), jm(xj)
    np.testing.assert_allclose(_np(yj), _np(yt), rtol=1e-10, atol=1e-10)
    yt.pow(2).sum().backward()
    yj.pow(2).sum().backward()
    np.testing.assert_allclose(_np(xj.grad), xt.grad.numpy(), rtol=1e-10, atol=1e-10)
    for (n, pt), (_, pj) in zip(tm.named_parameters(), jm.named_parameters()):
        np.testing.assert_allclose(_np(pj.grad), pt.grad.numpy(), rtol=1e-10, atol=1e-9, err_msg=n)


def test_conv_transpose3d_output_size_argument():
    m = jnn.ConvTranspose3d(2, 3, 3, stride=2)
    x = jtorch.zeros(1, 2, 4, 5, 5)
    assert tuple(m(x, output_size=(10, 12, 11)).shape) == (1, 3, 10, 12, 11)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=(14, 14, 14))


def test_default_initialisation_bounds():
    """kaiming_uniform_(a=sqrt(5)): uniform in ±1/sqrt(fan_in), as the bias."""
    jtorch.manual_seed(0)
    for m, fan_in in ((jnn.Conv3d(8, 32, 3, groups=2), 4 * 27), (jnn.ConvTranspose3d(8, 32, 3), 32 * 27)):
        bound = 1 / math.sqrt(fan_in)
        w, b = _np(m.weight), _np(m.bias)
        assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound


def test_meta_tensors_give_torch_shapes():
    torch = oracle_torch()
    shapes = []
    for lib in (jtorch, torch):
        m = lib.nn.Sequential(lib.nn.Conv3d(3, 8, 3, stride=2, padding=1), lib.nn.ConvTranspose3d(8, 4, 2, stride=2))
        y = m.to("meta")(lib.empty(5, 3, 9, 7, 8, device="meta"))
        shapes.append((str(y.device), tuple(y.shape)))
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("transposed", [False, True])
def test_empty_batch_and_non_contiguous_input(transposed):
    f = JF.conv_transpose3d if transposed else JF.conv3d
    x = jtorch.zeros(0, 4, 5, 5, 5).requires_grad_()
    w = jtorch.ones(4, 2, 3, 3, 3).requires_grad_()
    y = f(x, w, None, groups=2)
    assert tuple(y.shape) == ((0, 4, 7, 7, 7) if transposed else (0, 4, 3, 3, 3))
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 5, 5, 5) and float(w.grad.abs().sum()) == 0
    rng = np.random.default_rng(2)
    base = rng.standard_normal((2, 5, 6, 4, 4))
    xt = jtorch.tensor(base).permute(0, 4, 1, 2, 3)  # channels innermost in memory
    wn = jtorch.tensor(rng.standard_normal((4, 2, 2, 2, 2)))
    want = f(jtorch.tensor(np.ascontiguousarray(base.transpose(0, 4, 1, 2, 3))), wn, None, 1, 0, groups=2) \
        if not transposed else None
    if want is not None:
        np.testing.assert_allclose(_np(f(xt, wn, None, 1, 0, groups=2)), _np(want), rtol=1e-12)
