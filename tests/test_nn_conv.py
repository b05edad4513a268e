"""Convolution (conv1d/2d, conv_transpose1d/2d, unfold/fold, the Conv modules) against torch where
installed (same weights, same inputs: outputs and gradients of input, weight and bias) and against a
NumPy reference (sliding windows and einsum) otherwise; torch's error texts, reprs and default
initialisation; double backward; meta tensors."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF
from _torch_oracle import live_torch, oracle_torch, type_name

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True)
TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}


def _torch():
    return oracle_torch()


def _np(t) -> np.ndarray:
    return t.detach().numpy()


# ---- NumPy reference --------------------------------------------------------------------------------
def conv2d_ref(x, w, b, stride, padding, dilation, groups):
    """Direct convolution over sliding windows of the zero-padded input."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = np.lib.stride_tricks.sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(2, 3))
    win = win[:, :, ::sh, ::sw, ::dh, ::dw]  # (N, C, OH, OW, kh, kw)
    og = o // groups
    outs = []
    for g in range(groups):
        outs.append(np.einsum("ncyxij,ocij->noyx", win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]))
    out = np.concatenate(outs, axis=1)
    return out if b is None else out + b.reshape(1, -1, 1, 1)


@given(st.integers(1, 2), st.integers(1, 2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(0, 2), st.integers(1, 2), st.booleans())
@SETTINGS
def test_conv2d_matches_numpy_reference(n, groups, cg, k, s, p, d, bias):
    rng = np.random.default_rng(n * 100 + k * 10 + s)
    x = rng.standard_normal((n, cg * groups, 7, 6))
    w = rng.standard_normal((2 * groups, cg, k, k + 1 if k < 3 else k))
    b = rng.standard_normal(2 * groups) if bias else None
    if 7 + 2 * p < d * (w.shape[2] - 1) + 1 or 6 + 2 * p < d * (w.shape[3] - 1) + 1:
        return
    out = JF.conv2d(jtorch.tensor(x), jtorch.tensor(w), None if b is None else jtorch.tensor(b), s, p, d, groups)
    np.testing.assert_allclose(_np(out), conv2d_ref(x, w, b, (s, s), (p, p), (d, d), groups), rtol=1e-10, atol=1e-10)


def test_conv2d_gradients_match_finite_differences():
    """Without torch: the formula's gradients against central differences (float64)."""
    rng = np.random.default_rng(0)
    x = jtorch.tensor(rng.standard_normal((2, 4, 5, 6))).requires_grad_()
    w = jtorch.tensor(rng.standard_normal((6, 2, 3, 2))).requires_grad_()
    b = jtorch.tensor(rng.standard_normal(6)).requires_grad_()
    assert jtorch.autograd.gradcheck(lambda x, w, b: JF.conv2d(x, w, b, (2, 1), (1, 1), (1, 2), 2), (x, w, b))
    wt = jtorch.tensor(rng.standard_normal((4, 3, 2, 3))).requires_grad_()
    assert jtorch.autograd.gradcheck(
        lambda x, w: JF.conv_transpose2d(x, w, None, (2, 1), (1, 0), (1, 0), 1, (1, 2)), (x, wt))


# ---- against torch ----------------------------------------------------------------------------------
def _compare(torch, fn_t, fn_j, arrays, dtype):
    """Outputs and the gradients of every array input (of sum(out * g) for a random g)."""
    ts = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    js = [None if a is None else jtorch.tensor(a).requires_grad_() for a in arrays]
    rt, rj = fn_t(*ts), fn_j(*js)
    assert tuple(rj.shape) == tuple(rt.shape)
    np.testing.assert_allclose(_np(rj), _np(rt), **TOL[dtype])
    g = np.random.default_rng(7).standard_normal(tuple(rt.shape)).astype(dtype)
    rt.backward(torch.tensor(g))
    rj.backward(jtorch.tensor(g))
    assert type_name(rj.grad_fn) == type_name(rt.grad_fn)
    for t, j in zip(ts, js):
        if t is not None:
            np.testing.assert_allclose(_np(j.grad), t.grad.numpy(), **TOL[dtype])


conv_params = st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 3), st.integers(1, 3),
                        st.integers(1, 3), st.integers(0, 2), st.integers(1, 2), st.booleans(),
                        st.sampled_from([np.float32, np.float64]))


@given(conv_params, st.integers(1, 3))
@SETTINGS
def test_conv2d_matches_torch(params, kh):
    torch = _torch()
    n, groups, cg, kw, s, p, d, bias, dtype = params
    rng = np.random.default_rng(kw * 7 + s)
    x = rng.standard_normal((n, cg * groups, 6, 7)).astype(dtype)
    w = rng.standard_normal((2 * groups, cg, kh, kw)).astype(dtype)
    b = rng.standard_normal(2 * groups).astype(dtype) if bias else None
    if 6 + 2 * p < d * (kh - 1) + 1 or 7 + 2 * p < d * (kw - 1) + 1:
        return
    args = ((s, 1), (p, 0), (d, 1), groups)
    _compare(torch, lambda x, w, b: torch.nn.functional.conv2d(x, w, b, *args),
             lambda x, w, b: JF.conv2d(x, w, b, *args), [x, w, b], dtype)


@given(conv_params, st.integers(0, 2))
@SETTINGS
def test_conv_transpose2d_matches_torch(params, op):
    torch = _torch()
    n, groups, cg, k, s, p, d, bias, dtype = params
    op = op % max(s, d)  # output padding must be smaller than stride or dilation
    rng = np.random.default_rng(k * 7 + s)
    x = rng.standard_normal((n, cg * groups, 4, 5)).astype(dtype)
    w = rng.standard_normal((cg * groups, 2, k, 2)).astype(dtype)
    b = rng.standard_normal(2 * groups).astype(dtype) if bias else None
    if any(transposed <= 0 for transposed in ((4 - 1) * s - 2 * p + d * (k - 1) + op + 1,
                                              (5 - 1) * s - 2 * p + d + op + 1)):
        return
    args = ((s, s), (p, p), (op, op), groups, (d, d))
    _compare(torch, lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, *args),
             lambda x, w, b: JF.conv_transpose2d(x, w, b, *args), [x, w, b], dtype)


@pytest.mark.parametrize("padding", ["same", "valid", 1])
@pytest.mark.parametrize("k", [3, 4])
def test_conv1d_and_padding_strings(padding, k):
    torch = _torch()
    rng = np.random.default_rng(k)
    x = rng.standard_normal((2, 4, 9))
    w = rng.standard_normal((6, 2, k))
    b = rng.standard_normal(6)
    if padding == "same":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # even kernel: torch and jtorch both warn once
            _compare_values(torch, x, w, b, padding)
    else:
        _compare(torch, lambda x, w, b: torch.nn.functional.conv1d(x, w, b, 1, padding, 2, 2),
                 lambda x, w, b: JF.conv1d(x, w, b, 1, padding, 2, 2), [x, w, b], np.float64)


def _compare_values(torch, x, w, b, padding):
    """padding='same': torch pads a copy (grad_fn ConvolutionBackward0), jtorch crops the output of a
    larger symmetric padding (grad_fn SliceBackward0): values and gradients must agree."""
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    js = [jtorch.tensor(a).requires_grad_() for a in (x, w, b)]
    rt = torch.nn.functional.conv1d(*ts, 1, padding, 2, 2)
    rj = JF.conv1d(*js, 1, padding, 2, 2)
    np.testing.assert_allclose(_np(rj), _np(rt), rtol=1e-10, atol=1e-10)
    rt.pow(2).sum().backward()
    rj.pow(2).sum().backward()
    for t, j in zip(ts, js):
        np.testing.assert_allclose(_np(j.grad), t.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_conv_transpose1d_and_unbatched_inputs():
    torch = _torch()
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 5)), rng.standard_normal((4, 3, 3))
    _compare(torch, lambda x, w: torch.nn.functional.conv_transpose1d(x, w, None, 2, 1, 1),
             lambda x, w: JF.conv_transpose1d(x, w, None, 2, 1, 1), [x, w], np.float64)
    x2, w2 = rng.standard_normal((3, 6, 5)), rng.standard_normal((2, 3, 2, 2))
    _compare(torch, lambda x, w: torch.nn.functional.conv2d(x, w), lambda x, w: JF.conv2d(x, w), [x2, w2],
             np.float64)


def test_unfold_fold_match_torch():
    torch = _torch()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 7, 6))
    _compare(torch, lambda x: torch.nn.functional.unfold(x, (2, 3), (1, 2), 1, (2, 1)),
             lambda x: JF.unfold(x, (2, 3), (1, 2), 1, (2, 1)), [x], np.float64)
    cols = rng.standard_normal((2, 12, 30))
    _compare(torch, lambda c: torch.nn.functional.fold(c, (7, 6), 2), lambda c: JF.fold(c, (7, 6), 2), [cols],
             np.float64)


def test_double_backward_matches_torch():
    torch = _torch()
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 4, 5, 5)), rng.standard_normal((4, 2, 3, 3))
    res = []
    for lib, F in ((torch, torch.nn.functional), (jtorch, JF)):
        xt, wt = lib.tensor(x).requires_grad_(), lib.tensor(w).requires_grad_()
        y = F.conv2d(xt, wt, None, 2, 1, 1, 2)
        gx, = lib.autograd.grad(y.pow(2).sum(), xt, create_graph=True)
        gx.pow(2).sum().backward()
        res.append((_np(gx), _np(wt.grad), _np(xt.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


# ---- errors -----------------------------------------------------------------------------------------
def _cases(lib, F):
    x, w = lib.zeros(2, 3, 8, 8), lib.zeros(4, 3, 3, 3)
    return [
        lambda: F.conv2d(x, lib.zeros(4, 8, 3, 3)),
        lambda: F.conv2d(lib.zeros(8, 8), w),
        lambda: F.conv2d(lib.zeros(1, 3, 2, 2), w),
        lambda: F.conv2d(x, lib.zeros(3, 3, 3, 3), groups=2),
        lambda: F.conv2d(x, w, groups=2),
        lambda: F.conv2d(x, w, groups=0),
        lambda: F.conv2d(x, w, lib.zeros(3)),
        lambda: F.conv2d(x, w, stride=2, padding="same"),
        lambda: F.conv2d(x, w, padding="foo"),
        lambda: F.conv2d(x, w, stride=0),
        lambda: F.conv2d(x, w, padding=-1),
        lambda: F.conv2d(x, w, dilation=0),
        lambda: F.conv2d(x, w, stride=(1, 1, 1)),
        lambda: F.conv2d(x, w, padding=(1, 1, 1)),
        lambda: F.conv2d(x, lib.zeros(4, 3, 3)),
        lambda: F.conv2d(x.double(), w),
        lambda: F.conv2d(x, w.double()),
        lambda: F.conv2d(x, w, lib.zeros(4).double()),
        lambda: F.conv1d(lib.zeros(2, 3), lib.zeros(4, 3, 3)),
        lambda: F.conv_transpose2d(x, lib.zeros(4, 3, 3, 3)),
        lambda: F.conv_transpose2d(x, lib.zeros(3, 2, 3, 3), lib.zeros(3)),
        lambda: F.conv_transpose2d(x, lib.zeros(3, 2, 3, 3), output_padding=2),
        lambda: F.conv_transpose1d(lib.zeros(1, 2, 5), lib.zeros(2, 2, 3), output_padding=1),
        lambda: F.unfold(lib.zeros(1, 2, 8, 5), 9),
        lambda: F.unfold(lib.zeros(1, 2, 8, 5), 0),
        lambda: F.unfold(lib.zeros(1, 2, 8, 5), 2, stride=0),
        lambda: F.unfold(lib.zeros(1, 2, 8, 5), 2, padding=-1),
        lambda: F.unfold(lib.zeros(1, 2, 8, 5), 2, dilation=0),
        lambda: F.unfold(lib.zeros(1, 0, 8, 5), 2),
        lambda: F.fold(lib.zeros(2, 12, 50), (8, 8), 2),
        lambda: F.fold(lib.zeros(2, 10, 49), (8, 8), 2),
        lambda: F.fold(lib.zeros(1, 2, 12, 49), (8, 8), 2),
    ]


def test_error_texts_match_torch():
    torch = _torch()

    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return type_name(e), str(e)
        return None

    jt = [outcome(c) for c in _cases(jtorch, JF)]
    tt = [outcome(c) for c in _cases(torch, torch.nn.functional)]
    for i, (a, b) in enumerate(zip(jt, tt)):
        assert a == b, (i, a, b)


# ---- modules ----------------------------------------------------------------------------------------
def test_module_reprs_match_torch():
    torch = _torch()
    specs = [("Conv2d", (1, 16, 3), {}),
             ("Conv2d", (2, 4, (3, 5)), dict(stride=2, padding=(1, 2), dilation=2, groups=2, bias=False,
                                            padding_mode="reflect")),
             ("Conv1d", (2, 4, 3), dict(padding="same")),
             ("ConvTranspose2d", (2, 4, 3), dict(stride=2, output_padding=1)),
             ("ConvTranspose1d", (2, 4, 3), dict(groups=2, dilation=2))]
    for name, a, kw in specs:
        assert repr(getattr(jnn, name)(*a, **kw)) == repr(getattr(torch.nn, name)(*a, **kw))


def test_module_argument_errors_match_torch():
    torch = live_torch("a text lists a Python set, whose order changes from process to process")
    for a, kw in [((3, 4, 3), dict(groups=2)), ((4, 3, 3), dict(groups=2)), ((4, 4, 3), dict(groups=0)),
                  ((4, 4, 3), dict(padding="full")), ((4, 4, 3), dict(padding="same", stride=2)),
                  ((4, 4, 3), dict(padding_mode="mirror"))]:
        with pytest.raises(ValueError) as je:
            jnn.Conv2d(*a, **kw)
        with pytest.raises(ValueError) as te:
            torch.nn.Conv2d(*a, **kw)
        if "padding string" not in str(te.value) and "padding_mode must" not in str(te.value):  # set order varies
            assert str(je.value) == str(te.value)


@pytest.mark.parametrize("cls,args,kw", [
    ("Conv2d", (3, 5, 3), dict(stride=2, padding=1)),
    ("Conv2d", (4, 6, (2, 3)), dict(groups=2, dilation=(2, 1), padding_mode="circular", padding=1)),
    ("Conv2d", (4, 6, 3), dict(padding="same", padding_mode="reflect")),
    ("Conv1d", (4, 6, 3), dict(padding=2, padding_mode="replicate")),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1)),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=3, groups=2)),
])
def test_modules_match_torch(cls, args, kw):
    torch = _torch()
    tm = getattr(torch.nn, cls)(*args, **kw).double()
    jm = getattr(jnn, cls)(*args, **kw).double()
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    shape = (2, args[0], 7, 8) if cls.endswith("2d") else (2, args[0], 9)
    x = np.random.default_rng(6).standard_normal(shape)
    xt, xj = torch.tensor(x, requires_grad=True), jtorch.tensor(x).requires_grad_()
    yt, yj = tm(xt), jm(xj)
    np.testing.assert_allclose(_np(yj), _np(yt), rtol=1e-10, atol=1e-10)
    yt.pow(2).sum().backward()
    yj.pow(2).sum().backward()
    np.testing.assert_allclose(_np(xj.grad), xt.grad.numpy(), rtol=1e-10, atol=1e-10)
    for (n, pt), (_, pj) in zip(tm.named_parameters(), jm.named_parameters()):
        np.testing.assert_allclose(_np(pj.grad), pt.grad.numpy(), rtol=1e-10, atol=1e-9, err_msg=n)


def test_conv_transpose_output_size_argument():
    m = jnn.ConvTranspose2d(2, 3, 3, stride=2)
    x = jtorch.zeros(1, 2, 5, 5)
    assert tuple(m(x, output_size=(12, 12)).shape) == (1, 3, 12, 12)
    assert tuple(m(x).shape) == (1, 3, 11, 11)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=(14, 14))


def test_default_initialisation_bounds_and_statistics():
    """kaiming_uniform_(a=sqrt(5)): uniform in ±1/sqrt(fan_in), as the bias; fan_in = C_in/groups * kh * kw
    (ConvTranspose: weight.size(1) * kh * kw)."""
    jtorch.manual_seed(0)
    for m, fan_in in ((jnn.Conv2d(8, 64, 3, groups=2), 4 * 9), (jnn.ConvTranspose2d(8, 64, 3), 64 * 9),
                      (jnn.Conv1d(16, 128, 5), 80)):
        bound = 1 / math.sqrt(fan_in)
        w, b = _np(m.weight), _np(m.bias)
        assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound  # the uniform distribution's std
        assert abs(w.mean()) < 0.1 * bound


def test_meta_tensors_give_torch_shapes():
    m = jnn.Sequential(jnn.Conv2d(3, 8, 3, stride=2, padding=1), jnn.ConvTranspose2d(8, 4, 2, stride=2))
    m = m.to("meta")
    y = m(jtorch.empty(5, 3, 9, 9, device="meta"))
    assert y.device.type == "meta" and tuple(y.shape) == (5, 4, 10, 10)


@pytest.mark.parametrize("transposed", [False, True])
def test_empty_batch_and_non_contiguous_input(transposed):
    f = JF.conv_transpose2d if transposed else JF.conv2d
    x = jtorch.zeros(0, 4, 6, 6).requires_grad_()
    w = jtorch.ones(4, 2, 3, 3).requires_grad_()
    y = f(x, w, None, groups=2)
    assert tuple(y.shape) == ((0, 4, 8, 8) if transposed else (0, 4, 4, 4))  # torch's shapes
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 6, 6) and float(w.grad.abs().sum()) == 0.0
    rng = np.random.default_rng(8)
    base = rng.standard_normal((2, 6, 5, 4))
    xt = jtorch.tensor(base).permute(0, 3, 1, 2)  # channels innermost in memory
    wn = jtorch.tensor(rng.standard_normal((4, 2, 2, 2)))
    args = (None, 1, 0, 0, 2) if transposed else (None, 1, 0, 1, 2)
    want = f(jtorch.tensor(np.ascontiguousarray(base.transpose(0, 3, 1, 2))), wn, *args)
    np.testing.assert_allclose(_np(f(xt, wn, *args)), _np(want), rtol=0, atol=0)


def test_float16_matches_torch():
    """Numba has no float16 on the CPU: im2col moves the bits, col2im and the products compute in
    float32 and round once (torch's opmath for half)."""
    torch = _torch()
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 4, 6, 5)).astype(np.float16), rng.standard_normal((4, 2, 3, 3)).astype(np.float16)
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w)]
    js = [jtorch.tensor(a).requires_grad_() for a in (x, w)]
    rt, rj = torch.nn.functional.conv2d(*ts, None, 1, 1, 1, 2), JF.conv2d(*js, None, 1, 1, 1, 2)
    assert rj.dtype == jtorch.float16
    np.testing.assert_allclose(_np(rj).astype(np.float32), _np(rt).astype(np.float32), rtol=1e-2, atol=1e-2)
    rt.sum().backward()
    rj.sum().backward()
    for t, j in zip(ts, js):
        np.testing.assert_allclose(_np(j.grad).astype(np.float32), t.grad.numpy().astype(np.float32), rtol=1e-2,
                                   atol=2e-2)
