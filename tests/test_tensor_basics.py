"""Tensor attributes and the Python protocols (len, iter, bool, int, float, complex, index,
format, repr) against torch's behaviour and error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
from jtorch.tensor import Tensor
from _torch_oracle import oracle_torch, type_name


def tensor(values, dtype=None) -> Tensor:
    return jtorch.from_dlpack(np.array(values, dtype=dtype))


def strided(t: Tensor, size, stride, offset=0) -> Tensor:
    return Tensor._make(t._storage, tuple(size), tuple(stride), offset, t.dtype, t.device, t._vc, t)


LAYOUTS = [((2, 3), (3, 1), 0), ((3, 2), (1, 3), 0), ((2, 2), (6, 2), 1), ((), (), 4), ((0, 3), (3, 1), 0),
           ((4, 1, 2), (0, 5, 1), 2), ((1,), (1,), 5)]


@pytest.mark.parametrize("size,stride,offset", LAYOUTS)
def test_metadata(size, stride, offset):
    base = tensor(np.arange(24, dtype=np.float32))
    t = strided(base, size, stride, offset)
    assert t.shape == size and t.size() == size and isinstance(t.shape, jtorch.Size)
    assert t.dim() == t.ndim == t.ndimension() == len(size)
    assert t.numel() == t.nelement() == int(np.prod(size))
    assert t.stride() == stride
    assert t.storage_offset() == offset
    assert t.dtype is jtorch.float32 and t.element_size() == 4
    assert t.device == jtorch.device("cpu") and t.is_cpu and not t.is_meta and not t.is_cuda
    assert t.data_ptr() == base.data_ptr() + 4 * offset
    for d in range(-t.dim(), t.dim()):
        assert t.size(d) == size[d] and t.stride(d) == stride[d]
    torch = oracle_torch()
    tt = torch.arange(24, dtype=torch.float32).as_strided(size, stride, offset)
    assert t.is_contiguous() == tt.is_contiguous()
    assert t.tolist() == tt.tolist()
    assert t.numpy().tolist() == tt.numpy().tolist()


def test_dim_errors_and_meta_metadata():
    t = tensor(np.zeros((2, 3)))
    with pytest.raises(IndexError,
                       match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"):
        t.size(2)
    m = t.to("meta")
    assert m.shape == (2, 3) and m.stride() == (3, 1) and m.is_meta and m.device.type == "meta"
    assert m.element_size() == 8 and m.numel() == 6 and m.is_contiguous()


@pytest.mark.parametrize("dtype,size", [(np.bool_, 1), (np.uint8, 1), (np.int8, 1), (np.int16, 2), (np.int32, 4),
                                        (np.int64, 8), (np.float16, 2), (np.float32, 4), (np.float64, 8),
                                        (np.complex64, 8), (np.complex128, 16)])
def test_element_size_and_dtype_flags(dtype, size):
    t = tensor(np.zeros(2, dtype))
    assert t.element_size() == size
    assert t.is_floating_point() == (np.dtype(dtype).kind == "f")
    assert t.is_complex() == (np.dtype(dtype).kind == "c")


def test_len_and_iter():
    t = tensor(np.arange(6).reshape(3, 2))
    assert len(t) == 3
    with pytest.raises(TypeError, match="^len\\(\\) of a 0-d tensor$"):
        len(tensor(1))
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        iter(tensor(1))
    if not hasattr(Tensor, "unbind"):
        pytest.skip("unbind (views) is not implemented yet")
    rows = [r.tolist() for r in t]
    assert rows == [[0, 1], [2, 3], [4, 5]]


# ---- Python numbers -----------------------------------------------------------------------------------
def test_bool():
    assert bool(tensor([3])) is True and bool(tensor(0.0)) is False and bool(tensor([[1j]])) is True
    assert bool(tensor(np.nan)) is True and bool(tensor(False)) is False
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(tensor([1, 2]))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        bool(tensor(np.zeros(0)))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(tensor(np.zeros(3)).to("meta"))
    assert jtorch.is_nonzero(tensor([2.0])) is True
    assert tensor([0]).is_nonzero() is False


def test_int_float_complex():
    assert int(tensor(2.7)) == 2 and int(tensor(-2.7)) == -2 and type(int(tensor(2.7))) is int
    assert int(tensor([[5]], np.int8)) == 5 and int(tensor(True)) == 1
    assert int(tensor(3 + 0j)) == 3
    assert int(tensor(2 ** 62)) == 2 ** 62
    assert float(tensor(2)) == 2.0 and type(float(tensor(2))) is float and float(tensor(True)) == 1.0
    assert float(tensor(1 + 0j)) == 1.0
    assert float(tensor(np.float16(1.5))) == 1.5
    assert complex(tensor(2)) == 2 + 0j and complex(tensor(1 - 1j)) == 1 - 1j and complex(tensor(True)) == 1 + 0j
    for fn in (int, float, complex):
        with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
            fn(tensor([1, 2]))
        with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
            fn(tensor(np.zeros(0)))
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        int(tensor(2 + 1j))
    with pytest.raises(RuntimeError, match="^value cannot be converted to type double without overflow$"):
        float(tensor(2 + 1j))
    with pytest.raises(ValueError, match="^cannot convert float NaN to integer$"):
        int(tensor(np.nan))
    with pytest.raises(OverflowError, match="^cannot convert float infinity to integer$"):
        int(tensor(np.inf))


def test_float_of_requires_grad_warns():
    t = tensor(1.0).requires_grad_()
    with pytest.warns(UserWarning, match="^Converting a tensor with requires_grad=True to a scalar may lead to "
                                         "unexpected behavior.\nConsider using tensor.detach\\(\\) first.$"):
        assert float(t) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(t) == 1 and t.item() == 1.0 and bool(t)


def test_index():
    lst = [10, 20, 30]
    assert lst[tensor(2)] == 30 and lst[tensor([1], np.uint8)] == 20 and lst[tensor(True)] == 20
    assert tensor([[1]], np.int64).__index__() == 1
    for bad in (tensor(1.0), tensor([1, 2]), tensor(1j), tensor(np.zeros(0, np.int64))):
        with pytest.raises(TypeError, match="^only integer tensors of a single element can be converted to an index$"):
            bad.__index__()
    assert range(10)[tensor(3):tensor(5)] == range(3, 5)


def test_format():
    assert f"{tensor(2.5):.2f}" == "2.50"
    assert format(tensor(3), "05d") == "00003"
    assert format(tensor(1.0).requires_grad_(), ".1f") == "1.0"
    assert format(tensor([1.0, 2.0]), "") == repr(tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="^unsupported format string passed to Tensor.__format__$"):
        format(tensor([1.0, 2.0]), ".2f")
    with pytest.raises(TypeError, match="^unsupported format string passed to Tensor.__format__$"):
        format(tensor([1.0]), ".2f")  # one element but not 0-dim: as torch
    m = tensor(1.0).to("meta")
    assert format(m, "") == repr(m)
    with pytest.raises(TypeError, match="^unsupported format string passed to Tensor.__format__$"):
        format(m, ".2f")


def test_repr_basics():
    assert repr(tensor([1.0, 2.0])) == "tensor([1., 2.], dtype=jtorch.float64)"
    assert repr(tensor([1, 2], np.int64)) == "tensor([1, 2])"
    assert repr(tensor(np.zeros((2, 3), np.float32)).to("meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(tensor(np.zeros(3, np.int8)).to("meta")) == "tensor(..., device='meta', size=(3,), dtype=jtorch.int8)"
    assert str(tensor(np.float32(1.5))) == "tensor(1.5000)"


def test_matches_torch_protocols():
    torch = oracle_torch()
    for v, dt in [(2.7, np.float32), (-3, np.int64), (True, np.bool_), (1.5, np.float16), (2 + 0j, np.complex64)]:
        j, t = tensor(v, dt), torch.tensor(np.array(v, dt))
        assert int(j) == int(t) and float(j) == float(t) and complex(j) == complex(t) and bool(j) == bool(t)
        assert j.item() == t.item() and type(j.item()) is type(t.item())
        assert format(j, "") == format(t, "").replace("torch.", "jtorch.")


def test_detach():
    a = tensor([1.0, 2.0]).requires_grad_()
    for d in (a.detach(), jtorch.detach(a), jtorch.ops.aten.detach(a)):
        assert not d.requires_grad and d._base is None and d.data_ptr() == a.data_ptr()
        assert d.grad_fn is None
    b = jtorch.detach(a)
    b.fill_(5)  # shares the version counter, as torch
    assert a._version == 1 and a.tolist() == [5.0, 5.0]
    m = jtorch.detach(a.detach().to("meta"))
    assert m.is_meta and m.shape == (2,)


@pytest.mark.parametrize("items, text", [
    ([1.5, 2], "torch.Size() takes an iterable of 'int' (item 0 is 'float')"),
    (["a"], "torch.Size() takes an iterable of 'int' (item 0 is 'str')"),
    ((2, None), "torch.Size() takes an iterable of 'int' (item 1 is 'NoneType')"),
])
def test_size_refuses_non_integers_as_torch(items, text):
    with pytest.raises(TypeError) as e:
        jtorch.Size(items)
    assert str(e.value) == text


def test_size_takes_items_through_index_as_torch():
    got = jtorch.Size([True, np.int64(3), jtorch.tensor(4), -1])
    assert got == (1, 3, 4, -1) and all(type(x) is int for x in got)
    with pytest.raises(TypeError, match=r"item 0 is 'Tensor'"):
        jtorch.Size([jtorch.tensor(3.0)])
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        jtorch.Size([2 ** 70])
    x = jtorch.ones(2, 3)
    assert type(x.shape) is jtorch.Size and x.shape[1:] == jtorch.Size([3]) and x.size() == (2, 3)
    try:
        import torch
    except ImportError:
        return
    for items in ([True, 2], [np.int64(3)], [1.5], ["a"], (2, None)):
        try:
            want = ("ok", tuple(torch.Size(items)))
        except Exception as e:  # noqa: BLE001 - the oracle's exception is the expectation
            want = (type_name(e), str(e))
        try:
            have = ("ok", tuple(jtorch.Size(items)))
        except Exception as e:  # noqa: BLE001
            have = (type_name(e), str(e))
        assert have == want


def test_H_and_mH_of_a_complex_tensor_conjugate():
    t = jtorch.tensor([[1 + 2j, 3 - 1j]])
    assert t.H.tolist() == [[1 - 2j], [3 + 1j]]
    assert t.mH.tolist() == [[1 - 2j], [3 + 1j]]
    b = jtorch.tensor([[[1 + 2j, 3 - 1j], [0.5j, 2 + 0j]]])
    assert b.mH.tolist() == [[[1 - 2j, -0.5j], [3 + 1j, 2 - 0j]]]
    r = jtorch.tensor([[1.0, 2.0]])
    assert r.H.tolist() == [[1.0], [2.0]] and r.mH.tolist() == [[1.0], [2.0]]
