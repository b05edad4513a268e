"""Index-taking operators on a dimension of size 0 with a non-empty index: torch raises its
out-of-bounds error (the text of the path it takes: the kernel's value check, AdvancedIndex's own
check, as_strided's storage check of index_fill/index_copy's restrided operand, index_reduce's
first select, take_along_dim's remainder by 0), or returns where its kernel visits nothing. Each
case runs on torch and on jtorch, in-place, functional and out= forms, and on views whose storage
is larger than the empty tensor."""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from _torch_oracle import oracle_torch

import jtorch


def _cases() -> dict[str, Callable[[Any], Any]]:
    def z(T: Any, *s: int) -> Any:
        return T.zeros(*s)

    def i(T: Any, *v: int, dtype: str = "long") -> Any:
        return T.tensor(list(v), dtype=getattr(T, dtype))

    def big(T: Any) -> Any:  # an empty view of a non-empty storage
        return T.zeros(4, 3)[:0]

    def ones13(T: Any) -> Any:
        return T.ones(1, 3)

    cases: dict[str, Callable[[Any], Any]] = {
        "index_add_2d": lambda T: z(T, 0, 3).index_add(0, i(T, 0), ones13(T)),
        "index_add_d1": lambda T: z(T, 3, 0).index_add_(1, i(T, 0), T.ones(3, 1)),
        "index_add_1d": lambda T: z(T, 0).index_add(0, i(T, 0), T.ones(1)),
        "index_add_1d_int32": lambda T: z(T, 0).index_add_(0, i(T, 2, dtype="int32"), T.ones(1)),
        "index_add_1d_out": lambda T: T.index_add(z(T, 0), 0, i(T, 0), T.ones(1), out=z(T, 0)),
        "index_fill": lambda T: z(T, 0, 3).index_fill(0, i(T, 0), 1.0),
        "index_fill_tensor": lambda T: z(T, 0, 3).index_fill_(0, i(T, 0), T.tensor(1.0)),
        "index_fill_d1": lambda T: z(T, 3, 0).index_fill(1, i(T, 0), 1.0),
        "index_fill_1d": lambda T: z(T, 0).index_fill(0, i(T, 0), 1.0),
        "index_fill_view": lambda T: big(T).index_fill_(0, i(T, 0), 1.0),
        "index_fill_other_dim_empty": lambda T: z(T, 2, 0).index_fill_(0, i(T, 5), 1.0),
        "index_copy": lambda T: z(T, 0, 3).index_copy(0, i(T, 0), ones13(T)),
        "index_copy_d1": lambda T: z(T, 3, 0).index_copy_(1, i(T, 0), T.ones(3, 1)),
        "index_copy_1d": lambda T: z(T, 0).index_copy(0, i(T, 0), T.ones(1)),
        "index_copy_view": lambda T: big(T).index_copy_(0, i(T, 0), ones13(T)),
        "index_copy_out": lambda T: T.index_copy(z(T, 0, 3), 0, i(T, 0), ones13(T), out=T.zeros(0, 3)),
        "index_copy_other_dim_empty": lambda T: z(T, 2, 0).index_copy_(0, i(T, 5), T.ones(1, 0)),
        "index_reduce_prod": lambda T: z(T, 0, 3).index_reduce(0, i(T, 0), ones13(T), "prod"),
        "index_reduce_amax_d1": lambda T: z(T, 3, 0).index_reduce_(1, i(T, 2), T.ones(3, 1), "amax"),
        "index_reduce_1d": lambda T: z(T, 0).index_reduce(0, i(T, 0), T.ones(1), "mean"),
        "index_reduce_exclude": lambda T: z(T, 0, 3).index_reduce(0, i(T, 0), ones13(T), "amin", include_self=False),
        "index_reduce_exclude_view": lambda T: big(T).index_reduce_(0, i(T, 0), ones13(T), "prod",
                                                                   include_self=False),
        "index_reduce_other_dim_empty": lambda T: z(T, 2, 0).index_reduce_(0, i(T, 5), T.ones(1, 0), "prod"),
        "index_select": lambda T: z(T, 0, 3).index_select(0, i(T, 0)),
        "index_select_1d": lambda T: z(T, 0).index_select(0, i(T, 0)),
        "scatter": lambda T: z(T, 0, 3).scatter(0, T.zeros(1, 3, dtype=T.long), ones13(T)),
        "scatter_value": lambda T: z(T, 0, 3).scatter_(0, T.zeros(1, 3, dtype=T.long), 2.0),
        "scatter_negative": lambda T: z(T, 0, 3).scatter_(0, T.tensor([[-1, 2]]), 2.0),
        "scatter_legacy_reduce": lambda T: z(T, 0, 3).scatter(0, T.zeros(1, 3, dtype=T.long), ones13(T), reduce="add"),
        "scatter_value_reduce": lambda T: z(T, 0, 3).scatter(0, T.zeros(1, 3, dtype=T.long), 2.0, reduce="multiply"),
        "scatter_out": lambda T: T.scatter(z(T, 0, 3), 0, T.zeros(1, 3, dtype=T.long), ones13(T), out=T.zeros(0, 3)),
        "scatter_add": lambda T: z(T, 0, 3).scatter_add(0, T.zeros(1, 3, dtype=T.long), ones13(T)),
        "scatter_add_1d": lambda T: z(T, 0).scatter_add_(0, i(T, 1), T.ones(1)),
        "scatter_reduce_sum": lambda T: z(T, 0, 3).scatter_reduce(0, T.zeros(1, 3, dtype=T.long), ones13(T), "sum"),
        "scatter_reduce_amax": lambda T: z(T, 0, 3).scatter_reduce_(0, T.zeros(1, 3, dtype=T.long), ones13(T), "amax"),
        "scatter_reduce_mean": lambda T: z(T, 0, 3).scatter_reduce(0, T.zeros(1, 3, dtype=T.long), ones13(T), "mean",
                                                                   include_self=False),
        "scatter_other_dim_empty": lambda T: z(T, 2, 0).scatter_(0, T.zeros(1, 0, dtype=T.long), 2.0),
        "gather": lambda T: z(T, 0, 3).gather(0, T.zeros(1, 3, dtype=T.long)),
        "gather_d1": lambda T: z(T, 3, 0).gather(1, T.zeros(3, 1, dtype=T.long)),
        "take": lambda T: T.take(z(T, 0, 3), i(T, 0)),
        "take_along_dim": lambda T: T.take_along_dim(z(T, 0, 3), T.zeros(1, 3, dtype=T.long), 0),
        "take_along_dim_1d": lambda T: T.take_along_dim(z(T, 0), i(T, 0), 0),
        "take_along_dim_flat": lambda T: T.take_along_dim(z(T, 0, 3), T.zeros(1, 3, dtype=T.long)),
        "take_along_dim_empty_index": lambda T: T.take_along_dim(z(T, 0, 3), T.zeros(0, 3, dtype=T.long), 0),
        "put_": lambda T: z(T, 0, 3).put_(i(T, 0), T.ones(1)),
        "put_accumulate": lambda T: z(T, 0, 3).put(i(T, 0), T.ones(1), accumulate=True),
        "index_put_": lambda T: z(T, 0, 3).index_put_((i(T, 0),), T.ones(3)),
        "index_put_accumulate": lambda T: z(T, 0, 3).index_put_((i(T, 0),), T.ones(3), accumulate=True),
        "index_put": lambda T: z(T, 0, 3).index_put((i(T, 0),), T.ones(3)),
        "getitem": lambda T: z(T, 0, 3)[i(T, 0)],
        "getitem_dim1": lambda T: z(T, 3, 0)[:, i(T, 0)],
        "getitem_two": lambda T: z(T, 0, 3)[i(T, 0), i(T, 1)],
        "getitem_empty_index": lambda T: z(T, 0, 3)[i(T)],
        "setitem": lambda T: z(T, 0, 3).__setitem__(i(T, 0), 1.0),
        "masked_scatter": lambda T: z(T, 0, 3).masked_scatter(T.ones(0, 3, dtype=T.bool), T.ones(3)),
        "embedding": lambda T: T.nn.functional.embedding(i(T, 0), z(T, 0, 3)),
        "select": lambda T: z(T, 0, 3).select(0, 0),
    }
    return cases


CASES = _cases()


def _outcome(fn: Callable[[Any], Any], T: Any) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # index_reduce's beta warning
        try:
            r = fn(T)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return (type(e).__name__, str(e))
    return ("ok", None if r is None else tuple(r.shape))


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_dim_with_index_matches_torch(name: str) -> None:
    want = _outcome(CASES[name], oracle_torch())
    got = _outcome(CASES[name], jtorch)
    assert got == want
