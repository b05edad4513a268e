"""F.grid_sample (bilinear, nearest, bicubic; zeros, border, reflection; align_corners; 2-d and 3-d),
torch.grid_sampler / grid_sampler_2d / grid_sampler_3d and F.affine_grid / affine_grid_generator against
torch: values, input and grid gradients, grad_fn names, error types and texts, warnings, meta shapes;
gradcheck in float64; hypothesis: an identity affine grid with align_corners samples the input back."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn.functional as JF

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True)


def _x(shape, dtype=np.float64, seed=0, lo=None, hi=None):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) if lo is None else rng.uniform(lo, hi, shape)
    return a.astype(dtype)


def _run(lib, x, g, fn):
    t, tg = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
    out = fn(lib, t, tg)
    w = lib.tensor(_x(tuple(out.shape), x.dtype, seed=1))
    gx, gg = lib.autograd.grad((out * w).sum(), (t, tg))
    return out.detach().numpy(), out.grad_fn.name(), gx.numpy(), gg.numpy()


def _compare(x, g, fn, tol):
    torch = oracle_torch()
    rj, rt = _run(jtorch, x, g, fn), _run(torch, x, g, fn)
    assert rj[1] == rt[1]
    for a, b in zip(rj[::2] + rj[3:], rt[::2] + rt[3:]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


MODES_2D = list(itertools.product(["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"], [False, True]))
MODES_3D = list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"], [False, True]))


@pytest.mark.parametrize("mode,padding_mode,align_corners", MODES_2D)
def test_grid_sample_2d_matches_torch(mode, padding_mode, align_corners):
    # the grid reaches outside [-1, 1] so every padding mode matters
    x, g = _x((2, 3, 4, 5)), _x((2, 3, 6, 2), seed=2, lo=-1.3, hi=1.3)
    _compare(x, g, lambda T, t, tg: T.nn.functional.grid_sample(t, tg, mode, padding_mode, align_corners), 1e-12)


@pytest.mark.parametrize("mode,padding_mode,align_corners", MODES_3D)
def test_grid_sample_3d_matches_torch(mode, padding_mode, align_corners):
    x, g = _x((2, 2, 3, 4, 5)), _x((2, 2, 3, 2, 3), seed=2, lo=-1.3, hi=1.3)
    _compare(x, g, lambda T, t, tg: T.nn.functional.grid_sample(t, tg, mode, padding_mode, align_corners), 1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_float32_matches_torch(mode):
    x, g = _x((1, 2, 5, 5), np.float32), _x((1, 4, 4, 2), np.float32, seed=3, lo=-1.1, hi=1.1)
    _compare(x, g, lambda T, t, tg: T.nn.functional.grid_sample(t, tg, mode, "reflection", False), 2e-5)


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bicubic", "border"),
                                               ("bilinear", "reflection")])
def test_grid_sample_gradcheck(mode, padding_mode):
    x = jtorch.tensor(_x((1, 2, 3, 4)), requires_grad=True)
    # grid points away from the integer lattice, where the sample is differentiable
    g = jtorch.tensor(_x((1, 2, 3, 2), seed=4, lo=-0.9, hi=0.9), requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda a, b: JF.grid_sample(a, b, mode, padding_mode, False), (x, g))


def test_grid_sampler_operators_match_torch():
    x, g = _x((1, 2, 3, 4)), _x((1, 2, 2, 2), seed=5, lo=-1.2, hi=1.2)
    _compare(x, g, lambda T, t, tg: T.grid_sampler(t, tg, 0, 2, True), 1e-12)
    _compare(x, g, lambda T, t, tg: T.grid_sampler_2d(t, tg, 2, 1, False), 1e-12)
    x3, g3 = _x((1, 2, 2, 3, 4)), _x((1, 2, 2, 2, 3), seed=5, lo=-1.2, hi=1.2)
    _compare(x3, g3, lambda T, t, tg: T.grid_sampler_3d(t, tg, 1, 0, False), 1e-12)


ERRORS = [((1, 2, 3, 4), (1, 2, 2, 2), dict(mode="foo")), ((1, 2, 3, 4), (1, 2, 2, 2), dict(padding_mode="foo")),
          ((1, 2, 3, 4), (2, 2, 2, 2), {}), ((1, 2, 3, 4), (1, 2, 2, 3), {}), ((1, 2, 0, 4), (1, 2, 2, 2), {}),
          ((1, 2, 3, 4), (1, 2, 2, 2, 2), {}), ((1, 2, 3, 4, 4), (1, 2, 2, 2, 3), dict(mode="bicubic"))]


@pytest.mark.parametrize("xs,gs,kw", ERRORS)
def test_grid_sample_errors_match_torch(xs, gs, kw):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            out = lib.nn.functional.grid_sample(lib.ones(xs), lib.zeros(gs), align_corners=False, **kw)
            outcomes.append(("ok", tuple(out.shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


def test_grid_sample_dtype_mismatch_is_refused_as_torch():
    torch = oracle_torch()
    texts = []
    for lib in (jtorch, torch):
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2, dtype=lib.float64),
                                          align_corners=False)
        texts.append(str(e.value))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("fn", ["grid_sample", "affine_grid"])
def test_align_corners_none_warns_as_torch(fn):
    torch = oracle_torch()
    msgs = []
    for lib in (jtorch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            if fn == "grid_sample":
                lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
            else:
                lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 2, 2])
        msgs.append([str(m.message) for m in w])
    assert msgs[0] == msgs[1] and msgs[0]


def test_grid_sample_on_meta_gives_torch_shapes():
    out = JF.grid_sample(jtorch.empty(2, 3, 4, 5, device="meta"), jtorch.empty(2, 6, 7, 2, device="meta"),
                         align_corners=False)
    assert out.device.type == "meta" and out.shape == (2, 3, 6, 7)
    grid = JF.affine_grid(jtorch.empty(2, 3, 4, device="meta"), [2, 1, 3, 4, 5], align_corners=True)
    assert grid.device.type == "meta" and grid.shape == (2, 3, 4, 5, 3)


@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 1, 3, 4, 5], [2, 3, 1, 5]])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(size, align_corners):
    torch = oracle_torch()
    theta = _x((2, 2, 3) if len(size) == 4 else (2, 3, 4), seed=6)

    def run(T):
        t = T.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = T.nn.functional.affine_grid(t, size, align_corners=align_corners)
        (g,) = T.autograd.grad((out * out).sum(), t)
        return out.detach().numpy(), out.grad_fn.name(), g.numpy()

    rj, rt = run(jtorch), run(torch)
    assert rj[1] == rt[1]
    np.testing.assert_allclose(rj[0], rt[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rj[2], rt[2], rtol=1e-12, atol=1e-12)


AFFINE_ERRORS = [((1, 2, 3), [1, 1, 2, 2, 2]), ((1, 3, 4), [1, 1, 2, 2]), ((1, 2, 3), [1, 1, 2]),
                 ((1, 2, 3), [1, 1, 0, 2])]


@pytest.mark.parametrize("ts,size", AFFINE_ERRORS)
def test_affine_grid_errors_match_torch(ts, size):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(lib.nn.functional.affine_grid(lib.zeros(ts), size, False).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e).replace("jtorch.", "torch.")))
    assert outcomes[0] == outcomes[1]


@given(st.integers(2, 5), st.integers(2, 5), st.sampled_from(["bilinear", "nearest", "bicubic"]))
@SETTINGS
def test_identity_grid_samples_the_input_back(h, w, mode):
    x = _x((1, 2, h, w))
    theta = jtorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=jtorch.float64)
    grid = JF.affine_grid(theta, [1, 2, h, w], align_corners=True)
    out = JF.grid_sample(jtorch.tensor(x), grid, mode, "zeros", align_corners=True)
    np.testing.assert_allclose(out.numpy(), x, rtol=1e-12, atol=1e-12)


@given(st.sampled_from(["bilinear", "nearest", "bicubic"]), st.sampled_from(["zeros", "border", "reflection"]),
       st.booleans(), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.integers(0, 99))
@settings(max_examples=25, deadline=None, derandomize=True)
def test_grid_sample_shapes_and_options_match_torch_live(mode, padding_mode, align, h, w, ho, wo, seed):
    # live only: values, input and grid gradients over drawn sizes, options and grids
    x, g = _x((1, 2, h, w), seed=seed), _x((1, ho, wo, 2), seed=seed + 1, lo=-1.4, hi=1.4)
    _compare(x, g, lambda T, t, tg: T.nn.functional.grid_sample(t, tg, mode, padding_mode, align), 1e-10)
