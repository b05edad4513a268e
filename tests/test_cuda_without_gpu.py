"""`jtorch.cuda` on a machine without a GPU (and without the simulator), against torch's CPU build:
seeding and RNG-state calls are accepted silently (queued, as torch queues them), the counts and
statistics are empty, and what needs a device raises. jtorch keeps a CUDA backend, so its text for
a missing device is that of torch built with CUDA on a machine without a driver."""
from __future__ import annotations

import pytest

import jtorch
from _torch_oracle import oracle_torch

pytestmark = pytest.mark.skipif(jtorch.cuda.is_available(), reason="a GPU or the simulator is present")

NO_DRIVER = "^Found no NVIDIA driver on your system"

SAME = [
    lambda c, m: c.is_available(),
    lambda c, m: c.device_count(),
    lambda c, m: c.is_initialized(),
    lambda c, m: c.manual_seed(1),
    lambda c, m: c.manual_seed_all(1),
    lambda c, m: c.seed(),
    lambda c, m: c.seed_all(),
    lambda c, m: c.get_rng_state_all(),
    lambda c, m: c.set_rng_state(m.zeros(16, dtype=m.uint8)),
    lambda c, m: c.set_rng_state_all([m.zeros(16, dtype=m.uint8)]),
    lambda c, m: c.set_rng_state_all([]),
    lambda c, m: c.get_arch_list(),
    lambda c, m: c.is_bf16_supported(),
    lambda c, m: c.is_bf16_supported(including_emulation=False),
    lambda c, m: c.empty_cache(),
    lambda c, m: c.memory_allocated(),
    lambda c, m: c.max_memory_allocated(),
    lambda c, m: c.memory_reserved(),
    lambda c, m: c.max_memory_reserved(),
    lambda c, m: dict(c.memory_stats()),
    lambda c, m: c.set_device(-1),
    lambda c, m: c.stream(None).__enter__(),
    lambda c, m: c.StreamContext(None).__enter__(),
    lambda c, m: c.device_of(m.zeros(1)).__enter__(),
]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("i", range(len(SAME)))
def test_same_answer_as_torch(i):
    torch = oracle_torch()
    j = _outcome(lambda: SAME[i](jtorch.cuda, jtorch))
    t = _outcome(lambda: SAME[i](torch.cuda, torch))
    assert j == t


@pytest.mark.parametrize("call", [
    lambda c: c.memory_summary(),  # torch reads a statistic that is not there before initialisation
    lambda c: c.utilization(),  # needs nvidia-ml-py
    lambda c: c.set_device("cpu"),
])
def test_same_error_as_torch(call):
    torch = oracle_torch()
    j, t = _outcome(lambda: call(jtorch.cuda)), _outcome(lambda: call(torch.cuda))
    assert j[0] != "ok" and j == t


@pytest.mark.parametrize("call", [
    lambda c: c.initial_seed(),
    lambda c: c.get_rng_state(),
    lambda c: c.init(),
    lambda c: c.current_device(),
    lambda c: c.set_device(0),
    lambda c: c.get_device_name(),
    lambda c: c.get_device_capability(),
    lambda c: c.get_device_properties(0),
    lambda c: c.ipc_collect(),
    lambda c: c.synchronize(),
    lambda c: c.mem_get_info(),
    lambda c: c.current_stream(),
    lambda c: c.default_stream(),
    lambda c: c.Stream(),
    lambda c: c.Event().record(),
    lambda c: c.device(0).__enter__(),
    lambda c: jtorch.zeros(1, device="cuda"),
    lambda c: jtorch.Stream("cuda"),
])
def test_calls_that_need_a_device_raise(call):
    with pytest.raises(RuntimeError, match=NO_DRIVER):
        call(jtorch.cuda)
    assert not jtorch.cuda.is_initialized()


def test_queued_seeds_leave_the_cpu_generator_alone():
    jtorch.manual_seed(5)
    a = jtorch.rand(3)
    jtorch.manual_seed(5)
    jtorch.cuda.manual_seed_all(123)
    jtorch.cuda.seed_all()
    assert jtorch.equal(jtorch.rand(3), a)


def test_device_contexts_are_no_ops_without_an_index():
    with jtorch.cuda.device(-1), jtorch.cuda.device(None), jtorch.cuda.device_of(jtorch.zeros(1)):
        assert jtorch.zeros(1).device.type == "cpu"
    assert issubclass(jtorch.cuda.OutOfMemoryError, RuntimeError)
