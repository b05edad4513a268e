"""jtorch.save / jtorch.load with CUDA tensors: storages keep their device ("cuda:0" in the file),
map_location moves them, and views still share one storage."""
from __future__ import annotations

import io

import pytest

import jtorch


def _saved(obj) -> io.BytesIO:
    buf = io.BytesIO()
    jtorch.save(obj, buf)
    buf.seek(0)
    return buf


def test_map_location_to_cuda_and_back(cuda):
    x = jtorch.arange(6, dtype=jtorch.float32).reshape(2, 3)
    o = jtorch.load(_saved({"x": x, "v": x[:, 1:]}), map_location="cuda")
    assert o["x"].device.type == "cuda" and o["v"].device.type == "cuda"
    assert o["v"].untyped_storage() is o["x"].untyped_storage()
    assert o["v"].cpu().tolist() == [[1.0, 2.0], [4.0, 5.0]]
    again = jtorch.load(_saved(o))  # saved at cuda:0, loaded there
    assert again["x"].device.type == "cuda" and again["v"].cpu().tolist() == [[1.0, 2.0], [4.0, 5.0]]
    on_cpu = jtorch.load(_saved(o), map_location="cpu")
    assert on_cpu["x"].device == jtorch.device("cpu") and on_cpu["x"].tolist() == x.tolist()
    mapped = jtorch.load(_saved(o), map_location={"cuda:0": "cpu"})
    assert mapped["v"].device == jtorch.device("cpu")


def test_cuda_checkpoint_loads_in_torch_on_cpu(cuda):
    torch = pytest.importorskip("torch")
    x = jtorch.arange(4, dtype=jtorch.float64).to(cuda)
    o = torch.load(_saved({"x": x}), map_location="cpu")
    assert o["x"].tolist() == [0.0, 1.0, 2.0, 3.0] and o["x"].dtype == torch.float64
