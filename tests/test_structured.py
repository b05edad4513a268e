"""Structured kernels and the TensorIterator: generated variants, output layout, coalescing,
scalars, type rules, and PyTorch's error texts."""
import warnings

import numpy as np
import pytest

import jtorch
from jtorch.native.registry import by_name
from jtorch.storage import CPUStorage, MetaStorage
from jtorch.structured.tensor_iterator import BINARY_OP, COMPARISON_OP, TensorIterator

try:
    import torch
except ImportError:  # pragma: no cover - torch is an optional oracle
    torch = None


def T(arr, dtype=None) -> jtorch.Tensor:
    """A contiguous jtorch tensor over a copy of a NumPy array."""
    a = np.array(arr, dtype=dtype, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    strides = tuple(s // a.itemsize for s in a.strides)
    dt = jtorch.dtypes.from_numpy_dtype(a.dtype)
    return jtorch.Tensor._make(CPUStorage(a.reshape(-1).copy()), tuple(a.shape), strides, 0, dt, jtorch.device("cpu"))


def N(t: jtorch.Tensor) -> np.ndarray:
    return t._numpy_view().copy()


def test_structured_family_is_declared_once_and_generates_three_variants():
    out, fn, inplace = by_name["add.out"], by_name["add.Tensor"], by_name["add_.Tensor"]
    assert out.structured and fn.structured_delegate == "add.out" and inplace.structured_delegate == "add.out"
    for name in ("aten::add.out", "aten::add.Tensor", "aten::add_.Tensor"):
        table = jtorch._C._dispatch_dump_table(name)
        assert "\nCPU: registered at" in "\n" + table and "\nMeta: registered at" in "\n" + table
        assert "binary.py" in table  # the debug string names the declaration, not the machinery


def test_functional_inplace_out_agree_with_numpy():
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.full((2, 3), 0.5, np.float32)
    a, b = T(x), T(y)
    np.testing.assert_array_equal(N(jtorch.add(a, b, alpha=2)), x + 2 * y)
    out = T(np.zeros((2, 3), np.float32))
    r = jtorch.add(a, b, out=out)
    assert r is out
    np.testing.assert_array_equal(N(out), x + y)
    v = a._version
    r = a.add_(b)
    assert r is a and a._version == v + 1
    np.testing.assert_array_equal(N(a), x + y)


def test_meta_kernel_comes_for_free():
    a = jtorch.empty(2, 1, 3, device="meta")
    b = jtorch.empty(4, 3, device="meta", dtype=jtorch.float64)
    c = a + b
    assert c.device.type == "meta" and c.shape == (2, 4, 3) and c.dtype is jtorch.float64
    assert isinstance(c._storage, MetaStorage)
    assert (a < b).dtype is jtorch.bool


def test_output_follows_input_layout():
    x = T(np.arange(6, dtype=np.float32).reshape(2, 3)).transpose(0, 1) if hasattr(jtorch.Tensor, "transpose") else None
    if x is None:
        pytest.skip("transpose not declared yet")
    y = x + x
    assert y.shape == (3, 2) and y.stride() == (1, 3)
    if torch is not None:
        tx = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()
        assert y.stride() == (tx + tx).stride()


def _built(config, out, *inputs) -> TensorIterator:
    it = TensorIterator()
    it.build_op(config, out, *inputs)
    return it


def test_reorder_and_coalesce_dimensions():
    # contiguous 3-d: one flat dimension
    it = _built(BINARY_OP, None, T(np.ones((2, 3, 4), np.float32)), T(np.ones((2, 3, 4), np.float32)))
    assert it.shape == (24,)
    # matrix + row vector: the row's stride-0 dim cannot merge
    it = _built(BINARY_OP, None, T(np.ones((4, 5), np.float32)), T(np.ones(5, np.float32)))
    assert it.shape == (5, 4)
    assert [o.strides for o in it.operands] == [[1, 5], [1, 5], [1, 0]]
    # a size-1 dimension always coalesces
    it = _built(BINARY_OP, None, T(np.ones((4, 1, 5), np.float32)), T(np.ones((1, 1, 5), np.float32)))
    assert it.shape == (5, 4)


def test_python_scalars_and_cpu_zero_dim_tensors_are_passed_as_scalars():
    a = T(np.arange(4, dtype=np.float32).reshape(2, 2))
    it = _built(BINARY_OP, None, a, jtorch.native.factories.wrapped_scalar_tensor(2.5))
    assert it.operands[2].scalar == np.float32(2.5) and it.operands[2].strides is None
    it = _built(BINARY_OP, None, a, T(np.array(3, np.float64)))
    assert it.operands[2].scalar == np.float32(3.0) and it.common_dtype is jtorch.float32  # 0-dim does not promote


@pytest.mark.parametrize(
    "xdt,ydt,wrapped",
    [(np.int32, 1.5, True), (np.int8, 1000, True), (np.uint8, np.array(5, np.int64), False),
     (np.float16, np.array(2.0), False), (np.bool_, 2, True), (np.float32, 1j, True)],
)
def test_result_dtypes_follow_result_type(xdt, ydt, wrapped):
    a = T(np.ones(3, xdt))
    b = ydt if wrapped else T(ydt)
    it = _built(BINARY_OP, None, a, jtorch.native.factories.wrapped_scalar_tensor(b) if wrapped else b)
    expected = jtorch.result_type(a, b)
    assert it.common_dtype is expected
    if torch is not None:
        tb = b if wrapped else torch.from_numpy(np.asarray(ydt))
        assert str(torch.result_type(torch.from_numpy(np.ones(3, xdt)), tb)).replace("torch", "jtorch") == repr(expected) \
            or (expected is jtorch.complex64 and xdt is np.float16)


def test_comparison_output_is_bool_and_inputs_promote():
    it = _built(COMPARISON_OP, None, T(np.ones(3, np.int32)), T(np.ones(3, np.float64)))
    assert it.common_dtype is jtorch.float64 and it.operands[0].tensor.dtype is jtorch.bool


def test_broadcast_error_text():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1$"):
        T(np.ones((2, 3), np.float32)) + T(np.ones((2, 4), np.float32))


def test_inplace_broadcast_error_text():
    a = T(np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        a.add_(T(np.ones((2, 3), np.float32)))


def test_unsafe_cast_to_output_error_text():
    a = T(np.ones(3, np.int64))
    with pytest.raises(RuntimeError, match=r"^result type Float can't be cast to the desired output type Long$"):
        a.add_(T(np.ones(3, np.float32)))
    with pytest.raises(RuntimeError, match=r"^result type Float can't be cast to the desired output type Long$"):
        jtorch.add(T(np.ones(3, np.float32)), T(np.ones(3, np.float32)), out=T(np.zeros(3, np.int64)))


def test_device_mismatch_error_text():
    with pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, but found at least two devices, meta and cpu!$"):
        jtorch.empty(3, device="meta") + T(np.ones(3, np.float32))


def test_cpu_scalar_may_meet_another_device():
    c = jtorch.empty(3, device="meta") + T(np.array(2.0, np.float32))
    assert c.device.type == "meta"


def test_memory_overlap_error_texts():
    x = T(np.arange(6, dtype=np.float32))
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone"):
        internal = jtorch.Tensor._make(x._storage, (3,), (0,), 0, x.dtype, x.device)
        jtorch.add(T(np.ones(3, np.float32)), T(np.ones(3, np.float32)), out=internal)
    a = jtorch.Tensor._make(x._storage, (5,), (1,), 0, x.dtype, x.device)
    b = jtorch.Tensor._make(x._storage, (5,), (1,), 1, x.dtype, x.device)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone"):
        jtorch.add(b, b, out=a)
    a.add_(a)  # full overlap is fine
    np.testing.assert_array_equal(a._numpy_view(), 2 * np.arange(5, dtype=np.float32))


def test_out_resize_warns_with_pytorch_text():
    out = T(np.zeros(3, np.float32))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        jtorch.add(T(np.ones((2, 2), np.float32)), T(np.ones(2, np.float32)), out=out)
    assert out.shape == (2, 2)
    np.testing.assert_array_equal(N(out), np.full((2, 2), 2, np.float32))
    msgs = [str(x.message) for x in w]
    assert any(m.startswith("An output with one or more elements was resized since it had shape [3], which does not "
                            "match the required output shape [2, 2]. This behavior is deprecated") for m in msgs)
    empty_out = T(np.zeros(0, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.add(T(np.ones(2, np.float32)), T(np.ones(2, np.float32)), out=empty_out)  # zero elements: no warning
    assert empty_out.shape == (2,)


def test_integer_wraparound_of_python_scalars():
    np.testing.assert_array_equal(N(T(np.ones(3, np.int8)) + 1000), (np.ones(3, np.int8) + np.int8(-24)))


def test_empty_and_zero_dim():
    e = T(np.ones((0, 3), np.float32)) + T(np.ones(3, np.float32))
    assert e.shape == (0, 3)
    z = T(np.array(2.0, np.float32)) + T(np.array(3.0, np.float32))
    assert z.shape == () and z.item() == 5.0


def test_needs_copy_for_casts():
    if not jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::copy_", "CPU") and \
            not jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::copy_", "CompositeExplicitAutograd"):
        pytest.skip("aten::copy_ not declared yet")
    x = np.arange(4, dtype=np.int32)
    r = T(x) + 1.5
    assert r.dtype is jtorch.float32
    np.testing.assert_array_equal(N(r), x + np.float32(1.5))
    out = T(np.zeros(4, np.float64))
    jtorch.add(T(x.astype(np.float32)), T(x.astype(np.float32)), out=out)  # temporary + copy back
    np.testing.assert_array_equal(N(out), 2.0 * x)
    h = T(np.array([1, 2, 3], np.float16))
    np.testing.assert_array_equal(N(h + h), np.array([2, 4, 6], np.float16))
    assert (h + h).dtype is jtorch.float16
