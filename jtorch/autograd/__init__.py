"""jtorch.autograd: reverse-mode automatic differentiation, as PyTorch builds it.

Every operator has a generated kernel at the Autograd dispatch key (variable_type.py) that records
a node (node.py) from the derivatives table (derivatives.py, formulas.py) when an input requires
grad; engine.py runs the recorded graph backwards. Grad modes are in grad_mode.py, custom
Functions in function.py.
"""
from . import api as _api
from . import graph
from .api import backward, grad
from .grad_mode import (
    detect_anomaly,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_detect_anomaly,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck

_api.install()
del _api


_LAZY = {"Function": "function", "function": "function", "once_differentiable": "function",
         "functional": "functional", "profiler": "profiler"}


def __getattr__(name: str) -> object:
    """Imported on first use, so that `import jtorch` stays small: custom Functions, and the front-end
    modules `autograd.functional` and `autograd.profiler` (they call generated bindings / the
    dispatcher's observers, which this layer may not import)."""
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'jtorch.autograd' has no attribute '{name}'")
    import importlib

    m = importlib.import_module("." + mod, __name__)
    value = m if name == mod and name in ("function", "functional", "profiler") else getattr(m, name)
    globals()[name] = value
    return value
