"""The CPU back end of kernel generation: Numba loop modules from ONE scalar function.

The target-neutral part (the rules for scalar functions, collecting a function and what it
uses, module digests) is jtorch/kernels/frontend.py; this module adds what the CPU needs (the
back-end contract is in frontend's docstring):

* the header of a generated module (numba, numpy, the kernel cache, the odometer);
* :func:`jit_scalar` as the marker after every re-emitted function: Python's error model for
  all-integer/bool arguments (integer division or modulo by zero raises ZeroDivisionError) and
  NumPy's for float/complex arguments (x / 0.0 -> inf/nan, no checks in vector loops);
* the same two error models for every type-dispatching helper (``frontend.implements``), with
  the CPU's own implementations (mathimpl.py) tried before the neutral ones; an answer
  ``same_as(f)`` is lowered in place as ``f`` (no function of its own to compile);
* the loops (:func:`loops_source`) and the module name with its hash (:func:`module_source`).

``prelude``, ``jit_import`` and ``jit_scalar`` stay importable from here for the other CPU
generators (reductions, scans).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from numba import types as nbtypes
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer, infer_global
from numba.extending import overload

from .. import frontend
from ..frontend import jit_import, module_digest  # noqa: F401  (re-exported)
from . import chunk_clock, mathimpl, odometer  # noqa: F401  (generated kernels use them; hashed via this module)
from .threads import CHUNK_FAILED

_module_digest = module_digest  # the name generators imported before the front-end split

if TYPE_CHECKING:  # numba's stubs name the options' TypedDict privately (type-check only)
    from numba.core.decorators import _JITOptions

_PYTHON_MODEL: _JITOptions = {"error_model": "python"}
_NUMPY_MODEL: _JITOptions = {"error_model": "numpy"}


def _all_integer(args) -> bool:
    return not any(isinstance(t, (nbtypes.Float, nbtypes.Complex)) for t in args)


def jit_scalar(fn: Callable) -> Callable:
    """Make plain `fn` callable from jitted code with a type-dependent error model.

    Two overloads of the same Python function: the typing step picks one by argument types,
    so only the needed one compiles.  Integer code keeps Python semantics (raise on / 0);
    float code must not pay for (or trip on) division checks.
    """
    @overload(fn, jit_options=_PYTHON_MODEL, strict=False)
    def _int_impl(*args):
        if _all_integer(args):
            return fn

    @overload(fn, jit_options=_NUMPY_MODEL, strict=False)
    def _float_impl(*args):
        if not _all_integer(args):
            return fn

    return fn


# (helper stub, argument types) -> the function a same_as answer stands for, for the lowering
_same_as: dict[tuple, Callable] = {}


def _register_helper(stub: Callable, select: frontend.Select) -> None:
    """The CPU's frontend.on_target hook: `stub` for Numba's CPU target, mathimpl's
    implementation first, then the neutral one. Implementations compile with jit_scalar's
    error models; a same_as(f) answer is typed and lowered as a call of f."""
    def pick(args):
        own = mathimpl.CPU.get(stub)
        impl = own(*args) if own is not None else None
        return select(*args) if impl is None else impl

    def compiled(args):
        impl = pick(args)
        return None if isinstance(impl, frontend.SameAs) else impl

    @overload(stub, target="cpu", jit_options=_PYTHON_MODEL, strict=False)
    def _int_impl(*args):
        if _all_integer(args):
            return compiled(args)

    @overload(stub, target="cpu", jit_options=_NUMPY_MODEL, strict=False)
    def _float_impl(*args):
        if not _all_integer(args):
            return compiled(args)

    class _SameAsTemplate(AbstractTemplate):
        key = stub
        metadata = {"target": "cpu"}

        def generic(self, args, kws):
            impl = pick(args) if not kws else None
            if not isinstance(impl, frontend.SameAs):
                return None
            sig = self.context.resolve_function_type(self.context.resolve_value_type(impl.fn),
                                                     args, {})
            if sig is not None:
                _same_as[(stub, sig.args)] = impl.fn
            return sig

    infer(_SameAsTemplate)
    infer_global(stub, nbtypes.Function(_SameAsTemplate))

    @lower_builtin(stub, nbtypes.VarArg(nbtypes.Any))
    def _lower_same_as(context, builder, sig, args):
        fn = _same_as[(stub, sig.args)]
        fnty = context.typing_context.resolve_value_type(fn)
        return context.get_function(fnty, sig)(builder, args)


frontend.on_target(_register_helper)

_HEADER = ("import numba as _jt_nb\n"
           "import numpy as _jt_np\n"
           "from jtorch.kernels.cpu.codegen import jit_scalar as _jt_jit_scalar\n"
           "from jtorch.kernels.common.cache import enable_cache as _jt_cache\n"
           "from jtorch.kernels.cpu.odometer import start_row as _jt_start_row, "
           "next_row as _jt_next_row\n")


def prelude(fn: Callable, entries: Mapping[str, Callable] | None = None) -> tuple[str, str]:
    """(source of the CPU header, imports, constants and re-emitted functions, hash of imported
    files) for `fn` bound to ``_jt_fn``, plus other `entries` (alias -> scalar function)."""
    named = {frontend.ENTRY: fn, **(entries or {})}
    mod = frontend.collect(fn, named)
    return _HEADER + mod.source(lambda name: f"_jt_jit_scalar({name})"), mod.digest


# ---------------------------------------------------------------------------------------------
# loops

_JIT = "_jt_nb.njit(error_model='numpy', nogil=True{par})"


def _decorated(header: str, body: list[str], parallel: bool = False) -> str:
    par = ", parallel=True" if parallel else ""
    return (f"@_jt_cache\n@{_JIT.format(par=par)}\n{header}\n"
            + "\n".join("    " + line for line in body) + "\n")


def loops_source(is_array: tuple[bool, ...], nextra: int) -> str:
    """Kernel entry points for operands `is_array` (output first) and `nextra` extras. An input
    marked None is the output itself (in place): it has no parameters and reads b0.

    Entry points (all module-level, so Numba can cache them):
      contig(start, stop, <operands>, <extras>)                  flat loop over [start, stop)
      contig_par(numel, nchunks, <operands>, <extras>) -> int     prange over chunks (1: serial)
      strided(start, stop, meta, ndim, soff, <operands>, <extras>)  rows over [start, stop)
      strided_par(numel, nchunks, meta, ndim, soff, ...) -> int
    An array operand is passed as (buffer, offset), a scalar operand as its value.  `meta`
    is the int64 array described in :mod:`odometer`; chunk c keeps its row state at
    ``soff + c * (number of array operands + ndim)``.
    Parallel entry points follow :func:`threads.parallel_for`'s protocol: they return their
    serial estimate (nchunks x the shortest chunk's time) minus the region's time in ns
    (negative: slower than a serial run would have been), or ``CHUNK_FAILED`` when a chunk
    raised; the caller then reruns serially to raise the real exception (exceptions cannot
    leave a prange body).
    """
    if not is_array or not is_array[0]:
        raise ValueError("the output operand must be an array")
    params: list[str] = []
    arrays: list[int] = []
    for k, arr in enumerate(is_array):
        if arr:
            params += [f"b{k}", f"o{k}"]
            arrays.append(k)
        elif arr is not None:
            params.append(f"v{k}")
    params += [f"e{j}" for j in range(nextra)]
    plist = ", ".join(params)

    def operand(k: int, index: Callable[[int], str]) -> str:
        # None: the output itself, read in place (an in-place call: one array, so LLVM's overlap
        # check, which fails for out == input and leaves the loop scalar, never runs)
        if is_array[k] is None:
            return f"b0[{index(0)}]"
        return f"b{k}[{index(k)}]" if is_array[k] else f"v{k}"

    def call(index: Callable[[int], str]) -> str:
        args = [operand(k, index) for k in range(1, len(is_array))]
        args += [f"e{j}" for j in range(nextra)]
        return f"b0[{index(0)}] = _jt_fn({', '.join(args)})"

    out: list[str] = ["from jtorch.kernels.cpu.chunk_clock import now_ns as _jt_now\n"
                      "_U = _jt_np.uint64  # unsigned index: no wraparound check, loops vectorize\n"
                      f"_FAILED = {CHUNK_FAILED}\n"]

    # contiguous: every array operand is buf[off + i]
    out.append(_decorated(f"def contig(start, stop, {plist}):", [
        "for i in range(start, stop):",
        "    " + call(lambda k: f"_U(o{k} + i)"),
    ]))
    # strided: position once at `start` (odometer.start_row), then a tight loop per row with
    # per-operand strides; odometer.next_row moves the row pointers kept in meta[soff:].
    nops = len(arrays)
    body = [f"meta[soff + {j}] = o{k}" for j, k in enumerate(arrays)]
    body += [f"i0 = _jt_start_row(start, meta, ndim, {nops}, soff)",
             "n0 = meta[0]"]
    body += [f"s{k} = meta[{j + 1} * ndim]" for j, k in enumerate(arrays)]
    body += ["left = stop - start",
             "while True:"]
    body += [f"    p{k} = meta[soff + {j}]" for j, k in enumerate(arrays)]
    body += ["    m = min(n0 - i0, left)",
             "    for i in range(i0, i0 + m):",
             "        " + call(lambda k: f"_U(p{k} + i * s{k})"),
             "    left -= m",
             "    if left <= 0:",
             "        break",
             "    i0 = 0",
             f"    _jt_next_row(meta, ndim, {nops}, soff)"]
    out.append(_decorated(f"def strided(start, stop, meta, ndim, soff, {plist}):", body))

    # guarded chunks for prange bodies: an exception inside prange is lost or corrupts state.
    # A chunk returns the ns it took (-1: it raised). Chunks are equal, so nchunks x the shortest
    # is what a serial run would have cost: a chunk whose thread was preempted, or started
    # late, shows up as the region running over that estimate (threads.parallel_for's protocol).
    # each strided chunk gets its own state block of nops + ndim slots in meta
    for name, pre, arg in (("contig", "", ""),
                           ("strided", "meta, ndim, soff, ",
                            f"meta, ndim, soff + c * ({nops} + ndim), ")):
        out.append(_decorated(f"def _{name}_guard(start, stop, {pre}{plist}):", [
            "t = _jt_now()",
            "try:",
            f"    {name}(start, stop, {pre}{plist})",
            "except Exception:",
            "    return -1",
            "return _jt_now() - t",
        ]))
        # nchunks <= 1: the serial loop, from this entry point, so that one compiled function
        # serves every loop big enough to go parallel, whatever the busy-machine policy says
        # in the process that compiled it (a warm process then compiles nothing)
        out.append(_decorated(f"def {name}_par(numel, nchunks, {pre}{plist}):", [
            "if nchunks <= 1:",
            f"    {name}(0, numel, {pre}{plist})",
            "    return 0",
            "t = _jt_now()",
            "work = _jt_np.empty(nchunks, _jt_np.int64)",
            "for c in _jt_nb.prange(nchunks):",
            f"    work[c] = _{name}_guard(c * numel // nchunks, (c + 1) * numel // nchunks, "
            f"{arg}{plist})",
            "t = _jt_now() - t",
            "least = work[0]",
            "for c in range(nchunks):",
            "    if work[c] < 0:",
            "        return _FAILED",
            "    least = min(least, work[c])",
            "return least * nchunks - t",
        ], parallel=True))
    return "\n\n".join(out)


def module_source(fn: Callable, is_array: tuple[bool, ...], nextra: int,
                  extra_digest: str = "") -> tuple[str, str]:
    """(module file stem, full source) for `fn` with this operand pattern.

    The stem carries a hash of the source, of every imported module file it depends on, of
    this file and of `extra_digest`, so any change yields a new module and a fresh cache.
    """
    pre, digests = prelude(fn)
    src = ("# Generated by jtorch.kernels.cpu.codegen from "
           f"{fn.__module__}.{fn.__qualname__}; do not edit.\n"
           + pre + "\n\n" + loops_source(is_array, nextra))
    h = hashlib.sha256(src.encode())
    h.update(digests.encode())
    h.update(module_digest(__name__).encode())  # this file, the front end, mathimpl, odometer
    h.update(extra_digest.encode())
    pattern = "".join("o" if a is None else "a" if a else "s" for a in is_array)
    stem = f"{fn.__name__}_{pattern}{nextra}_{h.hexdigest()[:20]}"
    return stem, src
