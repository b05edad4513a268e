"""jtorch.save / jtorch.load: PyTorch's zip format, both directions.

`tests/data/torch_checkpoint.pt` was written by torch 2.13 (a Linear state dict, a Parameter, every
dtype, views of one storage, nested containers), so reading torch's files is tested without torch.
"""
from __future__ import annotations

import collections
import io
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import jtorch
from _torch_oracle import live_torch, oracle_torch

DATA = Path(__file__).parent / "data" / "torch_checkpoint.pt"
DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "complex64", "complex128")


def test_load_checkpoint_written_by_torch():
    obj = jtorch.load(DATA)
    sd = obj["state_dict"]
    assert type(sd) is collections.OrderedDict and list(sd) == ["weight", "bias"]
    assert sd._metadata == collections.OrderedDict([("", {"version": 1})])
    np.testing.assert_array_equal(sd["weight"].numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
    assert sd["bias"].tolist() == [-1.0, 0.5] and not sd["weight"].requires_grad
    p = obj["param"]
    assert isinstance(p, jtorch.nn.Parameter) and p.requires_grad and p.tolist() == sd["weight"].tolist()
    for name in DTYPES:
        t = obj["dtypes"][name]
        assert t.dtype == getattr(jtorch, name), name
        np.testing.assert_array_equal(t.numpy(), np.arange(4).astype(getattr(jtorch, name).numpy))
    base, strided, transposed = obj["views"]
    assert strided.tolist() == [2.0, 4.0, 6.0] and strided.stride() == (2,) and strided.storage_offset() == 2
    assert transposed.shape == (5, 2) and transposed.stride() == (1, 5)
    # views of one storage come back sharing memory
    assert strided.untyped_storage() is base.untyped_storage() is transposed.untyped_storage()
    base[4] = 40.0
    assert strided[1].item() == 40.0
    assert obj["nested"][:5] == (1, 2.5, "text", b"raw", [None, True])
    assert obj["nested"][5]["k"].shape == (2, 2)
    assert type(obj["size"]) is jtorch.Size and obj["size"] == (2, 3)


def test_round_trip_in_jtorch(tmp_path):
    x = jtorch.arange(12, dtype=jtorch.float32).reshape(3, 4)
    obj = {"x": x, "v": x[1:, ::2], "t": x.t(), "g": jtorch.ones(2, requires_grad=True), "e": jtorch.zeros(0, 3),
           "dt": jtorch.float16, "dev": jtorch.device("cpu"), "n": [1, (2.5, "s"), {"b": b"\x00\xff"}]}
    obj.update({name: jtorch.arange(5).to(getattr(jtorch, name)) for name in DTYPES})
    f = tmp_path / "ck.pt"
    jtorch.save(obj, f)
    back = jtorch.load(f)
    for k in ("x", "v", "t", "e", *DTYPES):
        assert back[k].dtype == obj[k].dtype and back[k].shape == obj[k].shape and back[k].stride() == obj[k].stride()
        np.testing.assert_array_equal(back[k].numpy(), obj[k].numpy())
    assert back["v"].untyped_storage() is back["x"].untyped_storage()
    assert back["g"].requires_grad and back["g"].is_leaf and not back["x"].requires_grad
    assert back["dt"] is jtorch.float16 and back["dev"] == jtorch.device("cpu") and back["n"] == obj["n"]
    # a file object works too, and the archive is torch's layout with aligned records
    buf = io.BytesIO()
    jtorch.save(x, buf)
    buf.seek(0)
    with zipfile.ZipFile(buf) as zf:
        names = zf.namelist()
        assert names[0] == "archive/data.pkl" and "archive/data/0" in names and zf.read("archive/version") == b"3\n"
        assert zf.read("archive/byteorder") == b"little"
        info = zf.getinfo("archive/data/0")
        assert (info.header_offset + 30 + len(info.filename) + len(info.extra)) % 64 == 0
    buf.seek(0)
    assert jtorch.load(buf).tolist() == x.tolist()


def test_module_state_dict_round_trip(tmp_path):
    m = jtorch.nn.Linear(4, 3)
    jtorch.save({"model": m.state_dict(), "w": m.weight}, tmp_path / "m.pt")
    back = jtorch.load(tmp_path / "m.pt")
    m2 = jtorch.nn.Linear(4, 3)
    m2.load_state_dict(back["model"])
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    assert isinstance(back["w"], jtorch.nn.Parameter) and back["w"].requires_grad


def test_weights_only_refuses_arbitrary_globals(tmp_path):
    f = tmp_path / "obj.pt"
    jtorch.save({"fn": collections.defaultdict(int)}, f)
    with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed") as info:
        jtorch.load(f)
    assert "Unsupported global: GLOBAL collections.defaultdict was not an allowed global by default." in str(info.value)
    assert "add_safe_globals([collections.defaultdict])" in str(info.value)
    assert jtorch.load(f, weights_only=False)["fn"] == collections.defaultdict(int)
    with jtorch.serialization.safe_globals([collections.defaultdict]):
        assert type(jtorch.load(f)["fn"]) is collections.defaultdict
    with pytest.raises(pickle.UnpicklingError):
        jtorch.load(f)


def test_map_location_and_errors(tmp_path):
    f = tmp_path / "x.pt"
    jtorch.save([jtorch.ones(2)], f)
    assert jtorch.load(f, map_location="cpu")[0].device == jtorch.device("cpu")
    assert jtorch.load(f, map_location={"cpu": "cpu"})[0].tolist() == [1.0, 1.0]
    seen = []
    out = jtorch.load(f, map_location=lambda s, loc: seen.append(loc))
    assert seen == ["cpu"] and out[0].tolist() == [1.0, 1.0]
    if not jtorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="^Attempting to deserialize object on a CUDA device but torch.cuda.is_available\\(\\) is False."):
            jtorch.load(f, map_location="cuda")
    legacy = tmp_path / "legacy.pt"
    legacy.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(RuntimeError, match="zip checkpoint format"):
        jtorch.load(legacy)


def test_files_written_by_jtorch_load_in_torch(tmp_path):
    torch = live_torch("torch reads the files jtorch writes")
    x = jtorch.arange(12, dtype=jtorch.float64).reshape(3, 4)
    m = jtorch.nn.Linear(2, 3)
    obj = {"x": x, "v": x[1:, 1::2], "sd": m.state_dict(), "p": m.weight, "size": x.shape, "dt": jtorch.int16,
           "dev": jtorch.device("cpu"), "nested": [1, (2.5, "s", b"b")]}
    obj.update({name: jtorch.arange(5).to(getattr(jtorch, name)) for name in DTYPES})
    f = tmp_path / "j.pt"
    jtorch.save(obj, f)
    for mmap in (False, True):  # mmap needs the 64-byte alignment
        o = torch.load(f, mmap=mmap)  # weights_only=True in torch too
        for name in DTYPES:
            assert str(o[name].dtype) == f"torch.{name}" and o[name].tolist() == obj[name].tolist()
        assert o["v"].tolist() == obj["v"].tolist() and o["v"].stride() == (4, 2) and o["v"].storage_offset() == 5
        assert o["v"].untyped_storage().data_ptr() == o["x"].untyped_storage().data_ptr()
        assert isinstance(o["p"], torch.nn.Parameter) and o["p"].requires_grad
        assert o["size"] == torch.Size([3, 4]) and o["dt"] is torch.int16 and o["dev"] == torch.device("cpu")
        assert o["nested"] == [1, (2.5, "s", b"b")]
        tm = torch.nn.Linear(2, 3)
        tm.load_state_dict(o["sd"])
        np.testing.assert_array_equal(tm.weight.detach().numpy(), m.weight.detach().numpy())


def test_files_written_by_torch_load_in_jtorch(tmp_path):
    torch = oracle_torch()
    base = torch.randn(4, 5, dtype=torch.float32)
    tm = torch.nn.Linear(5, 2)
    opt = torch.optim.Adam(tm.parameters())
    tm(base).sum().backward()
    opt.step()
    f = tmp_path / "t.pt"
    torch.save({"b": base, "v": base[:, 1:4].t(), "sd": tm.state_dict(), "opt": opt.state_dict()}, f)
    o = jtorch.load(f)
    np.testing.assert_array_equal(o["b"].numpy(), base.numpy())
    np.testing.assert_array_equal(o["v"].numpy(), base[:, 1:4].t().numpy())
    assert o["v"].untyped_storage() is o["b"].untyped_storage()
    m = jtorch.nn.Linear(5, 2)
    m.load_state_dict(o["sd"])
    jopt = jtorch.optim.Adam(m.parameters())
    jopt.load_state_dict(o["opt"])
    assert jopt.state[m.weight]["step"].item() == 1.0
    np.testing.assert_array_equal(jopt.state[m.weight]["exp_avg"].numpy(), opt.state[tm.weight]["exp_avg"].numpy())


def _sharing_group(mod):
    """Tensors over one storage, made in four ways: a view, a set_ alias, the legacy constructor over the
    storage, and a transposed view of a reshaped alias."""
    x = mod.arange(8, dtype=mod.float32)
    a = mod.empty(0).set_(x.untyped_storage(), 2, (3,), (2,))
    n = mod.FloatTensor(x.untyped_storage())
    return {"x": x, "v": x[1:5], "a": a, "n": n, "t": x.view(2, 4).t()}


def _check_sharing(o) -> None:
    o["x"][2] = 20.0
    o["n"][6] = 60.0
    assert o["v"].tolist() == [1.0, 20.0, 3.0, 4.0] and o["a"].tolist() == [20.0, 4.0, 60.0]
    assert o["t"][2].tolist() == [20.0, 60.0] and o["n"].tolist()[2] == 20.0


def test_checkpoints_keep_storage_sharing_both_ways(tmp_path):
    torch = live_torch("the same checkpoints read by both libraries")
    f = tmp_path / "j.pt"
    jtorch.save(_sharing_group(jtorch), f)
    _check_sharing(torch.load(f))
    back = jtorch.load(f)
    assert all(t.untyped_storage() is back["x"].untyped_storage() for t in back.values())
    _check_sharing(back)
    g = tmp_path / "t.pt"
    torch.save(_sharing_group(torch), g)
    o = jtorch.load(g)
    assert all(t.untyped_storage() is o["x"].untyped_storage() for t in o.values())
    _check_sharing(o)


def test_saving_one_memory_as_two_dtypes_is_refused_as_torch():
    x = jtorch.arange(4.0)
    with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that view the same data as "
                                           "different types$"):
        jtorch.save([x, x.view(jtorch.int32)], io.BytesIO())
    buf = io.BytesIO()
    y = jtorch.from_numpy(x.numpy())[1:]
    assert y._storage is not x._storage  # another storage object over the same memory
    jtorch.save([x, y], buf)
    buf.seek(0)
    a, b = jtorch.load(buf)
    b[0] = 9.0
    assert a.tolist() == [0.0, 9.0, 2.0, 3.0]


def test_storages_saved_as_themselves_load_as_torch_loads_them(tmp_path):
    torch = live_torch("the same checkpoints read by both libraries")
    for mod in (jtorch, torch):
        x = mod.arange(4, dtype=mod.float32)
        f = tmp_path / f"{mod.__name__}.pt"
        mod.save({"s": x.storage(), "u": mod.arange(3, dtype=mod.uint8).untyped_storage(), "t": x[1:]}, f)
        for loader in (jtorch, torch):
            o = loader.load(f)
            assert type(o["s"]).__name__ == "TypedStorage" and type(o["u"]).__name__ == "TypedStorage"
            assert o["s"].tolist() == [0.0, 1.0, 2.0, 3.0] and str(o["s"].dtype).endswith("float32")
            assert o["u"].tolist() == [0, 1, 2] and str(o["u"].dtype).endswith("uint8")
            o["s"][1] = 10.0  # the tensor saved with its storage shares it
            assert o["t"].tolist() == [10.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that view the same data as "):
        x = jtorch.arange(4.0)
        jtorch.save([x, x.untyped_storage()], io.BytesIO())
