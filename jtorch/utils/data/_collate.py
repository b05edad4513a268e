"""default_collate: merge a list of samples into a batch, recursively, as torch does.

Tensors are stacked; numpy arrays become tensors and are stacked; Python floats become a float64
tensor, ints an int64 tensor (bools a bool tensor); strings stay a list; dicts, named tuples and
sequences are collated field by field (a tuple sample gives a list, as torch).
"""
from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

import jtorch
from jtorch import Tensor

from .dataset import _GatheredBatch

__all__ = ["default_collate", "default_convert", "collate"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def collate_tensor_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    return jtorch.stack(list(batch), 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([jtorch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    return jtorch.as_tensor(np.asarray(batch))


def collate_float_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    return jtorch.tensor(list(batch), dtype=jtorch.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: Any = None) -> Tensor:
    return jtorch.tensor(list(batch))


def collate_str_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    return batch


default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch: Any, *, collate_fn_map: dict[Any, Callable] | None = None) -> Any:
    """torch.utils.data._utils.collate.collate: dispatch on the first element's type."""
    if type(batch) is _GatheredBatch:  # a TensorDataset batch: already gathered, one op per tensor
        return batch.gathered()
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem})
                return clone
            return elem_type({k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem})
        except TypeError:
            return {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)  # type: ignore[arg-type]  # the name held a mapping's copy above
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch: Any) -> Any:
    """Collate a list of samples into a batch (see the module docstring)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """Without batching: numpy arrays become tensors, containers are converted element-wise."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        if np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return jtorch.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return jtorch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            converted = {k: default_convert(v) for k, v in data.items()}
            return type(data)(converted)  # type: ignore[call-arg]  # a mapping type of one argument, or TypeError
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])  # type: ignore[call-arg]  # or TypeError
        except TypeError:
            return [default_convert(d) for d in data]
    return data
