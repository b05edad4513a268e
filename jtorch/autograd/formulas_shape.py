"""Formula helpers for the shape entries (see formulas.py)."""
from __future__ import annotations
