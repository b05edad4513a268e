"""nn layers and containers against torch: the same weights copied in, the same inputs, outputs and
gradients compared; reprs and error texts compared as strings."""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

import jtorch
import jtorch.nn as jnn
from _torch_compare import error_of
from _torch_oracle import live_torch, oracle_torch

torch = oracle_torch()

RNG = np.random.default_rng(1234)


def _jt(s: str) -> str:
    return s.replace("torch.", "jtorch.")


def _copy_weights(jmod, tmod) -> None:
    jmod.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def _check_same(jmod, tmod, *inputs: np.ndarray, grad_inputs: bool = True) -> None:
    """Forward and backward of (sum of squares of) the output; every parameter's gradient compared."""
    _copy_weights(jmod, tmod)
    jx = [jtorch.tensor(x).requires_grad_(grad_inputs and x.dtype.kind == "f") for x in inputs]
    tx = [torch.tensor(x).requires_grad_(grad_inputs and x.dtype.kind == "f") for x in inputs]
    jy, ty = jmod(*jx), tmod(*tx)
    np.testing.assert_allclose(jy.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    (jy * jy).sum().backward()
    (ty * ty).sum().backward()
    for a, b in zip(jx, tx):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)
    for (n, p), (_, q) in zip(jmod.named_parameters(), tmod.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-5, err_msg=n)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# ---- Linear, Bilinear, Identity -------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,)])
def test_linear_matches_torch(bias, shape):
    _check_same(jnn.Linear(4, 3, bias=bias), torch.nn.Linear(4, 3, bias=bias), _f32(*shape))


def test_linear_repr_and_shapes_error():
    assert repr(jnn.Linear(4, 3, bias=False)) == repr(torch.nn.Linear(4, 3, bias=False))
    assert error_of(lambda: jnn.Linear(2, 3)(jtorch.ones(2, 3))) == \
        error_of(lambda: torch.nn.Linear(2, 3)(torch.ones(2, 3)))


def test_linear_default_init_statistics():
    jtorch.manual_seed(0)
    lin = jnn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) is uniform in ±1/sqrt(fan_in)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.mean()) < 0.02 * bound and abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert np.abs(b).max() <= bound and abs(b.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert lin.weight.dtype == jtorch.float32 and lin.weight.requires_grad
    d = jnn.Linear(2, 2, dtype=jtorch.float64)
    assert d.weight.dtype == d.bias.dtype == jtorch.float64


def test_linear_seeded_init_is_reproducible():
    jtorch.manual_seed(3)
    a = jnn.Linear(5, 4).weight.detach().numpy()
    jtorch.manual_seed(3)
    b = jnn.Linear(5, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_bilinear_matches_torch():
    _check_same(jnn.Bilinear(3, 4, 2), torch.nn.Bilinear(3, 4, 2), _f32(5, 3), _f32(5, 4))
    _check_same(jnn.Bilinear(3, 4, 2, bias=False), torch.nn.Bilinear(3, 4, 2, bias=False), _f32(2, 5, 3), _f32(2, 5, 4))
    assert repr(jnn.Bilinear(3, 4, 2)) == repr(torch.nn.Bilinear(3, 4, 2))
    jtorch.manual_seed(0)
    w = jnn.Bilinear(100, 20, 50).weight.detach().numpy()
    assert np.abs(w).max() <= 0.1 and np.abs(w).max() > 0.099


def test_identity():
    x = jtorch.ones(2)
    assert jnn.Identity(3, foo=1)(x) is x
    assert repr(jnn.Identity()) == "Identity()"


# ---- Embedding ------------------------------------------------------------------------------------
def test_embedding_matches_torch_with_padding_idx():
    idx = np.array([[0, 2, 4], [2, 2, 1]])
    j, t = jnn.Embedding(6, 3, padding_idx=2), torch.nn.Embedding(6, 3, padding_idx=2)
    _check_same(j, t, idx)
    assert j.weight.grad.numpy()[2].tolist() == [0.0, 0.0, 0.0]  # the padding row gets no gradient
    jtorch.manual_seed(0)
    e = jnn.Embedding(10, 4, padding_idx=-1)
    assert e.padding_idx == 9 and e.weight.detach().numpy()[9].tolist() == [0.0] * 4
    assert repr(e) == repr(torch.nn.Embedding(10, 4, padding_idx=-1))


def test_embedding_max_norm_renorms_looked_up_rows():
    j, t = jnn.Embedding(5, 3, max_norm=1.0), torch.nn.Embedding(5, 3, max_norm=1.0)
    _copy_weights(j, t)
    idx = np.array([0, 3, 3])
    np.testing.assert_allclose(j(jtorch.tensor(idx)).detach().numpy(), t(torch.tensor(idx)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(j.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(j) == repr(t)


def test_embedding_init_anderror_of():
    jtorch.manual_seed(0)
    w = jnn.Embedding(1000, 100).weight.detach().numpy()  # N(0, 1)
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01
    assert error_of(lambda: jnn.Embedding(3, 2, padding_idx=3)) == \
        error_of(lambda: torch.nn.Embedding(3, 2, padding_idx=3))
    je = error_of(lambda: jnn.Embedding(3, 2)(jtorch.tensor([0.5])))
    assert je[0] is RuntimeError and "Long, Int" in je[1]


def test_embedding_from_pretrained():
    w = jtorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    e = jnn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e(jtorch.tensor([1])).tolist() == [[3.0, 4.0]]
    assert jnn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad


# ---- Dropout, Flatten, Unflatten --------------------------------------------------------------------
def test_dropout_train_eval_and_scaling():
    d = jnn.Dropout(0.25)
    jtorch.manual_seed(0)
    y = d(jtorch.ones(20000)).numpy()
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.75], rtol=1e-6)
    assert abs((y == 0).mean() - 0.25) < 0.015
    jtorch.manual_seed(0)
    np.testing.assert_array_equal(d(jtorch.ones(20000)).numpy(), y)  # seeded by jtorch.manual_seed
    d.eval()
    x = jtorch.ones(3)
    assert d(x) is x
    assert repr(d) == repr(torch.nn.Dropout(0.25))
    assert repr(jnn.Dropout(inplace=True)) == repr(torch.nn.Dropout(inplace=True))
    assert error_of(lambda: jnn.Dropout(1.5)) == error_of(lambda: torch.nn.Dropout(1.5))


def test_dropout_gradient_uses_the_same_mask():
    x = jtorch.ones(1000, requires_grad=True)
    y = jnn.Dropout(0.5)(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


@pytest.mark.parametrize("args", [(), (0, 1), (1, 2), (-2, -1)])
def test_flatten_matches_torch(args):
    x = _f32(2, 3, 4)
    j, t = jnn.Flatten(*args), torch.nn.Flatten(*args)
    assert j(jtorch.tensor(x)).shape == t(torch.tensor(x)).shape
    assert repr(j) == repr(t)


def test_unflatten_matches_torch():
    x = _f32(2, 12)
    j, t = jnn.Unflatten(1, (3, 4)), torch.nn.Unflatten(1, (3, 4))
    np.testing.assert_array_equal(j(jtorch.tensor(x)).numpy(), t(torch.tensor(x)).numpy())
    assert repr(j) == repr(t)
    assert error_of(lambda: jnn.Unflatten(1, 3)) == error_of(lambda: torch.nn.Unflatten(1, 3))
    assert error_of(lambda: jnn.Unflatten(1, (3, 1.0))) == error_of(lambda: torch.nn.Unflatten(1, (3, 1.0)))


# ---- containers ---------------------------------------------------------------------------------------
def _seq(nn):
    return nn.Sequential(nn.Linear(3, 4), nn.Flatten(), nn.Dropout(0.1), nn.Identity())


def test_sequential_indexing_and_editing_match_torch():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    j, t = _seq(jnn), _seq(torch.nn)
    assert repr(j) == repr(t) and len(j) == len(t) == 4
    assert repr(j[1:3]) == repr(t[1:3]) and repr(j[::-2]) == repr(t[::-2]) and repr(j[-1]) == repr(t[-1])
    assert error_of(lambda: j[4]) == error_of(lambda: t[4])
    for s in (j, t):
        del s[1]
        s.append(type(s[0])(2, 2))
        s.insert(0, type(s[-1])(1, 1))
        s.insert(-1, type(s[-1])(5, 5))
        s.extend([type(s[0])(6, 6)])
        s[0] = type(s[0])(7, 7)
    assert repr(j) == repr(t)
    assert [n for n, _ in j.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert error_of(lambda: j.insert(10, jnn.Identity())) == error_of(lambda: t.insert(10, torch.nn.Identity()))
    assert repr(j + j[:1]) == repr(t + t[:1]) and repr(j[:2] * 2) == repr(t[:2] * 2)
    assert repr(j.pop(1)) == repr(t.pop(1)) and repr(j) == repr(t)
    assert error_of(lambda: j + 1)[1] == error_of(lambda: t + 1)[1]


def test_sequential_ordered_dict_and_forward():
    od = [("fc", (3, 2)), ("act", None)]
    j = jnn.Sequential(OrderedDict((k, jnn.Linear(*a) if a else jnn.Identity()) for k, a in od))
    t = torch.nn.Sequential(OrderedDict((k, torch.nn.Linear(*a) if a else torch.nn.Identity()) for k, a in od))
    assert repr(j) == repr(t) and j.fc is j[0] and list(j.state_dict()) == ["fc.weight", "fc.bias"]
    _check_same(j, t, _f32(4, 3))
    assert "0" not in dir(jnn.Sequential(jnn.Identity()))


def test_module_list_and_dict():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    jl = jnn.ModuleList([jnn.Linear(2, 2) for _ in range(3)])
    tl = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
    assert repr(jl) == repr(tl)
    for m in (jl, tl):
        m.append(type(m[0])(2, 3))
        m.insert(1, type(m[0])(1, 1))
        m += [type(m[0])(4, 4)]
        del m[-1]
    assert repr(jl) == repr(tl) and repr(jl[1:3]) == repr(tl[1:3])
    assert [n for n, _ in jl.named_parameters()] == [n for n, _ in tl.named_parameters()]
    assert error_of(lambda: jl[9]) == error_of(lambda: tl[9])
    assert repr(jnn.ModuleList()) == repr(torch.nn.ModuleList())
    jd = jnn.ModuleDict({"b": jnn.Identity(), "a": jnn.Linear(1, 1)})
    td = torch.nn.ModuleDict({"b": torch.nn.Identity(), "a": torch.nn.Linear(1, 1)})
    jd.update([("c", jnn.Flatten())])
    td.update([("c", torch.nn.Flatten())])
    assert repr(jd) == repr(td) and list(jd.keys()) == list(td.keys()) and "a" in jd
    assert repr(jd.pop("b")) == repr(td.pop("b")) and len(jd) == len(td) == 2
    assert error_of(lambda: jd.update(3)) == error_of(lambda: td.update(3))
    assert error_of(lambda: jd.update([(1, 2, 3)])) == error_of(lambda: td.update([(1, 2, 3)]))


def test_parameter_list_and_dict():
    jp = jnn.ParameterList([jnn.Parameter(jtorch.ones(2, 3)), jtorch.zeros(2)])
    tp = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 3)), torch.zeros(2)])
    assert repr(jp) == _jt(repr(tp)) and type(jp[1]) is jnn.Parameter and len(jp) == 2
    jp.append(jtorch.ones(1))
    assert [n for n, _ in jp.named_parameters()] == ["0", "1", "2"] and len(list(jp)) == 3
    assert error_of(lambda: jp(1)) == error_of(lambda: tp(1))
    assert error_of(lambda: jp.extend(jtorch.ones(2)))[1] == error_of(lambda: tp.extend(torch.ones(2)))[1]
    jd = jnn.ParameterDict({"b": jtorch.ones(2), "a": jnn.Parameter(jtorch.zeros(1))})
    td = torch.nn.ParameterDict({"b": torch.ones(2), "a": torch.nn.Parameter(torch.zeros(1))})
    assert repr(jd) == _jt(repr(td)) and list(jd) == list(td) == ["a", "b"]
    assert [n for n, _ in jd.named_parameters()] == [n for n, _ in td.named_parameters()]
    assert error_of(lambda: jd[1]) == error_of(lambda: td[1])
