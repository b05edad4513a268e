"""Target-neutral front end of kernel generation: ONE scalar function -> a *scalar module*.

A scalar function says what an operator computes on one element; back ends (the CPU's Numba
loops in ``jtorch/kernels/cpu/codegen.py``, the ``numba.cuda`` kernels of
``jtorch/kernels/cuda/codegen.py``) say how it runs. This module collects a scalar function
and everything it uses into a :class:`ScalarModule` (imports, constants, the functions' sources)
that any back end wraps with its own decorators and loops. Nothing here imports Numba's targets
or knows about threads, buffers or devices.

Rules for scalar functions (checked by :func:`collect`, with a clear TypeError when broken):

* A scalar function is a plain ``def`` at module level in a real ``.py`` file (no lambda, no
  closure, no nested def, no decorator needed). It takes the input values (then the ``extra``
  arguments) and returns the output value.
* Its source is copied into the generated module, so editing it changes the module's hash and
  nothing stale is reused. The global names it uses may be:
    - modules (``math``, ``cmath``, ``jtorch.kernels.jmath``...) -> re-imported under the same name;
    - numbers (int/float/complex/bool/NumPy scalars)            -> emitted by value;
    - other plain Python functions                              -> their source is re-emitted too
      (recursively), so "sigmoid calls my_exp" works;
    - helpers marked :func:`jit_import` (type-dispatching stubs such as ``jmath.sin``, see
      :func:`implements`) and other importable module-level callables (``math.exp``)
                                                                -> imported from their module,
      whose source file (and those of the same package it uses) is hashed into
      :attr:`ScalarModule.digest` (Numba itself does not notice cross-module changes).
  Names starting with ``_jt_`` are reserved for back ends.
* Math comes from ``math`` / ``cmath`` where every target types them alike, else from the
  vocabulary in :mod:`jtorch.kernels.jmath`; never NumPy ufuncs (numba.cuda lacks most of them).

Type-dispatching helpers. A helper is a plain stub (its body is the Python reference, used when
called from Python) plus a *selector* registered with :func:`implements`: ``select(*numba_types)``
returns an implementation for those argument types, ``same_as(f)`` when the helper is exactly
``f(*args)`` for a function the targets already know (``math.sin``; a back end may lower it in
place, compiling nothing), or None. A selector's implementations use only the same vocabulary
as scalar functions, so every target can compile them. A back end subscribes with
:func:`on_target` and registers every helper (past and future) for its target, adding its own
implementations first where it has a better one, or where the neutral selector returns None
(the target-specific entries listed in ``jmath.TARGET_SPECIFIC``).

What a back end provides (``cpu/codegen.py`` and ``cuda/codegen.py`` each do all of this):

1. A *header*: the imports its generated code needs, bound to ``_jt_``-prefixed names.
2. A *marker* per re-emitted function, passed to :meth:`ScalarModule.source`: the statement(s)
   placed after each ``def`` that make it callable from the target's compiled code. CPU:
   ``_jt_jit_scalar(name)`` (overloads with its per-type error models); CUDA rebinds
   ``name = _jt_cuda.jit(device=True)(name)``. The entry aliases (``_jt_fn = name``) follow all
   functions and markers, so they bind whatever the marker made of the function.
3. Loops or kernels calling the entry points by their aliases (``_jt_fn`` by default).
4. An :func:`on_target` hook registering every helper's selector for its target (e.g.
   ``numba.extending.overload(stub, target="cuda")``, turning a :class:`SameAs` answer into
   ``lambda *a: f(*a)`` or lowering ``f`` in place), with implementations of its own for
   ``jmath.TARGET_SPECIFIC`` (CPU: ``cpu/mathimpl.py``).
5. Its own file digests mixed into the generated module's name, beside :attr:`ScalarModule.digest`,
   and a place for generated files (Numba caches only functions defined in real files).
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

RESERVED = "_jt_"
ENTRY = "_jt_fn"
_JIT_IMPORT = "__jtorch_jit_import__"

Select = Callable[..., Any]  # (*numba types) -> implementation | SameAs | None


def jit_import(fn: Callable) -> Callable:
    """Mark a module-level function as imported by generated kernels (never re-emitted).

    Use it on type-dispatching stubs (see :func:`implements`): the generated module imports
    the stub and the target's overload runs. The stub's module source is hashed into kernel names.
    """
    setattr(fn, _JIT_IMPORT, True)
    return fn


def is_jit_import(fn: Any) -> bool:
    """Whether generated kernels import `fn` rather than re-emit it."""
    return bool(getattr(fn, _JIT_IMPORT, False))


# ---- type-dispatching helpers, registered with every back end ---------------------------------

_helpers: dict[Callable, Select] = {}
_hooks: list[Callable[[Callable, Select], None]] = []


@dataclass(frozen=True)
class SameAs:
    """A selector's answer: the helper is exactly ``fn(*args)`` for these argument types."""
    fn: Callable


def same_as(fn: Callable) -> SameAs:
    """Answer of a selector whose helper, for the given types, is `fn` (``math.sin``, ...)."""
    return SameAs(fn)


def implements(stub: Callable) -> Callable[[Select], Select]:
    """Register ``select(*numba_types) -> implementation | SameAs | None`` for `stub` on every
    target.

    Like ``numba.extending.overload`` with no target, except that each back end registers it
    itself (so the CPU can pick an error model per argument types, lower ``same_as`` answers in
    place and add its own faster implementations). The stub is marked :func:`jit_import`.
    """
    def register(select: Select) -> Select:
        if stub in _helpers:
            raise TypeError(f"{stub.__qualname__} already has a selector")
        jit_import(stub)
        _helpers[stub] = select
        for hook in list(_hooks):
            hook(stub, select)
        return select
    return register


def on_target(register: Callable[[Callable, Select], None]) -> None:
    """Call ``register(stub, select)`` for every helper now and for those registered later."""
    _hooks.append(register)
    for stub, select in list(_helpers.items()):
        register(stub, select)


def helpers() -> dict[Callable, Select]:
    """Every registered helper stub and its neutral selector (a copy)."""
    return dict(_helpers)


# ---- the scalar module ------------------------------------------------------------------------

@dataclass(frozen=True)
class ScalarFunction:
    """One re-emitted function: its def name, its source (decorators dropped) and parsed node."""
    name: str
    source: str
    node: ast.FunctionDef
    function: Callable  # the original: its __globals__ resolve the names in `node`


@dataclass(frozen=True)
class ScalarModule:
    """What a scalar function needs, ready for a back end to wrap (see the module docstring)."""
    entries: Mapping[str, str]            # alias (e.g. "_jt_fn") -> def name
    aliases: tuple[tuple[str, str], ...]  # (name, def name): a helper used under another name
    imports: tuple[str, ...]              # import statements
    constants: tuple[tuple[str, str], ...]  # (name, literal source)
    functions: tuple[ScalarFunction, ...]   # dependencies before their users
    digest: str                           # hash of the imported modules' source files

    def source(self, mark: Callable[[str], str] = lambda name: "") -> str:
        """Imports, constants, each def followed by ``mark(def name)``, then the entry aliases."""
        parts = list(self.imports) + [f"{k} = {v}" for k, v in self.constants]
        out = "\n".join(parts) + "\n\n"
        for f in self.functions:
            m = mark(f.name)
            out += f.source + (m if not m or m.endswith("\n") else m + "\n") + "\n"
        links = list(self.aliases) + [(a, n) for a, n in self.entries.items() if a != n]
        out += "".join(f"{alias} = {name}\n" for alias, name in links)
        return out


def collect(fn: Callable, entries: Mapping[str, Callable] | None = None) -> ScalarModule:
    """The scalar module of `fn` (bound to ``_jt_fn``), or of several named `entries`."""
    if entries is None:
        entries = {ENTRY: fn}
    col = _Collector()
    for alias, f in entries.items():
        if not isinstance(f, pytypes.FunctionType) or f.__name__ == "<lambda>":
            raise TypeError(f"scalar function must be a module-level 'def', got {f!r}")
        col.entries[alias] = col.add_function(f)
    for alias, f in entries.items():
        if col.bound.get(alias, f) is not f:
            raise TypeError(f"entry name {alias!r} clashes with a global of the scalar function")
    if col.uses_numpy_scalars:
        col.imports.setdefault("_jt_np", "import numpy as _jt_np")
    return ScalarModule(dict(col.entries), tuple(col.aliases.items()), tuple(col.imports.values()),
                        tuple(col.consts.items()), tuple(col.funcs.values()),
                        hashlib.sha256("|".join(col.digests).encode()).hexdigest())


# ---- dependency collection --------------------------------------------------------------------

def _function_node(fn: Callable) -> tuple[str, ast.FunctionDef]:
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise TypeError(f"scalar function {fn!r} must be defined in a real file: {e}") from None
    tree = ast.parse(src)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"scalar function {fn!r} must be a plain 'def' at module level")
    lines = src.splitlines()[node.lineno - 1:]  # drop decorators: the back end adds its own
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


@functools.cache
def module_digest(modname: str) -> str:
    """Hash of a module's file and of every module of the same top-level package it uses.

    Numba does not notice when a callee in another module changes (numba#1833), so a kernel
    importing ``jmath.exp`` must change name when jmath.py, or a sibling module it uses, changes.
    Third-party modules hash their own file only.
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
    for modname in (getattr(value, "__module__", None), "math", "cmath"):
        mod = sys.modules.get(modname) if modname else None
        if mod is not None and modname and name and getattr(mod, name, None) is value:
            return modname, name
    return None


_MISSING = object()


class _Collector:
    """Walks a scalar function's globals, recursively, into a scalar module's parts."""

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}           # alias -> def name
        self.aliases: dict[str, str] = {}           # other global name -> def name
        self.imports: dict[str, str] = {}           # bound name -> import statement
        self.consts: dict[str, str] = {}            # bound name -> literal
        self.funcs: dict[str, ScalarFunction] = {}  # def name -> function (dependencies first)
        self.bound: dict[str, Any] = {}             # bound name -> object, to detect clashes
        self.digests: list[str] = []                # hashes of imported modules
        self.uses_numpy_scalars = False

    def _bind(self, name: str, value: Any) -> bool:
        """Record that `name` means `value`; False if already bound to the same thing."""
        if name.startswith(RESERVED):
            raise TypeError(f"global name {name!r}: names starting with {RESERVED!r} are reserved "
                            "for kernel back ends")
        old = self.bound.get(name, _MISSING)
        if old is _MISSING:
            self.bound[name] = value
            return True
        if old is value or (_literal(old) is not None and _literal(old) == _literal(value)):
            return False
        raise TypeError(f"global name {name!r} means different things in the scalar function "
                        "and its helpers; rename one")

    def add_function(self, fn: Callable) -> str:
        """Re-emit `fn` (once) and what it uses; returns its def name."""
        if fn.__closure__:
            raise TypeError(f"scalar function {fn.__qualname__} must not be a closure")
        src, node = _function_node(fn)
        if not self._bind(node.name, fn):
            return node.name
        for dep in _free_names(node):
            self.add_global(dep, fn.__globals__, fn)
        self.funcs[node.name] = ScalarFunction(node.name, src, node, fn)
        return node.name

    def add_global(self, name: str, namespace: dict, user: Callable) -> None:
        if name.startswith(RESERVED):
            raise TypeError(f"{user.__qualname__} uses {name!r}: names starting with {RESERVED!r} "
                            "are reserved for kernel back ends")
        if name not in namespace:
            if hasattr(builtins, name):
                return
            raise TypeError(f"{user.__qualname__} uses undefined global {name!r}")
        value = namespace[name]
        lit = _literal(value)
        if lit is not None:
            if self._bind(name, value):
                self.consts[name] = lit
                self.uses_numpy_scalars |= isinstance(value, np.generic)
        elif isinstance(value, pytypes.ModuleType):
            if self._bind(name, value):
                self.imports[name] = f"import {value.__name__} as {name}"
                self.digests.append(module_digest(value.__name__))
        elif isinstance(value, pytypes.FunctionType) and not is_jit_import(value):
            defname = self.add_function(value)
            if defname != name and self._bind(name, value):
                self.aliases[name] = defname
        else:
            where = _import_path(value)
            if where is None or not callable(value):
                raise TypeError(f"{user.__qualname__} uses global {name!r} = {value!r}, which a "
                                "generated kernel cannot re-create; see jtorch.kernels.frontend")
            if self._bind(name, value):
                modname, attr = where
                self.imports[name] = f"from {modname} import {attr} as {name}"
                self.digests.append(module_digest(modname))
