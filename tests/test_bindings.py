"""Python bindings generated from the declarations: parsing, overload choice, errors like torch's."""
import numpy as np
import pytest

import jtorch
from jtorch.bindings import signatures_by_name
from _torch_oracle import oracle_torch


def test_bindings_are_generated_source_per_operator():
    src = jtorch.add._jtorch_source
    assert src.startswith("def add(*args, **kwargs):")
    assert "_op0(" in src and "_opout0(" in src  # out= folded into the functional signature
    assert "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)" in jtorch.add.__doc__


def test_out_overload_folds_into_functional_signature():
    sigs = signatures_by_name(method=False)["add"]
    assert [s.nf.name for s in sigs] == ["add.Tensor"] and sigs[0].out_nf.name == "add.out"
    assert "out" not in [p.name for p in signatures_by_name(method=True)["add"][0].params]


def test_positional_keyword_and_varargs_sizes():
    assert jtorch.empty(2, 3).shape == (2, 3)
    assert jtorch.empty((2, 3)).shape == (2, 3)
    assert jtorch.empty([2, 3]).shape == (2, 3)
    assert jtorch.empty(size=(4,)).shape == (4,)
    assert jtorch.empty(jtorch.Size([5])).shape == (5,)
    assert jtorch.empty(3, dtype=jtorch.float64).dtype is jtorch.float64
    assert jtorch.empty(3, dtype=float).dtype is jtorch.float64
    assert jtorch.empty(3, dtype=int).dtype is jtorch.int64
    assert jtorch.empty(np.int64(3)).shape == (3,)


def test_numbers_become_wrapped_tensors_after_self():
    a = jtorch.empty(3, dtype=jtorch.int32)
    assert jtorch.add(a, 2).dtype is jtorch.int32  # a wrapped int does not promote
    assert (a * 2).dtype is jtorch.int32
    with pytest.raises(TypeError, match=r"^add\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        jtorch.add(2, a)


def test_binding_errors_match_torch():
    t = jtorch.empty(2)
    cases = [
        (lambda: jtorch.add(t, "a"), "add(): argument 'other' (position 2) must be Tensor, not str"),
        (lambda: t.add("a"), "add(): argument 'other' (position 1) must be Tensor, not str"),
        (lambda: jtorch.empty("a"), "empty(): argument 'size' (position 1) must be tuple of ints, not str"),
        (lambda: jtorch.exp(t, 3), "exp() takes 1 positional argument but 2 were given"),
        (lambda: jtorch.add(t, t, alpha="x"), "add(): argument 'alpha' must be Number, not str"),
        (lambda: t.exp(foo=1), "exp() got an unexpected keyword argument 'foo'"),
    ]
    for fn, msg in cases:
        with pytest.raises(TypeError) as e:
            fn()
        assert str(e.value) == msg


def test_dunder_returns_notimplemented():
    t = jtorch.empty(2)
    assert t.__add__("a") is NotImplemented
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'str'"):
        t + "a"


def test_invalid_combination_lists_signatures():
    from jtorch.bindings import Signature, no_match

    sigs = signatures_by_name(method=False)["add"] * 2  # two signatures -> the list form
    err = no_match("add", sigs, (jtorch.empty(2), "s"), {}, False)
    assert str(err).startswith("add() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input")


def test_cuda_request_without_cuda():
    assert jtorch.cuda.is_available() is False
    with pytest.raises(RuntimeError, match="^Found no NVIDIA driver on your system"):
        jtorch.empty(2, device="cuda")


def test_torch_oracle_for_binding_messages():
    torch = oracle_torch()
    for jf, tf in [(lambda m: m.add(m.ones(2) if hasattr(m, "ones") else m.empty(2), "a"), None)]:
        with pytest.raises(TypeError) as je:
            jf(jtorch)
        with pytest.raises(TypeError) as te:
            jf(torch)
        assert str(je.value) == str(te.value)


def test_later_overload_taken_directly_when_earlier_ones_refuse():
    """`x ** 2` goes straight to pow.Tensor_Scalar (pow.Tensor_Tensor refuses a number); the result
    equals the full parse's, and the overload that takes a Tensor still wins for a tensor."""
    x = jtorch.tensor([1.5, -2.0, 3.0])
    src = type(x).__pow__._jtorch_source
    assert "type(args[0]) in _NUMBERS:\n        return _op1(self, args[0])" in src
    np.testing.assert_array_equal((x ** 2).numpy(), x.pow(exponent=2).numpy())
    np.testing.assert_array_equal(jtorch.pow(x, 3).numpy(), (x.numpy() ** 3))
    np.testing.assert_array_equal((x ** jtorch.tensor(2.0)).numpy(), x.numpy() ** 2)
    assert (jtorch.tensor([2]) ** 2.5).dtype is jtorch.float32  # a float exponent promotes an int tensor
    with pytest.raises(TypeError, match=r"received an invalid combination of arguments"):
        x.pow("2")


def test_overload_mismatch_leaves_no_reference_cycle():
    """A signature that does not fit is remembered for the error message without its traceback:
    the binding's frame is freed by reference counting, not left to the cycle collector."""
    import gc

    x = jtorch.tensor([1.0, 2.0])
    y = x.clamp(min=0.0)  # warm up
    gc.collect()
    gc.disable()
    try:
        for _ in range(50):
            y = x.clamp(min=0.0)  # clamp(Tensor min) is tried and refused before clamp(Scalar min)
            y = x ** 2
        assert gc.collect() == 0
    finally:
        gc.enable()
    np.testing.assert_array_equal(y.numpy(), x.numpy() ** 2)
