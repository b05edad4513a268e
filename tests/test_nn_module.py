"""nn.Module and nn.Parameter: registration, iteration, state dicts, conversions, hooks, printing.

Every test builds the same model in jtorch and (where torch is needed for the comparison) in torch,
and compares names, texts and values."""
from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import jtorch
import jtorch.nn as jnn
from _torch_compare import error_of
from _torch_oracle import live_torch, oracle_torch, type_name


def _jt(s: str) -> str:
    return s.replace("torch.", "jtorch.")


def _build(nn, torchlib):
    """The same small model in either library (Parameter, buffers, a non-persistent buffer, children)."""

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(torchlib.ones(3))
            self.register_buffer("running", torchlib.zeros(3))
            self.register_buffer("scratch", torchlib.zeros(1), persistent=False)

        def forward(self, x):
            return x * self.scale + self.running

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = Block()
            self.b = Block()
            self.shared = self.a  # the same module twice: yielded once
            self.w = nn.Parameter(torchlib.full((3, 3), 0.5))
            self.register_parameter("none_param", None)

        def forward(self, x):
            return self.b(self.a(x)) @ self.w

    return Net()


# ---- Parameter --------------------------------------------------------------------------------------
def test_parameter_shares_data_prints_and_tracks_grad():
    t = jtorch.tensor([1.0, 2.0])
    p = jnn.Parameter(t)
    assert isinstance(p, jtorch.Tensor) and p.requires_grad and p.is_leaf
    t.add_(1.0)  # shares memory and version counter with the tensor it wraps
    assert p.tolist() == [2.0, 3.0] and p._version == t._version
    assert repr(p) == "Parameter containing:\ntensor([2., 3.], requires_grad=True)"
    assert repr(jnn.Parameter(jtorch.tensor([1, 2]), requires_grad=False)) == "Parameter containing:\ntensor([1, 2])"
    assert type(p * 2) is jtorch.Tensor and type(p.data) is jtorch.Tensor
    assert jnn.Parameter().shape == (0,)


def test_parameter_integer_requires_grad_error():
    torch = oracle_torch()
    assert error_of(lambda: jnn.Parameter(jtorch.tensor([1, 2]))) == \
        error_of(lambda: torch.nn.Parameter(torch.tensor([1, 2])))


def test_parameter_deepcopy_and_pickle():
    p = jnn.Parameter(jtorch.tensor([1.0, -1.0]))
    q = copy.deepcopy(p)
    assert type(q) is jnn.Parameter and q.requires_grad and q.tolist() == [1.0, -1.0]
    q.data.add_(1)  # a new storage
    assert p.tolist() == [1.0, -1.0]
    r = pickle.loads(pickle.dumps(jnn.Parameter(jtorch.tensor([3.0]), requires_grad=False)))
    assert type(r) is jnn.Parameter and not r.requires_grad and r.tolist() == [3.0]


# ---- registration and iteration -----------------------------------------------------------------------
def test_named_members_match_torch():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    j, t = _build(jnn, jtorch), _build(torch.nn, torch)
    assert [n for n, _ in j.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in j.named_parameters(prefix="m", remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(prefix="m", remove_duplicate=False)]
    assert [n for n, _ in j.named_parameters(recurse=False)] == [n for n, _ in t.named_parameters(recurse=False)]
    assert [n for n, _ in j.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in j.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in j.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in j.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert len(list(j.parameters())) == len(list(t.parameters())) == 3
    assert list(j.state_dict()) == list(t.state_dict())
    assert isinstance(j.state_dict(), OrderedDict)
    assert list(j.state_dict(prefix="p.")) == list(t.state_dict(prefix="p."))
    assert [k for k in dir(j) if not k.startswith("_")] == [k for k in dir(t) if not k.startswith("_")
                                                            and hasattr(j, k)]


def test_setattr_moves_between_kinds_and_delattr():
    m = jnn.Module()
    m.x = jnn.Parameter(jtorch.zeros(1))
    assert "x" in m._parameters
    m.x = None  # stays registered, as None
    assert m._parameters["x"] is None and m.x is None
    del m.x
    m.x = jnn.Module()
    assert "x" in m._modules and "x" not in m._parameters
    m.register_buffer("b", jtorch.zeros(2))
    m.b = jtorch.ones(2)  # assigning a tensor to a buffer name replaces the buffer
    assert m._buffers["b"].tolist() == [1.0, 1.0]
    del m.b
    assert "b" not in m._buffers
    m.plain = 3
    assert m.plain == 3 and "plain" in m.__dict__
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope  # noqa: B018


def test_buffer_marker_registers():
    m = jnn.Module()
    m.b = jnn.Buffer(jtorch.zeros(2), persistent=False)
    assert "b" in m._buffers and "b" in m._non_persistent_buffers_set and list(m.state_dict()) == []


@pytest.mark.parametrize("case", range(12))
def test_registration_errors_match_torch(case):
    torch = oracle_torch()

    def run(nn, lib):
        m = nn.Module()
        m.p = nn.Parameter(lib.zeros(1))
        m.c = nn.Module()
        m.r = 1
        actions = [
            lambda: setattr(m, "p", lib.zeros(1)),
            lambda: setattr(m, "c", 3),
            lambda: m.register_buffer("a.b", lib.zeros(1)),
            lambda: m.register_buffer("", lib.zeros(1)),
            lambda: m.register_buffer("r", lib.zeros(1)),
            lambda: m.register_parameter("x", lib.zeros(1)),
            lambda: m.register_parameter("a.b", None),
            lambda: m.register_parameter("q", nn.Parameter(lib.zeros(1)) * 2),
            lambda: m.add_module("x", 3),
            lambda: m.add_module("a.b", nn.Module()),
            lambda: m.register_buffer(3, None),
            lambda: m.get_submodule("c.zz"),
        ]
        return error_of(actions[case])

    jt, tt = run(jnn, jtorch), run(torch.nn, torch)
    assert jt is not None and jt[0] is tt[0]
    assert jt[1] == _jt(tt[1])


def test_before_initerror_of():
    class Bad(jnn.Module):
        def __init__(self) -> None:
            self.w = jnn.Parameter(jtorch.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Bad()
    with pytest.raises(TypeError, match=r"Module.__init__\(\) got an unexpected keyword argument 'x'"):
        jnn.Module(x=1)


def test_get_submodule_and_parameter():
    j = _build(jnn, jtorch)
    assert j.get_submodule("a") is j.a and j.get_submodule("") is j
    assert j.get_parameter("a.scale") is j.a.scale
    with pytest.raises(AttributeError, match="`running` is not an nn.Parameter"):
        j.get_parameter("a.running")
    assert j.get_buffer("b.running") is j.b.running


# ---- state dicts ------------------------------------------------------------------------------------
def test_state_dict_round_trip_and_keep_vars():
    j = _build(jnn, jtorch)
    sd = j.state_dict()
    assert type(sd["w"]) is jtorch.Tensor and not sd["w"].requires_grad
    assert j.state_dict(keep_vars=True)["w"] is j.w
    other = _build(jnn, jtorch)
    with jtorch.no_grad():
        for v in other.state_dict().values():
            v.fill_(7.0)
    res = j.load_state_dict(other.state_dict())
    assert repr(res) == "<All keys matched successfully>" and res.missing_keys == []
    assert j.w.tolist() == [[7.0] * 3] * 3 and j.a.running.tolist() == [7.0] * 3
    assert j.a.scratch.tolist() == [0.0]  # non-persistent: not in the state dict, untouched


def test_load_state_dict_errors_match_torch():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    j, t = _build(jnn, jtorch), _build(torch.nn, torch)
    jsd = OrderedDict((k, v) for k, v in j.state_dict().items() if k != "a.running")
    tsd = OrderedDict((k, v) for k, v in t.state_dict().items() if k != "a.running")
    jsd["extra"], tsd["extra"] = jtorch.zeros(1), torch.zeros(1)
    jsd["w"], tsd["w"] = jtorch.zeros(2, 3), torch.zeros(2, 3)
    je, te = error_of(lambda: j.load_state_dict(jsd)), error_of(lambda: t.load_state_dict(tsd))
    assert je[0] is te[0] is RuntimeError and je[1] == _jt(te[1])
    jr, tr = j.load_state_dict({"a.scale": jtorch.ones(3)}, strict=False), \
        t.load_state_dict({"a.scale": torch.ones(3)}, strict=False)
    assert jr.missing_keys == tr.missing_keys and jr.unexpected_keys == tr.unexpected_keys
    assert repr(jr) == repr(tr)
    assert error_of(lambda: j.load_state_dict([1])) == error_of(lambda: t.load_state_dict([1]))


def test_load_state_dict_from_torch_values():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    j, t = _build(jnn, jtorch), _build(torch.nn, torch)
    with torch.no_grad():
        for v in t.parameters():
            v.uniform_()
    j.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(j(jtorch.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-6)


def test_load_state_dict_assign_keeps_parameter_type():
    j = _build(jnn, jtorch)
    new = jtorch.full((3, 3), 2.0)
    j.load_state_dict({**j.state_dict(), "w": new}, assign=True)
    assert type(j.w) is jnn.Parameter and j.w.requires_grad and j.w.data_ptr() == new.data_ptr()


# ---- modes, conversions, grads ------------------------------------------------------------------------
def test_train_eval_apply_requires_grad():
    j = _build(jnn, jtorch)
    assert j.training and j.a.training
    assert j.eval() is j and not j.a.training and not j.b.training
    j.train()
    assert j.b.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        j.train(1)
    seen = []
    j.apply(lambda m: seen.append(type_name(m)))
    assert seen == ["Block", "Block", "Net"]
    j.requires_grad_(False)
    assert not any(p.requires_grad for p in j.parameters())


def test_to_double_keeps_parameter_identity_and_grad():
    j = _build(jnn, jtorch)
    w = j.w
    y = j(jtorch.ones(2, 3)).sum()
    y.backward()
    j.double()
    assert j.w is w and type(j.w) is jnn.Parameter and j.w.dtype == jtorch.float64 and j.w.requires_grad
    assert j.w.grad.dtype == jtorch.float64 and j.a.running.dtype == jtorch.float64
    j.to(jtorch.float32)
    assert j.w.dtype == jtorch.float32
    j.to(jtorch.empty(0, dtype=jtorch.float64))  # device and dtype of a tensor
    assert j.w.dtype == jtorch.float64 and j.w.device.type == "cpu"
    j.half()
    assert j.w.dtype == jtorch.float16
    j.float().cpu()
    assert j.w.dtype == jtorch.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=jtorch.int64"):
        j.to(jtorch.int64)
    j.to("meta")
    assert j.w.device.type == "meta" and j.a.running.is_meta and j.w is w
    with pytest.raises(NotImplementedError, match="Please use jtorch.nn.Module.to_empty"):
        j.to("cpu")
    j.to_empty(device="cpu")
    assert j.w.device.type == "cpu" and j.w.shape == (3, 3)


def test_integer_buffers_keep_dtype():
    m = jnn.Module()
    m.register_buffer("n", jtorch.tensor(0))
    m.to(jtorch.float64)
    assert m.n.dtype == jtorch.int64


def test_zero_grad():
    j = _build(jnn, jtorch)
    j(jtorch.ones(1, 3)).sum().backward()
    j.zero_grad(set_to_none=False)
    assert j.w.grad.tolist() == [[0.0] * 3] * 3
    j.zero_grad()
    assert all(p.grad is None for p in j.parameters())


def test_forward_hooks_and_handles():
    lin = jnn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    y = lin(jtorch.ones(3, 2))
    np.testing.assert_allclose(y.detach().numpy(), (lin.bias + 1).expand(3, 2).detach().numpy())
    assert calls == [(3, 2)]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(lin(jtorch.zeros(1, 2)).detach().numpy(), lin.bias.detach().numpy()[None])
    expected = lin(jtorch.ones(1, 2)).detach().numpy()
    h3 = lin.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    np.testing.assert_allclose(lin(jtorch.zeros(1, 2)).detach().numpy(), expected)
    h3.remove()


def test_missing_forward():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        jnn.Module()(1)


def test_repr_matches_torch():
    torch = live_torch("torch's modules hold the test's tensors and modules")

    def model(nn):
        class Head(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def extra_repr(self) -> str:
                return "two\nlines"

        return nn.Sequential(OrderedDict([("body", nn.Sequential(nn.Linear(3, 4), nn.Flatten())),
                                          ("head", Head()), ("empty", nn.Module())]))

    assert repr(model(jnn)) == repr(model(torch.nn))


def test_deepcopy_module():
    j = _build(jnn, jtorch)
    k = copy.deepcopy(j)
    assert k.a is k.shared and k.w is not j.w and type(k.w) is jnn.Parameter
    with jtorch.no_grad():
        k.w.fill_(0.0)
    assert j.w.tolist()[0][0] == 0.5


def test_state_dict_hooks():
    j = _build(jnn, jtorch)
    seen = []
    h1 = j.a.register_state_dict_pre_hook(lambda m, prefix, keep_vars: seen.append(("pre", prefix)))
    h2 = j.register_state_dict_post_hook(lambda m, sd, prefix, meta: seen.append(("post", len(sd))))
    j.state_dict()
    assert seen == [("pre", "a."), ("pre", "shared."), ("post", 7)]  # 'shared' is 'a' again, under its own name
    h1.remove()
    h2.remove()

    def rename(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        if prefix + "old_scale" in state_dict:  # an old checkpoint's key, renamed on load
            state_dict[prefix + "scale"] = state_dict.pop(prefix + "old_scale")

    j.a.register_load_state_dict_pre_hook(rename)
    sd = j.state_dict()
    sd["a.old_scale"] = sd.pop("a.scale") * 0 + 9
    j.load_state_dict(sd)
    assert j.a.scale.tolist() == [9.0] * 3
    post = []
    j.register_load_state_dict_post_hook(lambda m, keys: post.append(list(keys.missing_keys)))
    j.load_state_dict({}, strict=False)
    assert post[-1] == ["w", "a.scale", "a.running", "b.scale", "b.running", "shared.scale", "shared.running"]
