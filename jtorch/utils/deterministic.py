"""`jtorch.utils.deterministic.fill_uninitialized_memory`: whether empty tensors are filled (NaN, the
largest integer, True) while deterministic algorithms are on; a module attribute, as torch's."""
from __future__ import annotations

import sys
import types

from ..global_context import context


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether to fill uninitialized memory with a known value when
        :func:`jtorch.use_deterministic_algorithms` is set to ``True``."""
        return context.fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        if type(mode) is not bool:
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        context.fill_uninitialized_memory = mode


sys.modules[__name__].__class__ = _Deterministic
