"""jtorch.autograd: reverse-mode automatic differentiation, as PyTorch builds it.

Every operator has a generated kernel at the Autograd dispatch key (variable_type.py) that records
a node (node.py) from the derivatives table (derivatives.py, formulas.py) when an input requires
grad; engine.py runs the recorded graph backwards. Grad modes are in grad_mode.py, custom
Functions in function.py.
"""
from .api import backward, grad  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from . import api as _api
from . import graph  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from .function import Function  # noqa: F401
from . import function  # noqa: F401

_api.install()
del _api


def __getattr__(name: str) -> object:
    """`autograd.functional` and `autograd.profiler` are front-end modules (they call generated
    bindings / the dispatcher's observers): imported on first use, not by this layer."""
    if name in ("functional", "profiler"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'jtorch.autograd' has no attribute '{name}'")
