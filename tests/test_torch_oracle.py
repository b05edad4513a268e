"""The torch oracle's own mechanics: what it records replays to the same outcome, without torch."""
from __future__ import annotations

import _torch_oracle as oracle
import numpy as np
import pytest


@pytest.mark.parametrize("value", [None, True, 3, 2**70, -0.0, float("nan"), 1e-300, 1 + 2j, "text",
                                   (1, [2.5, {"k": (None,)}]), np.arange(6, dtype=np.float32).reshape(2, 3),
                                   np.array([True, False]), np.float16(1.5), np.int64(-7)])
def test_values_round_trip_bit_exactly(value):
    back = oracle._decode_value(oracle._encode_value(value))
    assert type(back) is type(value)
    assert oracle.describe(back) == oracle.describe(value)
    assert oracle._same(oracle._encode_value(back), oracle._encode_value(value))


def test_arguments_are_described_by_content():
    a = np.arange(4.0)
    assert oracle.describe(a) == oracle.describe(a.copy()) != oracle.describe(a + 1)
    assert oracle.describe((1, 0.5, slice(None, 2))) == "(1,0x1.0000000000000p-1,slice(None,2,None))"
    with pytest.raises(oracle.LiveOnly):
        oracle.describe(lambda: None)


def test_replay_gives_recorded_outcomes_and_refuses_other_questions(monkeypatch):
    monkeypatch.setattr(oracle, "HAVE_TORCH", False)
    events = [["torch.ones(2)", ["p"]],
              ["%1.shape", ["v", {"t": [2]}]],
              ["%1.dtype", ["path", "torch.float32"]],
              ["%1.dtype", ["path", "torch.float32"]],
              ["str(torch.float32)", ["v", "torch.float32"]],
              ["torch.cat(%1,0x1.0000000000000p+0)", ["raise", ["RuntimeError"], "bad cat"],
               [["UserWarning", "careful"]]],
              ["%1.max", ["p"]],
              ["%2(0)", ["seq", "tuple", [["p"], ["v", 1]]]]]
    monkeypatch.setattr(oracle, "_tape", oracle.Tape("tests/test_x.py::t", {"events": events}))
    torch = oracle.oracle_torch()
    x = torch.ones(2)
    assert x.shape == (2,)
    assert x.dtype is torch.float32 and str(x.dtype) == "torch.float32"
    with pytest.warns(UserWarning, match="careful"), pytest.raises(RuntimeError, match="^bad cat$"):
        torch.cat(x, 1.0)
    values, index = x.max(0)
    assert isinstance(values, oracle.Proxy) and index == 1
    with pytest.raises(pytest.fail.Exception, match="ends before %1.sum"):
        x.sum()


def test_replay_without_a_recording_skips(monkeypatch):
    monkeypatch.setattr(oracle, "HAVE_TORCH", False)
    monkeypatch.setattr(oracle, "_tape", oracle.Tape("tests/test_x.py::t", None))
    with pytest.raises(pytest.skip.Exception, match="no recording"):
        oracle.oracle_torch().ones(2)


def test_exceptions_keep_torchs_type_name():
    t = oracle._builtin_exception(["_LinAlgError", "RuntimeError"])
    assert t.__name__ == "_LinAlgError" and issubclass(t, RuntimeError)
    assert oracle._builtin_exception(["IndexError"]) is IndexError
