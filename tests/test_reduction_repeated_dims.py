"""A dim given twice in a reduction's dim list is refused as torch refuses it (dim_list_to_bitset:
"dim 0 appears multiple times in the list of dims"), on a 0-dim tensor too, whose only dim 0 (a
scalar's wrapped dim) counts once. A list of calls over the reductions and dim-list operators (sum,
nansum, mean, nanmean, amax, amin, all, any, var, std, var_mean, std_mean, norm, logsumexp,
count_nonzero, vector_norm, their out= and keepdim forms, flip, squeeze, permute) on 0-dim, 1-d and
2-d inputs against torch, and a sweep of every declared function whose second argument is a dim
list.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch

import jtorch
from jtorch import bindings

CASES: dict[str, Any] = {
    "sum": lambda T, x: x.sum((0, 0)), "nansum": lambda T, x: x.nansum((0, 0)), "mean": lambda T, x: x.mean((0, 0)),
    "nanmean": lambda T, x: x.nanmean((0, 0)), "prod_int": lambda T, x: T.prod(x, 0),
    "amax": lambda T, x: x.amax((0, 0)), "amin": lambda T, x: x.amin((0, -1)), "all": lambda T, x: x.all((0, 0)),
    "any": lambda T, x: x.any((0, 0)), "var": lambda T, x: x.var((0, 0)), "std": lambda T, x: x.std((0, 0)),
    "var_mean": lambda T, x: T.var_mean(x, (0, 0)), "std_mean": lambda T, x: T.std_mean(x, (0, 0)),
    "norm": lambda T, x: x.norm(2, (0, 0)), "norm_fro": lambda T, x: x.norm("fro", (0, 0)),
    "logsumexp": lambda T, x: x.logsumexp((0, 0)), "count_nonzero": lambda T, x: T.count_nonzero(x, (0, 0)),
    "vector_norm": lambda T, x: T.linalg.vector_norm(x, 2, (0, 0)),
    "sum_keep": lambda T, x: x.sum((0, 0), keepdim=True), "mean_dtype": lambda T, x: x.mean((0, 0), dtype=T.float64),
    "sum_out": lambda T, x: T.sum(x, (0, 0), out=T.empty(())),
    "var_c": lambda T, x: T.var(x, (0, 0), correction=0), "std_c": lambda T, x: T.std(x, (-1, 0), correction=0),
    "amax_out": lambda T, x: T.amax(x, (0, 0), out=T.empty(())),
    "sum_3": lambda T, x: x.sum((0, 0, 0)), "sum_neg": lambda T, x: x.sum((-1, -1)),
    "flip": lambda T, x: x.flip((0, 0)), "permute": lambda T, x: x.permute(0, 0),
    "squeeze": lambda T, x: x.squeeze((0, 0)), "aminmax": lambda T, x: T.aminmax(x, dim=0),
    "sum_1d": lambda T, x: x.reshape(1).sum((0, 0)), "mean_1d": lambda T, x: x.reshape(1).mean((0, -1)),
    "all_1d": lambda T, x: x.reshape(1).all((0, 0)), "std_mean_1d": lambda T, x: T.std_mean(x.reshape(1), (0, 0)),
    "norm_1d": lambda T, x: x.reshape(1).norm(2, (0, 0)),
}

INPUTS = {"0d": 1.5, "1d": [1.5], "2d": [[1.0, 2.0], [3.0, 4.0]]}


def outcome(T: Any, case: Any, value: Any) -> tuple:
    x = T.tensor(value)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # var/std's degrees-of-freedom warning
            r = case(T, x)
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return type(e).__name__, str(e).replace("jtorch", "torch")
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return "ok", [np.asarray(t.numpy()).tolist() for t in rs]


@pytest.mark.parametrize("shape", list(INPUTS))
@pytest.mark.parametrize("name", list(CASES))
def test_repeated_dims_as_torch(name: str, shape: str) -> None:
    torch = oracle_torch()
    assert outcome(jtorch, CASES[name], INPUTS[shape]) == outcome(torch, CASES[name], INPUTS[shape])


def _dim_list_functions() -> list[str]:
    """Every declared function whose second positional argument is a dim list (tile's `dims` are
    repeat counts, not dims)."""
    names = set()
    for name, sigs in bindings.signatures_by_name(False).items():
        for sig in sigs:
            ps = [p for p in sig.params if not p.kwarg_only]
            if (len(ps) >= 2 and ps[0].type is not None and ps[0].type.base_name == "Tensor"
                    and not ps[0].type.is_list() and ps[1].name in ("dim", "dims") and ps[1].type is not None
                    and ps[1].type.unwrap_optional().is_list()):
                names.add(name)
    return sorted(names - {"tile"})


@pytest.mark.parametrize("name", _dim_list_functions())
def test_every_dim_list_function_refuses_a_repeated_dim_of_a_0_dim_tensor(name: str) -> None:
    torch = oracle_torch()

    def case(T: Any, x: Any) -> Any:
        return getattr(T, name)(x, (0, 0))

    got = outcome(jtorch, case, 1.5)
    assert got == outcome(torch, case, 1.5)
    assert got[0] != "ok"


def test_the_sweep_reaches_the_reductions() -> None:
    assert {"sum", "nansum", "mean", "amax", "all", "any", "var", "std_mean", "logsumexp",
            "count_nonzero"} <= set(_dim_list_functions())
