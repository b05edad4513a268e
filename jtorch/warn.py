"""PyTorch's warnings from Python: TORCH_WARN_ONCE, pointed at the user's line.

A leaf module, so that native operators and the structured layer raise the same warning from one
place (copy_'s "Casting complex values to real discards the imaginary part", for instance).
"""
from __future__ import annotations

import os
import sys
import warnings
from types import FrameType

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
warned: set[str] = set()  # the TORCH_WARN_ONCE messages already given (tests may clear it)
_always = [False]  # torch.set_warn_always: TORCH_WARN_ONCE warns every time


def user_stacklevel() -> int:
    """warnings.warn's stacklevel, called from our caller, for the first frame outside jtorch
    (generated bindings included)."""
    f: FrameType | None = sys._getframe(1)
    level = 1
    while f is not None and f.f_code.co_filename.startswith((_PKG_DIR, "<jtorch")):
        f, level = f.f_back, level + 1
    return level


def warn_once(message: str, category: type = UserWarning) -> None:
    """TORCH_WARN_ONCE: the first time in this process, at the user's line."""
    if message not in warned or _always[0]:
        warned.add(message)
        warnings.warn(message, category, stacklevel=user_stacklevel())


COMPLEX_TO_REAL = "Casting complex values to real discards the imaginary part"


def complex_to_real() -> None:
    warn_once(COMPLEX_TO_REAL)


def set_warn_always(b: bool, /) -> None:
    """When on, warnings given once per process (TORCH_WARN_ONCE) are given every time."""
    if type(b) is not bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _always[0] = b


def is_warn_always_enabled() -> bool:
    return _always[0]
