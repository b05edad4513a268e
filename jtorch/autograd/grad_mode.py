"""Grad modes (torch/autograd/grad_mode.py): no_grad, enable_grad, set_grad_enabled, inference_mode.

Each is a context manager and a decorator, and each changes only this thread's state
(`jtorch.tls.local`): GradMode for the first three; InferenceMode also changes the thread's
dispatch key sets as c10::InferenceMode does (ADInplaceOrView leaves the included set, the Autograd
keys join the excluded set), so autograd kernels are not even reached.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import tls as _tls
from ..keyset import DispatchKey, autograd_dispatch_keyset, key_repr

F = TypeVar("F", bound=Callable[..., Any])
_local = _tls.local
_AD_INPLACE_OR_VIEW = key_repr(DispatchKey.ADInplaceOrView)
_AUTOGRAD = int(autograd_dispatch_keyset)


def is_grad_enabled() -> bool:
    return _local.grad_enabled


def is_inference_mode_enabled() -> bool:
    return _local.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generators), entering a fresh copy per call."""

    if TYPE_CHECKING:  # each subclass's own
        def __enter__(self) -> Any: ...
        def __exit__(self, *exc: object) -> Any: ...

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            raise RuntimeError("Cannot decorate classes; it is ambiguous")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args: Any, **kwargs: Any) -> Any:
                g = func(*args, **kwargs)
                try:
                    with self.clone():
                        request = g.send(None)
                    while True:
                        try:
                            response = yield request
                        except GeneratorExit:
                            with self.clone():
                                g.close()
                            raise
                        with self.clone():
                            request = g.send(response)
                except StopIteration as e:
                    return e.value
            return gen  # type: ignore[return-value]  # the generator wrapper stands for the decorated function

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]  # the wrapper stands for the decorated function

    def clone(self) -> _DecoratorContextManager:
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also a decorator without parentheses: `@no_grad` as well as `@no_grad()` (torch's class of this name)."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _GradModeGuard(_NoParamDecoratorContextManager):
    """no_grad's and enable_grad's body: grad mode is the class's `_mode` inside, as it was after."""

    _mode: bool

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _local.grad_enabled
        _local.grad_enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        _local.grad_enabled = self.prev


class no_grad(_GradModeGuard):
    """Disable gradient recording: results of operators get no grad_fn."""

    _mode = False


class enable_grad(_GradModeGuard):
    _mode = True


class set_grad_enabled(_DecoratorContextManager):
    """`set_grad_enabled(False)` takes effect at once (a function call), and undoes itself on
    leaving a `with` block, as in torch."""

    def __init__(self, mode: bool) -> None:
        self.prev = _local.grad_enabled
        self.mode = bool(mode)
        _local.grad_enabled = self.mode

    def __call__(self, func: F) -> F:
        _local.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _local.grad_enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        _local.grad_enabled = self.prev

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """c10::InferenceMode: grad mode off, ADInplaceOrView out of the included set, the Autograd keys
    in the excluded set; tensors made inside are inference tensors (no version counter, no autograd)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._saved: tuple | None = None

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses

    def __enter__(self) -> None:
        self._saved = (_local.grad_enabled, _local.inference, _local.included, _local.excluded)
        if self.mode:
            _local.grad_enabled = False
            _local.inference = True
            _tls.set_included(_local.included & ~_AD_INPLACE_OR_VIEW)
            _tls.set_excluded(_local.excluded | _AUTOGRAD)
        else:  # InferenceMode(false) also turns grad mode on (its AutoGradMode(!enabled))
            _local.grad_enabled = True
            _local.inference = False
            _tls.set_included(_local.included | _AD_INPLACE_OR_VIEW)
            _tls.set_excluded(_local.excluded & ~_AUTOGRAD)

    def __exit__(self, *exc: object) -> None:
        grad, inf, inc, exc_ = self._saved  # type: ignore[misc]  # set by __enter__ before __exit__ runs
        _local.grad_enabled, _local.inference = grad, inf
        _tls.set_included(inc)
        _tls.set_excluded(exc_)

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)


# ---- anomaly mode (torch/autograd/anomaly_mode.py): NaN checks of every node's results -------------
def is_anomaly_enabled() -> bool:
    from .engine import anomaly

    return anomaly[0]


def is_anomaly_check_nan_enabled() -> bool:
    from .engine import anomaly

    return anomaly[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    from .engine import anomaly

    anomaly[:] = [bool(enabled), bool(check_nan)]


class detect_anomaly:
    """Inside: each backward node's results are checked for NaN (torch also keeps each node's
    forward traceback for its error messages; jtorch does not)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        self.check_nan = check_nan
        import warnings

        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turns anomaly mode on or off at once, and back on leaving a `with` block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)
