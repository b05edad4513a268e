"""pixel_shuffle, pixel_unshuffle, channel_shuffle (torch., F., the modules), F.unfold / F.fold and
nn.Unfold / nn.Fold against torch: values, gradients, grad_fn names, error types and texts, meta
shapes, reprs; gradcheck in float64; hypothesis: shuffle and unshuffle are inverse permutations."""
from __future__ import annotations

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


def _x(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run(lib, x, fn):
    t = lib.tensor(x, requires_grad=True)
    out = fn(lib, t)
    w = lib.tensor(_x(tuple(out.shape), x.dtype, seed=1))
    (g,) = lib.autograd.grad((out * w).sum(), t)
    return out.detach().numpy(), out.grad_fn.name(), g.numpy()


def _compare(x, fn, tol=0.0):
    torch = oracle_torch()
    rj, rt = _run(jtorch, x, fn), _run(torch, x, fn)
    np.testing.assert_allclose(rj[0], rt[0], rtol=tol, atol=tol)
    assert rj[1] == rt[1]
    np.testing.assert_allclose(rj[2], rt[2], rtol=tol, atol=tol)


SHUFFLES = [("pixel_shuffle", (2, 8, 3, 4), 2), ("pixel_shuffle", (18, 2, 3), 3),
            ("pixel_shuffle", (2, 1, 8, 2, 2), 2), ("pixel_unshuffle", (2, 2, 4, 6), 2),
            ("pixel_unshuffle", (1, 6, 6), 3), ("channel_shuffle", (2, 6, 3), 3), ("channel_shuffle", (1, 8, 2, 2), 2),
            ("channel_shuffle", (2, 4, 1, 2, 2), 4)]


@pytest.mark.parametrize("name,shape,r", SHUFFLES)
def test_shuffles_match_torch(name, shape, r):
    _compare(_x(shape), lambda T, t: getattr(T, name)(t, r))
    _compare(_x(shape), lambda T, t: getattr(T.nn.functional, name)(t, r))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_shuffles_keep_dtype(dtype):
    torch = oracle_torch()
    x = (np.arange(2 * 8 * 2 * 2).reshape(2, 8, 2, 2) % 3).astype(dtype)
    for name in ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"):
        rj, rt = getattr(jtorch, name)(jtorch.tensor(x), 2), getattr(torch, name)(torch.tensor(x), 2)
        np.testing.assert_array_equal(rj.numpy(), rt.numpy())
        assert str(rj.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]


ERRORS = [("pixel_shuffle", (1, 4, 2, 2), 3), ("pixel_shuffle", (1, 4, 2, 2), 0), ("pixel_shuffle", (2, 3), 2),
          ("pixel_unshuffle", (1, 4, 2, 2), 3), ("pixel_unshuffle", (1, 3, 2), 2), ("pixel_unshuffle", (1, 2, 4, 3), 2),
          ("pixel_unshuffle", (1, 2, 4, 4), -1), ("pixel_unshuffle", (4, 4), 2),
          ("channel_shuffle", (1, 4, 2, 2), 3), ("channel_shuffle", (1, 4, 2, 2), 0), ("channel_shuffle", (2,), 1),
          ("native_channel_shuffle", (1, 4, 2), 3)]


@pytest.mark.parametrize("name,shape,r", ERRORS)
def test_shuffle_errors_match_torch(name, shape, r):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(getattr(lib, name)(lib.ones(shape), r).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


def test_shuffle_modules_match_torch():
    torch = oracle_torch()
    for name, arg, shape in (("PixelShuffle", 2, (1, 8, 2, 3)), ("PixelUnshuffle", 2, (1, 2, 4, 6)),
                             ("ChannelShuffle", 2, (2, 4, 3))):
        mj, mt = getattr(jnn, name)(arg), getattr(torch.nn, name)(arg)
        assert repr(mj) == repr(mt)
        _compare(_x(shape), lambda T, t, mj=mj, mt=mt: (mj if T is jtorch else mt)(t))


def test_shuffles_on_meta_and_gradcheck():
    for name, shape in (("pixel_shuffle", (2, 8, 3, 4)), ("pixel_unshuffle", (2, 2, 4, 6)),
                        ("channel_shuffle", (2, 6, 3))):
        out = getattr(jtorch, name)(jtorch.empty(shape, device="meta"), 2)
        ref = getattr(jtorch, name)(jtorch.empty(shape), 2)
        assert out.device.type == "meta" and out.shape == ref.shape
        x = jtorch.tensor(_x(shape), requires_grad=True)
        assert jtorch.autograd.gradcheck(lambda t, name=name: getattr(jtorch, name)(t, 2), (x,))


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2))
@SETTINGS
def test_pixel_shuffle_and_unshuffle_are_inverse(r, h, w, c):
    x = _x((2, c * r * r, h, w))
    y = jtorch.pixel_shuffle(jtorch.tensor(x), r)
    assert y.shape == (2, c, h * r, w * r)
    # every output element is one input element (a permutation), and unshuffle undoes it
    np.testing.assert_array_equal(np.sort(y.numpy().ravel()), np.sort(x.ravel()))
    np.testing.assert_array_equal(jtorch.pixel_unshuffle(y, r).numpy(), x)
    # pixel_shuffle(x)[n, c, h*r + i, w*r + j] = x[n, c*r*r + i*r + j, h, w]
    ref = x.reshape(2, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(2, c, h * r, w * r)
    np.testing.assert_array_equal(y.numpy(), ref)


FOLDS = [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
         dict(kernel_size=3, padding=1, stride=2)]


@pytest.mark.parametrize("kw", FOLDS)
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_fold_and_modules_match_torch(kw, batched):
    torch = oracle_torch()
    shape = (2, 3, 6, 7) if batched else (3, 6, 7)
    _compare(_x(shape), lambda T, t: T.nn.functional.unfold(t, **kw))
    uj, ut = jnn.Unfold(**kw), torch.nn.Unfold(**kw)
    assert repr(uj) == repr(ut)
    _compare(_x(shape), lambda T, t: (uj if T is jtorch else ut)(t))
    cols = ut(torch.tensor(_x(shape))).numpy()
    _compare(cols, lambda T, t: T.nn.functional.fold(t, (6, 7), **kw))
    fj, ft = jnn.Fold((6, 7), **kw), torch.nn.Fold((6, 7), **kw)
    assert repr(fj) == repr(ft)
    _compare(cols, lambda T, t: (fj if T is jtorch else ft)(t))


def test_fold_of_unfold_counts_overlaps():
    # fold(unfold(ones)) gives each pixel the number of blocks covering it
    x = jtorch.ones(1, 1, 4, 5)
    counts = JF.fold(JF.unfold(x, 2), (4, 5), 2).numpy()[0, 0]
    rows = np.array([1, 2, 2, 1])[:, None] * np.array([1, 2, 2, 2, 1])[None, :]
    np.testing.assert_array_equal(counts, rows)
