"""Helpers shared by the dispatcher and library tests."""
from __future__ import annotations

import sys

import jtorch


def here() -> str:
    """The debug string a registration on the caller's line gets."""
    f = sys._getframe(1)
    return f"registered at {f.f_code.co_filename}:{f.f_lineno}"


def ops_ns(ns: str):
    return getattr(jtorch.ops, ns)
