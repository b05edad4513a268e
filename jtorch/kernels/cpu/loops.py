"""Elementwise CPU loops: ``launch(scalar_fn, shape, operands, extra)``.

The loops for a scalar function are generated once per operand pattern (which operands are
arrays, how many extras) by :mod:`codegen`, written to the kernel cache by :mod:`cache` and
imported; Numba compiles each entry point lazily per dtype signature and caches it on disk.

Conventions (PyTorch's TensorIterator after reorder_dimensions + coalescing):
* ``shape[0]`` is the FASTEST-moving (innermost) dimension; strides are in elements, >= 0.
* ``operands``: the output first (an :class:`ArrayOperand`), then the inputs, each an
  ArrayOperand or a scalar passed to the scalar function as is.  Pass NumPy scalars of the
  compute dtype (``np.float32(2.0)``): a Python float would make float32 code float64.
* ``extra``: trailing arguments of the scalar function (e.g. ``alpha``), same advice.
* The stored value is converted to the output's dtype by Numba (e.g. bool results of ``<``).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ...codegen import compile_source
from ...scalar import as_scalar  # noqa: F401  (the generated runners read scalars with it)
from ..common import cache
from . import codegen
from .threads import GRAIN_SIZE, launch_parallel, num_chunks, parallel_for


class ArrayOperand(NamedTuple):
    """A strided view into a flat storage buffer: element (i0, i1, ...) is at
    ``buf[offset + i0 * strides[0] + i1 * strides[1] + ...]``."""
    buf: np.ndarray
    offset: int
    strides: tuple[int, ...]


class _Kernels(NamedTuple):
    contig: Any
    contig_par: Any
    strided: Any
    strided_par: Any


# (scalar_fn, operand pattern bits, number of extras) -> entry points.  The hot path is one
# lookup here; everything else happens once per key per process.
_kernels: dict[tuple[Callable, int, int] | tuple[Callable, int, int, bool], _Kernels] = {}
_lock = threading.Lock()


def _load(scalar_fn: Callable, bits: int, nextra: int, in_place: bool = False) -> _Kernels:
    """Generate/import the module for a key.  `bits`: a leading 1, then one bit per operand
    (1 = array), so that trailing scalar operands still change the key. `in_place`: the first
    input is the output itself (read from the output's buffer: see codegen.loops_source)."""
    is_array: tuple = tuple(c == "1" for c in bin(bits)[3:])
    if in_place:
        is_array = (True, None) + is_array[2:]
    key = (scalar_fn, bits, nextra) if not in_place else (scalar_fn, bits, nextra, True)
    with _lock:
        k = _kernels.get(key)
        if k is None:
            stem, src = codegen.module_source(scalar_fn, is_array, nextra)
            path = cache.write_source(stem + ".py", src)
            mod = cache.import_file("jtorch_kernels_generated." + stem, path)
            k = _Kernels(mod.contig, mod.contig_par, mod.strided, mod.strided_par)
            _kernels[key] = k
    return k


def _zero_division() -> RuntimeError:
    return RuntimeError("ZeroDivisionError")  # torch's CPU text for integer x / 0


def launch(scalar_fn: Callable, shape: tuple[int, ...], operands: list,
           extra: tuple = ()) -> None:
    """Compute ``out = scalar_fn(*inputs, *extra)`` elementwise over `shape` (see module doc)."""
    ndim = len(shape)
    bits = 1
    args: list[Any] = []
    contig = ndim <= 1
    for op in operands:
        if type(op) is ArrayOperand:
            bits = (bits << 1) | 1
            args.append(op.buf)
            args.append(op.offset)
            if contig and ndim and op.strides[0] != 1:
                contig = False
        else:
            bits <<= 1
            args.append(op)
    if ndim == 1:
        numel = shape[0]
    elif ndim == 0:
        numel = 1
    else:
        numel = 1
        for s in shape:
            numel *= s
    if numel == 0:
        return
    k = _kernels.get((scalar_fn, bits, len(extra)))
    if k is None:
        k = _load(scalar_fn, bits, len(extra))
    try:
        if contig:
            if numel < GRAIN_SIZE:
                k.contig(0, numel, *args, *extra)
            else:
                parallel_for(k.contig, k.contig_par, numel, *args, *extra)
            return
        # the row state per chunk lives in meta: size it for the most chunks the policy allows
        nchunks = num_chunks(numel)
        meta, soff = _meta(shape, operands, nchunks)
        if numel < GRAIN_SIZE:
            k.strided(0, numel, meta, ndim, soff, *args, *extra)
        else:
            launch_parallel(k.strided, k.strided_par, numel, nchunks, meta, ndim, soff, *args, *extra)
    except ZeroDivisionError:
        raise _zero_division() from None


def _meta(shape: tuple[int, ...], operands: Sequence[Any], nchunks: int) -> tuple[np.ndarray, int]:
    """int64 [shape, strides of each array operand, row state per chunk] (see odometer.py)."""
    flat = list(shape)
    nops = 0
    for op in operands:
        if type(op) is ArrayOperand:
            if len(op.strides) != len(shape) or min(op.strides) < 0:
                raise ValueError(f"strides {op.strides} for shape {shape}: need one stride "
                                 "per dim, each >= 0")
            flat.extend(op.strides)
            nops += 1
    soff = len(flat)
    flat.extend([0] * (nchunks * (nops + len(shape))))
    return np.array(flat, dtype=np.int64), soff


_ARRAYS_RUNNER = """\
def run(out, tensors, dtype, extras, numel, _cell=[None], _key=key, _icell=[None], _ikey=ikey):
    {unpack} = tensors
{in_place}    k = _cell[0]
    if k is None:
        k = _cell[0] = _kernels.get(_key) or _load(*_key)
    try:
        if numel < GRAIN_SIZE:
            k.contig(0, numel, out._storage.data, out._offset, {operands}{extras})
        else:
            parallel_for(k.contig, k.contig_par, numel, out._storage.data, out._offset, {operands}{extras})
    except ZeroDivisionError:
        raise _zero_division() from None
"""


_IN_PLACE = """\
    if t0 is out:
        k = _icell[0]
        if k is None:
            k = _icell[0] = _kernels.get(_ikey) or _load(*_ikey)
        try:
            if numel < GRAIN_SIZE:
                k.contig(0, numel, {args})
            else:
                parallel_for(k.contig, k.contig_par, numel, {args})
        except ZeroDivisionError:
            raise _zero_division() from None
        return
"""


def arrays_runner(scalar_fn: Callable, ninputs: int, nextra: int,
                  pattern: tuple[bool, ...] | None = None) -> Callable[..., None]:
    """`run(out, tensors, dtype, extras, numel)` for `ninputs` contiguous CPU tensors and a
    contiguous output of `numel` elements, written out for this arity: the fast set-up's
    commonest call pays for no argument list and no loop over operands (a + b on 100k
    elements is mostly this per-call work and the loop itself). With `pattern`, the inputs
    marked False are CPU scalars, read as values of the compute dtype (`a * 2`). It runs in this
    module's globals, so it sees what the module sees (tests replace parallel_for)."""
    pattern = tuple(pattern) if pattern is not None else (True,) * ninputs
    names = [f"t{i}" for i in range(ninputs)]
    parts = [f"{t}._storage.data, {t}._offset" if arr
             else f"as_scalar(dtype.numpy.type, {t}._storage.data[{t}._offset])" for t, arr in zip(names, pattern)]
    operands = ", ".join(parts)
    extras = "".join(f", extras[{j}]" for j in range(nextra))
    in_place = ""
    if pattern and pattern[0]:  # `x.mul_(y)`: out is the first input; its own kernel reads out alone
        args = ", ".join(["out._storage.data, out._offset"] + parts[1:]) + extras
        in_place = _IN_PLACE.format(args=args)
    src = _ARRAYS_RUNNER.format(
        unpack=", ".join(names) + ("," if ninputs == 1 else ""), operands=operands, extras=extras,
        in_place=in_place)
    bits = 1
    for a in (True,) + pattern:  # a leading 1, then out and every input: array or scalar
        bits = (bits << 1) | bool(a)
    ns: dict[str, Any] = {"key": (scalar_fn, bits, nextra), "ikey": (scalar_fn, bits, nextra, True)}
    compile_source(src, f"<jtorch elementwise runner {scalar_fn.__name__}/{ninputs}>", globals(), ns)
    return ns["run"]
