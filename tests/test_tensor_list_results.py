"""Sequences of tensors come back as torch returns them: a tuple from every operator whose schema
returns Tensor[] (torch's binding wraps a TensorList as a tuple: torch.where(cond), split, chunk,
unbind, tensor_split, hsplit/vsplit/dsplit, meshgrid, broadcast_tensors, nonzero(as_tuple=True)),
a named tuple where the schema names its returns. A list of calls against torch, and a sweep of
every declared operator returning Tensor[].
"""
from __future__ import annotations

from typing import Any

import pytest
from _torch_oracle import oracle_torch

import jtorch
from jtorch import bindings


def _kind(r: Any) -> str:
    """tuple, list, a named tuple's name, or Tensor (a stand-in for torch's under the oracle)."""
    return type(r).__name__ if isinstance(r, (tuple, list)) else "Tensor"


CASES: dict[str, Any] = {
    "where1": lambda T: _kind(T.where(T.tensor([[1, 0], [0, 1]]))),
    "nonzero_tuple": lambda T: _kind(T.nonzero(T.tensor([1, 0, 1]), as_tuple=True)),
    "nonzero_tuple_m": lambda T: _kind(T.tensor([1, 0, 1]).nonzero(as_tuple=True)),
    "meshgrid": lambda T: _kind(T.meshgrid(T.arange(2), T.arange(3), indexing="ij")),
    "meshgrid_list": lambda T: _kind(T.meshgrid([T.arange(2), T.arange(3)], indexing="xy")),
    "split": lambda T: _kind(T.arange(6).split(2)), "split_fn": lambda T: _kind(T.split(T.arange(6), [2, 4])),
    "split_sizes": lambda T: _kind(T.arange(6).split_with_sizes([2, 4])),
    "chunk": lambda T: _kind(T.arange(6).chunk(3)), "chunk_fn": lambda T: _kind(T.chunk(T.arange(6), 3)),
    "unbind": lambda T: _kind(T.arange(6).view(2, 3).unbind()),
    "unbind_fn": lambda T: _kind(T.unbind(T.arange(6).view(2, 3), 1)),
    "tensor_split": lambda T: _kind(T.tensor_split(T.arange(6), 3)),
    "hsplit": lambda T: _kind(T.hsplit(T.arange(6), 3)),
    "vsplit": lambda T: _kind(T.vsplit(T.arange(6).view(3, 2), 3)),
    "dsplit": lambda T: _kind(T.dsplit(T.arange(6).view(1, 1, 6), 3)),
    "broadcast_tensors": lambda T: _kind(T.broadcast_tensors(T.arange(2), T.arange(2))),
    "unique": lambda T: _kind(T.unique(T.tensor([1, 1, 2]), return_counts=True)),
    "unique_consecutive": lambda T: _kind(T.unique_consecutive(T.tensor([1, 1, 2]), return_counts=True)),
    "sort": lambda T: _kind(T.tensor([2, 1]).sort()), "max": lambda T: _kind(T.tensor([2, 1]).max(0)),
    "where3": lambda T: _kind(T.where(T.tensor([True]), T.tensor([1]), T.tensor([2]))),
    "split_tensor_sections": lambda T: _kind(T.tensor_split(T.arange(6), T.tensor([1, 3]))),
    "unflatten_list": lambda T: _kind(T.arange(6).unflatten(0, [2, 3])),
    "aminmax": lambda T: _kind(T.aminmax(T.arange(6.0))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_result_type_as_torch(name: str) -> None:
    torch = oracle_torch()
    assert CASES[name](jtorch) == CASES[name](torch)


def _tensor_list_bindings() -> list:
    found = []
    for method in (False, True):
        for name, sigs in bindings.signatures_by_name(method).items():
            for k, sig in enumerate(sigs):
                r = sig.nf.func.returns
                if len(r) == 1 and r[0].type.is_list():
                    found.append(pytest.param(name, method, k, id=f"{'Tensor.' if method else ''}{name}-{k}"))
    return found


_ARGS = {"chunk": (2,), "split": (2,), "split_with_sizes": ([2, 2],), "tensor_split": (2,), "hsplit": (2,),
         "vsplit": (2,), "dsplit": (2,), "unbind": ()}


@pytest.mark.parametrize("name,method,k", _tensor_list_bindings())
def test_every_tensor_list_result_is_a_tuple(name: str, method: bool, k: int) -> None:
    x = jtorch.ones(4, 4, 4, device="meta")
    if method:
        r = getattr(x, name)(*_ARGS[name])
    elif name in _ARGS:
        r = getattr(jtorch, name)(x, *_ARGS[name])
    elif name in ("atleast_1d", "atleast_2d", "atleast_3d"):  # one tensor alone gives a tensor, as torch's
        r = getattr(jtorch, name)([x, x])
    elif name == "_histogramdd_bin_edges":  # CPU only, as torch's: (M, N) samples, N bin counts
        r = jtorch._histogramdd_bin_edges(jtorch.ones(4, 2), [2, 2])
    elif name in ("meshgrid", "broadcast_tensors"):
        r = getattr(jtorch, name)(jtorch.ones(2, device="meta"), jtorch.ones(2, device="meta"))
    else:  # where(cond), nonzero_numpy: data-dependent sizes need data
        r = getattr(jtorch, name)(jtorch.tensor([[1, 0], [0, 1]]))
    assert type(r) is tuple and all(isinstance(t, jtorch.Tensor) for t in r)


def test_the_sweep_reaches_where_and_the_splits() -> None:
    ids = {p.id.split("-")[0] for p in _tensor_list_bindings()}
    assert {"where", "split", "chunk", "unbind", "meshgrid", "Tensor.split", "Tensor.unbind"} <= ids
