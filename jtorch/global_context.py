"""The process-wide switches of ATen's global context (at::Context).

Deterministic algorithms (with warn_only and the filling of uninitialized memory they turn on)
and the float32 matmul precision (warn-always is in warn.py, which gives the warnings). A leaf:
the kernels read these switches to choose a deterministic path, and call
:func:`alert_not_deterministic` where they have none.
"""
from __future__ import annotations

import warnings

from .warn import user_stacklevel

_ISSUES = "You can file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize adding " \
          "deterministic support for this operation."


class _Context:
    deterministic = False
    warn_only = False
    # torch.utils.deterministic.fill_uninitialized_memory: empty tensors filled (NaN / max int)
    # while deterministic algorithms are on
    fill_uninitialized_memory = True
    float32_matmul_precision = "highest"


context = _Context()


def _type_name(v: object) -> str:
    return type(v).__name__ if v is not None else "NoneType"


def set_deterministic_algorithms(mode: bool, warn_only: bool = False) -> None:
    """torch._C._set_deterministic_algorithms: its argument checks and texts."""
    if type(mode) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{_type_name(mode)}")
    if type(warn_only) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{_type_name(warn_only)}")
    context.deterministic = mode
    context.warn_only = warn_only


def deterministic() -> bool:
    """Whether deterministic algorithms are requested (kernels then avoid float atomics)."""
    return context.deterministic


def fill_empty() -> bool:
    """Whether a fresh empty tensor is filled (deterministic mode with fill_uninitialized_memory)."""
    return context.deterministic and context.fill_uninitialized_memory


def alert_not_deterministic(caller: str) -> None:
    """at::Context::alertNotDeterministic: `caller` has no deterministic implementation."""
    if not context.deterministic:
        return
    if context.warn_only:
        warnings.warn(f"{caller} does not have a deterministic implementation, but you set "
                      f"'torch.use_deterministic_algorithms(True, warn_only=True)'. {_ISSUES}",
                      UserWarning, stacklevel=user_stacklevel())
        return
    raise RuntimeError(f"{caller} does not have a deterministic implementation, but you set "
                       "'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
                       "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
                       f"application. {_ISSUES.replace('You can', 'You can also', 1)}")


_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """at::Context::setFloat32MatmulPrecision: an unknown name warns and changes nothing."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {_type_name(precision)}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=user_stacklevel())
        return
    context.float32_matmul_precision = precision


# ---- torch's functions ----------------------------------------------------------------------------
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Sets whether operations must use deterministic algorithms (an operation that has none then
    raises, or warns with `warn_only`); while on, empty tensors are filled (NaN, the largest integer)."""
    set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return context.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return context.warn_only


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """0/'default': off; 1/'warn': on, warn only; 2/'error': on."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode == 0:
        set_deterministic_algorithms(False)
    elif debug_mode == 1:
        set_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        set_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode() -> int:
    if context.deterministic:
        return 1 if context.warn_only else 2
    return 0


def get_float32_matmul_precision() -> str:
    return context.float32_matmul_precision
