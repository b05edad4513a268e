"""The legacy tensor types (jtorch.FloatTensor, LongTensor, ...), Tensor.type() with them,
set_default_tensor_type and the legacy `t.new(...)`: construction from sizes, data, tensors and
storages, isinstance as torch answers it, and torch's error texts, against torch."""
from __future__ import annotations

import warnings

import pytest

import jtorch
from _torch_compare import source_matches_torch
from _torch_oracle import oracle_torch

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
         "ByteTensor", "BoolTensor"] + (["BFloat16Tensor"] if hasattr(jtorch, "bfloat16") else [])


CONSTRUCTION = [
    "torch.{T}([1, 0, 2])", "torch.{T}(2, 3).shape", "torch.{T}(torch.Size([2])).shape", "torch.{T}()",
    "torch.{T}(np.arange(3))", "torch.{T}([[1, 2], [3, 4]])", "torch.{T}(()).shape", "torch.{T}(0)",
    "torch.{T}(torch.ones(2).to(torch.{T}.dtype))", "torch.{T}.dtype", "bool(torch.{T}.is_cuda)", "bool(torch.{T}.is_sparse)",
    "torch.{T}.layout", "torch.{T}.__name__", "torch.{T}(2, device='cpu').shape",
    "torch.ones(2, dtype=torch.float64).type(torch.{T})", "torch.ones(2).type('torch.{T}')",
    "isinstance(torch.zeros(2).to(torch.{T}.dtype), torch.{T})",
]


@pytest.mark.parametrize("name", NAMES)
def test_legacy_types_construct_like_torch(name):
    torch = oracle_torch()
    for src in CONSTRUCTION:
        source_matches_torch(src.format(T=name), torch)


CASES = [
    # data conversion with the type's dtype (no inference) and its checks
    "torch.LongTensor([1.5, -2.7])", "torch.ByteTensor([1, 255])", "torch.BoolTensor([2, 0, -1])",
    "torch.CharTensor([300])", "torch.IntTensor([[1], [2, 3]])", "torch.HalfTensor([1e5])",
    # isinstance answers on dtype and device, never by class
    "isinstance(torch.ones(2), torch.FloatTensor)", "isinstance(torch.ones(2).double(), torch.FloatTensor)",
    "isinstance(torch.ones(2, device='meta'), torch.FloatTensor)", "isinstance(3, torch.FloatTensor)",
    "isinstance(torch.ones(2, requires_grad=True), torch.FloatTensor)",
    "isinstance(torch.nn.Parameter(torch.ones(2)), torch.FloatTensor)",
    "isinstance(torch.ones(2).long(), torch.LongTensor)",
    "torch.FloatTensor(torch.ones(2, requires_grad=True)).grad_fn.name()",
    # errors, literally
    "torch.FloatTensor('a')", "torch.FloatTensor(2.5)", "torch.FloatTensor([1, 2], dtype=torch.float)",
    "torch.FloatTensor(2, 3.0)", "torch.FloatTensor(-1)", "torch.FloatTensor(2, device='meta')",
    "torch.FloatTensor(torch.ones(2, dtype=torch.long))", "torch.LongTensor(torch.ones(2))",
    "torch.FloatTensor(torch.LongStorage(3))", "torch.FloatTensor(torch.FloatStorage([1, 2])).tolist()",
    "torch.FloatTensor(torch.UntypedStorage(8)).shape", "torch.Tensor(torch.LongStorage([1, 2]))",
    "torch.Tensor(torch.tensor([1, 2]))",
    # Tensor.type with the classes and their names
    "torch.ones(2).type()", "torch.ones(2).long().type()", "torch.ones(2).type(torch.LongTensor).type()",
    "torch.ones(2).type('torch.DoubleTensor')", "torch.typename(torch.ones(2).bool())", "torch.typename(3)",
    "torch.typename(torch.ones(2, device='meta'))", "torch.typename(torch.nn.Linear(1, 1))",
    "torch.typename(torch.Tensor)",
]


@pytest.mark.parametrize("src", CASES)
def test_legacy_cases_like_torch(src):
    source_matches_torch(src, oracle_torch())


NEW_CASES = [
    "torch.arange(4.).new()", "torch.arange(4.).new(2, 3).shape", "torch.arange(4.).new([1, 2])",
    "torch.arange(4).new([1.5, 2])", "torch.arange(4.).new(torch.ones(2))", "torch.arange(4.).new(np.arange(3))",
    "torch.arange(4.).new(torch.Size([2])).shape", "torch.arange(4.).new(2, device='cpu').shape",
    "torch.arange(4.).new(torch.arange(4.).untyped_storage())",
    "torch.arange(4.).new(torch.ones(2, dtype=torch.long))", "torch.arange(4.).new(2, device='meta')",
    "torch.arange(4.).to('meta').new(2)", "torch.arange(4.).to('meta').new([1, 2])",
    "torch.arange(4.).new(2, dtype=torch.long)", "torch.arange(4.).new(2.5)", "torch.FloatTensor([1], foo=1)",
    "torch.FloatTensor(2, 3, foo=1)", "torch.FloatTensor(torch.ones(2), device='cpu')",
]


@pytest.mark.parametrize("src", NEW_CASES)
def test_new_like_torch(src):
    source_matches_torch(src, oracle_torch())


def test_new_of_a_tensor_aliases_it():
    x = jtorch.arange(4.0)
    y = x.new(x)
    assert y.data_ptr() == x.data_ptr() and y is not x
    y[0] = 7.0
    assert x[0].item() == 7.0


def test_set_default_tensor_type_like_torch():
    torch = oracle_torch()
    for mod in (torch, jtorch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mod.set_default_tensor_type(mod.DoubleTensor)
        assert "set_default_tensor_type() is deprecated as of PyTorch 2.1" in str(w[0].message)
        try:
            assert str(mod.get_default_dtype()).endswith("float64")
            assert mod.Storage.__name__ == "DoubleStorage"
            assert str(mod.tensor([1.0]).dtype).endswith("float64") and str(mod.Tensor(2).dtype).endswith("float64")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod.set_default_tensor_type("torch.FloatTensor")
            assert str(mod.get_default_dtype()).endswith("float32") and mod.Storage.__name__ == "FloatStorage"
        finally:
            mod.set_default_dtype(mod.float32)
    for src in ("torch.set_default_tensor_type(torch.LongTensor)", "torch.set_default_tensor_type(3)",
                "torch.set_default_tensor_type(torch.Tensor)", "torch.set_default_tensor_type('foo')"):
        source_matches_torch(src, torch)
    assert jtorch.get_default_dtype() is jtorch.float32


def test_set_default_dtype_moves_storage():
    try:
        jtorch.set_default_dtype(jtorch.float64)
        assert jtorch.Storage is jtorch.DoubleStorage
    finally:
        jtorch.set_default_dtype(jtorch.float32)
    assert jtorch.Storage is jtorch.FloatStorage


def test_legacy_type_classes_are_one_table():
    for name in NAMES:
        cls = getattr(jtorch, name)
        assert type(cls).__name__ == "tensortype" and cls.__module__ == "jtorch"
        assert not issubclass(cls, jtorch.Tensor)
        t = cls(3)
        assert type(t) is jtorch.Tensor and t.dtype is cls.dtype and t.shape == (3,)
        assert t.type() == f"jtorch.{name}" and isinstance(t, cls)
        assert all(not isinstance(t, getattr(jtorch, other)) for other in NAMES if other != name)
