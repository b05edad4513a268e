"""F.pad (constant, reflect, replicate, circular; 1-3 padded dims, negative padding), the aten
padding operators and the padding modules against torch: values, input gradients, grad_fn names,
double backward, error types and texts, dtypes, meta shapes, reprs; gradcheck in float64;
hypothesis over shapes and paddings against NumPy's np.pad."""
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
MODES = ["constant", "reflect", "replicate", "circular"]
# (input shape, padding): 1, 2 and 3 padded dims, batched and not, negative padding
CASES = [((2, 3, 5), (2, 1)), ((3, 4), (1, 2)), ((2, 3, 5), (-1, 2)), ((1, 2, 4, 5), (1, 2, 3, 0)),
         ((2, 4, 5), (2, 1, -1, 2)), ((1, 2, 3, 4, 5), (1, 0, 2, 1, 1, 2)), ((2, 3, 3, 4), (1, 1, 2, 0, 0, 1))]


def _x(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run(lib, x, fn):
    """Forward, grad_fn name and the input gradient of (out * w).sum() for a fixed w."""
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
    np.testing.assert_allclose(rj[2], rt[2], rtol=1e-12 + tol, atol=1e-12 + tol)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pad", CASES)
def test_pad_matches_torch(mode, shape, pad):
    _compare(_x(shape), lambda T, t: T.nn.functional.pad(t, pad, mode=mode))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("mode", MODES)
def test_pad_dtypes_match_torch(mode, dtype):
    torch = oracle_torch()
    x = (np.arange(24).reshape(1, 2, 3, 4) - 7).astype(dtype)
    rt = torch.nn.functional.pad(torch.tensor(x), (1, 2, 2, 1), mode=mode)
    rj = JF.pad(jtorch.tensor(x), (1, 2, 2, 1), mode=mode)
    assert str(rj.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    np.testing.assert_array_equal(rj.numpy(), rt.numpy())


def test_constant_pad_value_and_torch_constant_pad_nd():
    torch = oracle_torch()
    x = _x((2, 3, 4))
    for fn in (lambda T, t: T.nn.functional.pad(t, (1, 2, 0, 1, 1, 1), value=-2.5),
               lambda T, t: T.constant_pad_nd(t, [1, -1, 2, 2], 3.0),
               lambda T, t: T.constant_pad_nd(t, [-1, -1])):
        _compare(x, fn)
    np.testing.assert_array_equal(jtorch.constant_pad_nd(jtorch.tensor([1, 2]), [1, 1], 7).numpy(),
                                  torch.constant_pad_nd(torch.tensor([1, 2]), [1, 1], 7).numpy())


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_pad_double_backward_matches_torch(mode, nd):
    torch = oracle_torch()
    shape, pad = [((2, 4), (2, 1)), ((1, 3, 4), (1, 2, 2, 1)), ((1, 3, 3, 4), (1, 2, 1, 0, 2, 1))][nd - 1]
    x, v = _x(shape), _x(shape, seed=2)

    def run(T):
        t = T.tensor(x, requires_grad=True)
        out = T.nn.functional.pad(t, pad, mode=mode)
        g = T.ones_like(out, requires_grad=True)
        (gx,) = T.autograd.grad(out, t, g, create_graph=True)
        (gg,) = T.autograd.grad((gx * T.tensor(v)).sum(), g)
        return gx.grad_fn.name(), gg.numpy()

    rj, rt = run(jtorch), run(torch)
    assert rj[0] == rt[0]
    np.testing.assert_allclose(rj[1], rt[1], rtol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_pad_gradcheck(mode):
    x = jtorch.tensor(_x((1, 2, 3, 4)), requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda t: JF.pad(t, (2, 1, 1, 2), mode=mode), (x,))
    assert jtorch.autograd.gradgradcheck(lambda t: JF.pad(t, (2, 1, 1, 2), mode=mode), (x,))


ERRORS = [
    ((1, 2, 3), (3, 1), "reflect", None), ((1, 2, 3), (1, 1, 1), "reflect", None),
    ((1, 2, 3), (1,) * 8, "constant", None), ((1, 2, 3), (1, 1), "reflect", 1.0), ((1, 2, 3), (1, 1), "foo", None),
    ((3,), (1, 1), "reflect", None), ((1, 2, 3, 4, 5, 6), (1, 1), "replicate", None),
    ((1, 2, 3), (-2, -2), "constant", None), ((1, 2, 3), (-2, -2), "replicate", None),
    ((1, 2, 3), (-2, -1), "replicate", None), ((1, 2, 3), (4, 1), "circular", None),
    ((1, 2, 3, 4), (1, 5, 1, 1), "reflect", None), ((1, 2, 3, 4), (1, 1, 4, 1), "reflect", None),
    ((1, 2, 3, 4, 5), (1, 1, 4, 1, 5, 1), "reflect", None), ((1, 2, 3, 3), (1, 1, 1, 1, 1, 3), "reflect", None),
    ((1, 2, 3, 4), (1, 1, -3, -3), "replicate", None), ((1, 0, 3), (1, 1), "reflect", None),
    ((1, 2, 3), (1, 1), "constant", 2.0),
]


@pytest.mark.parametrize("shape,pad,mode,value", ERRORS)
def test_pad_errors_match_torch(shape, pad, mode, value):
    torch = oracle_torch()
    x = np.ones(shape)
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(lib.nn.functional.pad(lib.tensor(x), pad, mode=mode, value=value).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


OP_ERRORS = [
    ("reflection_pad1d", (2, 3), [1, 1, 1, 1]), ("reflection_pad2d", (1, 2, 3), [1, 1]),
    ("replication_pad1d", (2, 3), [1, 1, 1, 1]), ("replication_pad2d", (2, 3), [1, 1, 1, 1]),
    ("replication_pad3d", (1, 2, 3, 3), [1, 1, 1, 1]), ("replication_pad2d", (1, 2, 3), [1, 1]),
    ("reflection_pad1d", (2, 3, 4, 5), [1, 1]),
    ("replication_pad1d", (2, 0), [1, 1]), ("_pad_circular", (1, 2, 3), [1] * 6),
    ("reflection_pad1d", (2, 3), [-2, -2]),
]


@pytest.mark.parametrize("name,shape,pad", OP_ERRORS)
def test_padding_operator_errors_match_torch(name, shape, pad):
    torch = oracle_torch()
    outcomes = []
    for lib in (jtorch, torch):
        try:
            outcomes.append(("ok", tuple(getattr(lib.ops.aten, name)(lib.ones(shape), pad).shape)))
        except Exception as e:  # the type and text are what is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["reflection_pad1d", "replication_pad2d"])
def test_bool_input_is_refused_as_torch(name):
    torch = oracle_torch()
    pad = [1, 1] if name.endswith("1d") else [1, 1, 1, 1]
    texts = []
    for lib in (jtorch, torch):
        with pytest.raises(NotImplementedError) as e:
            getattr(lib.ops.aten, name)(lib.ones(1, 2, 3, dtype=lib.bool), pad)
        texts.append(str(e.value))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("mode", MODES)
def test_pad_on_meta_gives_torch_shapes(mode):
    torch = oracle_torch()
    for shape, pad in CASES:
        rt = torch.nn.functional.pad(torch.empty(shape, device="meta"), pad, mode=mode)
        rj = JF.pad(jtorch.empty(shape, device="meta"), pad, mode=mode)
        assert rj.device.type == "meta" and tuple(rj.shape) == tuple(rt.shape)


MODULES = [("ConstantPad1d", (2, 1.5)), ("ConstantPad2d", ((1, 0, 2, 1), -1.0)), ("ConstantPad3d", (1, 2.0)),
           ("ZeroPad1d", ((1, 2),)), ("ZeroPad2d", (1,)), ("ZeroPad3d", ((1, 0, 0, 1, 1, 1),)),
           ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 0, 2, 1),)), ("ReflectionPad3d", (1,)),
           ("ReplicationPad1d", ((2, 1),)), ("ReplicationPad2d", (2,)), ("ReplicationPad3d", ((1, 0, 0, 1, 1, 1),)),
           ("CircularPad1d", (1,)), ("CircularPad2d", ((1, 0, 2, 1),)), ("CircularPad3d", (1,))]


@pytest.mark.parametrize("name,args", MODULES)
def test_padding_modules_match_torch(name, args):
    torch = oracle_torch()
    nd = int(name[-2])
    shape = (2, 3) + (4,) * nd
    mj, mt = getattr(jnn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(mj) == repr(mt)
    _compare(_x(shape), lambda T, t: (mj if T is jtorch else mt)(t))


def test_circular_module_checks_its_input_dim():
    torch = oracle_torch()
    texts = []
    for lib in (jtorch, torch):
        with pytest.raises(ValueError) as e:
            lib.nn.CircularPad2d(1)(lib.ones(3, 4))
        texts.append(str(e.value))
    assert texts[0] == texts[1]


def _np_pad(x, pad, mode):
    """np.pad with torch's pad order (last dim first); non-negative pads."""
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return np.pad(x, widths, mode={"constant": "constant", "reflect": "reflect", "replicate": "edge",
                                   "circular": "wrap"}[mode])


@given(st.integers(1, 3), st.sampled_from(MODES), st.data())
@SETTINGS
def test_pad_matches_numpy(nd, mode, data):
    shape = tuple(data.draw(st.integers(2, 5)) for _ in range(nd + 2))
    pad = []
    for i in range(nd):
        n = shape[-1 - i]
        hi = n - 1 if mode == "reflect" else n
        pad += [data.draw(st.integers(0, hi)), data.draw(st.integers(0, hi))]
    x = _x(shape, np.float32)
    np.testing.assert_array_equal(JF.pad(jtorch.tensor(x), pad, mode=mode).numpy(), _np_pad(x, pad, mode))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", MODES)
def test_pad_half_types_match_torch(mode, dtype):
    torch = oracle_torch()
    x = _x((1, 2, 4, 5), np.float32)
    rj = JF.pad(jtorch.tensor(x).to(getattr(jtorch, dtype)), (1, 2, 1, 1), mode=mode)
    rt = torch.nn.functional.pad(torch.tensor(x).to(getattr(torch, dtype)), (1, 2, 1, 1), mode=mode)
    assert str(rj.dtype).split(".")[-1] == dtype
    np.testing.assert_array_equal(rj.float().numpy(), rt.float().numpy())
