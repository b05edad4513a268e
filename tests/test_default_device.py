"""The default dtype and device: set_default_dtype/get_default_dtype (what Python floats and factories
become), set_default_device/get_default_device and `with jtorch.device(...)` (factories and
tensor()/as_tensor() without device= use it; ops on existing tensors do not), per thread."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch


@pytest.fixture(autouse=True)
def _restore():
    yield
    jtorch.set_default_dtype(jtorch.float32)
    jtorch.set_default_device(None)


def devices(lib):
    """Where each kind of construction lands under a meta default device (same code for torch)."""
    x = lib.ones(2, device="cpu")
    made = {
        "ones": lambda: lib.ones(3), "empty": lambda: lib.empty(2), "zeros_cpu": lambda: lib.zeros(2, device="cpu"),
        "arange": lambda: lib.arange(3), "randn": lambda: lib.randn(2), "full": lambda: lib.full((2,), 1.0),
        "eye": lambda: lib.eye(2), "linspace": lambda: lib.linspace(0, 1, 3), "tensor": lambda: lib.tensor([1.0]),
        "tensor0d": lambda: lib.tensor(1.0), "as_tensor": lambda: lib.as_tensor([1.0]),
        "as_tensor_t": lambda: lib.as_tensor(x), "from_numpy": lambda: lib.from_numpy(np.ones(2)),
        "legacy": lambda: lib.Tensor(2), "ones_like": lambda: lib.ones_like(x), "new_ones": lambda: x.new_ones(2),
        "scalar_tensor": lambda: lib.scalar_tensor(1), "empty_strided": lambda: lib.empty_strided((2,), (1,)),
        "op": lambda: x + 1, "sum": lambda: x.sum(), "index": lambda: x[lib.tensor([0], device="cpu")],
        "eq_numpy": lambda: x == np.ones(2),
    }
    return {k: f().device.type for k, f in made.items()}


def test_context_manager_matches_torch():
    torch = oracle_torch()
    with jtorch.device("meta"):
        got = devices(jtorch)
        assert jtorch.get_default_device() == jtorch.device("meta")
    with torch.device("meta"):
        want = devices(torch)
    assert got == want
    assert got["ones"] == "meta" and got["op"] == "cpu"
    assert jtorch.get_default_device() == jtorch.device("cpu")


def test_set_default_device_and_nesting():
    assert repr(jtorch.get_default_device()) == "device(type='cpu')"
    jtorch.set_default_device("meta")
    assert jtorch.get_default_device().type == "meta" and jtorch.ones(1).device.type == "meta"
    x = jtorch.zeros(2, 3)
    assert x.is_meta if hasattr(x, "is_meta") else x.device.type == "meta"
    with jtorch.device("cpu"):
        assert jtorch.ones(1).device.type == "cpu"
        with jtorch.device("meta"):
            assert jtorch.ones(1).device.type == "meta"
        assert jtorch.get_default_device().type == "cpu"
    assert jtorch.get_default_device().type == "meta"
    jtorch.set_default_device(None)
    assert jtorch.get_default_device().type == "cpu" and jtorch.ones(1).device.type == "cpu"
    jtorch.set_default_device("meta")
    jtorch.set_default_device("cpu")
    assert jtorch.ones(1).device.type == "cpu"


def test_default_device_is_per_thread():
    jtorch.set_default_device("meta")
    seen = []
    t = threading.Thread(target=lambda: seen.append((jtorch.get_default_device().type, jtorch.ones(1).device.type)))
    t.start()
    t.join()
    assert seen == [("cpu", "cpu")] and jtorch.ones(1).device.type == "meta"


def test_set_default_device_bad_string():
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, meta"):
        jtorch.set_default_device("foo")


def dtypes_under(lib, d):
    lib.set_default_dtype(d)
    try:
        return [str(t.dtype).split(".")[-1] for t in (
            lib.tensor([1.0]), lib.tensor([1j]) if d is not lib.float16 else lib.tensor([1.0]), lib.arange(0.0, 2.0),
            lib.arange(2), lib.ones(1), lib.tensor(1.5), lib.full((1,), 1.5), lib.linspace(0, 1, 2), lib.randn(1),
            lib.ones(1, dtype=lib.float32) * 1.5)] + [str(lib.get_default_dtype()).split(".")[-1]]
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_default_dtype_matches_torch(name):
    torch = oracle_torch()
    assert dtypes_under(jtorch, getattr(jtorch, name)) == dtypes_under(torch, getattr(torch, name))


def test_set_default_dtype_errors_match_torch():
    torch = oracle_torch()
    for arg in ("int64", "complex64", "bool", "float"):
        errs = []
        for lib in (jtorch, torch):
            with pytest.raises(TypeError) as e:
                lib.set_default_dtype(getattr(lib, arg) if arg != "float" else "float")
            errs.append(str(e.value))
        assert errs[0] == errs[1]
    assert jtorch.get_default_dtype() is jtorch.float32
