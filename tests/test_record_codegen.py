"""The generated per-operator record (jtorch.autograd.record_codegen) against the generic one.

Each case runs twice, once with the operator's generated record and once with every OpSpec forced
onto `record_generic`; the graphs must agree: node names, saved values, gradients, errors.
"""
import gc

import numpy as np
import pytest

import jtorch
from jtorch.autograd import variable_type as vt
from jtorch.structured.fast_path import FAST_PATHS


def _specs() -> list:
    return [o for o in gc.get_objects() if type(o) is vt.OpSpec]


class _Generic:
    """Within the block every operator records through record_generic."""

    def __enter__(self):
        self.saved = [(s, s.fast) for s in _specs()]
        for s, _ in self.saved:
            s.fast = False
        self.orig = vt._make_fast_record
        vt._make_fast_record = lambda spec: False
        return self

    def __exit__(self, *exc):
        vt._make_fast_record = self.orig
        for s, f in self.saved:
            s.fast = f


def _run(case, seed):
    rng = np.random.default_rng(seed)
    x = jtorch.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    w = jtorch.tensor(rng.standard_normal((4, 2)).astype(np.float32), requires_grad=True)
    out = case(x, w)
    names = []
    stack = [out.grad_fn]
    while stack:
        n = stack.pop()
        if n is not None:
            names.append(n.name())
            stack += [f for f, _ in n.next_functions]
    out.sum().backward()
    grads = [t.grad.numpy() if t.grad is not None else None for t in (x, w)]
    return out.detach().numpy(), names, grads


CASES = {
    "mul": lambda x, w: x * x.detach(),
    "mul both": lambda x, w: x * (x * 3),
    "mm": lambda x, w: x.mm(w),
    "mm, one side": lambda x, w: x.detach().mm(w),
    "pow": lambda x, w: x ** 3,
    "sum dim, keepdim omitted": lambda x, w: x.sum(1),
    "sum dim, keepdim given": lambda x, w: x.sum(1, True),
    "sum, keyword": lambda x, w: x.sum(dim=0),
    "clamp keywords": lambda x, w: x.clamp(min=-0.5, max=0.5),
    "view of a view": lambda x, w: x.t().t() * 2,
    "transpose": lambda x, w: x.transpose(0, 1).mm(x),
    "integer result": lambda x, w: (x * 2).argmax(1).float() + x.sum(1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_generated_record_builds_the_generic_graph(name):
    fast = _run(CASES[name], 0)
    with _Generic():
        generic = _run(CASES[name], 0)
    np.testing.assert_array_equal(fast[0], generic[0])
    assert fast[1] == generic[1]
    for f, g in zip(fast[2], generic[2]):
        assert (f is None) == (g is None)
        if f is not None:
            np.testing.assert_array_equal(f, g)


@pytest.mark.skipif(not FAST_PATHS, reason="JTORCH_NO_FAST_PATHS=1 turns the generated records off")
def test_generated_record_is_used_and_saves_only_what_formulas_need():
    x = jtorch.randn(3, requires_grad=True)
    y = x * 2.0
    spec = next(s for s in _specs() if s.info is not None and s.info.node_name == "MulBackward0"
                and str(s.schema.name) == "mul.Tensor")
    assert callable(spec.fast)
    node = y.grad_fn
    assert isinstance(node._saved["self"], vt.TensorMeta)  # x * 2 keeps no x (other needs no grad)
    assert type(node._saved["other"]).__name__ == "SavedVariable"


def test_generated_record_checks_versions_of_saved_tensors():
    a = jtorch.randn(3, requires_grad=True)
    b = a * 1.0
    c = b * b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_no_grad_input_takes_no_node():
    x = jtorch.randn(3)
    w = jtorch.randn(3, requires_grad=True)
    with jtorch.no_grad():
        assert (x * w).grad_fn is None
    assert (x * x).grad_fn is None and (x * w).grad_fn.name() == "MulBackward0"
