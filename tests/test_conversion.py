"""to / _to_copy / contiguous / type / dtype methods, numpy() and __array__, DLPack with NumPy and
torch, item / tolist and the meta device, against NumPy and torch (when installed)."""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import jtorch
from jtorch.tensor import Tensor
from _torch_oracle import live_torch, oracle_torch

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
             np.complex64, np.complex128]
J_DTYPES = [jtorch.bool, jtorch.uint8, jtorch.int8, jtorch.int16, jtorch.int32, jtorch.int64, jtorch.float16,
            jtorch.float32, jtorch.float64, jtorch.complex64, jtorch.complex128]
METHODS = {"bool": jtorch.bool, "byte": jtorch.uint8, "char": jtorch.int8, "short": jtorch.int16, "int": jtorch.int32,
           "long": jtorch.int64, "half": jtorch.float16, "float": jtorch.float32, "double": jtorch.float64,
           "cfloat": jtorch.complex64, "cdouble": jtorch.complex128}


def tensor(values, dtype=None) -> Tensor:
    return jtorch.from_dlpack(np.array(values, dtype=dtype))


def strided(t: Tensor, size, stride, offset=0) -> Tensor:
    return Tensor._make(t._storage, tuple(size), tuple(stride), offset, t.dtype, t.device, t._vc, t)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Casting complex values to real")
        yield


# ---- to ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("jd", J_DTYPES, ids=[d.name for d in J_DTYPES])
def test_to_dtype_values(jd):
    vals = np.array([[0, 1, 2], [3, 100, 7]], dtype=np.int64)
    t = tensor(vals)
    r = t.to(jd)
    assert r.dtype is jd and r.shape == (2, 3)
    np.testing.assert_array_equal(r.numpy(), vals.astype(jd.numpy))
    assert t.to(jd, copy=True) is not t
    assert (t.to(jd) is t) == (jd is jtorch.int64)


def test_to_returns_self_when_nothing_changes():
    t = tensor(np.ones((2, 3), np.float32))
    assert t.to(jtorch.float32) is t
    assert t.to("cpu") is t
    assert t.to(jtorch.device("cpu")) is t
    assert t.to(t) is t
    assert t.to() is t
    assert t.to(None) is t
    assert t.to(device="cpu", dtype=jtorch.float32) is t
    assert t.to(memory_format=jtorch.contiguous_format) is t
    assert t.to(memory_format=jtorch.preserve_format) is t
    assert t.to("cpu", jtorch.float32) is t
    assert t.cpu() is t
    assert t.float() is t
    assert t.type(jtorch.float32) is t
    assert t.contiguous() is t
    for kw in ({"copy": True}, {"dtype": jtorch.float32, "copy": True}):
        c = t.to(**kw)
        assert c is not t and c.data_ptr() != t.data_ptr()
        np.testing.assert_array_equal(c.numpy(), t.numpy())


def test_to_overloads_and_parser():
    t = tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert t.to(jtorch.float64).dtype is jtorch.float64
    assert t.to("cpu", jtorch.float64).dtype is jtorch.float64
    assert t.to("cpu", jtorch.float64, True, True).dtype is jtorch.float64
    assert t.to(jtorch.float64, True, True).dtype is jtorch.float64
    assert t.to(None, jtorch.float64).dtype is jtorch.float64
    assert t.to(jtorch.float64, non_blocking=True).dtype is jtorch.float64
    assert t.to(dtype=jtorch.int32, device="cpu").dtype is jtorch.int32
    assert t.to(float).dtype is jtorch.float64  # Python types name dtypes as in torch
    assert t.to(int).dtype is jtorch.int64
    assert t.to(complex).dtype is jtorch.complex128
    assert t.to(tensor(np.zeros(1, np.int8))).dtype is jtorch.int8
    m = t.to(tensor(np.zeros(1, np.int8)).to("meta"))
    assert m.device.type == "meta" and m.dtype is jtorch.int8
    with pytest.raises(TypeError) as e:
        t.to(jtorch.float64, jtorch.float32)
    msg = str(e.value)
    assert msg.startswith("to() received an invalid combination of arguments - got (jtorch.dtype, jtorch.dtype), but "
                          "expected one of:\n * (Device device = None, jtorch.dtype dtype = None, bool non_blocking = "
                          "False, bool copy = False, *, jtorch.memory_format memory_format = None)\n")
    with pytest.raises(TypeError, match="got \\(jtorch.dtype, str\\)"):
        t.to(jtorch.float64, "cpu")
    with pytest.raises(TypeError, match="got \\(other=Tensor, \\)|got \\(other=Tensor\\)"):
        t.to(other=t)
    with pytest.raises(RuntimeError, match="^Expected one of cpu"):
        t.to("float64")
    with pytest.raises(RuntimeError, match="^Found no NVIDIA driver on your system"):
        t.to("cuda")
    with pytest.raises(RuntimeError, match="^Found no NVIDIA driver on your system"):
        t.cuda()


def test_to_aten_overloads_through_the_dispatcher():
    t = tensor(np.arange(4, dtype=np.int32))
    aten = jtorch.ops.aten
    assert aten.to.dtype(t, jtorch.float64).dtype is jtorch.float64
    assert aten.to.dtype(t, jtorch.int32) is t
    assert aten.to.device(t, jtorch.device("meta"), jtorch.int32).device.type == "meta"
    assert aten.to.other(t, tensor([1.0])).dtype is jtorch.float64
    assert aten.to.dtype_layout(t, dtype=jtorch.int16).dtype is jtorch.int16
    assert aten.to.dtype_layout(t) is t
    c = aten._to_copy(t)
    assert c is not t and c.dtype is jtorch.int32
    np.testing.assert_array_equal(c.numpy(), [0, 1, 2, 3])
    assert not hasattr(jtorch, "_to_copy") and not hasattr(jtorch, "_local_scalar_dense")
    with pytest.raises(RuntimeError, match="doesn't support converting to a different layout"):
        aten._to_copy(t, layout=object())


def test_to_memory_formats_and_strides():
    m = tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    tr = strided(m, (4, 3), (1, 4))
    assert tr.to(jtorch.float64).stride() == (1, 4)  # dense: strides kept
    assert tr.to(jtorch.float64, memory_format=jtorch.contiguous_format).stride() == (3, 1)
    sl = strided(m, (3, 2), (4, 2))
    assert sl.to(jtorch.float64).stride() == (2, 1)
    ex = strided(tensor([1.0, 2.0, 3.0], np.float32), (2, 3), (0, 1))
    assert ex.to(jtorch.float64).stride() == (3, 1)
    np.testing.assert_array_equal(ex.to(jtorch.float64).numpy(), [[1, 2, 3], [1, 2, 3]])
    sl_t = strided(tensor(np.zeros((4, 3), np.float32)), (3, 2), (1, 6))  # t()[:, ::2]
    assert sl_t.to(jtorch.float64).stride() == (1, 3)  # infer_dense_strides keeps the order
    x = tensor(np.zeros((2, 3, 4, 5), np.float32))
    cl = x.to(memory_format=jtorch.channels_last)
    assert cl.stride() == (60, 1, 15, 3) and cl.is_contiguous(memory_format=jtorch.channels_last)
    assert cl.to(memory_format=jtorch.channels_last) is cl
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        m.to("cpu", jtorch.float64, copy=True, memory_format=jtorch.channels_last)


def test_to_matches_torch_strides():
    torch = oracle_torch()
    cases = [((3, 4), (4, 1)), ((4, 3), (1, 4)), ((3, 2), (4, 2)), ((2, 3), (0, 1)), ((3, 2), (1, 6)),
             ((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 3, 2, 5), (60, 1, 30, 3)), ((2, 1, 3), (3, 7, 1))]
    for size, stride in cases:
        n = 1 + sum((s - 1) * st for s, st in zip(size, stride))
        j = strided(tensor(np.zeros(n, np.float32)), size, stride)
        t = torch.zeros(n).as_strided(size, stride)
        assert j.to(jtorch.float64).stride() == t.to(torch.float64).stride(), (size, stride)
        assert j.contiguous().stride() == t.contiguous().stride()
        if len(size) == 4:
            assert (j.contiguous(memory_format=jtorch.channels_last).stride()
                    == t.contiguous(memory_format=torch.channels_last).stride())


@pytest.mark.parametrize("name", list(METHODS))
def test_dtype_methods(name):
    vals = np.array([0.0, 1.0, 2.5, -3.0], dtype=np.float64)
    t = tensor(vals)
    r = getattr(t, name)()
    assert r.dtype is METHODS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(r.numpy(), vals.astype(METHODS[name].numpy))
    assert getattr(r, name)() is r
    assert getattr(t, name)(memory_format=jtorch.preserve_format).dtype is METHODS[name]


def test_dtype_method_conversion_wraps_like_torch():
    np.testing.assert_array_equal(tensor([300, -1]).byte().numpy(), [44, 255])
    torch = oracle_torch()
    for name in METHODS:
        j = getattr(tensor([0.0, 1.0, 2.5, -3.0]), name)()
        t = getattr(torch.tensor([0.0, 1.0, 2.5, -3.0], dtype=torch.float64), name)()
        np.testing.assert_array_equal(j.numpy(), t.numpy())


def test_type_method():
    t = tensor(np.ones((2, 3), np.float32))
    assert t.type() == "jtorch.FloatTensor"
    names = {jtorch.bool: "Bool", jtorch.uint8: "Byte", jtorch.int8: "Char", jtorch.int16: "Short",
             jtorch.int32: "Int", jtorch.int64: "Long", jtorch.float16: "Half", jtorch.float64: "Double",
             jtorch.complex64: "ComplexFloat", jtorch.complex128: "ComplexDouble"}
    for d, n in names.items():
        assert t.to(d).type() == f"jtorch.{n}Tensor"
        assert t.type(f"torch.{n}Tensor").dtype is d
        assert t.type(f"jtorch.{n}Tensor").dtype is d
    assert t.to("meta").type() == "jtorch.meta.FloatTensor"
    assert t.type(jtorch.float64).dtype is jtorch.float64
    assert t.type(dtype=jtorch.int32).dtype is jtorch.int32
    assert t.type(jtorch.float32) is t
    assert t.type("torch.FloatTensor") is t
    assert t.type(Tensor).dtype is jtorch.float32
    assert t.type("jtorch.meta.DoubleTensor").device.type == "meta"
    with pytest.raises(ValueError, match="^invalid type: 'foo'$"):
        t.type("foo")
    with pytest.raises(TypeError, match="^dtype must be a type, str, or dtype object$"):
        t.type(5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'copy'"):
        t.type(jtorch.float32, copy=True)
    with pytest.raises(RuntimeError, match="^Found no NVIDIA driver on your system"):
        t.type("torch.cuda.FloatTensor")


# ---- contiguous -------------------------------------------------------------------------------------------
def test_contiguous():
    m = tensor(np.arange(12.0).reshape(3, 4))
    assert m.contiguous() is m
    tr = strided(m, (4, 3), (1, 4))
    c = tr.contiguous()
    assert c is not tr and c.stride() == (3, 1) and c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), np.arange(12.0).reshape(3, 4).T)
    assert c.contiguous() is c
    with pytest.raises(RuntimeError, match="^preserve memory format is unsupported by the contiguous operator$"):
        tr.contiguous(memory_format=jtorch.preserve_format)
    assert m.contiguous(memory_format=jtorch.preserve_format) is m
    x = tensor(np.arange(120.0).reshape(2, 3, 4, 5))
    cl = x.contiguous(memory_format=jtorch.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(cl.numpy(), x.numpy())
    assert cl.contiguous(memory_format=jtorch.channels_last) is cl
    with pytest.raises(TypeError):
        m.contiguous(jtorch.channels_last)  # keyword-only, as in torch
    meta = tr.to("meta")
    assert meta.contiguous().stride() == (3, 1)


def test_conversions_on_meta():
    t = tensor(np.ones((2, 3), np.float32))
    m = t.to("meta")
    assert m.device == jtorch.device("meta") and m.shape == (2, 3) and m.dtype is jtorch.float32
    assert m.untyped_storage().data_ptr() == 0
    assert m.to("meta") is m
    assert m.to(jtorch.float64).dtype is jtorch.float64
    assert m.double().device.type == "meta"
    assert m.clone().device.type == "meta"
    assert "device='meta'" in repr(m)
    for fn in (lambda: m.cpu(), lambda: m.to("cpu"), lambda: m.tolist(), lambda: m.numpy(force=True)):
        with pytest.raises(NotImplementedError, match="^Cannot copy out of meta tensor; no data!$"):
            fn()
    with pytest.raises(TypeError, match=r"^can't convert meta device type tensor to numpy. Use Tensor.cpu\(\) to copy "
                                        r"the tensor to host memory first.$"):
        m.numpy()
    with pytest.raises(RuntimeError, match="^a Tensor with 6 elements cannot be converted to Scalar$"):
        m.item()
    s = tensor(1.0).to("meta")
    with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
        s.item()
    for fn in (int, float, bool, complex):
        with pytest.raises(RuntimeError, match="^Tensor.item\\(\\) cannot be called on meta tensors$"):
            fn(s)


# ---- item / tolist ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=[np.dtype(d).name for d in NP_DTYPES])
def test_item_and_tolist_types(np_dtype):
    vals = np.array([[1, 0], [3, 1]]).astype(np_dtype)
    t = tensor(vals)
    want = vals.tolist()
    assert t.tolist() == want
    assert all(type(x) is type(y) for x, y in zip(t.tolist()[0], want[0]))
    it = strided(t, (), (), 2).item()
    assert it == vals[1, 0] and type(it) is type(vals[1, 0].item())
    assert tensor(vals[1, 0]).tolist() == vals[1, 0].item()


def test_item_and_tolist_match_torch():
    torch = oracle_torch()
    assert tensor(np.float32(1.1)).item() == torch.tensor(1.1, dtype=torch.float32).item()
    assert tensor(np.array([1.1], np.float32)).tolist() == torch.tensor([1.1]).tolist()
    assert tensor(np.array([1.5], np.float16)).tolist() == torch.tensor([1.5], dtype=torch.half).tolist()
    assert tensor(np.zeros((2, 0))).tolist() == torch.zeros(2, 0).tolist() == [[], []]
    assert tensor(np.zeros((0, 3))).tolist() == []
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted to Scalar$"):
        tensor([1, 2]).item()
    with pytest.raises(RuntimeError, match="^a Tensor with 0 elements cannot be converted to Scalar$"):
        tensor(np.zeros(0)).item()
    assert tensor([[5]]).item() == 5


def test_local_scalar_dense_op():
    t = tensor([4.5])
    assert jtorch.ops.aten._local_scalar_dense(t) == 4.5
    assert jtorch.ops.aten.item(t) == 4.5


# ---- numpy() and __array__ --------------------------------------------------------------------------------------
def test_numpy_shares_memory_both_ways():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = jtorch.from_dlpack(arr)
    n = t.numpy()
    assert np.shares_memory(n, arr)
    n[0, 0] = 42
    assert t.tolist()[0][0] == 42
    t.fill_(3)
    assert (arr == 3).all() and (n == 3).all()
    tr = strided(t, (3, 2), (1, 3))
    assert tr.numpy().strides == (4, 12)
    assert np.shares_memory(tr.numpy(), arr)
    off = strided(t, (2,), (1,), 4)
    off.numpy()[:] = [7, 8]
    np.testing.assert_array_equal(arr.ravel(), [3, 3, 3, 3, 7, 8])
    # the array keeps the storage alive
    u = tensor(np.arange(4.0))
    view = u.numpy()
    del u
    np.testing.assert_array_equal(view, [0, 1, 2, 3])


def test_numpy_dtypes_and_empty():
    for np_dtype in NP_DTYPES:
        vals = np.array([1, 0, 1]).astype(np_dtype)
        assert tensor(vals).numpy().dtype == np.dtype(np_dtype)
    e = strided(tensor(np.arange(5.0)), (0,), (1,), 5)
    assert e.numpy().shape == (0,)


def test_numpy_requires_grad_and_force():
    t = tensor([1.0, 2.0]).requires_grad_()
    with pytest.raises(RuntimeError) as e:
        t.numpy()
    assert str(e.value) == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    np.testing.assert_array_equal(t.numpy(force=True), [1, 2])
    np.testing.assert_array_equal(t.detach().numpy(), [1, 2])
    with pytest.raises(TypeError):
        tensor([1.0]).numpy(True)  # force is keyword-only
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        np.asarray(t)
    assert t.tolist() == [1.0, 2.0]


def test_array_protocol():
    arr = np.arange(4, dtype=np.int32)
    t = jtorch.from_dlpack(arr)
    a = np.asarray(t)
    assert a.dtype == np.int32 and np.shares_memory(a, arr)
    assert np.shares_memory(np.array(t, copy=False), arr)
    c = np.array(t)
    assert not np.shares_memory(c, arr)
    f = np.asarray(t, dtype=np.float64)
    assert f.dtype == np.float64 and not np.shares_memory(f, arr)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.array(t, dtype=np.float64, copy=False)
    assert t.__array__(np.int32, copy=False).base is not None
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        np.asarray(t.to("meta"))


# ---- DLPack ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=[np.dtype(d).name for d in NP_DTYPES])
def test_dlpack_roundtrip_numpy(np_dtype):
    arr = np.array([[1, 0, 2], [3, 1, 0]]).astype(np_dtype)
    t = jtorch.from_dlpack(arr)
    assert t.dtype is jtorch.dtypes.from_numpy_dtype(np_dtype) and t.shape == (2, 3) and t.stride() == (3, 1)
    assert t.data_ptr() == arr.__array_interface__["data"][0]
    back = np.from_dlpack(t)
    assert back.dtype == arr.dtype and np.shares_memory(back, arr)
    np.testing.assert_array_equal(back, arr)
    tr = strided(t, (3, 2), (1, 3), 0)
    back_t = np.from_dlpack(tr)
    np.testing.assert_array_equal(back_t, arr.T)
    assert np.shares_memory(back_t, arr)


def test_dlpack_views_and_lifetime():
    arr = np.arange(24.0).reshape(4, 6)[1:, ::2]  # offset and strides
    t = jtorch.from_dlpack(arr)
    assert t.shape == (3, 3) and t.stride() == (6, 2)
    np.testing.assert_array_equal(t.numpy(), arr)
    t.fill_(-1)
    assert (arr == -1).all()
    j = tensor(np.arange(5.0))
    cap_arr = np.from_dlpack(j)
    del j
    np.testing.assert_array_equal(cap_arr, np.arange(5.0))
    assert jtorch.from_dlpack(np.array(2.5)).item() == 2.5
    with pytest.raises(TypeError, match="expected an object with __dlpack__"):
        jtorch.from_dlpack(np.float64(2.5))
    assert jtorch.from_dlpack(np.zeros((0, 3))).shape == (0, 3)
    # a bare capsule (the legacy protocol)
    cap = np.arange(3.0).__dlpack__()
    assert jtorch.from_dlpack(cap).tolist() == [0.0, 1.0, 2.0]
    # a jtorch tensor into jtorch
    k = tensor([1, 2, 3])
    k2 = jtorch.from_dlpack(k)
    k2.fill_(9)
    assert k.tolist() == [9, 9, 9]


def test_dlpack_device_and_errors():
    t = tensor([1.0])
    dev = t.__dlpack_device__()
    assert dev == (1, 0) and dev[0].name == "kDLCPU"
    with pytest.raises(ValueError, match="^Unknown device type meta for Dlpack$"):
        t.to("meta").__dlpack_device__()
    with pytest.raises(BufferError, match="^Cannot pack tensors on meta$"):
        t.to("meta").__dlpack__()
    with pytest.raises(BufferError, match="^Can't export tensors that require gradient, use tensor.detach\\(\\)$"):
        tensor([1.0]).requires_grad_().__dlpack__()
    with pytest.raises(TypeError, match="^stream must be ``int`` or ``none``$"):
        t.__dlpack__(stream="x")
    with pytest.raises(AssertionError, match="^stream should be None on cpu.$"):
        t.__dlpack__(stream=3)
    cap = t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(cap)


def test_dlpack_with_torch():
    torch = live_torch("torch reads jtorch's memory through DLPack")
    # jtorch -> torch
    j = tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = torch.from_dlpack(j)
    assert t.dtype == torch.float32 and t.shape == (2, 3) and t.data_ptr() == j.data_ptr()
    t.add_(1)
    assert j.tolist() == [[1, 2, 3], [4, 5, 6]]
    jt = strided(j, (3, 2), (1, 3))
    tt = torch.from_dlpack(jt)
    assert tt.stride() == (1, 3) and tt.tolist() == jt.tolist()
    # torch -> jtorch
    src = torch.arange(12, dtype=torch.int64).reshape(3, 4).t()
    k = jtorch.from_dlpack(src)
    assert k.dtype is jtorch.int64 and k.shape == (4, 3) and k.stride() == (1, 4)
    assert k.data_ptr() == src.data_ptr()
    k.fill_(5)
    assert (src == 5).all()
    for td, jd in [(torch.bool, jtorch.bool), (torch.float16, jtorch.float16), (torch.complex64, jtorch.complex64),
                   (torch.uint8, jtorch.uint8)]:
        x = torch.ones(3, dtype=td)
        y = jtorch.from_dlpack(x)
        assert y.dtype is jd and y.data_ptr() == x.data_ptr()
        z = torch.from_dlpack(y)
        assert z.dtype == td and z.data_ptr() == x.data_ptr()


# ---- pickling and deepcopy ------------------------------------------------------------------------------------
def test_pickle_and_deepcopy():
    t = strided(tensor(np.arange(6.0, dtype=np.float32)), (3, 2), (1, 3))
    p = pickle.loads(pickle.dumps(t))
    assert p.tolist() == t.tolist() and p.dtype is t.dtype and p.stride() == (1, 3)
    m = pickle.loads(pickle.dumps(t.to("meta")))
    assert m.device.type == "meta" and m.shape == (3, 2)
    g = pickle.loads(pickle.dumps(tensor([1.0]).requires_grad_()))
    assert g.requires_grad
    base = tensor(np.arange(4.0))
    view = strided(base, (2,), (2,), 1)
    b2, v2 = copy.deepcopy([base, view])
    assert b2.untyped_storage() is v2.untyped_storage() and b2.untyped_storage() is not base.untyped_storage()
    v2.fill_(0)
    assert b2.tolist() == [0, 0, 2, 0] and base.tolist() == [0, 1, 2, 3]
    assert v2.stride() == (2,) and v2.storage_offset() == 1
    d = copy.deepcopy(tensor([1.0]).requires_grad_())
    assert d.requires_grad
    mm = copy.deepcopy(base.to("meta"))
    assert mm.device.type == "meta"
