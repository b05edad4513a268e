"""F.interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area; size, scale_factor,
align_corners, recompute_scale_factor), the upsample operators, F.upsample* and the Upsample modules
against torch: values, input gradients, grad_fn names, double backward, error types and texts, float32
and float64, meta shapes, reprs; gradcheck in float64; hypothesis against a NumPy reference."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_oracle import oracle_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
import jtorch.nn as jnn
import jtorch.nn.functional as JF

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
SPATIAL = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "area": (1, 2), "linear": (1,), "bilinear": (2,),
           "bicubic": (2,), "trilinear": (3,)}
ALIGNED = ("linear", "bilinear", "bicubic", "trilinear")
INPUT = {1: (2, 3, 7), 2: (2, 2, 5, 6), 3: (1, 2, 3, 4, 5)}
SIZES = {1: [dict(size=11), dict(size=4), dict(scale_factor=1.7), dict(scale_factor=0.6),
             dict(scale_factor=2.5, recompute_scale_factor=True)],
         2: [dict(size=(9, 4)), dict(scale_factor=1.7), dict(scale_factor=(0.5, 3.0)), dict(size=(5, 6)),
             dict(scale_factor=(1.3, 2.0), recompute_scale_factor=True)],
         3: [dict(size=(4, 3, 7)), dict(scale_factor=1.5), dict(scale_factor=(2.0, 0.5, 1.2))]}


def _cases():
    for mode, nds in SPATIAL.items():
        for nd in nds:
            for sz in SIZES[nd]:
                for ac in ((False, True) if mode in ALIGNED else (None,)):
                    yield mode, nd, sz, ac


def _x(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run(lib, x, fn):
    t = lib.tensor(x, requires_grad=True)
    out = fn(lib, t)
    w = lib.tensor(_x(tuple(out.shape), x.dtype, seed=1))
    (g,) = lib.autograd.grad((out * w).sum(), t)
    return out.detach().numpy(), out.grad_fn.name(), g.numpy()


def _compare(x, fn, rtol):
    torch = oracle_torch()
    rj, rt = _run(jtorch, x, fn), _run(torch, x, fn)
    assert rj[0].shape == rt[0].shape
    np.testing.assert_allclose(rj[0], rt[0], rtol=rtol, atol=rtol)
    assert rj[1] == rt[1]
    np.testing.assert_allclose(rj[2], rt[2], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode,nd,sz,ac", list(_cases()))
def test_interpolate_matches_torch(mode, nd, sz, ac):
    def fn(T, t):
        return T.nn.functional.interpolate(t, mode=mode, align_corners=ac, **sz)
    _compare(_x(INPUT[nd]), fn, 1e-12)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
def test_interpolate_float32_matches_torch(mode):
    # the neighbours are chosen in float32 as torch does: exact indices, weights within rounding
    _compare(_x((2, 3, 7, 9), np.float32), lambda T, t: T.nn.functional.interpolate(t, scale_factor=(1.3, 0.7),
                                                                                    mode=mode), 2e-6)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_interpolate_double_backward_matches_torch(mode):
    torch = oracle_torch()
    x, v = _x((1, 2, 5)), _x((1, 2, 5), seed=2)

    def run(T):
        t = T.tensor(x, requires_grad=True)
        out = T.nn.functional.interpolate(t, scale_factor=1.6, mode=mode)
        g = T.ones_like(out, requires_grad=True)
        (gx,) = T.autograd.grad(out, t, g, create_graph=True)
        (gg,) = T.autograd.grad((gx * T.tensor(v)).sum(), g)
        return gx.grad_fn.name(), gg.numpy()

    rj, rt = run(jtorch), run(torch)
    assert rj[0] == rt[0]
    np.testing.assert_allclose(rj[1], rt[1], rtol=1e-12)


@pytest.mark.parametrize("mode,shape", [("nearest", (1, 2, 3, 4)), ("nearest-exact", (1, 2, 3)),
                                        ("linear", (1, 2, 4)), ("bilinear", (1, 2, 3, 4)), ("bicubic", (1, 1, 4, 4)),
                                        ("trilinear", (1, 1, 2, 3, 3))])
def test_interpolate_gradcheck(mode, shape):
    x = jtorch.tensor(_x(shape), requires_grad=True)
    kw = {} if mode.startswith("nearest") else dict(align_corners=False)
    assert jtorch.autograd.gradcheck(lambda t: JF.interpolate(t, scale_factor=1.5, mode=mode, **kw), (x,))
    assert jtorch.autograd.gradgradcheck(lambda t: JF.interpolate(t, scale_factor=1.5, mode=mode, **kw), (x,))


ERRORS = [((1, 2, 3), dict(size=4, mode="nearest", align_corners=True)),
          ((1, 2, 3), dict(size=4, scale_factor=2.0)), ((1, 2, 3), dict()),
          ((1, 2, 3), dict(size=(4, 4))), ((1, 2, 3, 3), dict(scale_factor=(2.0,))),
          ((1, 2, 3), dict(size=4, recompute_scale_factor=True)),
          ((1, 2, 3), dict(size=4, mode="bilinear")), ((1, 2, 3, 3), dict(size=4, mode="linear")),
          ((1, 2, 3, 3, 3), dict(size=4, mode="bilinear")), ((1, 2, 3), dict(size=4, mode="trilinear")),
          ((2, 3), dict(size=4)), ((1, 2, 3), dict(size=4, mode="foo")),
          ((1, 2, 3), dict(size=(2.5,))), ((1, 2, 3), dict(size=0)), ((1, 0, 3), dict(size=4)),
          ((1, 2, 3), dict(size=4, mode="linear", antialias=True))]


@pytest.mark.parametrize("shape,kw", ERRORS)
def test_interpolate_errors_match_torch(shape, kw):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(lib.nn.functional.interpolate(lib.ones(shape), **kw).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


OP_ERRORS = [("upsample_nearest1d", (1, 2, 3), [4, 4]), ("upsample_nearest2d", (1, 2, 3, 3), [0, 4]),
             ("upsample_nearest3d", (1, 2, 3, 3, 3), [2, 0, 4]), ("upsample_nearest1d", (2, 3), [4]),
             ("upsample_nearest2d", (1, 0, 3, 3), [2, 2]), ("_upsample_nearest_exact1d", (1, 2, 3), [0])]


@pytest.mark.parametrize("name,shape,size", OP_ERRORS)
def test_upsample_operator_errors_match_torch(name, shape, size):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(getattr(lib.ops.aten, name).default(lib.ones(shape), size).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


def test_upsample_backward_checks_grad_output_shape_as_torch():
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        for g, nd in ((lib.ones(1, 2, 5), 1), (lib.ones(1, 2, 6, 1), 1), (lib.ones(1, 3, 6), 1),
                      (lib.ones(1, 2, 5, 5), 2), (lib.ones(1, 2, 6), 2)):
            try:
                if nd == 1:
                    outcomes.append(lib.ops.aten.upsample_nearest1d_backward.default(g, [6], [1, 2, 3]).shape)
                else:
                    outcomes.append(lib.ops.aten.upsample_bilinear2d_backward.default(g, [6, 5], [1, 2, 3, 3], False))
            except RuntimeError as e:
                outcomes.append(str(e))
    assert outcomes[:5] == outcomes[5:]


def test_upsample_operators_with_explicit_scales_match_torch():
    # scales given with an output size change the source positions (torch uses 1 / scale)
    def fn(T, t):
        return T.ops.aten.upsample_bilinear2d.default(t, [7, 5], False, 0.5, 3.0)
    _compare(_x((1, 2, 4, 3)), fn, 1e-12)
    _compare(_x((1, 2, 4)), lambda T, t: T.ops.aten.upsample_nearest1d.default(t, [7], 1.5), 0)


@pytest.mark.parametrize("mode,nd", [("nearest", 2), ("bilinear", 2), ("bicubic", 2), ("trilinear", 3),
                                     ("nearest-exact", 1), ("area", 2)])
def test_interpolate_on_meta_gives_torch_shapes(mode, nd):
    torch = oracle_torch()
    for sz in SIZES[nd]:
        rt = torch.nn.functional.interpolate(torch.empty(INPUT[nd], device="meta"), mode=mode, **sz)
        rj = JF.interpolate(jtorch.empty(INPUT[nd], device="meta"), mode=mode, **sz)
        assert rj.device.type == "meta" and tuple(rj.shape) == tuple(rt.shape)


def test_empty_batch_gives_empty_output():
    assert JF.interpolate(jtorch.ones(0, 2, 3), size=5).shape == (0, 2, 5)


MODULES = [("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=(3, 7), mode="bilinear")),
           ("Upsample", dict(scale_factor=(1.5, 2), mode="bicubic", align_corners=True)),
           ("UpsamplingNearest2d", dict(size=8)), ("UpsamplingBilinear2d", dict(scale_factor=1.5))]


@pytest.mark.parametrize("name,kw", MODULES)
def test_upsample_modules_match_torch(name, kw):
    torch = oracle_torch()
    mj, mt = getattr(jnn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(mj) == repr(mt)
    _compare(_x((2, 2, 4, 5)), lambda T, t: (mj if T is jtorch else mt)(t), 1e-12)


@pytest.mark.parametrize("fn", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_functions_warn_and_match_torch(fn):
    torch = oracle_torch()
    msgs = []
    for lib in (jtorch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = getattr(lib.nn.functional, fn)(lib.tensor(_x((1, 2, 3, 4))), scale_factor=2)
        msgs.append((str(w[0].message), out.numpy()))
    assert msgs[0][0] == msgs[1][0]
    np.testing.assert_allclose(msgs[0][1], msgs[1][1], rtol=1e-12)


def _np_linear_align(x, n_out):
    """1-d linear interpolation with align_corners=True: np.interp at evenly spaced positions."""
    pos = np.linspace(0, x.shape[-1] - 1, n_out) if n_out > 1 else np.zeros(1)
    return np.stack([np.interp(pos, np.arange(x.shape[-1]), row) for row in x.reshape(-1, x.shape[-1])]
                    ).reshape(x.shape[:-1] + (n_out,))


@given(st.integers(1, 9), st.integers(1, 12), st.integers(1, 4))
@SETTINGS
def test_linear_align_corners_and_integer_nearest_match_numpy(n_in, n_out, k):
    x = _x((2, 3, n_in))
    got = JF.interpolate(jtorch.tensor(x), size=n_out, mode="linear", align_corners=True).numpy()
    np.testing.assert_allclose(got, _np_linear_align(x, n_out), rtol=1e-12, atol=1e-12)
    # an integer scale factor repeats each element k times
    np.testing.assert_array_equal(JF.interpolate(jtorch.tensor(x), scale_factor=k).numpy(), np.repeat(x, k, axis=-1))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_interpolate_half_types_match_torch_within_one_rounding(mode, dtype):
    torch = oracle_torch()
    x = _x((1, 2, 4, 5), np.float32)
    rj = JF.interpolate(jtorch.tensor(x).to(getattr(jtorch, dtype)), scale_factor=1.5, mode=mode)
    rt = torch.nn.functional.interpolate(torch.tensor(x).to(getattr(torch, dtype)), scale_factor=1.5, mode=mode)
    assert str(rj.dtype).split(".")[-1] == dtype
    eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7  # one rounding of a value below 2 in magnitude
    np.testing.assert_allclose(rj.float().numpy(), rt.float().numpy(), rtol=eps, atol=2 * eps)


@given(st.sampled_from(["nearest", "nearest-exact", "linear"]), st.integers(1, 9), st.integers(1, 13),
       st.sampled_from([None, 0.3, 0.7, 1.3, 1.7, 2.5]), st.booleans())
@settings(max_examples=30, deadline=None, derandomize=True)
def test_interpolate_sizes_and_scales_match_torch_live(mode, n_in, n_out, scale, align):
    # live only: the neighbour chosen for each output position, in float32, over many size and scale pairs
    torch = oracle_torch()
    x = np.arange(2 * n_in, dtype=np.float32).reshape(1, 2, n_in)
    kw = dict(size=n_out) if scale is None else dict(scale_factor=scale)
    if mode == "linear":
        kw["align_corners"] = align
    res = []
    for lib in (jtorch, torch):
        try:
            res.append(lib.nn.functional.interpolate(lib.tensor(x), mode=mode, **kw).numpy())
        except RuntimeError as e:  # a scale that gives no output element: the same error on both sides
            res.append(str(e))
    if isinstance(res[1], str):
        assert res[0] == res[1]
    else:
        np.testing.assert_allclose(res[0], res[1], rtol=1e-6, atol=1e-6)
