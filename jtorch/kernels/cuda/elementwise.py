"""Elementwise CUDA launches: ``launch(scalar_fn, shape, operands, extras)``, the CUDA twin of
kernels/cpu/loops.py, with its conventions (shape fastest-first, strides in elements, the
output first; an operand is (buffer, offset, strides) or a scalar value).

Kernels come from codegen.py, one module per (scalar function, operand pattern, number of
extras); numba compiles each per dtype signature. A strided launch reads the shape and strides
from a small int64 array, kept on the device per geometry so repeated shapes upload nothing.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from . import codegen, driver


class Operand(NamedTuple):
    buf: Any          # the storage's kernel array
    offset: int
    strides: tuple


_modules: dict[tuple, Any] = {}
_lock = threading.Lock()


def kernels(scalar_fn: Callable, is_array: tuple[bool, ...], nextra: int) -> Any:
    """The generated module (contig, strided) for this scalar function and operand pattern."""
    key = (scalar_fn, is_array, nextra)
    mod = _modules.get(key)
    if mod is None:
        with _lock:
            mod = _modules.get(key)
            if mod is None:
                mod = codegen.load(key, lambda: codegen.module_source(scalar_fn, is_array, nextra))
                _modules[key] = mod
    return mod


_metas: dict[tuple, Any] = {}


def meta_array(values: tuple) -> Any:
    """An int64 kernel array holding `values`; cached on the GPU (bounded) per geometry."""
    if driver.SIMULATED:
        return np.array(values, np.int64)
    m = _metas.get(values)
    if m is None:
        if len(_metas) > 1024:
            _metas.clear()
        m = _metas[values] = driver.numba_cuda().to_device(np.array(values, np.int64))
    return m


def launch(scalar_fn: Callable, shape: tuple, operands: list, extras: tuple = ()) -> None:
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return
    is_array = tuple(type(o) is Operand for o in operands)
    args: list = []
    contig = len(shape) <= 1
    for o in operands:
        if type(o) is Operand:
            args += (o.buf, o.offset)
            if contig and shape and o.strides[0] != 1:
                contig = False
        else:
            args.append(o)
    mod = kernels(scalar_fn, is_array, len(extras))
    if contig:
        driver.launch(mod.contig, numel, numel, *args, *extras)
        return
    flat = list(shape)
    for o in operands:
        if type(o) is Operand:
            flat += o.strides
    driver.launch(mod.strided, numel, numel, meta_array(tuple(flat)), len(shape), *args, *extras)


def run_iterator(it: Any, scalar_fn: Callable, extras: tuple) -> None:
    """The `elementwise` stub: `scalar_fn` over a built TensorIterator's CUDA operands."""
    operands = []
    for o in it.operands:
        if o.scalar is not None:
            operands.append(o.scalar)
        else:
            t = o.tensor
            operands.append(Operand(t._storage.data, t._offset, tuple(o.strides)))
    launch(scalar_fn, tuple(it.shape), operands, extras)


def contiguous_runner(scalar_fn: Callable, pattern: tuple, nextra: int) -> Callable:
    """The `elementwise_contiguous` stub (TensorIterator's fast set-up): run(out, tensors,
    compute_dtype, extras, numel) for contiguous CUDA tensors of one shape; inputs marked False in
    `pattern` are CPU scalars, read as values of the compute dtype. The kernel module is looked up
    once; a call is the argument list and one launch."""
    from ...scalar import as_scalar

    is_array = (True,) + tuple(pattern)
    contig: list = []

    def run(out: Any, tensors: list, dtype: Any, extras: Any, numel: int) -> None:
        if not contig:
            contig.append(kernels(scalar_fn, is_array, nextra).contig)
        args = [out._storage.data, out._offset]
        for t, arr in zip(tensors, pattern):
            if arr:
                args += (t._storage.data, t._offset)
            else:
                args.append(as_scalar(dtype.numpy.type, t._storage.read(t._offset)))
        if numel:
            driver.launch(contig[0], numel, numel, *args, *extras)

    return run
