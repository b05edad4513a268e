"""`math` as compiled code sees it, for scalar functions run by the CUDA simulator.

Under the simulator, generated kernels run as Python with NumPy scalars, where `math.log(-1.0)`
raises ValueError and `math.exp(1000.0)` OverflowError; compiled code (CPU or GPU) returns NaN or
inf instead. Generated CUDA modules bind the name `math` to this module under the simulator
(codegen.py), so a scalar function behaves there as it does on a device.
"""
from __future__ import annotations

import math as _math
from collections.abc import Callable
from typing import Any

import numpy as _np

# NumPy's name for a math function, where it differs
_NP = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
       "atanh": "arctanh", "atan2": "arctan2", "pow": "power", "fabs": "abs", "gamma": "_gamma"}


def _py(x: Any) -> Any:
    return x.item() if isinstance(x, _np.generic) else x


def _wrap(name: str, fn: Callable) -> Callable:
    def call(*args: Any) -> Any:
        try:
            return fn(*[_py(a) for a in args])
        except (ValueError, OverflowError, ZeroDivisionError):
            alt = getattr(_np, _NP.get(name, name), None)
            if alt is None:
                return _math.nan
            with _np.errstate(all="ignore"):
                return alt(*[_np.float64(a) for a in args]).item()

    call.__name__ = name
    return call


for _name in dir(_math):
    _v = getattr(_math, _name)
    if _name.startswith("_"):
        continue
    globals()[_name] = _wrap(_name, _v) if callable(_v) else _v
