"""Generate the Python source of an elementwise kernel module from ONE scalar function.

Rules for scalar functions (checked here, with a clear TypeError when broken):

* A scalar function is a plain ``def`` at module level in a real ``.py`` file (no lambda, no
  closure, no decorator needed).  It takes the input values (then the ``extra`` arguments)
  and returns the output value.
* Its source is copied into the generated module, so editing it changes the module's hash and
  nothing stale is reused.  The global names it uses may be:
    - modules (``math``, ``numpy as np``...)          -> re-imported under the same name;
    - numbers (int/float/complex/bool/NumPy scalars)  -> emitted by value;
    - other plain Python functions                    -> their source is re-emitted too
      (recursively), so "sigmoid calls my_exp" works;
    - Numba-callables: ``@njit`` dispatchers, ``@intrinsic``s, and functions marked with
      :func:`jit_import` (``@overload`` stubs such as ``fastmath.exp``) and any other
      module-level importable object (``math.exp``, ``np.float32``)
                                                      -> imported from their module, whose
      source file (and those of the same package that it uses) is hashed into the module
      name (Numba itself does not notice cross-module changes).
* Every re-emitted function gets Python's error model for all-integer/bool arguments (integer
  division or modulo by zero raises ZeroDivisionError) and NumPy's for float/complex
  arguments (x / 0.0 -> inf/nan, no checks in vector loops).  See :func:`jit_scalar`.
"""
from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import inspect
import sys
import textwrap
import types as pytypes
from typing import Any, Callable

import numpy as np
from numba import types as nbtypes
from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic
from numba.extending import overload

from . import chunk_clock, odometer  # noqa: F401  (generated kernels import them; hashed via this module)
from .threads import CHUNK_FAILED

_JIT_IMPORT = "__jtorch_jit_import__"


def jit_import(fn: Callable) -> Callable:
    """Mark a module-level function as importable by generated kernels (not re-emitted).

    Use it on ``@overload`` stubs: the generated module imports the stub, and Numba finds
    the overload.  The stub's module source is hashed into kernel names.
    """
    setattr(fn, _JIT_IMPORT, True)
    return fn


def _all_integer(args) -> bool:
    return not any(isinstance(t, (nbtypes.Float, nbtypes.Complex)) for t in args)


def jit_scalar(fn: Callable) -> Callable:
    """Make plain `fn` callable from jitted code with a type-dependent error model.

    Two overloads of the same Python function: the typing step picks one by argument types,
    so only the needed one compiles.  Integer code keeps Python semantics (raise on / 0);
    float code must not pay for (or trip on) division checks.
    """
    @overload(fn, jit_options={"error_model": "python"}, strict=False)
    def _int_impl(*args):
        if _all_integer(args):
            return fn

    @overload(fn, jit_options={"error_model": "numpy"}, strict=False)
    def _float_impl(*args):
        if not _all_integer(args):
            return fn

    return fn


# ---------------------------------------------------------------------------------------------
# dependency collection


def _function_node(fn: Callable) -> tuple[str, ast.FunctionDef]:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise TypeError(f"scalar function {fn!r} must be defined in a real file: {e}") from None
    tree = ast.parse(src)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"scalar function {fn!r} must be a plain 'def' at module level")
    lines = src.splitlines()[node.lineno - 1:]  # drop decorators: the generated file adds its own
    return "\n".join(lines) + "\n", node


def _free_names(node: ast.FunctionDef) -> list[str]:
    """Global names read by a function, in first-use order."""
    args = node.args
    local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg:
        local.add(args.vararg.arg)
    if args.kwarg:
        local.add(args.kwarg.arg)
    loads: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            if isinstance(sub.ctx, ast.Load):
                loads.append(sub.id)
            else:
                local.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.Lambda)) and sub is not node:
            raise TypeError("scalar functions may not define nested functions or lambdas")
    seen: dict[str, None] = {}
    for name in loads:
        if name not in local:
            seen.setdefault(name)
    return list(seen)


def _file_digest(path: str | None) -> str:
    if not path or not path.endswith(".py"):
        return ""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


@functools.lru_cache(maxsize=None)
def _module_digest(modname: str) -> str:
    """Hash of a module's file and of every module of the same top-level package it uses.

    Numba does not notice when a callee in another module changes (numba#1833), so a kernel
    importing ``fastmath.exp`` must change name when fastmath.py, or the bit-cast helpers it
    imports from a sibling module, change.  Third-party modules hash their own file only.
    """
    top = modname.partition(".")[0]
    seen: set[str] = set()
    todo = [modname]
    parts: list[str] = []
    while todo:
        name = todo.pop()
        mod = sys.modules.get(name)
        if name in seen or mod is None:
            continue
        seen.add(name)
        parts.append(name + ":" + _file_digest(getattr(mod, "__file__", None)))
        if top in ("numpy", "numba", "math", "cmath"):
            continue
        for value in vars(mod).values():
            dep = value.__name__ if isinstance(value, pytypes.ModuleType) else \
                getattr(value, "__module__", None)
            if isinstance(dep, str) and dep.partition(".")[0] == top:
                todo.append(dep)
    return hashlib.sha256("|".join(sorted(parts)).encode()).hexdigest()


def _literal(value: Any) -> str | None:
    if isinstance(value, (bool, int, float, complex)):
        return repr(value)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return f"_jt_np.{value.dtype.name}({value.item()!r})"
    return None


def _import_path(value: Any) -> tuple[str, str] | None:
    """(module, attribute) under which `value` can be imported, if it is module-level."""
    name = getattr(value, "__name__", None)
    for modname in (getattr(value, "__module__", None), "numpy", "math", "cmath"):
        mod = sys.modules.get(modname) if modname else None
        if mod is not None and name and getattr(mod, name, None) is value:
            return modname, name
    return None


class _Collector:
    """Walks a scalar function's globals and produces the generated module's prelude."""

    def __init__(self) -> None:
        self.imports: dict[str, str] = {}   # bound name -> import statement
        self.consts: dict[str, str] = {}    # bound name -> literal
        self.funcs: dict[str, str] = {}     # bound name -> source (dependencies first)
        self.bound: dict[str, Any] = {}     # bound name -> object, to detect clashes
        self.digests: list[str] = []        # hashed source files of imported modules

    def _bind(self, name: str, value: Any) -> bool:
        """Record that `name` means `value`; False if already bound to the same thing."""
        old = self.bound.get(name, _MISSING)
        if old is _MISSING:
            self.bound[name] = value
            return True
        if old is value or (_literal(old) is not None and _literal(old) == _literal(value)):
            return False
        raise TypeError(f"global name {name!r} means different things in the scalar function "
                        "and its helpers; rename one")

    def add_function(self, fn: Callable, name: str) -> None:
        if not self._bind(name, fn):
            return
        if fn.__closure__:
            raise TypeError(f"scalar function {fn.__qualname__} must not be a closure")
        src, node = _function_node(fn)
        if node.name != name:  # the entry point is bound as _jt_fn; keep its own name too
            self._bind(node.name, fn)
            src += f"{name} = {node.name}\n"
        for dep in _free_names(node):
            self.add_global(dep, fn.__globals__, fn)
        self.funcs[name] = src + f"_jt_jit_scalar({node.name})\n"

    def add_global(self, name: str, namespace: dict, user: Callable) -> None:
        if name not in namespace:
            if hasattr(builtins, name):
                return
            raise TypeError(f"{user.__qualname__} uses undefined global {name!r}")
        value = namespace[name]
        lit = _literal(value)
        if lit is not None:
            if self._bind(name, value):
                self.consts[name] = lit
        elif isinstance(value, pytypes.ModuleType):
            if self._bind(name, value):
                self.imports[name] = f"import {value.__name__} as {name}"
                self.digests.append(_module_digest(value.__name__))
        elif (isinstance(value, pytypes.FunctionType) and not getattr(value, _JIT_IMPORT, False)):
            self.add_function(value, name)
        else:
            where = _import_path(value)
            if where is None or not isinstance(value, (Dispatcher, _Intrinsic, Callable, type)):
                raise TypeError(f"{user.__qualname__} uses global {name!r} = {value!r}, which a "
                                "generated kernel cannot re-create; see jtorch.kernels.cpu.codegen")
            if self._bind(name, value):
                modname, attr = where
                self.imports[name] = f"from {modname} import {attr} as {name}"
                self.digests.append(_module_digest(modname))


_MISSING = object()


def prelude(fn: Callable) -> tuple[str, str]:
    """(source of imports, constants and re-emitted functions, hash of imported files)."""
    if not isinstance(fn, pytypes.FunctionType) or fn.__name__ == "<lambda>":
        raise TypeError(f"scalar function must be a module-level 'def', got {fn!r}")
    col = _Collector()
    col.add_function(fn, "_jt_fn")
    parts = ["import numba as _jt_nb", "import numpy as _jt_np",
             "from jtorch.kernels.cpu.codegen import jit_scalar as _jt_jit_scalar",
             "from jtorch.kernels.cpu.cache import enable_cache as _jt_cache",
             "from jtorch.kernels.cpu.odometer import start_row as _jt_start_row, "
             "next_row as _jt_next_row"]
    parts += col.imports.values()
    parts += [f"{k} = {v}" for k, v in col.consts.items()]
    src = "\n".join(parts) + "\n\n" + "\n".join(col.funcs.values())
    return src, "".join(col.digests)


# ---------------------------------------------------------------------------------------------
# loops

_JIT = "_jt_nb.njit(error_model='numpy', nogil=True{par})"


def _decorated(header: str, body: list[str], parallel: bool = False) -> str:
    par = ", parallel=True" if parallel else ""
    return (f"@_jt_cache\n@{_JIT.format(par=par)}\n{header}\n"
            + "\n".join("    " + line for line in body) + "\n")


def loops_source(is_array: tuple[bool, ...], nextra: int) -> str:
    """Kernel entry points for operands `is_array` (output first) and `nextra` extras.

    Entry points (all module-level, so Numba can cache them):
      contig(start, stop, <operands>, <extras>)                  flat loop over [start, stop)
      contig_par(numel, nchunks, <operands>, <extras>) -> int     prange over chunks
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
        else:
            params.append(f"v{k}")
    params += [f"e{j}" for j in range(nextra)]
    plist = ", ".join(params)

    def call(index: Callable[[int], str]) -> str:
        args = [f"b{k}[{index(k)}]" if is_array[k] else f"v{k}" for k in range(1, len(is_array))]
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
        out.append(_decorated(f"def {name}_par(numel, nchunks, {pre}{plist}):", [
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
    h.update(_module_digest(__name__).encode())  # this file, cache.py, odometer.py
    h.update(extra_digest.encode())
    pattern = "".join("a" if a else "s" for a in is_array)
    stem = f"{fn.__name__}_{pattern}{nextra}_{h.hexdigest()[:20]}"
    return stem, src
