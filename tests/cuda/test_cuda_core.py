"""The CUDA backend's core: device storage and the caching allocator, moving tensors between host
and device, cross-device rules and texts, printing, and the `jtorch.cuda` module.

Compared with the CPU result of the same jtorch call (and NumPy); tiny sizes (tests/cuda/conftest.py).
"""
from __future__ import annotations

import gc

import numpy as np
import pytest

import jtorch
from jtorch.kernels.cuda import driver

DTYPES = [jtorch.float32, jtorch.float64, jtorch.float16, jtorch.int64, jtorch.int32, jtorch.int8, jtorch.uint8,
          jtorch.bool, jtorch.complex64]


def values(dtype: jtorch.dtype, shape: tuple, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype is jtorch.bool:
        return rng.random(shape) < 0.5
    if dtype.is_complex:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype.numpy)
    if dtype.is_floating_point:
        return rng.standard_normal(shape).astype(dtype.numpy)
    return rng.integers(0, 100, shape).astype(dtype.numpy)


# ---- moving data --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_keeps_values_dtype_and_layout(dtype):
    a = values(dtype, (3, 4))
    x = jtorch.from_numpy(a)
    c = x.to("cuda")
    assert c.device == jtorch.device("cuda", 0) and str(c.device) == "cuda:0" and c.is_cuda
    assert c.dtype is dtype and c.shape == (3, 4)
    np.testing.assert_array_equal(c.cpu().numpy(), a)
    t = x.t().cuda()  # a transposed (non-overlapping, dense) tensor keeps its strides, as torch's to()
    assert t.stride() == x.t().stride()
    np.testing.assert_array_equal(t.cpu().numpy(), a.T)


def test_to_with_dtype_and_device_and_aliasing():
    x = jtorch.arange(6.0).reshape(2, 3)
    c = x.to("cuda", jtorch.float64)
    assert c.dtype is jtorch.float64 and c.is_cuda
    assert c.to("cuda") is c and c.to("cuda:0") is c and c.cuda() is c  # no copy when nothing changes
    assert c.to("cuda", copy=True) is not c
    h = c.to(jtorch.int32)
    assert h.is_cuda and h.dtype is jtorch.int32
    np.testing.assert_array_equal(h.cpu().numpy(), np.arange(6).reshape(2, 3))
    d = c.to("cpu", jtorch.float16)
    assert d.device.type == "cpu" and d.dtype is jtorch.float16
    assert jtorch.empty(2, device=jtorch.device("cuda")).device == jtorch.device("cuda:0")
    y = jtorch.ones(2, 3, device="cuda")
    assert x.to(y).is_cuda  # to(other) takes other's device and dtype


@pytest.mark.parametrize("src_dtype,dst_dtype", [(jtorch.float64, jtorch.int32), (jtorch.int64, jtorch.float32),
                                                 (jtorch.bool, jtorch.float32), (jtorch.float32, jtorch.bool),
                                                 (jtorch.complex64, jtorch.complex128)], ids=str)
def test_copy_across_devices_converts_dtype(src_dtype, dst_dtype):
    a = values(src_dtype, (2, 5), seed=1)
    src = jtorch.from_numpy(a)
    dst = jtorch.zeros(2, 5, dtype=dst_dtype, device="cuda")
    dst.copy_(src)
    np.testing.assert_array_equal(dst.cpu().numpy(), jtorch.from_numpy(a).to(dst_dtype).numpy())
    back = jtorch.zeros(2, 5, dtype=dst_dtype)
    back.copy_(dst)  # device -> host
    np.testing.assert_array_equal(back.numpy(), dst.cpu().numpy())
    strided = jtorch.zeros(5, 2, dtype=dst_dtype, device="cuda").t()  # into a transposed CUDA view
    strided.copy_(src)
    np.testing.assert_array_equal(strided.cpu().numpy(), back.numpy())
    bcast = jtorch.zeros(3, 5, dtype=dst_dtype, device="cuda")
    bcast.copy_(src[0])  # broadcast source
    np.testing.assert_array_equal(bcast.cpu().numpy(), np.broadcast_to(back.numpy()[0], (3, 5)))


def test_factories_take_cuda_devices():
    for dev in ("cuda", "cuda:0", jtorch.device("cuda"), jtorch.device("cuda", 0)):
        z = jtorch.zeros(2, 3, device=dev)
        assert z.is_cuda and (z.cpu().numpy() == 0).all()
    o = jtorch.ones(4, dtype=jtorch.int64, device="cuda")
    np.testing.assert_array_equal(o.cpu().numpy(), np.ones(4, np.int64))
    f = jtorch.full((2, 2), 2.5, device="cuda")
    np.testing.assert_array_equal(f.cpu().numpy(), np.full((2, 2), 2.5, np.float32))
    t = jtorch.tensor([[1, 2], [3, 4]], device="cuda")
    assert t.is_cuda and t.dtype is jtorch.int64 and t.tolist() == [[1, 2], [3, 4]]
    e = jtorch.empty_like(t)
    assert e.is_cuda and e.shape == t.shape
    assert jtorch.zeros_like(jtorch.ones(3), device="cuda").is_cuda
    assert t.new_ones(2).is_cuda


def test_item_tolist_and_printing():
    t = jtorch.tensor([1.5, -2.0], device="cuda")
    assert t[0].item() == 1.5 and t.tolist() == [1.5, -2.0]
    assert repr(t) == "tensor([ 1.5000, -2.0000], device='cuda:0')"
    assert repr(jtorch.tensor(3, device="cuda")) == "tensor(3, device='cuda:0')"
    h = jtorch.tensor([1.0], device="cuda", dtype=jtorch.float16)
    assert repr(h).endswith("device='cuda:0', dtype=jtorch.float16)")
    assert t.type() == "jtorch.cuda.FloatTensor"  # jtorch names its own module, as CPU tensors do
    assert bool(jtorch.tensor([1], device="cuda")) and float(t[1]) == -2.0


def test_numpy_refused_with_torchs_text():
    with pytest.raises(TypeError, match=r"^can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu\(\) "
                                        r"to copy the tensor to host memory first.$"):
        jtorch.ones(2, device="cuda").numpy()


def test_mixing_devices_refused_except_cpu_scalars():
    c = jtorch.ones(3, device="cuda")
    h = jtorch.ones(3)
    msg = r"^Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!$"
    with pytest.raises(RuntimeError, match=msg):
        c + h
    with pytest.raises(RuntimeError, match=msg):
        jtorch.mul(c, h, out=jtorch.empty(3, device="cuda"))
    with pytest.raises(RuntimeError, match=msg):  # one CPU element expanded is no CPU scalar
        c * jtorch.tensor(2.0).expand(3)
    r = c * jtorch.tensor(4.0)  # a CPU 0-dim tensor is a scalar: torch allows it
    assert r.is_cuda and r.tolist() == [4.0, 4.0, 4.0]
    r = jtorch.tensor(2.0) + c
    assert r.is_cuda and r.tolist() == [3.0, 3.0, 3.0]


def test_in_place_and_views_share_device_memory():
    c = jtorch.zeros(2, 3, device="cuda")
    v = c[1]
    v.add_(5)
    c.t()[0].fill_(1)
    np.testing.assert_array_equal(c.cpu().numpy(), [[1, 0, 0], [1, 5, 5]])
    assert v.data_ptr() == c.data_ptr() + 3 * 4
    f = c.view(jtorch.int32)  # a reinterpretation shares the block
    assert f.is_cuda and f.data_ptr() == c.data_ptr()
    assert f[0, 0].item() == np.float32(1).view(np.int32)


def test_deep_copy_and_clone():
    import copy

    c = jtorch.arange(4.0).cuda()
    for d in (copy.deepcopy(c), c.clone()):
        assert d.is_cuda and d.data_ptr() != c.data_ptr()
        np.testing.assert_array_equal(d.cpu().numpy(), c.cpu().numpy())


# ---- the caching allocator ------------------------------------------------------------------------
def test_caching_allocator_reuses_blocks_and_counts():
    jtorch.cuda.empty_cache()
    gc.collect()
    base = jtorch.cuda.memory_allocated()
    x = jtorch.empty(1000, device="cuda")  # 4000 bytes -> one 4096-byte block
    assert jtorch.cuda.memory_allocated() - base == 4096
    assert jtorch.cuda.max_memory_allocated() >= jtorch.cuda.memory_allocated()
    ptr = x.data_ptr()
    reserved = jtorch.cuda.memory_reserved()
    del x
    gc.collect()
    assert jtorch.cuda.memory_allocated() == base
    assert jtorch.cuda.memory_reserved() == reserved  # the block stays in the pool
    y = jtorch.empty(1000, device="cuda")
    assert y.data_ptr() == ptr  # and is handed out again
    del y
    gc.collect()
    jtorch.cuda.empty_cache()
    assert jtorch.cuda.memory_reserved() == jtorch.cuda.memory_allocated()  # the pool went back to the driver
    jtorch.cuda.reset_peak_memory_stats()
    assert jtorch.cuda.max_memory_allocated() == jtorch.cuda.memory_allocated()


def test_a_view_keeps_its_block_alive():
    x = jtorch.arange(8.0).cuda()
    v = x[2:4]
    del x
    gc.collect()
    jtorch.empty(8, device="cuda").fill_(-1)  # would reuse the block if the view had not kept it
    assert v.tolist() == [2.0, 3.0]


# ---- jtorch.cuda ---------------------------------------------------------------------------------
def test_cuda_module():
    assert jtorch.cuda.is_available() and jtorch.cuda.device_count() >= 1
    assert jtorch.cuda.current_device() == 0
    jtorch.cuda.set_device(0)
    jtorch.cuda.set_device("cuda:0")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        jtorch.cuda.set_device(jtorch.cuda.device_count())
    assert isinstance(jtorch.cuda.get_device_name(), str)
    jtorch.cuda.synchronize()


def test_events_time_and_streams_run_work():
    start, end = jtorch.cuda.Event(enable_timing=True), jtorch.cuda.Event(enable_timing=True)
    start.record()
    x = jtorch.ones(16, device="cuda") * 3
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        jtorch.cuda.Event().elapsed_time(end)
    s = jtorch.cuda.Stream()
    with jtorch.cuda.stream(s):
        assert jtorch.cuda.current_stream() is s
        y = x + 1
    s.synchronize()
    assert y.tolist() == [4.0] * 16


def test_manual_seed_is_accepted_and_recorded():
    jtorch.cuda.manual_seed(123)
    assert jtorch.cuda.initial_seed() == 123
    jtorch.manual_seed(7)  # torch.manual_seed seeds CUDA too
    assert jtorch.cuda.initial_seed() == 7


def test_keys_and_dispatch_tables():
    t = jtorch.ones(2, device="cuda")
    ks = jtorch._C._dispatch_keys(t)
    assert ks.has(jtorch.keyset.DispatchKey.CUDA) and ks.has(jtorch.keyset.DispatchKey.AutogradCUDA)
    assert jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor", "CUDA")
    assert driver.is_available()


def test_blocks_freed_in_a_garbage_cycle_come_back_usable(cuda):
    """Storages that die in a reference cycle return their blocks to the pool still allocated (on a
    GPU, numba's owning pointer must not be finalised with the cycle): the next tensors of the same
    size reuse them and read back what they were given."""
    import gc

    for _ in range(3):
        a = jtorch.arange(1000, dtype=jtorch.float32, device=cuda)
        cycle = [a]
        cycle.append(cycle)
        del a, cycle
        gc.collect()
        b = jtorch.arange(1000, dtype=jtorch.float32, device=cuda) * 2
        assert b.cpu().tolist() == [2.0 * i for i in range(1000)]
        assert (b[10:20] + 1).cpu().tolist() == [2.0 * i + 1 for i in range(10, 20)]
