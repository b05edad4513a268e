"""The backend fallbacks PyTorch registers at start-up (BackendSelectFallbackKernel.cpp,
VariableFallbackKernel.cpp, autocast_mode.cpp). Each is a fallthrough: the key is skipped for
every operator that has no kernel of its own there."""
from .library import Library, fallthrough_kernel

_libs = []


def _fallthrough(key: str) -> None:
    lib = Library("_", "IMPL")
    lib.fallback(fallthrough_kernel, key)
    _libs.append(lib)


_fallthrough("BackendSelect")
_fallthrough("ADInplaceOrView")
# Autograd: a fallthrough until the autograd engine registers its own fallback.
for _key in ("AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta"):
    _fallthrough(_key)
_fallthrough("AutocastCPU")
_fallthrough("AutocastCUDA")
