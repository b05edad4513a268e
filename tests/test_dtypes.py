"""Tests for jtorch.dtypes and jtorch.promotion (torch is an optional oracle)."""
import copy
import itertools
import pickle

import numpy as np
import pytest

from jtorch import dtypes as jd
from jtorch import promotion as jp
from _torch_oracle import oracle_torch

# the dtypes kernels compute on (the bits type uint1 is storage only: tests/test_unsigned_dtypes.py holds it)
ALL = tuple(d for d in jd.all_dtypes if d not in jd.bits_dtypes)
NAMES = [d.name for d in ALL]


class FakeTensor:
    """Minimal tensor-like: what promotion.result_type reads."""

    def __init__(self, dtype, ndim, wrapped=False):
        self.dtype = dtype
        self.ndim = ndim
        self._is_wrapped_number = wrapped


class NoWrappedAttr:
    def __init__(self, dtype, ndim):
        self.dtype = dtype
        self.ndim = ndim


def dim(d):
    return FakeTensor(getattr(jd, d) if isinstance(d, str) else d, 1)


def zero(d):
    return FakeTensor(getattr(jd, d) if isinstance(d, str) else d, 0)


@pytest.fixture
def torch():
    return oracle_torch()


def tdt(torch, d):
    return getattr(torch, d.name)


def jdt(td):
    """jtorch dtype for a torch dtype; complex32 -> complex64 (documented deviation)."""
    name = str(td).split(".")[1]
    return jd.complex64 if name == "complex32" else getattr(jd, name)


# ------------------------------------------------------------------ dtype objects
def test_dtype_attributes():
    assert repr(jd.float32) == str(jd.float32) == "jtorch.float32"
    assert jd.float32.name == "float32" and jd.float32.itemsize == 4
    assert jd.float16.numpy == np.float16 and jd.bool.numpy == np.bool_
    assert jd.bool.is_signed is False and jd.uint8.is_signed is False
    assert jd.int8.is_signed and jd.float16.is_signed and jd.complex64.is_signed
    assert jd.complex64.is_complex and not jd.complex64.is_floating_point
    assert jd.float64.is_floating_point and not jd.int64.is_floating_point
    assert jd.complex128.itemsize == 16 and jd.bool.itemsize == 1
    assert [d._index for d in ALL] == list(range(len(ALL)))


def test_aliases_and_identity():
    assert jd.long is jd.int64 and jd.int is jd.int32 and jd.short is jd.int16
    assert jd.half is jd.float16 and jd.float is jd.float32 and jd.double is jd.float64
    assert jd.cfloat is jd.complex64 and jd.cdouble is jd.complex128
    assert jd.float32 == jd.float and jd.float32 != jd.float64
    assert len({hash(d) for d in ALL}) == len(ALL)


def test_singleton_pickle_copy():
    for d in ALL:
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.copy(d) is d and copy.deepcopy(d) is d
    assert pickle.loads(pickle.dumps(jd.long)) is jd.int64


def test_immutable_and_not_constructible():
    with pytest.raises(AttributeError, match="not writable"):
        jd.float32.itemsize = 8
    with pytest.raises(AttributeError, match="has no attribute 'foo'"):
        jd.float32.foo = 1
    with pytest.raises(TypeError, match="cannot create 'jtorch.dtype' instances"):
        jd.dtype(None, 0, "x", "x", np.int8, False, False, True)


def test_to_real_to_complex():
    assert jd.complex64.to_real() is jd.float32 and jd.complex128.to_real() is jd.float64
    assert jd.float32.to_complex() is jd.complex64 and jd.float64.to_complex() is jd.complex128
    assert jd.int32.to_real() is jd.int32 and jd.complex64.to_complex() is jd.complex64
    assert jd.float16.to_complex() is jd.complex64  # deviation: torch gives complex32
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        jd.int32.to_complex()


def test_dtype_attributes_match_torch(torch):
    for d in ALL:
        t = tdt(torch, d)
        assert (d.is_floating_point, d.is_complex, d.is_signed, d.itemsize) == \
               (t.is_floating_point, t.is_complex, t.is_signed, t.itemsize), d
        if (d.is_floating_point and d is not jd.float16) or d.is_complex:
            assert d.to_complex().name == str(t.to_complex()).split(".")[1]
        assert d.to_real().name == str(t.to_real()).split(".")[1]


# ------------------------------------------------------------------ numpy mapping
def test_numpy_round_trip():
    for d in ALL:
        if d is jd.bfloat16:  # NumPy has none: its opaque storage type is jtorch's own, never a user's
            with pytest.raises(TypeError, match="numpy.void"):
                jd.from_numpy_dtype(d.numpy)
            assert jd.from_buffer_dtype(d.numpy) is d
            continue
        assert jd.from_numpy_dtype(jd.to_numpy_dtype(d)) is d
        assert jd.from_numpy_dtype(d.numpy.type) is d
        assert jd.from_numpy_dtype(np.zeros(1, d.numpy).dtype) is d
    assert jd.from_numpy_dtype(np.longlong) is jd.int64
    assert jd.from_numpy_dtype(np.intc) is jd.int32
    assert jd.from_numpy_dtype(">f4") is jd.float32


@pytest.mark.parametrize("bad, name", [(object, "object_"), (np.void, "void"),
                                       (np.str_, "str_"), (np.longdouble, "longdouble")])
def test_numpy_unsupported(bad, name):
    with pytest.raises(TypeError) as e:
        jd.from_numpy_dtype(bad)
    assert str(e.value) == (
        f"can't convert np.ndarray of type numpy.{name}. The only supported types are: "
        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
        "uint64, uint32, uint16, uint8, and bool.")


# ------------------------------------------------------------------ default dtype
def test_default_dtype():
    assert jd.get_default_dtype() is jd.float32
    assert jd.default_complex_dtype() is jd.complex64
    try:
        jd.set_default_dtype(jd.float64)
        assert jd.get_default_dtype() is jd.float64
        assert jd.default_complex_dtype() is jd.complex128
        assert jp.scalar_type_of_python_value(1.5) is jd.float64
        assert jp.scalar_type_of_python_value(1j) is jd.complex128
        assert jp.result_type(dim("int32"), 1.5) is jd.float64
        assert jp.result_type(dim("int32"), 1j) is jd.complex128
        assert jp.result_type(dim("float32"), 1j) is jd.complex64
        assert jp.result_type(FakeTensor(jd.float32, 0, True), dim("int8")) is jd.float64
        jd.set_default_dtype(jd.float16)
        assert jp.result_type(dim("int32"), 1.5) is jd.float16
        assert jd.default_complex_dtype() is jd.complex64  # torch: complex32
        for bad in (jd.int32, jd.bool, jd.complex64, "float32", None):
            prefix = "" if isinstance(bad, jd.dtype) else "invalid dtype object: "  # torch's text for a non-dtype
            with pytest.raises(TypeError, match=f"^{prefix}only floating-point types are supported "
                                                "as the default type$"):
                jd.set_default_dtype(bad)
        assert jd.get_default_dtype() is jd.float16
    finally:
        jd.set_default_dtype(jd.float32)
    assert jp.result_type(dim("int32"), 1.5) is jd.float32
    assert jp.scalar_type_of_python_value(1j) is jd.complex64


def test_default_dtype_matches_torch(torch):
    scalars = [True, 3, 1.5, 1j]
    try:
        for default in (jd.float16, jd.float32, jd.float64):
            jd.set_default_dtype(default)
            torch.set_default_dtype(tdt(torch, default))
            for d, s in itertools.product(ALL, scalars):
                for jt, tt in ((dim(d), torch.ones(2, dtype=tdt(torch, d))),
                               (zero(d), torch.tensor(1, dtype=tdt(torch, d)))):
                    want = torch.result_type(tt, s)  # complex32 cases -> complex64 via jdt
                    assert jp.result_type(jt, s) is jdt(want), (d, s, default)
                    assert jp.result_type(s, jt) is jdt(torch.result_type(s, tt))
    finally:
        jd.set_default_dtype(jd.float32)
        torch.set_default_dtype(torch.float32)


# ------------------------------------------------------------------ finfo / iinfo
def test_finfo_iinfo_basic():
    f = jd.finfo(jd.float32)
    assert f.bits == 32 and f.eps == 2.0 ** -23 and f.dtype == "float32"
    assert f.tiny == f.smallest_normal == 2.0 ** -126 and f.resolution == 1e-06
    assert jd.finfo() == f and jd.finfo(jd.complex128).dtype == "float64"
    assert jd.finfo(jd.float16).max == 65504.0 and jd.finfo(jd.float16).min == -65504.0
    i = jd.iinfo(jd.int32)
    assert (i.bits, i.min, i.max, i.dtype) == (32, -2 ** 31, 2 ** 31 - 1, "int32")
    assert jd.iinfo(jd.uint8).max == 255 and jd.iinfo(jd.uint8).min == 0
    assert repr(i) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    assert repr(f) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, "
                       "eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, "
                       "dtype=float32)")


def test_finfo_iinfo_errors():
    for d in (jd.bool, jd.int32, jd.uint8):
        with pytest.raises(TypeError, match=r"^jtorch\.finfo\(\) requires a floating point"):
            jd.finfo(d)
    for d in (jd.float32, jd.complex64):
        with pytest.raises(TypeError) as e:
            jd.iinfo(d)
        assert str(e.value) == ("jtorch.iinfo() requires an integer input type. "
                                "Use jtorch.finfo to handle 'jtorch.iinfo'")
    with pytest.raises(TypeError, match="^jtorch.bool is not supported by jtorch.iinfo$"):
        jd.iinfo(jd.bool)


def test_finfo_iinfo_match_torch(torch):
    for d in ALL:
        t = tdt(torch, d)
        if d.is_floating_point or d.is_complex:
            a, b = jd.finfo(d), torch.finfo(t)
            for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal",
                         "resolution", "dtype"):
                assert getattr(a, attr) == getattr(b, attr), (d, attr)
                assert type(getattr(a, attr)) is type(getattr(b, attr)), (d, attr)
            assert repr(a) == repr(b)
            with pytest.raises(TypeError) as e:
                torch.iinfo(t)
            with pytest.raises(TypeError) as je:
                jd.iinfo(d)
            assert str(je.value) == str(e.value).replace("torch", "jtorch")
        else:
            with pytest.raises(TypeError) as e:
                torch.finfo(t)
            with pytest.raises(TypeError) as je:
                jd.finfo(d)
            assert str(je.value) == str(e.value).replace("torch", "jtorch")
            if d is jd.bool:
                with pytest.raises(TypeError) as e:
                    torch.iinfo(t)
                with pytest.raises(TypeError) as je:
                    jd.iinfo(d)
                assert str(je.value) == str(e.value).replace("torch", "jtorch")
                continue
            a, b = jd.iinfo(d), torch.iinfo(t)
            for attr in ("bits", "max", "min", "dtype"):
                assert getattr(a, attr) == getattr(b, attr), (d, attr)
            assert repr(a) == repr(b)
    assert repr(jd.finfo()) == repr(torch.finfo())


# ------------------------------------------------------------------ promote_types / can_cast
def test_promote_types_examples():
    P = jp.promote_types
    assert P(jd.uint8, jd.int8) is jd.int16
    assert P(jd.bool, jd.uint8) is jd.uint8
    assert P(jd.float16, jd.int64) is jd.float16
    assert P(jd.float64, jd.complex64) is jd.complex128
    assert P(jd.int32, jd.float32) is jd.float32
    for a, b in itertools.product(ALL, ALL):
        if (a in jd.limited_unsigned or b in jd.limited_unsigned) and a is not b and not (
                a.is_floating_point or b.is_floating_point):
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
                P(a, b)
            continue
        assert P(a, b) is P(b, a)
        assert P(a, a) is a
    with pytest.raises(TypeError, match=r"promote_types\(\): argument 'type1' \(position 1\) "
                                        r"must be jtorch.dtype, not int"):
        P(1, jd.int32)
    with pytest.raises(TypeError, match="argument 'type2' .position 2. must be jtorch.dtype, "
                                        "not str"):
        P(jd.int32, "x")


def _outcome(fn, convert=lambda r: r):
    """fn()'s result (converted), or its RuntimeError as (type, text): torch refuses some pairs."""
    try:
        return convert(fn())
    except RuntimeError as e:
        return ("RuntimeError", str(e))


def test_promote_types_all_pairs_torch(torch):
    for a, b in itertools.product(ALL, ALL):
        want = _outcome(lambda: torch.promote_types(tdt(torch, a), tdt(torch, b)), jdt)
        assert _outcome(lambda: jp.promote_types(a, b)) == want, (a, b)


def test_can_cast_examples():
    assert not jp.can_cast(jd.float32, jd.int32)
    assert not jp.can_cast(jd.complex64, jd.float64)
    assert not jp.can_cast(jd.int32, jd.bool)
    assert jp.can_cast(jd.bool, jd.bool) and jp.can_cast(jd.bool, jd.int8)
    assert jp.can_cast(jd.int64, jd.float16) and jp.can_cast(jd.float64, jd.complex64)
    with pytest.raises(TypeError, match="can_cast\\(\\): argument 'from_'"):
        jp.can_cast(1, jd.int32)


def test_can_cast_all_pairs_torch(torch):
    for a, b in itertools.product(ALL, ALL):
        assert jp.can_cast(a, b) == torch.can_cast(tdt(torch, a), tdt(torch, b)), (a, b)


# ------------------------------------------------------------------ result_type
def test_result_type_documented_examples():
    R = jp.result_type
    assert R(dim("int32"), 1.5) is jd.float32
    assert R(dim("int32"), zero("float64")) is jd.float64
    assert R(dim("float16"), zero("float64")) is jd.float16
    assert R(dim("int8"), 1000) is jd.int8
    assert R(dim("uint8"), zero("int64")) is jd.uint8
    assert R(dim("bool"), 2) is jd.int64
    assert R(dim("float32"), 1j) is jd.complex64
    assert R(zero("float32"), 1j) is jd.complex64
    assert R(dim("float64"), zero("complex64")) is jd.complex128
    assert R(dim("int32"), zero("complex64")) is jd.complex64
    assert R(zero("bool"), 2.5) is jd.float32
    assert R(1, 2) is jd.int64 and R(True, False) is jd.bool and R(1, 2.0) is jd.float32
    assert R(True, dim("bool")) is jd.bool
    # wrapped-number tensors behave like the Python scalar
    assert R(dim("int8"), FakeTensor(jd.int64, 0, True)) is jd.int8
    assert R(dim("int8"), FakeTensor(jd.float64, 0, True)) is jd.float32
    # _is_wrapped_number is optional
    assert R(dim("int8"), NoWrappedAttr(jd.int64, 0)) is jd.int8
    assert R(dim("int8"), NoWrappedAttr(jd.float64, 0)) is jd.float64
    assert R(NoWrappedAttr(jd.int16, 3), NoWrappedAttr(jd.int8, 1)) is jd.int16


def test_result_type_numpy_and_subclass_scalars():
    R = jp.result_type
    assert R(dim("int32"), np.float64(1.5)) is jd.float32
    assert R(dim("int32"), np.int64(3)) is jd.int32
    assert R(zero("int32"), np.int64(3)) is jd.int32
    assert R(zero("bool"), np.int16(3)) is jd.int64

    class MyInt(int):
        pass

    assert R(zero("bool"), MyInt(3)) is jd.int64
    assert jp.scalar_type_of_python_value(MyInt(3)) is jd.int64
    assert jp.scalar_type_of_python_value(True) is jd.bool
    assert jp.scalar_type_of_python_value(np.bool_(True)) is jd.bool
    with pytest.raises(TypeError):
        jp.scalar_type_of_python_value(zero("int32"))


def test_result_type_errors():
    with pytest.raises(TypeError, match="expected a Tensor or a Number, but got str"):
        jp.result_type(dim("int32"), "x")
    with pytest.raises(TypeError, match="but got ndarray"):
        jp.result_type(np.ones(2), dim("int32"))
    with pytest.raises(TypeError, match="but got NoneType"):
        jp.result_type_many(dim("int32"), zero("int8"), None)
    with pytest.raises(ValueError):
        jp.result_type_many()


def _operands(torch):
    """(jtorch operand, torch operand, label) for every dtype x category + Python scalars."""
    ops = []
    for d in ALL:
        t = tdt(torch, d)
        ops.append((dim(d), torch.ones(2, dtype=t), f"{d.name}[2]"))
        ops.append((FakeTensor(d, 2), torch.ones(2, 1, dtype=t), f"{d.name}[2,1]"))
        ops.append((zero(d), torch.tensor(1, dtype=t), f"{d.name}[]"))
    for s in (True, False, 0, 1, 1000, -2, 1.5, -0.0, 1j, 2 + 0j):
        ops.append((s, s, repr(s)))
    # wrapped-number tensors correspond to the Python scalar they came from
    for d, s in ((jd.bool, True), (jd.int64, 7), (jd.float64, 2.5), (jd.complex128, 3j)):
        ops.append((FakeTensor(d, 0, True), s, f"wrapped {d.name}"))
    return ops


def test_result_type_pairs_torch(torch):
    ops = _operands(torch)
    n = 0
    for (ja, ta, la), (jb, tb, lb) in itertools.product(ops, ops):
        want = _outcome(lambda: torch.result_type(ta, tb), jdt)
        assert _outcome(lambda: jp.result_type(ja, jb)) == want, (la, lb, want)
        assert _outcome(lambda: jp.result_type_many(ja, jb)) == want, (la, lb, want)
        n += 1
    assert n > 1000


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_result_type_many_torch(torch):
    # 3-operand oracle: torch.addcmul promotes its three inputs through TensorIterator's
    # common dtype, i.e. at::native::result_type over all of them.
    ops = [o for o in _operands(torch) if not isinstance(o[1], (int, float, complex))]
    sample = ops[::2] + ops[1::5]
    checked = 0
    for (ja, ta, la), (jb, tb, lb), (jc, tc, lc) in itertools.product(sample, sample, sample):
        try:
            want = torch.addcmul(ta, tb, tc).dtype
        except RuntimeError:
            continue  # e.g. bool addcmul unsupported by torch
        assert jp.result_type_many(ja, jb, jc) is jdt(want), (la, lb, lc)
        checked += 1
    assert checked > 1000


def test_result_type_many_clamp_torch(torch):
    # another 3-operand oracle: clamp(t, min=0-dim tensor, max=0-dim tensor) on real dtypes
    for d in ALL:
        if d.is_complex or d is jd.bool or d in jd.limited_unsigned:  # torch has no clamp for uint16..64
            continue
        t = torch.ones(2, dtype=tdt(torch, d))
        for lo, hi in ((1, 2.5), (0, 1), (True, 3), (0.5, 2.5)):
            tlo, thi = torch.tensor(lo), torch.tensor(hi)
            want = torch.clamp(t, min=tlo, max=thi).dtype
            got = jp.result_type_many(dim(d), zero(jdt(tlo.dtype)), zero(jdt(thi.dtype)))
            assert got is jdt(want), (d, lo, hi)


# ------------------------------------------------------------------ helpers
def test_helpers():
    assert jp.is_integral(jd.int8, include_bool=False)
    assert not jp.is_integral(jd.bool, include_bool=False)
    assert jp.is_integral(jd.bool, include_bool=True)
    assert not jp.is_integral(jd.float32, include_bool=True)
    assert [jp.category(d) for d in ALL] == [0, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 2, 1, 1, 1]
    assert jp.is_floating(jd.float16) and not jp.is_floating(jd.complex64)
    assert jp.is_complex(jd.complex128)
    assert jp.scalar_type_of_python_value(3) is jd.int64
    assert jp.scalar_type_of_python_value(1.5) is jd.float32
    assert jp.scalar_type_of_python_value(1j) is jd.complex64
