"""A registered kernel (c10's KernelFunction): the function, how the dispatcher calls it (its
calling convention, a small int the hot path branches on) and where it was registered.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

# How a table slot's function is called (the hot path branches on this small int).
PLAIN, WITH_KEYSET, BOXED, BOXED_WITH_KEYSET, FALLTHROUGH, MISSING, WITH_RAW_KEYSET = range(7)


class _FallthroughKernel:
    """The sentinel `jtorch.library.fallthrough_kernel`: a kernel that means 'skip this key'."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - never called
        raise RuntimeError("fallthrough_kernel should never be called directly")

    def __repr__(self) -> str:
        return "fallthrough_kernel"


fallthrough_kernel = _FallthroughKernel()


@dataclass(eq=False)
class AnnotatedKernel:
    """A registered kernel with how to call it and where it was registered."""

    fn: Callable[..., Any]
    mode: int
    debug: str

    @property
    def is_fallthrough(self) -> bool:
        return self.mode == FALLTHROUGH


def make_kernel(fn: Callable[..., Any], debug: str, *, with_keyset: bool = False, boxed: bool = False,
                raw_keyset: bool = False) -> AnnotatedKernel:
    """raw_keyset: jtorch's own generated kernels take the key set as a plain int (no boxing)."""
    if fn is fallthrough_kernel:
        return AnnotatedKernel(fn, FALLTHROUGH, debug)
    if raw_keyset:
        return AnnotatedKernel(fn, WITH_RAW_KEYSET, debug)
    mode = (BOXED_WITH_KEYSET if with_keyset else BOXED) if boxed else (WITH_KEYSET if with_keyset else PLAIN)
    return AnnotatedKernel(fn, mode, debug)


_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_JTORCH = os.path.dirname(_PACKAGE)
# Files that register on someone else's behalf (this package's and these): the debug string names
# their caller instead.
_MACHINERY = frozenset(os.path.join(_JTORCH, *p.split("/")) for p in (
    "library.py", "backends.py", "native/registry.py", "native/structured.py",
    "native/elementwise.py", "structured/structured.py", "structured/elementwise.py",
))


_is_machinery: dict[str, bool] = {}


def registration_site(depth_hint: int = 2) -> str:
    """'registered at <file>:<line>' of the first caller outside jtorch's registration machinery."""
    f: FrameType | None = sys._getframe(depth_hint)
    while f is not None:
        name = f.f_code.co_filename
        machinery = _is_machinery.get(name)
        if machinery is None:  # every declaration asks: remember each file's answer
            path = os.path.abspath(name)
            machinery = _is_machinery[name] = path in _MACHINERY or os.path.dirname(path) == _PACKAGE
        if not machinery:
            break
        f = f.f_back
    if f is None:  # pragma: no cover
        return "registered at <unknown>"
    return f"registered at {f.f_code.co_filename}:{f.f_lineno}"
