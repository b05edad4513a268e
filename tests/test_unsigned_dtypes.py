"""uint16, uint32, uint64: torch's small operator set, its refusals (type and text), promotion,
iinfo, printing and checkpoints, against torch."""
from __future__ import annotations

import io

import numpy as np
import pytest
from _torch_oracle import live_torch, oracle_torch
from _unsigned_cuda_cases import CASES
from _unsigned_cuda_cases import A as CA
from _unsigned_cuda_cases import B as CB
from _unsigned_cuda_cases import outcome as cases_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch

NAMES = ("uint16", "uint32", "uint64")
A = np.array([[1, 2, 3], [4, 5, 6]])
B = np.array([[3, 2, 1], [1, 1, 2]])


def pair(torch, arr, name):
    data = arr.tolist()
    return jtorch.tensor(data, dtype=getattr(jtorch, name)), torch.tensor(data, dtype=getattr(torch, name))


def outcome(fn, *args, **kwargs):
    """(dtype name, values) of fn(*args)'s tensor, a plain value, or (exception type, text)."""
    try:
        r = fn(*args, **kwargs)
    except (RuntimeError, NotImplementedError, TypeError, ValueError, OverflowError, IndexError) as e:
        return (type(e).__name__, str(e).splitlines()[0])
    if isinstance(r, tuple):
        r = r[0]
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return (str(r.dtype).rpartition(".")[2], r.tolist())
    return r


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes_and_iinfo_match_torch(name):
    torch = oracle_torch()
    d, td = getattr(jtorch, name), getattr(torch, name)
    assert repr(d) == f"jtorch.{name}"
    assert (d.is_floating_point, d.is_signed, d.is_complex, d.itemsize) == \
        (td.is_floating_point, td.is_signed, td.is_complex, td.itemsize)
    assert d.to_real() is d
    with pytest.raises(RuntimeError) as e:
        d.to_complex()
    with pytest.raises(RuntimeError) as et:
        td.to_complex()
    assert str(e.value) == str(et.value)
    ij, it = jtorch.iinfo(d), torch.iinfo(td)
    assert (ij.bits, ij.min, ij.max, ij.dtype) == (it.bits, it.min, it.max, it.dtype)
    assert repr(ij) == repr(it)


def test_promotion_and_its_refusals_match_torch():
    torch = oracle_torch()
    others = ("bool", "uint8", "int8", "int64", "float16", "bfloat16", "float32", "float64", "complex64",
              "uint16", "uint32", "uint64")
    for name in NAMES:
        for o in others:
            want = outcome(torch.promote_types, getattr(torch, name), getattr(torch, o))
            got = outcome(jtorch.promote_types, getattr(jtorch, name), getattr(jtorch, o))
            assert str(got) == str(want).replace("torch.", "jtorch."), (name, o)
        j, t = pair(torch, A, name)
        for jo, to in ((jtorch.ones(3, dtype=jtorch.int64), torch.ones(3, dtype=torch.int64)),
                       (jtorch.ones(3), torch.ones(3)), (jtorch.tensor(1), torch.tensor(1)), (1, 1), (1.5, 1.5),
                       (True, True)):
            assert outcome(jtorch.mul, j, jo) == outcome(torch.mul, t, to), (name, jo)


@pytest.mark.parametrize("name", NAMES)
def test_creation_printing_and_host_values_match_torch(name):
    torch = oracle_torch()
    d, td = getattr(jtorch, name), getattr(torch, name)
    for data in ([1, 2, 3], [-1], [70000], [2 ** 32 + 5], [2 ** 63], [2 ** 64 - 1], [1.5], [-1.5], [True, 7]):
        assert outcome(jtorch.tensor, data, dtype=d) == outcome(torch.tensor, data, dtype=td), data
    big = [0, 1, int(np.iinfo(name).max)]
    j, t = jtorch.tensor(big, dtype=d), torch.tensor(big, dtype=td)
    assert repr(j) == repr(t).replace("torch.", "jtorch.")
    assert j.tolist() == t.tolist() and j[2].item() == t[2].item()
    np.testing.assert_array_equal(j.numpy(), t.numpy())
    assert j.numpy().dtype == np.dtype(name)
    k = jtorch.from_numpy(np.array(big, dtype=name))
    assert k.dtype is d and k.tolist() == big
    for f in ("zeros", "ones"):
        assert outcome(getattr(jtorch, f), 2, 3, dtype=d) == outcome(getattr(torch, f), 2, 3, dtype=td)
    assert outcome(lambda: jtorch.full((2,), 7, dtype=d)) == outcome(lambda: torch.full((2,), 7, dtype=td))
    assert jtorch.empty(4, dtype=d).shape == (4,)
    assert repr(jtorch.tensor([[1, 2], [300, 4]], dtype=d)) == repr(torch.tensor([[1, 2], [300, 4]], dtype=td)).replace(
        "torch.", "jtorch.")


@pytest.mark.parametrize("name", NAMES)
def test_casts_match_torch(name):
    torch = oracle_torch()
    d, td = getattr(jtorch, name), getattr(torch, name)
    ints = [0, 1, 255, 65535, 65536, 2 ** 31, -1, -70000]
    j, t = jtorch.tensor(ints), torch.tensor(ints)
    assert outcome(lambda: j.to(d)) == outcome(lambda: t.to(td))  # int64 -> unsigned wraps
    floats = [0.0, 1.5, 255.9, 65535.0, 1e9]
    assert outcome(lambda: jtorch.tensor(floats).to(d)) == outcome(lambda: torch.tensor(floats).to(td))
    ju, tu = pair(torch, A * 1000, name)
    for other in ("uint8", "int16", "int64", "float16", "bfloat16", "float32", "float64", "bool", "uint16", "uint64"):
        assert outcome(ju.to, getattr(jtorch, other)) == outcome(tu.to, getattr(torch, other)), other
    jc, tc = jtorch.zeros(2, 3), torch.zeros(2, 3)
    assert outcome(lambda: jc.copy_(ju)) == outcome(lambda: tc.copy_(tu))


SUPPORTED = {
    "mul": lambda T, a, b: a * b,
    "mul_scalar": lambda T, a, b: a * 3,
    "div": lambda T, a, b: a / b,
    "eq": lambda T, a, b: a == b,
    "ne": lambda T, a, b: a != b,
    "eq_scalar": lambda T, a, b: a == 2,
    "and": lambda T, a, b: a & b,
    "or": lambda T, a, b: a | b,
    "xor": lambda T, a, b: a ^ b,
    "and_scalar": lambda T, a, b: a & 1,
    "sum": lambda T, a, b: a.sum(),
    "sum_dim": lambda T, a, b: a.sum(1),
    "prod": lambda T, a, b: a.prod(),
    "cumsum": lambda T, a, b: a.cumsum(1),
    "sort": lambda T, a, b: a.sort(1).values,
    "argsort": lambda T, a, b: a.argsort(1),
    "unique": lambda T, a, b: T.unique(a),
    "cat": lambda T, a, b: T.cat([a, b]),
    "stack": lambda T, a, b: T.stack([a, b]),
    "index_select": lambda T, a, b: a.index_select(1, T.tensor([2, 0])),
    "index": lambda T, a, b: a[T.tensor([1, 0])],
    "where": lambda T, a, b: T.where(a == b, a, b),
    "clone": lambda T, a, b: a.clone(),
    "t_contig": lambda T, a, b: a.t().contiguous(),
    "sqrt": lambda T, a, b: T.sqrt(a),
    "reciprocal": lambda T, a, b: T.reciprocal(a),
    "any": lambda T, a, b: a.any(),
    "all": lambda T, a, b: a.all(1),
    "isnan": lambda T, a, b: T.isnan(a),
    "flip_outer": lambda T, a, b: a.flip(0),
    "round": lambda T, a, b: T.round(a),
    "fill_": lambda T, a, b: a.clone().fill_(9),
    "zero_": lambda T, a, b: a.clone().zero_(),
    "equal": lambda T, a, b: T.equal(a, b),
    "view": lambda T, a, b: a.view(3, 2),
    "expand": lambda T, a, b: a[:1].expand(3, 3).contiguous(),
}
REFUSED = {
    "add": lambda T, a, b: a + b,
    "add_scalar": lambda T, a, b: a + 1,
    "sub": lambda T, a, b: a - b,
    "rsub": lambda T, a, b: 1 - a,
    "floordiv": lambda T, a, b: a // b,
    "div_trunc": lambda T, a, b: T.div(a, b, rounding_mode="trunc"),
    "remainder": lambda T, a, b: a % b,
    "fmod": lambda T, a, b: T.fmod(a, b),
    "pow": lambda T, a, b: a ** 2,
    "neg": lambda T, a, b: -a,
    "abs": lambda T, a, b: T.abs(a),
    "sign": lambda T, a, b: T.sign(a),
    "not": lambda T, a, b: ~a,
    "lt": lambda T, a, b: a < b,
    "le": lambda T, a, b: a <= b,
    "gt_scalar": lambda T, a, b: a > 1,
    "ge": lambda T, a, b: a >= b,
    "maximum": lambda T, a, b: T.maximum(a, b),
    "minimum": lambda T, a, b: T.minimum(a, b),
    "fmax": lambda T, a, b: T.fmax(a, b),
    "logical_and": lambda T, a, b: T.logical_and(a, b),
    "logical_not": lambda T, a, b: T.logical_not(a),
    "clamp": lambda T, a, b: a.clamp(1, 3),
    "clamp_tensor": lambda T, a, b: T.clamp(a, b, b),
    "clamp_min": lambda T, a, b: a.clamp_min(1),
    "relu": lambda T, a, b: T.relu(a),
    "lerp": lambda T, a, b: T.lerp(a, b, 0.5),
    "addcmul": lambda T, a, b: T.addcmul(a, a, b),
    "max": lambda T, a, b: a.max(),
    "max_dim": lambda T, a, b: a.max(1),
    "amax": lambda T, a, b: a.amax(0),
    "argmax": lambda T, a, b: a.argmax(),
    "min": lambda T, a, b: a.min(),
    "argmin": lambda T, a, b: a.argmin(1),
    "mean": lambda T, a, b: a.mean(),
    "var": lambda T, a, b: a.var(),
    "std": lambda T, a, b: a.std(),
    "topk": lambda T, a, b: a.topk(1),
    "kthvalue": lambda T, a, b: a.kthvalue(1),
    "median": lambda T, a, b: a.median(),
    "mode": lambda T, a, b: a.mode(),
    "cummax": lambda T, a, b: a.cummax(1),
    "nonzero": lambda T, a, b: a.nonzero(),
    "count_nonzero": lambda T, a, b: T.count_nonzero(a),
    "softmax": lambda T, a, b: T.softmax(a, 1),
    "trace": lambda T, a, b: T.trace(a[:, :2]),
    "tril": lambda T, a, b: T.tril(a),
    "flip_inner": lambda T, a, b: a.flip(1),
    "masked_fill": lambda T, a, b: a.masked_fill(a == b, 0),
    "gather": lambda T, a, b: a.gather(1, T.tensor([[0], [1]])),
    "scatter": lambda T, a, b: a.scatter(1, T.tensor([[0], [1]]), b),
    "scatter_add": lambda T, a, b: a.scatter_add(1, T.tensor([[0], [1]]), b),
    "take": lambda T, a, b: a.take(T.tensor([0, 2])),
    "index_add": lambda T, a, b: a.index_add(1, T.tensor([0, 2]), b[:, :2]),
    "index_fill": lambda T, a, b: a.index_fill(1, T.tensor([0]), 7),
    "index_copy": lambda T, a, b: a.index_copy(1, T.tensor([0, 2]), b[:, :2]),
    "setitem": lambda T, a, b: a.clone().__setitem__(T.tensor([0]), 5),
    "masked_select": lambda T, a, b: a.masked_select(a == b),
    "isin": lambda T, a, b: T.isin(a, b),
    "searchsorted": lambda T, a, b: T.searchsorted(a[0], b[0]),
    "mm": lambda T, a, b: T.mm(a, b.t()),
    "matmul": lambda T, a, b: a @ b.t(),
    "dot": lambda T, a, b: T.dot(a[0], b[0]),
    "mv": lambda T, a, b: T.mv(a, b[0]),
    "bmm": lambda T, a, b: T.bmm(a[None], b.t()[None]),
    "arange": lambda T, a, b: T.arange(3, dtype=a.dtype),
    "linspace": lambda T, a, b: T.linspace(0, 4, 5, dtype=a.dtype),
    "eye": lambda T, a, b: T.eye(2, dtype=a.dtype),
    "randperm": lambda T, a, b: T.randperm(3, dtype=a.dtype),
    "rand": lambda T, a, b: T.rand(2, dtype=a.dtype),
}


@pytest.mark.parametrize("name", NAMES)
def test_supported_operators_match_torch(name):
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, A, name), pair(torch, B, name)
    for op, f in SUPPORTED.items():
        assert outcome(f, jtorch, ja, jb) == outcome(f, torch, ta, tb), op


@pytest.mark.parametrize("name", NAMES)
def test_refused_operators_give_torch_texts(name):
    torch = oracle_torch()
    (ja, ta), (jb, tb) = pair(torch, A, name), pair(torch, B, name)
    for op, f in REFUSED.items():
        want = outcome(f, torch, ta, tb)
        assert want[0] in ("NotImplementedError", "RuntimeError"), (op, want)
        assert outcome(f, jtorch, ja, jb) == want, op
    # a result of another category computes: uint16 * float32 is float32, and meta tensors check nothing
    assert outcome(lambda: ja + jtorch.ones(3)) == outcome(lambda: ta + torch.ones(3))
    m = jtorch.empty(2, 3, dtype=getattr(jtorch, name), device="meta")
    assert (m + m).dtype is m.dtype and (m + m).device.type == "meta"


@pytest.mark.parametrize("name", NAMES)
def test_operator_sweep_matches_torch(name):
    # the CUDA differential's calls (tests/_unsigned_cuda_cases.py), on the CPU: values or refusal texts
    torch = oracle_torch()
    for case, f in CASES.items():
        j = cases_outcome(f, jtorch, jtorch.tensor(CA, dtype=getattr(jtorch, name)),
                          jtorch.tensor(CB, dtype=getattr(jtorch, name)))
        t = cases_outcome(f, torch, torch.tensor(CA, dtype=getattr(torch, name)),
                          torch.tensor(CB, dtype=getattr(torch, name)))
        assert j == t or (case == "sqrt" and np.allclose(j[1], t[1])), case


def test_checkpoints_round_trip_in_jtorch():
    for name in NAMES:
        d = getattr(jtorch, name)
        j = jtorch.tensor([0, 1, int(np.iinfo(name).max)], dtype=d)
        buf = io.BytesIO()
        jtorch.save({"w": j, "tail": j[1:]}, buf)
        k = jtorch.load(io.BytesIO(buf.getvalue()))
        assert k["w"].dtype is d and k["w"].tolist() == j.tolist()
        assert k["tail"].storage_offset() == 1 and k["tail"].tolist() == j[1:].tolist()


def test_checkpoints_both_directions_with_torch():
    torch = live_torch("torch reads and writes the checkpoint bytes")
    for name in NAMES:
        t = torch.tensor([0, 1, int(np.iinfo(name).max)], dtype=getattr(torch, name))
        buf = io.BytesIO()
        torch.save({"w": t, "tail": t[1:]}, buf)
        k = jtorch.load(io.BytesIO(buf.getvalue()))
        assert k["w"].dtype is getattr(jtorch, name) and k["w"].tolist() == t.tolist()
        assert k["tail"].storage_offset() == 1
        out = io.BytesIO()
        jtorch.save(k, out)
        back = torch.load(io.BytesIO(out.getvalue()))
        assert back["w"].dtype == t.dtype and torch.equal(back["w"], t) and back["tail"].storage_offset() == 1


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(["mul", "bitwise_and", "bitwise_or", "bitwise_xor", "eq"]),
       st.integers(1, 6), st.integers(1, 5), st.integers(0, 2 ** 31 - 1))
def test_operators_wrap_as_numpy(name, op, rows, cols, seed):
    r = np.random.default_rng(seed)
    hi = np.iinfo(name).max
    a = r.integers(0, hi, (rows, cols), dtype=name, endpoint=True)
    b = r.integers(0, hi, (1, cols), dtype=name, endpoint=True)  # broadcast along rows
    got = getattr(jtorch, op)(jtorch.from_numpy(a), jtorch.from_numpy(b))
    want = {"mul": np.multiply, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
            "bitwise_xor": np.bitwise_xor, "eq": np.equal}[op](a, b)
    assert got.dtype is jtorch.from_numpy(want).dtype
    np.testing.assert_array_equal(got.numpy(), want)
    s = jtorch.from_numpy(a).sum()
    assert s.dtype is jtorch.int64 and s.item() == int(a.astype(np.uint64).sum().astype(np.int64))


# ---- the bits type: torch.bit is torch.uint1, storage only ---------------------------------------------------
def bits_outcome(fn, *args, **kwargs):
    """(dtype name, shape) of fn(*args)'s tensor (a bits tensor's values cannot be read), a plain value, or
    (exception type, text)."""
    try:
        r = fn(*args, **kwargs)
    except (RuntimeError, NotImplementedError, TypeError, ValueError, KeyError) as e:
        return (type(e).__name__, str(e).splitlines()[0].replace("jtorch.", "torch."))
    if isinstance(r, tuple):
        return [bits_outcome(lambda x=x: x) for x in r]
    if hasattr(r, "dtype") and hasattr(r, "shape"):
        return (str(r.dtype).rpartition(".")[2], tuple(r.shape))
    return str(r).replace("torch.", "").replace("j", "")


def test_bit_dtype_attributes_promotion_and_infos_match_torch():
    torch = oracle_torch()
    assert jtorch.bit is jtorch.uint1 and repr(jtorch.bit) == "jtorch.uint1"
    d, td = jtorch.bit, torch.bit
    assert (d.is_floating_point, d.is_signed, d.is_complex, d.itemsize) == \
        (td.is_floating_point, td.is_signed, td.is_complex, td.itemsize)
    assert bits_outcome(d.to_complex) == bits_outcome(td.to_complex)
    assert bits_outcome(d.to_real) == bits_outcome(td.to_real)
    names = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128", "uint16", "uint32", "uint64", "uint1")
    for o in names:
        jo, to = getattr(jtorch, o), getattr(torch, o)
        assert bits_outcome(jtorch.promote_types, d, jo) == bits_outcome(torch.promote_types, td, to), o
        assert bits_outcome(jtorch.promote_types, jo, d) == bits_outcome(torch.promote_types, to, td), o
        assert jtorch.can_cast(d, jo) == torch.can_cast(td, to), o
        assert jtorch.can_cast(jo, d) == torch.can_cast(to, td), o
    je, te = jtorch.empty(3, dtype=d), torch.empty(3, dtype=td)
    for other in (1, 1.5, True, (jtorch.ones(2), torch.ones(2)), (jtorch.tensor(2), torch.tensor(2))):
        jo, to = other if isinstance(other, tuple) else (other, other)
        assert bits_outcome(jtorch.result_type, je, jo) == bits_outcome(torch.result_type, te, to), other
    for info in ("finfo", "iinfo"):
        assert bits_outcome(getattr(jtorch, info), d) == bits_outcome(getattr(torch, info), td)
    assert bits_outcome(jtorch.set_default_dtype, d) == bits_outcome(torch.set_default_dtype, td)


BITS_OPERATORS = {
    "empty_like": lambda T, a, b: T.empty_like(a),
    "new_empty": lambda T, a, b: a.new_empty(2),
    "empty_strided": lambda T, a, b: T.empty_strided((2, 2), (1, 2), dtype=a.dtype),
    "meta": lambda T, a, b: T.empty(2, dtype=a.dtype, device="meta"),
    "view": lambda T, a, b: a.view(3, 2),
    "reshape": lambda T, a, b: a.reshape(6),
    "t": lambda T, a, b: a.t(),
    "expand": lambda T, a, b: a[:1].expand(3, 3),
    "select": lambda T, a, b: a[1],
    "narrow": lambda T, a, b: a.narrow(1, 0, 2),
    "unsqueeze": lambda T, a, b: a.unsqueeze(0),
    "unbind": lambda T, a, b: a.unbind(),
    "detach": lambda T, a, b: a.detach(),
    "zeros": lambda T, a, b: T.zeros(2, 3, dtype=a.dtype),
    "zero_": lambda T, a, b: T.empty(2, dtype=a.dtype).zero_(),
    "zeros_like": lambda T, a, b: T.zeros_like(a),
    "resize_": lambda T, a, b: T.empty(3, dtype=a.dtype).resize_(5),
    "requires_grad": lambda T, a, b: T.empty(2, dtype=a.dtype).requires_grad_(),
    "ones": lambda T, a, b: T.ones(2, dtype=a.dtype),
    "full": lambda T, a, b: T.full((2,), 1, dtype=a.dtype),
    "fill_": lambda T, a, b: a.fill_(1),
    "ones_like": lambda T, a, b: T.ones_like(a),
    "tensor": lambda T, a, b: T.tensor([1, 0], dtype=a.dtype),
    "copy_": lambda T, a, b: a.copy_(T.ones(2, 3)),
    "copy_same": lambda T, a, b: a.copy_(b),
    "to": lambda T, a, b: T.ones(3).to(a.dtype),
    "to_float": lambda T, a, b: a.float(),
    "clone": lambda T, a, b: a.clone(),
    "contiguous": lambda T, a, b: a.t().contiguous(),
    "item": lambda T, a, b: a[0, 0].item(),
    "int": lambda T, a, b: int(a[0, 0]),
    "repr": lambda T, a, b: repr(a),
    "tolist": lambda T, a, b: a.tolist(),
    "numpy": lambda T, a, b: a.numpy(),
    "add": lambda T, a, b: a + b,
    "sub": lambda T, a, b: a - b,
    "add_float": lambda T, a, b: a + T.ones(3),
    "mul_double": lambda T, a, b: T.ones(3, dtype=T.float64) * a,
    "mul": lambda T, a, b: a * b,
    "eq": lambda T, a, b: a == b,
    "ne": lambda T, a, b: a != b,
    "lt": lambda T, a, b: a < b,
    "and": lambda T, a, b: a & b,
    "or": lambda T, a, b: a | b,
    "xor": lambda T, a, b: a ^ b,
    "abs": lambda T, a, b: a.abs(),
    "neg": lambda T, a, b: a.neg(),
    "exp": lambda T, a, b: a.exp(),
    "sqrt": lambda T, a, b: a.sqrt(),
    "clamp": lambda T, a, b: a.clamp(0, 1),
    "sum": lambda T, a, b: a.sum(),
    "prod": lambda T, a, b: a.prod(),
    "cumsum": lambda T, a, b: a.cumsum(0),
    "mean": lambda T, a, b: a.mean(),
    "max": lambda T, a, b: a.max(),
    "amax": lambda T, a, b: a.amax(),
    "argmax": lambda T, a, b: a.argmax(),
    "nonzero": lambda T, a, b: a.nonzero(),
    "sort": lambda T, a, b: a.sort(),
    "flip_outer": lambda T, a, b: a.flip(0),
    "flip_inner": lambda T, a, b: a.flip(1),
    "equal": lambda T, a, b: T.equal(a, b),
    "index_select": lambda T, a, b: a.index_select(0, T.tensor([0])),
    "index_select_1d": lambda T, a, b: a[0].index_select(0, T.tensor([0])),
    "index": lambda T, a, b: a[T.tensor([0, 1])],
    "cat": lambda T, a, b: T.cat([a, b]),
    "cat_1": lambda T, a, b: T.cat([a, b], 1),
    "cat_strided": lambda T, a, b: T.cat([a[:, :2], b[:, :2]]),
    "cat_large": lambda T, a, b: T.cat([T.empty(40000, dtype=a.dtype)] * 2),
    "stack": lambda T, a, b: T.stack([a, b]),
    "stack_1": lambda T, a, b: T.stack([a, b], 1),
    "roll": lambda T, a, b: a.roll(1, 1),
    "index_put": lambda T, a, b: a.index_put_((T.tensor([0]),), b[:1]),
    "gather": lambda T, a, b: a.gather(0, T.tensor([[0]])),
    "tril": lambda T, a, b: a.tril(),
    "masked_fill": lambda T, a, b: a.masked_fill(T.ones(2, 3, dtype=T.bool), 0),
    "diag": lambda T, a, b: a[0].diag(),
    "repeat": lambda T, a, b: a.repeat(2, 1),
    "mm": lambda T, a, b: a @ b.t(),
    "arange": lambda T, a, b: T.arange(3, dtype=a.dtype),
    "rand": lambda T, a, b: T.rand(3, dtype=a.dtype),
    "randint": lambda T, a, b: T.randint(0, 2, (3,), dtype=a.dtype),
    "random_": lambda T, a, b: a.random_(0, 2),
    "setitem": lambda T, a, b: a.__setitem__(0, 1),
    "setitem_tensor": lambda T, a, b: a.__setitem__(0, b[0]),
    # where moves the bytes; a number becomes a bits tensor through fill, another dtype through copy_
    "where": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), a, b),
    "where_out": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), a, b, out=T.empty(2, 3, dtype=a.dtype)),
    "where_number": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), a, 1),
    "where_number_first": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), 1, a),
    "where_0dim": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), a, T.tensor(1)),
    "where_float": lambda T, a, b: T.where(T.ones(2, 3, dtype=T.bool), a, T.ones(2, 3)),
    "where_cond": lambda T, a, b: T.where(a),
    # a number or a 0-dim tensor is cast to the bits type through copy_
    "add_number": lambda T, a, b: a + 1,
    "add_float_number": lambda T, a, b: a + 1.5,
    "mul_number": lambda T, a, b: a * 2,
    "eq_number": lambda T, a, b: a == 1,
    "and_true": lambda T, a, b: a & True,
    "add_0dim": lambda T, a, b: a + T.tensor(1),
    "add_": lambda T, a, b: a.add_(1),
}
BITS_META = {
    "add_number": lambda T, m: m + 1,
    "add": lambda T, m: m + m,
    "mul_number": lambda T, m: m * 1,
    "eq_number": lambda T, m: m == 1,
    "add_float_number": lambda T, m: m + 1.5,
    "add_float": lambda T, m: m + T.ones(3, device="meta"),
    "exp": lambda T, m: m.exp(),
    "abs": lambda T, m: m.abs(),
    "clamp": lambda T, m: m.clamp(0, 1),
    "where": lambda T, m: T.where(T.ones(2, 3, dtype=T.bool, device="meta"), m, m),
    "clone": lambda T, m: m.clone(),
    "copy_": lambda T, m: m.copy_(m),
    "amax": lambda T, m: m.amax(),
    "cumsum": lambda T, m: m.cumsum(0),
    "cat": lambda T, m: T.cat([m, m]),
    "sum": lambda T, m: m.sum(),
    "sum_dim": lambda T, m: m.sum(1),
    "prod": lambda T, m: m.prod(),
    "nansum": lambda T, m: m.nansum(),
    "mean": lambda T, m: m.mean(),
}


def test_bit_operators_allocate_view_or_refuse_as_torch():
    torch = oracle_torch()
    ja, jb = jtorch.empty(2, 3, dtype=jtorch.bit), jtorch.empty(2, 3, dtype=jtorch.bit)
    ta, tb = torch.empty(2, 3, dtype=torch.bit), torch.empty(2, 3, dtype=torch.bit)
    for op, f in BITS_OPERATORS.items():
        assert bits_outcome(f, jtorch, ja, jb) == bits_outcome(f, torch, ta, tb), op
    assert ja.element_size() == 1 and ja.nbytes == 6 and ja.type() == "jtorch.UInt1Tensor"
    assert not ja.is_signed() and not ja.is_floating_point()


def test_bit_meta_tensors_refuse_elementwise_as_torch():
    torch = oracle_torch()
    jm, tm = jtorch.empty(2, 3, dtype=jtorch.bit, device="meta"), torch.empty(2, 3, dtype=torch.bit, device="meta")
    for op, f in BITS_META.items():
        assert bits_outcome(f, jtorch, jm) == bits_outcome(f, torch, tm), op


def test_bit_where_moves_the_bytes_as_torch():
    torch = oracle_torch()
    data, other = [[1, 2, 3], [4, 250, 6]], [[7, 8, 9], [10, 11, 12]]
    mask = [[True, False, True], [False, False, True]]
    for T in (jtorch, torch):
        a, b = T.tensor(data, dtype=T.uint8).view(T.bit), T.tensor(other, dtype=T.uint8).view(T.bit)
        r = T.where(T.tensor(mask), a, b[:, :1])  # b broadcast
        if T is jtorch:
            got = (str(r.dtype), r.view(T.uint8).tolist())
        else:
            assert got == ("j" + str(r.dtype), r.view(torch.uint8).tolist())


def test_bit_checkpoints_refused_as_torch():
    torch = oracle_torch()
    j, t = jtorch.empty(3, dtype=jtorch.bit), torch.empty(3, dtype=torch.bit)
    assert bits_outcome(jtorch.save, {"w": j}, io.BytesIO()) == bits_outcome(torch.save, {"w": t}, io.BytesIO())
