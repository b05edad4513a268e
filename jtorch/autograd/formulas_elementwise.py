"""Formula helpers for the elementwise entries (see formulas.py)."""
from __future__ import annotations
