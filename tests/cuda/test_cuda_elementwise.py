"""Elementwise operators on CUDA equal the same jtorch calls on the CPU: every binary, comparison and
unary operator the CPU tests cover, hypothesis-drawn broadcast shapes (0-dim, empty, size 1), dtype
mixes and layouts rebuilt on the device (transposed, sliced, expanded views of device memory, so
the strided kernels run), Python scalars and CPU 0-dim tensors as operands, out= and in-place.
Also: autograd on CUDA gives the CPU's gradients with no CUDA-specific autograd code.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from _elementwise_support import assert_close, draw_inputs, np_errstate
from _unary_support import OPS as UNARY, jdtype
from test_binary_ops import CASES as BINARY
from test_comparison_ops import CASES as COMPARISON

CUDA = jtorch.device("cuda", 0)


def on_cuda(t: jtorch.Tensor) -> jtorch.Tensor:
    """t's values on the device in t's layout: the same strides over device memory (expanded dims
    stay stride 0), so a transposed or sliced CPU input is a transposed or sliced CUDA view."""
    if any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride())):
        keep = tuple(slice(0, 1) if st == 0 else slice(None) for st in t.stride())
        return on_cuda(t[keep]).expand(t.shape)
    if t.is_contiguous() or t.numel() == 0:
        return t.cuda()
    extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    base = jtorch.zeros(extent + 3, dtype=t.dtype, device="cuda")
    v = base[3:].as_strided(t.shape, t.stride())
    v.copy_(t)
    assert v.stride() == t.stride() and v.is_cuda
    return v


def same(actual: jtorch.Tensor, expected: jtorch.Tensor, context) -> None:
    assert actual.is_cuda, context
    assert actual.dtype is expected.dtype and actual.shape == expected.shape, (context, actual.dtype, expected.dtype)
    a, e = actual.cpu().numpy(), expected.numpy()
    if a.dtype.kind in "fc":
        assert_close(a, e, context)
    else:
        np.testing.assert_array_equal(a, e, err_msg=str(context))


def quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("ignore")
    return w


# ---- binary and comparison operators -------------------------------------------------------------
@pytest.mark.parametrize("case", BINARY + COMPARISON, ids=repr)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_binary_matches_cpu(case, data):
    tensors, _, _ = draw_inputs(data, case)
    with np_errstate():
        expected = case.call(jtorch, *tensors)
        actual = case.call(jtorch, *[on_cuda(t) for t in tensors])
    same(actual, expected, case)


@pytest.mark.parametrize("case", BINARY, ids=repr)
@settings(max_examples=2, deadline=None, derandomize=True)
@given(data=st.data())
def test_binary_out_and_inplace_match_cpu(case, data):
    tensors, _, shape = draw_inputs(data, case)
    with np_errstate():
        expected = case.call(jtorch, *tensors)
        out = jtorch.empty(tuple(shape), dtype=expected.dtype, device="cuda")
        r = case.call(jtorch, *[on_cuda(t) for t in tensors], out=out)
    assert r is out
    same(out, expected, (case, "out"))
    self = tensors[0]
    if case.inplace is None or tuple(self.shape) != tuple(shape) or 0 in self.stride() or \
            not jtorch.can_cast(expected.dtype, self.dtype):
        return
    c = on_cuda(self)
    with np_errstate():
        case.inplace(self, *tensors[1:])
        case.inplace(c, *[on_cuda(t) for t in tensors[1:]])
    same(c, self, (case, "in-place"))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "remainder", "maximum", "eq", "lt"])
def test_scalars_and_cpu_zero_dim_tensors(op):
    x = jtorch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    c = x.cuda()
    fn = getattr(jtorch, op)
    for other in (2, 0.5, jtorch.tensor(3.0), jtorch.tensor(2)):
        if op == "maximum" and not isinstance(other, jtorch.Tensor):
            continue
        same(fn(c, other), fn(x, other), (op, other))
    for other in (2, 1.5):
        if op in ("add", "sub", "mul", "div", "pow", "remainder"):
            same(getattr(c, f"__r{op.replace('div', 'truediv').replace('remainder', 'mod')}__")(other),
                 getattr(x, f"__r{op.replace('div', 'truediv').replace('remainder', 'mod')}__")(other), (op, "r"))
    i = jtorch.tensor([3, -4, 5], dtype=jtorch.int32)
    same(fn(i.cuda(), jtorch.tensor(2, dtype=jtorch.int64)), fn(i, jtorch.tensor(2, dtype=jtorch.int64)), (op, "int"))


# ---- unary operators -----------------------------------------------------------------------------
def _unary_cases():
    for name, op in UNARY.items():
        dts = list(dict.fromkeys(d for d in op.dtypes if np.dtype(d).name in ("float32", "float64", "int64", "bool",
                                                                                  "complex64", "float16", "uint8")))
        for d in dts:
            yield pytest.param(name, jdtype(d), id=f"{name}-{np.dtype(d).name}")


@pytest.mark.parametrize("name,dtype", list(_unary_cases()))
def test_unary_matches_cpu(name, dtype):
    op = UNARY[name]
    rng = np.random.default_rng(3)
    if dtype is jtorch.bool:
        a = rng.random((3, 4)) < 0.5
    elif dtype.is_complex:
        a = (rng.uniform(-2, 2, (3, 4)) + 1j * rng.uniform(-2, 2, (3, 4))).astype(dtype.numpy)
    elif dtype.is_floating_point:
        a = rng.uniform(-3, 3, (3, 4)).astype(dtype.numpy)
        a[0, 0], a[0, 1] = np.nan, np.inf
    else:
        a = rng.integers(0, 20, (3, 4)).astype(dtype.numpy)
    x = jtorch.from_numpy(a)
    for kw in op.extras:
        with np_errstate():
            expected = getattr(jtorch, name)(x.t(), **kw)
            actual = getattr(jtorch, name)(on_cuda(x.t()), **kw)
        same(actual, expected, (name, kw))


# ---- ternary and composite operators built from elementwise pieces --------------------------------
def test_where_clamp_lerp_and_friends():
    rng = np.random.default_rng(5)
    x = jtorch.from_numpy(rng.standard_normal((4, 5)).astype(np.float32))
    y = jtorch.from_numpy(rng.standard_normal((5,)).astype(np.float32))
    cx, cy = x.cuda(), y.cuda()
    same(jtorch.where(cx > 0, cx, cy), jtorch.where(x > 0, x, y), "where")
    same(jtorch.where(cx > 0, cx, 0.0), jtorch.where(x > 0, x, 0.0), "where scalar")
    same(cx.clamp(-0.5, 0.5), x.clamp(-0.5, 0.5), "clamp")
    same(cx.clamp(min=cy), x.clamp(min=y), "clamp tensor")
    same(jtorch.lerp(cx, cy, 0.25), jtorch.lerp(x, y, 0.25), "lerp")
    same(cx.masked_fill(cx < 0, 7.0), x.masked_fill(x < 0, 7.0), "masked_fill")
    same(jtorch.nn_relu(cx) if hasattr(jtorch, "nn_relu") else cx.relu(), x.relu(), "relu")
    same(cx.to(jtorch.float16) * 3, x.to(jtorch.float16) * 3, "float16 computes in float32")
    same(jtorch.isclose(cx, cx + 1e-7), jtorch.isclose(x, x + 1e-7), "isclose")


def test_empty_and_zero_dim():
    e = jtorch.empty(0, 3, device="cuda")
    assert (e + 1).shape == (0, 3) and (e + 1).is_cuda
    z = jtorch.tensor(2.5, device="cuda")
    assert (z * z).item() == 6.25 and (z * z).shape == ()


# ---- autograd on CUDA ------------------------------------------------------------------------------
def test_autograd_elementwise_on_cuda_matches_cpu():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((4,))
    grads = {}
    for dev in ("cpu", "cuda"):
        x = jtorch.tensor(a, device=dev, requires_grad=True)
        y = jtorch.tensor(b, device=dev, requires_grad=True)
        z = (x * y).sigmoid() + (x - y).tanh() * 2 + (x / (y.abs() + 1)).exp()
        z.backward(jtorch.ones_like(z))
        assert x.grad.device.type == dev and y.grad.device.type == dev
        assert type(z.grad_fn).__name__ == "AddBackward0"
        grads[dev] = (x.grad.cpu().numpy(), y.grad.cpu().numpy())
    for g_cpu, g_cuda in zip(grads["cpu"], grads["cuda"]):
        np.testing.assert_allclose(g_cuda, g_cpu, rtol=1e-12)


def test_autograd_leaf_moved_to_cuda_gets_cpu_grad():
    x = jtorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x.cuda() * 3).cpu()  # grads flow back across the copy
    y.backward(jtorch.ones(3))
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [3.0, 3.0, 3.0]
