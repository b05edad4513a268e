"""Tensor factories: zeros/ones/full/arange/linspace/eye/scalar_tensor, *_like, new_*, jtorch.tensor,
as_tensor, from_numpy and the legacy constructor. Values against NumPy (and torch, bit for bit, when
installed), dtype inference, strides, meta tensors, BackendSelect and PyTorch's error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch import dispatcher
from jtorch.storage import MetaStorage
from _torch_compare import source_matches_torch, source_outcome
from _torch_oracle import oracle_torch

J_DTYPES = [jtorch.bool, jtorch.uint8, jtorch.int8, jtorch.int16, jtorch.int32, jtorch.int64, jtorch.float16,
            jtorch.float32, jtorch.float64, jtorch.complex64, jtorch.complex128]


def npv(t: jtorch.Tensor) -> np.ndarray:
    """A CPU tensor's values as a NumPy array (a copy)."""
    return np.array(t.numpy(), copy=True)


# ---- the dispatcher: BackendSelect picks the backend of factories ------------------------------------
NO_TENSOR_FACTORIES = ["aten::empty.memory_format", "aten::empty_strided", "aten::zeros", "aten::ones", "aten::full",
                       "aten::arange", "aten::arange.start", "aten::arange.start_step", "aten::linspace", "aten::eye",
                       "aten::eye.m", "aten::scalar_tensor"]


@pytest.mark.parametrize("name", NO_TENSOR_FACTORIES)
def test_factories_have_a_backend_select_kernel(name):
    table = jtorch._C._dispatch_dump_table(name)
    assert any(line.startswith("BackendSelect: ") and line.endswith("[kernel]") for line in table.splitlines()), table
    assert jtorch._C._dispatch_has_kernel_for_dispatch_key(name, "BackendSelect")


@pytest.mark.parametrize("name", ["aten::zeros_like", "aten::empty_like", "aten::new_zeros", "aten::full_like",
                                  "aten::arange.start_out", "aten::linspace.out"])
def test_tensor_argument_factories_dispatch_on_the_tensor(name):
    assert not jtorch._C._dispatch_has_kernel_for_dispatch_key(name, "BackendSelect")


def test_zeros_redispatches_from_backend_select_to_the_device(capsys, clean_dispatch_state):
    dispatcher.set_dispatch_trace(True)
    try:
        jtorch.zeros(2)
        jtorch.zeros(2, device="meta")
    finally:
        dispatcher.set_dispatch_trace(False)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "[call] op=[aten::zeros], key=[BackendSelect]"
    assert err[1] == " [redispatch] op=[aten::zeros], key=[CPU]"
    assert "  [call] op=[aten::empty.memory_format], key=[BackendSelect]" in err
    assert "   [redispatch] op=[aten::empty.memory_format], key=[CPU]" in err
    assert " [redispatch] op=[aten::zeros], key=[Meta]" in err
    assert "   [redispatch] op=[aten::empty.memory_format], key=[Meta]" in err


def test_observer_sees_factory_calls_with_backend_select_key(clean_dispatch_state):
    seen = []
    with dispatcher.add_observer(lambda name, ks, args, kwargs: seen.append((name, ks.highest_priority_type_id()))):
        jtorch.arange(3)
        jtorch.ones(2, dtype=jtorch.int32)
    names = [n for n, _ in seen]
    assert names[0] == "aten::arange"
    assert "aten::arange.start_out" in names and "aten::ones" in names
    assert all(k.name == "BackendSelect" for n, k in seen if n in ("aten::arange", "aten::ones"))


def test_factories_through_jtorch_ops():
    t = jtorch.ops.aten.zeros.default((2, 3), dtype=jtorch.int16)
    assert t.shape == (2, 3) and t.dtype is jtorch.int16
    assert (npv(t) == 0).all()
    t = jtorch.ops.aten.full.default((2,), 7, device="meta")
    assert t.is_meta and t.dtype is jtorch.int64


# ---- zeros / ones / full / scalar_tensor ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", J_DTYPES)
def test_zeros_ones_full_every_dtype(dtype):
    z, o = jtorch.zeros(2, 3, dtype=dtype), jtorch.ones((2, 3), dtype=dtype)
    assert z.dtype is dtype and o.dtype is dtype and z.shape == (2, 3) and z.stride() == (3, 1)
    np.testing.assert_array_equal(npv(z), np.zeros((2, 3), dtype.numpy))
    np.testing.assert_array_equal(npv(o), np.ones((2, 3), dtype.numpy))
    f = jtorch.full((4,), 1, dtype=dtype)
    np.testing.assert_array_equal(npv(f), np.full((4,), 1, dtype.numpy))


@pytest.mark.parametrize("value, dtype", [(1.5, jtorch.float32), (2, jtorch.int64), (True, jtorch.bool),
                                          (1 + 2j, jtorch.complex64), (np.float32(1.5), jtorch.float32),
                                          (np.int16(3), jtorch.int64)])
def test_full_infers_dtype_from_the_value(value, dtype):
    t = jtorch.full((2,), value)
    assert t.dtype is dtype
    assert npv(t).tolist() == [value, value]


def test_full_default_dtype_follows_set_default_dtype():
    jtorch.set_default_dtype(jtorch.float64)
    try:
        assert jtorch.full((1,), 0.5).dtype is jtorch.float64
        assert jtorch.full((1,), 1j).dtype is jtorch.complex128
        assert jtorch.zeros(1).dtype is jtorch.float64
    finally:
        jtorch.set_default_dtype(jtorch.float32)


def test_scalar_tensor_uses_the_default_dtype():
    assert jtorch.scalar_tensor(3).dtype is jtorch.float32
    assert npv(jtorch.scalar_tensor(True)).item() == 1.0
    t = jtorch.scalar_tensor(3, dtype=jtorch.int64)
    assert t.shape == () and t.stride() == () and t.item() == 3


def test_factory_errors():
    with pytest.raises(RuntimeError, match=r"^zeros: Dimension size must be non-negative\.$"):
        jtorch.zeros(2, -1)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[2, -1\]$"):
        jtorch.ones(2, -1)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        jtorch.zeros(-1, device="meta")
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type uint8_t without overflow$"):
        jtorch.full((2,), 300, dtype=jtorch.uint8)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type float without overflow$"):
        jtorch.full((2,), 1e300)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type float without overflow$"):
        jtorch.scalar_tensor(1 + 1j)
    with pytest.raises(RuntimeError, match=r"^unsupported memory format Preserve$"):
        jtorch.empty(2, memory_format=jtorch.preserve_format)
    assert npv(jtorch.full((2,), -1, dtype=jtorch.uint8)).tolist() == [255, 255]  # C cast after the check


def test_out_variants_resize_and_keep_strides():
    out = jtorch.empty(3, 2).t()
    r = jtorch.ones(2, 3, out=out)
    assert r is out and out.stride() == (1, 2) and (npv(out) == 1).all()
    out = jtorch.empty(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # zeros.out resizes silently (resize_, not resize_output)
        jtorch.zeros(2, out=out)
    assert out.shape == (2,)
    out = jtorch.empty(2, dtype=jtorch.int32)
    jtorch.full((2,), 1.5, out=out)
    assert out.dtype is jtorch.int32 and npv(out).tolist() == [1, 1]


def test_fresh_factory_tensors_have_version_zero():
    # PyTorch's factory functions fill below ADInplaceOrView; out= is one in-place update
    fresh = [jtorch.zeros(3), jtorch.ones(3), jtorch.full((2,), 1.0), jtorch.arange(3), jtorch.linspace(0, 1, 3),
             jtorch.eye(2), jtorch.scalar_tensor(1), jtorch.zeros_like(jtorch.ones(2)), jtorch.tensor([1.0]),
             jtorch.ones(2).new_full((2,), 3), jtorch.full_like(jtorch.ones(2), 2)]
    assert [t._version for t in fresh] == [0] * len(fresh)
    for make in (lambda o: jtorch.zeros(3, out=o), lambda o: jtorch.arange(3, out=o),
                 lambda o: jtorch.linspace(0, 1, 3, out=o), lambda o: jtorch.full((3,), 2.0, out=o)):
        out = jtorch.empty(3)
        make(out)
        assert out._version == 1


# ---- eye --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, m", [(0, 0), (1, 1), (3, 3), (3, 2), (2, 5)])
@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.int64, jtorch.bool, jtorch.complex64])
def test_eye_matches_numpy(n, m, dtype):
    t = jtorch.eye(n, m, dtype=dtype) if n != m else jtorch.eye(n, dtype=dtype)
    assert t.shape == (n, m) and t.dtype is dtype
    np.testing.assert_array_equal(npv(t), np.eye(n, m, dtype=dtype.numpy))


def test_eye_out_and_errors():
    out = jtorch.empty(3, 2).t()
    jtorch.eye(2, 3, out=out)
    assert out.stride() == (1, 2)
    np.testing.assert_array_equal(npv(out), np.eye(2, 3, dtype=np.float32))
    with pytest.raises(RuntimeError, match=r"^n must be greater or equal to 0, got -1$"):
        jtorch.eye(-1)
    with pytest.raises(RuntimeError, match=r"^m must be greater or equal to 0, got -1$"):
        jtorch.eye(2, -1)


# ---- arange -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [((5,), {}), ((2, 7), {}), ((1, 10, 3), {}), ((10, 0, -3), {}),
                                          ((0.0, 1.0, 0.25), {}), ((5,), {"dtype": jtorch.float64}),
                                          ((-3, 4), {"dtype": jtorch.int8}), ((0, 5), {"dtype": jtorch.float16}),
                                          ((2.5,), {"dtype": jtorch.int32}), ((True, 3), {})])
def test_arange_matches_numpy(args, kwargs):
    t = jtorch.arange(*args, **kwargs)
    dtype = kwargs.get("dtype", jtorch.int64 if all(isinstance(a, int) for a in args) else jtorch.float32)
    assert t.dtype is dtype
    np.testing.assert_allclose(npv(t), np.arange(*args).astype(dtype.numpy), rtol=1e-6)


def test_arange_size_uses_the_int64_formula_for_long():
    assert jtorch.arange(0.5, 2.7, 1.0, dtype=jtorch.int64).tolist() == [0, 1]  # truncated bounds, int arithmetic
    assert jtorch.arange(0, 10, 0.5, dtype=jtorch.int32).tolist() == [0] * 20  # double size, int step 0
    assert jtorch.arange(-3, 0, dtype=jtorch.uint8).tolist() == [253, 254, 255]  # the narrowing cast wraps
    assert jtorch.arange(2 ** 62, 2 ** 62 + 3).tolist() == [2 ** 62, 2 ** 62 + 1, 2 ** 62 + 2]


def test_arange_errors():
    with pytest.raises(RuntimeError, match=r"^upper bound and lower bound inconsistent with step sign$"):
        jtorch.arange(0, 5, -1)
    with pytest.raises(RuntimeError, match=r"^upper bound and lower bound inconsistent with step sign$"):
        jtorch.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match=r"^step must be nonzero$"):
        jtorch.arange(0, 5, 0)
    with pytest.raises(ValueError, match=r"^step must be nonzero$"):
        jtorch.arange(-1.5, 2.5, 0.5, dtype=jtorch.int64)
    with pytest.raises(RuntimeError, match=r"^unsupported range: 0 -> inf$"):
        jtorch.arange(0, float("inf"))
    with pytest.raises(NotImplementedError, match=r"^\"arange_cpu\" not implemented for 'Bool'$"):
        jtorch.arange(5, dtype=jtorch.bool)
    with pytest.raises(NotImplementedError, match=r"^\"arange_cpu\" not implemented for 'ComplexFloat'$"):
        jtorch.arange(5, dtype=jtorch.complex64)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type double without overflow$"):
        jtorch.arange(0, 3j)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int64_t without overflow$"):
        jtorch.arange(0, 1e20, dtype=jtorch.int64)


def test_arange_out_warns_when_resizing_a_non_empty_tensor():
    out = jtorch.empty(2)
    with pytest.warns(UserWarning, match=r"^The number of elements in the out tensor of shape \[2\] is 2 which does "
                                         r"not match the computed number of elements 5\. Note that this may occur as "
                                         r"a result of rounding error\. The out tensor will be resized to a tensor of "
                                         r"shape \(5,\)\.$"):
        jtorch.arange(5, out=out)
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    out = jtorch.empty(0, dtype=jtorch.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.arange(3, out=out)
    assert out.dtype is jtorch.int32 and out.tolist() == [0, 1, 2]
    strided = jtorch.empty(10)[::2]
    jtorch.arange(5, out=strided)
    assert strided.stride() == (2,) and strided.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-1e3, 1e3, allow_nan=False), step=st.floats(1e-3, 10.0),
       n=st.one_of(st.integers(1, 300), st.integers(32768, 70000)),
       dtype=st.sampled_from(["float32", "float64"]))
def test_arange_bit_exact_with_torch(start, step, n, dtype):
    torch = oracle_torch()
    end = start + step * n - step / 2
    t = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
    j = npv(jtorch.arange(start, end, step, dtype=getattr(jtorch, dtype)))
    assert t.shape == j.shape
    np.testing.assert_array_equal(t, j)


# ---- linspace ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("start, end, steps", [(0, 1, 5), (-3.5, 7.25, 11), (10, -10, 4), (2, 2, 3), (0, 1, 1),
                                               (0, 1, 0), (1e-3, 1e3, 1001)])
@pytest.mark.parametrize("dtype", [jtorch.float32, jtorch.float64])
def test_linspace_matches_numpy(start, end, steps, dtype):
    t = jtorch.linspace(start, end, steps, dtype=dtype)
    assert t.shape == (steps,) and t.dtype is dtype
    np.testing.assert_allclose(npv(t), np.linspace(start, end, steps, dtype=np.float64).astype(dtype.numpy),
                               rtol=2e-6 if dtype is jtorch.float32 else 1e-14, atol=1e-6)


def test_linspace_is_symmetric_from_both_ends():
    t = npv(jtorch.linspace(-1.7, 9.3, 1001, dtype=jtorch.float64))
    assert t[0] == -1.7 and t[-1] == 9.3  # both ends exact: filled from both sides
    t = npv(jtorch.linspace(0, 1, 5, dtype=jtorch.int64))
    assert t.tolist() == [0, 0, 0, 0, 1]  # start + step*i below half, end - step*(steps-1-i) above, truncated


def test_linspace_dtypes_and_errors():
    assert jtorch.linspace(0, 1 + 1j, 3).dtype is jtorch.complex64
    assert npv(jtorch.linspace(0, 1 + 1j, 3)).tolist() == [0j, 0.5 + 0.5j, 1 + 1j]
    assert npv(jtorch.linspace(0, 10, 4, dtype=jtorch.int32)).tolist() == [0, 3, 6, 10]
    with pytest.raises(RuntimeError, match=r"^number of steps must be non-negative$"):
        jtorch.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match=r"^torch\.linspace\(\): inferred dtype c10::complex<float> can't be "
                                           r"safely cast to passed dtype Float$"):
        jtorch.linspace(0, 1 + 1j, 3, dtype=jtorch.float32)
    with pytest.raises(NotImplementedError, match=r"^\"linspace_cpu\" not implemented for 'Bool'$"):
        jtorch.linspace(0, 1, 3, dtype=jtorch.bool)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type uint8_t without overflow$"):
        jtorch.linspace(-7, 1000, 7, dtype=jtorch.uint8)
    assert npv(jtorch.linspace(0, 1, 1, dtype=jtorch.bool)).tolist() == [False]  # one step: fill_(start)
    out = jtorch.empty(3, 2).t()[0]
    jtorch.linspace(0, 1, 3, out=out)
    assert out.stride() == (2,) and out.tolist() == [0.0, 0.5, 1.0]


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-1e4, 1e4, allow_nan=False), end=st.floats(-1e4, 1e4, allow_nan=False),
       steps=st.integers(2, 5000), dtype=st.sampled_from(["float32", "float64", "float16", "int32", "complex64"]))
def test_linspace_bit_exact_with_torch(start, end, steps, dtype):
    torch = oracle_torch()
    if dtype == "complex64":
        start, end = complex(start, end), complex(end, -start)
    if dtype == "int32":
        start, end = int(start), int(end)
    t = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
    j = npv(jtorch.linspace(start, end, steps, dtype=getattr(jtorch, dtype)))
    np.testing.assert_array_equal(t, j)


# ---- *_like and new_* ---------------------------------------------------------------------------------
def _layouts():
    base = jtorch.empty(4, 6, 5)
    return [base, base.transpose(0, 2), base.permute(1, 2, 0), base[::2], base[:, 1:, ::2], base.transpose(0, 1)[1:],
            jtorch.empty(3, 1, 4).expand(3, 5, 4), jtorch.empty(3, 1, 4).transpose(0, 1), jtorch.empty(2, 0, 3),
            jtorch.empty(()), jtorch.empty(2, 3, 4, 5).permute(0, 2, 3, 1)]


@pytest.mark.parametrize("i", range(11))
@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"])
def test_like_preserves_dense_strides_like_torch(i, fn):
    torch = oracle_torch()
    src = _layouts()[i]
    tsrc = torch.empty_strided(tuple(src.shape), src.stride())
    j = getattr(jtorch, fn)(src)
    t = getattr(torch, fn)(tsrc)
    assert j.shape == tuple(t.shape) and j.stride() == t.stride() and j.dtype is jtorch.float32


def test_like_values_dtype_device_and_memory_format():
    src = jtorch.empty(2, 3, dtype=jtorch.int32).t()
    z = jtorch.zeros_like(src)
    assert z.dtype is jtorch.int32 and z.stride() == (1, 3) and (npv(z) == 0).all()
    o = jtorch.ones_like(src, dtype=jtorch.float64)
    assert o.dtype is jtorch.float64 and (npv(o) == 1).all()
    f = jtorch.full_like(src, 2.5)
    assert f.dtype is jtorch.int32 and (npv(f) == 2).all()
    c = jtorch.zeros_like(src, memory_format=jtorch.contiguous_format)
    assert c.stride() == (2, 1)
    cl = jtorch.empty_like(jtorch.empty(2, 3, 4, 5), memory_format=jtorch.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    m = jtorch.empty_like(src, device="meta")
    assert m.is_meta and m.dtype is jtorch.int32 and m.stride() == (1, 3)
    with pytest.raises(RuntimeError, match=r"^required rank 4 tensor to use channels_last format$"):
        jtorch.zeros_like(src, memory_format=jtorch.channels_last)


def test_new_methods_inherit_dtype_and_device():
    t = jtorch.arange(5, dtype=jtorch.int16)
    assert t.new_zeros(2, 3).dtype is jtorch.int16 and t.new_zeros((2, 3)).shape == (2, 3)
    assert npv(t.new_ones(2)).tolist() == [1, 1]
    assert npv(t.new_full((2,), 3.7)).tolist() == [3, 3]
    assert t.new_empty(4).dtype is jtorch.int16
    assert t.new_ones(3, dtype=jtorch.float64).dtype is jtorch.float64
    s = jtorch.empty(2, 3).t().new_empty_strided((2, 3), (1, 2))
    assert s.stride() == (1, 2)
    m = jtorch.empty(2, device="meta").new_zeros(3)
    assert m.is_meta and m.shape == (3,)
    n = jtorch.arange(5.0).new_tensor([1, 2])
    assert n.dtype is jtorch.float32 and npv(n).tolist() == [1.0, 2.0]
    assert jtorch.arange(5.0).new_tensor([1.5, 2], dtype=jtorch.int32).tolist() == [1, 2]
    assert jtorch.arange(5.0).new_tensor([1.5], requires_grad=True).requires_grad


# ---- meta: every factory allocates no data ------------------------------------------------------------
META_FACTORIES = [
    lambda: jtorch.zeros(2, 3, device="meta"), lambda: jtorch.ones(2, device="meta"),
    lambda: jtorch.full((2,), 3.0, device="meta"), lambda: jtorch.arange(5, device="meta"),
    lambda: jtorch.arange(0.0, 1.0, 0.1, device="meta"), lambda: jtorch.linspace(0, 1, 7, device="meta"),
    lambda: jtorch.eye(3, device="meta"), lambda: jtorch.scalar_tensor(2, device="meta"),
    lambda: jtorch.empty_like(jtorch.empty(2), device="meta"), lambda: jtorch.zeros_like(jtorch.empty(2, device="meta")),
    lambda: jtorch.full_like(jtorch.empty(2, device="meta"), 1), lambda: jtorch.tensor([[1, 2], [3, 4]], device="meta"),
    lambda: jtorch.empty(2, device="meta").new_ones(3), lambda: jtorch.empty_strided((2, 3), (1, 2), device="meta"),
]


@pytest.mark.parametrize("i", range(len(META_FACTORIES)))
def test_meta_factories_allocate_nothing(i):
    t = META_FACTORIES[i]()
    assert t.is_meta and isinstance(t._storage, MetaStorage)
    assert t._storage.data_ptr() == 0


def test_meta_shapes_and_dtypes():
    assert jtorch.arange(0.0, 1.0, 0.1, device="meta").shape == (10,)
    assert jtorch.tensor([[1, 2], [3, 4]], device="meta").dtype is jtorch.int64
    assert jtorch.eye(2, 3, device="meta").shape == (2, 3)
    with pytest.raises(NotImplementedError, match=r"^\"arange_cpu\" not implemented for 'Bool'$"):
        jtorch.arange(3, dtype=jtorch.bool, device="meta")


def test_cuda_requests_raise_without_cuda():
    if jtorch.cuda.is_available():
        pytest.skip("CUDA present")
    with pytest.raises(RuntimeError, match=r"^Found no NVIDIA driver on your system"):
        jtorch.zeros(2, device="cuda")


# ---- jtorch.tensor ---------------------------------------------------------------------------------
INFERENCE = [([1, 2], jtorch.int64), ([1, 2.0], jtorch.float32), ([True, False], jtorch.bool), ([True, 2], jtorch.int64),
             ([True, 2.5], jtorch.float32), ([1, 1j], jtorch.complex64), ([], jtorch.float32), ([[]], jtorch.float32),
             (3, jtorch.int64), (2.5, jtorch.float32), (True, jtorch.bool), (1 + 2j, jtorch.complex64),
             ((1, 2), jtorch.int64), (range(3), jtorch.int64), ([[1, 2], [3, 4.0]], jtorch.float32),
             (np.float64(1.5), jtorch.float64), ([np.float32(1.5), 2], jtorch.float32), ([np.int32(3), 1], jtorch.int64),
             ([np.int8(3), np.uint8(1)], jtorch.int16), (np.bool_(True), jtorch.bool), ([np.float16(1), 2], jtorch.float16),
             (np.array([1, 2], dtype=np.int32), jtorch.int32), ([np.array([1, 2], dtype=np.int32), [1.5, 2]], jtorch.float32)]


@pytest.mark.parametrize("data, dtype", INFERENCE)
def test_tensor_dtype_inference(data, dtype):
    t = jtorch.tensor(data)
    assert t.dtype is dtype
    np.testing.assert_array_equal(npv(t), np.array(data).astype(dtype.numpy))


def test_tensor_inference_follows_the_default_dtype():
    jtorch.set_default_dtype(jtorch.float64)
    try:
        assert jtorch.tensor([1.5]).dtype is jtorch.float64
        assert jtorch.tensor([1j]).dtype is jtorch.complex128
        assert jtorch.tensor([]).dtype is jtorch.float64
    finally:
        jtorch.set_default_dtype(jtorch.float32)


def test_tensor_shapes_strides_and_copies():
    t = jtorch.tensor([[1, 2, 3], [4, 5, 6]])
    assert t.shape == (2, 3) and t.stride() == (3, 1)
    assert jtorch.tensor([[]]).shape == (1, 0) and jtorch.tensor([[], []]).shape == (2, 0)
    assert jtorch.tensor(5).shape == () and jtorch.tensor([[[1]]]).shape == (1, 1, 1)
    a = np.arange(6.0).reshape(2, 3)
    c = jtorch.tensor(a)
    a[0, 0] = 99
    assert c.tolist()[0][0] == 0.0  # a copy
    src = jtorch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match=r"^To copy construct from a tensor, it is recommended to use "
                                         r"sourceTensor\.detach\(\)\.clone\(\)"):
        d = jtorch.tensor(src)
    assert d.data_ptr() != src.data_ptr() and d.tolist() == [1.0, 2.0]


def test_tensor_nested_one_element_tensors_are_scalars():
    assert jtorch.tensor([jtorch.tensor(1), jtorch.tensor(2)]).tolist() == [1, 2]
    t = jtorch.tensor([jtorch.tensor([1.5]), jtorch.tensor([2.0])])
    assert t.shape == (2,) and t.dtype is jtorch.float32
    assert jtorch.tensor([jtorch.tensor(1, dtype=jtorch.int32), jtorch.tensor(1, dtype=jtorch.int8)]).dtype is jtorch.int32


def test_tensor_requires_grad():
    assert jtorch.tensor([1.5], requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match=r"^Only Tensors of floating point and complex dtype can require "
                                           r"gradients$"):
        jtorch.tensor([1, 2], requires_grad=True)


_GRAD_FACTORIES = [
    "torch.zeros(2, 3, {kw})", "torch.ones(2, {kw})", "torch.empty(2, {kw})", "torch.full((2,), 1.5, {kw})",
    "torch.full((2,), 1, {kw})", "torch.eye(2, {kw})", "torch.arange(3.0, {kw})", "torch.arange(3, {kw})",
    "torch.linspace(0, 1, 5, {kw})", "torch.rand(2, {kw})", "torch.randn(2, {kw})", "torch.zeros_like(x, {kw})",
    "torch.ones_like(x, {kw})", "torch.empty_like(x, {kw})", "torch.full_like(x, 2.0, {kw})",
    "torch.rand_like(x, {kw})", "torch.randn_like(x, {kw})", "torch.scalar_tensor(1.5, {kw})",
    "torch.empty_strided((2,), (1,), {kw})", "x.new_zeros(2, {kw})", "x.new_ones((2, 1), {kw})",
    "x.new_empty(2, {kw})", "x.new_full((2,), 3.0, {kw})", "x.new_empty_strided((2,), (1,), {kw})",
    "x.new_tensor([1.0], {kw})", "i.new_zeros(2, {kw})", "torch.ones(2, dtype=torch.int64, {kw})",
    "torch.zeros(2, dtype=torch.complex64, {kw})", "torch.randint(3, (2,), {kw})",
]


@pytest.mark.parametrize("src", _GRAD_FACTORIES)
def test_every_factory_takes_requires_grad(src):
    """requires_grad= on every factory and new_* method, as torch's: set on the result (a leaf), or
    refused for integer dtypes with the factory's own text (not requires_grad_()'s)."""
    def run(mod):
        env = {"torch": mod, "x": mod.ones(2, dtype=mod.float64), "i": mod.ones(2, dtype=mod.int32)}
        out = []
        for kw in ("requires_grad=True", "requires_grad=False"):
            try:
                t = eval(src.format(kw=kw), env)
                out.append((t.requires_grad, t.is_leaf, t.grad_fn is None, str(t.dtype).split(".")[-1]))
            except RuntimeError as e:
                out.append(("RuntimeError", str(e)))
        return out

    got = run(jtorch)
    if got[0][0] == "RuntimeError":
        assert got[0][1] == "Only Tensors of floating point and complex dtype can require gradients"
    else:
        assert got[0][:3] == (True, True, True) and got[1][:3] == (False, True, True)
    try:
        import torch
    except ImportError:
        return
    assert got == run(torch)


def test_tensor_errors():
    with pytest.raises(ValueError, match=r"^expected sequence of length 2 at dim 1 \(got 3\)$"):
        jtorch.tensor([[1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match=r"^expected sequence of length 1 at dim 1 \(got 2\)$"):
        jtorch.tensor([[1], [2, 3]])
    with pytest.raises(TypeError, match=r"^not a sequence$"):
        jtorch.tensor([[1, 2], 3])
    with pytest.raises(TypeError, match=r"^'list' object cannot be interpreted as an integer$"):
        jtorch.tensor([1, [2, 3]])
    with pytest.raises(TypeError, match=r"^new\(\): invalid data type 'str'$"):
        jtorch.tensor("abc")
    with pytest.raises(ValueError, match=r"^too many dimensions 'str'$"):
        jtorch.tensor(["abc"])
    with pytest.raises(RuntimeError, match=r"^Could not infer dtype of NoneType$"):
        jtorch.tensor([None])
    with pytest.raises(ValueError, match=r"^Overflow when unpacking long long$"):
        jtorch.tensor([2 ** 63])
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type uint8 without overflow$"):
        jtorch.tensor([300], dtype=jtorch.uint8)
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int32 without overflow$"):
        jtorch.tensor([float("nan")], dtype=jtorch.int32)
    with pytest.raises(TypeError, match=r"^must be real number, not complex$"):
        jtorch.tensor([1 + 2j], dtype=jtorch.float32)
    with pytest.raises(TypeError, match=r"^'complex' object cannot be interpreted as an integer$"):
        jtorch.tensor([1 + 2j], dtype=jtorch.int32)
    with pytest.raises(ValueError, match=r"^At least one stride in the given numpy array is negative"):
        jtorch.tensor(np.arange(4)[::-1])


def test_tensor_explicit_dtype_conversions():
    assert npv(jtorch.tensor([-1, -200], dtype=jtorch.uint8)).tolist() == [255, 56]  # C cast after the check
    assert npv(jtorch.tensor([1.5, -1.5], dtype=jtorch.int8)).tolist() == [1, -1]
    assert npv(jtorch.tensor([1e300], dtype=jtorch.float32)).tolist() == [float("inf")]
    assert npv(jtorch.tensor([70000.0], dtype=jtorch.float16)).tolist() == [float("inf")]
    assert npv(jtorch.tensor([1 + 2 ** -11 + 2 ** -40], dtype=jtorch.float16)).tolist() == [1.0]  # via float
    assert npv(jtorch.tensor([300, 0.0, 1j, 0], dtype=jtorch.bool)).tolist() == [True, False, True, False]


TENSOR_CORPUS = """
torch.tensor([np.bool_(True), 2])
torch.tensor([True, 3], dtype=torch.uint8)
torch.tensor([2**63 - 1, 1.5])
torch.tensor([-2**63])
torch.tensor([1e300], dtype=torch.int64)
torch.tensor([1e5], dtype=torch.int16)
torch.tensor([2**40], dtype=torch.int32)
torch.tensor([-256], dtype=torch.uint8)
torch.tensor([-1.5], dtype=torch.uint8)
torch.tensor([float('inf')], dtype=torch.int32)
torch.tensor([2**63, -2**63 - 1], dtype=torch.float64)
torch.tensor([2**40], dtype=torch.float16)
torch.tensor([1e300, 1+2j], dtype=torch.complex64)
torch.tensor([[1, 2.5], [3, 4]], dtype=torch.int32)
torch.tensor([np.float32(1.5)], dtype=torch.int32)
torch.tensor([torch.tensor(1.5)], dtype=torch.int64)
torch.tensor([[torch.tensor(2), 3]])
torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])
torch.tensor([np.array(5), np.array(6)])
torch.tensor(np.array([[1., 2.], [3, 4]]).T)
torch.tensor(np.zeros((2, 0, 3)))
torch.tensor([[1, 2], (3, 4)])
torch.tensor([range(2), [3, 4]])
torch.tensor(object())
torch.tensor(None)
torch.tensor([np.bool_(True)])
torch.tensor(np.bool_(True), dtype=torch.int64)
torch.tensor([np.float32(2.5)], dtype=torch.bool)
torch.as_tensor(np.arange(6.).reshape(2, 3).T)
torch.as_tensor(np.arange(6.).reshape(2, 3), dtype=torch.int32)
torch.as_tensor([1, 2], dtype=torch.float64)
torch.as_tensor(3)
torch.from_numpy(np.arange(12.).reshape(3, 4)[::2, 1:])
torch.from_numpy(np.arange(12.).reshape(3, 4).T)
torch.from_numpy(np.broadcast_to(np.arange(3.), (2, 3)))
torch.from_numpy(np.array(5.0))
torch.from_numpy(np.zeros((0, 3)))
torch.from_numpy(np.zeros((4, 3), dtype=np.complex64)[::2])
torch.from_numpy(np.array([1.0], dtype='>f8'))
torch.from_numpy(np.ndarray((2,), dtype=np.int32, buffer=np.zeros(9, np.int8), offset=1, strides=(3,)))
torch.from_numpy([1, 2])
torch.from_numpy(np.float64(1))
torch.Tensor()
torch.Tensor([1, 2])
torch.Tensor((2, 3))
torch.Tensor([True, False])
torch.Tensor([1+1j])
torch.Tensor(torch.Size([2, 3])).shape
torch.Tensor(2, 3).shape
torch.Tensor(3.5)
torch.Tensor(np.array([1, 2]))
torch.Tensor(torch.tensor([1, 2]))
torch.Tensor([1, 2], device='meta')
torch.Tensor(2, device='meta')
torch.Tensor(-1)
torch.Tensor([[1, 2], [3]])
torch.Tensor(2, 3.0)
torch.Tensor(np.int64(3)).shape
torch.Tensor(np.float64(3))
torch.Tensor(True)
torch.Tensor('a')
torch.Tensor(None)
torch.Tensor([torch.tensor(1), torch.tensor(2)])
torch.Tensor(torch.tensor(5.0))
torch.Tensor(range(3))
""".strip().splitlines()


@pytest.mark.parametrize("src", TENSOR_CORPUS)
def test_tensor_corpus_matches_torch(src):
    torch = oracle_torch()
    source_matches_torch(src, torch)


@settings(max_examples=50, deadline=None)
@given(st.recursive(st.one_of(st.integers(-2 ** 40, 2 ** 40), st.floats(-1e6, 1e6, allow_nan=False), st.booleans(),
                              st.complex_numbers(max_magnitude=1e3, allow_nan=False)),
                    lambda inner: st.lists(inner, min_size=1, max_size=3), max_leaves=12))
def test_tensor_property_dtype_and_values_match_torch(data):
    torch = oracle_torch()
    a, b = source_outcome(torch, f"torch.tensor({data!r})"), source_outcome(jtorch, f"torch.tensor({data!r})")
    if isinstance(a, tuple) and len(a) == 4:
        assert a[:3] == b[:3]
        np.testing.assert_array_equal(a[3], b[3])
    else:
        assert a == b


# ---- from_numpy / as_tensor -----------------------------------------------------------------------------
@pytest.mark.parametrize("np_dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16,
                                      np.float32, np.float64, np.complex64, np.complex128])
def test_from_numpy_shares_memory_both_ways(np_dtype):
    a = np.zeros((3, 4), dtype=np_dtype)
    t = jtorch.from_numpy(a)
    assert t.dtype is jtorch.dtypes.from_numpy_dtype(np.dtype(np_dtype)) and t.stride() == (4, 1)
    a[1, 2] = 1
    assert npv(t)[1, 2] == 1
    t.numpy()[2, 3] = 1
    assert a[2, 3] == 1
    assert t.data_ptr() == a.__array_interface__["data"][0]


@pytest.mark.parametrize("make", [lambda a: a.T, lambda a: a[::2, 1:], lambda a: a[:, ::3], lambda a: a[1:, 2],
                                  lambda a: np.broadcast_to(a[0], (5, 6)), lambda a: a[:0], lambda a: a[2, 3, ...]])
def test_from_numpy_keeps_strides_and_offset(make):
    base = np.arange(30.0).reshape(5, 6)
    a = make(base)
    t = jtorch.from_numpy(a)
    assert t.shape == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    np.testing.assert_array_equal(npv(t), a)
    if a.size and a.flags.writeable:
        t.numpy()[...] = -1
        assert (a == -1).all()


def test_from_numpy_errors():
    with pytest.raises(TypeError, match=r"^expected np\.ndarray \(got list\)$"):
        jtorch.from_numpy([1, 2])
    with pytest.raises(TypeError, match=r"^expected np\.ndarray \(got numpy\.float64\)$"):
        jtorch.from_numpy(np.float64(1))
    with pytest.raises(ValueError, match=r"^At least one stride in the given numpy array is negative, and tensors "
                                         r"with negative strides are not currently supported\. \(You can probably "
                                         r"work around this by making a copy of your array  with array\.copy\(\)\.\) $"):
        jtorch.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(ValueError, match=r"^given numpy array strides not a multiple of the element byte size\. "
                                         r"Copy the numpy array to reallocate the memory\.$"):
        jtorch.from_numpy(np.ndarray((2,), dtype=np.int32, buffer=np.zeros(9, np.int8), offset=1, strides=(3,)))
    with pytest.raises(ValueError, match=r"^given numpy array has byte order different from the native byte order"):
        jtorch.from_numpy(np.array([1.0], dtype=">f8"))
    with pytest.raises(TypeError, match=r"^can't convert np\.ndarray of type numpy\.str_\. The only supported types "
                                        r"are: "):
        jtorch.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError, match=r"^can't convert np\.ndarray of type numpy\.object_"):
        jtorch.from_numpy(np.zeros(3, dtype=object))


def test_from_numpy_warns_once_for_read_only_arrays():
    import jtorch.native.tensor_new as f

    f._warned_not_writable = False
    a = np.arange(3.0)
    a.setflags(write=False)
    with pytest.warns(UserWarning, match=r"^The given NumPy array is not writable"):
        jtorch.from_numpy(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.from_numpy(a)  # suppressed for the rest of the program, as in PyTorch


def test_as_tensor_does_not_copy_when_it_can():
    a = np.arange(6.0).reshape(2, 3).T
    t = jtorch.as_tensor(a)
    assert t.data_ptr() == a.__array_interface__["data"][0] and t.stride() == (1, 3)
    a[0, 0] = 42
    assert npv(t)[0, 0] == 42
    x = jtorch.tensor([1, 2])
    assert jtorch.as_tensor(x) is x
    assert jtorch.as_tensor(x, dtype=jtorch.int64) is x and jtorch.as_tensor(x, device="cpu") is x
    y = jtorch.as_tensor(x, dtype=jtorch.float32)
    assert y is not x and y.dtype is jtorch.float32 and y.tolist() == [1.0, 2.0]
    c = jtorch.as_tensor(a, dtype=jtorch.float32)  # a different dtype: a copy
    a[0, 0] = 7
    assert npv(c)[0, 0] == 42
    assert jtorch.as_tensor([1, 2], dtype=jtorch.float64).dtype is jtorch.float64
    m = jtorch.as_tensor(a, device="meta")
    assert m.is_meta and m.shape == (3, 2)


# ---- the legacy constructor -------------------------------------------------------------------------------
def test_legacy_constructor():
    assert jtorch.Tensor().shape == (0,) and jtorch.Tensor().dtype is jtorch.float32
    t = jtorch.Tensor(2, 3)
    assert t.shape == (2, 3) and t.dtype is jtorch.float32
    assert jtorch.Tensor([1, 2]).dtype is jtorch.float32 and jtorch.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert jtorch.Tensor(jtorch.Size([2, 3])).shape == (2, 3)
    assert jtorch.Tensor((2, 3)).tolist() == [2.0, 3.0]
    src = jtorch.tensor([1, 2])
    alias = jtorch.Tensor(src)
    assert alias is not src and alias.dtype is jtorch.int64 and alias.data_ptr() == src.data_ptr()
    with pytest.raises(TypeError, match=r"^new\(\): data must be a sequence \(got float\)$"):
        jtorch.Tensor(3.5)
    with pytest.raises(RuntimeError, match=r"^legacy constructor expects device type: cpu but device type: meta was "
                                           r"passed$"):
        jtorch.Tensor([1, 2], device="meta")
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        jtorch.Tensor(-1)
    with pytest.raises(TypeError, match=r"^new\(\): argument 'size' failed to unpack the object at pos 2 with error "
                                        r"\"type must be tuple of ints,but got float\"$"):
        jtorch.Tensor(2, 3.0)
    with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments - got "):
        jtorch.Tensor(2, 3, dtype=jtorch.int32)


def test_pickle_round_trip():
    import pickle

    t = jtorch.tensor([[1.5, 2.0], [3.0, 4.0]], requires_grad=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == t.tolist() and u.dtype is t.dtype and u.requires_grad


# ---- the FACTORY corpus against torch --------------------------------------------------------------
FACTORY_CORPUS = """
torch.zeros(())
torch.zeros(2, 3, dtype=torch.int8)
torch.full((2,), 1.5, dtype=torch.int32)
torch.full((2,), float('nan'), dtype=torch.int32)
torch.full((2,), 2**63)
torch.full_like(torch.tensor([1, 2]), 2.5)
torch.full_like(torch.tensor([1, 2]), 1e300)
torch.eye(3, 2)
torch.eye(0)
torch.arange(0, 1, 0.1)
torch.arange(0.1, 7.3, 0.013)
torch.arange(-2.2, 1000.1, 0.37, dtype=torch.float64)
torch.arange(-2.2, 300.1, 0.37, dtype=torch.float16)
torch.arange(10, 0, -3)
torch.arange(-1.5, 2.5, 1.5, dtype=torch.int64)
torch.linspace(0.3, -17.1, 1001)
torch.linspace(0.3, -17.1, 1001, dtype=torch.float16)
torch.linspace(0.3, 17.1 - 3j, 101, dtype=torch.complex128)
torch.linspace(-3, 1001, 77, dtype=torch.int16)
torch.linspace(-7, 100, 7, dtype=torch.uint8)
torch.linspace(torch.tensor(0.), 1, 3)
torch.linspace(torch.tensor([0., 1.]), 1, 3)
torch.zeros_like(torch.empty(2, 3, 4, 5).permute(0, 2, 3, 1), memory_format=torch.contiguous_format)
torch.zeros_like(torch.empty(3, 1, 4)[:, :, ::2])
torch.empty(2, 0, 4, 5, memory_format=torch.channels_last).stride()
torch.arange(5).new_full((2,), 3.7)
torch.full((1,), 1e6, dtype=torch.half)
torch.full((3,), 1e6, dtype=torch.half)
torch.full((2,), 65519.0, dtype=torch.half)
torch.full((1,), 1+1j, dtype=torch.half)
torch.full((2,), 1+1j, dtype=torch.half)
torch.full((1,), 2**64, dtype=torch.int64)
torch.full((1,), -2**63-1, dtype=torch.int64)
torch.full((2,), -200, dtype=torch.uint8)
torch.full((1,), complex(1e300, 0), dtype=torch.complex64)
torch.linspace(1e6, 1, 3, dtype=torch.half)
torch.arange(0, 2**64, 2**62)
torch.randperm(70000, dtype=torch.half)
torch.zeros(1, dtype=torch.int8).random_(0, 1000)
torch.arange(120.).reshape(4, 5, 6).permute(2, 0, 1)[:, ::2].clone()
torch.arange(120.).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, ::2].to(torch.float64)
""".strip().splitlines()


@pytest.mark.parametrize("src", FACTORY_CORPUS)
def test_factory_corpus_matches_torch(src):
    torch = oracle_torch()
    source_matches_torch(src, torch)

