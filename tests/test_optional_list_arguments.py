"""A positional or keyword None for an optional argument, as torch's PythonArgParser takes it.

torchgen writes the default `[]` of a list argument as `None` in the Python signature, so
`torch.roll(x, 1, None)`, `torch.amax(x, None)` and `max_pool2d(x, k, None)` take None for it (the
default); a list without a default, or with another default (`rot90(x, 1, None)`, `flip(x, None)`),
refuses it with the binding's text; `T?` arguments take None. Checked two ways: every generated
binding whose signature has such an argument takes None there as its default (a sweep of the
declarations, on meta tensors), and a list of calls over the operator families against torch.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch

import jtorch
from jtorch import bindings

CASES: dict[str, Any] = {
    "roll": lambda T, x: T.roll(x, 1, None), "roll_m": lambda T, x: x.roll(1, None),
    "sum": lambda T, x: T.sum(x, None), "sum_m": lambda T, x: x.sum(None), "sum_k": lambda T, x: T.sum(x, None, True),
    "nansum": lambda T, x: T.nansum(x, None),
    "mean": lambda T, x: T.mean(x, None),
    "nanmean": lambda T, x: T.nanmean(x, None),
    "amax": lambda T, x: T.amax(x, None), "amin": lambda T, x: x.amin(None), "std": lambda T, x: x.std(None),
    "var": lambda T, x: T.var(x, None),
    "std_mean": lambda T, x: T.std_mean(x, None),
    "var_mean": lambda T, x: T.var_mean(x, None),
    "count_nonzero": lambda T, x: T.count_nonzero(x, None), "norm": lambda T, x: T.norm(x, 2, None),
    "logsumexp": lambda T, x: T.logsumexp(x, None),
    "flip": lambda T, x: T.flip(x, None),
    "permute": lambda T, x: x.permute(None),
    "tile": lambda T, x: T.tile(x, None),
    "rot90": lambda T, x: T.rot90(x, 1, None),
    "repeat": lambda T, x: x.repeat(None),
    "expand": lambda T, x: x.expand(None), "new_empty_strided": lambda T, x: x.new_empty_strided((2,), None).shape,
    "any": lambda T, x: T.any(x, None), "all": lambda T, x: T.all(x, None), "prod": lambda T, x: T.prod(x, None),
    "max_pool1d": lambda T, x: T.max_pool1d(x, [1], None), "max_pool2d": lambda T, x: T.max_pool2d(x, [1, 1], None),
    "avg_pool1d": lambda T, x: T.avg_pool1d(x, [1], None),
    "F_max_pool2d": lambda T, x: T.nn.functional.max_pool2d(x, 1, None),
    "F_avg_pool2d": lambda T, x: T.nn.functional.avg_pool2d(x, 1, None),
    "F_max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x, 1, None),
    "F_avg_pool1d": lambda T, x: T.nn.functional.avg_pool1d(x, 1, None),
    "F_interp": lambda T, x: T.nn.functional.interpolate(x, None, 2.0),
    "F_normalize": lambda T, x: T.nn.functional.normalize(x, 2.0, 1, 1e-12, None),
    "F_layer_norm": lambda T, x: T.nn.functional.layer_norm(x, (3,), None, None),
    "F_dropout": lambda T, x: T.nn.functional.dropout(x, 0.0, False, False),
    "cumsum": lambda T, x: T.cumsum(x, None),
    "squeeze": lambda T, x: T.squeeze(x, None), "flatten": lambda T, x: x.flatten(None),
    "zeros": lambda T, x: T.zeros(None), "view": lambda T, x: x.view(None), "reshape": lambda T, x: x.reshape(None),
    "sum_dim_dtype": lambda T, x: T.sum(x, None, dtype=T.float64),
    "aminmax": lambda T, x: T.aminmax(x, dim=None), "std_c": lambda T, x: T.std(x, None, correction=0),
    "tensordot": lambda T, x: T.tensordot(x, x, None), "einsum_none": lambda T, x: T.einsum("ijk->", x),
    "movedim": lambda T, x: T.movedim(x, None, None),
}


def outcome(T: Any, case: Any) -> tuple:
    x = T.tensor(np.arange(6.0).reshape(1, 2, 3))
    try:
        r = case(T, x)
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        # the first line: the list of signatures after it is another matter (its order and notes)
        return type(e).__name__, str(e).replace("jtorch", "torch").split("\n")[0]
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return "ok", [t.numpy().tolist() if hasattr(t, "numpy") else list(t) for t in rs]


@pytest.mark.parametrize("name", list(CASES))
def test_none_for_an_optional_argument_as_torch(name: str) -> None:
    torch = oracle_torch()
    assert outcome(jtorch, CASES[name]) == outcome(torch, CASES[name])


# ---- every declared signature with a list argument whose default is [] ----------------------------
_SAMPLE = {"Tensor": lambda: jtorch.ones(1, 2, 4, device="meta"), "int": lambda: 1, "SymInt": lambda: 1,
           "float": lambda: 1.0, "bool": lambda: False, "Scalar": lambda: 1}


def _sample(t: Any) -> Any:
    if t.is_list():
        return [1] if t.elem.base_name in ("int", "SymInt") else None
    make = _SAMPLE.get(t.base_name)
    return make() if make is not None else None


def _swept() -> list:
    found = []
    for method in (False, True):
        for name, sigs in bindings.signatures_by_name(method).items():
            for k, sig in enumerate(sigs):
                for j, p in enumerate(sig.params):
                    if bindings._none_is_default(p):
                        label = f"{'Tensor.' if method else ''}{name}-{k}-{p.name}"
                        found.append(pytest.param(name, method, k, j, id=label))
    return found


def _result(call: Any) -> Any:
    try:
        r = call()
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e)
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return "ok", [(tuple(t.shape), t.dtype) for t in rs]


@pytest.mark.parametrize("name,method,k,j", _swept())
def test_every_list_argument_defaulting_to_empty_takes_none(name: str, method: bool, k: int, j: int) -> None:
    sig = bindings.signatures_for(name, method)[k]
    p = sig.params[j]
    before = []
    for q in sig.params[:j]:
        if q.kwarg_only:
            continue
        v = q.default if q.has_default else _sample(q.type)
        if v is None and not q.has_default:
            pytest.skip(f"no sample for {q.type}")
        before.append(v)
    target = (jtorch.ones(1, 2, 4, device="meta"),) if method else ()
    fn = (lambda *a, **kw: getattr(target[0], name)(*a, **kw)) if method else getattr(jtorch, name)
    if p.kwarg_only:
        with_none, with_default = (lambda: fn(*before, **{p.name: None})), (lambda: fn(*before, **{p.name: ()}))
    else:
        with_none, with_default = (lambda: fn(*before, None)), (lambda: fn(*before, ()))
    got = _result(with_none)
    assert "NoneType" not in str(got[1]), got
    assert got == _result(with_default)


def test_the_sweep_reaches_the_reductions_pools_and_roll() -> None:
    ids = {p.id.split("-")[0] for p in _swept()}
    assert {"roll", "amax", "amin", "max_pool2d", "Tensor.roll", "Tensor.amax"} <= ids
