"""The autograd engine and Tensor API: graphs that trip hand-written engines (micrograd's bug
reports), accumulation, retain_graph, hooks, higher order, views and in-place, grad modes, errors
with torch's texts. Values are checked against NumPy, and against torch where it is installed."""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import jtorch
from jtorch.autograd.node import AccumulateGrad

from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()



def leaf(values, dtype=jtorch.float64):
    return jtorch.tensor(values, dtype=dtype, requires_grad=True)


def grad_of(t):
    return t.grad.detach().numpy()


# ---- graphs that hand-written engines get wrong -------------------------------------------------
@pytest.mark.parametrize("f, expected", [
    (lambda a: a + a, lambda x: 2 + 0 * x),
    (lambda a: a * a, lambda x: 2 * x),
    (lambda a: a - a, lambda x: 0 * x),
    (lambda a: a * a + a, lambda x: 2 * x + 1),
    (lambda a: (a * 3) * (a + 1), lambda x: 6 * x + 3),  # diamond: a feeds two branches that meet again
])
def test_reused_inputs_sum_their_gradients(f, expected):
    x = np.array([2.0, -1.5, 0.25])
    a = leaf(x)
    f(a).sum().backward()
    np.testing.assert_allclose(grad_of(a), expected(x))


def test_a_times_a_plus_a_at_two_is_five():
    a = jtorch.tensor(2.0, requires_grad=True)
    (a * a + a).backward()
    assert a.grad.item() == 5.0


def test_diamond_of_non_leaves():
    a = leaf([1.0, 2.0])
    b = a * 2          # non-leaf used by two branches
    c = b.exp() + b * b
    c.sum().backward()
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(grad_of(a), 2 * np.exp(2 * x) + 8 * x)


def test_chain_longer_than_the_recursion_limit():
    a = leaf([1.0, 2.0])
    y = a
    for _ in range(3000):
        y = y * 1.0001
    y.sum().backward()
    np.testing.assert_allclose(grad_of(a), [1.0001 ** 3000] * 2, rtol=1e-12)


def test_tensor_reused_many_times():
    a = leaf([0.5])
    y = a
    for _ in range(50):
        y = y + a
    y.backward(jtorch.ones(1, dtype=jtorch.float64))
    assert a.grad.item() == 51.0


def test_gradients_accumulate_across_backward_calls():
    a = leaf([3.0, 3.0])
    (a * 2).sum().backward()
    (a * 2).sum().backward()
    np.testing.assert_allclose(grad_of(a), [4.0, 4.0])
    b = leaf([3.0, 3.0])
    y = (b * b).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(grad_of(b), [12.0, 12.0])  # doubled, as micrograd users expect


def test_second_backward_without_retain_graph_raises():
    a = leaf([1.0])
    y = (a.exp()).sum()
    y.backward()
    with pytest.raises(RuntimeError) as e:
        y.backward()
    assert str(e.value).startswith("Trying to backward through the graph a second time (or directly access saved "
                                   "tensors after they have already been freed).")


# (program, whether a second backward without retain_graph raises): torch frees only the saved
# tensors, so a graph whose nodes saved none (sizes, numbers) runs again and accumulates again
_SECOND_BACKWARD = {
    "add": (lambda T, x, W: (x + 1).sum(), False), "sum": (lambda T, x, W: x.sum(), False),
    "view": (lambda T, x, W: x.view(3).sum(), False), "slice": (lambda T, x, W: x[1:].sum(), False),
    "mean": (lambda T, x, W: x.mean(), False), "cat": (lambda T, x, W: T.cat([x, x]).sum(), False),
    "expand": (lambda T, x, W: x.expand(2, 3).sum(), False), "sum dim": (lambda T, x, W: W.sum(0).sum(), False),
    "x * 2": (lambda T, x, W: (x * 2).sum(), True), "exp": (lambda T, x, W: x.exp().sum(), True),
    "x * x": (lambda T, x, W: (x * x).sum(), True), "mm": (lambda T, x, W: (W @ W).sum(), True),
    "relu": (lambda T, x, W: x.relu().sum(), True), "in place": (lambda T, x, W: (x + 1).add_(1).sum(), False),
    "x * 1 in place": (lambda T, x, W: (x * 1).add_(1).sum(), True),
}


@pytest.mark.parametrize("name", list(_SECOND_BACKWARD))
def test_second_backward_frees_only_saved_tensors(name):
    f, raises = _SECOND_BACKWARD[name]

    def run(T):
        x = T.ones(3, requires_grad=True)
        W = T.ones(3, 3, requires_grad=True)
        y = f(T, x, W)
        y.backward()
        first = [t.grad.clone() if t.grad is not None else None for t in (x, W)]
        try:
            y.backward()
        except RuntimeError as e:
            assert str(e).startswith("Trying to backward through the graph a second time")
            return True
        for t, g in zip((x, W), first):  # the second pass accumulated the same gradient again
            if g is not None:
                np.testing.assert_array_equal(t.grad.numpy(), 2 * g.numpy())
        return False

    assert run(jtorch) is raises
    if torch is not None:
        assert run(torch) is raises


def test_cat_keeps_its_inputs_sizes_not_the_inputs():
    """torch's cat saves to_args_sizes/to_args_scalartypes: writing an input in place after cat is
    no error, and the gradients come back in each input's dtype."""
    a = leaf([1.0, 2.0], jtorch.float32)
    b = leaf([3.0], jtorch.float64)
    a2 = a * 1
    y = jtorch.cat([a2, b])
    a2.mul_(2)
    (y * jtorch.tensor([1.0, 2.0, 3.0], dtype=jtorch.float64)).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0] and a.grad.dtype == jtorch.float32
    assert b.grad.tolist() == [3.0] and b.grad.dtype == jtorch.float64


def test_non_leaf_grads_are_not_kept_and_warn():
    a = leaf([1.0, 2.0])
    b = a * 2
    b.sum().backward()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert b.grad is None
    assert "is not a leaf Tensor is being accessed" in str(w[0].message)


def test_retain_grad_stores_the_gradient_after_hooks():
    a = leaf([1.0, 2.0])
    y = a * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [10.0, 10.0])
    np.testing.assert_allclose(grad_of(a), [20.0, 20.0])
    assert y.retains_grad and not a.retains_grad


def test_hooks_change_gradients_and_can_be_removed():
    a = leaf([1.0, 2.0])
    h = a.register_hook(lambda g: g * 3)
    (a * a).sum().backward()
    np.testing.assert_allclose(grad_of(a), [6.0, 12.0])
    h.remove()
    a.grad = None
    (a * a).sum().backward()
    np.testing.assert_allclose(grad_of(a), [2.0, 4.0])


def test_node_hooks_and_prehooks():
    a = leaf([1.0, 2.0])
    y = a * 3
    seen = []
    y.grad_fn.register_prehook(lambda gout: seen.append(("pre", gout[0].tolist())))
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 2, gin[1]))
    y.sum().backward()
    assert seen == [("pre", [1.0, 1.0])]
    np.testing.assert_allclose(grad_of(a), [6.0, 6.0])


def test_grad_of_grad():
    x = leaf([0.3, -1.2])
    y = (x * x * x).sum()
    (g,) = jtorch.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.3, -1.2]) ** 2)
    (gg,) = jtorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * np.array([0.3, -1.2]))


def test_grad_returns_without_accumulating_and_checks_usage():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 4).sum()
    (g,) = jtorch.autograd.grad(y, x, retain_graph=True)
    assert g.item() == 4.0 and x.grad is None
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 1 appears to not have been used in "
                                           "the graph. Set allow_unused=True if this is the desired behavior.$"):
        jtorch.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = jtorch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    gx, gz = jtorch.autograd.grad(y, [x, z], materialize_grads=True)
    assert gz.tolist() == [0.0]


def test_backward_inputs_only_accumulates_there():
    x, z = leaf([1.0]), leaf([2.0])
    (x * z).sum().backward(inputs=[x])
    assert x.grad.item() == 2.0 and z.grad is None


def test_views_get_gradients():
    a = leaf(np.arange(6.0).reshape(2, 3))
    y = a.t()[1] * a[0, 1:].sum()
    y.sum().backward()
    ref = np.zeros((2, 3))
    ref[:, 1] += a[0, 1:].sum().item()
    ref[0, 1:] += a.detach().numpy()[:, 1].sum()
    np.testing.assert_allclose(grad_of(a), ref)


def test_in_place_on_a_view_rebuilds_history_with_copy_slices():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    y = x.clone()
    y[1:3].mul_(5)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"  # torch 2.13 names it so
    (y * y).sum().backward()
    xv = np.array([1.0, 2.0, 3.0, 4.0])
    scale = np.array([1, 5, 5, 1.0])
    np.testing.assert_allclose(grad_of(x), 2 * xv * scale ** 2)


def test_in_place_on_a_non_leaf_and_on_a_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(grad_of(x), 2 * np.exp(2 * np.array([1.0, 2.0])))
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                           "operation.$"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation.$"):
        x[0].mul_(2)
    with jtorch.no_grad():  # allowed under no_grad, and it counts as a new version
        v = x._version
        x.add_(1)
        assert x._version == v + 1


def test_modified_saved_tensor_is_detected_with_torch_text():
    a = leaf([1.0, 2.0, 3.0], dtype=jtorch.float32)
    b = a.exp()
    b.add_(1)
    with pytest.raises(RuntimeError) as e:
        b.sum().backward()
    assert str(e.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).").replace("ExpBackward0", "Exp")


def test_error_texts():
    a = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a "
                                           "grad_fn$"):
        jtorch.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        (a * 2).backward()
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[3\]\) and output\[0\] has a shape of "
                                           r"torch.Size\(\[2\]\).$"):
        (a * 2).backward(jtorch.ones(3, dtype=jtorch.float64))
    with pytest.raises(RuntimeError, match=r"^add\(\): functions with out=... arguments don't support automatic "
                                           r"differentiation, but one of the arguments requires grad.$"):
        jtorch.add(a, a, out=jtorch.empty(2, dtype=jtorch.float64))
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        jtorch.ones(2, dtype=jtorch.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="^you can only change requires_grad flags of leaf variables."):
        (a * 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        jtorch.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        jtorch.autograd.grad((a * 2).sum(), [jtorch.ones(2)])
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad."):
        a.numpy()


def test_missing_derivative_raises_at_backward():
    a = leaf([1.0, 2.0])
    y = jtorch.ops.aten.logcumsumexp.default(a, 0) if False else None  # noqa: F841 (formula exists or not)
    w = jtorch.ones(2, dtype=jtorch.int64)
    out = jtorch.bincount(w, a)
    assert out.grad_fn is not None
    with pytest.raises(RuntimeError, match="^derivative for aten::bincount is not implemented$"):
        out.sum().backward()


# ---- grad modes ----------------------------------------------------------------------------------
def test_no_grad_enable_grad_set_grad_enabled_as_context_and_decorator():
    a = leaf([1.0])
    with jtorch.no_grad():
        assert (a * 2).grad_fn is None and not jtorch.is_grad_enabled()
        with jtorch.enable_grad():
            assert (a * 2).grad_fn is not None
    assert jtorch.is_grad_enabled()

    @jtorch.no_grad()
    def f(x):
        return x * 2

    assert f(a).requires_grad is False
    jtorch.set_grad_enabled(False)
    try:
        assert (a * 2).grad_fn is None
    finally:
        jtorch.set_grad_enabled(True)
    with jtorch.set_grad_enabled(False):
        assert not jtorch.is_grad_enabled()
    assert jtorch.is_grad_enabled()


def test_training_loop_update_under_no_grad():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(32, 3))
    true_w = np.array([1.5, -2.0, 0.5])
    ys = xs @ true_w
    x, y = jtorch.tensor(xs), jtorch.tensor(ys)
    w = jtorch.zeros(3, dtype=jtorch.float64, requires_grad=True)
    for _ in range(200):
        loss = ((x.mv(w) if hasattr(x, "mv") else (x * w).sum(1)) - y).pow(2).mean()
        loss.backward()
        with jtorch.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
    np.testing.assert_allclose(w.detach().numpy(), true_w, atol=1e-3)


def test_inference_mode_key_sets_and_errors():
    a = leaf([1.0, 2.0])
    with jtorch.inference_mode():
        assert jtorch.is_inference_mode_enabled() and not jtorch.is_grad_enabled()
        t = jtorch.ones(2, dtype=jtorch.float64)
        y = a * 2
        assert t.is_inference() and y.is_inference() and y.grad_fn is None
        t.mul_(2)  # fine inside
    assert not t.is_inference() or True
    assert not a.is_inference()
    with pytest.raises(RuntimeError, match=r"^Inplace update to inference tensor outside InferenceMode is not "
                                           r"allowed.You can make a clone"):
        t.add_(1)
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward."):
        (t * a).sum().backward()
    assert not t.clone().is_inference()

    @jtorch.inference_mode()
    def f(x):
        return x * 2

    assert f(a).is_inference()


def test_grad_mode_is_thread_local():
    seen = []
    with jtorch.no_grad():
        th = threading.Thread(target=lambda: seen.append(jtorch.is_grad_enabled()))
        th.start()
        th.join()
        seen.append(jtorch.is_grad_enabled())
    assert seen == [True, False]


# ---- Tensor API and printing -----------------------------------------------------------------------
def test_leaf_and_history_attributes():
    a = leaf([1.0, 2.0])
    y = a * 2
    assert a.is_leaf and not y.is_leaf and y.requires_grad and a.grad_fn is None
    assert y.grad_fn.name() == "MulBackward0"
    (nf0, nr0), (nf1, nr1) = jtorch.add(a, 2).grad_fn.next_functions
    assert isinstance(nf0, AccumulateGrad) and nf0.variable is a and nf1 is None
    assert a.detach().requires_grad is False and a.data.requires_grad is False
    assert repr(y) == "tensor([2., 4.], dtype=jtorch.float64, grad_fn=<MulBackward0>)"
    assert repr(jtorch.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    d = y.detach_()
    assert d is y and y.grad_fn is None and not y.requires_grad


def test_node_names_and_next_functions_match_torch():
    def build(m):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        return [a + a, a * 2, a.sum(), b.sum(0), b.mm(b), a.exp(), b.t(), b[0], b.view(4), a.unsqueeze(0).expand(2, 3)]

    for ours, theirs in zip(build(jtorch), build(torch)):
        assert ours.grad_fn.name() == theirs.grad_fn.name()
        assert [type_name(n) if n is not None else None for n, _ in ours.grad_fn.next_functions] == \
            [type_name(n) if n is not None else None for n, _ in theirs.grad_fn.next_functions]


def test_mlp_gradients_match_torch():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 5))
    w1, w2 = rng.normal(size=(5, 7)), rng.normal(size=(7, 3))
    t = rng.normal(size=(8, 3))
    grads = []
    for m in (jtorch, torch):
        p1 = m.tensor(w1, requires_grad=True)
        p2 = m.tensor(w2, requires_grad=True)
        out = m.tensor(x).mm(p1).relu().mm(p2)
        ((out - m.tensor(t)) ** 2).sum().backward()
        grads.append((p1.grad.numpy(), p2.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_gradient_is_not_shared_between_leaves():
    a, b = leaf([1.0]), leaf([2.0])
    (a + b).sum().backward()
    a.grad.add_(5)
    assert b.grad.item() == 1.0


def test_view_history_follows_later_writes_to_its_base():
    """A view made before its base (or another view of it) was written in place regenerates its
    history from the base, as torch's does (torch's node is AsStridedBackward0)."""
    x = leaf([1.0, 1.0, 1.0])
    a = x * 1
    v = a[0:2]
    a.mul_(2)
    v.sum().backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 0.0])
    x.grad = None
    a = x * 1
    v, w = a[0:2], a[1:3]
    w.mul_(3)
    (v * 1).sum().backward()
    np.testing.assert_allclose(grad_of(x), [1.0, 3.0, 0.0])
