"""Whole modules in checkpoints (what `torch.save(model, f)` writes), both ways with torch, and
torch.load's weights_only environment overrides (TORCH_FORCE_WEIGHTS_ONLY_LOAD,
TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD) with torch's texts."""
from __future__ import annotations

import io
import pickle
import warnings

import numpy as np
import pytest

import jtorch
from _torch_oracle import HAVE_TORCH

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="loads real torch modules")


def _model(nn):
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.BatchNorm1d(4), nn.Linear(4, 2))


def _jtorch_model():
    jtorch.manual_seed(0)
    m = _model(jtorch.nn)
    m[2].running_mean.fill_(0.5)
    return m.eval()


@needs_torch
def test_torch_saved_module_loads_in_jtorch():
    import torch

    torch.manual_seed(0)
    m = _model(torch.nn).eval()
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    j = jtorch.load(buf, weights_only=False)
    assert type(j) is jtorch.nn.Sequential and type(j[2]) is jtorch.nn.BatchNorm1d
    assert isinstance(j[0].weight, jtorch.nn.Parameter)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(j(jtorch.from_numpy(x)).detach().numpy(), m(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert repr(j) == repr(m)


@needs_torch
def test_jtorch_saved_module_loads_in_torch():
    import torch

    j = _jtorch_model()
    buf = io.BytesIO()
    jtorch.save(j, buf)
    buf.seek(0)
    m = torch.load(buf, weights_only=False)
    assert type(m) is torch.nn.Sequential and type(m[2]) is torch.nn.BatchNorm1d
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(m(torch.from_numpy(x)).detach().numpy(), j(jtorch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_whole_module_round_trip_in_jtorch():
    j = _jtorch_model()
    buf = io.BytesIO()
    jtorch.save(j, buf)
    buf.seek(0)
    k = jtorch.load(buf, weights_only=False)
    assert type(k[2]) is jtorch.nn.BatchNorm1d
    for (n1, p1), (n2, p2) in zip(j.state_dict().items(), k.state_dict().items()):
        assert n1 == n2 and jtorch.equal(p1, p2)


def _saved_module_bytes(mod):
    buf = io.BytesIO()
    mod.save(mod.nn.Sequential(mod.nn.Linear(2, 2)), buf)
    return buf.getvalue()


def _load_outcome(mod, data, monkeypatch, env, **kw):
    for k in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = mod.load(io.BytesIO(data), **kw)
            out = ("ok", str(r).replace("torch.", ""))
        except Exception as e:
            out = (type(e).__name__, str(e))
    return out, [str(x.message) for x in w if "weights_only" in str(x.message)]


ENV_CASES = [
    ({}, {}),
    ({}, {"weights_only": False}),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, {}),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "true"}, {"weights_only": True}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}, {"weights_only": False}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "YES"}, {}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "0"}, {"weights_only": False}),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, {}),
]


@needs_torch
@pytest.mark.parametrize("env,kw", ENV_CASES)
def test_weights_only_environment_overrides(env, kw, monkeypatch):
    import torch

    data = _saved_module_bytes(jtorch)
    j, jw = _load_outcome(jtorch, data, monkeypatch, env, **kw)
    t, tw = _load_outcome(torch, _saved_module_bytes(torch), monkeypatch, env, **kw)
    assert j == t
    assert jw == tw


def test_weights_only_error_is_an_unpickling_error():
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch.nn.modules.container.Sequential was not an "
                                                     r"allowed global by default"):
        jtorch.load(io.BytesIO(_saved_module_bytes(jtorch)))
