"""Formula helpers for the reductions entries (see formulas.py)."""
from __future__ import annotations
