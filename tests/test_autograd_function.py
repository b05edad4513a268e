"""Custom autograd Functions (jtorch.autograd.Function) against torch's: gradients (gradcheck in
float64, and against torch's on the same data), node names, ctx features and error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch.autograd import Function, gradcheck, gradgradcheck
from jtorch.autograd.function import once_differentiable
from _torch_oracle import live_torch, type_name

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True)


def functions(lib):
    """The same custom Functions written against jtorch or torch."""
    F = lib.autograd.Function
    ns = {}

    class Exp(F):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r

    class MulAdd(F):  # tensor, non-tensor and optional-None arguments
        @staticmethod
        def forward(ctx, x, k, y, unused):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * y * k + x

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * (y * ctx.k + 1), None, g * x * ctx.k, None

    class SinSC(F):  # the forward + setup_context style
        @staticmethod
        def forward(x):
            return x.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos()

    class Broadcast(F):  # a gradient of the broadcast shape is summed to the input's
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g, g

    class Double(F):  # mark_dirty: an in-place forward
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    ns.update(Exp=Exp, MulAdd=MulAdd, SinSC=SinSC, Broadcast=Broadcast, Double=Double)
    return ns


J = functions(jtorch)


def make(shape, layout, seed=0):
    """A float64 leaf of `shape` in the given layout (made from a leaf, then detached and re-leafed)."""
    rng = np.random.default_rng(seed)
    if layout == "t" and len(shape) >= 2:
        a = rng.uniform(-1, 1, tuple(shape[:-2]) + (shape[-1], shape[-2]))
        return jtorch.tensor(a).transpose(-1, -2).detach().requires_grad_()
    if layout == "step" and len(shape) >= 1:
        a = rng.uniform(-1, 1, tuple(shape[:-1]) + (2 * shape[-1],))
        return jtorch.tensor(a)[..., ::2].detach().requires_grad_()
    return jtorch.tensor(rng.uniform(-1, 1, shape)).requires_grad_()


shape_st = st.lists(st.integers(0, 3), max_size=3).map(tuple)


@SETTINGS
@given(shape=shape_st, layout=st.sampled_from(["c", "t", "step"]))
def test_exp_gradcheck_and_gradgradcheck(shape, layout):
    x = make(shape, layout)
    assert gradcheck(J["Exp"].apply, (x,))
    assert gradgradcheck(J["Exp"].apply, (x,))


@SETTINGS
@given(shape=shape_st.filter(lambda s: 0 not in s), k=st.floats(-2, 2))
def test_muladd_and_setup_context_gradcheck(shape, k):
    x, y = make(shape, "c", 1), make(shape, "c", 2)
    assert gradcheck(lambda a, b: J["MulAdd"].apply(a, k, b, None), (x, y))
    assert gradcheck(J["SinSC"].apply, (x,))


def test_gradients_and_names_match_torch():
    torch = live_torch("the custom Functions derive from torch.autograd.Function")
    T = functions(torch)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    for name, call in [("Exp", lambda F, x, y: F.apply(x)), ("MulAdd", lambda F, x, y: F.apply(x, 1.5, y, None)),
                       ("SinSC", lambda F, x, y: F.apply(x)), ("Broadcast", lambda F, x, y: F.apply(x, y))]:
        jx, jy = jtorch.tensor(a, requires_grad=True), jtorch.tensor(b, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        jo, to = call(J[name], jx, jy), call(T[name], tx, ty)
        assert jo.grad_fn.name() == to.grad_fn.name() == name + "Backward"
        np.testing.assert_allclose(jo.detach().numpy(), to.detach().numpy(), rtol=1e-12)
        jo.sum().backward()
        to.sum().backward()
        np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
        if ty.grad is not None:
            np.testing.assert_allclose(jy.grad.numpy(), ty.grad.numpy(), rtol=1e-12)
        else:
            assert jy.grad is None


def test_float32_smoke_and_grad_dtype_cast():
    class ToDouble(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.double() * 2  # cast back to the input's dtype, as torch's validate_outputs does

    x = jtorch.ones(3, requires_grad=True)
    J["Exp"].apply(x).sum().backward()
    assert x.grad.dtype is jtorch.float32
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.ones(3, np.float32)), rtol=1e-6)
    x.grad = None
    ToDouble.apply(x).sum().backward()
    assert x.grad.dtype is jtorch.float32 and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_forward_runs_without_grad_and_outputs_get_the_custom_node():
    seen = {}

    class G(Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad"] = jtorch.is_grad_enabled()
            y = x * 2
            seen["inner"] = y.requires_grad
            return y

        @staticmethod
        def backward(ctx, g):
            seen["bgrad"] = jtorch.is_grad_enabled()
            return g * 2

    x = jtorch.ones(2, requires_grad=True)
    y = G.apply(x)
    assert seen == {"grad": False, "inner": False}
    assert type_name(y.grad_fn) == "GBackward"
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"  # torch 2.13 names it so
    y.sum().backward()
    assert seen["bgrad"] is False and x.grad.tolist() == [2.0, 2.0]
    assert G.apply(jtorch.ones(2)).requires_grad is False
    with jtorch.no_grad():
        assert G.apply(x).requires_grad is False


def test_needs_input_grad_and_non_tensor_arguments():
    got = {}

    class N(Function):
        @staticmethod
        def forward(ctx, x, k, y):
            got["nig"] = ctx.needs_input_grad
            return x * k + y

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    N.apply(jtorch.ones(3, requires_grad=True), 2, jtorch.ones(3)).sum().backward()
    assert got["nig"] == (True, False, False)


def test_returned_input_is_an_alias_with_the_new_history():
    class I(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = jtorch.ones(2, requires_grad=True)
    o = I.apply(x)
    assert o is not x and o.grad_fn.name() == "IBackward" and x.grad_fn is None
    o.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_mark_dirty():
    Double = J["Double"]
    a = jtorch.ones(3, requires_grad=True)
    b = a.clone()
    c = Double.apply(b)
    assert c is b and c.grad_fn.name() == "DoubleBackward" and b._version == 2  # the write and mark_dirty
    c.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place operation.$"):
        Double.apply(jtorch.ones(3, requires_grad=True))

    class NotReturned(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

    with pytest.raises(RuntimeError, match="^Some elements marked as dirty during the forward method were not returned"):
        NotReturned.apply(jtorch.ones(3, requires_grad=True).clone())


def test_mark_non_differentiable_and_materialize_grads():
    got = {}

    class ND(Function):
        @staticmethod
        def forward(ctx, x):
            i, v = x.argmax(), x.max()
            ctx.mark_non_differentiable(i)
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            got["gi"] = gi
            return gv * jtorch.ones(3, dtype=jtorch.float64)

    x = jtorch.tensor([1.0, 3.0, 2.0], dtype=jtorch.float64, requires_grad=True)
    v, i = ND.apply(x)
    assert v.requires_grad and not i.requires_grad and i.grad_fn is None
    v.backward()
    assert got["gi"].dtype is jtorch.int64 and got["gi"].tolist() == 0  # materialized zeros of the output's dtype

    class M(Function):
        materialize = True

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(M.materialize)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got["g2"] = g2
            return g1

    u, _ = M.apply(x)
    u.sum().backward()
    assert got["g2"].tolist() == [0.0, 0.0, 0.0]
    M.materialize = False
    u, _ = M.apply(x)
    u.sum().backward()
    assert got["g2"] is None


def test_saved_tensors_version_check_and_freed():
    class S(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x

    a = jtorch.ones(3, requires_grad=True)
    b = a * 1
    z = S.apply(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation has been modified by "
                                           r"an inplace operation: \[torch.FloatTensor \[3\]\], which is output 0 of Add, "
                                           r"is at version 1; expected version 0 instead"):
        z.sum().backward()
    y = J["Exp"].apply(a)
    y.sum().backward(retain_graph=True)
    assert len(y.grad_fn.saved_tensors) == 1
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.sum().backward()


def test_node_hooks():
    calls = []
    x = jtorch.ones(2, dtype=jtorch.float64, requires_grad=True)
    y = J["Exp"].apply(x)
    y.grad_fn.register_prehook(lambda gout: calls.append("pre") or (gout[0] * 2,))
    y.grad_fn.register_hook(lambda gin, gout: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.e * np.ones(2))


def test_once_differentiable():
    class O(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = jtorch.ones(3, dtype=jtorch.float64, requires_grad=True)
    v = jtorch.ones(3, dtype=jtorch.float64, requires_grad=True)
    g, = jtorch.autograd.grad(O.apply(x), x, v, create_graph=True)
    assert g.requires_grad and g.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was marked with "
                                           "@once_differentiable$"):
        g.sum().backward()
    g, = jtorch.autograd.grad(O.apply(x).sum(), x, create_graph=True)  # grad_outputs need no grad: a plain result
    assert not g.requires_grad


def _error(lib, which):
    F = lib.autograd.Function

    class Bad(F):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    class BadShape(F):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return lib.ones(3, 3)

    class N2(F):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class BT(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 3

    class NB(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class SN(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x * 2

    x = lib.ones(2, requires_grad=True)
    run = {
        "count": lambda: Bad.apply(x, x).sum().backward(),
        "shape": lambda: BadShape.apply(x).sum().backward(),
        "nontensor": lambda: N2.apply(x, 2).sum().backward(),
        "type": lambda: BT.apply(x).sum().backward(),
        "nobackward": lambda: NB.apply(x).sum().backward(),
        "save": lambda: SN.apply(x),
    }[which]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type_name(e), str(e)
    return None


@pytest.mark.parametrize("which", ["count", "shape", "nontensor", "type", "nobackward", "save"])
def test_errors_match_torch(which):
    torch = live_torch("the custom Functions derive from torch.autograd.Function")
    got, want = _error(jtorch, which), _error(torch, which)
    assert want is not None and got == want


def test_errors_literal():
    assert _error(jtorch, "count") == ("RuntimeError", "function BadBackward returned an incorrect number of gradients "
                                                       "(expected 2, got 1)")
    assert _error(jtorch, "shape") == ("RuntimeError", "Function BadShapeBackward returned an invalid gradient at index "
                                                       "0 - got [3, 3] but expected shape compatible with [2]")


def test_legacy_instantiation():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = J["Exp"]()
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward method is deprecated"):
        f(jtorch.ones(1))


def test_inference_mode_and_no_grad_save_nothing():
    with jtorch.inference_mode():
        y = J["Exp"].apply(jtorch.ones(2))
    assert not y.requires_grad and y.is_inference()
    with jtorch.no_grad():
        y = J["Exp"].apply(jtorch.ones(2, requires_grad=True))
    assert not y.requires_grad and y.grad_fn is None


def test_vjp_instead_of_backward_and_both():
    class V(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    x = jtorch.ones(2, requires_grad=True)
    V.apply(x).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]

    class Both(V):
        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="^Implementing both 'backward' and 'vjp' for a custom Function is not "
                                           "allowed. You should only implement one of them.$"):
        Both.apply(x).sum().backward()
