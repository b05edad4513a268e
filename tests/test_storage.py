"""Storages from Python (UntypedStorage, TypedStorage, FloatStorage, ...) and the Tensor methods
over them: storage(), untyped_storage(), set_, resize_, resize_as_, share_memory_ (seen by a child
process), pin_memory, new, nbytes/itemsize, is_signed, get_device, type_as, as_subclass, apply_/map_,
asarray and frombuffer, against torch (recorded) and with the sharing checked through memory."""
from __future__ import annotations

import array
import copy
import multiprocessing
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from _torch_compare import source_matches_torch
from _torch_oracle import oracle_torch


def assert_same(src: str, torch) -> None:
    """src (statements; the last line an expression) gives the same with jtorch as with torch, tensors with
    their storage offsets."""
    source_matches_torch(src, torch, env={"array": array, "pickle": pickle, "copy": copy}, statements=True,
                         storage_offset=True)


STORAGE_CASES = [
    # a tensor's storages: sizes, elements, printing, the views' one storage
    "t = torch.arange(6.).reshape(2, 3); s = t.storage(); (s.size(), len(s), s.nbytes(), s.element_size(), s[1], "
    "s[-1], s.tolist())",
    "t = torch.arange(6.).reshape(2, 3); str(t.storage())",
    "t = torch.arange(6.).reshape(2, 3); str(t[1].storage_type())",
    "t = torch.tensor([1, 2], dtype=torch.uint8); u = t.untyped_storage(); (u.size(), u.nbytes(), u.element_size(), "
    "u.tolist(), u[1], u[-1])",
    "str(torch.tensor([1, 2], dtype=torch.int16).untyped_storage())",
    "str(torch.tensor([True]).storage())", "str(torch.tensor([1.5], dtype=torch.half).storage())",
    "str(torch.tensor([1.5j]).storage())", "str(torch.tensor([]).storage())", "str(torch.UntypedStorage(0))",
    "t = torch.arange(6.); u = t[2:].untyped_storage(); u[0] = 1; t",
    "t = torch.arange(6.); s = t[2:].storage(); s[0] = 9.0; t",
    "t = torch.arange(6.); t[2:].storage().size()",
    "t = torch.arange(6.); t.storage() is t.storage()",
    "t = torch.arange(3.); s = t.storage(); s[0] = 100.0; t",
    "t = torch.arange(3.); t.untyped_storage()[0] = 7; t",
    "t = torch.arange(3.); s = t.storage(); s.fill_(2); t",
    "t = torch.ones(3); t.storage()[3]", "t = torch.ones(3); t.storage()[1:2]", "t = torch.ones(3); t.storage()['a']",
    "t = torch.ones(3); t.storage().__setitem__(0, 'a')", "torch.ByteStorage(2).__setitem__(0, 300)",
    "u = torch.tensor([1, 2, 3], dtype=torch.uint8).untyped_storage(); u[1:].tolist()",
    "torch.tensor([1, 2, 3], dtype=torch.uint8).untyped_storage()[::2]",
    "torch.UntypedStorage(3)[5]",
    # construction
    "torch.FloatStorage([1, 2, 3]).tolist()", "torch.LongStorage([1.5, 2]).tolist()", "torch.LongStorage('a')",
    "torch.FloatStorage(2.5)", "torch.TypedStorage(2.5)", "torch.FloatStorage(3).size()",
    "torch.TypedStorage(3).dtype", "torch.TypedStorage(3, dtype=torch.float64).dtype", "str(torch.TypedStorage())",
    "torch.UntypedStorage([1, 2, 300]).tolist()", "torch.UntypedStorage('a')", "torch.UntypedStorage(2.5)",
    "torch.UntypedStorage(3).size()", "str(torch.UntypedStorage(2, device='meta'))",
    "str(torch.TypedStorage(2, dtype=torch.float, device='meta'))",
    "torch.FloatStorage(wrap_storage=torch.ones(2).untyped_storage()).tolist()",
    "torch.UntypedStorage(3).fill_(7).tolist()", "torch.FloatStorage(3).fill_(7).tolist()",
    "torch.tensor([1, 2]).storage().float().tolist()", "torch.tensor([1, 2]).storage().type()",
    "torch.UntypedStorage(2).type()", "torch.tensor([1, 2], dtype=torch.uint8).untyped_storage().clone().tolist()",
    "torch.UntypedStorage(2).copy_(torch.tensor([1, 2], dtype=torch.uint8).untyped_storage()).tolist()",
    "list(torch.tensor([1, 2], dtype=torch.uint8).untyped_storage())", "list(torch.tensor([1, 2]).storage())",
    "u = torch.UntypedStorage(2); u.resize_(5); u.size()", "s = torch.FloatStorage(2); s.resize_(5); s.size()",
    # classes and isinstance
    "isinstance(torch.ones(2).storage(), torch.FloatStorage)", "isinstance(torch.ones(2).storage(), torch.LongStorage)",
    "isinstance(torch.ones(2).storage(), torch.TypedStorage)", "isinstance(torch.FloatStorage(2), torch.TypedStorage)",
    "isinstance(torch.ones(2).untyped_storage(), torch.FloatStorage)",
    "isinstance(torch.ones(2).untyped_storage(), torch.StorageBase)",
    "isinstance(torch.ones(2).storage(), torch.StorageBase)", "isinstance(torch.FloatStorage(2), torch.Storage)",
    "torch.is_storage(torch.ones(2).storage())", "torch.is_storage(torch.ones(2).untyped_storage())",
    "torch.is_storage(torch.ones(2))", "torch.is_storage(torch.FloatStorage(1))",
    "torch.typename(torch.ones(2).storage())", "torch.typename(torch.ones(2).untyped_storage())",
    "' '.join(torch.typename(torch.ones(1, dtype=d).storage_type()) for d in (torch.bool, torch.uint8, torch.int8, "
    "torch.int16, torch.int32, torch.int64, torch.float16, torch.float64, torch.complex64, torch.complex128))",
    "torch.FloatStorage.dtype", "torch.ones(3, device='meta').untyped_storage().nbytes()",
    "torch.ones(3, device='meta').untyped_storage().data_ptr()", "torch.ones(3, device='meta').untyped_storage()[0]",
    "torch.ones(3, device='meta').storage().tolist()",
    "(torch.FloatStorage(2).is_cuda, torch.UntypedStorage(2).is_cuda, torch.UntypedStorage(2).element_size())",
    # pickled and deep-copied by value
    "s = pickle.loads(pickle.dumps(torch.FloatStorage([1, 2]))); (torch.typename(s), s.tolist(), str(s.dtype))",
    "u = torch.tensor([1, 2], dtype=torch.uint8).untyped_storage(); c = copy.deepcopy(u); c[0] = 9; "
    "(u.tolist(), c.tolist(), torch.typename(c))",
]


@pytest.mark.parametrize("src", STORAGE_CASES)
def test_storage_like_torch(src):
    assert_same(src, oracle_torch())


TENSOR_CASES = [
    # set_ in every overload
    "torch.ones(3).set_()", "t = torch.arange(6.); a = torch.ones(2); a.set_(t); a[0] = 5.0; (t.tolist(), "
    "a.is_set_to(t), a.tolist())",
    "torch.ones(2, dtype=torch.long).set_(torch.arange(6.))",
    "torch.ones(2).set_(torch.arange(6.).untyped_storage())", "torch.ones(2).set_(torch.arange(6.).storage())",
    "torch.ones(2, dtype=torch.long).set_(torch.arange(6.).storage())",
    "torch.ones(2).set_(torch.arange(6.).untyped_storage(), 1, (2, 2))",
    "torch.ones(2).set_(torch.arange(6.).untyped_storage(), 1, (2, 2), (1, 2))",
    "torch.ones(2).set_(source=torch.arange(6.).untyped_storage(), storage_offset=1, size=(2, 2), stride=(1, 2))",
    "torch.ones(2).set_(torch.arange(6.), 2, (2,), (2,))",
    "torch.ones(2).set_(torch.arange(6.).untyped_storage(), -1, (2, 2))", "torch.ones(2).set_(3)",
    "torch.ones(2, requires_grad=True).set_(torch.arange(6.))",
    "torch.ones(2).set_(torch.arange(6.).to('meta'))",
    "t = torch.arange(6.); (t.is_set_to(t), t.is_set_to(t[:]), t.is_set_to(t.view(2, 3)), "
    "t[:3].is_set_to(t[:3].clone()))",
    # resize_ / resize_as_ / resize / resize_as
    "torch.arange(6.).resize_(2, 2)", "torch.arange(6.).resize_((2, 3))", "torch.arange(6.).resize_(2, 5).shape",
    "torch.arange(6.).resize_(-1)", "torch.ones(2, requires_grad=True).resize_(3)",
    "torch.arange(6.)[1:].resize_(3)", "torch.from_numpy(np.arange(6.)).resize_(30)",
    "torch.arange(6.).resize_(1, 2, 1, 3, memory_format=torch.channels_last).stride()",
    "torch.arange(6.).resize_as_(torch.ones(3, 2))", "torch.resize_as_(torch.arange(6.), torch.ones(2))",
    "torch.arange(6.).resize(2, 3)", "torch.arange(6.).resize_as(torch.ones(3, 2))", "torch.arange(6.).resize(2, 2)",
    "torch.arange(6.).resize_as(torch.ones(4))", "torch.arange(6.).resize((3, 2))",
    "torch.arange(6., requires_grad=True).resize(3, 2).grad_fn.name()",
    "x = torch.arange(6., requires_grad=True); x.resize(3, 2).t().sum().backward(); x.grad",
    "t = torch.arange(6.); t.resize_(2, 2); t.untyped_storage().nbytes()",
    # properties
    "t = torch.arange(6.); (t.nbytes, t[1:].nbytes, t[::2].nbytes, t.itemsize, torch.ones(3, 4).t().nbytes)",
    "torch.ones(2, dtype=torch.bool).itemsize", "torch.ones(2, device='meta').nbytes",
    "[torch.ones(1, dtype=d).is_signed() for d in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, "
    "torch.int64, torch.float16, torch.float32, torch.float64, torch.complex64, torch.complex128)]",
    "torch.is_signed(torch.ones(2))", "torch.is_signed(3)",
    "torch.is_inference(torch.ones(2))", "torch.get_device(3)",
    "(torch.ones(2).get_device(), torch.get_device(torch.ones(2)), torch.ones(2, device='meta').get_device())",
    "torch.arange(6.).type_as(torch.ones(1, dtype=torch.int32))", "torch.arange(6.).type_as(3)",
    "torch.ones(2).name", "torch.ones(2).is_pinned()", "torch.ones(2).pin_memory()", "torch.ones(2).is_pinned('cpu')",
    "torch.ones(2).pin_memory('cpu')", "torch.ones(2, device='meta').pin_memory()",
    # apply_ / map_
    "torch.arange(6.).apply_(lambda x: x * 2)", "torch.arange(3).apply_(lambda x: x * 1.7)",
    "torch.arange(6).reshape(2, 3).t().apply_(lambda x: x * 2)", "torch.arange(6.).apply_(lambda x: 'a')",
    "torch.ones(2, requires_grad=True).apply_(lambda x: x)",
    "torch.arange(6.).map_(torch.ones(6), lambda x, y: x + y)",
    "torch.arange(6.).reshape(2, 3).map_(torch.ones(3), lambda x, y: x + y)",
    "torch.arange(6.).map_(torch.ones(6, dtype=torch.long), lambda x, y: x + y)",
    "t = torch.arange(3.); v = t._version; t.apply_(lambda x: x); t._version - v",
    # share_memory_ / is_shared
    "t = torch.ones(2); s = t.is_shared(); t.share_memory_()[0] = 3.0; (s, t.tolist(), t.is_shared(), "
    "t.storage().is_shared())",
    "t = torch.arange(4.); v = t[1:]; t.share_memory_(); (v.is_shared(), v.tolist())",
    "u = torch.UntypedStorage(2); s = u.is_shared(); u.share_memory_()[0] = 5; (s, u[0], u.is_shared())",
    "torch.empty(2, device='meta').share_memory_()",
]


@pytest.mark.parametrize("src", TENSOR_CASES)
def test_tensor_storage_methods_like_torch(src):
    assert_same(src, oracle_torch())


BUFFER_CASES = [
    "torch.frombuffer(bytearray(b'\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00'), dtype=torch.int32)",
    "torch.frombuffer(bytearray(8), dtype=torch.int16, count=2, offset=2)", "torch.frombuffer(bytearray(8))",
    "torch.frombuffer(bytearray(8), dtype=torch.float32, requires_grad=True).requires_grad",
    "torch.frombuffer(bytearray(7), dtype=torch.int32)", "torch.frombuffer(bytearray(8), dtype=torch.int32, offset=9)",
    "torch.frombuffer(bytearray(8), dtype=torch.int32, offset=-1)",
    "torch.frombuffer(bytearray(8), dtype=torch.int32, count=3)",
    "torch.frombuffer(bytearray(8), dtype=torch.int32, count=0)", "torch.frombuffer(bytearray(0), dtype=torch.int32)",
    "torch.frombuffer([1, 2], dtype=torch.uint8)", "torch.frombuffer(array.array('i', [1, 2, 3]), dtype=torch.int32)",
    "b = bytearray(4); t = torch.frombuffer(b, dtype=torch.uint8); b[0] = 9; t",
    "torch.asarray([1, 2.5])", "t = torch.ones(2); torch.asarray(t)[0] = 5.0; t",
    "torch.asarray(torch.ones(2), dtype=torch.float64)",
    "t = torch.ones(2); torch.asarray(t, copy=True)[0] = 5.0; t",
    "torch.asarray(torch.ones(2), dtype=torch.int64, copy=False)",
    "a = np.arange(3.); t = torch.asarray(a); a[0] = 7.0; t",
    "a = np.arange(3.); t = torch.asarray(a, copy=True); a[0] = 7.0; t",
    "a = np.arange(3.); t = torch.asarray(a, dtype=torch.float64); a[0] = 7.0; t",
    "torch.asarray(np.arange(3.), dtype=torch.float32)",
    "torch.asarray(np.arange(3.), dtype=torch.float32, copy=False)",
    "torch.asarray(3)", "torch.asarray(np.float32(3))", "torch.asarray(np.float64(2.), copy=False)",
    "torch.asarray(bytearray(b'ab'))", "torch.asarray(bytearray(b'ab'), dtype=torch.uint8)",
    "b = bytearray(b'ab'); t = torch.asarray(b, dtype=torch.uint8); b[0] = 0; t",
    "b = bytearray(b'ab'); t = torch.asarray(b, dtype=torch.uint8, copy=True); b[0] = 0; t",
    "torch.asarray([1., 2.], requires_grad=True).requires_grad", "torch.asarray([1, 2], requires_grad=True)",
    "x = torch.ones(2); y = torch.asarray(x, requires_grad=True); (y._version, x.requires_grad)",
    "x = torch.ones(2, requires_grad=True); y = torch.asarray(x, requires_grad=False); (y.requires_grad, "
    "x.requires_grad)",
    "torch.asarray(torch.ones(2, requires_grad=True), dtype=torch.float64).grad_fn.name()",
    "torch.asarray(torch.ones(2, requires_grad=True), copy=True).grad_fn.name()",
    "torch.asarray([1, 2], device='meta')", "torch.asarray([1, 2], copy=False)",
    "torch.asarray(memoryview(bytearray(b'ab')))", "torch.asarray(array.array('f', [1, 2]))",
    "torch.asarray(array.array('i', [1, 2]))", "torch.asarray([torch.tensor(1), torch.tensor(2)])",
    "torch.asarray(torch.ones(2), device='meta', copy=False)", "torch.asarray(torch.ones(2), device='meta')",
    "torch.asarray([torch.ones(2)], copy=False)", "torch.asarray('ab')", "torch.asarray(None)",
    "torch.asarray(np.arange(3)[::-1])", "torch.asarray(np.arange(6.).reshape(2, 3).T).stride()",
    "torch.asarray([1], torch.float64)",
]


@pytest.mark.parametrize("src", BUFFER_CASES)
def test_asarray_frombuffer_like_torch(src):
    assert_same(src, oracle_torch())


def test_asarray_warns_like_torch_for_a_tensor_that_requires_grad():
    x = jtorch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="^torch.asarray: unspecified requires_grad now defaults to obj.requires_grad"):
        assert jtorch.asarray(x) is x
    y = jtorch.ones(2)
    assert jtorch.asarray(y, requires_grad=True) is y and y.requires_grad


# ---- sharing through memory -----------------------------------------------------------------------------------
def test_const_data_ptr_is_the_data_ptr():
    t = jtorch.arange(6.0)[2:]
    assert t.const_data_ptr() == t.data_ptr() == t.untyped_storage().data_ptr() + 8


def test_views_share_one_storage_object():
    t = jtorch.arange(12.0).reshape(3, 4)
    views = [t[1], t.t(), t[:, ::2], t.view(12), t.detach()]
    assert all(v.untyped_storage() is t.untyped_storage() for v in views)
    s = t[1].storage()
    assert s._untyped_storage is t.untyped_storage() and s.size() == 12
    s[5] = -1.0
    assert t[1, 1].item() == -1.0


def test_set_shares_and_version_counts():
    src = jtorch.arange(6.0)
    a = jtorch.zeros(1)
    v0 = a._version
    a.set_(src.untyped_storage(), 2, (2,), (2,))
    assert a._version > v0 and a.tolist() == [2.0, 4.0] and a.untyped_storage() is src.untyped_storage()
    src[4] = 40.0
    assert a.tolist() == [2.0, 40.0]
    b = jtorch.empty(0).set_(src.storage())
    assert b.is_set_to(src) and b.untyped_storage() is src.untyped_storage()


def test_resize_grows_the_storage_every_view_sees():
    t = jtorch.arange(4.0)
    v = t[:]
    t.resize_(8)
    assert t.untyped_storage() is v.untyped_storage() and t.untyped_storage().nbytes() == 32
    assert t[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    # memory jtorch does not own cannot grow (torch 2.13 crashes on a shared one)
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        jtorch.ones(2).share_memory_().resize_(10)


def _child_writes(t, value) -> None:
    t[0] = value
    t[-1] += 1


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_share_memory_is_seen_by_a_child_process(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    t = jtorch.arange(5, dtype=jtorch.float32)
    v = t[1:]
    assert not t.is_shared()
    t.share_memory_()
    assert t.is_shared() and v.is_shared() and t.untyped_storage() is v.untyped_storage()
    ctx = multiprocessing.get_context(method)
    p = ctx.Process(target=_child_writes, args=(v, 42.0))
    p.start()
    p.join(120)
    assert p.exitcode == 0
    assert t.tolist() == [0.0, 42.0, 2.0, 3.0, 5.0]  # the child's writes, through the view it was sent


def test_unshared_tensor_goes_by_value_to_a_child():
    t = jtorch.arange(3, dtype=jtorch.float32)
    p = multiprocessing.get_context("spawn").Process(target=_child_writes, args=(t, 9.0))
    p.start()
    p.join(120)
    assert p.exitcode == 0 and t.tolist() == [0.0, 1.0, 2.0]


def test_as_subclass_keeps_memory_and_history():
    class Sub(jtorch.Tensor):
        pass

    x = jtorch.ones(2, requires_grad=True) * 2
    y = x.as_subclass(Sub)
    assert type(y) is Sub and y.data_ptr() == x.data_ptr() and y.grad_fn.name() == "AliasBackward0"
    y.sum().backward()
    leaf = jtorch.ones(2, requires_grad=True)
    assert type(leaf.as_subclass(Sub)) is Sub and leaf.as_subclass(Sub).requires_grad
    with pytest.raises(TypeError, match="^Creating a Tensor subclass from a class that does not inherit from Tensor"):
        x.as_subclass(int)


# ---- geometry against NumPy -----------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([jtorch.float32, jtorch.int64, jtorch.uint8, jtorch.float64]))
def test_set_views_the_storage_as_numpy_as_strided(data, dtype):
    n = data.draw(st.integers(1, 40))
    ndim = data.draw(st.integers(0, 3))
    size = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    stride = tuple(data.draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    offset = data.draw(st.integers(0, n - 1))
    src = jtorch.arange(n).to(dtype)
    t = jtorch.empty(0, dtype=dtype).set_(src.untyped_storage(), offset, size, stride)
    assert t.shape == size and t.stride() == stride and t.storage_offset() == offset
    extent = 1 + sum((s - 1) * d for s, d in zip(size, stride)) if all(size) else 0
    if extent and offset + extent <= n:  # inside the source: the same elements NumPy's view reads
        want = np.lib.stride_tricks.as_strided(src.numpy()[offset:], size, [d * src.element_size() for d in stride])
        np.testing.assert_array_equal(t.numpy(), want)
        assert t.untyped_storage() is src.untyped_storage()
    else:  # beyond it, set_ grew the storage every tensor over it sees
        assert src.untyped_storage().nbytes() >= (offset + extent) * src.element_size()


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 20), size=st.lists(st.integers(0, 5), max_size=3))
def test_resize_keeps_the_elements_in_order(n, size):
    t = jtorch.arange(n, dtype=jtorch.float64)
    before = t.numpy().copy()
    t.resize_(size)
    assert t.shape == tuple(size) and t.is_contiguous()
    m = min(n, int(np.prod(size)))
    np.testing.assert_array_equal(t.reshape(-1).numpy()[:m], before[:m])
