"""CUDA interchange: __cuda_array_interface__ fields and errors (simulator), and zero-copy round
trips with CuPy and torch CUDA (GPU only: the simulator has no device memory to share)."""
from __future__ import annotations

import pytest

import jtorch
from jtorch.kernels.cuda import driver

GPU_ONLY = pytest.mark.skipif(driver.SIMULATED, reason="needs a real GPU: CuPy/torch CUDA memory")


def test_interface_fields():
    x = jtorch.arange(6, dtype=jtorch.float32).reshape(2, 3).cuda()
    cai = x.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["shape"] == (2, 3) and cai["strides"] is None
    assert cai["version"] == 3 and cai["stream"] is None
    assert cai["data"] == (x.data_ptr(), False)
    t = x.t().__cuda_array_interface__
    assert t["shape"] == (3, 2) and t["strides"] == (4, 12)
    s = x[:, 1:].__cuda_array_interface__
    assert s["data"][0] == x.data_ptr() + 4 and s["strides"] == (12, 4)
    assert jtorch.ones(2, dtype=jtorch.bool).cuda().__cuda_array_interface__["typestr"] == "|b1"
    assert jtorch.ones(2, dtype=jtorch.int64).cuda().__cuda_array_interface__["typestr"] == "<i8"


def test_interface_errors_as_torch():
    for dt, name in ((jtorch.float32, "Float"), (jtorch.float64, "Double"), (jtorch.int64, "Long")):
        with pytest.raises(AttributeError) as e:
            jtorch.ones(2, dtype=dt).__cuda_array_interface__
        assert str(e.value) == (f"Can't get __cuda_array_interface__ on non-CUDA tensor type: torch.{name}Tensor If "
                                "CUDA data is required use tensor.cuda() to copy tensor to device memory.")
    assert not hasattr(jtorch.ones(2), "__cuda_array_interface__")
    with pytest.raises(RuntimeError, match="requires grad"):
        jtorch.ones(2).cuda().requires_grad_().__cuda_array_interface__


def test_dlpack_device():
    assert tuple(jtorch.ones(2).cuda().__dlpack_device__()) == (2, 0)
    assert tuple(jtorch.ones(2).__dlpack_device__()) == (1, 0)


@pytest.mark.skipif(not driver.SIMULATED, reason="the simulator's error")
def test_simulator_cannot_share_memory():
    with pytest.raises(BufferError):
        jtorch.ones(2).cuda().__dlpack__()


@GPU_ONLY
def test_cupy_round_trip_zero_copy():
    cp = pytest.importorskip("cupy")
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    t = jtorch.as_tensor(a, device="cuda")
    assert t.data_ptr() == a.data.ptr and t.shape == (3, 4)
    a[0, 0] = 42
    assert t[0, 0].item() == 42  # shared memory
    tt = jtorch.as_tensor(a.T)
    assert tt._stride == (1, 4)
    b = cp.asarray(t)
    assert b.data.ptr == t.data_ptr()
    c = jtorch.tensor(a)  # a copy
    assert c.data_ptr() != a.data.ptr and c.cpu().numpy().tolist() == a.get().tolist()
    d = jtorch.from_dlpack(a)
    assert d.data_ptr() == a.data.ptr
    e = cp.from_dlpack(t)
    assert e.data.ptr == t.data_ptr()


@GPU_ONLY
def test_torch_cuda_round_trip_zero_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    x = torch.arange(6, dtype=torch.float64, device="cuda").reshape(2, 3)
    t = jtorch.as_tensor(x)
    assert t.data_ptr() == x.data_ptr() and t.device.type == "cuda"
    y = torch.as_tensor(t, device="cuda")
    assert y.data_ptr() == t.data_ptr()
    z = jtorch.from_dlpack(x)
    assert z.data_ptr() == x.data_ptr()
    w = torch.from_dlpack(t)
    assert w.data_ptr() == t.data_ptr()
