"""jtorch.cuda with a device (a GPU or the simulator): RNG state round trip, device properties,
memory statistics, default stream and stream contexts, device contexts; deterministic mode's
index paths (the same sums as the CPU's, whatever the order of duplicates) and its alerts."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch


@pytest.fixture(autouse=True)
def _off():
    yield
    jtorch.use_deterministic_algorithms(False)


def test_rng_state_round_trip():
    jtorch.cuda.manual_seed_all(3)
    state = jtorch.cuda.get_rng_state()
    assert state.dtype is jtorch.uint8 and state.device.type == "cpu"
    a = jtorch.rand(5, device="cuda").tolist()
    jtorch.cuda.set_rng_state(state)
    assert jtorch.rand(5, device="cuda").tolist() == a
    assert [s.tolist() for s in jtorch.cuda.get_rng_state_all()] == [jtorch.cuda.get_rng_state().tolist()]
    jtorch.cuda.set_rng_state_all([state])
    assert jtorch.rand(5, device="cuda").tolist() == a
    jtorch.cuda.seed()
    jtorch.cuda.seed_all()
    assert jtorch.cuda.initial_seed() != 3 or jtorch.rand(5, device="cuda").tolist() != a


def test_device_properties_and_capability():
    jtorch.cuda.init()
    assert jtorch.cuda.is_initialized()
    p = jtorch.cuda.get_device_properties(0)
    assert (p.major, p.minor) == jtorch.cuda.get_device_capability() and p.major >= 1
    assert p.name == jtorch.cuda.get_device_name(0) and p.total_memory > 0 and p.multi_processor_count >= 1
    assert jtorch.cuda.get_arch_list() == [f"sm_{p.major}{p.minor}"]
    assert jtorch.cuda.is_bf16_supported() is True
    assert jtorch.cuda.is_bf16_supported(including_emulation=False) == (p.major >= 8)
    with pytest.raises(AssertionError, match="^Invalid device id$"):
        jtorch.cuda.get_device_properties(jtorch.cuda.device_count())
    free, total = jtorch.cuda.mem_get_info()
    assert 0 <= free <= total
    jtorch.cuda.ipc_collect()


def test_memory_statistics():
    jtorch.cuda.empty_cache()
    x = jtorch.empty(1024, device="cuda")
    stats = jtorch.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == jtorch.cuda.memory_allocated() >= 4096
    assert jtorch.cuda.max_memory_reserved() >= jtorch.cuda.memory_reserved() >= 4096
    assert list(stats) == sorted(stats)
    assert "Allocated memory" in jtorch.cuda.memory_summary()
    del x


def test_streams_and_device_contexts():
    d = jtorch.cuda.default_stream()
    assert jtorch.cuda.current_stream().device == d.device
    s = jtorch.cuda.Stream()
    with jtorch.cuda.StreamContext(s):
        assert jtorch.cuda.current_stream() is s
        y = jtorch.ones(4, device="cuda") + 1
    s.synchronize()
    assert y.tolist() == [2.0] * 4
    with jtorch.cuda.device(0), jtorch.cuda.device_of(y):
        assert jtorch.cuda.current_device() == 0
    g = jtorch.Stream("cuda")
    assert g.device_type == "cuda" and g.query() in (True, False)


def test_deterministic_index_accumulation_matches_cpu():
    jtorch.use_deterministic_algorithms(True)
    idx = np.array([0, 2, 2, 2, 1, 0], dtype=np.int64)
    vals = np.array([0.1, 1e8, -1e8, 0.3, 2.5, 1e-3], dtype=np.float32)
    want = jtorch.zeros(3).index_put_((jtorch.from_numpy(idx),), jtorch.from_numpy(vals), accumulate=True)
    got = jtorch.zeros(3, device="cuda").index_put_((jtorch.from_numpy(idx).cuda(),), jtorch.from_numpy(vals).cuda(),
                                                    accumulate=True)
    assert got.cpu().tolist() == want.tolist()
    got = jtorch.zeros(3, device="cuda").scatter_add_(0, jtorch.from_numpy(idx).cuda(), jtorch.from_numpy(vals).cuda())
    assert got.cpu().tolist() == jtorch.zeros(3).scatter_add_(0, jtorch.from_numpy(idx), jtorch.from_numpy(vals)).tolist()
    # plain stores with duplicate indices: the last value wins, as on the CPU
    got = jtorch.zeros(3, device="cuda").index_put_((jtorch.from_numpy(idx).cuda(),), jtorch.from_numpy(vals).cuda())
    assert got.cpu().tolist() == jtorch.zeros(3).index_put_((jtorch.from_numpy(idx),), jtorch.from_numpy(vals)).tolist()


def test_deterministic_alerts_on_cuda():
    jtorch.use_deterministic_algorithms(True)
    x = jtorch.ones(4, device="cuda")
    with pytest.raises(RuntimeError, match="^_histc_cuda does not have a deterministic implementation"):
        jtorch.histc(x)
    with pytest.raises(RuntimeError, match="^put_ does not have a deterministic implementation"):
        x.put_(jtorch.tensor([0], device="cuda"), jtorch.ones(1, device="cuda"), accumulate=True)
    jtorch.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match="^_histc_cuda does not have a deterministic implementation"):
        jtorch.histc(x)


def test_an_allocation_the_device_cannot_hold():
    with pytest.raises(jtorch.OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate 37252\.90 GiB\."):
        jtorch.empty(10**13, device="cuda")
    assert jtorch.cuda.memory_stats()["num_ooms"] >= 1
    assert issubclass(jtorch.cuda.OutOfMemoryError, RuntimeError)


def test_deterministic_mode_fills_empty_cuda_tensors():
    jtorch.use_deterministic_algorithms(True)
    assert jtorch.isnan(jtorch.empty(3, device="cuda")).all().item()
    assert jtorch.empty(2, dtype=jtorch.int32, device="cuda").tolist() == [2**31 - 1] * 2


def test_deterministic_max_pool_backward_matches_cpu():
    jtorch.use_deterministic_algorithms(True)
    x = np.random.default_rng(0).standard_normal((2, 2, 5, 5)).astype(np.float32)
    x[0, 0] = 1.0  # ties: every window picks its first maximum, overlapping windows share it
    grads = []
    for dev in ("cpu", "cuda"):
        t = jtorch.from_numpy(x).to(dev).requires_grad_()
        (jtorch.nn.functional.max_pool2d(t, 3, 1) * 1.5).sum().backward()
        grads.append(t.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
