"""torch.cond run eagerly (its checks and texts), torch.detach_ as a function, torch.to_dlpack's legacy
capsule, against torch."""
from __future__ import annotations

import numpy as np
import pytest
from _torch_oracle import oracle_torch

import jtorch


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # the type and text are what is compared
        return (type(e).__name__, str(e))
    return ("ok", r.tolist() if hasattr(r, "tolist") else r)


# ---- cond ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pred", [True, False, 0, 1, 2.5, 0.0])
def test_cond_python_constant_pred_calls_its_branch(pred):
    torch = oracle_torch()
    x = np.arange(4.0, dtype=np.float32)
    j = jtorch.cond(pred, lambda t: t.cos(), lambda t: t.sin(), (jtorch.tensor(x),))
    t = torch.cond(pred, lambda t: t.cos(), lambda t: t.sin(), (torch.tensor(x),))
    np.testing.assert_allclose(j.numpy(), t.numpy(), rtol=1e-6)


# torch runs a tensor predicate's branch under dynamo, which cannot trace the oracle's callback wrappers: the
# branch is run on torch directly instead (torch.cond's documented meaning: `branch(*operands)` by bool(pred)).
@pytest.mark.parametrize("pred", [[True], [False], True, False, 1, 0, [1.0], [0.0]])
def test_cond_tensor_pred(pred):
    torch = oracle_torch()
    x = np.arange(4.0, dtype=np.float32)
    j = jtorch.cond(jtorch.tensor(pred), lambda t: t + 1, lambda t: t - 1, [jtorch.tensor(x)])
    tx = torch.tensor(x)
    t = tx + 1 if torch.tensor(pred).item() else tx - 1
    np.testing.assert_allclose(j.numpy(), t.numpy())


def test_cond_nested_operands_and_no_operands():
    r = jtorch.cond(jtorch.tensor(True), lambda d: d["a"] * 2, lambda d: d["a"], ({"a": jtorch.ones(2)},))
    assert r.tolist() == [2.0, 2.0]
    r = jtorch.cond(jtorch.tensor(False), lambda: jtorch.ones(2), lambda: jtorch.zeros(3))
    assert r.tolist() == [0.0, 0.0, 0.0]


def test_cond_grad_flows_through_the_taken_branch():
    x = jtorch.ones(3, requires_grad=True)
    jtorch.cond(jtorch.tensor(True), lambda t: t * 3, lambda t: t * 5, (x,)).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


_CASES = {
    "pred_multi": lambda m, x: m.cond(m.tensor([True, False]), lambda t: t + 1, lambda t: t - 1, (x,)),
    "pred_str": lambda m, x: m.cond("a", lambda t: t + 1, lambda t: t - 1, (x,)),
    "pred_none": lambda m, x: m.cond(None, lambda t: t + 1, lambda t: t - 1, (x,)),
    "not_callable": lambda m, x: m.cond(m.tensor(True), 1, lambda t: t - 1, (x,)),
    "operands_tensor": lambda m, x: m.cond(m.tensor(True), lambda t: t + 1, lambda t: t - 1, x),
    "operands_int_leaf": lambda m, x: m.cond(m.tensor(True), lambda t, i: t + i, lambda t, i: t - i, (x, 1)),
    "const_pred_not_callable": lambda m, x: m.cond(True, 1, lambda t: t - 1, (x,)),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_cond_refusals_as_torch(case):
    torch = oracle_torch()
    fn = _CASES[case]
    j = _outcome(lambda: fn(jtorch, jtorch.arange(4.0)))
    t = _outcome(lambda: fn(torch, torch.arange(4.0)))
    assert j[0] != "ok" and j == t


_TEXTS = {  # torch 2.13's, for the runs without torch (the differential above is live-only: it passes functions)
    "pred_multi": "Expected pred to be bool or single-element tensor, but got tensor([ True, False]).",
    "pred_str": "Expected pred to be bool or tensor, but got a.",
    "pred_none": "Expected pred to be bool or tensor, but got None.",
    "not_callable": "Expect both branches to be callable.",
    "operands_tensor": "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor "
                       "leaves, but got tensor([0., 1., 2., 3.]).",
    "operands_int_leaf": "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                         "tensor leaves, but got (tensor([0., 1., 2., 3.]), 1).",
}


@pytest.mark.parametrize("case", sorted(_TEXTS))
def test_cond_refusal_texts(case):
    with pytest.raises(RuntimeError) as e:
        _CASES[case](jtorch, jtorch.arange(4.0))
    assert str(e.value) == _TEXTS[case]


@pytest.mark.parametrize("branch, first_lines", [
    (lambda t: t, "Encountered aliasing during higher order op tracing"),
    (lambda t: t[:2], "Encountered aliasing during higher order op tracing"),
    (lambda t: 2.5, "HOP body output unsupported"),
    (lambda t: None, "torch.cond: unsupported branch return type (constant non-int)"),
])
def test_cond_branch_outputs_held_to_torchs_rules(branch, first_lines):
    """The head of torch 2.13's text (its tail names dynamo's graph, which jtorch has not)."""
    with pytest.raises(RuntimeError) as e:
        jtorch.cond(jtorch.tensor(True), branch, branch, (jtorch.arange(4.0),))
    assert str(e.value).startswith("This higher order operator doesn't work unless it is captured completely "
                                   "with torch.compile. Got graph break/error:\n\n" + first_lines)


def test_cond_int_and_list_outputs_pass():
    assert jtorch.cond(jtorch.tensor(True), lambda t: 1, lambda t: 2, (jtorch.arange(4.0),)) == 1
    r = jtorch.cond(jtorch.tensor(True), lambda t: [t + 1, 3], lambda t: [t, 4], (jtorch.arange(2.0),))
    assert r[0].tolist() == [1.0, 2.0] and r[1] == 3


# ---- detach_ ---------------------------------------------------------------------------------------
def test_detach__function():
    torch = oracle_torch()
    for mod in (jtorch, torch):
        x = mod.ones(3, requires_grad=True)
        y = x * 2
        r = mod.detach_(y)
        assert not y.requires_grad and y.grad_fn is None and not r.requires_grad and r.tolist() == [2.0] * 3
    y = jtorch.ones(2, requires_grad=True) * 2
    assert jtorch.detach_(y) is y  # in place: self comes back (the oracle's stand-ins have no identity)
    j = _outcome(lambda: jtorch.detach_((jtorch.ones(3, requires_grad=True) * 2)[1:]))
    t = _outcome(lambda: torch.detach_((torch.ones(3, requires_grad=True) * 2)[1:]))
    assert j[0] == "RuntimeError" and j == t
    assert _outcome(lambda: jtorch.detach_(1)) == _outcome(lambda: torch.detach_(1))


# ---- to_dlpack -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64"])
def test_to_dlpack_capsule_round_trip_shares_memory(dtype):
    x = jtorch.arange(6).reshape(2, 3).t().to(getattr(jtorch, dtype))
    cap = jtorch.to_dlpack(x)
    assert type(cap).__name__ == "PyCapsule"
    y = jtorch.from_dlpack(cap)
    assert y.dtype == x.dtype and y.stride() == x.stride() and y.data_ptr() == x.data_ptr()
    assert y.tolist() == x.tolist()


def test_to_dlpack_exports_tensors_that_require_grad_and_refuses_as_torch():
    torch = oracle_torch()
    for mod in (jtorch, torch):
        y = mod.from_dlpack(mod.to_dlpack(mod.ones(3, requires_grad=True) * 2))
        assert y.tolist() == [2.0, 2.0, 2.0] and not y.requires_grad
    for bad in (lambda m: m.to_dlpack(3), lambda m: m.to_dlpack(m.ones(2, device="meta"))):
        j, t = _outcome(lambda bad=bad: bad(jtorch)), _outcome(lambda bad=bad: bad(torch))
        assert j[0] != "ok" and j == t
