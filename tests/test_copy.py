"""copy_, fill_, zero_, clone: values against NumPy's astype (and torch when installed), layouts,
memory overlap, version counters, meta tensors and PyTorch's error texts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch.tensor import Tensor
from _torch_oracle import oracle_torch

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
             np.complex64, np.complex128]
J_DTYPES = [jtorch.bool, jtorch.uint8, jtorch.int8, jtorch.int16, jtorch.int32, jtorch.int64, jtorch.float16,
            jtorch.float32, jtorch.float64, jtorch.complex64, jtorch.complex128]
PAIRS = [(s, d) for s in NP_DTYPES for d in NP_DTYPES]
GRAIN = 32768


def tensor(values, dtype=None) -> Tensor:
    """A CPU tensor over a fresh NumPy array (shares its memory)."""
    return jtorch.from_dlpack(np.array(values, dtype=dtype))


def strided(t: Tensor, size, stride, offset=0) -> Tensor:
    """A view of t's storage (what as_strided gives): shares storage and version counter."""
    return Tensor._make(t._storage, tuple(size), tuple(stride), offset, t.dtype, t.device, t._vc, t)


def empty(shape, dtype) -> Tensor:
    return tensor(np.zeros(shape, dtype=dtype))


def values_for(src, dst, n: int, rng: np.random.Generator) -> np.ndarray:
    """n values of dtype `src` whose conversion to `dst` NumPy's astype defines (NaN/inf included
    where the target is floating, integer wrap-around included between integer types)."""
    s, d = np.dtype(src), np.dtype(dst)
    if s.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if s.kind in "iu":
        info = np.iinfo(s)
        lo, hi = int(info.min), int(info.max)
        if d == np.float16:  # stay inside float16's range
            lo, hi = max(lo, -60000), min(hi, 60000)
        return rng.integers(lo, hi, n, endpoint=True, dtype=s)
    real = np.dtype(s.char.lower() if s.kind == "f" else {8: "f4", 16: "f8"}[s.itemsize])
    if d.kind in "iu":  # floats into integers: only the target's range is defined
        info = np.iinfo(d)
        top = min(float(info.max), float(np.finfo(real).max)) * 0.99
        bottom = 0.0 if info.min == 0 else max(float(info.min), -float(np.finfo(real).max)) * 0.99
        r = rng.uniform(bottom, top, n).astype(real)
        r[: n // 4] = np.trunc(r[: n // 4])  # some exact integers
    else:
        scale = 1000.0 if (d == np.float16 or real == np.float16) else 1e6
        r = (rng.standard_normal(n) * scale).astype(real)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5], dtype=real)
        k = min(n, len(specials))
        r[:k] = specials[:k]
    if s.kind == "f":
        return r.astype(s)
    im = (rng.standard_normal(n) * 10).astype(real)
    if d.kind == "b" and n > 4:
        r[-2:] = 0
        im[-1] = 0  # 0+0j -> False, 0+xj -> True
    return (r + 1j * im).astype(s)


def expected(vals: np.ndarray, dst) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vals.astype(dst)


@pytest.fixture(autouse=True)
def _quiet_complex_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Casting complex values to real")
        yield


# ---- every dtype pair ---------------------------------------------------------------------------------
@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{np.dtype(s).name}->{np.dtype(d).name}" for s, d in PAIRS])
def test_copy_dtype_pairs_layouts(src, dst):
    rng = np.random.default_rng(hash((np.dtype(src).name, np.dtype(dst).name)) % 2 ** 32)
    # contiguous
    vals = values_for(src, dst, 64, rng)
    out = empty(64, dst)
    r = out.copy_(tensor(vals))
    assert r is out
    np.testing.assert_array_equal(out.numpy(), expected(vals, dst))
    # transposed source into a contiguous destination
    vals = values_for(src, dst, 42, rng).reshape(6, 7)
    s = tensor(vals)
    out = empty((7, 6), dst)
    out.copy_(strided(s, (7, 6), (1, 7)))
    np.testing.assert_array_equal(out.numpy(), expected(vals.T, dst))
    # stepped-slice destination (every other element, offset 1): the rest stays untouched
    vals = values_for(src, dst, 20, rng)
    base = empty(41, dst)
    strided(base, (20,), (2,), 1).copy_(tensor(vals))
    want = np.zeros(41, dtype=dst)
    want[1::2] = expected(vals, dst)
    np.testing.assert_array_equal(base.numpy(), want)
    # broadcast source: (6,) and (5, 1) into (5, 6) through a transposed destination
    row = values_for(src, dst, 6, rng)
    out = empty((6, 5), dst)
    strided(out, (5, 6), (1, 5)).copy_(tensor(row))
    np.testing.assert_array_equal(out.numpy().T, np.broadcast_to(expected(row, dst), (5, 6)))
    col = values_for(src, dst, 5, rng).reshape(5, 1)
    out = empty((5, 6), dst)
    out.copy_(tensor(col))
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(expected(col, dst), (5, 6)))


LARGE_PAIRS = [(np.float32, np.float64), (np.float64, np.float16), (np.float16, np.float32), (np.int64, np.int8),
               (np.complex128, np.float32), (np.float32, np.complex64), (np.int32, np.bool_), (np.uint8, np.int64),
               (np.float64, np.int32), (np.bool_, np.float16), (np.float32, np.float32), (np.complex64, np.complex128)]


@pytest.mark.parametrize("src,dst", LARGE_PAIRS,
                         ids=[f"{np.dtype(s).name}->{np.dtype(d).name}" for s, d in LARGE_PAIRS])
def test_copy_large_parallel(src, dst):
    """Above the grain size the kernels run in parallel chunks: contiguous and strided."""
    rng = np.random.default_rng(7)
    n = 200 * 201
    assert n > GRAIN
    vals = values_for(src, dst, n, rng)
    out = empty(n, dst)
    out.copy_(tensor(vals))
    np.testing.assert_array_equal(out.numpy(), expected(vals, dst))
    m = vals.reshape(200, 201)
    out = empty((201, 200), dst)
    out.copy_(strided(tensor(m), (201, 200), (1, 201)))
    np.testing.assert_array_equal(out.numpy(), expected(m.T, dst))


def test_copy_small_sizes_below_grain():
    for n in (0, 1, 2, 3, 17, GRAIN - 1, GRAIN, GRAIN + 1):
        vals = np.arange(n, dtype=np.float64) * 0.5
        out = empty(n, np.float32)
        out.copy_(tensor(vals))
        np.testing.assert_array_equal(out.numpy(), vals.astype(np.float32))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=4), data=st.data())
def test_copy_property_broadcast_and_permuted(shape, data):
    """Random shapes, a permuted destination and a source broadcast from size-1 / missing dims."""
    shape = tuple(shape)
    n = len(shape)
    perm = data.draw(st.permutations(range(n)))
    keep = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    drop = data.draw(st.integers(0, n))
    src_shape = tuple(s if k else 1 for s, k in zip(shape, keep))[drop:]
    vals = np.arange(int(np.prod(src_shape)), dtype=np.int32).reshape(src_shape) * 3 - 7
    # destination: a contiguous buffer in permuted order, viewed back in `shape` order
    pshape = tuple(shape[p] for p in perm)
    buf = empty(pshape, np.float64)
    pstride = buf.stride()
    stride = [0] * n
    for i, p in enumerate(perm):
        stride[p] = pstride[i]
    dst = strided(buf, shape, stride)
    dst.copy_(tensor(vals))
    want = np.broadcast_to(vals, shape).astype(np.float64)
    np.testing.assert_array_equal(dst.numpy(), want)


def test_copy_matches_torch_all_pairs():
    torch = oracle_torch()
    rng = np.random.default_rng(0)
    for (src, dst), jd in zip(PAIRS, [d for _ in NP_DTYPES for d in J_DTYPES]):
        vals = values_for(src, dst, 16, rng)
        out = empty(16, dst)
        out.copy_(tensor(vals))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = torch.zeros(16, dtype=getattr(torch, jd.name)).copy_(torch.from_numpy(vals.copy()))
        np.testing.assert_array_equal(out.numpy(), t.numpy(), err_msg=f"{np.dtype(src)} -> {np.dtype(dst)}")


# ---- copy_ semantics --------------------------------------------------------------------------------------
def test_copy_shape_errors():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 0$"):
        empty(3, np.float32).copy_(empty(2, np.float32))
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        empty(3, np.float32).copy_(empty((2, 3), np.float32))
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 0$"):
        empty((3, 0), np.float32).copy_(empty((2, 0), np.float32))
    out = empty((3, 0), np.float32)
    assert out.copy_(empty((1, 0), np.float32)) is out
    with pytest.raises(RuntimeError, match=r"^output with shape \[\] doesn't match the broadcast shape \[2\]$"):
        empty((), np.float32).copy_(empty(2, np.float32))


def test_copy_scalar_sources():
    out = empty(3, np.float32)
    out.copy_(5)
    np.testing.assert_array_equal(out.numpy(), [5, 5, 5])
    out.copy_(tensor(2.5))
    np.testing.assert_array_equal(out.numpy(), [2.5, 2.5, 2.5])
    z = empty((), np.int16)
    z.copy_(tensor(7))
    assert z.item() == 7


def test_copy_bumps_version_through_views():
    base = empty(6, np.float32)
    v = strided(base, (3,), (2,), 0)
    assert base._version == 0
    v.copy_(tensor([1.0, 2.0, 3.0]))
    assert base._version == 1 and v._version == 1
    np.testing.assert_array_equal(base.numpy(), [1, 0, 2, 0, 3, 0])
    src = tensor([1.0, 2.0])
    empty(2, np.float32).copy_(src)
    assert src._version == 0


def test_copy_non_blocking_is_accepted():
    out = empty(2, np.float64)
    out.copy_(tensor([1, 2]), non_blocking=True)
    np.testing.assert_array_equal(out.numpy(), [1, 2])
    out.copy_(tensor([3, 4]), True)
    np.testing.assert_array_equal(out.numpy(), [3, 4])


def test_copy_complex_to_real_warns_once():
    import jtorch.warn

    jtorch.warn.warned.discard(jtorch.warn.COMPLEX_TO_REAL)
    out = empty(2, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.copy_(tensor([1 + 2j, 3 - 1j]))
        out.copy_(tensor([1 + 2j, 3 - 1j]))
        empty(2, np.bool_).copy_(tensor([1j, 0j]))
    msgs = [str(x.message) for x in w]
    assert msgs == ["Casting complex values to real discards the imaginary part"]
    assert w[0].filename == __file__  # points at the caller, not into jtorch
    np.testing.assert_array_equal(out.numpy(), [1, 3])


# ---- memory overlap ------------------------------------------------------------------------------------------
PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")
INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
            "Please clone() the tensor before performing the operation.")


def test_copy_partial_overlap_errors():
    a = tensor(np.arange(10.0))
    with pytest.raises(RuntimeError) as e:
        strided(a, (9,), (1,), 1).copy_(strided(a, (9,), (1,), 0))
    assert str(e.value) == PARTIAL
    m = tensor(np.arange(9.0).reshape(3, 3))
    with pytest.raises(RuntimeError) as e:
        m.copy_(strided(m, (3, 3), (1, 3)))  # its own transpose
    assert str(e.value) == PARTIAL


def test_copy_internal_overlap_error():
    a = tensor(np.arange(4.0))
    with pytest.raises(RuntimeError) as e:
        strided(a, (2, 4), (0, 1)).copy_(empty((2, 4), np.float64))
    assert str(e.value) == INTERNAL


def test_copy_full_overlap_and_disjoint_views():
    a = tensor(np.arange(9.0).reshape(3, 3))
    a.copy_(strided(a, (3, 3), (3, 1)))  # same memory, same layout: fine
    np.testing.assert_array_equal(a.numpy(), np.arange(9.0).reshape(3, 3))
    b = tensor(np.arange(10.0))
    strided(b, (5,), (1,), 0).copy_(strided(b, (5,), (1,), 5))
    np.testing.assert_array_equal(b.numpy(), [5, 6, 7, 8, 9, 5, 6, 7, 8, 9])
    c = tensor(np.arange(10.0))
    strided(c, (5,), (2,), 0).copy_(strided(c, (5,), (2,), 1))
    np.testing.assert_array_equal(c.numpy(), [1, 1, 3, 3, 5, 5, 7, 7, 9, 9])


def test_copy_overlapping_non_dense_reads_before_writing():
    """Overlaps PyTorch cannot classify (non-dense views) copy through a temporary: every element
    of the source is read before any is written, as NumPy's slice assignment does."""
    a = tensor(np.arange(40.0).reshape(4, 10))
    want = np.arange(40.0).reshape(4, 10)
    want[:, 1:9] = want[:, 0:8].copy()
    strided(a, (4, 8), (10, 1), 1).copy_(strided(a, (4, 8), (10, 1), 0))
    np.testing.assert_array_equal(a.numpy(), want)
    # with a dtype conversion and a large size
    n = 300
    b = tensor(np.arange(n * n, dtype=np.float64).reshape(n, n))
    want = np.arange(n * n, dtype=np.float64).reshape(n, n)
    want[:, 1:] = want[:, :-1].copy()
    strided(b, (n, n - 1), (n, 1), 1).copy_(strided(b, (n, n - 1), (n, 1), 0))
    np.testing.assert_array_equal(b.numpy(), want)


def test_copy_between_distinct_storages_over_same_memory():
    arr = np.arange(10.0)
    x = jtorch.from_dlpack(arr[1:])
    y = jtorch.from_dlpack(arr[:-1])
    assert x.untyped_storage() is not y.untyped_storage()
    x.copy_(y)  # different storages to PyTorch; still read before written
    np.testing.assert_array_equal(arr, [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])


# ---- meta --------------------------------------------------------------------------------------------------
def test_copy_meta():
    m = empty(3, np.float32).to("meta")
    assert m.copy_(empty(3, np.int64)) is m
    assert m.copy_(empty(1, np.int64)) is m
    assert m._version == 2
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        m.copy_(empty(2, np.float32))
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        m.copy_(empty((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match=r"^Cannot copy out of meta tensor; no data!$"):
        empty(3, np.float32).copy_(m)
    m2 = empty((2, 3), np.float32).to("meta")
    assert m2.copy_(m2) is m2


# ---- fill_ / fill / zero_ ------------------------------------------------------------------------------------
@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=[np.dtype(d).name for d in NP_DTYPES])
def test_fill_every_dtype(np_dtype):
    d = np.dtype(np_dtype)
    values = [True, 0, 1, 3] + ([1.5, -0.0] if d.kind in "fc" else []) + ([2 - 1j] if d.kind == "c" else [])
    if d.kind in "fc":
        values += [float("nan"), float("inf")]
    for v in values:
        t = empty((2, 3), np_dtype)
        assert t.fill_(v) is t
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), v).astype(np_dtype))
    t = empty(5, np_dtype)
    t.zero_()
    np.testing.assert_array_equal(t.numpy(), np.zeros(5, np_dtype))


def test_fill_conversion_rules_match_torch():
    cases = [(np.int64, 2.7, 2), (np.int64, -2.7, -2), (np.uint8, -1, 255), (np.uint8, -255, 1), (np.bool_, 2, True),
             (np.bool_, -1, True), (np.bool_, 2.5, True), (np.bool_, float("nan"), True), (np.bool_, 1j, True),
             (np.bool_, 0.0, False), (np.float16, 65504.0, 65504.0), (np.int32, -2 ** 31, -2 ** 31),
             (np.int64, 2 ** 63 - 1, 2 ** 63 - 1), (np.float32, 2 ** 63, 2.0 ** 63), (np.complex64, True, 1),
             (np.float32, 1 + 0j, 1.0), (np.int64, True, 1)]
    for dt, v, want in cases:
        t = empty(3, dt)
        t.fill_(v)
        assert t.numpy().tolist() == [want] * 3, (dt, v)
    torch = oracle_torch()
    for dt, v, want in cases:
        tdt = getattr(torch, jtorch.dtypes.from_numpy_dtype(dt).name)
        assert torch.zeros(3, dtype=tdt).fill_(v).tolist() == [want] * 3


OVERFLOWS = [(np.int8, -129, "int8_t"), (np.int8, 1000, "int8_t"), (np.uint8, -256, "uint8_t"),
             (np.uint8, 300, "uint8_t"), (np.uint8, 255.5, "uint8_t"), (np.uint8, -1.5, "uint8_t"), (np.uint8, 2 ** 63, "uint8_t"),
             (np.int16, 40000, "int16_t"), (np.int32, 2 ** 31, "int"), (np.int64, 2 ** 63, "int64_t"),
             (np.int64, float("nan"), "int64_t"), (np.int64, float("inf"), "int64_t"),
             (np.float16, 65519.0, "c10::Half"), (np.float16, 70000, "c10::Half"), (np.float32, 1e300, "float"),
             (np.float32, 1 + 2j, "float"), (np.float64, 1j, "double"), (np.complex64, 1e300, "c10::complex<float>"),
             (np.int32, 2.5 + 1j, "int")]


@pytest.mark.parametrize("dt,v,name", OVERFLOWS)
def test_fill_overflow_errors(dt, v, name):
    t = empty(3, dt)
    with pytest.raises(RuntimeError) as e:
        t.fill_(v)
    assert str(e.value) == f"value cannot be converted to type {name} without overflow"
    torch = oracle_torch()
    with pytest.raises(RuntimeError) as te:
        torch.zeros(3, dtype=getattr(torch, jtorch.dtypes.from_numpy_dtype(dt).name)).fill_(v)
    assert str(te.value) == str(e.value)


def test_fill_python_int_too_big():
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        empty(3, np.int32).fill_(2 ** 64)
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        empty(3, np.int64).fill_(-2 ** 63 - 1)


def test_fill_tensor_value():
    t = empty(4, np.float32)
    t.fill_(tensor(2.5))
    np.testing.assert_array_equal(t.numpy(), [2.5] * 4)
    u = empty(3, np.uint8)
    u.fill_(tensor(300))  # a tensor value is copied (wraps), not overflow-checked
    np.testing.assert_array_equal(u.numpy(), [44] * 3)
    with pytest.raises(RuntimeError, match=r"^fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           r"dimensions.$"):
        t.fill_(tensor([1.0]))
    # the value is an element of self
    a = tensor(np.arange(4.0))
    a.fill_(strided(a, (), (), 2))
    np.testing.assert_array_equal(a.numpy(), [2, 2, 2, 2])
    # into an expanded tensor: fill_(Scalar) is fine, fill_(Tensor) copies and refuses
    b = tensor(np.arange(4.0))
    strided(b, (2, 4), (0, 1)).fill_(3)
    np.testing.assert_array_equal(b.numpy(), [3, 3, 3, 3])
    strided(b, (2, 4), (0, 1)).zero_()
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0, 0])
    with pytest.raises(RuntimeError) as e:
        strided(b, (2, 4), (0, 1)).fill_(tensor(2.0))
    assert str(e.value) == INTERNAL


def test_fill_functional_and_function_variants():
    t = tensor(np.arange(6.0).reshape(2, 3))
    f = jtorch.fill(t, 7)
    assert f is not t and f.dtype is jtorch.float64 and f.shape == (2, 3)
    np.testing.assert_array_equal(f.numpy(), np.full((2, 3), 7.0))
    np.testing.assert_array_equal(t.numpy(), np.arange(6.0).reshape(2, 3))
    f2 = jtorch.fill(t, tensor(1.5))
    np.testing.assert_array_equal(f2.numpy(), np.full((2, 3), 1.5))
    assert jtorch.fill_(t, 2) is t
    assert jtorch.zero_(t) is t
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3)))
    assert not hasattr(Tensor, "fill")  # torch has no Tensor.fill method


def test_fill_zero_versions_and_meta():
    base = empty(6, np.float32)
    v = strided(base, (3,), (2,), 1)
    v.fill_(1)
    v.zero_()
    v.fill_(tensor(3.0))
    assert base._version == 3
    np.testing.assert_array_equal(base.numpy(), [0, 3, 0, 3, 0, 3])
    m = empty(3, np.uint8).to("meta")
    assert m.fill_(300) is m  # the meta kernel does not look at the value
    assert m.zero_() is m
    assert m.fill_(tensor(2)) is m
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        m.fill_(tensor([2]))
    # a CPU tensor filled from a meta value dispatches to Meta (the higher backend): nothing happens
    c = tensor([1.0, 1.0])
    c.fill_(tensor(5.0).to("meta"))
    np.testing.assert_array_equal(c.numpy(), [1, 1])


# ---- clone -----------------------------------------------------------------------------------------------------
def test_clone_values_and_independence():
    for np_dtype in NP_DTYPES:
        vals = values_for(np_dtype, np_dtype, 12, np.random.default_rng(1)).reshape(3, 4)
        t = tensor(vals)
        c = t.clone()
        assert c.dtype is t.dtype and c.shape == t.shape and c._version == 0
        np.testing.assert_array_equal(c.numpy(), vals)
        assert c.data_ptr() != t.data_ptr()
        assert c._base is None
    t = tensor([1.0, 2.0])
    c = jtorch.clone(t)
    c.fill_(0)
    np.testing.assert_array_equal(t.numpy(), [1, 2])


def test_clone_memory_formats():
    buf = empty((2, 4, 5, 3), np.float32)  # NHWC storage order
    nchw = strided(buf, (2, 3, 4, 5), (60, 1, 15, 3))
    assert nchw.clone().stride() == (60, 1, 15, 3)  # preserve: dense input keeps its strides
    assert nchw.clone(memory_format=jtorch.contiguous_format).stride() == (60, 20, 5, 1)
    c = empty((2, 3, 4, 5), np.float32)
    assert c.clone(memory_format=jtorch.channels_last).stride() == (60, 1, 15, 3)
    assert c.clone(memory_format=jtorch.preserve_format).stride() == (60, 20, 5, 1)
    m = tensor(np.arange(12.0).reshape(3, 4))
    assert strided(m, (4, 3), (1, 4)).clone().stride() == (1, 4)  # transposed: dense, kept
    sl = strided(m, (3, 2), (4, 2))  # m[:, ::2]: not dense -> contiguous
    c = sl.clone()
    assert c.stride() == (2, 1)
    np.testing.assert_array_equal(c.numpy(), np.arange(12.0).reshape(3, 4)[:, ::2])
    ex = strided(tensor([1.0, 2.0, 3.0]), (4, 2, 3), (0, 0, 1))  # expanded -> contiguous
    assert ex.clone().stride() == (6, 3, 1)
    # not dense but channels_last-like strides: the suggested memory format is channels_last
    cl = strided(buf, (2, 3, 2, 5), (60, 1, 30, 3))
    assert cl.clone().stride() == (30, 1, 15, 3)
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        m.clone(memory_format=jtorch.channels_last)
    with pytest.raises(TypeError):
        m.clone(jtorch.contiguous_format)  # memory_format is keyword-only


def test_clone_matches_torch_strides():
    torch = oracle_torch()
    cases = [((3, 4), (4, 1)), ((4, 3), (1, 4)), ((3, 2), (4, 2)), ((2, 3), (0, 1)), ((2, 3, 4, 5), (60, 1, 15, 3)),
             ((2, 3, 2, 5), (60, 1, 30, 3)), ((1, 3, 1, 1), (3, 1, 1, 1))]
    for size, stride in cases:
        n = 1 + sum((s - 1) * st for s, st in zip(size, stride))
        j = strided(empty(n, np.float32), size, stride)
        t = torch.zeros(n).as_strided(size, stride)
        assert j.clone().stride() == t.clone().stride(), (size, stride)


def test_clone_meta():
    m = empty((2, 3), np.float64).to("meta")
    c = m.clone()
    assert c.device == jtorch.device("meta") and c.shape == (2, 3) and c.dtype is jtorch.float64 and c is not m
