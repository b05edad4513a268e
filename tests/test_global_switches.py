"""Global switches and small torch-namespace names against torch: deterministic algorithms (the
switch, its debug-mode spellings, the alerts and the filling of empty tensors), the float32 matmul
precision, warn_always, inter-op threads, the constants and tensor predicates, channels_last_3d,
empty_permuted, the device-neutral Stream/Event, get_device_module, and the allocator's texts for
an allocation the machine cannot hold."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import jtorch
from jtorch import global_context, warn
from jtorch.kernels.cpu import threads
from _torch_oracle import oracle_torch


@pytest.fixture(autouse=True)
def _restore():
    """Every test leaves the switches as it found them."""
    yield
    global_context.set_deterministic_algorithms(False)
    global_context.context.float32_matmul_precision = "highest"
    warn.set_warn_always(False)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # the type and text are what is compared
        return (type(e).__name__, str(e))


def _same_error(fn_j, fn_t) -> None:
    j, t = _outcome(fn_j), _outcome(fn_t)
    assert j[0] != "ok" and (j[0], j[1]) == (t[0], t[1])


# ---- deterministic algorithms ----------------------------------------------------------------------
def test_use_deterministic_algorithms_state_and_debug_mode():
    torch = oracle_torch()
    try:
        for mod in (jtorch, torch):
            mod.use_deterministic_algorithms(True)
        assert jtorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
        assert jtorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        for mode in ("warn", 0, "error", 1, "default", 2):
            for mod in (jtorch, torch):
                mod.set_deterministic_debug_mode(mode)
            assert jtorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode(), mode
            assert (jtorch.is_deterministic_algorithms_warn_only_enabled()
                    == torch.is_deterministic_algorithms_warn_only_enabled())
            assert jtorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
    finally:
        torch.use_deterministic_algorithms(False)


@pytest.mark.parametrize("call", [
    lambda m: m.use_deterministic_algorithms(1),
    lambda m: m.use_deterministic_algorithms("x"),
    lambda m: m.use_deterministic_algorithms(None),
    lambda m: m.use_deterministic_algorithms(True, warn_only=1),
    lambda m: m.set_deterministic_debug_mode(3),
    lambda m: m.set_deterministic_debug_mode("loud"),
    lambda m: m.set_deterministic_debug_mode(1.0),
    lambda m: m.set_float32_matmul_precision(1),
    lambda m: m.set_warn_always(1),
])
def test_switch_argument_errors(call):
    torch = oracle_torch()
    try:
        _same_error(lambda: call(jtorch), lambda: call(torch))
    finally:
        torch.use_deterministic_algorithms(False)


def test_put_alerts_as_torch_and_warn_only_warns():
    torch = oracle_torch()
    try:
        for mod in (jtorch, torch):
            mod.use_deterministic_algorithms(True)
        def put(m, accumulate):
            return m.zeros(5).put_(m.tensor([1, 1]), m.tensor([1.0, 2.0]), accumulate=accumulate)
        _same_error(lambda: put(jtorch, False), lambda: put(torch, False))
        assert put(jtorch, True).tolist() == put(torch, True).tolist()  # deterministic on the CPU
        for mod in (jtorch, torch):
            mod.use_deterministic_algorithms(True, warn_only=True)
        texts = []
        for mod in (jtorch, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                put(mod, False)
            texts.append([str(x.message).split(" (Triggered internally")[0] for x in w])
        assert texts[0] == texts[1] and len(texts[0]) == 1
    finally:
        torch.use_deterministic_algorithms(False)


FILL_CASES = [
    lambda m: m.empty(3),
    lambda m: m.empty(2, 2, dtype=m.int8),
    lambda m: m.empty(3, dtype=m.int64),
    lambda m: m.empty(2, dtype=m.bool),
    lambda m: m.empty(2, dtype=m.complex64),
    lambda m: m.empty(2, dtype=m.float16),
    lambda m: m.zeros(2).new_empty(3),
    lambda m: m.empty_like(m.zeros(2, dtype=m.int32)),
    lambda m: m.empty_strided((2, 2), (1, 2)),
    lambda m: m.zeros(4),
]


@pytest.mark.parametrize("i", range(len(FILL_CASES)))
def test_deterministic_mode_fills_empty_tensors(i):
    torch = oracle_torch()
    try:
        for mod in (jtorch, torch):
            mod.use_deterministic_algorithms(True)
        j, t = FILL_CASES[i](jtorch), FILL_CASES[i](torch)
        assert str(j) == str(t).replace("torch.", "jtorch.")
    finally:
        torch.use_deterministic_algorithms(False)


def test_alert_text_names_the_operation():
    global_context.set_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match=r"^my_op does not have a deterministic implementation, but you set "
                                           r"'torch.use_deterministic_algorithms\(True\)'"):
        global_context.alert_not_deterministic("my_op")
    global_context.set_deterministic_algorithms(False)
    global_context.alert_not_deterministic("my_op")  # off: nothing


# ---- float32 matmul precision, warn_always -------------------------------------------------------------
def test_float32_matmul_precision():
    torch = oracle_torch()
    saved = torch.get_float32_matmul_precision()
    try:
        assert jtorch.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
        for value in ("medium", "high", "bad", "HIGH", "highest"):
            msgs = []
            for mod in (jtorch, torch):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    mod.set_float32_matmul_precision(value)
                msgs.append([str(x.message).split(" (Triggered internally")[0] for x in w])
            assert msgs[0] == msgs[1], value
            assert jtorch.get_float32_matmul_precision() == torch.get_float32_matmul_precision(), value
    finally:
        torch.set_float32_matmul_precision(saved)


def test_warn_always_repeats_once_only_warnings():
    torch = oracle_torch()
    try:
        for b in (True, False):
            for mod in (jtorch, torch):
                mod.set_warn_always(b)
            assert jtorch.is_warn_always_enabled() == torch.is_warn_always_enabled() == b
        jtorch.set_warn_always(True)
        warn.warned.discard("a once-only warning")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            warn.warn_once("a once-only warning")
            warn.warn_once("a once-only warning")
        assert len(w) == 2
        jtorch.set_warn_always(False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            warn.warn_once("a once-only warning")
        assert not w
    finally:
        torch.set_warn_always(False)


# ---- inter-op threads ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0, -1, 1.5, True, 2**40, "2"])
def test_set_num_interop_threads_argument_errors(value):
    torch = oracle_torch()
    _same_error(lambda: jtorch.set_num_interop_threads(value), lambda: torch.set_num_interop_threads(value))


def test_set_num_interop_threads_once(monkeypatch):
    torch = oracle_torch()
    monkeypatch.setattr(threads, "_interop", None)
    assert jtorch.get_num_interop_threads() == torch.get_num_interop_threads()
    n = torch.get_num_interop_threads()
    jtorch.set_num_interop_threads(n)
    assert jtorch.get_num_interop_threads() == n
    _outcome(lambda: torch.set_num_interop_threads(n))  # the first call may have been made already
    _same_error(lambda: jtorch.set_num_interop_threads(n), lambda: torch.set_num_interop_threads(n))


# ---- constants and predicates -------------------------------------------------------------------
def test_constants():
    torch = oracle_torch()
    for name in ("pi", "e", "inf"):
        assert getattr(jtorch, name) == getattr(torch, name) and type(getattr(jtorch, name)) is float
    assert math.isnan(jtorch.nan) and math.isnan(torch.nan)
    assert jtorch.newaxis is None
    x = np.arange(6.0).reshape(2, 3)
    assert jtorch.tensor(x)[:, jtorch.newaxis].shape == tuple(torch.tensor(x)[:, torch.newaxis].shape)


PREDICATE_INPUTS = [
    lambda m: m.zeros(2, 3),
    lambda m: m.zeros(2, dtype=m.int32),
    lambda m: m.zeros((), dtype=m.complex64),
    lambda m: m.zeros(0, 4, dtype=m.float16),
    lambda m: m.ones(3, 1, device="meta"),
]


@pytest.mark.parametrize("i", range(len(PREDICATE_INPUTS)))
def test_tensor_predicates(i):
    torch = oracle_torch()
    j, t = PREDICATE_INPUTS[i](jtorch), PREDICATE_INPUTS[i](torch)
    for name in ("is_floating_point", "is_complex", "numel"):
        assert getattr(jtorch, name)(j) == getattr(torch, name)(t), name
        assert getattr(j, name)() == getattr(t, name)(), name
    assert jtorch.is_tensor(j) and torch.is_tensor(t)
    for other in (lambda m: m.zeros(2, 3), lambda m: m.zeros(0, 4), lambda m: m.zeros(3, 1)):
        assert jtorch.is_same_size(j, other(jtorch)) == torch.is_same_size(t, other(torch))
        assert j.is_same_size(other(jtorch)) == t.is_same_size(other(torch))


@pytest.mark.parametrize("call", [
    lambda m: m.is_floating_point(1),
    lambda m: m.is_complex("x"),
    lambda m: m.numel(2.0),
    lambda m: m.is_same_size(m.zeros(1), 1),
])
def test_predicate_argument_errors(call):
    torch = oracle_torch()
    _same_error(lambda: call(jtorch), lambda: call(torch))


def test_is_tensor_of_non_tensors():
    torch = oracle_torch()
    for obj in (1, [1.0], np.zeros(2), None):
        assert jtorch.is_tensor(obj) == torch.is_tensor(obj)


# ---- channels_last_3d and empty_permuted ------------------------------------------------------------
CL3D_CASES = [
    lambda m: m.zeros(2, 3, 4, 5, 6).contiguous(memory_format=m.channels_last_3d),
    lambda m: m.empty(2, 3, 4, 5, 6, memory_format=m.channels_last_3d),
    lambda m: m.zeros(2, 3, 4, 5, 6).to(memory_format=m.channels_last_3d),
    lambda m: m.empty_like(m.zeros(2, 3, 4, 5, 6).contiguous(memory_format=m.channels_last_3d)),
    lambda m: m.zeros(2, 3, 4, 5, 6).contiguous(memory_format=m.channels_last_3d) + 1,
    lambda m: m.zeros(2, 3, 1, 5, 6).contiguous(memory_format=m.channels_last_3d).clone(),
    lambda m: m.zeros(2, 3, 4, 5, 6),
]


@pytest.mark.parametrize("i", range(len(CL3D_CASES)))
def test_channels_last_3d(i):
    torch = oracle_torch()
    j, t = CL3D_CASES[i](jtorch), CL3D_CASES[i](torch)
    assert j.stride() == t.stride()
    assert j.is_contiguous(memory_format=jtorch.channels_last_3d) == t.is_contiguous(
        memory_format=torch.channels_last_3d)
    assert j.is_contiguous() == t.is_contiguous()
    assert repr(jtorch.channels_last_3d) == repr(torch.channels_last_3d).replace("torch.", "jtorch.")


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, 3, 4, 5).contiguous(memory_format=m.channels_last_3d),
    lambda m: m.empty(2, 3, 4, 5, memory_format=m.channels_last_3d),
])
def test_channels_last_3d_needs_rank_5(call):
    torch = oracle_torch()
    _same_error(lambda: call(jtorch), lambda: call(torch))


@pytest.mark.parametrize("size,layout", [((2, 3, 5, 7), (0, 2, 3, 1)), ((2, 0, 3), (2, 1, 0)), ((4,), (0,)),
                                         ((), ()), ((2, 3), (1, 0))])
def test_empty_permuted_strides(size, layout):
    torch = oracle_torch()
    j = jtorch.empty_permuted(size, layout, dtype=jtorch.int32)
    t = torch.empty_permuted(size, layout, dtype=torch.int32)
    assert (j.shape, j.stride(), str(j.dtype)) == (tuple(t.shape), t.stride(), str(t.dtype).replace("torch", "jtorch"))


@pytest.mark.parametrize("size,layout", [((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (0, 2)), ((2, 3), (1, -1))])
def test_empty_permuted_errors(size, layout):
    torch = oracle_torch()
    _same_error(lambda: jtorch.empty_permuted(size, layout), lambda: torch.empty_permuted(size, layout))


# ---- Stream, Event, get_device_module ------------------------------------------------------------
def test_cpu_stream_and_event():
    torch = oracle_torch()
    for make in (lambda m: m.Stream(), lambda m: m.Stream("cpu"), lambda m: m.Stream(priority=-1),
                 lambda m: m.Event(), lambda m: m.Event(enable_timing=True)):
        assert repr(make(jtorch)) == repr(make(torch)).replace("torch.", "jtorch.")
    sj, st = jtorch.Stream(), torch.Stream()
    assert sj.query() == st.query() and str(sj.device) == str(st.device)
    assert sj == jtorch.Stream()
    _same_error(lambda: jtorch.Event().record(), lambda: torch.Event().record())
    _same_error(lambda: jtorch.Event().elapsed_time(jtorch.Event()), lambda: torch.Event().elapsed_time(torch.Event()))
    _same_error(lambda: jtorch.Stream(1), lambda: torch.Stream(1))


def test_get_device_module():
    torch = oracle_torch()
    assert jtorch.get_device_module("cuda") is jtorch.cuda
    assert jtorch.get_device_module() is jtorch.cpu
    assert jtorch.get_device_module().current_device() == torch.get_device_module().current_device() == "cpu"
    assert jtorch.get_device_module(jtorch.device("cpu")).device_count() == torch.get_device_module("cpu").device_count()
    for bad in (jtorch.device("meta"), 1, "meta"):
        tbad = torch.device("meta") if isinstance(bad, jtorch.device) else bad
        _same_error(lambda: jtorch.get_device_module(bad), lambda: torch.get_device_module(tbad))


def test_out_of_memory_error_class():
    torch = oracle_torch()
    assert jtorch.OutOfMemoryError is jtorch.cuda.OutOfMemoryError
    assert jtorch.OutOfMemoryError.__mro__[1:] == (RuntimeError, Exception, BaseException, object)
    assert repr(jtorch.OutOfMemoryError("x")) == repr(torch.OutOfMemoryError("x"))


# ---- allocations the machine cannot hold -------------------------------------------------------------
ALLOC_CASES = [
    lambda m: m.empty(10**13),
    lambda m: m.zeros(10**13, dtype=m.float64),
    lambda m: m.ones(10**12, 10),
    lambda m: m.full((10**13,), 1.0),
    lambda m: m.zeros(3).new_empty(10**13),
    lambda m: m.zeros(3).new_zeros(10**13),
    lambda m: m.empty(2**63 - 1, dtype=m.int8),
    lambda m: m.empty(2**62),
    lambda m: m.empty(2**40, 2**40),
    lambda m: m.empty_strided((2**62,), (1,)),
    lambda m: m.empty(2**62, device="meta"),
    lambda m: m.arange(10**13),
]


@pytest.mark.parametrize("i", range(len(ALLOC_CASES)))
def test_allocation_failure_texts(i):
    torch = oracle_torch()
    _same_error(lambda: ALLOC_CASES[i](jtorch), lambda: ALLOC_CASES[i](torch))


def test_fill_uninitialized_memory_switch():
    torch = oracle_torch()
    import jtorch.utils.deterministic as jd
    td = torch.utils.deterministic
    try:
        assert jd.fill_uninitialized_memory == td.fill_uninitialized_memory
        _same_error(lambda: setattr(jd, "fill_uninitialized_memory", 1),
                    lambda: setattr(td, "fill_uninitialized_memory", 1))
        jd.fill_uninitialized_memory = False
        jtorch.use_deterministic_algorithms(True)
        assert jd.fill_uninitialized_memory is False and not global_context.fill_empty()
        jd.fill_uninitialized_memory = True
        assert jtorch.isnan(jtorch.empty(4)).all()
    finally:
        jd.fill_uninitialized_memory = True
        td.fill_uninitialized_memory = True
