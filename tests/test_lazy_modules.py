"""The Lazy modules against torch: reprs and state dicts before the first call, the shapes inferred by it,
the class each becomes, default initialisation, values and gradients after loading torch's weights,
loading a state dict into a lazy module, UninitializedParameter / UninitializedBuffer and their errors."""
from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch, type_name

torch = oracle_torch()


def _norm(s: str) -> str:
    return s.replace("jtorch", "torch")


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, _norm(str(e))
    return None


# (name, constructor arguments, keyword arguments, input shape)
CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv1d", (4, 2), {"groups": 2, "bias": False}, (4, 6)),
    ("LazyConv2d", (4, 3), {"stride": 2}, (1, 2, 6, 5)),
    ("LazyConv2d", (2, (2, 3)), {"padding_mode": "reflect", "padding": 1}, (2, 5, 5)),
    ("LazyConvTranspose1d", (3, 2), {"stride": 2}, (2, 4, 5)),
    ("LazyConvTranspose2d", (2, 3), {"output_padding": 1, "stride": 2}, (1, 3, 4, 4)),
    ("LazyConv3d", (2, 2), {"padding": 1}, (1, 2, 3, 3, 3)),
    ("LazyConvTranspose3d", (2, 2), {"stride": 2}, (2, 3, 3, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 3, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"bias": False}, (2, 3, 2, 2, 2)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _state(m) -> list:
    return [(k, _norm(repr(v)) if repr(v).startswith("<Uninitialized") else tuple(v.shape))
            for k, v in m.state_dict().items()]


# an instance norm with neither affine parameters nor statistics has nothing to infer: num_features stays 0
# and both libraries warn on every call
@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_call_infers_shapes_and_becomes_the_module(case):
    name, args, kwargs, shape = case
    jm, tm = getattr(jtorch.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(jm) == repr(tm)
    assert _state(jm) == _state(tm)
    assert jm.has_uninitialized_params() == tm.has_uninitialized_params()
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    jm(jtorch.tensor(x))
    tm(torch.tensor(x))
    assert type_name(jm) == type_name(tm) == name[4:]
    assert repr(jm) == repr(tm)
    assert [(n, tuple(p.shape), type_name(p)) for n, p in jm.named_parameters()] == \
        [(n, tuple(p.shape), type_name(p)) for n, p in tm.named_parameters()]
    assert [(n, tuple(b.shape), type_name(b)) for n, b in jm.named_buffers()] == \
        [(n, tuple(b.shape), type_name(b)) for n, b in tm.named_buffers()]
    assert not hasattr(jm, "_initialize_hook") and not jm._forward_pre_hooks
    # same weights: same values and gradients
    jm.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    jx, tx = jtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    jy, ty = jm(jx), tm(tx)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    r = np.linspace(-1, 1, int(np.prod(tuple(ty.shape)))).reshape(tuple(ty.shape)).astype(np.float32)
    (jy * jtorch.tensor(r)).sum().backward()
    (ty * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, jp), (_, tp) in zip(jm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(jp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)


@pytest.mark.parametrize("name,args,shape", [("LazyLinear", (20,), (3, 30)), ("LazyConv2d", (8, 3), (1, 6, 5, 5)),
                                             ("LazyConvTranspose1d", (5, 3), (1, 6, 4))])
def test_default_initialisation_is_the_modules(name, args, shape):
    jtorch.manual_seed(0)
    m = getattr(jtorch.nn, name)(*args)
    m(jtorch.zeros(*shape))
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    fan_in = w.shape[1] * int(np.prod(w.shape[2:])) if w.ndim > 1 else w.shape[0]
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) and the bias: uniform(+-1/sqrt(fan_in))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    assert np.abs(b).max() <= bound and len(np.unique(b)) == b.size
    bn = jtorch.nn.LazyBatchNorm2d()
    bn.eval()(jtorch.ones(1, 3, 2, 2))
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3


def test_load_state_dict_into_a_lazy_module():
    tm = torch.nn.Linear(4, 2)
    sd = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    res = []
    for lib in (jtorch, torch):
        m = lib.nn.LazyLinear(2)
        m.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
        assert type_name(m) == "LazyLinear" and not m.has_uninitialized_params()
        shapes = [tuple(p.shape) for p in m.parameters()]
        out = m(lib.ones(3, 4)).detach().numpy()
        res.append((shapes, out, type_name(m), m.in_features,
                    _errors(lambda lib=lib: lib.nn.LazyLinear(2).load_state_dict(
                        {k: lib.tensor(v) for k, v in sd.items()}) and None)))
    assert res[0][0] == res[1][0] and res[0][2:] == res[1][2:]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


def test_loaded_lazy_linear_checks_the_input_width():
    res = []
    for lib in (jtorch, torch):
        m = lib.nn.LazyLinear(2)
        m.load_state_dict({"weight": lib.ones(2, 4), "bias": lib.zeros(2)})
        res.append(_errors(lambda m=m, lib=lib: m(lib.ones(3, 5))))
    assert res[0] == res[1] and res[0][0] == "AssertionError"


@pytest.mark.parametrize("case", ["conv rank", "convT rank", "groups", "shape", "method", "share", "bn rank",
                                  "instance affine", "mixin"])
def test_errors_match_torch(case):
    def mixin(T):
        class Lazy(T.nn.modules.lazy.LazyModuleMixin, T.nn.Module):
            def forward(self, x):
                return x

        return Lazy()(T.ones(2))

    fns = {"conv rank": lambda T: T.nn.LazyConv2d(2, 3)(T.ones(2, 3)),
           "convT rank": lambda T: T.nn.LazyConvTranspose1d(2, 3)(T.ones(2, 3, 4, 5)),
           "groups": lambda T: T.nn.LazyConv1d(4, 3, groups=2)(T.ones(1, 3, 5)),
           "shape": lambda T: T.nn.LazyLinear(2).weight.shape,
           "method": lambda T: T.nn.LazyLinear(2).weight.mul(2),
           "share": lambda T: T.nn.parameter.UninitializedParameter().share_memory_(),
           "bn rank": lambda T: T.nn.LazyBatchNorm1d()(T.ones(2, 3, 4, 5)),
           "instance affine": lambda T: T.nn.LazyInstanceNorm1d()(T.ones(3, 4)),
           "mixin": mixin}
    assert _errors(lambda: fns[case](jtorch)) == _errors(lambda: fns[case](torch))


def test_uninitialized_tensors():
    for lib in (jtorch, torch):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer(dtype=lib.float64)
        assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
        assert p.requires_grad and not b.requires_grad and _norm(str(b.dtype)) == "torch.float64"
        assert lib.nn.parameter.is_lazy(p) and not lib.nn.parameter.is_lazy(lib.nn.Parameter(lib.ones(1)))
        p.materialize((2, 3))
        b.materialize(4)
        assert type_name(p) == "Parameter" and tuple(p.shape) == (2, 3) and p.requires_grad
        assert type_name(b) == "Tensor" and tuple(b.shape) == (4,) and _norm(str(b.dtype)) == "torch.float64"
        assert not lib.nn.parameter.is_lazy(p)
    q = copy.deepcopy(jtorch.nn.UninitializedParameter(requires_grad=False, dtype=jtorch.float64))
    assert type(q) is jtorch.nn.UninitializedParameter and not q.requires_grad and q.dtype == jtorch.float64
    assert isinstance(jtorch.nn.UninitializedParameter(), jtorch.nn.Parameter)


def test_construction_is_silent_and_copies_stay_lazy():
    for lib in (jtorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        c = copy.deepcopy(m)
        assert c[0].has_uninitialized_params()
        c(lib.ones(1, 3))
        assert [type_name(x) for x in c] == ["Linear", "ReLU", "Linear"] and m[2].has_uninitialized_params()
        assert tuple(c[2].weight.shape) == (2, 4)
